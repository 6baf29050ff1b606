//! See the crate documentation.
