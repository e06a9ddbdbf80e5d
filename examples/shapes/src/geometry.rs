//! Points and axis-aligned rectangles.

/// A point in the plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Horizontal coordinate.
    pub x: f64,
    /// Vertical coordinate.
    pub y: f64,
}

impl Point {
    /// Creates a point at `(x, y)`.
    pub fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Returns the Euclidean distance to `other`.
    pub fn distance(&self, other: &Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

impl From<(f64, f64)> for Point {
    /// Converts an `(x, y)` tuple into a point.
    fn from((x, y): (f64, f64)) -> Point {
        Point { x, y }
    }
}

/// An axis-aligned rectangle anchored at its lower-left `origin`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// The lower-left corner.
    pub origin: Point,
    /// Extent along x; negative widths are treated as empty.
    pub width: f64,
    /// Extent along y; negative heights are treated as empty.
    pub height: f64,
}

impl Rect {
    /// Returns the area, or 0 for degenerate (non-positive) sizes.
    pub fn area(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.width * self.height
        }
    }

    /// Returns `true` when `p` lies inside or on the border.
    pub fn contains(&self, p: &Point) -> bool {
        !self.is_empty()
            && in_range(p.x, self.origin.x, self.origin.x + self.width)
            && in_range(p.y, self.origin.y, self.origin.y + self.height)
    }

    /// Returns the overlapping region of two rectangles, if it has area.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let x0 = self.origin.x.max(other.origin.x);
        let y0 = self.origin.y.max(other.origin.y);
        let x1 = (self.origin.x + self.width).min(other.origin.x + other.width);
        let y1 = (self.origin.y + self.height).min(other.origin.y + other.height);
        if x1 > x0 && y1 > y0 {
            Some(Rect {
                origin: Point::new(x0, y0),
                width: x1 - x0,
                height: y1 - y0,
            })
        } else {
            None
        }
    }

    /// Returns `true` when the rectangle has no area (or NaN sizes).
    fn is_empty(&self) -> bool {
        !(self.width > 0.0 && self.height > 0.0)
    }
}

/// Returns `true` when `lo <= v <= hi` (private helper).
fn in_range(v: f64, lo: f64, hi: f64) -> bool {
    v >= lo && v <= hi
}
