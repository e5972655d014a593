//! The generators, written once (rule GEN-ONE-INTERFACE): wire values
//! ([`wire`]), structured streams ([`stream`]) and whole scenarios
//! ([`scenario`]).
//!
//! Behind the `testkit` feature: a library user who only reads, checks and
//! runs streams and scenarios does not build proptest or arbitrary.
//!
//! Every generator is a plain function over one choice interface,
//! [`choice::Choices`]: the wire generators ([`wire::draw`]), the
//! structured stream generators ([`stream::draw`]), the flat stream
//! encoding of the `sanitize` fuzz target ([`stream::flat`]), the scenario
//! generator ([`scenario::generate`]) and the exploration's families
//! (`explore::generate`). Four drivers feed them: proptest with shrinking
//! (the strategies of each module, thin wrappers), fuzz bytes
//! (`from_bytes`), seeded sampling (`sample`) and exhaustive enumeration
//! (`choice::exhaust`, compiled for tests, [`choice::Radix`]).

/// Proptest strategies that wrap the generators of a module's `draw`: each
/// `name -> Type = budget;` is a `pub fn name() -> BoxedStrategy<Type>`
/// that draws `budget` choices (a fixed number: shrinking lowers them
/// toward 0 rather than dropping them) and runs `draw::name` on them.
macro_rules! strategies {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = $budget:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name() -> proptest::strategy::BoxedStrategy<$ty> {
            proptest::strategy::Strategy::boxed($crate::generate::choice::strategy(
                $budget,
                $budget,
                |c| draw::$name(c),
            ))
        }
    )*};
}

pub mod choice;

/// The known reasons, in a static so their tags are `&'static str`: the
/// generators' reach measures name a known reason by its tag, derived from
/// [`CancellationReason::KNOWN`](crate::wire::CancellationReason::KNOWN), so
/// a new reason is reached or reported without a label written for it.
#[cfg(test)]
static KNOWN_REASONS: [crate::wire::CancellationReason;
    crate::wire::CancellationReason::KNOWN.len()] = crate::wire::CancellationReason::KNOWN;

/// A known reason's reach label (its tag); `None` for an unknown one.
#[cfg(test)]
fn known_reason_label(r: &crate::wire::CancellationReason) -> Option<&'static str> {
    KNOWN_REASONS.iter().find(|k| *k == r).map(|k| k.as_str())
}

/// Every known reason's reach label.
#[cfg(test)]
fn known_reason_labels() -> impl Iterator<Item = &'static str> {
    KNOWN_REASONS.iter().map(|k| k.as_str())
}
pub mod corpus;
pub mod scenario;
pub mod stream;
pub mod wire;

#[cfg(test)]
mod generator_reach_tests;
