//! `expectations`: the envelope fields and final ledger counts the scenario pins hold.
//!
//! Rule enforced here: a step's `expect` and the scenario's `[expect_ledger]` are judged here and only here; the
//! scenario model states them, the check compares them with the typed envelope. A refusal the transport carried
//! instead of an envelope (an MCP -32700 to a text that is not JSON, docs/mcp.md) is judged on what it can
//! say, `ok` and the code (any it stands for); the pins it cannot carry (`details`, `meta`, the code's flags) are
//! not judged for it.

use super::json_values::same_value;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::envelope::{EnvelopeView, wire};
use crate::scenario::Expect;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const EXPECTATIONS: CheckId = CheckId::new("expectations");

pub(super) const CHECK: Check = Check {
    id: EXPECTATIONS,
    level: Level::Must,
    rule: "the envelope fields and final ledger counts the scenario pins hold",
    seed_ref: "scenario",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(expect) = context.scenario.steps[call.step].expect() else { continue };
        judgement.judged();
        let Some(envelope) = call.envelope() else {
            judgement.fail("expected an envelope, got none", context.evidence(call));
            continue;
        };
        let mismatches = match &call.refusal {
            Some(refusal) => refusal_mismatches(expect, refusal),
            None => mismatches(expect, envelope),
        };
        if !mismatches.is_empty() {
            judgement.fail(format!("step {}: {}", call.step + 1, mismatches.join("; ")), context.evidence(call));
        }
    }
    // A fault that never fired means the step's story did not happen: whatever else held proves nothing.
    for unfired in context.transcript.faults.iter().filter_map(crate::world::FaultLog::never_fired) {
        judgement.judged();
        judgement.fail(unfired, context.transcript.lines());
    }
    for (kind, expected) in &context.scenario.expect_ledger {
        judgement.judged();
        let name = kind.name();
        let mut ids: Vec<&str> = context
            .transcript
            .ledger
            .iter()
            .filter(|effect| effect.kind == *kind)
            .map(|effect| effect.effect_id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != *expected {
            judgement.fail(
                format!("expected {expected} {name} in the ledger, found {}", ids.len()),
                context.transcript.lines(),
            );
        }
    }
    judgement.outcome()
}

/// Every way a transport refusal differs from `expect`, judged on `ok` (a refusal is never a success) and the
/// code (any it stands for); nothing else is carried by a JSON-RPC error.
fn refusal_mismatches(expect: &Expect, refusal: &crate::transcript::Refusal) -> Vec<String> {
    let mut found = Vec::new();
    if expect.ok == Some(true) {
        found.push(format!("ok: expected true, got {}", refusal.by));
    }
    if let Some(code) = &expect.code
        && !refusal.satisfies(code.as_str())
    {
        found.push(format!(
            "error.code: expected \"{}\", got {} (which stands for {})",
            code.as_str(),
            refusal.by,
            refusal.codes()
        ));
    }
    found
}

