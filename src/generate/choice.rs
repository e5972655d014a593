//! One choice interface for every generator, and the drivers that feed it.
//!
//! A generator is a plain function `fn(&mut impl Choices) -> T`: every
//! decision it takes is one call of [`Choices::choose`] (a number below
//! `n`, where 0 is the simplest option). What decides the numbers is the
//! driver, so one generator serves every way of drawing inputs (the shape of
//! awslabs/shuttle's scheduler, where random, DFS and replay schedulers sit
//! behind one interface; the exhaustive driver is TigerBeetle's
//! exhaustigen):
//!
//! - [`Replay`] reads a recorded choice sequence; [`strategy`] makes it a
//!   proptest strategy whose shrinking shortens the sequence and lowers its
//!   numbers toward 0, so a counterexample shrinks toward simpler choices.
//! - [`Bytes`] reads fuzz bytes through [`arbitrary::Unstructured`], one
//!   byte per choice of up to 256 options: a one-byte mutation changes one
//!   choice and leaves every earlier one alone, so small mutations stay small
//!   (test `a_byte_changes_only_its_own_choice`).
//! - [`Seeded`] samples with SplitMix64 from an explicit seed.
//! - [`Odometer`] enumerates every choice sequence of a finite generator,
//!   and [`Radix`] decodes one index of a fixed-shape generator, so a
//!   family can be visited with a stride or at one index.

use arbitrary::Unstructured;
use proptest::collection::vec;
use proptest::prelude::*;

/// The decisions a generator takes.
pub trait Choices {
    /// A number in `0..n` (`n` at least 1; 0 when `n` is 1). 0 is the
    /// simplest option, so drivers that shrink move toward it.
    fn choose(&mut self, n: usize) -> usize;

    /// An index into `weights`, each option as likely as its weight.
    /// Drivers that enumerate override it to visit each option once.
    fn weighted(&mut self, weights: &[usize]) -> usize {
        let total: usize = weights.iter().sum();
        let mut x = self.choose(total.max(1));
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len().saturating_sub(1)
    }

    /// Whether an open-ended list goes on: drivers that run out of input
    /// (fuzz bytes, a replayed sequence) stop when it is spent; the others
    /// stop with probability one in eight.
    fn more(&mut self) -> bool {
        self.choose(8) != 0
    }

    /// A coin: `false` is the simpler side.
    fn flip(&mut self) -> bool {
        self.choose(2) == 1
    }

    /// A count in `lo..=hi`.
    fn count(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.choose(hi - lo + 1)
    }

    /// One of `items` (not empty), the first being the simplest.
    fn pick<T: Clone>(&mut self, items: &[T]) -> T
    where
        Self: Sized,
    {
        items[self.choose(items.len())].clone()
    }

    /// Passes over one choice whose value does not matter (the padding of a
    /// [`block`]): drivers that read input (bytes, a replayed sequence, a
    /// seed) spend one choice of 256 options, so what follows stays where it
    /// was; drivers that enumerate spend nothing, so padding adds no values.
    fn skip(&mut self) {
        self.choose(256);
    }
}

/// A recorded choice sequence, read back: each choice of `n` options is
/// the next number scaled from `0..2^16` into `0..n`, and 0 once the
/// sequence is spent. Sixteen bits: generators choose among a few options
/// (256 at most), and each bit is one more step of proptest's shrinking.
#[derive(Debug, Clone)]
pub(crate) struct Replay<'a> {
    choices: &'a [u16],
    pos: usize,
}

impl<'a> Replay<'a> {
    /// Reads `choices` from the start.
    pub(crate) fn new(choices: &'a [u16]) -> Self {
        Replay { choices, pos: 0 }
    }
}

impl Choices for Replay<'_> {
    fn choose(&mut self, n: usize) -> usize {
        let raw = self.choices.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        // Scaled, not reduced modulo `n`: lowering a number never raises
        // its choice, so proptest's shrinking (a binary search of each
        // number toward 0) ends at the simplest choice that still fails.
        ((u64::from(raw) * n.max(1) as u64) >> 16) as usize
    }

    fn more(&mut self) -> bool {
        self.pos < self.choices.len()
    }
}

