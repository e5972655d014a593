//! A faulty repair: [`sanitize_across_turns`], which pairs inquiries across
//! turn boundaries (one ID set for the whole stream), the pre-082 repair
//! RFD 082 Phase 3 ("Make inquiry-orphan repair in
//! `ConversationStream::sanitize()` turn-scoped") replaces. The fault
//! matrix shows the `STREAM-SANITIZE` properties catch it.

use std::collections::{HashMap, VecDeque};

use crate::stream::{Injected, Orphan, Removed, Sanitized, sanitize, turns};
use crate::wire::{Event, InquiryId};

/// [`sanitize`](fn@sanitize) with one fault: inquiries pair by order over the whole
/// stream instead of within their turn. Tool calls are repaired as
/// [`sanitize`](fn@sanitize) repairs them (their fault is not this one): the correct
/// repair's tool-call removals and injections are kept, and only the fate
/// of inquiry events changes. A request that nothing answers anywhere in
/// the stream is still removed, so the fault breaks turn scoping
/// (`STREAM-SANITIZE-TURN-SCOPED`) and nothing else.
pub fn sanitize_across_turns(events: Vec<Event>) -> Sanitized {
    let correct = sanitize(events.clone());
    let turn_of: Vec<usize> = {
        let mut of = vec![0; events.len()];
        for t in turns(&events) {
            of[t.start..t.end].fill(t.index);
        }
        of
    };
    // Stream-wide by-order pairing of inquiries: the fault.
    let mut inquiry_fate: HashMap<usize, Orphan> = HashMap::new();
    let mut waiting: HashMap<&InquiryId, VecDeque<usize>> = HashMap::new();
    let mut is_inquiry = vec![false; events.len()];
    for (i, e) in events.iter().enumerate() {
        if let Some(request) = e.as_inquiry_request() {
            is_inquiry[i] = true;
            waiting.entry(&request.id).or_default().push_back(i);
        } else if let Some(response) = e.as_inquiry_response() {
            is_inquiry[i] = true;
            let paired = waiting.get_mut(response.id()).and_then(VecDeque::pop_front);
            if paired.is_none() {
                inquiry_fate.insert(i, Orphan::InquiryResponse);
            }
        }
    }
    for i in waiting.into_values().flatten() {
        inquiry_fate.insert(i, Orphan::InquiryRequest);
    }
    // The correct repair's tool-call fates.
    let tool_fate: HashMap<usize, Orphan> = correct
        .removed
        .iter()
        .filter(|r| matches!(r.reason, Orphan::ToolCallResponse))
        .map(|r| (r.index, r.reason))
        .collect();
    // Each injection lands before the input event that follows it in the
    // correct output (or at the end).
    let mut injections: Vec<(usize, Injected, Event)> = Vec::new();
    for inj in &correct.injected {
        let before = correct.origin[inj.at..]
            .iter()
            .find_map(|o| *o)
            .unwrap_or(events.len());
        injections.push((before, *inj, correct.events[inj.at].clone()));
    }
    let mut injections = injections.into_iter().peekable();
    let mut out = Sanitized {
        events: Vec::with_capacity(events.len()),
        origin: Vec::with_capacity(events.len()),
        removed: Vec::new(),
        injected: Vec::new(),
    };
    for (i, e) in events.into_iter().enumerate() {
        while let Some((_, inj, event)) = injections.next_if(|(before, ..)| *before <= i) {
            out.injected.push(Injected {
                at: out.events.len(),
                ..inj
            });
            out.origin.push(None);
            out.events.push(event);
        }
        let fate = match is_inquiry[i] {
            true => inquiry_fate.get(&i),
            false => tool_fate.get(&i),
        };
        match fate {
            Some(&reason) => out.removed.push(Removed {
                index: i,
                turn: turn_of[i],
                reason,
            }),
            None => {
                out.origin.push(Some(i));
                out.events.push(e);
            }
        }
    }
    for (_, inj, event) in injections {
        out.injected.push(Injected {
            at: out.events.len(),
            ..inj
        });
        out.origin.push(None);
        out.events.push(event);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn event(v: Value) -> Event {
        serde_json::from_value(v).expect("a well-formed event")
    }
    fn turn_start() -> Event {
        event(json!({"type": "turn_start"}))
    }
    fn chat_request() -> Event {
        event(json!({"type": "chat_request"}))
    }
    fn tool_call_request(id: &str) -> Event {
        event(json!({"type": "tool_call_request", "id": id, "name": "fs"}))
    }
    fn tool_call_response(id: &str) -> Event {
        event(
            json!({"type": "tool_call_response", "id": id, "content": "ZG9uZQ==", "is_error": false}),
        )
    }
    fn inquiry_request(id: InquiryId) -> Event {
        event(json!({"type": "inquiry_request", "id": id.as_str(),
            "source": {"source": "tool", "name": "fs"},
            "question": {"text": "Apply?", "answer_type": {"type": "boolean"}}}))
    }
    fn answered(id: InquiryId, answer: Value) -> Event {
        event(json!({"type": "inquiry_response", "id": id.as_str(), "answer": answer}))
    }

    /// The faulty repair changes only where a pair may be found: a request
    /// no response answers anywhere in the stream is still removed, in its
    /// own turn, so the fault matrix sees that fault break turn scoping
    /// (`STREAM-SANITIZE-TURN-SCOPED`) and nothing else. Here a request in
    /// the first turn is answered in the second (the fault keeps both) and a
    /// request in the second is never answered (both repairs remove it).
    #[test]
    fn the_across_turns_fault_still_removes_a_request_nothing_answers() {
        let asked = InquiryId::new("c1", "apply", 1);
        let never = InquiryId::new("c2", "apply", 1);
        let events = vec![
            turn_start(),
            tool_call_request("c1"),
            inquiry_request(asked.clone()),
            tool_call_response("c1"),
            turn_start(),
            tool_call_request("c2"),
            answered(asked, serde_json::json!(true)),
            inquiry_request(never),
            tool_call_response("c2"),
        ];
        let unanswered = Removed {
            index: 7,
            turn: 1,
            reason: Orphan::InquiryRequest,
        };
        let faulty = sanitize_across_turns(events.clone());
        assert_eq!(
            faulty.removed,
            [unanswered],
            "the fault keeps the cross-turn pair"
        );
        assert_eq!(faulty.events.len(), 8);
        let correct = sanitize(events);
        assert_eq!(
            correct.removed.len(),
            3,
            "turn-scoped: the pair's halves go too"
        );
        assert!(correct.removed.contains(&unanswered));
    }

    /// Apart from the inquiries, the faulty repair is the correct one: the
    /// orphaned tool call of the first turn gets the same synthetic
    /// response, at the same place, and the output's account matches it.
    #[test]
    fn the_across_turns_fault_repairs_tool_calls_as_sanitize_does() {
        let events = vec![
            turn_start(),
            tool_call_request("c1"),
            chat_request(),
            turn_start(),
            tool_call_request("c2"),
        ];
        let faulty = sanitize_across_turns(events.clone());
        let correct = sanitize(events);
        assert_eq!(faulty, correct);
        assert_eq!(faulty.injected.len(), 2);
    }
}
