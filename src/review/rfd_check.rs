//! `rfd-check`: an RFD's text against a profile (rule `AMEND-RFD-CHECK`).
//!
//! Reads an RFD in Markdown, as the project's RFD texts are written, and
//! checks:
//!
//! - every fenced `json` block: each `InquiryResponse` example reads and is
//!   written back exactly as shown (RFD 082 "`InquiryResponse`
//!   serialization" prints the writer's pretty form); a legacy flat
//!   response reads (RFD 082 "Reader behavior"); anything else is "not
//!   checked";
//! - every table the model implements, row by row against the profile's
//!   decision: the routing precedence (RFD 083 "Non-interactive behavior")
//!   and the cancellation reasons (RFD 082 "Recording lifecycle" step 6, RFD
//!   083 "Persisted recording"), and tables of the remember rules and the
//!   cache bypass (RFD 083 Phase 1 steps 4 and 6 state them in prose; an
//!   amendment may tabulate them: `answer type | persistence | remember` or
//!   `... | cache`). A table or row it cannot map is reported "not
//!   checked", never as agreement.
//!
//! Tables are read in both shapes the RFD texts use: one row per line, and
//! rows reflowed into a paragraph (`| a | b | | c | d |`), where a row whose
//! later cells are empty continues the row before it. Pure: the text is
//! given.

use serde::Serialize;
use serde_json::Value;

use crate::model::routing::{self, InquiryErrorKind, NonAnswer, Refusal, Route};
use crate::model::tool::{AnswerReusePolicy, AnswerType, Question, QuestionTarget};
use crate::predicates;
use crate::profile::tables::Table as AmendedTable;
use crate::profile::{RecordScope, Rules};
use crate::review::profile_file::RuleSet;
use crate::wire::InquiryResponse;

/// One fenced block of the RFD.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Block {
    /// The heading it sits under.
    pub(crate) section: String,
    /// The 1-based line of its opening fence.
    pub(crate) line: usize,
    /// The info string (`json`, `jsonc`).
    pub(crate) lang: String,
    /// The text between the fences.
    pub(crate) body: String,
}

/// Every fenced block whose info string starts with `json`, with its
/// heading (the reading of `src/wire/rfd_examples_tests.rs`, which built
/// `spec/rfd-examples/`): fences are three backticks at a line's start.
pub(crate) fn json_blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut heading = String::from("(before the first heading)");
    let mut open: Option<(usize, String, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut open {
            None if line.starts_with("```") => {
                open = Some((i + 1, line[3..].trim().to_owned(), String::new()));
            }
            None => {
                if line.starts_with('#') {
                    heading = line.trim().to_owned();
                }
            }
            Some((start, lang, body)) => {
                if line.starts_with("```") {
                    if lang.starts_with("json") {
                        blocks.push(Block {
                            section: heading.clone(),
                            line: *start,
                            lang: lang.clone(),
                            body: std::mem::take(body),
                        });
                    }
                    open = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

/// A verdict on one row or example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub(crate) enum Verdict {
    /// The profile decides what the text says.
    Agrees,
    /// It does not; what the profile does instead.
    Disagrees {
        /// The profile's decision.
        profile: String,
    },
    /// The row or example could not be mapped to a decision of the model.
    NotChecked {
        /// Why.
        why: String,
    },
}

/// One table row's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RowReport {
    /// 1-based row number within the table (header excluded).
    pub(crate) row: usize,
    /// The 1-based line where the row starts in the text.
    pub(crate) line: usize,
    /// The row's cells.
    pub(crate) cells: Vec<String>,
    /// The verdict.
    #[serde(flatten)]
    pub(crate) verdict: Verdict,
    /// The rules that decide it.
    pub(crate) rules: Vec<&'static str>,
}

/// What a table is, to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TableKind {
    /// Configuration → routing outcome, first match wins.
    RoutingPrecedence,
    /// Originating event or condition → persisted `reason`.
    CancellationReasons,
    /// Answer type, persistence → "remember for turn" offered.
    RememberRules,
    /// Answer type (or secret), persistence → the turn cache used.
    CacheBypass,
}

/// One table's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct TableReport {
    /// The heading it sits under.
    pub(crate) section: String,
    /// The 1-based line where it starts.
    pub(crate) line: usize,
    /// Its header cells.
    pub(crate) header: Vec<String>,
    /// What it is, or `None`: not checked.
    pub(crate) kind: Option<TableKind>,
    /// Per row (empty when not checked).
    pub(crate) rows: Vec<RowReport>,
}

/// One JSON value of a fenced block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ExampleReport {
    /// The heading it sits under.
    pub(crate) section: String,
    /// The 1-based line of its block's opening fence.
    pub(crate) line: usize,
    /// Its 1-based position in the block.
    pub(crate) index: usize,
    /// The verdict.
    #[serde(flatten)]
    pub(crate) verdict: Verdict,
    /// The rules that decide it.
    pub(crate) rules: Vec<&'static str>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RfdReport {
    /// The profile checked against.
    pub(crate) profile: String,
    /// Every table found.
    pub(crate) tables: Vec<TableReport>,
    /// Every JSON value of every `json`/`jsonc` block.
    pub(crate) examples: Vec<ExampleReport>,
    /// Every normative sentence of the prose (outside tables and fenced
    /// blocks): tied to a switch, or not checked.
    pub(crate) sentences: Vec<SentenceReport>,
}

/// One normative sentence of the prose (MUST, MUST NOT, SHOULD, SHOULD
/// NOT, "never", "always"; rule `AMEND-RFD-PROSE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SentenceReport {
    /// The heading it sits under.
    pub(crate) section: String,
    /// The 1-based line where it starts.
    pub(crate) line: usize,
    /// The sentence, its lines joined.
    pub(crate) text: String,
    /// The switch it is tied to and the value it asks for, if any.
    pub(crate) switch: Option<(String, String)>,
    /// The verdict: against the tied switch, else not checked.
    #[serde(flatten)]
    pub(crate) verdict: Verdict,
}

impl RfdReport {
    /// Rows and examples that disagree.
    pub(crate) fn disagreements(&self) -> usize {
        let rows = self
            .tables
            .iter()
            .flat_map(|t| &t.rows)
            .filter(|r| matches!(r.verdict, Verdict::Disagrees { .. }))
            .count();
        let examples = self
            .examples
            .iter()
            .filter(|e| matches!(e.verdict, Verdict::Disagrees { .. }))
            .count();
        let sentences = self
            .sentences
            .iter()
            .filter(|e| matches!(e.verdict, Verdict::Disagrees { .. }))
            .count();
        rows + examples + sentences
    }

