//! proptest strategies and `Arbitrary` helpers for the wire types.
