//! Conformance: run an implementation under test on the model's scenarios
//! and compare what it persists and what its tools saw with the model, on
//! exactly what the RFDs fix.
//!
//! An implementation (in Rust, or any language behind
//! `inquiry-model conform`, `spec/conform-protocol.md`) implements [`Implementation`]:
//! take a [`Scenario`], return its [`Observed`] behaviour, built with a
//! [`Recorder`] that normalises as it records. [`check_vectors`] compares it
//! with the expected behaviour of conformance [`Vector`]s; [`check_generated`]
//! compares it with the model on generated scenarios and shrinks the first
//! failure to a small scenario of the same kind, reported with both sides.
//! [`run`] is the run `inquiry-model conform` makes: every case to the end,
//! failures grouped by kind, one shrunk example per kind.
//!
//! What is compared and how ([`compare::MARKS`], `spec/vector-format.md`):
//! inquiry events, tool-call IDs and names, `is_error` (but a denied
//! permission's), the answers tools saw, `ask_user`'s success body (as a
//! JSON value) and the remembered keys exactly; tool-response texts the RFDs leave open only by class
//! ([`ResponseKind`]); parallel work as the partial order the RFDs fix.
//! Three outcomes are told apart ([`Verdict`]): the implementation diverged,
//! the implementation failed to run, the model refused the scenario.
//!
//! The implementation's own bytes are judged too, after the comparison
//! passes (rule `CONF-OWN-BYTES`): every persisted line it reports
//! ([`Observed::written`]) by the oracle under the scenario's profile, and
//! searched for every secret the scenario typed, fields and events the
//! comparison ignores included ([`Verdict::OracleFinding`],
//! [`Verdict::SecretPersisted`]).

pub mod compare;
mod curated;
#[cfg(feature = "testkit")]
pub mod environment;
pub(crate) mod observe;
mod own_bytes;
#[cfg(feature = "cli")]
pub mod parallel;
pub mod pins;
#[cfg(feature = "testkit")]
pub mod run;
pub mod witness;

pub use compare::{Divergence, MARKS, Mark, Signature, compare, side_by_side};
pub use curated::curated;
pub use observe::{Invocation, Observed, Prompt, Record, Recorder, Remembered, ToolResponse};
pub(crate) use pins::pins_of;
pub use pins::{Cover, PINS, Pin, PinFilter, not_compared, skip_pinned};
pub use witness::{Capabilities, EntryKind, SchedulerCapability};

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::model::coordinator::ResponseKind;
#[cfg(feature = "testkit")]
use crate::profile::ProfileName;
use crate::scenario::{self, RunOptions, Scenario};
use crate::stream::secrets::Masks;

/// An implementation could not run a scenario (crashed, refused, answered
/// with something that is not an observation). Not a divergence: nothing
/// was observed to compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplementationError(pub String);

impl fmt::Display for ImplementationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImplementationError {}

impl From<String> for ImplementationError {
    fn from(s: String) -> Self {
        ImplementationError(s)
    }
}

/// An implementation under test.
pub trait Implementation {
    /// Runs `scenario` (its `profile` says which RFD stage to behave as) and
    /// reports what was persisted and what the tools and the user saw.
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError>;

    /// What it lets the harness steer and see (rule `CONF-CAPABILITIES`):
    /// by default a steered scheduler observing every entry kind.
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// Runs `scenario`, or declines it as one its environment cannot set
    /// up (rule `CONF-UNSUPPORTED`): a declined scenario is skipped, never
    /// passed. By default every scenario is attempted ([`Implementation::run`]).
    fn attempt(&mut self, scenario: &Scenario) -> Attempt {
        Attempt::Ran(self.run(scenario))
    }
}

/// What an implementation did with a scenario it was given.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// It ran it (or failed to).
    Ran(Result<Observed, ImplementationError>),
    /// Its environment cannot set the scenario up (the adapter's
    /// `unsupported` reply), with why: skipped, never passed.
    Unsupported(String),
}

