//! Words of the reports every layer writes (the amendment reports, the
//! command line): one place decides how a count reads.

/// `1 turn`, `2 turns`, `2 classes`: a count and its noun, singular for
/// exactly one; a noun ending in a hiss (`s`, `x`, `ch`, `sh`) takes `es`.
#[cfg(feature = "cli")]
pub(crate) fn count(n: usize, noun: &str) -> String {
    Count(n, noun).to_string()
}

/// [`count`] as a `Display`, written straight into a larger text.
pub(crate) struct Count<'a>(pub(crate) usize, pub(crate) &'a str);

impl Count<'_> {
    /// Appends the count's words to `out`, as its `Display` writes them,
    /// without the formatting machinery: a finding worded on every run of
    /// an exploration pays for its words alone.
    pub(crate) fn push_onto(&self, out: &mut String) {
        let Count(n, noun) = *self;
        crate::wire::id::push_decimal(out, n as u64);
        out.push(' ');
        out.push_str(noun);
        out.push_str(plural_ending(n, noun));
    }
}

/// What a count's noun takes after it: nothing for exactly one, `es`
/// after a hiss, else `s`. The one place the plural is decided.
fn plural_ending(n: usize, noun: &str) -> &'static str {
    if n == 1 {
        ""
    } else if ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e)) {
        "es"
    } else {
        "s"
    }
}

impl std::fmt::Display for Count<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Count(n, noun) = *self;
        write!(f, "{n} {noun}{}", plural_ending(n, noun))
    }
}

#[cfg(test)]
mod tests {
    use super::{Count, count};
    use proptest::prelude::*;

    proptest! {
        /// Rule: PERF-WORDS-PUSHED — invariant: a count pushed onto a text
        /// reads as its `Display` writes it, for every number and noun.
        #[test]
        fn a_pushed_count_reads_as_its_display(
            n in prop_oneof![0usize..200, any::<usize>()],
            noun in "[a-z]{0,6}(s|x|ch|sh|y|)",
            before in "[a-z ]{0,4}",
        ) {
            let mut pushed = before.clone();
            Count(n, &noun).push_onto(&mut pushed);
            prop_assert_eq!(pushed, format!("{before}{}", Count(n, &noun)));
        }
    }

    /// Rule: PERF-WORDS-PUSHED — counts at the edges of their digits
    /// are pushed as their `Display` writes them.
    #[test]
    fn decimal_edges_are_pushed_as_written() {
        for n in [0, 1, 9, 10, 99, 100, 1_000_000, usize::MAX] {
            let mut s = String::new();
            Count(n, "class").push_onto(&mut s);
            assert_eq!(s, Count(n, "class").to_string());
        }
    }

    /// One is singular; zero and many are plural, `es` after a hiss.
    #[test]
    fn one_is_singular_zero_and_many_are_plural() {
        assert_eq!(count(1, "scenario"), "1 scenario");
        assert_eq!(count(0, "scenario"), "0 scenarios");
        assert_eq!(count(2, "turn"), "2 turns");
        assert_eq!(count(1, "class"), "1 class");
        assert_eq!(count(3, "class"), "3 classes");
    }
}
