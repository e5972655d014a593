//! The turn's remembered answers and per-turn state (RFD 082 "Splitting the
//! turn-cache state", `TurnState`). Keys are [`crate::model::cache_key::CacheKey`]'s.

use crate::model::tool::Map;
use serde_json::Value;

use crate::profile::TurnCacheShape;

/// The turn's remembered answers (RFD 082 "Splitting the turn-cache state").
#[derive(Debug, Clone, PartialEq)]
pub enum TurnCache {
    /// RFD 082: one map per caller.
    Split {
        /// Tool-question answers, keyed `<tool_name>.<question_id>`
        /// ([`crate::model::cache_key::CacheKey::Answer`]).
        remembered_tool_answers: Map<String, Value>,
        /// Permission decisions, keyed `<tool_name>.__permission__`
        /// ([`crate::model::cache_key::CacheKey::Permission`]).
        remembered_permission_decisions: Map<String, Value>,
    },
    /// Pre-082: both callers share one map.
    Combined {
        /// Everything remembered, keyed as above.
        persisted_inquiry_responses: Map<String, Value>,
    },
}

impl TurnCache {
    pub(super) fn new(shape: TurnCacheShape) -> Self {
        match shape {
            TurnCacheShape::Split => TurnCache::Split {
                remembered_tool_answers: Map::default(),
                remembered_permission_decisions: Map::default(),
            },
            TurnCacheShape::Combined => TurnCache::Combined {
                persisted_inquiry_responses: Map::default(),
            },
        }
    }

    /// The map tool answers are read from and written to.
    pub fn tool_answers(&self) -> &Map<String, Value> {
        match self {
            TurnCache::Split {
                remembered_tool_answers,
                ..
            } => remembered_tool_answers,
            TurnCache::Combined {
                persisted_inquiry_responses,
            } => persisted_inquiry_responses,
        }
    }

    /// The map permission decisions are read from and written to.
    pub fn permission_decisions(&self) -> &Map<String, Value> {
        match self {
            TurnCache::Split {
                remembered_permission_decisions,
                ..
            } => remembered_permission_decisions,
            TurnCache::Combined {
                persisted_inquiry_responses,
            } => persisted_inquiry_responses,
        }
    }

    pub(crate) fn tool_answers_mut(&mut self) -> &mut Map<String, Value> {
        match self {
            TurnCache::Split {
                remembered_tool_answers,
                ..
            } => remembered_tool_answers,
            TurnCache::Combined {
                persisted_inquiry_responses,
            } => persisted_inquiry_responses,
        }
    }

    pub(crate) fn permission_decisions_mut(&mut self) -> &mut Map<String, Value> {
        match self {
            TurnCache::Split {
                remembered_permission_decisions,
                ..
            } => remembered_permission_decisions,
            TurnCache::Combined {
                persisted_inquiry_responses,
            } => persisted_inquiry_responses,
        }
    }
}

/// Per-turn state (RFD 082 `TurnState`): built fresh at every turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnState {
    /// The attempt counter per `(tool_call_id, question_id)` (rule
    /// `LIFE-ATTEMPT-COUNTER`).
    pub(crate) attempts: Map<(String, String), u32>,
    /// The remembered answers.
    pub cache: TurnCache,
}