/// The model, as an implementation, optionally with faults injected (the
/// wrong-implementation suite wraps each fault this way).
#[derive(Debug, Clone, Copy, Default)]
pub struct Model {
    /// Faults to inject.
    #[cfg(feature = "testkit")]
    pub faults: crate::testkit::Faults,
}

impl Implementation for Model {
    fn run(&mut self, scenario: &Scenario) -> Result<Observed, ImplementationError> {
        #[cfg(feature = "testkit")]
        let options = RunOptions::from(self.faults);
        #[cfg(not(feature = "testkit"))]
        let options = RunOptions::default();
        scenario::run_with(scenario, options)
            .map(|t| Observed::of(&t))
            .map_err(|e| ImplementationError(e.to_string()))
    }
}

/// How one scenario went wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// The implementation ran and did something the RFDs rule out.
    Diverged(Divergence),
    /// The implementation could not run the scenario.
    ImplementationFailed {
        /// Its error.
        error: String,
    },
    /// The model refused the scenario: a generator or vector bug, never a
    /// pass.
    ModelRefused {
        /// The model's error.
        error: String,
    },
    /// A free-scheduler implementation did something no schedule of the
    /// model explains: every schedule was tried (rule `CONF-WITNESS`).
    DivergedEverySchedule {
        /// Schedules tried.
        schedules: usize,
        /// The first difference under the scenario's own `schedule`.
        divergence: Divergence,
    },
    /// A free-scheduler implementation's observation that no schedule
    /// within the witness budget explains, with schedules left untried:
    /// not shown wrong, not shown right; it fails the run (rule
    /// `CONF-WITNESS`, spec/DECISIONS.md "Witness search: no witness within
    /// the budget fails the run").
    NoWitness {
        /// Schedules tried (the budget).
        schedules: usize,
        /// The first difference under the scenario's own `schedule`.
        divergence: Divergence,
    },
    /// The oracle (`check`, every `CHECK-*` rule under the scenario's
    /// profile) finds the implementation's own persisted stream breaks a
    /// rule, whatever the comparison with the model says (rule
    /// `CONF-OWN-BYTES`).
    OracleFinding {
        /// The rule's ID (`CHECK-…`; `read` when the stream does not read
        /// back as a whole).
        rule: String,
        /// Turn and persisted event.
        at: String,
        /// The oracle's message.
        message: String,
    },
    /// A secret the scenario typed is in the implementation's persisted
    /// stream, in a compared field or not (RFD 082 "Secret questions":
    /// secret answers "never land on disk"; rule `CONF-OWN-BYTES`).
    SecretPersisted {
        /// The persisted event and the place in it (the value is not
        /// printed).
        at: String,
    },
}

impl Verdict {
    /// The kind shrinking keeps: the divergence's kind, or the category.
    pub fn kind(&self) -> String {
        match self {
            Verdict::Diverged(d) => format!("diverged:{}", d.kind),
            Verdict::ImplementationFailed { .. } => "implementation_failed".to_owned(),
            Verdict::ModelRefused { .. } => "model_refused".to_owned(),
            Verdict::DivergedEverySchedule { divergence, .. } => {
                format!("diverged:{}", divergence.kind)
            }
            Verdict::NoWitness { .. } => "no_witness".to_owned(),
            Verdict::OracleFinding { rule, .. } => format!("oracle:{rule}"),
            Verdict::SecretPersisted { .. } => "secret_persisted".to_owned(),
        }
    }

