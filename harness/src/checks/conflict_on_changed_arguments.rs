//! `conflict-on-changed-arguments`: the same business request with changed arguments answers
//! idempotency_conflict and sends nothing.
//!
//! Rule enforced here: any call whose operation was recorded by an earlier call with other canonical arguments
//! must conflict, whatever step made it (a `changed` step, or a `submit` reusing the business request id). An
//! earlier call recorded its arguments when it got as far as the idempotency stage (it answered ok, or its
//! envelope carries `meta.idempotency_key`, which docs/envelope.schema.json gives only from that stage on) or
//! sent a side-effecting request. A call refused before the claim (a spent budget, a failed ownership lookup,
//! authorization, input) recorded nothing, per docs/errors.md, so the next call is free to execute. A call
//! refused for its own input or authorization, or with the recorded arguments, is not judged. While the
//! recording call still runs, `operation_in_progress` is as good as the conflict: docs/protocol.md step 3 does
//! not order the two, and a retry after the first settled gets the conflict. Sending is never allowed.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, refused_up_front};
use crate::transcript::CallRecord;
use callproof_executor::canonical::canonical_json;
use callproof_executor::{Arguments, ErrorCode};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const CONFLICT_ON_CHANGED_ARGUMENTS: CheckId = CheckId::new("conflict-on-changed-arguments");