    /// The report as text, one line per row and example, each at its own
    /// line of the RFD text and in line order.
    pub(crate) fn text(&self, origin: &str) -> String {
        let mut s = format!("{origin}: checked against {}\n", self.profile);
        let (mut agree, mut disagree, mut unchecked) = (0, 0, 0);
        let mut tally = |v: &Verdict| match v {
            Verdict::Agrees => agree += 1,
            Verdict::Disagrees { .. } => disagree += 1,
            Verdict::NotChecked { .. } => unchecked += 1,
        };
        // (line, text), sorted by line at the end (stable: a table's rows
        // keep their order).
        let mut entries: Vec<(usize, String)> = Vec::new();
        for t in &self.tables {
            let what = match t.kind {
                Some(TableKind::RoutingPrecedence) => "routing precedence",
                Some(TableKind::CancellationReasons) => "cancellation reasons",
                Some(TableKind::RememberRules) => "remember rules",
                Some(TableKind::CacheBypass) => "cache bypass",
                None => "",
            };
            if t.kind.is_none() {
                tally(&Verdict::NotChecked { why: String::new() });
                entries.push((
                    t.line,
                    format!(
                        "{origin}:{}: table ({}) under {}: not checked (no decision of the model reads `{}`)\n",
                        t.line,
                        plain_cells(&t.header),
                        t.section,
                        plain_cells(&t.header)
                    ),
                ));
                continue;
            }
            for r in &t.rows {
                tally(&r.verdict);
                let head = format!(
                    "{origin}:{}: {what} row {} `{}`",
                    r.line,
                    r.row,
                    plain_cells(&r.cells)
                );
                let text = match &r.verdict {
                    Verdict::Agrees => format!("{head}: agrees\n"),
                    Verdict::Disagrees { profile } => {
                        format!("{head}: DISAGREES ({}): {profile}\n", r.rules.join(", "))
                    }
                    Verdict::NotChecked { why } => format!("{head}: not checked ({why})\n"),
                };
                entries.push((r.line, text));
            }
        }
        for e in &self.examples {
            tally(&e.verdict);
            let head = format!(
                "{origin}:{}: example {} under {}",
                e.line, e.index, e.section
            );
            let text = match &e.verdict {
                Verdict::Agrees => format!("{head}: reads and writes back as shown\n"),
                Verdict::Disagrees { profile } => {
                    format!("{head}: DISAGREES ({}): {profile}\n", e.rules.join(", "))
                }
                Verdict::NotChecked { why } => format!("{head}: not checked ({why})\n"),
            };
            entries.push((e.line, text));
        }
        for e in &self.sentences {
            tally(&e.verdict);
            let head = format!("{origin}:{}: sentence \"{}\"", e.line, e.text);
            let text = match (&e.verdict, &e.switch) {
                (Verdict::Agrees, Some((k, v))) => format!("{head}: agrees ({k} = {v})\n"),
                (Verdict::Disagrees { profile }, Some((k, v))) => {
                    format!("{head}: DISAGREES ({k} = {v}): {profile}\n")
                }
                (Verdict::Agrees | Verdict::Disagrees { .. }, None) => format!("{head}\n"),
                (Verdict::NotChecked { why }, _) => format!("{head}: not checked ({why})\n"),
            };
            entries.push((e.line, text));
        }
        entries.sort_by_key(|(line, _)| *line);
        for (_, text) in entries {
            s.push_str(&text);
        }
        s.push_str(&format!(
            "{agree} agree, {disagree} disagree, {unchecked} not checked\n"
        ));
        s
    }
}

/// Checks an RFD's text against a rule set.
pub(crate) fn check(text: &str, profile: &RuleSet) -> RfdReport {
    RfdReport {
        profile: profile.label.clone(),
        tables: tables(text)
            .into_iter()
            .map(|t| judge_table(t, &profile.rules))
            .collect(),
        examples: json_blocks(text).iter().flat_map(judge_block).collect(),
        sentences: normative_sentences(text)
            .into_iter()
            .map(|n| judge_sentence(n, &profile.rules))
            .collect(),
    }
}

/// A table as read: where, under which heading, its header and rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    /// The heading it sits under.
    pub(crate) section: String,
    /// The 1-based line where it starts.
    pub(crate) line: usize,
    /// The header cells.
    pub(crate) header: Vec<String>,
    /// The body rows (continuations merged), each as many cells as the header.
    pub(crate) rows: Vec<Vec<String>>,
    /// The 1-based line where each body row starts.
    pub(crate) row_lines: Vec<usize>,
}

/// `(offset in the joined table text, 1-based line)` per line of a table.
type LineStarts = Vec<(usize, usize)>;

/// Every table of the text (outside fenced blocks).
pub fn tables(text: &str) -> Vec<Table> {
    let mut out = Vec::new();
    let mut heading = String::from("(before the first heading)");
    let mut fenced = false;
    // The table's first line, its lines joined, and where each line starts
    // in the join.
    let mut current: Option<(usize, String, LineStarts)> = None;
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let t = line.trim();
        match &mut current {
            Some((_, buf, starts)) if !t.is_empty() && !fenced => {
                buf.push(' ');
                starts.push((buf.len(), i + 1));
                buf.push_str(t);
                continue;
            }
            Some((start, buf, starts)) => {
                out.extend(parse_table(&heading, *start, buf, starts));
                current = None;
            }
            None => {}
        }
        if fenced {
            continue;
        }
        if line.starts_with('#') {
            heading = t.to_owned();
        } else if t.starts_with('|') {
            current = Some((i + 1, t.to_owned(), vec![(0, i + 1)]));
        }
    }
    if let Some((start, buf, starts)) = current {
        out.extend(parse_table(&heading, start, &buf, &starts));
    }
    out
}

fn is_rule(cell: &str) -> bool {
    !cell.is_empty() && cell.chars().all(|c| c == '-' || c == ':')
}