    /// The root cause a run groups this failure by and shrinking keeps
    /// (rule `CONF-GROUP-SIGNATURE`): a divergence's [`compare::Signature`]
    /// (under every schedule or the scenario's own), else the category.
    pub fn signature(&self) -> compare::Signature {
        match self {
            Verdict::Diverged(d) | Verdict::DivergedEverySchedule { divergence: d, .. } => {
                d.signature.clone()
            }
            Verdict::NoWitness { divergence, .. } => {
                compare::Signature(format!("no witness: {}", divergence.signature))
            }
            Verdict::ImplementationFailed { .. } => {
                compare::Signature("implementation failed".to_owned())
            }
            Verdict::ModelRefused { .. } => compare::Signature("model refused".to_owned()),
            // The rule is the root cause; where it fires is not.
            Verdict::OracleFinding { rule, .. } => compare::Signature(format!("oracle {rule}")),
            Verdict::SecretPersisted { .. } => {
                compare::Signature("a typed secret persisted".to_owned())
            }
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Diverged(d) => write!(
                f,
                "diverged ({}) at {}\n  model:          {}\n  implementation: {}",
                d.kind, d.at, d.expected, d.actual
            ),
            Verdict::ImplementationFailed { error } => {
                write!(f, "the implementation failed to run: {error}")
            }
            Verdict::ModelRefused { error } => write!(f, "the model refused the scenario: {error}"),
            Verdict::DivergedEverySchedule {
                schedules,
                divergence: d,
            } => write!(
                f,
                "diverged under every schedule of the model ({schedules} tried); under the scenario's own schedule: ({}) at {}\n  model:          {}\n  implementation: {}",
                d.kind, d.at, d.expected, d.actual
            ),
            Verdict::NoWitness {
                schedules,
                divergence: d,
            } => write!(
                f,
                "no witness within {schedules} schedules (--witness-budget; schedules are left untried); under the scenario's own schedule: ({}) at {}\n  model:          {}\n  implementation: {}",
                d.kind, d.at, d.expected, d.actual
            ),
            Verdict::OracleFinding { rule, at, message } => write!(
                f,
                "the oracle rejects the implementation's persisted stream: {rule} at {at}: {message}"
            ),
            Verdict::SecretPersisted { at } => write!(
                f,
                "a secret answer the scenario typed is in the implementation's persisted stream: {at}"
            ),
        }
    }
}

/// One thing a run does not compare, and why (every report states these:
/// rule `CONF-NOT-COMPARED`). Capabilities fill it ([`not_compared_by`]);
/// so do the run's options that skip what a pin covers.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NotCompared {
    /// What is not compared.
    pub(crate) what: String,
    /// Why.
    pub(crate) why: String,
}

#[cfg(feature = "cli")]
impl fmt::Display for NotCompared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} — {}", self.what, self.why)
    }
}

/// What an implementation's capabilities leave uncompared: each entry kind
/// it does not observe, with what the persisted stream still compares of
/// it (rule `CONF-CAPABILITIES`: a kind left out blanks only itself).
#[cfg(feature = "cli")]
pub(crate) fn not_compared_by(caps: &Capabilities) -> Vec<NotCompared> {
    EntryKind::ALL
        .into_iter()
        .filter(|k| !caps.observes.contains(k))
        .filter_map(|k| {
            let what = match k {
                EntryKind::Persisted => return None,
                EntryKind::Invoked => "the answers each tool was handed (invocations)",
                EntryKind::Prompted => {
                    "the prompts shown: where each was shown and its presentation (prompts)"
                }
                EntryKind::Responded => {
                    "the tool responses the LLM saw (tool_responses: kind; is_error and the ask_user success body are still compared in the persisted stream)"
                }
                EntryKind::TurnEnded => "the remembered keys at each turn's end (remembered)",
                EntryKind::Inquired => "the model each backend call asked (inquiry_models)",
            };
            Some(NotCompared {
                what: what.to_owned(),
                why: format!(
                    "the adapter does not observe `{}` (init_ok `observes`)",
                    k.as_str()
                ),
            })
        })
        .collect()
}

/// A conformance vector: a scenario and the behaviour it must produce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vector {
    /// File stem, e.g. `route-prompter`.
    pub name: String,
    /// What it exercises.
    pub(crate) description: String,
    /// The rule IDs it exercises.
    pub(crate) rules: Vec<String>,
    /// How each field of `expected` is compared ([`MARKS`]: field → `exact`,
    /// `class` or `ignored`, with the RFD sentence that fixes it). Written
    /// for readers; the runner uses [`MARKS`].
    #[serde(default)]
    pub(crate) compare: Value,
    /// The model's decisions its expectation rests on where the RFDs leave
    /// the outcome open ([`PINS`]); empty: pure RFD. `conform --rfd-only`
    /// skips the vectors that pin any.
    #[serde(default)]
    pub pins: Vec<Pin>,
    /// The input.
    pub scenario: Scenario,
    /// The expected behaviour.
    pub expected: Observed,
}

