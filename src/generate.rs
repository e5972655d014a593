//! The generators, written once (issue 18 item 3): wire values
//! ([`wire`]), structured streams ([`stream`]) and whole scenarios
//! ([`scenario`]).
//!
//! Behind the `testkit` feature: a library user who only reads, checks and
//! runs streams and scenarios does not build proptest or arbitrary.
//!
//! The scenario generator ([`scenario::generate`]), the flat stream
//! encoding of the `sanitize` fuzz target ([`stream::flat`]) and the
//! exploration's families (`explore::generate`) are written against one
//! choice interface, [`choice::Choices`], and four drivers feed them:
//! proptest (with shrinking), fuzz bytes, seeded sampling and exhaustive
//! enumeration. The wire strategies ([`wire`]) and the structured stream
//! strategies ([`stream::stream`], [`stream::clean_stream`], …) are still
//! proptest combinators: each exists once, with no second copy to drift
//! from.

pub mod choice;
pub mod scenario;
pub mod stream;
pub mod wire;
