//! What an implementation did, in comparable form, and the [`Recorder`] that
//! builds it: an adapter tells the recorder what happened, in the order it
//! happened, and the recorder normalises as it records (rule
//! `CONF-RECORDER`): persisted events are read back with the crate's stream
//! reader and cut to their compared fields, prompts remember how much of the
//! stream was persisted when they were shown, presentations keep only the
//! fields an RFD fixes. The same [`Record`]s are the log a subprocess adapter
//! sends (`spec/conform-protocol.md`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::coordinator::ResponseKind;
use crate::scenario::Trace;
use crate::wire::Stream;

/// One tool invocation: which call, which tool, the answers it was handed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invocation {
    /// The tool-call ID.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The accumulated answers the tool saw, keyed by bare question ID (a
    /// JSON object; compared as a JSON value, key order free).
    pub answers: Value,
}

/// One tool response the LLM saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResponse {
    /// The tool-call ID.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Whether it is an error.
    pub is_error: bool,
    /// Which outcome it reports.
    pub kind: ResponseKind,
    /// The text (compared only for an `ask_user` success, as a JSON value).
    pub content: String,
}

/// One question prompt shown to the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// The tool-call ID whose question it shows (empty: not reported, to be
    /// attributed by the model's run).
    pub tool_call_id: String,
    /// How many events of `stream` were persisted when it was shown.
    pub stream_position: usize,
    /// The compared fields of the presentation: `input`, `label`, `echo`,
    /// `remember_affordance`.
    pub(crate) presentation: Value,
}

/// One inquiry-backend call that asked a chosen model (rule
/// `LIFE-BACKEND-MODEL`): the question's own assistant-target model, or
/// the dedicated inquiry model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InquiryModel {
    /// The tool-call ID whose question was asked.
    pub(crate) tool_call_id: String,
    /// The question's ID.
    pub(crate) question_id: String,
    /// The model asked.
    pub model: String,
}

/// The remembered maps' keys when a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Remembered {
    /// `remembered_tool_answers` keys, sorted.
    pub tool_answers: Vec<String>,
    /// `remembered_permission_decisions` keys, sorted.
    pub permission_decisions: Vec<String>,
}

/// What an implementation did for one scenario, normalised. Two
/// observations are equal when what they normalise to is: the raw bytes in
/// [`Observed::written`] are not part of equality, as they are not part of
/// a vector.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Observed {
    /// The compared persisted events, in the order persisted (see
    /// [`comparable`]).
    pub stream: Vec<Value>,
    /// Every tool invocation, in order.
    pub invocations: Vec<Invocation>,
    /// Every tool response, in order.
    pub tool_responses: Vec<ToolResponse>,
    /// Every question prompt, in order.
    pub prompts: Vec<Prompt>,
    /// Per turn, the remembered keys when it ended.
    pub remembered: Vec<Remembered>,
    /// The backend calls that asked a chosen model, in order (absent from
    /// vectors where none did, so an adapter of the core language never
    /// reports one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inquiry_models: Vec<InquiryModel>,
    /// Every persisted event that read back, as written (the exact line of
    /// a `persisted_line`, the JSON text of a `persisted` value), in order:
    /// the events and fields the comparison drops included. The
    /// implementation's own bytes, judged by the oracle and searched for
    /// typed secrets (rule `CONF-OWN-BYTES`); not part of a vector.
    #[serde(skip)]
    pub written: Vec<String>,
}

impl PartialEq for Observed {
    fn eq(&self, other: &Observed) -> bool {
        // Every field but `written`, by name, so a new field is not
        // forgotten silently.
        let Observed {
            stream,
            invocations,
            tool_responses,
            prompts,
            remembered,
            inquiry_models,
            written: _,
        } = self;
        *stream == other.stream
            && *invocations == other.invocations
            && *tool_responses == other.tool_responses
            && *prompts == other.prompts
            && *remembered == other.remembered
            && *inquiry_models == other.inquiry_models
    }
}

/// One thing that happened, as an adapter reports it (externally tagged:
/// `{"persisted": {...}}`, `{"invoked": {...}}`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// An event was persisted: the event as a JSON value.
    Persisted(Value),
    /// An event was persisted: its line exactly as written (read with the
    /// crate's stream reader, so bytes that do not read back are seen).
    PersistedLine(String),
    /// A tool was invoked.
    Invoked(Invocation),
    /// A question prompt was shown.
    Prompted {
        /// The tool-call ID whose question it shows; absent (or empty) when
        /// the implementation's prompter is not told which call a prompt
        /// belongs to: the prompt is then attributed by the model's run
        /// (`witness::attribute`, rule `CONF-CAPABILITIES`).
        #[serde(default)]
        tool_call_id: String,
        /// What was shown (any superset of the compared fields).
        presentation: Value,
    },
    /// The LLM was given a tool response.
    Responded(ToolResponse),
    /// A turn ended with these remembered keys.
    TurnEnded(Remembered),
    /// The inquiry backend was called for a question; `model` is the model
    /// it asked, when one was chosen (none: the conversation's own).
    Inquired {
        /// The tool-call ID whose question was asked.
        tool_call_id: String,
        /// The question's ID.
        question_id: String,
        /// The model asked, if chosen.
        #[serde(default)]
        model: Option<String>,
    },
}