/// [`MARKS`] as the JSON object every vector carries.
pub(crate) fn marks_json() -> Value {
    Value::Object(
        MARKS
            .iter()
            .map(|(field, mark, why)| {
                (
                    (*field).to_owned(),
                    serde_json::json!({"mark": mark, "why": why}),
                )
            })
            .collect(),
    )
}

/// A vector whose expectation is computed by the model.
pub(crate) fn vector(
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
        compare: marks_json(),
        pins: pins_of(&scenario, &trace),
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
    /// What went wrong.
    pub verdict: Verdict,
    /// Both streams side by side (model | implementation), when both ran.
    pub side_by_side: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.name, self.verdict)?;
        writeln!(
            f,
            "scenario: {}",
            serde_json::to_string(&self.scenario).unwrap_or_default()
        )?;
        f.write_str(&self.side_by_side)
    }
}

/// Judges one run against an expectation (the model's run of the
/// scenario's own `schedule`), on the entry kinds the implementation
/// observes; a free scheduler's observation that differs is searched for a
/// witness among the model's other schedules (rule `CONF-WITNESS`).
pub(crate) fn judge(
    name: &str,
    scenario: &Scenario,
    expected: &Observed,
    actual: Result<Observed, ImplementationError>,
    caps: &Capabilities,
) -> Option<Failure> {
    judge_with(name, scenario, expected, actual, caps, None)
}

/// [`judge`], given the model's run of the scenario when it is at hand (its
/// secret answers are masked in the failure; without it, a failure runs the
/// model once more to find them).
pub(crate) fn judge_with(
    name: &str,
    scenario: &Scenario,
    expected: &Observed,
    actual: Result<Observed, ImplementationError>,
    caps: &Capabilities,
    model: Option<&scenario::Trace>,
) -> Option<Failure> {
    let (verdict, side) = match actual {
        Err(e) => (Verdict::ImplementationFailed { error: e.0 }, String::new()),
        Ok(actual) => {
            let fresh;
            let model = match model {
                Some(t) => t,
                None => match scenario::run(scenario) {
                    Ok(t) => {
                        fresh = t;
                        &fresh
                    }
                    Err(e) => {
                        return Some(Failure {
                            name: name.to_owned(),
                            scenario: scenario.clone(),
                            verdict: Verdict::ModelRefused {
                                error: e.to_string(),
                            },
                            side_by_side: String::new(),
                        });
                    }
                },
            };
            let verdict = match compared(name, scenario, model, expected, &actual, caps) {
                Err(v) => *v,
                Ok(witness) => {
                    // The own bytes are judged against the model's run of
                    // the schedule that explains them: under another
                    // schedule the k-th prompt reads another typed reply,
                    // so which value is a secret differs (rule
                    // `CONF-OWN-BYTES`).
                    let replayed = witness.and_then(|schedule| {
                        let mut s = scenario.clone();
                        s.schedule = schedule;
                        scenario::run(&s).ok().map(|t| (s, t))
                    });
                    let (s, t) = match &replayed {
                        Some((s, t)) => (s, t),
                        None => (scenario, model),
                    };
                    match own_bytes::judge(s, t, &actual)? {
                        own_bytes::Finding::Oracle { rule, at, message } => {
                            Verdict::OracleFinding { rule, at, message }
                        }
                        own_bytes::Finding::Secret { at } => Verdict::SecretPersisted { at },
                    }
                }
            };
            // Masked where the secret answers sit, before the columns cut
            // long events short (rule `CLI-NO-SECRET`).
            let (masks, e, a) = masked_pair(scenario, Some(model), expected, &actual);
            (
                masked(verdict, &masks, || {
                    let (e, a) = pins::blanked(&caps.skip_pins, scenario, Some(model), &e, &a);
                    witness::compare_observed(scenario, &e, &a, &caps.observes)
                }),
                side_by_side(&e, &a),
            )
        }
    };
    Some(Failure {
        name: name.to_owned(),
        scenario: scenario.clone(),
        verdict,
        side_by_side: side,
    })
}