/// A proptest strategy that runs `generate` on a choice sequence of
/// `min..=max` numbers. Shrinking the sequence (dropping numbers, lowering
/// them toward 0) shrinks the value toward the generator's simplest
/// choices; `min` should cover the choices a value usually takes, so the
/// unshrunk draws are not biased toward short tails.
pub(crate) fn strategy<T, F>(
    min: usize,
    max: usize,
    generate: F,
) -> impl Strategy<Value = T> + Clone
where
    T: std::fmt::Debug,
    F: Fn(&mut Replay<'_>) -> T + Clone,
{
    vec(any::<u16>(), min..=max).prop_map(move |v| generate(&mut Replay::new(&v)))
}

/// Fuzz bytes as choices: each choice of `n` options is
/// `Unstructured::int_in_range(0..=n - 1)`, one byte for `n` up to 256, 0
/// once the bytes run out (arbitrary's own rule), so every input decodes.
#[derive(Debug)]
pub(crate) struct Bytes<'u, 'a> {
    u: &'u mut Unstructured<'a>,
}

impl<'u, 'a> Bytes<'u, 'a> {
    /// Reads choices from `u`.
    pub(crate) fn new(u: &'u mut Unstructured<'a>) -> Self {
        Bytes { u }
    }
}

impl Choices for Bytes<'_, '_> {
    fn choose(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.u.int_in_range(0..=n - 1).unwrap_or(0)
    }

    fn more(&mut self) -> bool {
        !self.u.is_empty()
    }
}

/// Seeded sampling: SplitMix64 (as `corpus` uses), a tiny well-mixed
/// sequence from an explicit seed, so a sample is a pure function of it.
#[derive(Debug, Clone)]
pub(crate) struct Seeded {
    state: u64,
}

impl Seeded {
    /// The sequence started from `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Seeded { state: seed }
    }

    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Choices for Seeded {
    fn choose(&mut self, n: usize) -> usize {
        // Multiply-shift: the high bits of a 64×64 product, no modulo bias
        // worth the name for the small `n` generators use.
        ((u128::from(self.next_u64()) * n.max(1) as u128) >> 64) as usize
    }
}

/// `count` values drawn with the seeded driver, each from its own seed
/// (`seed`, `seed + 1`, …), so value `k` does not depend on the others.
pub(crate) fn sample<T>(count: usize, seed: u64, generate: impl Fn(&mut Seeded) -> T) -> Vec<T> {
    (0..count as u64)
        .map(|k| {
            generate(&mut Seeded::new(
                seed.wrapping_mul(0x1_0000_0001).wrapping_add(k),
            ))
        })
        .collect()
}

/// Exhaustive enumeration (TigerBeetle's exhaustigen): run the generator,
/// then `Odometer::advance` to the next choice sequence, until it says
/// there is none. Every sequence of a generator whose choices are finite is
/// visited once, the last choice turning fastest; a weighted choice visits
/// each option once and [`Choices::more`] is a coin.
#[derive(Debug, Clone, Default)]
pub struct Odometer {
    /// Each choice taken so far: (value, options).
    digits: Vec<(usize, usize)>,
    pos: usize,
}

impl Odometer {
    /// Before the first sequence (all zeros).
    pub fn new() -> Self {
        Odometer::default()
    }

    /// Moves to the next sequence after a run of the generator; `false`
    /// once every sequence has been visited.
    #[cfg(test)]
    pub(crate) fn advance(&mut self) -> bool {
        self.digits.truncate(self.pos);
        self.pos = 0;
        while let Some((v, n)) = self.digits.pop() {
            if v + 1 < n {
                self.digits.push((v + 1, n));
                return true;
            }
        }
        false
    }
}

impl Choices for Odometer {
    fn choose(&mut self, n: usize) -> usize {
        let n = n.max(1);
        if self.pos == self.digits.len() {
            self.digits.push((0, n));
        }
        let digit = &mut self.digits[self.pos];
        digit.1 = n;
        self.pos += 1;
        digit.0.min(n - 1)
    }

    fn weighted(&mut self, weights: &[usize]) -> usize {
        self.choose(weights.len())
    }

    fn more(&mut self) -> bool {
        self.flip()
    }

    fn skip(&mut self) {}
}

/// Every value of a finite generator, in odometer order.
#[cfg(test)]
pub(crate) fn exhaust<T>(mut generate: impl FnMut(&mut Odometer) -> T) -> Vec<T> {
    let mut o = Odometer::new();
    let mut out = vec![generate(&mut o)];
    while o.advance() {
        out.push(generate(&mut o));
    }
    out
}

/// One index of a fixed-shape generator, read as a mixed-radix number:
/// each choice of `n` options takes the index modulo `n` and divides it by
/// `n` (the first choice is the least significant digit). For a generator
/// that always takes the same choices, indices `0..product` are exactly its
/// values, which lets a family be visited with a stride or at one index.
#[cfg(feature = "cli")]
#[derive(Debug, Clone)]
pub(crate) struct Radix {
    rest: usize,
}

#[cfg(feature = "cli")]
impl Radix {
    /// Index `n`.
    pub(crate) fn new(n: usize) -> Self {
        Radix { rest: n }
    }
}

#[cfg(feature = "cli")]
impl Choices for Radix {
    fn choose(&mut self, n: usize) -> usize {
        let n = n.max(1);
        let d = self.rest % n;
        self.rest /= n;
        d
    }

    fn weighted(&mut self, weights: &[usize]) -> usize {
        self.choose(weights.len())
    }

    fn more(&mut self) -> bool {
        self.flip()
    }

    fn skip(&mut self) {}
}

/// A driver that records every choice it passes on, as (value, options):
/// for tests that compare what two runs chose.
#[derive(Debug)]
pub struct Log<C> {
    inner: C,
    /// Every choice so far.
    pub(crate) taken: Vec<(usize, usize)>,
}

impl<C: Choices> Log<C> {
    /// Records the choices of `inner`.
    pub fn new(inner: C) -> Self {
        Log {
            inner,
            taken: Vec::new(),
        }
    }
}

impl<C: Choices> Choices for Log<C> {
    fn choose(&mut self, n: usize) -> usize {
        let v = self.inner.choose(n);
        self.taken.push((v, n));
        v
    }

    fn weighted(&mut self, weights: &[usize]) -> usize {
        let v = self.inner.weighted(weights);
        self.taken.push((v, weights.len()));
        v
    }

    fn more(&mut self) -> bool {
        self.inner.more()
    }

    fn skip(&mut self) {
        self.inner.skip()
    }
}

/// A list of `min..=max` items (`min` 0 or 1) in a fixed layout: every slot
/// takes its choices whether its item is kept or not, and a coin before
/// each keeps it, so dropping an item never shifts what the later choices
/// mean. Any slot can go, the first included: with `min` 1 and no coin up,
/// the first slot is kept. That is what lets proptest shrink a list by
/// lowering one number, and what keeps a one-byte fuzz mutation a one-item
/// change. `item` gets the item's index among the kept ones.
pub(crate) fn slots<C: Choices, T>(
    c: &mut C,
    min: usize,
    max: usize,
    mut item: impl FnMut(&mut C, usize) -> T,
) -> Vec<T> {
    debug_assert!(min <= 1 && max >= min);
    let mut out = Vec::new();
    let mut first = None;
    for k in 0..max {
        let keep = c.flip();
        let value = item(c, out.len());
        if keep {
            out.push(value);
        } else if k == 0 {
            first = Some(value);
        }
    }
    if out.len() < min {
        out.extend(first);
    }
    out
}

/// Runs `generate` on a run of exactly `width` of `c`'s choices, padding
/// with [`Choices::skip`] what it leaves, so a generator whose branches take
/// different numbers of choices still has a fixed layout: what comes after
/// the block starts at the same place whichever branch ran. Choices beyond
/// `width` are 0 and spend nothing (a generator should not need them), and
/// so is a choice of one option. For the one-byte-per-choice property of
/// [`Bytes`], every choice inside takes at most 256 options (a weighted one
/// at most 256 in total).
pub(crate) fn block<C: Choices, T>(
    c: &mut C,
    width: usize,
    generate: impl FnOnce(&mut Block<'_, C>) -> T,
) -> T {
    let mut b = Block {
        inner: c,
        left: width,
    };
    let value = generate(&mut b);
    for _ in 0..b.left {
        b.inner.skip();
    }
    value
}

/// The driver [`block`] hands its generator: `c`'s own choices, counted.
#[derive(Debug)]
pub(crate) struct Block<'c, C> {
    inner: &'c mut C,
    left: usize,
}

impl<C> Block<'_, C> {
    /// Counts one choice; `false` once the width is spent (a generator
    /// wider than its block is a bug of the generator, caught in tests).
    fn take(&mut self) -> bool {
        debug_assert!(self.left > 0, "a generator took more than its block");
        let some = self.left > 0;
        self.left = self.left.saturating_sub(1);
        some
    }
}

