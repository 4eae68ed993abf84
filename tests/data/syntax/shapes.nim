import math

type
  Shape* = ref object of RootObj
    name*: string
  Circle* = ref object of Shape
    radius*: float

proc newCircle*(radius: float): Circle =
  result = Circle(name: "circle", radius: radius)

method area*(s: Shape): float {.base.} =
  0.0

method area*(c: Circle): float =
  PI * c.radius * c.radius

func describe*(s: Shape): string =
  s.name & " with area " & $s.area

iterator corners*(n: int): int =
  for i in 0 ..< n:
    yield i
