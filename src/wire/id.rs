//! The inquiry ID grammar, stated once (RFD 082 "Inquiry ID format"):
//! `<tool_call_id>.<question_id>.<attempt>`, and the pre-082 two-segment
//! `<tool_call_id>.<question_id>`.
//!
//! The writer builds an ID with [`IdParts::build`] (what
//! [`InquiryId::new`] does); the oracle reads a recorded ID back with
//! [`readings`] and [`parse`] against the tool calls open when it was
//! recorded (rule `CHECK-ID-FORMAT`). Readers never pair by these parts
//! (rule `WIRE-ID-OPAQUE`): the grammar is for judging writers.
//!
//! RFD 082 does not forbid the separator inside a part, so the grammar is
//! not uniquely decodable (spec/DECISIONS.md "IDs: RFD 082's joined IDs are
//! judged by their parts"): with calls `a` and `a.b` open, `a.b.c.1` is call
//! `a` asking `b.c` and call `a.b` asking `c`. [`parse`] says so
//! ([`Parse::Ambiguous`]) instead of choosing; the attempt is always the
//! last segment (decimal, so it holds no separator), and the question ID is
//! everything between the call's separator and the attempt's.

use super::InquiryId;

/// The separator RFD 082 joins the parts with.
pub(crate) const SEPARATOR: char = '.';

/// The writer-side parts of an RFD 082 three-segment ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdParts {
    /// The open call's tool-call ID.
    pub tool_call_id: String,
    /// The question ID.
    pub question_id: String,
    /// The attempt, from 1.
    pub attempt: u32,
}

impl IdParts {
    /// The ID these parts make: `<tool_call_id>.<question_id>.<attempt>`.
    pub fn build(&self) -> InquiryId {
        InquiryId::from_opaque(three_segment(
            &self.tool_call_id,
            &self.question_id,
            self.attempt,
        ))
    }
}

/// `<tool_call_id>.<question_id>.<attempt>`, the attempt in decimal without
/// leading zeros.
///
/// Joined by hand into one allocation of the right size (rule
/// `PERF-ID-TEXT`: the text `format!` writes), as the model builds an ID at
/// every question.
pub(crate) fn three_segment(tool_call_id: &str, question_id: &str, attempt: u32) -> String {
    let mut id = String::with_capacity(tool_call_id.len() + question_id.len() + 2 + 10);
    id.push_str(tool_call_id);
    id.push(SEPARATOR);
    id.push_str(question_id);
    id.push(SEPARATOR);
    push_decimal(&mut id, u64::from(attempt));
    id
}

/// `<tool_call_id>.<question_id>`, the pre-082 form.
pub(crate) fn two_segment(tool_call_id: &str, question_id: &str) -> String {
    let mut id = String::with_capacity(tool_call_id.len() + 1 + question_id.len());
    id.push_str(tool_call_id);
    id.push(SEPARATOR);
    id.push_str(question_id);
    id
}

/// Appends `n` in decimal without leading zeros (as `Display` writes it,
/// rule `PERF-ID-TEXT`).
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        // `rest % 10` is below 10, so the digit is ASCII.
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Why a string is not `<call>.<question_id>.<attempt>` for one call whose
/// ID and separator start it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdFault {
    /// No `.<attempt>` after the call (a pre-082 two-segment ID).
    NoAttempt,
    /// The attempt is not a number from 1 without leading zeros.
    BadAttempt,
    /// The attempt is such a number, past `u32::MAX` (decision "Oracle
    /// checks: an attempt past `u32::MAX`").
    AttemptTooLarge,
}

/// The rest of `s` after `call` and the separator, if `s` starts so.
fn after_call<'a>(s: &'a str, call: &str) -> Option<&'a str> {
    s.strip_prefix(call)?.strip_prefix(SEPARATOR)
}