/// The comparison's verdict on a run (the model's run of the scenario's own
/// `schedule`, or for a free scheduler a witness search): `Err` with the
/// verdict when it fails; `Ok` when it passes, with the witness schedule
/// when one other than the scenario's own explains the run.
fn compared(
    name: &str,
    scenario: &Scenario,
    model: &scenario::Trace,
    expected: &Observed,
    actual: &Observed,
    caps: &Capabilities,
) -> Result<Option<Vec<u32>>, Box<Verdict>> {
    // What a skipped pin covers is compared on neither side (rule
    // `CONF-PINS`).
    let (mine, theirs) = pins::blanked(&caps.skip_pins, scenario, Some(model), expected, actual);
    let d = match caps.scheduler {
        SchedulerCapability::Steered => {
            witness::compare_observed(scenario, &mine, &theirs, &caps.observes)
        }
        // A free implementation's log also witnesses an order across calls
        // (rule `CONF-WITNESS-ORDER`).
        SchedulerCapability::Free => witness::explains(scenario, &mine, &theirs, &caps.observes),
    };
    let Some(d) = d else { return Ok(None) };
    // The other outcome a skipped decision allows.
    if pins::alternative_passes(name, scenario, actual, caps) {
        return Ok(None);
    }
    Err(Box::new(match caps.scheduler {
        SchedulerCapability::Steered => Verdict::Diverged(d),
        SchedulerCapability::Free => {
            let how = witness::Search {
                observes: caps.observes.clone(),
                budget: caps.witness_budget,
                cut: true,
                skip_pins: caps.skip_pins.clone(),
            };
            match witness::search(scenario, actual, &how) {
                Err(e) => Verdict::ModelRefused {
                    error: e.to_string(),
                },
                Ok((witness::Outcome::Found { schedule }, _)) => return Ok(Some(schedule)),
                Ok((witness::Outcome::Budget, stats)) => Verdict::NoWitness {
                    schedules: stats.schedules,
                    divergence: d,
                },
                Ok((witness::Outcome::Exhausted, stats)) => Verdict::DivergedEverySchedule {
                    schedules: stats.schedules,
                    divergence: d,
                },
            }
        }
    }))
}

/// Both observations with every secret answer masked where it sits (rule
/// `CLI-NO-SECRET`, [`crate::masks`]): numbered from the model's run of the
/// scenario (run once more when it is not at hand), the persisted events
/// by structure and the scan ([`crate::stream::secrets::Masks::mask_events`]),
/// and the answers each tool received for a question it asks as `Secret`.
/// The scenario itself is input, printed as given.
fn masked_pair(
    scenario: &Scenario,
    model: Option<&scenario::Trace>,
    expected: &Observed,
    actual: &Observed,
) -> (Masks, Observed, Observed) {
    let run = match model {
        Some(_) => None,
        None => scenario::run(scenario).ok(),
    };
    let (mut masks, secret) = match model.or(run.as_ref()) {
        Some(t) => (
            crate::masks::mask(t).masks,
            crate::masks::secret_questions_by_tool(t),
        ),
        None => (Masks::default(), Default::default()),
    };
    let mut pair = [expected.clone(), actual.clone()];
    for o in &mut pair {
        for inv in &mut o.invocations {
            for (q, v) in inv.answers.as_object_mut().into_iter().flatten() {
                if secret.contains(&(inv.tool.clone(), q.clone())) {
                    masks.mask(v);
                }
            }
        }
        masks.mask_events(&mut o.stream, &Default::default());
    }
    let [e, a] = pair;
    (masks, e, a)
}

