//! Rule `PERF-ID-TEXT`: the inquiry IDs joined by hand are the texts
//! `format!` writes.

use proptest::prelude::*;

use super::{push_decimal, three_segment, two_segment};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256)
    ))]

    /// Rule: PERF-ID-TEXT — invariant: a three-segment ID is
    /// `format!("{call}.{question}.{attempt}")`, a two-segment one
    /// `format!("{call}.{question}")`, for any parts and any attempt.
    #[test]
    fn joined_ids_are_the_formatted_texts(call in ".{0,6}", question in ".{0,6}", attempt in any::<u32>()) {
        prop_assert_eq!(three_segment(&call, &question, attempt), format!("{call}.{question}.{attempt}"));
        prop_assert_eq!(two_segment(&call, &question), format!("{call}.{question}"));
    }
}

/// Rule: PERF-ID-TEXT — the decimal writer agrees with `Display` at every
/// length boundary, and the check can fail: a writer that drops the digit
/// when the number is 0 (the loop run while `n > 0`) disagrees at 0.
#[test]
fn decimals_are_displays_at_every_length() {
    fn pushed(n: u64) -> String {
        let mut s = String::new();
        push_decimal(&mut s, n);
        s
    }
    fn while_positive(mut n: u64) -> String {
        let mut digits = Vec::new();
        while n > 0 {
            digits.push(char::from(b'0' + (n % 10) as u8));
            n /= 10;
        }
        digits.iter().rev().collect()
    }
    let mut cases = vec![0, u64::from(u32::MAX), u64::MAX];
    let mut n: u64 = 1;
    while let Some(next) = n.checked_mul(10) {
        cases.extend([n - 1, n, n + 1]);
        n = next;
    }
    cases.extend([n - 1, n, n + 1]);
    for n in cases {
        assert_eq!(pushed(n), n.to_string());
    }
    assert_ne!(while_positive(0), 0.to_string());
    assert_eq!(while_positive(7), pushed(7));
}
