//! The decision tables as data (rule `AMEND-TABLE-ROWS`): the cancellation
//! reasons, the non-answer responses and the route choice, one value per
//! row, so that a profile file can amend a table row by row
//! (`spec/schema/profile.schema.json` `tables`).
//!
//! Each table is keyed by the row names of its prose in `spec/tables/`: the
//! originating events of `cancellation.md` and `non-answer-response.md`
//! (the names of `routing::NonAnswer::all`, in that order; a test holds the
//! two lists equal) and the six rows of `route.md`. The model reads a
//! row's value through [`Rules::tables`](super::Rules); the rows of the
//! RFDs are [`Tables::RFD`], the same under every built-in profile (what a
//! row decides is reached or not by the switches: a refusal exists only
//! where a guard fires).

use serde::{Deserialize, Serialize};

use crate::wire::CancellationReason;

/// The originating events other than the refusals, as
/// `spec/tables/cancellation.md` names them: the prompter's, then the
/// inquiry backend's.
const ASKED_EVENTS: [&str; 9] = [
    "prompt_cancelled",
    "prompter_failure:no_terminal",
    "prompter_failure:io",
    "prompter_failure:format",
    "inquiry_error:cancelled",
    "inquiry_error:provider",
    "inquiry_error:missing_structured_data",
    "inquiry_error:answer_extraction",
    "inquiry_error:other",
];

/// The route each event of [`ASKED_EVENTS`] happens on, row by row: a
/// prompt event on the prompter's, a backend error on the backend's (a
/// refusal's is its row's `on`). Sized as [`ASKED_EVENTS`], so a new event
/// does not build without its route.
const ASKED_ROUTES: [RouteTo; ASKED_EVENTS.len()] = [
    RouteTo::Prompter,
    RouteTo::Prompter,
    RouteTo::Prompter,
    RouteTo::Prompter,
    RouteTo::Backend,
    RouteTo::Backend,
    RouteTo::Backend,
    RouteTo::Backend,
    RouteTo::Backend,
];

/// The row of the first refusal in the event-keyed tables: the refusals
/// (the coordinator closed the question itself) follow the asked events,
/// in the order of [`REFUSALS`]; their response is their refusal's row,
/// not amendable here.
pub(crate) const FIRST_REFUSAL: usize = ASKED_EVENTS.len();

/// How many originating events the event-keyed tables have.
const EVENT_COUNT: usize = ASKED_EVENTS.len() + REFUSALS.len();

/// The originating events, as `spec/tables/cancellation.md` names them:
/// [`ASKED_EVENTS`], then each refusal's name ([`REFUSALS`]).
pub(crate) const EVENTS: [&str; EVENT_COUNT] = {
    let mut out = [""; EVENT_COUNT];
    let mut i = 0;
    while i < EVENT_COUNT {
        out[i] = if i < FIRST_REFUSAL {
            ASKED_EVENTS[i]
        } else {
            REFUSALS[i - FIRST_REFUSAL].name
        };
        i += 1;
    }
    out
};

/// The route each event of [`EVENTS`] happens on (`None`: a refusal
/// decided before any route, on every route).
const EVENT_ROUTES: [Option<RouteTo>; EVENT_COUNT] = {
    let mut out = [None; EVENT_COUNT];
    let mut i = 0;
    while i < EVENT_COUNT {
        out[i] = if i < FIRST_REFUSAL {
            Some(ASKED_ROUTES[i])
        } else {
            REFUSALS[i - FIRST_REFUSAL].on
        };
        i += 1;
    }
    out
};

/// The rows of `spec/tables/route.md`, by name, in order.
pub(crate) const ROUTE_ROWS: [&str; 6] = [
    "static_answer",
    "user_tty",
    "user_no_tty",
    "user_no_tty_human_only",
    "assistant",
    "assistant_human_only",
];

