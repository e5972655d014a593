//! Conformance: run an implementation under test on the model's scenarios
//! and compare what it persists and what its tools saw with the model.
//!
//! An implementation (in Rust, or any language behind an adapter) implements
//! [`Implementation`]: take a [`Scenario`], return its [`Observed`]
//! behaviour. [`check_vectors`] compares it with the expected behaviour of
//! conformance [`Vector`]s; [`check_generated`] compares it with the model on
//! generated scenarios and shrinks the first divergence to a small scenario,
//! reported with both streams side by side.
//!
//! What is compared (decision in `spec/DECISIONS.md`, "Conformance: what is
//! compared"): the persisted events that carry the lifecycle — `turn_start`,
//! tool-call requests (ID and name) and responses (ID, error flag, content),
//! inquiry requests and responses in full — in order, without timestamps;
//! the answers each tool invocation received; every tool response; and
//! every prompt shown, with how many of those events were persisted when it
//! was shown (so "recorded before routed" is visible from outside); and the
//! keys of the remembered maps at each turn's end.
//! Chat contents and tool arguments are the implementation's business.

mod curated;

pub use curated::curated;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::coordinator::Faults;
use crate::profile::ProfileName;
use crate::scenario::{self, RunOptions, Scenario, Trace};
use crate::tool::Answers;

/// What an implementation did for one scenario, in comparable form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    /// The lifecycle events as persisted (see the module docs), in order.
    pub stream: Vec<Value>,
    /// Per tool invocation: `(tool_call_id, tool, answers received)`.
    pub invocations: Vec<(String, String, Answers)>,
    /// Per tool response: `(tool_call_id, is_error, content)`.
    pub tool_responses: Vec<(String, bool, String)>,
    /// Per question prompt: `(tool_call_id, compared events persisted when it
    /// was shown, presentation)`. The count is how "recorded before routed"
    /// is seen from outside.
    pub prompts: Vec<(String, usize, Value)>,
    /// Per turn: the keys of the remembered tool answers and permission
    /// decisions when it ended (never values).
    pub remembered: Vec<(Vec<String>, Vec<String>)>,
}

/// The comparable part of a persisted event, or `None` for events that are
/// not compared.
pub fn comparable(event: &Value) -> Option<Value> {
    let obj = event.as_object()?;
    let kind = obj.get("type").and_then(Value::as_str)?;
    let keep: &[&str] = match kind {
        "turn_start" => &["type"],
        "tool_call_request" => &["type", "id", "name"],
        "tool_call_response" => &["type", "id", "is_error", "content"],
        "inquiry_request" | "inquiry_response" => {
            let mut m: Map<String, Value> = obj.clone();
            m.remove("timestamp");
            return Some(Value::Object(m));
        }
        _ => return None,
    };
    let m: Map<String, Value> = keep
        .iter()
        .filter_map(|k| obj.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect();
    Some(Value::Object(m))
}

impl Observed {
    /// The model's observed behaviour for a trace.
    pub fn of(trace: &Trace) -> Observed {
        let persisted = trace.persisted_json();
        Observed {
            stream: persisted
                .as_array()
                .map(|a| a.iter().filter_map(comparable).collect())
                .unwrap_or_default(),
            invocations: trace
                .invocations
                .iter()
                .map(|i| (i.tool_call_id.clone(), i.tool.clone(), i.answers.clone()))
                .collect(),
            tool_responses: trace
                .tool_responses
                .iter()
                .map(|r| (r.tool_call_id.clone(), r.is_error, r.content.clone()))
                .collect(),
            prompts: trace
                .prompts
                .iter()
                .map(|p| {
                    let before = persisted
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .take(p.stream_position)
                                .filter_map(comparable)
                                .count()
                        })
                        .unwrap_or(0);
                    let shown = serde_json::to_value(&p.presentation).unwrap_or(Value::Null);
                    (p.tool_call_id.clone(), before, shown)
                })
                .collect(),
            remembered: trace
                .remembered
                .iter()
                .map(|r| (r.tool_answers.clone(), r.permission_decisions.clone()))
                .collect(),
        }
    }
}

