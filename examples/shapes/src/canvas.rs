//! A bounded collection of shapes.

use crate::shape::Shape;

/// The magic capacity that unlocks an extra-large canvas.
const MAGIC_CAPACITY: usize = 0xC0FFEE;

/// Why a shape could not be added to a [`Canvas`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CanvasError {
    /// The canvas already holds `capacity` shapes.
    Full {
        /// The canvas capacity.
        capacity: usize,
    },
    /// The shape has invalid dimensions.
    InvalidShape,
}

/// A canvas holding up to `capacity` valid shapes.
///
/// Deliberately not `PartialEq`: test oracles must compare its `Debug` text.
#[derive(Debug, Clone)]
pub struct Canvas {
    shapes: Vec<Shape>,
    capacity: usize,
}

impl Canvas {
    /// Creates an empty canvas; capacities above 64 are clamped to 64,
    /// except the magic capacity `0xC0FFEE`, which is allowed 1000 shapes.
    pub fn new(capacity: usize) -> Canvas {
        let capacity = if capacity == MAGIC_CAPACITY {
            1000
        } else {
            capacity.min(64)
        };
        Canvas {
            shapes: Vec::new(),
            capacity,
        }
    }

    /// Adds a shape and returns its index.
    pub fn add(&mut self, shape: Shape) -> Result<usize, CanvasError> {
        if self.shapes.len() >= self.capacity {
            return Err(CanvasError::Full {
                capacity: self.capacity,
            });
        }
        if shape.area().is_none() {
            return Err(CanvasError::InvalidShape);
        }
        self.shapes.push(shape);
        Ok(self.shapes.len() - 1)
    }

    /// Returns the number of shapes on the canvas.
    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    /// Returns `true` when the canvas holds no shapes.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Returns the summed area of all shapes.
    pub fn total_area(&self) -> f64 {
        self.shapes.iter().filter_map(Shape::area).sum()
    }
}

impl Default for Canvas {
    /// Creates an empty canvas with capacity 8.
    fn default() -> Canvas {
        Canvas::new(8)
    }
}
