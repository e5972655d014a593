//! `inquiry-model run`: a scenario's trace as JSON.

use super::*;

/// `inquiry-model run`.
#[derive(Args, Debug)]
#[command(after_help = "\
The scenario is a JSON document (see spec/vectors/*.json, field `scenario`, \
for examples). The trace printed is JSON: the persisted stream as the \
profile's writer puts it on disk, every tool invocation with the answers it \
received, every prompt shown, every inquiry-backend call, how each question \
was resolved, the remembered keys at each turn's end, and every tool \
response. The answer of a question a tool asks as `secret` is masked where \
it sits (the prompter's or backend's reply, the answers the tool received, \
the persisted response, a leak the scan finds in the stream), in both \
formats: `<secret 1>`, `<secret 2>`, numbered in the order the scenario \
types them, so equal masks are equal answers. --reveal-secrets prints the \
values the scenario typed.")]
pub(crate) struct RunArgs {
    /// The scenario file (or a conformance vector, whose `scenario` is run),
    /// or `-` for stdin.
    pub(crate) scenario: PathBuf,
    /// Run under this profile instead of the scenario's own: `legacy`,
    /// `rfd082`, `rfd083` or a profile file.
    #[arg(long, value_parser = profile_parser())]
    pub(crate) profile: Option<RuleSet>,
    /// `json`: the trace; `mermaid`: a sequence diagram of the run (tool,
    /// coordinator, prompter, inquiry backend, persisted stream).
    #[arg(long, value_enum, default_value_t = RunFormat::Json)]
    pub(crate) format: RunFormat,
    /// Print the secret answers as the scenario typed them (they are the
    /// scenario's own input) instead of `<secret n>`.
    #[arg(long)]
    pub(crate) reveal_secrets: bool,
}

/// Output formats of `run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RunFormat {
    /// The trace as JSON.
    Json,
    /// A Mermaid sequence diagram.
    Mermaid,
}

/// `run`: prints the trace of a scenario as JSON.
pub(crate) fn run_command(args: RunArgs) -> i32 {
    let name = if args.scenario.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        args.scenario.display().to_string()
    };
    let text = match read_input(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("inquiry-model: {e}");
            return EXIT_UNUSABLE;
        }
    };
    // A conformance vector holds its scenario under `scenario`.
    let text = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(mut m)) if m.contains_key("expected") && m.contains_key("scenario") => {
            m.remove("scenario").map(|v| v.to_string()).unwrap_or(text)
        }
        Ok(_) | Err(_) => text,
    };
    let mut s: Scenario = match serde_json::from_str(&text) {
        Ok(s) => s,
        Err(_) if looks_like_stream(&text) => {
            eprintln!(
                "inquiry-model: {name}: not a scenario: it looks like an event stream (a JSON \
                 array of events or JSON Lines); `inquiry-model check {name}` judges a stream, \
                 `run` takes a scenario (see spec/vectors/*.json, field `scenario`)"
            );
            return EXIT_UNUSABLE;
        }
        Err(e) => {
            eprintln!(
                "inquiry-model: {name}: line {}, column {}: not a scenario: {}",
                e.line(),
                e.column(),
                strip(&e.to_string())
            );
            return EXIT_UNUSABLE;
        }
    };
    let rules = match &args.profile {
        Some(p) => {
            s.profile = p.judged_as;
            p.rules
        }
        None => s.profile.rules(),
    };
    if args.format == RunFormat::Mermaid {
        let drawn = if args.reveal_secrets {
            crate::review::mermaid::sequence_revealed(&s, rules)
        } else {
            crate::review::mermaid::sequence(&s, rules)
        };
        return match drawn {
            Ok(d) => {
                out_raw!("{d}");
                EXIT_OK
            }
            Err(e) => {
                eprintln!("inquiry-model: {name}: the scenario cannot run: {e}");
                EXIT_UNUSABLE
            }
        };
    }
    match scenario::run_under(&s, rules, Default::default(), &mut |_, _| {}) {
        Ok(t) => {
            let v = if args.reveal_secrets {
                let mut v = serde_json::to_value(&t).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert("stream".to_owned(), t.persisted_json());
                }
                v
            } else {
                crate::masks::mask(&t).to_json()
            };
            out!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            EXIT_OK
        }
        Err(ScenarioError::Unacceptable(m)) => {
            eprintln!("inquiry-model: {name}: the scenario cannot run: {m}");
            EXIT_UNUSABLE
        }
        // Exit 2 as before (the run produced nothing usable), but the message
        // says the fault is the model's, not the scenario's.
        Err(ScenarioError::Crash(m)) => {
            eprintln!(
                "inquiry-model: {name}: the model crashed on this scenario (a bug in \
                 inquiry-model, not in the scenario; please report it with the scenario): {m}"
            );
            EXIT_UNUSABLE
        }
    }
}

/// Whether `text` has an event stream's layout rather than a scenario's: a
/// JSON array (a scenario is an object), or objects carrying `type` (every
/// stream event does, rule `WIRE-EVENT-SHAPE`; no scenario field is called
/// so), whole or as the first of JSON Lines.
fn looks_like_stream(text: &str) -> bool {
    let event = |v: &Value| v.as_object().is_some_and(|m| m.contains_key("type"));
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(_)) => true,
        Ok(v) => event(&v),
        Err(_) => text
            .lines()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| serde_json::from_str::<Value>(l).ok())
            .is_some_and(|v| event(&v)),
    }
}

fn strip(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}