/// The comparable part of a persisted event, or `None` for events that are
/// not compared (chat events, configuration deltas, unknown kinds).
/// `timestamp` is dropped everywhere; tool-call requests keep `id` and
/// `name`, responses `id`, `is_error`, `content`; inquiry events are kept
/// whole.
pub(crate) fn comparable(event: &Value) -> Option<Value> {
    let obj = event.as_object()?;
    let kind = obj.get("type").and_then(Value::as_str)?;
    let keep: &[&str] = match kind {
        "turn_start" => &["type"],
        "tool_call_request" => &["type", "id", "name"],
        "tool_call_response" => &["type", "id", "is_error", "content"],
        "unreadable" => &["type", "error"],
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

/// The presentation fields an RFD fixes: the input widget (`password` for
/// `Secret`, RFD 082 "Secret questions"), the label (RFD 083 Phase 1
/// step 4), echo (RFD 082) and the remember affordance (RFD 082/083). The
/// question's own strings are shown verbatim by any prompter and left out.
pub(crate) fn compared_presentation(presentation: &Value) -> Value {
    let keep = ["input", "label", "echo", "remember_affordance"];
    let m: Map<String, Value> = keep
        .iter()
        .map(|k| {
            (
                (*k).to_owned(),
                presentation.get(*k).cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    Value::Object(m)
}

/// Builds an [`Observed`] from what an implementation reports, normalising
/// as it records.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    observed: Observed,
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Recorder::default()
    }

    /// Records one [`Record`].
    pub(crate) fn record(&mut self, record: Record) {
        match record {
            Record::Persisted(event) => self.persisted(&event),
            Record::PersistedLine(line) => self.persisted_line(&line),
            Record::Invoked(i) => self.invoked(&i.tool_call_id, &i.tool, i.answers),
            Record::Prompted {
                tool_call_id,
                presentation,
            } => self.prompted(&tool_call_id, &presentation),
            Record::Responded(r) => {
                self.responded(&r.tool_call_id, &r.tool, r.kind, r.is_error, &r.content)
            }
            Record::TurnEnded(r) => self.turn_ended(r.tool_answers, r.permission_decisions),
            Record::Inquired {
                tool_call_id,
                question_id,
                model,
            } => self.inquired(&tool_call_id, &question_id, model.as_deref()),
        }
    }

    /// An event was persisted, given as the exact text written (one JSON
    /// Lines line). Text the crate's stream reader rejects is recorded as
    /// `{"type": "unreadable", "error": …}`, which no expected stream holds.
    pub(crate) fn persisted_line(&mut self, line: &str) {
        match Stream::from_slice(line.as_bytes(), "implementation") {
            Ok(s) if s.events.len() == 1 => match serde_json::from_str::<Value>(line) {
                Ok(v) => {
                    if let Some(c) = comparable(&v) {
                        self.observed.stream.push(c);
                    }
                    self.observed.written.push(line.trim_end().to_owned());
                }
                Err(e) => self.unreadable(e.to_string()),
            },
            Ok(s) => self.unreadable(format!("one persisted line held {} events", s.events.len())),
            Err(e) => self.unreadable(e.to_string()),
        }
    }

    fn unreadable(&mut self, error: String) {
        self.observed
            .stream
            .push(serde_json::json!({"type": "unreadable", "error": error}));
    }

    /// An event was persisted, given as a JSON value (it must still read as
    /// an event: it goes through [`Recorder::persisted_line`]'s reader).
    pub fn persisted(&mut self, event: &Value) {
        let text = event.to_string();
        match Stream::from_slice(text.as_bytes(), "implementation") {
            Ok(_) => {
                if let Some(c) = comparable(event) {
                    self.observed.stream.push(c);
                }
                self.observed.written.push(text);
            }
            Err(e) => self.unreadable(e.to_string()),
        }
    }

    /// A tool was invoked with these answers (a JSON object).
    pub fn invoked(&mut self, tool_call_id: &str, tool: &str, answers: Value) {
        self.observed.invocations.push(Invocation {
            tool_call_id: tool_call_id.to_owned(),
            tool: tool.to_owned(),
            answers,
        });
    }

    /// A question prompt was shown now.
    pub fn prompted(&mut self, tool_call_id: &str, presentation: &Value) {
        self.observed.prompts.push(Prompt {
            tool_call_id: tool_call_id.to_owned(),
            stream_position: self.observed.stream.len(),
            presentation: compared_presentation(presentation),
        });
    }

    /// The LLM was given a tool response.
    pub fn responded(
        &mut self,
        tool_call_id: &str,
        tool: &str,
        kind: ResponseKind,
        is_error: bool,
        content: &str,
    ) {
        self.observed.tool_responses.push(ToolResponse {
            tool_call_id: tool_call_id.to_owned(),
            tool: tool.to_owned(),
            is_error,
            kind,
            content: content.to_owned(),
        });
    }

    /// The inquiry backend was called; only a chosen `model` is recorded.
    pub(crate) fn inquired(&mut self, tool_call_id: &str, question_id: &str, model: Option<&str>) {
        if let Some(model) = model {
            self.observed.inquiry_models.push(InquiryModel {
                tool_call_id: tool_call_id.to_owned(),
                question_id: question_id.to_owned(),
                model: model.to_owned(),
            });
        }
    }

    /// A turn ended with these remembered keys (any order).
    pub fn turn_ended<A, P>(&mut self, tool_answers: A, permission_decisions: P)
    where
        A: IntoIterator,
        A::Item: Into<String>,
        P: IntoIterator,
        P::Item: Into<String>,
    {
        let mut tool_answers: Vec<String> = tool_answers.into_iter().map(Into::into).collect();
        let mut permission_decisions: Vec<String> =
            permission_decisions.into_iter().map(Into::into).collect();
        tool_answers.sort();
        permission_decisions.sort();
        self.observed.remembered.push(Remembered {
            tool_answers,
            permission_decisions,
        });
    }

    /// The observation.
    pub fn finish(self) -> Observed {
        self.observed
    }
}

impl Observed {
    /// Replays a log of records through a [`Recorder`].
    pub fn from_records(records: impl IntoIterator<Item = Record>) -> Observed {
        let mut r = Recorder::new();
        for record in records {
            r.record(record);
        }
        r.finish()
    }

    /// The model's observation of a trace: its persisted events as the
    /// bytes it wrote, replayed through a [`Recorder`] together with its
    /// prompts, invocations, responses and remembered keys.
    pub fn of(trace: &Trace) -> Observed {
        let lines = model_lines(trace);
        let mut r = Recorder::new();
        let mut prompts = trace.prompts.iter().peekable();
        for (i, line) in lines.iter().enumerate() {
            while let Some(p) = prompts.next_if(|p| p.stream_position <= i) {
                let shown = serde_json::to_value(&p.presentation).unwrap_or(Value::Null);
                r.prompted(&p.tool_call_id, &shown);
            }
            r.persisted_line(line);
        }
        for p in prompts {
            let shown = serde_json::to_value(&p.presentation).unwrap_or(Value::Null);
            r.prompted(&p.tool_call_id, &shown);
        }
        for i in &trace.invocations {
            let answers = serde_json::to_value(&i.answers).unwrap_or(Value::Null);
            r.invoked(&i.tool_call_id, &i.tool, answers);
        }
        for t in &trace.tool_responses {
            r.responded(&t.tool_call_id, &t.tool, t.kind, t.is_error, &t.content);
        }
        for k in &trace.remembered {
            r.turn_ended(k.tool_answers.clone(), k.permission_decisions.clone());
        }
        for b in &trace.backend_calls {
            r.inquired(&b.tool_call_id, &b.call.question.id, b.model.as_deref());
        }
        r.finish()
    }
}

/// The model's persisted events as the text it writes: one line per event,
/// the flat legacy form for answered responses under `legacy`.
fn model_lines(trace: &Trace) -> Vec<String> {
    use crate::profile::ResponseForm;
    use crate::wire::{EventKind, InquiryResponse};
    let flat = matches!(trace.profile.rules().response_form, ResponseForm::Flat);
    trace
        .stream
        .iter()
        .map(|e| {
            let answered = matches!(
                e.kind,
                EventKind::InquiryResponse(InquiryResponse::Answered { .. })
            );
            match (flat && answered, serde_json::to_value(e)) {
                (true, Ok(Value::Object(mut m))) => {
                    m.shift_remove("outcome");
                    Value::Object(m).to_string()
                }
                _ => serde_json::to_string(e).unwrap_or_default(),
            }
        })
        .collect()
}
