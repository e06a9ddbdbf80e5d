//! Simple shapes with areas and a coarse classification.

/// A shape described by its dimensions.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A circle with radius `r`.
    Circle {
        /// The radius.
        r: f64,
    },
    /// A square with the given side length.
    Square(f64),
    /// A triangle with the given side lengths.
    Triangle(f64, f64, f64),
}

/// A coarse size class of a shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShapeClass {
    /// Dimensions are invalid (non-positive, NaN, or impossible).
    Invalid,
    /// Area below 1.
    Tiny,
    /// Area from 1 up to 100.
    Regular,
    /// Area above 100.
    Huge,
    /// A square of side exactly 42: the answer to everything.
    TheAnswer,
}

impl Shape {
    /// Builds a shape from a name (`"circle"`, `"square"`, `"triangle"`
    /// for an equilateral one) and a size; unknown names give `None`.
    pub fn from_name(name: &str, size: f64) -> Option<Shape> {
        match name {
            "circle" => Some(Shape::Circle { r: size }),
            "square" => Some(Shape::Square(size)),
            "triangle" => Some(Shape::Triangle(size, size, size)),
            _ => None,
        }
    }

    /// Returns the area, or `None` when the dimensions are invalid.
    pub fn area(&self) -> Option<f64> {
        match *self {
            Shape::Circle { r } if r > 0.0 => Some(std::f64::consts::PI * r * r),
            Shape::Square(s) if s > 0.0 => Some(s * s),
            Shape::Triangle(a, b, c) if a > 0.0 && b > 0.0 && c > 0.0 => {
                // Heron's formula; rejects sides violating the triangle inequality.
                let p = (a + b + c) / 2.0;
                let sq = p * (p - a) * (p - b) * (p - c);
                if sq > 0.0 {
                    Some(sq.sqrt())
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Classifies the shape by its area, with a special case for squares of side 42.
    pub fn classify(&self) -> ShapeClass {
        if let Shape::Square(s) = self {
            if *s == 42.0 {
                return ShapeClass::TheAnswer;
            }
        }
        match self.area() {
            None => ShapeClass::Invalid,
            Some(a) if a < 1.0 => ShapeClass::Tiny,
            Some(a) if a <= 100.0 => ShapeClass::Regular,
            Some(_) => ShapeClass::Huge,
        }
    }
}
