//! `shapes`: a small, pure geometry library used as the hermetic demo crate.
//!
//! Try: `cargo hermetic generate` in this directory.

pub mod canvas;
pub mod geometry;
pub mod shape;

pub use canvas::{Canvas, CanvasError};
pub use geometry::{Point, Rect};
pub use shape::{Shape, ShapeClass};