pub(super) const CHECK: Check = Check {
    id: CONFLICT_ON_CHANGED_ARGUMENTS,
    level: Level::Must,
    rule: "the same business request with changed arguments answers idempotency_conflict and sends nothing",
    seed_ref: "§5.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let operation = &context.transcript.operations[call.op];
        // The first call of its operation has nothing earlier to conflict with.
        if operation.calls.first() == Some(&call.index) || !context.has_side_effect(&operation.tool) {
            continue;
        }
        // The first earlier call that reached the idempotency stage is the one whose arguments were recorded.
        let recorded = context
            .calls_of(operation)
            .take_while(|earlier| earlier.index != call.index)
            .find(|earlier| recorded_its_arguments(context, earlier));
        // The recorded arguments again (or changed back to them) is a plain retry, not a conflict. The same
        // text is compared first: a retry's arguments are, and canonical JSON is not free after every step of
        // an exploration.
        let Some(recorded) = recorded else { continue };
        if recorded.arguments == call.arguments || canonical(&recorded.arguments) == canonical(&call.arguments) {
            continue;
        }
        if refused_up_front(call) {
            continue;
        }
        judgement.judged();
        let told_to_wait = call.code() == Some(ErrorCode::OperationInProgress) && still_ran(recorded, call);
        if call.code() != Some(ErrorCode::IdempotencyConflict) && !told_to_wait {
            let answered = call.error().map_or("ok", |error| error.wire_code.as_str());
            judgement.fail(
                format!("changed arguments under one business request answered {answered}"),
                context.evidence(call),
            );
        }
        if let Some(exchange) =
            context.transcript.exchanges_of_call(call.index).find(|exchange| exchange.record.side_effect)
        {
            judgement.fail(
                format!("changed arguments reached the downstream as request #{}", exchange.record.index),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// Whether `recorded` was still running when `call` was answered.
fn still_ran(recorded: &CallRecord, call: &CallRecord) -> bool {
    recorded.started_ms <= call.answered_ms && call.answered_ms <= recorded.answered_ms
}

/// Whether an earlier call got far enough to record its arguments: it answered ok, its envelope names the
/// operation's idempotency key, or it sent a side-effecting request. An error code alone says nothing: a spent
/// budget or a failed lookup is answered before any record exists.
fn recorded_its_arguments(context: &Context<'_>, earlier: &CallRecord) -> bool {
    earlier.ok()
        || earlier.envelope().is_some_and(|envelope| envelope.meta().idempotency_key.is_some())
        || context.transcript.exchanges_of_call(earlier.index).any(|exchange| exchange.record.side_effect)
}

/// Canonical JSON of arguments as the harness reads them (raw text that is not JSON stays as it is).
fn canonical(arguments: &Arguments) -> String {
    match arguments {
        Arguments::Raw(text) => serde_json::from_str::<serde_json::Value>(text)
            .map(|value| canonical_json(&value))
            .unwrap_or_else(|_| text.clone()),
        Arguments::Value(value) => canonical_json(value),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_conflict_that_sends_nothing_passes() {
        history("submit refund_order -> ok; request POST /refunds -> committed; changed -> idempotency_conflict")
            .passes(&CHECK);
    }

    #[test]
    fn changed_arguments_executed_as_a_new_refund_fails_twice() {
        let violations = history(
            "submit refund_order -> ok; request POST /refunds -> committed
             changed -> ok; request POST /refunds -> committed",
        )
        .fails(&CHECK, "changed arguments under one business request answered ok");
        assert!(violations.iter().any(|violation| violation.message.contains("reached the downstream as request #1")));
    }

    #[test]
    fn any_call_reusing_the_request_with_other_arguments_is_judged_not_only_a_changed_step() {
        // A scenario may reuse a business request id from a fresh `submit`; the action does not matter.
        let other = r#"args={"order_id":"ord_1","amount":20,"reason":"duplicate"}"#;
        history(&format!("submit refund_order -> dependency_unavailable reason=unavailable key=k1; retry {other} -> ok"))
            .fails(&CHECK, "changed arguments under one business request answered ok");
        history(&format!(
            "submit refund_order -> dependency_unavailable reason=unavailable key=k1; retry {other} -> idempotency_conflict"
        ))
        .passes(&CHECK);
        // The recorded arguments again are a retry, not judged.
        history("submit refund_order -> dependency_unavailable reason=unavailable key=k1; retry -> ok").skips(&CHECK);
    }

    #[test]
    fn a_changed_call_may_be_told_to_wait_only_while_the_first_still_runs() {
        // The first call runs from 0 to 2500 ms; the changed one is sent at 1000 and answered 10 ms later.
        let running = |changed: &str| {
            history(&format!(
                "submit refund_order sent=0 took=2500 -> ok; request POST /refunds -> committed
                 changed sent=1000 took=10 -> {changed}"
            ))
        };
        running("operation_in_progress").passes(&CHECK);
        running("idempotency_conflict").passes(&CHECK);
        running("ok").fails(&CHECK, "changed arguments under one business request answered ok");
        history(
            "submit refund_order sent=0 took=500 -> ok; request POST /refunds -> committed
             changed sent=1000 took=10 -> operation_in_progress",
        )
        .fails(&CHECK, "changed arguments under one business request answered operation_in_progress");
    }

    #[test]
    fn an_earlier_error_that_named_the_key_recorded_the_arguments() {
        history("submit refund_order -> dependency_unavailable reason=unavailable key=k1; changed -> ok")
            .fails(&CHECK, "changed arguments under one business request answered ok");
        history("submit refund_order -> dependency_unavailable reason=unavailable key=k1; changed -> idempotency_conflict")
            .passes(&CHECK);
    }

    #[test]
    fn an_earlier_refusal_before_the_claim_recorded_nothing() {
        // docs/errors.md: a budget spent before the lookup, or a failed ownership lookup, leaves no record.
        history("submit refund_order -> timeout_not_started reason=deadline_elapsed; changed -> ok").skips(&CHECK);
        history(
            "submit refund_order -> dependency_unavailable reason=resource_lookup_failed
             request GET /orders/ord_1 -> 503
             changed -> ok; request POST /refunds -> committed",
        )
        .skips(&CHECK);
    }

    #[test]
    fn nothing_recorded_before_or_changed_back_skips() {
        history("submit refund_order -> forbidden; changed -> ok").skips(&CHECK);
        history(r#"submit refund_order -> ok; changed args={"amount":100,"order_id":"ord_1","reason":"duplicate"} -> ok"#)
            .skips(&CHECK);
    }
}