impl<C: Choices> Choices for Block<'_, C> {
    fn choose(&mut self, n: usize) -> usize {
        if n <= 1 || !self.take() {
            return 0;
        }
        self.inner.choose(n)
    }

    fn weighted(&mut self, weights: &[usize]) -> usize {
        if weights.len() <= 1 || !self.take() {
            return 0;
        }
        self.inner.weighted(weights)
    }

    fn skip(&mut self) {
        if self.left > 0 {
            self.left -= 1;
            self.inner.skip();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A small generator with a data-dependent shape: a length, then that
    /// many digits of base 3, then a coin.
    fn shape(c: &mut impl Choices) -> (Vec<usize>, bool) {
        let n = c.count(0, 2);
        let digits = (0..n).map(|_| c.choose(3)).collect();
        (digits, c.flip())
    }

    /// Rule: GEN-ONE-INTERFACE — the odometer visits every value of a
    /// finite generator exactly once: (1 + 3 + 9) shapes times 2 coins,
    /// counted by hand.
    #[test]
    fn the_odometer_visits_every_value_once() {
        let all = exhaust(shape);
        let distinct: BTreeSet<_> = all.iter().cloned().collect();
        assert_eq!(all.len(), 26);
        assert_eq!(distinct.len(), 26);
        assert_eq!(all[0], (vec![], false), "all zeros first");
    }

    /// Rule: GEN-ONE-INTERFACE — for a fixed-shape generator, the radix
    /// indices `0..product` are exactly the odometer's values.
    #[test]
    fn radix_indices_are_the_odometer_values_of_a_fixed_shape() {
        let fixed = |c: &mut dyn FnMut(usize) -> usize| (c(4), c(3), c(2));
        let by_odometer: BTreeSet<_> = exhaust(|o| fixed(&mut |n| o.choose(n)))
            .into_iter()
            .collect();
        let by_radix: BTreeSet<_> = (0..24)
            .map(|i| {
                let mut r = Radix::new(i);
                fixed(&mut |n| r.choose(n))
            })
            .collect();
        assert_eq!(by_odometer.len(), 24);
        assert_eq!(by_odometer, by_radix);
    }

    /// Rule: GEN-SMALL-MUTATIONS — with fuzz bytes, choice `i` of up to 256
    /// options is byte `i` alone: changing byte `k` keeps every other
    /// choice of a generator whose shape did not change, and every choice
    /// before `k` always.
    #[test]
    fn a_byte_changes_only_its_own_choice() {
        let bytes: Vec<u8> = (0..40u8).map(|b| b.wrapping_mul(37)).collect();
        let run = |bytes: &[u8]| {
            let mut u = Unstructured::new(bytes);
            let mut log = Log::new(Bytes::new(&mut u));
            for n in [2usize, 7, 256, 3, 5, 2, 9, 4, 100, 6] {
                log.choose(n);
            }
            log.taken
        };
        let before = run(&bytes);
        for k in 0..10 {
            let mut changed = bytes.clone();
            changed[k] ^= 0x55;
            let after = run(&changed);
            for i in 0..10 {
                if i != k {
                    assert_eq!(before[i], after[i], "byte {k} changed choice {i}");
                }
            }
        }
    }

    /// Rule: GEN-ONE-INTERFACE — a block takes exactly its width of the
    /// driver's choices whichever branch runs inside it, so what follows
    /// reads the same input; under the odometer its padding takes nothing,
    /// so a block adds no values to an enumeration.
    #[test]
    fn a_block_takes_its_width_whatever_runs_inside() {
        fn shape(c: &mut impl Choices) -> (usize, usize) {
            let inside = block(c, 4, |c| {
                if c.flip() {
                    1 + c.choose(5) + c.choose(5)
                } else {
                    0
                }
            });
            (inside, c.choose(256))
        }
        for first in 0..=255u8 {
            let bytes = [first, 3, 4, 9, 42, 7];
            let (inside, after) = shape(&mut Bytes::new(&mut Unstructured::new(&bytes)));
            assert_eq!(after, 42, "byte {first}");
            assert_eq!(inside, if first % 2 == 1 { 1 + 3 + 4 } else { 0 });
        }
        let all = exhaust(|o| {
            let v = block(o, 4, |c| c.flip());
            (v, o.choose(2))
        });
        assert_eq!(all.len(), 4, "{all:?}");
    }

    /// Rule: GEN-ONE-INTERFACE — running out of bytes or of a replayed
    /// sequence gives the simplest choice, and ends open-ended lists.
    #[test]
    fn spent_input_chooses_zero_and_stops_lists() {
        let mut u = Unstructured::new(&[5]);
        let mut b = Bytes::new(&mut u);
        assert!(b.more());
        assert_eq!(b.choose(4), 1);
        assert!(!b.more());
        assert_eq!(b.choose(4), 0);
        let mut r = Replay::new(&[u16::MAX / 4 + 1]);
        assert_eq!(r.choose(4), 1);
        assert!(!r.more());
        assert_eq!(r.choose(4), 0);
    }

    /// Rule: GEN-ONE-INTERFACE — seeded sampling is a function of the seed,
    /// stays in range, and reaches every option of a small choice.
    #[test]
    fn seeded_sampling_is_reproducible_and_covers() {
        let a = sample(50, 7, |c| c.choose(5));
        assert_eq!(a, sample(50, 7, |c| c.choose(5)));
        assert_ne!(a, sample(50, 8, |c| c.choose(5)));
        let seen: BTreeSet<usize> = a.into_iter().collect();
        assert_eq!(seen, (0..5).collect());
    }

    /// Rule: GEN-ONE-INTERFACE — a weighted choice follows its weights:
    /// over the 10 values of `choose(10)`, weights 7:3 give 7 and 3; and a
    /// replayed number maps monotonically onto the options.
    #[test]
    fn weighted_choices_follow_their_weights() {
        /// A driver that always answers `self.0` (modulo `n`).
        struct Fixed(usize);
        impl Choices for Fixed {
            fn choose(&mut self, n: usize) -> usize {
                self.0 % n
            }
        }
        let picks: Vec<usize> = (0..10).map(|i| Fixed(i).weighted(&[7, 3])).collect();
        assert_eq!(picks.iter().filter(|&&p| p == 0).count(), 7);
        assert_eq!(exhaust(|o| o.weighted(&[7, 3])), vec![0, 1]);
        let replayed: Vec<usize> = [0, u16::MAX / 3, u16::MAX / 3 * 2, u16::MAX]
            .iter()
            .map(|&raw| Replay::new(&[raw]).choose(3))
            .collect();
        assert_eq!(replayed, [0, 0, 1, 2]);
    }
}