/// A reason the cancellation table can record: the reasons the model
/// knows by name (`CancellationReason::KNOWN`; never `Unknown`, which JP
/// "never writes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Reason {
    /// `user`.
    User,
    /// `backend_error`.
    BackendError,
    /// `no_prompt_backend`.
    NoPromptBackend,
    /// `assistant_routing_denied`.
    AssistantRoutingDenied,
    /// `invalid_static_answer`.
    InvalidStaticAnswer,
}

impl Reason {
    /// The reason as written on the wire.
    pub(crate) fn to_wire(self) -> CancellationReason {
        match self {
            Reason::User => CancellationReason::User,
            Reason::BackendError => CancellationReason::BackendError,
            Reason::NoPromptBackend => CancellationReason::NoPromptBackend,
            Reason::AssistantRoutingDenied => CancellationReason::AssistantRoutingDenied,
            Reason::InvalidStaticAnswer => CancellationReason::InvalidStaticAnswer,
        }
    }
}

/// The tool response after a non-answer, as the non-answer table states
/// it: its kind (the text follows from the kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Response {
    /// A success, `Tool input cancelled by user.`.
    CancelledByUser,
    /// An error naming the failure.
    InquiryFailed,
    /// The refusal's own row (`routing::REFUSALS`): only a refusal's.
    Refused,
}

/// Where a route-table row sends the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RouteTo {
    /// The configured static answer.
    Static,
    /// The interactive prompter.
    Prompter,
    /// The inquiry backend.
    Backend,
    /// The no-TTY guard's refusal.
    RefusedNoTty,
    /// The assistant-target guard's refusal.
    RefusedAssistantTarget,
}

/// A question the coordinator closes itself, without asking anyone: a
/// routing guard or a static answer that does not fit (RFD 082 "Secret
/// questions", RFD 083 "Resolution precedence" and "Static-answer
/// validation"). What each records, answers and is called is its row of
/// [`REFUSALS`]; nothing else decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// The no-TTY guard refused a human-only question.
    NoTty,
    /// The assistant-target guard refused a human-only question.
    AssistantTarget,
    /// A configured static answer did not fit the question (RFD 083 step 6).
    InvalidStaticAnswer,
}

/// One refusal as the RFDs' tables state it: plain data, so that a table
/// can be read, printed and (by a profile) amended row by row.
#[derive(Debug)]
pub(crate) struct RefusalRow {
    /// The refusal this row states.
    pub refusal: Refusal,
    /// Its name: the originating event in `spec/tables/`, the route a trace
    /// shows and the
    /// `ResponseKind` of the tool response.
    pub name: &'static str,
    /// The reason recorded in `InquiryResponse::Cancelled` (RFD 082
    /// "Recording lifecycle" step 6 table and "Cancellation reasons"; RFD
    /// 083 "Persisted recording"): the refusal's row of the cancellation
    /// table in [`Tables::RFD`].
    pub reason: Reason,
    /// The route-table outcome the refusal happens on (a guard's refusal on
    /// its own, a static answer's on the static answer's); `None` for a
    /// refusal decided before any route, which may close any question.
    pub on: Option<RouteTo>,
    /// The tool response's text, with `{tool}` and `{question_id}` filled
    /// in by [`Refusal::message`] (rule `LIFE-GUARD-MESSAGES`).
    pub message: &'static str,
    /// How the review pictures name the path (read by the command line's
    /// pictures only).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub words: &'static str,
}

