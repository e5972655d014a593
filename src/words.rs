//! Words of the reports every layer writes (the amendment reports, the
//! command line): one place decides how a count reads.

/// `1 turn`, `2 turns`, `2 classes`: a count and its noun, singular for
/// exactly one; a noun ending in a hiss (`s`, `x`, `ch`, `sh`) takes `es`.
#[cfg(feature = "testkit")]
pub(crate) fn count(n: usize, noun: &str) -> String {
    Count(n, noun).to_string()
}

/// [`count`] as a `Display`, written straight into a larger text.
pub(crate) struct Count<'a>(pub(crate) usize, pub(crate) &'a str);

impl std::fmt::Display for Count<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Count(n, noun) = *self;
        if n == 1 {
            write!(f, "{n} {noun}")
        } else if ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e)) {
            write!(f, "{n} {noun}es")
        } else {
            write!(f, "{n} {noun}s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::count;

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