/// `rest.rsplit_once(SEPARATOR)`, searched by bytes: the separator is one
/// ASCII byte, so where it lies is a character boundary, and a backward
/// byte loop over a short ID costs less than the character searcher's
/// set-up.
fn split_at_last_separator(rest: &str) -> Option<(&str, &str)> {
    const BYTE: u8 = {
        assert!(SEPARATOR.is_ascii(), "the separator is one byte");
        SEPARATOR as u8
    };
    let at = rest.bytes().rposition(|b| b == BYTE)?;
    Some((&rest[..at], &rest[at + 1..]))
}

/// `s` read as `<call>.<question_id>.<attempt>` for the call `call`: `None`
/// when `s` does not start with `call` and the separator, else the question ID and the attempt, or why they are not.
pub(crate) fn read_for<'a>(s: &'a str, call: &str) -> Option<Result<(&'a str, u32), IdFault>> {
    let rest = after_call(s, call)?;
    let Some((question, attempt)) = split_at_last_separator(rest) else {
        return Some(Err(IdFault::NoAttempt));
    };
    let digits = !attempt.is_empty() && attempt.bytes().all(|b| b.is_ascii_digit());
    Some(
        match (digits, attempt.starts_with('0'), attempt.parse::<u32>()) {
            (true, false, Ok(n)) => Ok((question, n)),
            (true, false, Err(_)) => Err(IdFault::AttemptTooLarge),
            (true, true, _) | (false, _, _) => Err(IdFault::BadAttempt),
        },
    )
}

/// Whether `s` is the two-segment `<call>.<question_id>` for `call`, the
/// question ID without the separator (empty allowed, as in the
/// three-segment form).
pub(crate) fn is_two_segment(s: &str, call: &str) -> bool {
    after_call(s, call).is_some_and(|rest| !rest.contains(SEPARATOR))
}

/// One call's reading of an ID: the call, and the question ID and attempt
/// it gives or why it gives none.
pub(crate) type Reading<'s, 'c> = (&'c str, Result<(&'s str, u32), IdFault>);

/// Every reading of `s` for the calls `calls` whose ID and separator start
/// it: the call with the question ID and attempt it gives, or why it gives
/// none. The longest call first (a duplicate call once).
pub(crate) fn readings<'s, 'c>(s: &'s str, calls: &[&'c str]) -> Vec<Reading<'s, 'c>> {
    let mut out: Vec<Reading<'s, 'c>> = calls
        .iter()
        .filter_map(|c| read_for(s, c).map(|r| (*c, r)))
        .collect();
    // Calls that both start `s` and are as long are equal: a duplicate is
    // next to its twin once sorted.
    out.sort_by_key(|(c, _)| std::cmp::Reverse(c.len()));
    out.dedup_by_key(|(c, _)| *c);
    out
}

/// What [`parse`] makes of an ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parse {
    /// No open call gives a three-segment reading.
    None,
    /// Exactly one does.
    One(IdParts),
    /// Several do (the separator inside a part): every one, longest call
    /// first.
    Ambiguous(Vec<IdParts>),
}

