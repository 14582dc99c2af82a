//! Placeholder crate root; see the crate description.
