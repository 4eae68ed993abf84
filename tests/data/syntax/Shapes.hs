-- | Geometric shapes and their areas.
module Shapes
  ( Shape (..)
  , area
  , perimeter
  ) where

import Data.List (sortOn)

-- | A plane figure.
data Shape
  = Circle Double
  | Rect Double Double
  deriving (Show, Eq)

class HasName a where
  name :: a -> String

instance HasName Shape where
  name (Circle _) = "circle"
  name (Rect _ _) = "rectangle"

-- | The area enclosed by a shape.
area :: Shape -> Double
area (Circle r) = pi * r * r
area (Rect w h) = w * h

perimeter :: Shape -> Double
perimeter (Circle r) = 2 * pi * r
perimeter (Rect w h) = 2 * (w + h)

largest :: [Shape] -> Maybe Shape
largest [] = Nothing
largest shapes = Just (last (sortOn area shapes))