fn parse_table(
    section: &str,
    line: usize,
    joined: &str,
    starts: &[(usize, usize)],
) -> Option<Table> {
    // Each cell with the line it starts on.
    let mut offset = 0;
    let mut cells: Vec<(String, usize)> = Vec::new();
    for piece in joined.split('|') {
        // The line of the cell's first character (a cell may begin after
        // the line break the join turned into a space).
        let first = offset + (piece.len() - piece.trim_start().len());
        let at = starts
            .iter()
            .rev()
            .find(|(o, _)| *o <= first)
            .map_or(line, |(_, l)| *l);
        cells.push((piece.trim().to_owned(), at));
        offset += piece.len() + 1;
    }
    // Leading `|`: the first piece is empty.
    let cells = cells.get(1..)?;
    let n = cells.iter().position(|(c, _)| c.is_empty())?;
    if n == 0 {
        return None;
    }
    let header = cells[..n].iter().map(|(c, _)| c.clone()).collect();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row_lines = Vec::new();
    // Groups of n cells and one separator.
    for group in cells[n + 1..].chunks(n + 1) {
        if group.len() < n {
            break;
        }
        let row: Vec<String> = group[..n].iter().map(|(c, _)| c.clone()).collect();
        if row.iter().all(|c| is_rule(c)) {
            continue;
        }
        let continues = !rows.is_empty() && row[1..].iter().all(String::is_empty);
        match rows.last_mut() {
            Some(last) if continues => {
                last[0] = format!("{} {}", last[0], row[0]);
            }
            Some(_) | None => {
                rows.push(row);
                row_lines.push(group[0].1);
            }
        }
    }
    Some(Table {
        section: section.to_owned(),
        line,
        header,
        rows,
        row_lines,
    })
}

fn plain(cell: &str) -> String {
    cell.replace(['`', '*'], "").to_lowercase()
}

fn kind(header: &[String]) -> Option<TableKind> {
    let h: Vec<String> = header.iter().map(|c| plain(c)).collect();
    match h.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["configuration", "routing outcome"] => Some(TableKind::RoutingPrecedence),
        ["originating event", "reason"] | ["condition", "persisted reason"] => {
            Some(TableKind::CancellationReasons)
        }
        [t, p, o]
            if (t.contains("answer type") || t == "secret")
                && p.contains("persistence")
                && (o.contains("remember") || o.contains("offered")) =>
        {
            Some(TableKind::RememberRules)
        }
        [t, p, o]
            if (t.contains("answer type") || t == "secret")
                && p.contains("persistence")
                && o.contains("cache") =>
        {
            Some(TableKind::CacheBypass)
        }
        _ => None,
    }
}

fn judge_table(t: Table, rules: &Rules) -> TableReport {
    let kind = kind(&t.header);
    let rows = match kind {
        Some(TableKind::RoutingPrecedence) => judge_precedence(&t.rows, rules),
        Some(TableKind::CancellationReasons) => t
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| judge_reason(i + 1, r, rules))
            .collect(),
        Some(k @ (TableKind::RememberRules | TableKind::CacheBypass)) => t
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| judge_reuse(k, i + 1, r, rules))
            .collect(),
        None => Vec::new(),
    };
    let rows = rows
        .into_iter()
        .map(|r| RowReport {
            line: t.row_lines.get(r.row - 1).copied().unwrap_or(t.line),
            ..r
        })
        .collect();
    TableReport {
        section: t.section,
        line: t.line,
        header: t.header,
        kind,
        rows,
    }
}

// ---------------------------------------------------------------------------
// Routing precedence
// ---------------------------------------------------------------------------

/// One routing input: static answer, target, TTY, `exclusive`.
type Inputs = (bool, QuestionTarget, bool, bool);

/// A row's condition: each input required, or `None` for any.
#[derive(Debug, Clone, Copy, Default)]
struct Condition {
    answer: Option<bool>,
    target: Option<QuestionTarget>,
    tty: Option<bool>,
    exclusive: Option<bool>,
}

impl Condition {
    fn matches(&self, (a, t, y, x): Inputs) -> bool {
        self.answer.is_none_or(|v| v == a)
            && self.target.is_none_or(|v| v == t)
            && self.tty.is_none_or(|v| v == y)
            && self.exclusive.is_none_or(|v| v == x)
    }
}

/// The outcomes the precedence table names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Static,
    Prompt,
    Backend,
    Fail,
}

impl Outcome {
    fn of(route: Route) -> Outcome {
        match route {
            Route::Static => Outcome::Static,
            Route::Prompter => Outcome::Prompt,
            Route::Backend => Outcome::Backend,
            Route::Refuse(_) => Outcome::Fail,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Outcome::Static => "uses the configured answer",
            Outcome::Prompt => "prompts the user",
            Outcome::Backend => "routes to the inquiry backend",
            Outcome::Fail => "fails the tool",
        }
    }
}

fn condition(cell: &str) -> Option<Condition> {
    let c = plain(cell);
    let mut out = Condition::default();
    let mut understood = false;
    if c.contains("questionconfig.answer") && c.contains("set") {
        out.answer = Some(true);
        understood = true;
    }
    if c.contains("target = \"user\"") {
        out.target = Some(QuestionTarget::User);
        understood = true;
    }
    if c.contains("target = \"assistant\"") {
        out.target = Some(QuestionTarget::Assistant);
        understood = true;
    }
    if c.contains("no tty") {
        out.tty = Some(false);
        understood = true;
    } else if c.contains("tty available") {
        out.tty = Some(true);
        understood = true;
    }
    if c.contains("exclusive = true") {
        out.exclusive = Some(true);
        understood = true;
    } else if c.contains("exclusive = false") {
        out.exclusive = Some(false);
        understood = true;
    }
    understood.then_some(out)
}

fn outcome(cell: &str) -> Option<Outcome> {
    let c = plain(cell);
    if c.contains("configured answer") {
        Some(Outcome::Static)
    } else if c.contains("prompt the user") {
        Some(Outcome::Prompt)
    } else if c.contains("inquiry backend") {
        Some(Outcome::Backend)
    } else if c.contains("fail the tool") {
        Some(Outcome::Fail)
    } else {
        None
    }
}

/// The profile's route for one input (a boolean question).
fn decide(rules: &Rules, (answer, target, tty, exclusive): Inputs) -> Outcome {
    let q = Question::boolean("q", "Q?").with_exclusive(exclusive);
    Outcome::of(routing::route_in(
        &rules.tables,
        answer,
        target,
        tty,
        routing::human_only(&q, rules),
    ))
}

fn describe((a, t, y, x): Inputs) -> String {
    format!(
        "answer {}, target {}, {}, exclusive {x}",
        if a { "set" } else { "unset" },
        match t {
            QuestionTarget::User => "user",
            QuestionTarget::Assistant => "assistant",
        },
        if y { "TTY" } else { "no TTY" }
    )
}