/// The refusal table (rule `LIFE-NON-ANSWER-RESPONSE`, `LIFE-CANCEL-REASON`;
/// `spec/tables/cancellation.md`, `spec/tables/non-answer-response.md`),
/// one row per [`Refusal`] in declaration order. Each row is also an
/// originating event of the event-keyed tables ([`EVENTS`], after the
/// prompter's and the backend's): its name, reason and route are read
/// from here, not stated again.
pub(crate) static REFUSALS: [RefusalRow; Refusal::ALL.len()] = [
    RefusalRow {
        refusal: Refusal::NoTty,
        name: "refused_no_tty",
        // RFD 082 step 6: "`AnswerType::Secret` and no TTY available |
        // `NoPromptBackend`"; RFD 083 reuses it for `exclusive = true`.
        reason: Reason::NoPromptBackend,
        on: Some(RouteTo::RefusedNoTty),
        // RFD 083 step 7, no-TTY refusal.
        message: "{tool} cannot run because no interactive terminal is available. Do not retry \
                  this tool call in this turn; continue without user input or explain what \
                  information is missing.",
        words: "refused: no TTY",
    },
    RefusalRow {
        refusal: Refusal::AssistantTarget,
        name: "refused_assistant_target",
        // RFD 082 step 6: "`AnswerType::Secret` and `target = \"assistant\"` |
        // `AssistantRoutingDenied`"; RFD 083 reuses it for `exclusive = true`.
        reason: Reason::AssistantRoutingDenied,
        on: Some(RouteTo::RefusedAssistantTarget),
        // RFD 083 step 7, assistant-target refusal.
        message: "{tool} requires a human answer and cannot be routed to the assistant. Do not \
                  retry this tool call in this turn.",
        words: "refused: assistant target",
    },
    RefusalRow {
        refusal: Refusal::InvalidStaticAnswer,
        name: "invalid_static_answer",
        // RFD 083 "Static-answer validation": "records the corresponding
        // inquiry response as `InquiryResponse::Cancelled { reason:
        // InvalidStaticAnswer }`".
        reason: Reason::InvalidStaticAnswer,
        on: Some(RouteTo::Static),
        // RFD 083 step 6, the source-aware static-answer error.
        message: "{tool}: the configured conversation.tools.{tool}.questions.{question_id}.answer \
                  value does not match the question's answer_type. Update the configuration; do \
                  not retry.",
        words: "refused: invalid static answer",
    },
];

// Row `i` of [`REFUSALS`] states `Refusal::ALL[i]`, and [`Refusal::row`]
// finds it there: a row out of place fails the build, not a message at run
// time.
const _: () = {
    let mut i = 0;
    while i < REFUSALS.len() {
        let refusal = Refusal::ALL[i];
        assert!(REFUSALS[i].refusal as usize == refusal as usize);
        assert!(refusal.row().refusal as usize == refusal as usize);
        i += 1;
    }
};

impl Refusal {
    /// Every refusal, in declaration order (the order of [`REFUSALS`]).
    pub(crate) const ALL: [Refusal; 3] = [
        Refusal::NoTty,
        Refusal::AssistantTarget,
        Refusal::InvalidStaticAnswer,
    ];

    /// Its place in [`Refusal::ALL`] and [`REFUSALS`].
    pub(crate) const fn index(self) -> usize {
        match self {
            Refusal::NoTty => 0,
            Refusal::AssistantTarget => 1,
            Refusal::InvalidStaticAnswer => 2,
        }
    }

    /// This refusal's row of [`REFUSALS`].
    pub(crate) const fn row(self) -> &'static RefusalRow {
        &REFUSALS[self.index()]
    }

    /// Its name (the row's `name`).
    pub(crate) fn as_str(self) -> &'static str {
        self.row().name
    }

    /// The tool response's text for `tool` and `question_id`: the row's
    /// template, each placeholder filled once (a name that itself reads
    /// `{tool}` is not expanded again).
    pub(crate) fn message(self, tool: &str, question_id: &str) -> String {
        let mut out = String::new();
        let mut rest = self.row().message;
        while let Some(at) = rest.find('{') {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            if let Some(after) = tail.strip_prefix("{tool}") {
                out.push_str(tool);
                rest = after;
            } else if let Some(after) = tail.strip_prefix("{question_id}") {
                out.push_str(question_id);
                rest = after;
            } else {
                out.push('{');
                rest = &tail[1..];
            }
        }
        out.push_str(rest);
        out
    }
}

/// The decision tables of a profile, one value per row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tables {
    /// The cancellation table, per [`EVENTS`] row.
    pub(crate) reasons: [Reason; EVENT_COUNT],
    /// The non-answer response table, per [`EVENTS`] row.
    pub(crate) responses: [Response; EVENT_COUNT],
    /// The route table, per [`ROUTE_ROWS`] row.
    pub(crate) routes: [RouteTo; 6],
}

