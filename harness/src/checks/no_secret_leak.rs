//! `no-secret-leak`: no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body.
//!
//! Rule enforced here: every answer is searched for the markers the `leak_bait` fault plants, in every
//! scenario, whether or not the fault fired (an executor may cache and leak later).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::world::LEAK_MARKERS;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const NO_SECRET_LEAK: CheckId = CheckId::new("no-secret-leak");

pub(super) const CHECK: Check = Check {
    id: NO_SECRET_LEAK,
    level: Level::Must,
    rule: "no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body",
    seed_ref: "§6.2, §11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.calls.is_empty());
    for call in &context.transcript.calls {
        let Some(raw) = call.answer.raw() else { continue };
        let leaked = markers_carried(raw);
        if !leaked.is_empty() {
            judgement.fail(format!("the envelope carries {leaked:?}"), context.evidence(call));
        }
    }
    judgement.outcome()
}

/// The markers that a string of `value`, or a member name, holds, each once and in the order of
/// [`LEAK_MARKERS`], found in one walk of `value`. No marker holds a quote (the only way text of two strings
/// joins in serialised JSON) or a character JSON escapes, so this finds what a search of the serialised envelope
/// would, without serialising every envelope again after every step of an exploration.
fn markers_carried(value: &Value) -> Vec<&'static str> {
    let mut found = [false; LEAK_MARKERS.len()];
    mark(value, &mut found);
    LEAK_MARKERS.iter().zip(found).filter_map(|(marker, found)| found.then_some(*marker)).collect()
}

fn mark(value: &Value, found: &mut [bool; LEAK_MARKERS.len()]) {
    match value {
        Value::String(text) => mark_text(text, found),
        Value::Array(items) => items.iter().for_each(|item| mark(item, found)),
        Value::Object(members) => members.iter().for_each(|(name, member)| {
            mark_text(name, found);
            mark(member, found);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Marks the markers `text` holds; a text shorter than every marker holds none.
fn mark_text(text: &str, found: &mut [bool; LEAK_MARKERS.len()]) {
    if text.len() < SHORTEST_MARKER {
        return;
    }
    for (marker, found) in LEAK_MARKERS.iter().zip(found.iter_mut()) {
        *found |= text.contains(marker);
    }
}

const SHORTEST_MARKER: usize = {
    let mut shortest = usize::MAX;
    let mut index = 0;
    while index < LEAK_MARKERS.len() {
        if LEAK_MARKERS[index].len() < shortest {
            shortest = LEAK_MARKERS[index].len();
        }
        index += 1;
    }
    shortest
};

/// Whether `value` carries `marker` anywhere [`markers_carried`] looks.
#[cfg(test)]
fn carries(value: &Value, marker: &str) -> bool {
    markers_carried(value).contains(&marker)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn envelopes_without_markers_pass() {
        history("submit refund_order -> dependency_unavailable reason=unavailable").passes(&CHECK);
    }

    #[test]
    fn a_marker_anywhere_in_an_envelope_fails() {
        history("submit refund_order -> dependency_unavailable body=db-primary-7.payments.internal.corp")
            .fails(&CHECK, "db-primary-7.payments.internal.corp");
    }

    #[test]
    fn a_marker_in_a_nested_string_or_a_member_name_is_found_and_nowhere_else() {
        let marker = LEAK_MARKERS[0];
        assert!(carries(&serde_json::json!({"a": [1, {"b": format!("x {marker} y")}]}), marker));
        assert!(carries(&serde_json::json!({"error": {(marker.to_owned()): true}}), marker));
        assert!(!carries(&serde_json::json!({"a": [1, null, {"b": "sk_live_"}], "c": 5}), marker));
        // Text outside one string can only join a marker through a quote; JSON escapes only quotes, backslashes
        // and control characters.
        let escaped_or_joining = |c: char| c == '"' || c == '\\' || c.is_control();
        assert!(LEAK_MARKERS.iter().all(|marker| !marker.contains(escaped_or_joining)), "the walk sees every marker");
    }

    #[test]
    fn each_marker_is_named_once_in_the_order_of_the_markers() {
        let [first, second, ..] = LEAK_MARKERS;
        let envelope = serde_json::json!({"a": format!("{second} {first}"), "b": [second], (first.to_owned()): 1});
        assert_eq!(markers_carried(&envelope), [first, second]);
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
