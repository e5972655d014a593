//! The secret scan's walks over the coordinator's state (rule
//! `INV-SECRET-NEVER-PERSISTED`): every text it holds outside the places a
//! secret may live in memory, read through [`Coordinator`]'s view.

use serde::Serialize;
use serde_json::Value;

use crate::model::coordinator::{
    Coordinator, ExecutingTool, Held, Status, ToolSpec, TurnState, View,
};
use crate::model::tool::QuestionConfig;

/// Visits every text the coordinator holds that no step changes: the
/// tools' names and their question configuration, but the configured
/// static answers. With [`moving_texts`] it visits every
/// text of its state outside the two places RFD 082 lets a secret live
/// in memory: a configured static answer (step 3 applies it and records
/// `Redacted`) and the answers held for a running tool (step 5: "The
/// answer is delivered to the tool in-memory"). A secret found among
/// them has leaked (rule `INV-SECRET-NEVER-PERSISTED`).
pub(crate) fn fixed_texts(coordinator: &Coordinator, visit: &mut dyn FnMut(&str)) {
    // Destructured so that a new field must be placed in one walk.
    let View {
        tools,
        turn: _,
        executing: _,
    } = coordinator.view();
    for (name, spec) in tools {
        visit(name);
        let ToolSpec {
            source: _,
            questions,
            run: _,
            result: _,
        } = spec;
        for (id, config) in questions.iter() {
            visit(id);
            let QuestionConfig {
                target: _,
                answer: _,
                prompt_label,
            } = config;
            if let Some(label) = prompt_label {
                visit(label);
            }
        }
    }
}

/// Visits every text of the state a step can change (the turn's
/// attempt counters and remembered maps, the executing calls, what they
/// wait on, and the answers held for them but the secret ones); see
/// [`fixed_texts`].
pub(crate) fn moving_texts(coordinator: &Coordinator, visit: &mut dyn FnMut(&str)) {
    let View {
        tools: _,
        turn,
        executing,
    } = coordinator.view();
    if let Some(TurnState { attempts, cache }) = turn {
        for (call, question) in attempts.keys() {
            visit(call);
            visit(question);
        }
        let remembered = cache.tool_answers().iter();
        for (key, value) in remembered.chain(cache.permission_decisions()) {
            visit(key);
            visit_value(value, visit);
        }
    }
    for t in executing {
        let ExecutingTool {
            call,
            // Found from `call.tool`, which is read here.
            spec: _,
            accumulated_answers,
            status,
        } = t;
        visit(&call.id);
        visit(&call.tool);
        visit_value(&call.arguments, visit);
        for (id, Held { value, secret }) in accumulated_answers {
            visit(id);
            if !secret {
                visit_value(value, visit);
            }
        }
        match status {
            Status::AwaitingPermission | Status::Running | Status::Done => {}
            Status::AwaitingPrompt {
                inquiry_id,
                question,
            } => {
                if let Some(id) = inquiry_id {
                    visit(id.as_str());
                }
                visit_serialized(question, visit);
            }
            Status::AwaitingBackend {
                inquiry_id,
                question,
                answer_type,
            } => {
                if let Some(id) = inquiry_id {
                    visit(id.as_str());
                }
                visit_serialized(question, visit);
                visit_serialized(answer_type, visit);
            }
            Status::AwaitingDelivery { content, kind: _ } => visit(content),
        }
    }
}

/// Visits the strings of a JSON value: its string leaves and object keys.
fn visit_value(value: &Value, visit: &mut dyn FnMut(&str)) {
    match value {
        Value::String(s) => visit(s),
        Value::Array(items) => items.iter().for_each(|v| visit_value(v, visit)),
        Value::Object(map) => {
            for (k, v) in map {
                visit(k);
                visit_value(v, visit);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Visits the strings of a value's serialized form.
fn visit_serialized<T: Serialize>(value: &T, visit: &mut dyn FnMut(&str)) {
    if let Ok(v) = serde_json::to_value(value) {
        visit_value(&v, visit);
    }
}

#[cfg(test)]
mod state_texts_tests;