impl Default for Tables {
    fn default() -> Self {
        Tables::RFD
    }
}

impl Tables {
    /// The tables as the RFDs state them (`spec/tables/`): RFD 082
    /// "Recording lifecycle" step 6 and RFD 083 "Persisted recording" for
    /// the reasons, RFD 082 step 6 and RFD 083 steps 6–7 for the responses,
    /// RFD 083 "Resolution precedence" with RFD 082's secret guard for the
    /// route.
    pub(crate) const RFD: Tables = {
        // The asked events' rows; a refusal's are its row of [`REFUSALS`].
        let asked_reasons = [
            Reason::User,
            Reason::User,
            Reason::User,
            Reason::User,
            Reason::User,
            Reason::BackendError,
            Reason::BackendError,
            Reason::BackendError,
            Reason::BackendError,
        ];
        let asked_responses = [
            Response::CancelledByUser,
            Response::CancelledByUser,
            Response::CancelledByUser,
            Response::CancelledByUser,
            Response::InquiryFailed,
            Response::InquiryFailed,
            Response::InquiryFailed,
            Response::InquiryFailed,
            Response::InquiryFailed,
        ];
        let mut reasons = [Reason::User; EVENT_COUNT];
        let mut responses = [Response::Refused; EVENT_COUNT];
        let mut i = 0;
        while i < EVENT_COUNT {
            if i < FIRST_REFUSAL {
                reasons[i] = asked_reasons[i];
                responses[i] = asked_responses[i];
            } else {
                reasons[i] = REFUSALS[i - FIRST_REFUSAL].reason;
            }
            i += 1;
        }
        Tables {
            reasons,
            responses,
            routes: [
                RouteTo::Static,
                RouteTo::Prompter,
                RouteTo::Backend,
                RouteTo::RefusedNoTty,
                RouteTo::Backend,
                RouteTo::RefusedAssistantTarget,
            ],
        }
    };

    /// The reason recorded for the event of row `event` ([`EVENTS`]).
    pub(crate) fn reason(&self, event: usize) -> Reason {
        self.reasons[event]
    }

    /// The response kind after the event of row `event` ([`EVENTS`]).
    pub(crate) fn response(&self, event: usize) -> Response {
        self.responses[event]
    }

    /// Where row `row` of the route table ([`ROUTE_ROWS`]) sends the question.
    pub(crate) fn route(&self, row: usize) -> RouteTo {
        self.routes[row]
    }

    /// Whether some row of these tables records `reason` for a question of
    /// this kind (`human_only`: `secret`, or `exclusive` under RFD 083): the
    /// route rows that apply to such a question (`spec/tables/route.md`),
    /// each route's originating events (a static answer's
    /// `invalid_static_answer`, the prompter's Ctrl-C/EOF and failures, the
    /// inquiry backend's errors, a refusal's own row), and those events'
    /// rows of the cancellation table. Under [`Tables::RFD`] this is the
    /// reason classes of `wire::ClosesQuestions` (a test holds them equal);
    /// the oracle reads it so that an amended row's reason is legal where
    /// the amendment records it (decision "Oracle checks: an amendment's rows widen the
    /// reason rules").
    pub(crate) fn records_for(&self, human_only: bool, reason: Reason) -> bool {
        // Read from the tables' own row names (`spec/tables/`), not from
        // the model, which the oracle does not import: the route rows a
        // question of this kind can take (the rows after the first are
        // split by `human_only` where the guards apply, shared otherwise),
        // and the route an originating event needs.
        let applies = |row: &str| match row {
            "user_no_tty" | "assistant" => !human_only,
            "user_no_tty_human_only" | "assistant_human_only" => human_only,
            _ => true,
        };
        let routes: Vec<RouteTo> = ROUTE_ROWS
            .iter()
            .zip(self.routes)
            .filter(|(row, _)| applies(row))
            .map(|(_, to)| to)
            .collect();
        EVENT_ROUTES
            .iter()
            .zip(self.reasons)
            .any(|(on, r)| r == reason && on.is_none_or(|needs| routes.contains(&needs)))
    }

