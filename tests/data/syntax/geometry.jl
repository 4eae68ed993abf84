module Geometry

export Point, distance, centroid

"""A point in the plane."""
struct Point
    x::Float64
    y::Float64
end

abstract type Shape end

mutable struct Polygon <: Shape
    vertices::Vector{Point}
end

"""Euclidean distance between two points."""
function distance(a::Point, b::Point)
    dx = a.x - b.x
    dy = a.y - b.y
    return sqrt(dx^2 + dy^2)
end

function centroid(p::Polygon)
    n = length(p.vertices)
    sx = sum(v.x for v in p.vertices)
    sy = sum(v.y for v in p.vertices)
    return Point(sx / n, sy / n)
end

perimeter(p::Polygon) = sum(distance(p.vertices[i], p.vertices[mod1(i + 1, end)]) for i in eachindex(p.vertices))

macro twice(ex)
    return :($(esc(ex)); $(esc(ex)))
end

end # module
