//! Bad-but-real input: a `null` reason or outcome, a
//! byte-order mark, and the older jp format.

use crate::binary;

use std::io::BufReader;

use binary::{code, run_stdin};

use inquiry_model::wire::{CancellationReason, EventKind, InquiryId, InquiryResponse, Stream};
use serde_json::json;

fn response(text: &str) -> Result<InquiryResponse, serde_json::Error> {
    serde_json::from_str(text)
}

fn id(s: &str) -> InquiryId {
    InquiryId::from_opaque(s)
}

/// Rule: WIRE-RESP-NULL-ABSENT — `"reason": null` reads as a missing
/// reason: `User` on `cancelled` (RFD 082's default for a missing one),
/// ignored on `answered`; a reason of another non-string type is still an
/// error.
#[test]
fn null_reason_reads_as_a_missing_reason() {
    assert_eq!(
        response(r#"{"outcome":"cancelled","id":"x","reason":null}"#).unwrap(),
        InquiryResponse::Cancelled {
            id: id("x"),
            reason: CancellationReason::User
        }
    );
    assert_eq!(
        response(r#"{"outcome":"cancelled","id":"x","reason":null}"#).unwrap(),
        response(r#"{"outcome":"cancelled","id":"x"}"#).unwrap(),
        "null and missing read the same"
    );
    assert_eq!(
        response(r#"{"outcome":"answered","id":"x","answer":1,"reason":null}"#).unwrap(),
        InquiryResponse::Answered {
            id: id("x"),
            answer: json!(1)
        }
    );
    for bad in [
        r#"{"outcome":"cancelled","id":"x","reason":7}"#,
        r#"{"outcome":"cancelled","id":"x","reason":{}}"#,
    ] {
        assert!(response(bad).is_err(), "{bad}");
    }
}

/// Rule: WIRE-RESP-NULL-ABSENT — `"outcome": null` reads as a missing
/// outcome: with an answer it is the legacy flat form, without one the
/// RFD's "absence of `outcome`, `answer`" error; a non-string outcome is
/// still an error.
#[test]
fn null_outcome_reads_as_a_missing_outcome() {
    assert_eq!(
        response(r#"{"outcome":null,"id":"x","answer":true}"#).unwrap(),
        InquiryResponse::Answered {
            id: id("x"),
            answer: json!(true)
        }
    );
    let err = response(r#"{"outcome":null,"id":"x"}"#)
        .expect_err("no outcome, no answer")
        .to_string();
    assert!(err.contains("neither `outcome` nor `answer`"), "{err}");
    assert!(response(r#"{"outcome":7,"id":"x","answer":true}"#).is_err());
}

/// A clean legacy turn, then a turn whose cancelled response has
/// `"reason": null`.
const NULL_FIELDS: &str = concat!(
    r#"{"type":"turn_start"}"#,
    "\n",
    r#"{"type":"tool_call_request","id":"c","name":"t"}"#,
    "\n",
    r#"{"type":"inquiry_request","id":"c.q.1","source":{"source":"tool","name":"t"},"question":{"text":"ok?","answer_type":{"type":"boolean"}}}"#,
    "\n",
    r#"{"type":"inquiry_response","outcome":"cancelled","id":"c.q.1","reason":null}"#,
    "\n",
    r#"{"type":"tool_call_response","id":"c","content":"b2s="}"#,
    "\n",
    r#"{"type":"turn_start"}"#,
    "\n",
    r#"{"type":"tool_call_request","id":"d","name":"t"}"#,
    "\n",
    r#"{"type":"inquiry_request","id":"d.q.1","source":{"source":"tool","name":"t"},"question":{"text":"ok?","answer_type":{"type":"boolean"}}}"#,
    "\n",
    r#"{"type":"inquiry_response","outcome":null,"id":"d.q.1","answer":true}"#,
    "\n",
    r#"{"type":"tool_call_response","id":"d","content":"b2s="}"#,
    "\n",
);

/// Rule: WIRE-RESP-NULL-ABSENT — a stream holding `"reason": null` and
/// `"outcome": null` reads whole (today: exit 2, the whole file unusable),
/// and `check` and `sanitize` judge and repair it instead of giving up.
#[test]
fn a_stream_with_null_fields_stays_usable() {
    let s = Stream::from_slice(NULL_FIELDS.as_bytes(), "nulls.jsonl").expect("reads");
    assert_eq!(s.events.len(), 10);
    assert!(matches!(
        s.events[3].kind,
        EventKind::InquiryResponse(InquiryResponse::Cancelled {
            reason: CancellationReason::User,
            ..
        })
    ));
    let o = run_stdin(&["check", "-"], NULL_FIELDS.as_bytes());
    assert_ne!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
    let o = run_stdin(&["sanitize", "-"], NULL_FIELDS.as_bytes());
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    let back = Stream::from_slice(&o.stdout, "out").expect("the output reads");
    assert_eq!(back, s);
}

/// Rule: WIRE-READ-BOM — a UTF-8 byte-order mark before an array or JSON
/// Lines is skipped, whatever the reader's chunk size, and the events are
/// those of the input without it; `check` and `sanitize` accept the file.
#[test]
fn a_byte_order_mark_is_skipped() {
    let plain = Stream::from_slice(NULL_FIELDS.as_bytes(), "plain").unwrap();
    let array = plain.to_array_string();
    for body in [NULL_FIELDS, array.as_str(), "[]", "  \n[ ]\n"] {
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), body.as_bytes()].concat();
        let want = Stream::from_slice(body.as_bytes(), "plain").unwrap();
        assert_eq!(
            Stream::from_slice(&with_bom, "bom").expect("a BOM is skipped"),
            want
        );
        for cap in [1, 2, 4, 7] {
            let r = BufReader::with_capacity(cap, with_bom.as_slice());
            assert_eq!(Stream::read(r, "bom").unwrap(), want, "chunks of {cap}");
        }
        let o = run_stdin(&["sanitize", "-"], &with_bom);
        assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!o.stdout.starts_with(b"\xEF"), "writers write no BOM");
    }
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), NULL_FIELDS.as_bytes()].concat();
    let o = run_stdin(&["check", "-"], &with_bom);
    assert_ne!(code(&o), 2, "{}", String::from_utf8_lossy(&o.stderr));
    // A read error after the mark is placed as if the mark were not there.
    let err = Stream::from_slice(b"\xEF\xBB\xBF{\"type\":", "bom").unwrap_err();
    assert_eq!((err.line(), err.event_index()), (1, Some(0)), "{err}");
}

/// Rule: WIRE-READ-BOM — input that starts with only part of a byte-order
/// mark is refused with an error that names the mark.
#[test]
fn a_broken_byte_order_mark_is_named() {
    for bad in [&b"\xEF\xBB[]"[..], b"\xEF[]", b"\xEF"] {
        let err = Stream::from_slice(bad, "broken").unwrap_err().to_string();
        assert!(err.contains("byte-order mark"), "{err}");
    }
}

/// Rule: WIRE-OLD-FORMAT — the older jp `{timestamp, message, reply}`
/// format is refused (exit 2) with an error that names it, not only
/// "event has no `type` field" (either of `message` and `reply` names it);
/// an object with neither `type` nor those fields keeps the plain message.
#[test]
fn the_older_jp_format_is_named() {
    let old = r#"[
  {"timestamp": "2024-05-01T10:00:00Z", "message": "hello", "reply": "hi there"}
]"#;
    let err = Stream::from_slice(old.as_bytes(), "old.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("older jp conversation format"), "{err}");
    assert!(err.contains("{timestamp, message, reply}"), "{err}");
    for cmd in ["check", "sanitize"] {
        let o = run_stdin(&[cmd, "-"], old.as_bytes());
        assert_eq!(code(&o), 2, "{cmd}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.contains("older jp conversation format"),
            "{cmd}: {stderr}"
        );
    }
    // Either field alone names it: an old conversation cut mid-exchange
    // holds a `message` with no `reply` yet.
    for half in [
        r#"[{"timestamp": "2024-05-01T10:00:00Z", "message": "hello"}]"#,
        r#"[{"timestamp": "2024-05-01T10:00:00Z", "reply": "hi there"}]"#,
    ] {
        let err = Stream::from_slice(half.as_bytes(), "old.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("older jp conversation format"),
            "{half}: {err}"
        );
    }
    let err = Stream::from_slice(br#"{"id":"x"}"#, "x.jsonl")
        .unwrap_err()
        .to_string();
    assert!(err.contains("event has no `type` field"), "{err}");
    assert!(!err.contains("older jp"), "{err}");
}
