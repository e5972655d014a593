//! The coordinator's protocol types as implementers see them: the outcome
//! names a conformance vector spells, and the error a driver gets when it
//! feeds the coordinator an input that does not fit its state.

use std::collections::BTreeSet;

use indexmap::IndexMap;
use inquiry_model::coordinator::Faults;
use inquiry_model::coordinator::{Coordinator, Input, ResponseKind};
use inquiry_model::profile::ProfileName;

/// Rule CONF-KIND-NAMES: every response kind's name is the one
/// `spec/vector-format.md` lists for the `kind` field of
/// `tool_responses` (read from the document, not from the code), the same
/// name serde writes into a vector, and no two kinds share a name. An
/// implementer's adapter reports these names; a renamed or blank name
/// would make every vector that expects it fail for the wrong reason.
#[test]
fn response_kind_names_are_the_ones_the_vector_format_lists() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/spec/vector-format.md"
    ))
    .expect("spec/vector-format.md is in the repository");
    let start = doc
        .find("`kind` is which outcome the response reports:")
        .expect("vector-format.md describes the kind field");
    let end = start + doc[start..].find('.').expect("the list ends with a period");
    let listed: BTreeSet<&str> = doc[start..end]
        .split('`')
        .skip(3) // "", "kind", " is which … reports: "
        .step_by(2)
        .collect();
    let names: BTreeSet<&str> = ResponseKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        names.len(),
        ResponseKind::ALL.len(),
        "two kinds share a name"
    );
    assert_eq!(
        names, listed,
        "ResponseKind names differ from spec/vector-format.md"
    );
    for kind in ResponseKind::ALL {
        let serialized = serde_json::to_value(kind).expect("a kind serializes");
        assert_eq!(
            serialized.as_str(),
            Some(kind.as_str()),
            "{kind:?}: as_str and the serialized name differ"
        );
    }
}

/// Rule LIFE-DRIVER-MISUSE: a driver that ends a turn it never began gets an
/// error, not a panic, and the error's text says what went wrong (the
/// house rule: bad input gets a clear error). An empty message would leave
/// an implementer's driver bug unexplained.
#[test]
fn a_misused_coordinator_says_what_was_wrong() {
    let rules = ProfileName::Rfd082.rules();
    let mut c = Coordinator::new(rules, true, IndexMap::new(), Faults::default());
    let err = c
        .handle(Input::EndTurn {
            content: "done".to_owned(),
        })
        .expect_err("EndTurn before BeginTurn is refused");
    let text = err.to_string();
    assert!(
        text.contains("EndTurn") && text.contains("turn"),
        "the error names the input and the missing turn: {text:?}"
    );
}