/// An implementation under test.
pub trait Implementation {
    /// Runs `scenario` (its `profile` says which RFD stage to behave as) and
    /// reports what was persisted and what the tools saw. An `Err` is a
    /// scenario the implementation cannot run, reported as a divergence.
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, String>;
}

/// The model itself, as an implementation: it passes by construction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Model {
    /// Faults to inject (to show that the runner catches each).
    pub faults: Faults,
}

impl Implementation for Model {
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, String> {
        scenario::run_with(
            scenario,
            RunOptions {
                faults: self.faults,
            },
        )
        .map(|t| Observed::of(&t))
        .map_err(|e| e.to_string())
    }
}

/// The first place two observations differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    /// `stream`, `invocations`, `tool_responses` or `run`.
    pub part: &'static str,
    /// The position in that part.
    pub index: usize,
    /// What the model did there.
    pub expected: String,
    /// What the implementation did there.
    pub actual: String,
}

/// Compares an observation with the expected one.
pub fn compare(expected: &Observed, actual: &Observed) -> Option<Divergence> {
    fn first<T: Serialize + PartialEq>(part: &'static str, a: &[T], b: &[T]) -> Option<Divergence> {
        let show = |x: Option<&T>| {
            x.map(|v| serde_json::to_string(v).unwrap_or_default())
                .unwrap_or_else(|| "(nothing)".to_owned())
        };
        (0..a.len().max(b.len())).find_map(|i| {
            (a.get(i) != b.get(i)).then(|| Divergence {
                part,
                index: i,
                expected: show(a.get(i)),
                actual: show(b.get(i)),
            })
        })
    }
    first("stream", &expected.stream, &actual.stream)
        .or_else(|| first("invocations", &expected.invocations, &actual.invocations))
        .or_else(|| {
            first(
                "tool_responses",
                &expected.tool_responses,
                &actual.tool_responses,
            )
        })
        .or_else(|| first("prompts", &expected.prompts, &actual.prompts))
        .or_else(|| first("remembered", &expected.remembered, &actual.remembered))
}

/// A conformance vector: a scenario and the behaviour it must produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vector {
    /// File stem, e.g. `route-prompter`.
    pub name: String,
    /// What it exercises.
    pub description: String,
    /// The rule IDs it exercises.
    pub rules: Vec<String>,
    /// The input.
    pub scenario: Scenario,
    /// The expected behaviour.
    pub expected: Observed,
}

/// A vector whose expectation is computed by the model.
pub fn vector(
    name: &str,
    description: &str,
    rules: &[&str],
    scenario: Scenario,
) -> Result<Vector, String> {
    let trace = scenario::run(&scenario).map_err(|e| format!("vector {name}: {e}"))?;
    Ok(Vector {
        name: name.to_owned(),
        description: description.to_owned(),
        rules: rules.iter().map(|r| (*r).to_owned()).collect(),
        expected: Observed::of(&trace),
        scenario,
    })
}

/// One failed vector or generated case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The vector's name, or `generated`.
    pub name: String,
    /// The (shrunk, for generated cases) scenario.
    pub scenario: Scenario,
    /// Where it diverged.
    pub divergence: Divergence,
    /// Both streams side by side (model | implementation).
    pub side_by_side: String,
}

fn side_by_side(expected: &Observed, actual: &Observed) -> String {
    const W: usize = 70;
    let line = |v: Option<&Value>| -> String {
        let s = v.map(Value::to_string).unwrap_or_default();
        if s.chars().count() > W {
            s.chars().take(W - 1).collect::<String>() + "…"
        } else {
            s
        }
    };
    let mut out = format!("  {:<W$} | implementation\n", "model");
    for i in 0..expected.stream.len().max(actual.stream.len()) {
        let (a, b) = (expected.stream.get(i), actual.stream.get(i));
        let mark = if a == b { ' ' } else { '*' };
        out.push_str(&format!("{mark} {:<W$} | {}\n", line(a), line(b)));
    }
    out
}

