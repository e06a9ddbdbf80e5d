//! Tests of emission: exact text, rustfmt-cleanliness, placement.