    /// Whether some event these tables record `reason` for is answered
    /// `cancelled_by_user` (a success; `spec/tables/non-answer-response.md`):
    /// then the reason does not end the call with an error
    /// (CHECK-REASON-FAILS-TOOL, CHECK-ONE-QUESTION read it with the reason
    /// classes; decision "Oracle checks: an amendment's rows widen the
    /// reason rules"). Under [`Tables::RFD`] only `user` is.
    pub(crate) fn answers_quietly(&self, reason: &CancellationReason) -> bool {
        self.reasons
            .iter()
            .zip(self.responses)
            .any(|(r, response)| r.to_wire() == *reason && response == Response::CancelledByUser)
    }

    /// [`Tables::records_for`] for a reason as read from the wire: `None`
    /// for a reason no table records (`Unknown`).
    pub(crate) fn records_wire(
        &self,
        human_only: bool,
        reason: &CancellationReason,
    ) -> Option<bool> {
        let r = match reason {
            CancellationReason::User => Reason::User,
            CancellationReason::BackendError => Reason::BackendError,
            CancellationReason::NoPromptBackend => Reason::NoPromptBackend,
            CancellationReason::AssistantRoutingDenied => Reason::AssistantRoutingDenied,
            CancellationReason::InvalidStaticAnswer => Reason::InvalidStaticAnswer,
            CancellationReason::Unknown(_) => return None,
        };
        Some(self.records_for(human_only, r))
    }

    /// Every row as `(table, row, value)`, in table order: `cancellation`,
    /// `non_answer_response`, `route`.
    pub(crate) fn rows(&self) -> Vec<(Table, &'static str, serde_json::Value)> {
        let value = |v: &dyn erased::Name| serde_json::Value::String(v.name());
        let mut out = Vec::new();
        for (i, name) in EVENTS.iter().enumerate() {
            out.push((Table::Cancellation, *name, value(&self.reasons[i])));
        }
        for (i, name) in EVENTS.iter().enumerate() {
            out.push((Table::NonAnswerResponse, *name, value(&self.responses[i])));
        }
        for (i, name) in ROUTE_ROWS.iter().enumerate() {
            out.push((Table::Route, *name, value(&self.routes[i])));
        }
        out
    }

    /// Sets row `row` of `table` to `value` (its serialized name). Errors
    /// name what is wrong: an unknown row, a value not of the table, or a
    /// value the row cannot take.
    pub(crate) fn set(&mut self, table: Table, row: &str, value: &str) -> Result<(), String> {
        let quoted = serde_json::Value::String(value.to_owned());
        match table {
            Table::Cancellation => {
                let i = index(&EVENTS, row, table)?;
                self.reasons[i] = serde_json::from_value(quoted).map_err(|_| {
                    format!(
                        "`{value}` is not a reason; the reasons are user, backend_error, \
                         no_prompt_backend, assistant_routing_denied, invalid_static_answer"
                    )
                })?;
            }
            Table::NonAnswerResponse => {
                let i = index(&EVENTS, row, table)?;
                let v: Response = serde_json::from_value(quoted).map_err(|_| {
                    format!("`{value}` is not a response kind; the kinds are cancelled_by_user, inquiry_failed")
                })?;
                let refusal = i >= FIRST_REFUSAL;
                match (refusal, v) {
                    (true, Response::Refused) => {}
                    (true, Response::CancelledByUser | Response::InquiryFailed) => {
                        return Err(format!(
                            "`{row}` is a refusal: its response is its own row of the refusal table"
                        ));
                    }
                    (false, Response::Refused) => {
                        return Err(format!(
                            "`refused` is a refusal's own response; `{row}` takes cancelled_by_user or inquiry_failed"
                        ));
                    }
                    (false, Response::CancelledByUser | Response::InquiryFailed) => {}
                }
                self.responses[i] = v;
            }
            Table::Route => {
                let i = index(&ROUTE_ROWS, row, table)?;
                let v: RouteTo = serde_json::from_value(quoted).map_err(|_| {
                    format!(
                        "`{value}` is not a route; the routes are static, prompter, backend, \
                         refused_no_tty, refused_assistant_target"
                    )
                })?;
                // Only the first row has a static answer to use; the rows
                // after it are read only without one.
                match (i == 0, v) {
                    (true, RouteTo::Static) => {}
                    (true, _) => {
                        return Err(
                            "`static_answer` uses the configured answer: a configured answer \
                             is always used (RFD 083 \"Resolution precedence\" puts it first)"
                                .to_owned(),
                        );
                    }
                    (false, RouteTo::Static) => {
                        return Err(format!(
                            "`{row}` applies without a configured answer: it cannot route to `static`"
                        ));
                    }
                    (
                        false,
                        RouteTo::Prompter
                        | RouteTo::Backend
                        | RouteTo::RefusedNoTty
                        | RouteTo::RefusedAssistantTarget,
                    ) => {}
                }
                self.routes[i] = v;
            }
        }
        Ok(())
    }

