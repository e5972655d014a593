//! What `Masks` promises beyond the masking itself, held by tests a
//! mutation run asked for (docs/mutants.md, `stream/secrets`).

use serde_json::json;

use super::*;

/// Rule: CLI-NO-SECRET — [`Masks::mask_leaks`] "returns whether anything
/// was masked", at any depth: a leak inside an array or an object is
/// masked and reported, one hit or two at the same level alike, and a
/// value without a leak (a secret shorter than [`SCANNED`] does not count)
/// is left as it is and reported `false`.
#[test]
fn the_scan_reports_whether_it_masked_at_any_depth() {
    let mut masks = Masks::default();
    assert_eq!(masks.number(&json!("hunter22")), 1);
    assert_eq!(masks.number(&json!("pin")), 2);

    let mut one = json!({"a": ["x", "pw hunter22"], "b": "y"});
    assert!(masks.mask_leaks(&mut one));
    assert_eq!(one, json!({"a": ["x", "pw <secret 1>"], "b": "y"}));

    let mut two_in_an_array = json!(["hunter22", "again hunter22"]);
    assert!(masks.mask_leaks(&mut two_in_an_array));
    assert_eq!(two_in_an_array, json!(["<secret 1>", "again <secret 1>"]));

    let mut two_in_an_object = json!({"m": "hunter22", "n": {"o": "hunter22."}});
    assert!(masks.mask_leaks(&mut two_in_an_object));
    assert_eq!(
        two_in_an_object,
        json!({"m": "<secret 1>", "n": {"o": "<secret 1>."}})
    );

    let mut none = json!({"a": ["x", "pin"], "b": "hunter2", "c": [1, null, true]});
    let before = none.clone();
    assert!(!masks.mask_leaks(&mut none));
    assert_eq!(none, before);
}