/// First match wins. For every input the table decides otherwise than the
/// profile, the deciding row disagrees, and so does the first later row
/// that says what the profile does (it lost its precedence).
fn judge_precedence(rows: &[Vec<String>], rules: &Rules) -> Vec<RowReport> {
    let parsed: Vec<Option<(Condition, Outcome)>> = rows
        .iter()
        .map(|r| Some((condition(&r[0])?, outcome(r.get(1)?)?)))
        .collect();
    let mut verdicts: Vec<Verdict> = parsed
        .iter()
        .map(|p| match p {
            Some(_) => Verdict::Agrees,
            None => Verdict::NotChecked {
                why: "the condition or outcome names nothing the model decides".to_owned(),
            },
        })
        .collect();
    // Rows after an unmapped one cannot be judged by first match.
    let judged = parsed
        .iter()
        .position(Option::is_none)
        .unwrap_or(parsed.len());
    for v in verdicts.iter_mut().skip(judged) {
        if *v == Verdict::Agrees {
            *v = Verdict::NotChecked {
                why: "it follows a row that is not checked, so what it decides is unknown"
                    .to_owned(),
            };
        }
    }
    for answer in [true, false] {
        for target in [QuestionTarget::User, QuestionTarget::Assistant] {
            for tty in [true, false] {
                for exclusive in [false, true] {
                    let input = (answer, target, tty, exclusive);
                    let Some(decider) = parsed[..judged]
                        .iter()
                        .position(|p| p.is_some_and(|(c, _)| c.matches(input)))
                    else {
                        continue;
                    };
                    let got = decide(rules, input);
                    let Some((_, said)) = parsed[decider] else {
                        continue;
                    };
                    if said == got {
                        continue;
                    }
                    if !matches!(verdicts[decider], Verdict::Disagrees { .. }) {
                        verdicts[decider] = Verdict::Disagrees {
                            profile: format!("the profile {} for {}", got.words(), describe(input)),
                        };
                    }
                    let shadowed = (decider + 1..judged)
                        .find(|&j| parsed[j].is_some_and(|(c, o)| c.matches(input) && o == got));
                    if let Some(j) = shadowed
                        && !matches!(verdicts[j], Verdict::Disagrees { .. })
                    {
                        verdicts[j] = Verdict::Disagrees {
                            profile: format!(
                                "the profile decides {} as this row says, but row {} comes first",
                                describe(input),
                                decider + 1
                            ),
                        };
                    }
                }
            }
        }
    }
    rows.iter()
        .zip(verdicts)
        .enumerate()
        .map(|(i, (r, verdict))| RowReport {
            line: 0, // placed by `judge_table`
            row: i + 1,
            cells: r.clone(),
            rules: if plain(&r[0]).contains("exclusive = true") {
                vec!["LIFE-ROUTE", "LIFE-GUARD-EXCLUSIVE"]
            } else {
                vec!["LIFE-ROUTE"]
            },
            verdict,
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Cancellation reasons
// ---------------------------------------------------------------------------

/// What a cancellation row's first cell names.
#[derive(Debug, Clone, Copy)]
enum Origin {
    /// An event the reason mapping reads directly.
    Event(NonAnswer),
    /// A routing guard: the question (secret or exclusive) and its target,
    /// without a TTY.
    Guard {
        secret: bool,
        target: QuestionTarget,
    },
    /// A static answer that does not fit.
    InvalidStatic,
    /// Prompter failures other than Ctrl-C/EOF: no terminal, I/O, format
    /// (the ones the row names; all three when it names none).
    Prompter([bool; 3]),
}

/// How the RFD 082 step 6 table names an event, for events the RFD names
/// by type (`ExecutionEvent::PromptCancelled`, `InquiryError::Provider`,
/// RFD 028's `InquiryError` variants); a refusal and a prompter failure are
/// named by their condition.
fn rfd_name(event: NonAnswer) -> Option<String> {
    let kind = match event {
        NonAnswer::PromptCancelled => return Some("ExecutionEvent::PromptCancelled".to_owned()),
        NonAnswer::PrompterFailed(_) | NonAnswer::Refused(_) => return None,
        NonAnswer::Inquiry(kind) => kind,
    };
    let variant = match kind {
        InquiryErrorKind::Cancelled => "Cancelled",
        InquiryErrorKind::Provider => "Provider",
        InquiryErrorKind::MissingStructuredData => "MissingStructuredData",
        InquiryErrorKind::AnswerExtraction => "AnswerExtraction",
        InquiryErrorKind::Other => "Other",
    };
    Some(format!("InquiryError::{variant}"))
}

fn origin(cell: &str) -> Option<Origin> {
    let c = plain(cell);
    // The events the RFD names by type, derived from the model's own
    // list: a new one is recognised once it has an RFD name.
    for event in NonAnswer::all() {
        if let Some(name) = rfd_name(event)
            && c.contains(&name.to_lowercase())
        {
            return Some(Origin::Event(event));
        }
    }
    if c.contains("questionconfig.answer") && c.contains("invalid") {
        return Some(Origin::InvalidStatic);
    }
    if c.contains("prompter") && !c.contains("answertype::secret") && !c.contains("exclusive") {
        let named = [
            c.contains("no tty") || c.contains("no terminal"),
            c.contains("i/o") || c.contains("io error"),
            c.contains("format") || c.contains("render"),
        ];
        let failure = c.contains("fail") || c.contains("error") || named.contains(&true);
        if failure {
            return Some(Origin::Prompter(if named.contains(&true) {
                named
            } else {
                [true; 3]
            }));
        }
    }
    let secret = c.contains("answertype::secret");
    let exclusive = c.contains("exclusive = true");
    if !(secret || exclusive) {
        return None;
    }
    let target = if c.contains("target = \"assistant\"") {
        QuestionTarget::Assistant
    } else if c.contains("no tty") {
        QuestionTarget::User
    } else {
        return None;
    };
    Some(Origin::Guard { secret, target })
}

/// `BackendError` → `backend_error`.
fn snake(cell: &str) -> String {
    let mut out = String::new();
    for (i, ch) in cell.replace(['`', '*'], "").trim().chars().enumerate() {
        if ch.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// The reason the profile records for a row's origin, or what it does
/// instead.
fn reason_under(origin: Origin, rules: &Rules) -> Result<String, String> {
    match rules.record {
        RecordScope::BackendOnly => {
            return Err(
                "the profile records no `cancelled` response (RFD 005: only answered backend inquiries)"
                    .to_owned(),
            );
        }
        RecordScope::EveryRoundTrip => {}
    }
    let event = match origin {
        Origin::Event(e) => e,
        Origin::Prompter(named) => {
            let reasons: Vec<String> = prompter_events(named)
                .map(|e| rules.tables.reason(e.row()).to_wire().as_str().to_owned())
                .collect();
            return match reasons.split_first() {
                Some((first, rest)) if rest.iter().all(|r| r == first) => Ok(first.clone()),
                Some(_) | None => Err(format!(
                    "the profile records {} for these prompter failures",
                    reasons.join(", ")
                )),
            };
        }
        Origin::InvalidStatic if predicates::validates_static_answers(rules) => {
            NonAnswer::Refused(Refusal::InvalidStaticAnswer)
        }
        Origin::InvalidStatic => {
            return Err("the profile uses the static answer unvalidated".to_owned());
        }
        Origin::Guard { secret, target } => {
            let mut q = Question::boolean("q", "Q?").with_exclusive(!secret);
            if secret {
                q.answer_type = AnswerType::Secret;
            }
            match routing::route_in(
                &rules.tables,
                false,
                target,
                false,
                routing::human_only(&q, rules),
            ) {
                Route::Refuse(refusal) => NonAnswer::Refused(refusal),
                Route::Static | Route::Prompter | Route::Backend => {
                    return Err("the profile routes the question to the inquiry backend".to_owned());
                }
            }
        }
    };
    Ok(routing::cancellation_reason_in(&rules.tables, event)
        .as_str()
        .to_owned())
}

/// The prompter-failure events a row names.
fn prompter_events(named: [bool; 3]) -> impl Iterator<Item = NonAnswer> {
    routing::PrompterFailure::ALL
        .into_iter()
        .zip(named)
        .filter(|(_, n)| *n)
        .map(|(f, _)| NonAnswer::PrompterFailed(f))
}

/// The events a cancellation row's origin names under `rules`, each
/// recorded through its own row of the cancellation table; `None` when a
/// switch decides whether the event happens at all (a guard the profile
/// does not have, an unvalidated static answer, a profile that records no
/// cancellation).
fn row_events(origin: Origin, rules: &Rules) -> Option<Vec<NonAnswer>> {
    match rules.record {
        RecordScope::BackendOnly => return None,
        RecordScope::EveryRoundTrip => {}
    }
    match origin {
        Origin::Event(e) => Some(vec![e]),
        Origin::Prompter(named) => Some(prompter_events(named).collect()),
        Origin::InvalidStatic => predicates::validates_static_answers(rules)
            .then_some(vec![NonAnswer::Refused(Refusal::InvalidStaticAnswer)]),
        Origin::Guard { secret, target } => {
            let mut q = Question::boolean("q", "Q?").with_exclusive(!secret);
            if secret {
                q.answer_type = AnswerType::Secret;
            }
            match routing::route_in(
                &rules.tables,
                false,
                target,
                false,
                routing::human_only(&q, rules),
            ) {
                Route::Refuse(refusal) => Some(vec![NonAnswer::Refused(refusal)]),
                Route::Static | Route::Prompter | Route::Backend => None,
            }
        }
    }
}

fn judge_reason(row: usize, cells: &[String], rules: &Rules) -> RowReport {
    let found = origin(&cells[0]);
    let rule_ids = match found {
        Some(Origin::Guard { secret: true, .. }) => vec!["LIFE-CANCEL-REASON", "LIFE-GUARD-SECRET"],
        Some(Origin::Guard { secret: false, .. }) => {
            vec!["LIFE-CANCEL-REASON", "LIFE-GUARD-EXCLUSIVE"]
        }
        Some(Origin::InvalidStatic) => vec!["LIFE-CANCEL-REASON", "LIFE-STATIC-VALIDATED"],
        Some(Origin::Prompter(_)) => vec!["LIFE-CANCEL-REASON", "LIFE-PROMPTER-FAILURE"],
        Some(Origin::Event(_)) | None => vec!["LIFE-CANCEL-REASON"],
    };
    let said = cells.get(1).map(|c| snake(c)).unwrap_or_default();
    let verdict = match found {
        None => Verdict::NotChecked {
            why: "the originating event names nothing the model maps".to_owned(),
        },
        Some(_) if said.is_empty() => Verdict::NotChecked {
            why: "no reason given".to_owned(),
        },
        Some(o) => match reason_under(o, rules) {
            Ok(r) if r == said => Verdict::Agrees,
            Ok(r) => Verdict::Disagrees {
                profile: format!("the profile records reason `{r}`"),
            },
            Err(instead) => Verdict::Disagrees { profile: instead },
        },
    };
    RowReport {
        line: 0, // placed by `judge_table`
        row,
        cells: cells.to_vec(),
        verdict,
        rules: rule_ids,
    }
}

// ---------------------------------------------------------------------------
// Remember rules and cache bypass
// ---------------------------------------------------------------------------

fn answer_types(cell: &str) -> Option<Vec<AnswerType>> {
    let select = || AnswerType::Select {
        options: vec!["a".to_owned()],
    };
    let all = || {
        vec![
            AnswerType::Boolean,
            select(),
            AnswerType::Text,
            AnswerType::Secret,
        ]
    };
    match plain(cell).trim() {
        "any" => Some(all()),
        "boolean" => Some(vec![AnswerType::Boolean]),
        "select" => Some(vec![select()]),
        "text" => Some(vec![AnswerType::Text]),
        "secret" | "yes" => Some(vec![AnswerType::Secret]),
        // A `secret` column's "no": every other type.
        "no" => Some(vec![AnswerType::Boolean, select(), AnswerType::Text]),
        _ => None,
    }
}

fn persistences(cell: &str) -> Option<Vec<AnswerReusePolicy>> {
    match plain(cell).trim().trim_start_matches("persistence:").trim() {
        "any" => Some(vec![AnswerReusePolicy::Turn, AnswerReusePolicy::None]),
        "turn" => Some(vec![AnswerReusePolicy::Turn]),
        "none" => Some(vec![AnswerReusePolicy::None]),
        _ => None,
    }
}

fn yes_no(cell: &str) -> Option<bool> {
    match plain(cell).trim() {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    }
}

/// A remember or cache row: every combination it names must get its yes/no
/// from the profile (`routing::remember_offered`, `routing::cache_eligible`).
fn judge_reuse(kind: TableKind, row: usize, cells: &[String], rules: &Rules) -> RowReport {
    let rule_ids = match kind {
        TableKind::RememberRules => vec!["LIFE-REMEMBER", "PROMPT-REMEMBER"],
        TableKind::CacheBypass | TableKind::RoutingPrecedence | TableKind::CancellationReasons => {
            vec!["LIFE-CACHE-ELIGIBLE", "LIFE-CACHE-READ-GATED"]
        }
    };
    let parsed = (|| {
        Some((
            answer_types(cells.first()?)?,
            persistences(cells.get(1)?)?,
            yes_no(cells.get(2)?)?,
        ))
    })();
    let verdict = match parsed {
        None => Verdict::NotChecked {
            why: "a cell names no answer type, persistence or yes/no".to_owned(),
        },
        Some((types, policies, said)) => {
            let mut verdict = Verdict::Agrees;
            'all: for t in &types {
                for p in &policies {
                    let mut q = Question::boolean("q", "Q?").with_persistence(*p);
                    q.answer_type = t.clone();
                    let got = match kind {
                        TableKind::RememberRules => routing::remember_offered(&q, rules),
                        TableKind::CacheBypass
                        | TableKind::RoutingPrecedence
                        | TableKind::CancellationReasons => routing::cache_eligible(
                            routing::is_secret(&q, rules),
                            *p,
                            rules.persistence_gate,
                        ),
                    };
                    if got != said {
                        let ty = serde_json::to_value(t).unwrap_or(Value::Null);
                        verdict = Verdict::Disagrees {
                            profile: format!(
                                "the profile says {} for a {} question with persistence {}",
                                if got { "yes" } else { "no" },
                                ty.get("type").and_then(Value::as_str).unwrap_or("?"),
                                match p {
                                    AnswerReusePolicy::Turn => "turn",
                                    AnswerReusePolicy::None => "none",
                                }
                            ),
                        };
                        break 'all;
                    }
                }
            }
            verdict
        }
    };
    RowReport {
        line: 0, // placed by `judge_table`
        row,
        cells: cells.to_vec(),
        verdict,
        rules: rule_ids,
    }
}

/// Cells joined for a code span of the text report: their own Markdown
/// code marks dropped, so the span is not broken into doubled backticks.
fn plain_cells(cells: &[String]) -> String {
    cells
        .iter()
        .map(|c| c.replace('`', ""))
        .collect::<Vec<_>>()
        .join(" | ")
}

// ---------------------------------------------------------------------------
// JSON examples
// ---------------------------------------------------------------------------

fn judge_block(b: &Block) -> Vec<ExampleReport> {
    let report = |index, verdict, rules: Vec<&'static str>| ExampleReport {
        section: b.section.clone(),
        line: b.line,
        index,
        verdict,
        rules,
    };
    if b.lang != "json" {
        return vec![report(
            1,
            Verdict::NotChecked {
                why: format!("`{}` blocks are schematic", b.lang),
            },
            vec![],
        )];
    }
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(&b.body).into_iter::<Value>();
    let mut start = 0;
    let mut index = 0;
    loop {
        let next = stream.next();
        let end = stream.byte_offset();
        let Some(next) = next else { break };
        index += 1;
        let shown = b.body[start..end].trim();
        // The example's own line: the fence's, plus the lines of the body
        // before its first character (the body starts on the next line).
        let first = start + (b.body[start..end].len() - b.body[start..end].trim_start().len());
        let line = b.line + 1 + b.body[..first].matches('\n').count();
        start = end;
        let v = match next {
            Ok(v) => v,
            Err(e) => {
                out.push(ExampleReport {
                    line,
                    ..report(
                        index,
                        Verdict::Disagrees {
                            profile: format!("not JSON: {e}"),
                        },
                        vec!["WIRE-RFD-EXAMPLES"],
                    )
                });
                break;
            }
        };
        out.push(ExampleReport {
            line,
            ..judge_value(index, shown, &v, &report)
        });
    }
    out
}

fn judge_value(
    index: usize,
    shown: &str,
    v: &Value,
    report: &dyn Fn(usize, Verdict, Vec<&'static str>) -> ExampleReport,
) -> ExampleReport {
    let is_response = v.get("outcome").is_some()
        || (v.get("id").is_some()
            && v.get("answer").is_some()
            && v.as_object().is_some_and(|m| m.len() == 2));
    if !is_response {
        return report(
            index,
            Verdict::NotChecked {
                why: "not an `InquiryResponse`".to_owned(),
            },
            vec![],
        );
    }
    let legacy = v.get("outcome").is_none();
    let rules = if legacy {
        vec!["WIRE-RESP-LEGACY"]
    } else {
        vec!["WIRE-RESP-TAGGED"]
    };
    let read: Result<InquiryResponse, _> = serde_json::from_str(shown);
    let verdict = match read {
        Err(e) => Verdict::Disagrees {
            profile: format!("the reader refuses it: {e}"),
        },
        // RFD 082 "Reader behavior": the flat form reads as `Answered` and
        // is written tagged; reading it is the check.
        Ok(InquiryResponse::Answered { .. }) if legacy => Verdict::Agrees,
        Ok(r) if legacy => Verdict::Disagrees {
            profile: format!("the flat form reads as {r:?}"),
        },
        Ok(r) => match serde_json::to_string_pretty(&r) {
            Ok(written) if written == shown => Verdict::Agrees,
            Ok(written) => Verdict::Disagrees {
                profile: format!("written back as {}", written.replace('\n', " ")),
            },
            Err(e) => Verdict::Disagrees {
                profile: format!("cannot be written: {e}"),
            },
        },
    };
    report(index, verdict, rules)
}

// ---------------------------------------------------------------------------
// Normative prose
// ---------------------------------------------------------------------------

/// A normative sentence as read: heading, first line, text.
struct Sentence {
    section: String,
    line: usize,
    text: String,
}

/// Whether a sentence says what must or must not be (RFC 2119's MUST, MUST
/// NOT, SHOULD, SHOULD NOT, upper case as the RFDs write them; "never" and
/// "always" in any case).
fn is_normative(sentence: &str) -> bool {
    let words: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| {
        matches!(*w, "MUST" | "SHOULD")
            || w.eq_ignore_ascii_case("never")
            || w.eq_ignore_ascii_case("always")
    })
}

/// The normative sentences of the prose: outside fenced blocks and
/// tables, paragraphs joined, split after `.`, `!` or `?` followed by
/// white space (a `.` inside a code span does not end a sentence).
fn normative_sentences(text: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut heading = String::from("(before the first heading)");
    let mut fenced = false;
    let mut table = false;
    // The paragraph's (line, text) pieces.
    let mut para: Vec<(usize, String)> = Vec::new();
    let flush = |para: &mut Vec<(usize, String)>, heading: &str, out: &mut Vec<Sentence>| {
        for (line, sentence) in sentences_of(para) {
            if is_normative(&sentence) {
                out.push(Sentence {
                    section: heading.to_owned(),
                    line,
                    text: sentence,
                });
            }
        }
        para.clear();
    };
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if raw.starts_with("```") {
            flush(&mut para, &heading, &mut out);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if t.is_empty() {
            flush(&mut para, &heading, &mut out);
            table = false;
            continue;
        }
        if t.starts_with('|') || table {
            // A table runs to the next blank line (reflowed rows included).
            flush(&mut para, &heading, &mut out);
            table = true;
            continue;
        }
        if raw.starts_with('#') {
            flush(&mut para, &heading, &mut out);
            heading = t.to_owned();
            continue;
        }
        if t.starts_with("<!--") {
            continue;
        }
        // A list item starts a sentence of its own.
        if t.starts_with("- ")
            || t.starts_with("* ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
        {
            flush(&mut para, &heading, &mut out);
        }
        para.push((i + 1, t.to_owned()));
    }
    flush(&mut para, &heading, &mut out);
    out
}

/// A paragraph's sentences, each with the line it starts on.
fn sentences_of(para: &[(usize, String)]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut code = false;
    for (line, piece) in para {
        let chars: Vec<char> = piece.chars().collect();
        for (k, &ch) in chars.iter().enumerate() {
            if current.is_empty() {
                if ch.is_whitespace() {
                    continue;
                }
                start = *line;
            }
            current.push(ch);
            if ch == '`' {
                code = !code;
            }
            let ends = !code
                && matches!(ch, '.' | '!' | '?')
                && chars.get(k + 1).is_none_or(|c| c.is_whitespace())
                && !current.ends_with("e.g.")
                && !current.ends_with("i.e.");
            if ends {
                out.push((start, std::mem::take(&mut current)));
            }
        }
        if !current.is_empty() {
            current.push(' ');
        }
    }
    let rest = current.trim();
    if !rest.is_empty() {
        out.push((start, rest.to_owned()));
    }
    out
}

/// The switch a sentence states, if the tool can tie it to one: `(switch,
/// value)`. Only a sentence that says a question ID must not hold `.` is
/// tied, to `question_id_separator = refused` (decision "IDs: the
/// separator sentence is the separator switch" in `spec/DECISIONS.md`).
fn tied_switch(sentence: &str) -> Option<(&'static str, &'static str)> {
    let c = sentence.replace(['*'], "").to_lowercase();
    let question_id = c.contains("question_id") || c.contains("question id");
    let dot = c.contains("`.`") || c.contains("\".\"") || c.contains("'.'");
    (question_id && c.contains("must not contain") && dot)
        .then_some(("question_id_separator", "refused"))
}

fn judge_sentence(s: Sentence, rules: &Rules) -> SentenceReport {
    let tie = tied_switch(&s.text);
    let verdict = match tie {
        None => Verdict::NotChecked {
            why: "normative prose no decision of the model reads".to_owned(),
        },
        Some((k, v)) => {
            let got = crate::review::profile_file::switches_of(rules)
                .get(k)
                .and_then(|x| x.as_str().map(str::to_owned))
                .unwrap_or_default();
            if got == v {
                Verdict::Agrees
            } else {
                Verdict::Disagrees {
                    profile: format!("the profile has {k} = {got}"),
                }
            }
        }
    };
    SentenceReport {
        section: s.section,
        line: s.line,
        text: s.text,
        switch: tie.map(|(k, v)| (k.to_owned(), v.to_owned())),
        verdict,
    }
}

// ---------------------------------------------------------------------------
// The profile file that agrees with the text (`--write-profile`)
// ---------------------------------------------------------------------------

/// What `rfd-check --write-profile` derives from a text and a base (rule
/// `AMEND-WRITE-PROFILE`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Amendment {
    /// The base's rules with every amended row and tied switch applied.
    pub(crate) rules: Rules,
    /// Where each amended row (`table.row`) and switch came from: `FILE:LINE`.
    pub(crate) from: std::collections::BTreeMap<String, String>,
    /// Disagreeing rows the tool could not turn into a table row or switch,
    /// each `(line, why)`.
    pub(crate) not_written: Vec<(usize, String)>,
}

/// The amendment of `base` whose tables agree with `text`: each
/// cancellation row that disagrees with `base` on an event the base
/// records becomes an amended row of the cancellation table (with its
/// non-answer response row where the reason fails the tool), each routing
/// precedence row that decides an input otherwise an amended row of the
/// route table, and each sentence tied to a switch sets it. Other
/// disagreements are listed as not written, with the reason: a switch
/// decides whether the event happens, the base's switches do not tell the
/// inputs of one route row apart, or no table of a profile file holds the
/// row (remember, cache). `origin` names the text in `from`.
pub(crate) fn amendment(text: &str, base: &Rules, origin: &str) -> Amendment {
    let mut rules = *base;
    let mut from = std::collections::BTreeMap::new();
    let mut not_written = Vec::new();
    for t in tables(text) {
        let kind = kind(&t.header);
        for (i, row) in t.rows.iter().enumerate() {
            let line = t.row_lines.get(i).copied().unwrap_or(t.line);
            match kind {
                Some(TableKind::CancellationReasons) => {
                    let report = judge_reason(i + 1, row, base);
                    if !matches!(report.verdict, Verdict::Disagrees { .. }) {
                        continue;
                    }
                    let said = row.get(1).map(|c| snake(c)).unwrap_or_default();
                    let events = origin_of(&row[0]).and_then(|o| row_events(o, base));
                    let Some(events) = events else {
                        not_written.push((
                            line,
                            "a switch decides whether this event happens, not a row".to_owned(),
                        ));
                        continue;
                    };
                    for e in events {
                        let name = e.name();
                        match rules.tables.set(AmendedTable::Cancellation, &name, &said) {
                            Ok(()) => {
                                from.insert(
                                    format!("cancellation.{name}"),
                                    format!("{origin}:{line}"),
                                );
                            }
                            Err(why) => {
                                not_written.push((line, why));
                                continue;
                            }
                        }
                        // A reason that fails the tool answers the call
                        // with an error (decision "Routing: an amended
                        // reason that fails the tool makes the response an
                        // error"): the response row follows.
                        let fails = rules.tables.reason(e.row()).to_wire().fails_tool();
                        let quiet = matches!(
                            rules.tables.response(e.row()),
                            crate::profile::tables::Response::CancelledByUser
                        );
                        if fails
                            && quiet
                            && rules
                                .tables
                                .set(AmendedTable::NonAnswerResponse, &name, "inquiry_failed")
                                .is_ok()
                        {
                            from.insert(
                                format!("non_answer_response.{name}"),
                                format!("{origin}:{line}"),
                            );
                        }
                    }
                }
                Some(
                    TableKind::RoutingPrecedence
                    | TableKind::RememberRules
                    | TableKind::CacheBypass,
                )
                | None => {}
            }
        }
        if kind == Some(TableKind::RoutingPrecedence) {
            let (rows, refused) = route_rows(&t, base);
            for (row, to, line) in rows {
                let value = serde_json::to_value(to)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let name = crate::profile::tables::ROUTE_ROWS[row];
                match rules.tables.set(AmendedTable::Route, name, &value) {
                    Ok(()) => {
                        from.insert(format!("route.{name}"), format!("{origin}:{line}"));
                    }
                    Err(why) => not_written.push((line, why)),
                }
            }
            not_written.extend(refused);
        }
        if let Some(k @ (TableKind::RememberRules | TableKind::CacheBypass)) = kind {
            let report = judge_table(t.clone(), base);
            for r in report.rows {
                if matches!(r.verdict, Verdict::Disagrees { .. }) {
                    not_written.push((
                        r.line,
                        format!(
                            "a {} row: no table of a profile file holds it (the tables are \
                             cancellation, non_answer_response and route); switches decide it",
                            match k {
                                TableKind::RememberRules => "remember",
                                TableKind::CacheBypass
                                | TableKind::RoutingPrecedence
                                | TableKind::CancellationReasons => "cache",
                            }
                        ),
                    ));
                }
            }
        }
    }
    for s in normative_sentences(text) {
        if let Some((k, v)) = tied_switch(&s.text) {
            let mut m = crate::review::profile_file::switches_of(&rules);
            m.insert(k.to_owned(), Value::String(v.to_owned()));
            match serde_json::from_value::<Rules>(Value::Object(m)) {
                Ok(r) => {
                    let tables = rules.tables;
                    rules = Rules { tables, ..r };
                    from.insert(k.to_owned(), format!("{origin}:{}", s.line));
                }
                Err(e) => not_written.push((s.line, e.to_string())),
            }
        }
    }
    Amendment {
        rules,
        from,
        not_written,
    }
}

/// The route-table rows a routing precedence table states otherwise than
/// `base`: for every input the table decides (first match, as
/// [`judge_precedence`] reads it) otherwise than the base, the route row
/// the model reads for that input set to what the deciding row says,
/// `(row, route, line of the deciding row)`. Where the base's switches
/// send inputs the text decides two ways to one route row (an `exclusive`
/// the profile does not read), the deciding row is listed `(line, why)`.
/// A row failing the tool becomes the refusal of its target's guard.
fn route_rows(t: &Table, base: &Rules) -> (Vec<RouteRow>, Vec<(usize, String)>) {
    use crate::profile::tables::RouteTo;
    let parsed: Vec<Option<(Condition, Outcome)>> = t
        .rows
        .iter()
        .map(|r| Some((condition(&r[0])?, outcome(r.get(1)?)?)))
        .collect();
    let judged = parsed
        .iter()
        .position(Option::is_none)
        .unwrap_or(parsed.len());
    let line_of = |i: usize| t.row_lines.get(i).copied().unwrap_or(t.line);
    // Per route row: the value the text gives it and the deciding row.
    let mut wanted: std::collections::BTreeMap<usize, (RouteTo, usize)> =
        std::collections::BTreeMap::new();
    let mut refused: Vec<(usize, String)> = Vec::new();
    let mut conflicting = std::collections::BTreeSet::new();
    for answer in [true, false] {
        for target in [QuestionTarget::User, QuestionTarget::Assistant] {
            for tty in [true, false] {
                for exclusive in [false, true] {
                    let input = (answer, target, tty, exclusive);
                    let Some(decider) = parsed[..judged]
                        .iter()
                        .position(|p| p.is_some_and(|(c, _)| c.matches(input)))
                    else {
                        continue;
                    };
                    let Some((_, said)) = parsed[decider] else {
                        continue;
                    };
                    let q = Question::boolean("q", "Q?").with_exclusive(exclusive);
                    let row =
                        routing::route_row(answer, target, tty, routing::human_only(&q, base));
                    let to = match (said, target) {
                        (Outcome::Static, _) => RouteTo::Static,
                        (Outcome::Prompt, _) => RouteTo::Prompter,
                        (Outcome::Backend, _) => RouteTo::Backend,
                        (Outcome::Fail, QuestionTarget::User) => RouteTo::RefusedNoTty,
                        (Outcome::Fail, QuestionTarget::Assistant) => {
                            RouteTo::RefusedAssistantTarget
                        }
                    };
                    match wanted.get(&row) {
                        Some((other, _)) if *other != to => {
                            conflicting.insert(row);
                        }
                        Some(_) => {}
                        None => {
                            wanted.insert(row, (to, line_of(decider)));
                        }
                    }
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (row, (to, line)) in wanted {
        let name = crate::profile::tables::ROUTE_ROWS[row];
        if conflicting.contains(&row) {
            refused.push((
                line,
                format!(
                    "the text decides inputs of route row `{name}` two ways, which the \
                     profile's switches do not tell apart (`exclusive` makes a question \
                     human-only only where the `exclusive` switch is on): a switch decides it, \
                     not a row"
                ),
            ));
        } else if base.tables.route(row) != to {
            rows.push((row, to, line));
        }
    }
    refused.sort();
    refused.dedup();
    (rows, refused)
}

/// A route-table row to write: its index in `ROUTE_ROWS`, its route, and
/// the line of the text's deciding row.
type RouteRow = (usize, crate::profile::tables::RouteTo, usize);

fn origin_of(cell: &str) -> Option<Origin> {
    origin(cell)
}

#[cfg(test)]
mod rfd_check_tests;
