module Geometry.Shapes

/// A shape in the plane.
type Shape =
    | Circle of radius: float
    | Rectangle of width: float * height: float

let area shape =
    match shape with
    | Circle r -> System.Math.PI * r * r
    | Rectangle (w, h) -> w * h

let perimeter shape =
    match shape with
    | Circle r -> 2.0 * System.Math.PI * r
    | Rectangle (w, h) -> 2.0 * (w + h)

type Canvas(width: int, height: int) =
    member this.Width = width
    member this.Height = height
    member this.Fits(shape: Shape) =
        match shape with
        | Circle r -> 2.0 * r <= float width
        | Rectangle (w, h) -> w <= float width && h <= float height