/// Every way `envelope` differs from `expect`, as `field: expected X, got Y`.
fn mismatches(expect: &Expect, envelope: &EnvelopeView) -> Vec<String> {
    let error = envelope.error();
    let flag = |value: Option<bool>| value.map_or(Value::Null, Value::Bool);
    let text = |value: Option<String>| value.map_or(Value::Null, Value::String);
    let mut pinned: Vec<(String, Value, Value)> = Vec::new();
    if let Some(ok) = expect.ok {
        pinned.push(("ok".to_owned(), Value::Bool(ok), Value::Bool(envelope.ok())));
    }
    if let Some(code) = &expect.code {
        let got = error.map(|error| error.wire_code.clone()).filter(|code| !code.is_empty());
        pinned.push(("error.code".to_owned(), code.as_str().into(), text(got)));
    }
    if let Some(retryable) = expect.retryable {
        pinned.push(("error.retryable".to_owned(), retryable.into(), flag(error.and_then(|error| error.retryable))));
    }
    if let Some(resolution) = &expect.resolution {
        let got = error.and_then(|error| error.resolution).map(|resolution| wire(Some(resolution)));
        pinned.push(("error.resolution".to_owned(), wire(Some(resolution)).into(), text(got)));
    }
    if let Some(replayed) = expect.replayed {
        pinned.push(("meta.replayed".to_owned(), replayed.into(), flag(envelope.meta().replayed)));
    }
    if let Some(reconciled) = expect.reconciled {
        // Absent counts as false: executors write `reconciled` only when it is true.
        let got = envelope.meta().reconciled.unwrap_or(false);
        pinned.push(("meta.reconciled".to_owned(), reconciled.into(), got.into()));
    }
    for (key, want) in expect.details.iter().flatten() {
        let got = error.and_then(|error| error.details.get(key)).cloned().unwrap_or(Value::Null);
        pinned.push((format!("error.details.{key}"), serde_json::to_value(want).unwrap_or(Value::Null), got));
    }
    for (key, want) in expect.result.iter().flatten() {
        let got = envelope.result().and_then(|result| result.get(key)).cloned().unwrap_or(Value::Null);
        pinned.push((format!("result.{key}"), serde_json::to_value(want).unwrap_or(Value::Null), got));
    }
    pinned
        .into_iter()
        // Numbers by value: a pinned `retry_after_ms = 7000` is met by `7000.0`, which JSON Schema's `integer` (and so the
        // envelope schema) accepts too.
        .filter(|(_, want, got)| !same_value(want, got))
        .map(|(what, want, got)| format!("{what}: expected {want}, got {got}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const PINNED: &str = r#"
        description = "d"
        [auth.alice]
        subject_id = "u_alice"
        tenant_id = "t_acme"
        [[step]]
        action = "submit"
        id = "x"
        tool = "refund_order"
        auth = "alice"
        arguments = "{}"
        expect = { ok = false, code = "timeout_unknown", retryable = false, details = { reason = "connection_lost" } }
        [[step]]
        action = "retry"
        of = "x"
        expect = { ok = true, replayed = false, reconciled = true }
        [expect_ledger]
        refunds = 1
    "#;

    #[test]
    fn the_pinned_fields_and_ledger_counts_hold() {
        history(
            "submit refund_order -> timeout_unknown reason=connection_lost
             request POST /refunds -> committed dropped
             retry -> ok reconciled",
        )
        .with_scenario(PINNED)
        .passes(&CHECK);
    }

    #[test]
    fn a_different_code_detail_or_count_fails_naming_each_field() {
        let violations = history(
            "submit refund_order -> timeout_not_started reason=deadline_elapsed
             retry -> ok",
        )
        .with_scenario(PINNED)
        .fails(&CHECK, "error.code: expected \"timeout_unknown\", got \"timeout_not_started\"");
        let messages: Vec<&str> = violations.iter().map(|violation| violation.message.as_str()).collect();
        assert!(messages.iter().any(|message| message.contains("error.details.reason")), "{messages:?}");
        assert!(messages.iter().any(|message| message.contains("meta.reconciled: expected true, got false")));
        assert!(messages.contains(&"expected 1 refunds in the ledger, found 0"), "{messages:?}");
    }

    #[test]
    fn a_pinned_step_without_an_envelope_fails() {
        history("submit refund_order -> no-answer; retry -> ok reconciled")
            .with_scenario(PINNED)
            .fails(&CHECK, "expected an envelope, got none");
    }

    const RATE_LIMITED: &str = r#"
        description = "d"
        [auth.alice]
        subject_id = "u_alice"
        tenant_id = "t_acme"
        [[step]]
        action = "submit"
        tool = "refund_order"
        auth = "alice"
        arguments = '{"order_id":"ord_123","amount":30,"reason":"duplicate charge"}'
        expect = { ok = false, code = "rate_limited", details = { retry_after_ms = 7000 } }
    "#;

    #[test]
    fn pinned_numbers_are_compared_by_value() {
        history("submit refund_order -> rate_limited retry_after_ms=7000.0").with_scenario(RATE_LIMITED).passes(&CHECK);
        history("submit refund_order -> rate_limited retry_after_ms=7000.5")
            .with_scenario(RATE_LIMITED)
            .fails(&CHECK, "error.details.retry_after_ms: expected 7000, got 7000.5");
    }

    const TRUNCATED: &str = r#"
        description = "d"
        [auth.alice]
        subject_id = "u_alice"
        tenant_id = "t_acme"
        [[step]]
        action = "submit"
        tool = "refund_order"
        auth = "alice"
        arguments = '{"order_id":"ord_123","amount":'
        expect = { ok = false, code = "invalid_json", details = { hint = "truncated", line = 1 } }
    "#;

    #[test]
    fn a_parse_error_meets_the_code_pin_and_is_not_held_to_details_it_cannot_carry() {
        history("submit refund_order -> invalid_json -32700").with_scenario(TRUNCATED).passes(&CHECK);
        // The same envelope from an executor, without the refusal, is held to every pin.
        history("submit refund_order -> invalid_json")
            .with_scenario(TRUNCATED)
            .fails(&CHECK, "error.details.hint: expected \"truncated\", got null");
    }

    #[test]
    fn a_parse_error_does_not_meet_a_pin_on_another_code_or_on_success() {
        let other = TRUNCATED.replace(r#"code = "invalid_json""#, r#"code = "schema_violation""#);
        history("submit refund_order -> invalid_json -32700")
            .with_scenario(&other)
            .fails(&CHECK, "got JSON-RPC error -32700 (which stands for invalid_json or invalid_arguments)");
        let success = TRUNCATED.replace(r#"ok = false, code = "invalid_json", "#, "ok = true, ");
        history("submit refund_order -> invalid_json -32700")
            .with_scenario(&success)
            .fails(&CHECK, "ok: expected true, got JSON-RPC error -32700");
    }

    #[test]
    fn each_mismatched_field_is_reported_once() {
        let expect = Expect {
            ok: Some(false),
            code: Some(callproof_executor::ErrorCode::TimeoutUnknown),
            retryable: Some(false),
            ..Expect::default()
        };
        let envelope = EnvelopeView::parse(serde_json::json!({
            "ok": false, "error": {"code": "timeout_not_started", "retryable": true}
        }))
        .expect("an envelope");
        assert_eq!(
            mismatches(&expect, &envelope),
            [
                "error.code: expected \"timeout_unknown\", got \"timeout_not_started\"",
                "error.retryable: expected false, got true"
            ]
        );
    }

    #[test]
    fn a_pinned_result_member_must_be_the_answered_one() {
        let expect: Expect =
            toml::from_str(r#"ok = true
result = { location = "Main St #5", units = "celsius" }"#)
                .expect("an expectation");
        let answered = |location: &str| {
            EnvelopeView::parse(serde_json::json!({
                "ok": true, "result": {"location": location, "units": "celsius", "temperature": 21.5}
            }))
            .expect("an envelope")
        };
        assert!(mismatches(&expect, &answered("Main St #5")).is_empty());
        assert_eq!(
            mismatches(&expect, &answered("Main St ")),
            ["result.location: expected \"Main St #5\", got \"Main St \""]
        );
        let refused = EnvelopeView::parse(serde_json::json!({"ok": false, "error": {"code": "forbidden"}}))
            .expect("an envelope");
        assert!(mismatches(&expect, &refused).iter().any(|mismatch| mismatch.starts_with("result.units")));
    }

    #[test]
    fn a_fault_that_never_fired_fails_naming_it() {
        use crate::world::{FaultKind, FaultLog, fault::CommitThenDrop};
        let mut run = history("submit refund_order -> ok; request POST /refunds -> committed");
        let spec = FaultKind::CommitThenDrop(CommitThenDrop {}).into();
        run.faults = vec![FaultLog { step: 2, spec, endpoint: "POST /refunds".to_owned(), fired: 0 }];
        run.fails(&CHECK, "step 3: fault `commit_then_drop` on `POST /refunds` never fired");
    }

    #[test]
    fn nothing_pinned_skips() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