/// `id` read as a three-segment ID of one of the open calls `calls`, honest
/// about ambiguity: every reading, never a chosen one.
pub fn parse(id: &InquiryId, calls: &[&str]) -> Parse {
    let mut found: Vec<IdParts> = readings(id.as_str(), calls)
        .into_iter()
        .filter_map(|(call, r)| {
            r.ok().map(|(question, attempt)| IdParts {
                tool_call_id: call.to_owned(),
                question_id: question.to_owned(),
                attempt,
            })
        })
        .collect();
    match found.len() {
        0 => Parse::None,
        1 => Parse::One(found.remove(0)),
        _ => Parse::Ambiguous(found),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A part of an ID: short strings over an alphabet with the separator
    /// and digits, so dotted and digit-only parts are common.
    fn part() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[ab1.]{0,4}").expect("a valid regex")
    }

    fn parts() -> impl Strategy<Value = IdParts> {
        (
            proptest::string::string_regex("[ab1.]{1,4}").expect("a valid regex"),
            part(),
            1u32..=12,
        )
            .prop_map(|(tool_call_id, question_id, attempt)| IdParts {
                tool_call_id,
                question_id,
                attempt,
            })
    }

    proptest! {
        /// Rules: LIFE-ID-FORMAT, CHECK-ID-FORMAT — parse(build(x)) == x:
        /// read against its own call, a built ID gives back its parts,
        /// dotted question IDs included; and `InquiryId::new` (the model's
        /// writer) builds exactly what the grammar builds.
        #[test]
        fn parse_of_build_is_the_parts_for_its_own_call(x in parts()) {
            let id = x.build();
            prop_assert_eq!(&id, &InquiryId::new(&x.tool_call_id, &x.question_id, x.attempt));
            prop_assert_eq!(parse(&id, &[x.tool_call_id.as_str()]), Parse::One(x.clone()));
        }

        /// Rule: CHECK-ID-FORMAT — parse is honest about RFD 082's separator
        /// flaw: with other calls open, the parts are always among the
        /// readings, a single reading is the parts, and the ID is ambiguous
        /// exactly when another open call also reads it; every reading
        /// builds the same ID back (build(parse(s)) == s).
        #[test]
        fn parse_is_honest_about_ambiguity(x in parts(), others in proptest::collection::vec(part(), 0..3)) {
            let id = x.build();
            let mut calls: Vec<&str> = others.iter().map(String::as_str).collect();
            calls.push(&x.tool_call_id);
            let another = others
                .iter()
                .filter(|c| **c != x.tool_call_id)
                .any(|c| matches!(read_for(id.as_str(), c), Some(Ok(_))));
            match parse(&id, &calls) {
                Parse::None => prop_assert!(false, "no reading of {}", id),
                Parse::One(y) => {
                    prop_assert!(!another);
                    prop_assert_eq!(y, x);
                }
                Parse::Ambiguous(all) => {
                    prop_assert!(another);
                    prop_assert!(all.contains(&x));
                    for y in &all {
                        prop_assert_eq!(&y.build(), &id);
                    }
                }
            }
        }
    }

    proptest! {
        /// Rule: CHECK-ID-FORMAT — the attempt is split off at the last
        /// separator exactly as `str::rsplit_once` splits, on any text
        /// (dots anywhere, none, non-ASCII characters around them).
        #[test]
        fn separator_split_is_rsplit_once(s in "[a.é1😀]{0,8}") {
            prop_assert_eq!(split_at_last_separator(&s), s.rsplit_once(SEPARATOR));
        }
    }

    /// The RFD 082 example of the flaw: calls `a` and `a.b` both read
    /// `a.b.c.1`; a two-segment ID and a bad attempt are told apart.
    #[test]
    fn the_separator_flaw_is_ambiguous() {
        let id = InquiryId::from_opaque("a.b.c.1");
        let Parse::Ambiguous(all) = parse(&id, &["a", "a.b"]) else {
            panic!("a.b.c.1 reads two ways");
        };
        let calls: Vec<&str> = all.iter().map(|p| p.tool_call_id.as_str()).collect();
        assert_eq!(calls, ["a.b", "a"]);
        assert_eq!(read_for("c.q", "c"), Some(Err(IdFault::NoAttempt)));
        assert_eq!(read_for("c.q.01", "c"), Some(Err(IdFault::BadAttempt)));
        assert_eq!(
            read_for("c.q.4294967296", "c"),
            Some(Err(IdFault::AttemptTooLarge))
        );
        assert_eq!(read_for("c.", "c"), Some(Err(IdFault::NoAttempt)));
        assert_eq!(read_for("d.q.1", "c"), None);
        assert!(is_two_segment("c.q", "c"));
        assert!(!is_two_segment("c.q.1", "c"));
    }
}

#[cfg(all(test, feature = "testkit"))]
mod id_separator_tests;

#[cfg(test)]
mod id_text_tests;
