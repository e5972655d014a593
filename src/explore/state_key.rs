//! The coordinator's structural state key: what a state search hashes to
//! recognise a coordinator state it has met (docs/decisions/exploration.md
//! "Exploration: deduplicated states hold their history"), read through
//! the coordinator's view. Plain fields are hashed as they are, JSON values
//! and wire types by their serialization.

use std::hash::{Hash, Hasher};

use crate::model::tool::Map;
use serde_json::Value;

use crate::model::coordinator::{
    Coordinator, ExecutingTool, Held, Status, TurnCache, TurnState, View,
};
use crate::scenario::state_key::hash_serialized;

/// Hashes the coordinator's state a step can change (the persisted count,
/// the turn state, the executing calls with their held answers and what
/// they wait on), structurally: a state search compares states of one root,
/// whose rules, TTY and tools are fixed. Held secret answers are hashed
/// too (the key never leaves memory), so the key is never coarser than
/// the state.
pub(crate) fn coordinator_key<H: Hasher>(coordinator: &Coordinator, h: &mut H) {
    // Destructured so that a new field must be placed here.
    let View {
        tools: _,
        turn,
        executing,
    } = coordinator.view();
    coordinator.persisted_len().hash(h);
    match turn {
        None => h.write_u8(0),
        Some(TurnState { attempts, cache }) => {
            h.write_u8(1);
            h.write_usize(attempts.len());
            for (key, n) in attempts {
                key.hash(h);
                n.hash(h);
            }
            let maps: [&Map<String, Value>; 2] = match cache {
                TurnCache::Split {
                    remembered_tool_answers,
                    remembered_permission_decisions,
                } => {
                    h.write_u8(0);
                    [remembered_tool_answers, remembered_permission_decisions]
                }
                TurnCache::Combined {
                    persisted_inquiry_responses,
                } => {
                    h.write_u8(1);
                    [persisted_inquiry_responses, persisted_inquiry_responses]
                }
            };
            for map in maps {
                h.write_usize(map.len());
                for (key, value) in map {
                    key.hash(h);
                    hash_serialized(value, h);
                }
            }
        }
    }
    h.write_usize(executing.len());
    for t in executing {
        let ExecutingTool {
            call,
            // Found from `call.tool`, which is read here.
            spec: _,
            accumulated_answers,
            status,
        } = t;
        hash_serialized(call, h);
        h.write_usize(accumulated_answers.len());
        for (id, Held { value, secret }) in accumulated_answers {
            id.hash(h);
            secret.hash(h);
            hash_serialized(value, h);
        }
        match status {
            Status::AwaitingPermission => h.write_u8(0),
            Status::Running => h.write_u8(1),
            Status::AwaitingPrompt {
                inquiry_id,
                question,
            } => {
                h.write_u8(2);
                inquiry_id.hash(h);
                hash_serialized(question, h);
            }
            Status::AwaitingBackend {
                inquiry_id,
                question,
                answer_type,
            } => {
                h.write_u8(3);
                inquiry_id.hash(h);
                hash_serialized(question, h);
                hash_serialized(answer_type, h);
            }
            Status::AwaitingDelivery { content, kind } => {
                h.write_u8(4);
                content.hash(h);
                kind.hash(h);
            }
            Status::Done => h.write_u8(5),
        }
    }
}

#[cfg(test)]
mod state_key_tests;