/// The verdict as printed: its divergence read from the masked
/// observations (`again`; where masking hides the difference, the texts say
/// so), an error text with every leak the scan finds masked.
fn masked(verdict: Verdict, masks: &Masks, again: impl Fn() -> Option<Divergence>) -> Verdict {
    let d = |d: Divergence| match again() {
        Some(m) if m.kind == d.kind => m,
        Some(_) | None => Divergence {
            expected: "(masked: the difference is in a secret answer)".to_owned(),
            actual: "(masked)".to_owned(),
            ..d
        },
    };
    let text = |error: String| {
        let mut v = Value::String(error);
        masks.mask_leaks(&mut v);
        v.as_str().unwrap_or_default().to_owned()
    };
    match verdict {
        Verdict::Diverged(x) => Verdict::Diverged(d(x)),
        Verdict::ImplementationFailed { error } => {
            Verdict::ImplementationFailed { error: text(error) }
        }
        Verdict::ModelRefused { error } => Verdict::ModelRefused { error: text(error) },
        Verdict::DivergedEverySchedule {
            schedules,
            divergence,
        } => Verdict::DivergedEverySchedule {
            schedules,
            divergence: d(divergence),
        },
        Verdict::NoWitness {
            schedules,
            divergence,
        } => Verdict::NoWitness {
            schedules,
            divergence: d(divergence),
        },
        Verdict::OracleFinding { rule, at, message } => Verdict::OracleFinding {
            rule,
            at: text(at),
            message: text(message),
        },
        Verdict::SecretPersisted { at } => Verdict::SecretPersisted { at: text(at) },
    }
}

/// Runs the implementation on one scenario against the model.
pub fn check_one(imp: &mut dyn Implementation, name: &str, scenario: &Scenario) -> Option<Failure> {
    match scenario::run(scenario) {
        Err(e) => Some(Failure {
            name: name.to_owned(),
            scenario: scenario.clone(),
            verdict: Verdict::ModelRefused {
                error: e.to_string(),
            },
            side_by_side: String::new(),
        }),
        Ok(t) => {
            let caps = imp.capabilities();
            judge_with(
                name,
                scenario,
                &Observed::of(&t),
                imp.run(scenario),
                &caps,
                Some(&t),
            )
        }
    }
}

/// Runs the implementation on every vector; returns the failures.
pub fn check_vectors(imp: &mut dyn Implementation, vectors: &[Vector]) -> Vec<Failure> {
    let caps = imp.capabilities();
    vectors
        .iter()
        .filter_map(|v| {
            judge(
                &v.name,
                &v.scenario,
                &v.expected,
                imp.run(&v.scenario),
                &caps,
            )
        })
        .collect()
}

/// What [`check_generated`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeneratedReport {
    /// Scenarios run (until the first failure, then the shrinking runs).
    pub cases: u32,
    /// The first failure, shrunk to a small scenario of the same
    /// [`Verdict::kind`]; `None` only if every case was run by both sides
    /// and agreed.
    pub failure: Option<Failure>,
}