    /// The rows on which `b` differs from `a`: `(table.row, a's, b's)`.
    pub(crate) fn differing(
        a: &Tables,
        b: &Tables,
    ) -> Vec<(String, serde_json::Value, serde_json::Value)> {
        a.rows()
            .into_iter()
            .zip(b.rows())
            .filter(|((_, _, x), (_, _, y))| x != y)
            .map(|((t, row, x), (_, _, y))| (format!("{}.{row}", t.as_str()), x, y))
            .collect()
    }
}

fn index(rows: &[&str], row: &str, table: Table) -> Result<usize, String> {
    rows.iter().position(|r| *r == row).ok_or_else(|| {
        format!(
            "`{row}` is no row of the {} table; its rows are {}",
            table.as_str(),
            rows.join(", ")
        )
    })
}

/// The amendable tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Table {
    /// `spec/tables/cancellation.md`.
    Cancellation,
    /// `spec/tables/non-answer-response.md`.
    NonAnswerResponse,
    /// `spec/tables/route.md`.
    Route,
}

impl Table {
    /// Every table, in order.
    pub(crate) const ALL: [Table; 3] =
        [Table::Cancellation, Table::NonAnswerResponse, Table::Route];

    /// Its name in a profile file's `tables`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Table::Cancellation => "cancellation",
            Table::NonAnswerResponse => "non_answer_response",
            Table::Route => "route",
        }
    }

    /// The field of a row object holding the row's value.
    pub(crate) fn value_field(self) -> &'static str {
        match self {
            Table::Cancellation => "reason",
            Table::NonAnswerResponse => "kind",
            Table::Route => "route",
        }
    }

    /// The table named `name`.
    pub(crate) fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

mod erased {
    /// A table value's serialized name.
    pub(super) trait Name {
        fn name(&self) -> String;
    }

