//! The generators, written once (issue 18 item 3): wire values
//! ([`wire`]), structured streams ([`stream`]) and whole scenarios
//! ([`scenario`]).
//!
//! Behind the `testkit` feature: a library user who only reads, checks and
//! runs streams and scenarios does not build proptest or arbitrary.
//!
//! The streams and scenario generators are written against one choice
//! interface, [`choice::Choices`], and four drivers feed them: proptest (with
//! shrinking), fuzz bytes, seeded sampling and exhaustive enumeration.

pub mod choice;
pub mod scenario;
pub mod stream;
pub mod wire;