impl GeneratedReport {
    /// Whether the run passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

#[cfg(feature = "testkit")]
/// Runs the implementation against the model on `cases` generated scenarios
/// (deterministic for `seed`). The first failure of any kind — divergence,
/// implementation failure, or a scenario the model refuses (rule
/// `CONF-GENERATED-LOUD`) — is shrunk, keeping its kind: a smaller scenario
/// that fails differently (or that the model refuses) does not replace it
/// (rule `CONF-SHRINK-KEEPS-KIND`).
pub fn check_generated(
    imp: &mut dyn Implementation,
    profile: ProfileName,
    cases: u32,
    seed: u64,
) -> GeneratedReport {
    use proptest::prelude::Just;
    check_generated_from(
        imp,
        crate::generate::scenario::scenario_under(Just(profile)),
        cases,
        seed,
    )
}

#[cfg(feature = "testkit")]
/// [`check_generated`] with scenarios drawn from `strategy` (a generator
/// under test, or a narrower one); a scenario the model refuses fails the
/// run as [`Verdict::ModelRefused`].
pub fn check_generated_from<S>(
    imp: &mut dyn Implementation,
    strategy: S,
    cases: u32,
    seed: u64,
) -> GeneratedReport
where
    S: proptest::strategy::Strategy<Value = Scenario>,
{
    use proptest::test_runner::{
        Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
    };
    use std::cell::{Cell, RefCell};
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 16384,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let imp = RefCell::new(imp);
    let target: RefCell<Option<String>> = RefCell::new(None);
    let best: RefCell<Option<Failure>> = RefCell::new(None);
    let ran = Cell::new(0u32);
    let result = runner.run(&strategy, |s| {
        ran.set(ran.get() + 1);
        let Some(f) = check_one(&mut **imp.borrow_mut(), "generated", &s) else {
            return Ok(());
        };
        let kind = f.verdict.kind();
        let mut target = target.borrow_mut();
        match target.as_deref() {
            // Shrinking: only a failure of the same kind counts.
            Some(t) if t != kind => Ok(()),
            Some(_) | None => {
                *target = Some(kind.clone());
                *best.borrow_mut() = Some(f);
                Err(TestCaseError::fail(kind))
            }
        }
    });
    let failure = match result {
        Err(TestError::Fail(_, s)) => {
            let fresh = check_one(&mut **imp.borrow_mut(), "generated", &s);
            let want = target.borrow().clone();
            match fresh {
                Some(f) if Some(f.verdict.kind()) == want => Some(f),
                _ => best.into_inner(),
            }
        }
        Err(TestError::Abort(reason)) => Some(Failure {
            name: "generated".to_owned(),
            scenario: Scenario {
                profile: ProfileName::default(),
                tty: true,
                tools: Default::default(),
                turns: Vec::new(),
                prompter: Vec::new(),
                backend: Vec::new(),
                backend_by_id: Default::default(),
                inquiry_model: None,
                toggles: Vec::new(),
                permissions: Vec::new(),
                deliveries: Vec::new(),
                schedule: Vec::new(),
                amendment: None,
            },
            verdict: Verdict::ImplementationFailed {
                error: format!("the generated run was aborted: {reason}"),
            },
            side_by_side: String::new(),
        }),
        Ok(()) => None,
    };
    GeneratedReport {
        cases: ran.get(),
        failure,
    }
}

/// Why a scenario is outside the core scenario language: each thing the
/// core leaves out (rule `CONF-CORE-LANGUAGE`). `spec/conform-protocol.md`
/// "The core language" lists exactly these, by [`OutsideCore::id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OutsideCore {
    /// A call to a tool whose program is a local program (the stdout
    /// protocol).
    LocalProgram,
    /// A `backend` reply `cancelled` with a `cause` (the cancellation token).
    TokenCause,
    /// Backend replies keyed by inquiry ID (`backend_by_id`).
    BackendById,
    /// A dedicated inquiry model (`inquiry_model`).
    InquiryModel,
    /// A tool's per-question `assistant` configuration (a chosen model).
    AssistantTarget,
    /// A result-delivery prompt: a tool with `result: ask`, or `deliveries`.
    DeliveryPrompt,
    /// A tool's `enable`.
    Enable,
    /// Command-line `toggles` (`-t`/`-T`).
    Toggles,
}

impl OutsideCore {
    /// Every reason, in declaration order.
    pub const ALL: [OutsideCore; 8] = [
        OutsideCore::LocalProgram,
        OutsideCore::TokenCause,
        OutsideCore::BackendById,
        OutsideCore::InquiryModel,
        OutsideCore::AssistantTarget,
        OutsideCore::DeliveryPrompt,
        OutsideCore::Enable,
        OutsideCore::Toggles,
    ];

