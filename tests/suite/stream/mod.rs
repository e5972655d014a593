//! Stream operations (RFD 082 Phase 3): turns, pairing, sanitize, and the
//! committed realistic corpus.

mod corpus;
mod sanitize_clean;
mod stream_ops;
