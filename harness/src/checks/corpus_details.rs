//! `corpus-details`: each malformed-corpus case carries the details that locate the problem.
//!
//! Rule enforced here: the details a case lists (as the reference gives them) must be in the error's
//! `details` with the same values; other details may be added. `hint` is the exception: docs/errors.md gives it
//! only "when the cause is recognised", and which causes an executor recognises is its own choice, so a missing
//! hint passes and only a different one fails. `missing` and `unexpected` are sets: docs/errors.md says which
//! members they list, not in what order, so they compare without order (and one member short fails). A refusal
//! the transport carried instead of an
//! envelope (MCP's -32700 to arguments that are not JSON: the whole message failed to parse, so nothing could say
//! where the arguments broke) is not judged: no executor could carry details there.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const CORPUS_DETAILS: CheckId = CheckId::new("corpus-details");

pub(super) const CHECK: Check = Check {
    id: CORPUS_DETAILS,
    level: Level::Should,
    rule: "each malformed-corpus case carries the details that locate the problem",
    seed_ref: "§2.3",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (call, case) in context.corpus_calls().filter(|(call, _)| call.refusal.is_none()) {
        judgement.judged();
        let Some(envelope) = call.envelope() else { continue };
        let details = envelope.error().map(|error| &error.details);
        let want = case.details_json();
        let wrong: Vec<String> = want
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(key, value)| {
                let got = details.and_then(|details| details.get(key)).unwrap_or(&Value::Null);
                let unrecognised = key == "hint" && got.is_null();
                (!same(key, value, got) && !unrecognised).then(|| format!("{key}: expected {value}, got {got}"))
            })
            .collect();
        if !wrong.is_empty() {
            judgement.fail(format!("case `{}`: {}", case.name, wrong.join("; ")), vec![call.line()]);
        }
    }
    judgement.outcome()
}

/// Whether the executor's detail `got` says what the case's `want` says: equal, or for the member lists the same
/// members in any order.
fn same(key: &str, want: &Value, got: &Value) -> bool {
    match (key, want, got) {
        ("missing" | "unexpected", Value::Array(want), Value::Array(got)) => {
            let sorted = |members: &[Value]| {
                let mut members: Vec<String> = members.iter().map(Value::to_string).collect();
                members.sort_unstable();
                members
            };
            sorted(want) == sorted(got)
        }
        _ => want == got,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn the_listed_details_pass_and_extra_ones_are_allowed() {
        history("corpus refund_order case=truncated_object -> invalid_json hint=truncated line=1").passes(&CHECK);
    }

    #[test]
    fn a_missing_detail_fails_naming_it() {
        history("corpus refund_order case=empty_string -> invalid_json hint=truncated")
            .fails(&CHECK, "case `empty_string`: line: expected 1, got null");
    }

    #[test]
    fn a_hint_may_be_missing_but_not_different() {
        history("corpus refund_order case=empty_string -> invalid_json line=1").passes(&CHECK);
        history("corpus refund_order case=empty_string -> invalid_json hint=comment line=1")
            .fails(&CHECK, "case `empty_string`: hint: expected \"truncated\", got \"comment\"");
    }

    #[test]
    fn a_transport_refusal_cannot_carry_details_and_is_not_judged_but_the_same_envelope_from_an_executor_is() {
        history("corpus refund_order case=empty_string -> invalid_json -32700").skips(&CHECK);
        history("corpus refund_order case=empty_string -> invalid_json")
            .fails(&CHECK, "case `empty_string`: line: expected 1, got null");
    }

    #[test]
    fn the_missing_members_may_come_in_any_order_but_all_of_them() {
        let listed = |missing: &str| {
            format!("corpus refund_order case=empty_object -> schema_violation path=\"\" keyword=required missing={missing}")
        };
        history(&listed(r#"["/order_id","/amount","/reason"]"#)).passes(&CHECK);
        history(&listed(r#"["/reason","/amount","/order_id"]"#)).passes(&CHECK);
        history(&listed(r#"["/order_id"]"#)).fails(&CHECK, "case `empty_object`: missing: expected");
        history(&listed(r#"["/order_id","/amount","/amount"]"#)).fails(&CHECK, "case `empty_object`: missing: expected");
    }

    #[test]
    fn the_unexpected_members_may_come_in_any_order_but_all_of_them() {
        let listed = |unexpected: &str| {
            format!(
                "corpus refund_order case=two_unknown_fields -> schema_violation path=\"\" keyword=additionalProperties unexpected={unexpected}"
            )
        };
        history(&listed(r#"["/note","/currency"]"#)).passes(&CHECK);
        history(&listed(r#"["/currency"]"#)).fails(&CHECK, "case `two_unknown_fields`: unexpected: expected");
    }

    #[test]
    fn a_run_without_corpus_calls_skips() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