    /// Its name in `spec/conform-protocol.md`.
    pub fn id(self) -> &'static str {
        match self {
            OutsideCore::LocalProgram => "local_program",
            OutsideCore::TokenCause => "token_cause",
            OutsideCore::BackendById => "backend_by_id",
            OutsideCore::InquiryModel => "inquiry_model",
            OutsideCore::AssistantTarget => "assistant_target",
            OutsideCore::DeliveryPrompt => "delivery_prompt",
            OutsideCore::Enable => "enable",
            OutsideCore::Toggles => "toggles",
        }
    }

    /// Whether `s` says this.
    fn holds(self, s: &Scenario) -> bool {
        use crate::model::coordinator::RunPolicy;
        use crate::scenario::{BackendReply, Program};
        match self {
            OutsideCore::LocalProgram => s
                .turns
                .iter()
                .flat_map(|t| t.cycles.iter().flatten())
                .any(|c| {
                    s.tools
                        .get(&c.tool)
                        .is_some_and(|t| matches!(t.program, Program::Local { .. }))
                }),
            OutsideCore::TokenCause => s.backend.iter().any(|r| match r {
                BackendReply::Cancelled { .. } => true,
                BackendReply::Answer { .. }
                | BackendReply::Raw { .. }
                | BackendReply::Error { .. } => false,
            }),
            OutsideCore::BackendById => !s.backend_by_id.is_empty(),
            OutsideCore::InquiryModel => s.inquiry_model.is_some(),
            OutsideCore::AssistantTarget => s.tools.values().any(|t| !t.assistant.is_empty()),
            OutsideCore::DeliveryPrompt => {
                !s.deliveries.is_empty()
                    || s.tools.values().any(|t| match t.result {
                        Some(RunPolicy::Ask) => true,
                        Some(RunPolicy::Unattended) | None => false,
                    })
            }
            OutsideCore::Enable => s.tools.values().any(|t| t.enable.is_some()),
            OutsideCore::Toggles => !s.toggles.is_empty(),
        }
    }
}

/// Why `s` is outside the core scenario language ([`OutsideCore`]); empty
/// when it is inside.
pub(crate) fn outside_core(s: &Scenario) -> Vec<OutsideCore> {
    OutsideCore::ALL
        .into_iter()
        .filter(|r| r.holds(s))
        .collect()
}

/// Whether `s` uses only the core scenario language: the RFD 082/083
/// lifecycle as the first vectors exercised it. The small second
/// implementation, the example adapters and the Python adapter cover this
/// much; a scenario outside it says one of [`OutsideCore::ALL`]. An
/// implementation that covers less than the whole language filters its
/// vectors and generated scenarios with this (and says so), never by
/// hiding a failure.
pub fn core_scenario(s: &Scenario) -> bool {
    outside_core(s).is_empty()
}

#[cfg(feature = "testkit")]
/// Generated scenarios under `profile` inside the core language
/// ([`core_scenario`]), for implementations that cover no more: drawn
/// inside it by construction, never filtered, so any number of cases can
/// be drawn (rule `CONF-CORE-BY-CONSTRUCTION`).
pub fn core_scenarios(profile: ProfileName) -> impl proptest::strategy::Strategy<Value = Scenario> {
    crate::generate::scenario::core_scenario_under(proptest::strategy::Just(profile))
}

#[cfg(feature = "testkit")]
/// The curated vectors followed by `count` generated ones drawn with `seed`
/// (named `generated-<seed>-<k>`). Deterministic for its arguments.
pub fn vectors(seed: u64, count: usize) -> Result<Vec<Vector>, String> {
    let mut out = curated()?;
    for (k, s) in crate::generate::scenario::sample(count, seed)
        .into_iter()
        .enumerate()
    {
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
/// pretty JSON ending in a newline. Each opens with its name, description
/// and rules, so the folder is its own index (no index file restates
/// them). Pure: the caller writes them.
pub fn vector_files(vectors: &[Vector]) -> Vec<(String, String)> {
    vectors
        .iter()
        .map(|v| {
            let text = serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
            (format!("{}.json", v.name), text)
        })
        .collect()
}

/// The committed vector set (`spec/vectors/`): curated plus 20 generated
/// with seed 1.
pub const COMMITTED: (u64, usize) = (1, 20);

#[cfg(test)]
mod compare_tests;
#[cfg(all(test, feature = "testkit"))]
mod docs_complete_tests;
#[cfg(all(test, feature = "cli"))]
mod masked_pair_mut_tests;
#[cfg(all(test, feature = "cli"))]
mod own_bytes_tests;
#[cfg(all(test, feature = "cli"))]
mod pins_tests;
#[cfg(all(test, feature = "cli"))]
mod runner_tests;
