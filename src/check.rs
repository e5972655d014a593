//! The oracle: every invariant as a function from a stream or trace to diagnostics.