fn failure(
    name: &str,
    scenario: &Scenario,
    expected: &Observed,
    actual: Result<Observed, String>,
) -> Option<Failure> {
    match actual {
        Err(e) => Some(Failure {
            name: name.to_owned(),
            scenario: scenario.clone(),
            divergence: Divergence {
                part: "run",
                index: 0,
                expected: "a run".to_owned(),
                actual: e,
            },
            side_by_side: String::new(),
        }),
        Ok(actual) => compare(expected, &actual).map(|divergence| Failure {
            name: name.to_owned(),
            scenario: scenario.clone(),
            divergence,
            side_by_side: side_by_side(expected, &actual),
        }),
    }
}

/// Runs the implementation on every vector; returns the failures.
pub fn check_vectors(imp: &mut dyn Implementation, vectors: &[Vector]) -> Vec<Failure> {
    vectors
        .iter()
        .filter_map(|v| failure(&v.name, &v.scenario, &v.expected, imp.run(&v.scenario)))
        .collect()
}

/// Runs the implementation against the model on `cases` generated scenarios
/// (deterministic for `seed`), and returns the first divergence shrunk to a
/// small scenario.
pub fn check_generated(
    imp: &mut dyn Implementation,
    profile: ProfileName,
    cases: u32,
    seed: u64,
) -> Option<Failure> {
    use proptest::prelude::Just;
    use proptest::test_runner::{
        Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
    };
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 8192,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let imp = std::cell::RefCell::new(imp);
    let strategy = scenario::strategy::scenario_under(Just(profile));
    let result = runner.run(&strategy, |s| {
        let expected = scenario::run(&s)
            .map(|t| Observed::of(&t))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        match failure("generated", &s, &expected, imp.borrow_mut().run(&s)) {
            None => Ok(()),
            Some(f) => Err(TestCaseError::fail(format!("{:?}", f.divergence))),
        }
    });
    match result {
        Err(TestError::Fail(_, s)) => {
            let expected = scenario::run(&s).map(|t| Observed::of(&t)).ok()?;
            failure("generated", &s, &expected, imp.borrow_mut().run(&s))
        }
        Err(TestError::Abort(_)) | Ok(()) => None,
    }
}

/// The curated vectors followed by `count` generated ones drawn with `seed`
/// (named `generated-<seed>-<k>`). Deterministic for its arguments.
pub fn vectors(seed: u64, count: usize) -> Result<Vec<Vector>, String> {
    let mut out = curated()?;
    for (k, s) in crate::amend::sample(count, seed).into_iter().enumerate() {
        out.push(vector(
            &format!("generated-{seed}-{k}"),
            "A generated scenario (seeded); its expectation is the model's.",
            &[],
            s,
        )?);
    }
    Ok(out)
}

/// The files `inquiry-model vectors` writes: `<name>.json` per vector,
/// pretty JSON ending in a newline, plus `index.json` listing name,
/// description and rules. Pure: the caller writes them.
pub fn vector_files(vectors: &[Vector]) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = vectors
        .iter()
        .map(|v| {
            let text = serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
            (format!("{}.json", v.name), text)
        })
        .collect();
    let index: Vec<Value> = vectors
        .iter()
        .map(
            |v| serde_json::json!({"name": v.name, "description": v.description, "rules": v.rules}),
        )
        .collect();
    files.push((
        "index.json".to_owned(),
        serde_json::to_string_pretty(&index).unwrap_or_default() + "\n",
    ));
    files
}

/// The committed vector set (`spec/vectors/`): curated plus 20 generated
/// with seed 1.
pub const COMMITTED: (u64, usize) = (1, 20);