    impl<T: serde::Serialize> Name for T {
        fn name(&self) -> String {
            match serde_json::to_value(self) {
                Ok(serde_json::Value::String(s)) => s,
                Ok(_) | Err(_) => String::new(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ClosesQuestions;

    const KNOWN: [Reason; 5] = [
        Reason::User,
        Reason::BackendError,
        Reason::NoPromptBackend,
        Reason::AssistantRoutingDenied,
        Reason::InvalidStaticAnswer,
    ];

    /// Rules: CHECK-REASON-BACKEND-ERROR, CHECK-REASON-HUMAN-ONLY — under
    /// the RFDs' tables, the reasons some row records for a human-only
    /// question, and for any other, are exactly the reason classes of
    /// `wire::ClosesQuestions` (RFD 082 "Secret questions": a secret
    /// question "cannot be routed to the inquiry backend, full stop"; the
    /// guards refuse only human-only questions): the oracle reading the
    /// tables judges the built-in profiles as it did by the classes.
    #[test]
    fn under_the_rfd_tables_the_reasons_recorded_are_the_reason_classes() {
        for r in KNOWN {
            let class = r.to_wire().class().expect("a known reason has a class");
            let (human_only, other) = match class.closes {
                ClosesQuestions::OnlyHumanOnly => (true, false),
                ClosesQuestions::NeverHumanOnly => (false, true),
                ClosesQuestions::Any => (true, true),
            };
            assert_eq!(Tables::RFD.records_for(true, r), human_only, "{r:?}");
            assert_eq!(Tables::RFD.records_for(false, r), other, "{r:?}");
        }
        assert_eq!(
            Tables::RFD.records_wire(true, &CancellationReason::Unknown("x".to_owned())),
            None
        );
    }

    /// Rules: CHECK-REASON-FAILS-TOOL, AMEND-TABLE-ROWS — under the RFDs'
    /// tables no reason that fails the tool is ever answered with a
    /// success (the class holds); an amended response row answering a
    /// backend error `cancelled_by_user` makes `backend_error` quiet, and
    /// only it.
    #[test]
    fn only_an_amended_response_row_makes_a_failing_reason_quiet() {
        for r in KNOWN {
            let wire = r.to_wire();
            assert_eq!(
                Tables::RFD.answers_quietly(&wire),
                !wire.fails_tool(),
                "{r:?}"
            );
        }
        let mut t = Tables::RFD;
        t.set(
            Table::NonAnswerResponse,
            "inquiry_error:provider",
            "cancelled_by_user",
        )
        .expect("a response row");
        for r in KNOWN {
            assert_eq!(
                t.answers_quietly(&r.to_wire()),
                matches!(r, Reason::User | Reason::BackendError),
                "{r:?}"
            );
        }
    }

    /// Rule: AMEND-TABLE-ROWS — the oracle's reading of the row names
    /// agrees with the model's: the route rows `records_for` lets a
    /// question of each kind take are the rows `routing::route_row` picks
    /// for some input of that kind, and each event's route is the one the
    /// model closes it on.
    #[test]
    fn the_row_names_read_as_the_model_routes() {
        use crate::model::routing::{NonAnswer, route_row};
        use crate::model::tool::QuestionTarget;
        for human_only in [true, false] {
            let mut rows = Vec::new();
            for has_static in [true, false] {
                for target in [QuestionTarget::User, QuestionTarget::Assistant] {
                    for tty in [true, false] {
                        rows.push(route_row(has_static, target, tty, human_only));
                    }
                }
            }
            rows.sort_unstable();
            rows.dedup();
            // One row at a time set to a route no other row of that kind
            // takes shows which rows `records_for` reads.
            for (i, row) in ROUTE_ROWS.iter().enumerate().skip(1) {
                let mut t = Tables::RFD;
                t.reasons = [Reason::User; EVENT_COUNT];
                t.reasons[4] = Reason::BackendError;
                t.routes = [RouteTo::Prompter; 6];
                t.routes[0] = RouteTo::Static;
                t.routes[i] = RouteTo::Backend;
                assert_eq!(
                    t.records_for(human_only, Reason::BackendError),
                    rows.contains(&i),
                    "{row}, human_only {human_only}"
                );
            }
        }
        for e in NonAnswer::all() {
            // A refusal's route is its row's `on`, held to the model's
            // route function by the test below.
            let want = match e {
                NonAnswer::PromptCancelled | NonAnswer::PrompterFailed(_) => {
                    Some(RouteTo::Prompter)
                }
                NonAnswer::Inquiry(_) => Some(RouteTo::Backend),
                NonAnswer::Refused(refusal) => refusal.row().on,
            };
            // Only this event records `no_prompt_backend`, every route
            // taken: it is recorded where its route is.
            let mut t = Tables::RFD;
            t.reasons = [Reason::User; EVENT_COUNT];
            t.reasons[e.row()] = Reason::NoPromptBackend;
            for to in [
                RouteTo::Prompter,
                RouteTo::Backend,
                RouteTo::RefusedNoTty,
                RouteTo::RefusedAssistantTarget,
            ] {
                t.routes = [to; 6];
                t.routes[0] = RouteTo::Static;
                assert_eq!(
                    t.records_for(false, Reason::NoPromptBackend),
                    want.is_none_or(|w| to == w || w == RouteTo::Static),
                    "{} via {to:?}",
                    e.name()
                );
            }
        }
    }

    /// Rule: LIFE-ROUTE — a refusal's row says which route-table outcome
    /// it happens on (`on`), and the model's route function agrees: every
    /// routing input the RFD route table sends to a guard's outcome is
    /// refused by the model with the refusal whose row names that outcome,
    /// and a refusal the route function never gives is decided outside
    /// the route table (a static answer's, or before any route). A row
    /// naming another guard's outcome fails here.
    #[test]
    fn each_refusal_happens_on_the_outcome_the_model_refuses_on() {
        use crate::model::routing::{Refusal, Route, route};
        use crate::model::tool::QuestionTarget;
        let mut refused_by_route = Vec::new();
        for has_static in [true, false] {
            for target in [QuestionTarget::User, QuestionTarget::Assistant] {
                for tty in [true, false] {
                    for human_only in [true, false] {
                        let row =
                            crate::model::routing::route_row(has_static, target, tty, human_only);
                        let outcome = Tables::RFD.route(row);
                        if let Route::Refuse(r) = route(has_static, target, tty, human_only) {
                            assert_eq!(r.row().on, Some(outcome), "{}", r.as_str());
                            refused_by_route.push(r);
                        }
                    }
                }
            }
        }
        for r in Refusal::ALL {
            if !refused_by_route.contains(&r) {
                assert!(
                    matches!(r.row().on, None | Some(RouteTo::Static)),
                    "{} is decided outside the route table",
                    r.as_str()
                );
            }
        }
        assert!(!refused_by_route.is_empty());
    }

    /// Rules: CHECK-REASON-BACKEND-ERROR, CHECK-REASON-HUMAN-ONLY,
    /// AMEND-TABLE-ROWS — an amended row widens what is legal only where
    /// its event can happen to that kind of question: a prompter failure
    /// recording `backend_error` makes it legal on a human-only question
    /// (the prompter asks them); the same reason on an inquiry-backend row
    /// does not (a human-only question never reaches the backend), until a
    /// route row sends a human-only question there; a backend error
    /// recording `no_prompt_backend` makes the guard reason legal on any
    /// question. A wrong reading that ignores the route (every row read for
    /// every question) fails here on the backend row, and on the RFD
    /// tables in the test above (the guard rows would make
    /// `no_prompt_backend` legal on a plain question).
    #[test]
    fn an_amended_row_widens_what_is_legal_where_its_event_happens() {
        let mut prompter = Tables::RFD;
        prompter
            .set(Table::Cancellation, "prompter_failure:io", "backend_error")
            .expect("a reason row");
        assert!(prompter.records_for(true, Reason::BackendError));
        assert!(!prompter.records_for(false, Reason::NoPromptBackend));

        let mut backend = Tables::RFD;
        backend
            .set(
                Table::Cancellation,
                "inquiry_error:cancelled",
                "backend_error",
            )
            .expect("a reason row");
        assert!(!backend.records_for(true, Reason::BackendError));
        backend
            .set(Table::Route, "user_no_tty_human_only", "backend")
            .expect("a route row");
        assert!(backend.records_for(true, Reason::BackendError));

        let mut guard = Tables::RFD;
        guard
            .set(
                Table::Cancellation,
                "inquiry_error:provider",
                "no_prompt_backend",
            )
            .expect("a reason row");
        assert!(guard.records_for(false, Reason::NoPromptBackend));
        assert!(!guard.records_for(false, Reason::AssistantRoutingDenied));
        // A guard row amended away: the guard's reason is recorded nowhere
        // for a plain question still, and `user` stays legal everywhere.
        let mut refused = Tables::RFD;
        refused
            .set(Table::Cancellation, "refused_no_tty", "user")
            .expect("a reason row");
        assert!(!refused.records_for(false, Reason::NoPromptBackend));
        assert!(refused.records_for(true, Reason::User));
    }
}
