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
        let mut leaked = Vec::new();
        carried(raw, &mut leaked);
        if !leaked.is_empty() {
            leaked.sort_by_key(|marker| LEAK_MARKERS.iter().position(|known| known == marker));
            leaked.dedup();
            judgement.fail(format!("the envelope carries {leaked:?}"), context.evidence(call));
        }
    }
    judgement.outcome()
}

/// Adds to `found` each marker that a string of `value`, or a member name, holds, walking `value` once. No
/// marker holds a quote (the only way text of two strings joins in serialised JSON) or a character JSON escapes,
/// so this finds what a search of the serialised envelope would, without serialising every envelope again after
/// every step of an exploration.
fn carried(value: &Value, found: &mut Vec<&'static str>) {
    match value {
        Value::String(text) => markers_in(text, found),
        Value::Array(items) => items.iter().for_each(|item| carried(item, found)),
        Value::Object(members) => members.iter().for_each(|(name, member)| {
            markers_in(name, found);
            carried(member, found);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Adds the markers `text` holds to `found`; a text shorter than every marker holds none.
fn markers_in(text: &str, found: &mut Vec<&'static str>) {
    if text.len() < SHORTEST_MARKER {
        return;
    }
    found.extend(LEAK_MARKERS.iter().copied().filter(|marker| text.contains(marker)));
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

/// Whether `value` carries `marker` anywhere [`carried`] looks.
#[cfg(test)]
fn carries(value: &Value, marker: &str) -> bool {
    let mut found = Vec::new();
    carried(value, &mut found);
    found.contains(&marker)
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
        let mut found = Vec::new();
        carried(&envelope, &mut found);
        found.sort_by_key(|marker| LEAK_MARKERS.iter().position(|known| known == marker));
        found.dedup();
        assert_eq!(found, [first, second]);
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
