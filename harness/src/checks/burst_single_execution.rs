//! `burst-single-execution`: N identical concurrent calls execute once; the others answer operation_in_progress
//! or replay the result.
//!
//! Rule enforced here: within one `burst` step of one operation, at most one side-effecting request and one
//! non-replayed success; every other call waited or replayed the winner's result. Bursts where a fault failed
//! the execution (anything but `hold_until`) are left to the effect checks, since a duplicate may then
//! legitimately take over. A burst's requests are its calls' own and those tied to its operation only (no
//! `X-Request-Id` named one call), so sends are counted the same with or without the header.

use super::json_values::same_value;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::ErrorCode;
use std::collections::BTreeMap;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const BURST_SINGLE_EXECUTION: CheckId = CheckId::new("burst-single-execution");

pub(super) const CHECK: Check = Check {
    id: BURST_SINGLE_EXECUTION,
    level: Level::Must,
    rule: "N identical concurrent calls execute once; the others answer operation_in_progress or replay the result",
    seed_ref: "§5.3 IN_PROGRESS, §5.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.side_effecting_operations() {
        let mut bursts: BTreeMap<usize, Vec<&CallRecord>> = BTreeMap::new();
        for call in context.calls_of(operation).filter(|call| call.action == crate::scenario::StepKind::Burst) {
            bursts.entry(call.step).or_default().push(call);
        }
        for calls in bursts.values().filter(|calls| calls.len() > 1) {
            let exchanges = context.transcript.exchanges_of_calls(calls);
            if exchanges.iter().any(|exchange| exchange.fault().is_some_and(|fault| fault != "hold_until")) {
                continue;
            }
            judgement.judged();
            let sends = exchanges.iter().filter(|exchange| exchange.record.side_effect).count();
            if sends > 1 {
                judgement.fail(
                    format!("a burst of {} identical calls sent {sends} side-effecting requests", calls.len()),
                    context.op_evidence(op),
                );
            }
            judge_answers(context, op, calls, &mut judgement);
        }
    }
    judgement.outcome()
}

/// One execution; every other call of the burst waited or replayed its result.
fn judge_answers(context: &Context<'_>, op: usize, calls: &[&CallRecord], judgement: &mut Judgement) {
    let executed: Vec<&CallRecord> =
        calls.iter().copied().filter(|call| call.envelope().is_some_and(|envelope| envelope.ok() && !envelope.replayed())).collect();
    if executed.len() > 1 {
        judgement.fail(format!("{} calls of one burst executed", executed.len()), context.op_evidence(op));
    }
    let Some(winner) = executed.first() else { return };
    let result = winner.envelope().and_then(|envelope| envelope.result());
    for call in calls.iter().filter(|call| call.index != winner.index) {
        let waited = call.code() == Some(ErrorCode::OperationInProgress);
        let replayed = call.ok()
            && match (call.envelope().and_then(|envelope| envelope.result()), result) {
                (Some(own), Some(result)) => same_value(own, result),
                (own, result) => own == result,
            };
        if !waited && !replayed {
            let answered = call.error().map_or("a different result", |error| error.wire_code.as_str());
            judgement.fail(format!("a duplicate in a burst answered {answered}"), context.evidence(call));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn one_execution_with_waiting_and_replaying_duplicates_passes() {
        history(
            "burst refund_order -> ok result={\"refund_id\":\"rf_1\"}
             request POST /refunds -> committed fault=hold_until,count=2
             and -> operation_in_progress retry_after_ms=100
             and -> ok replayed result={\"refund_id\":\"rf_1\"}",
        )
        .passes(&CHECK);
    }

    #[test]
    fn two_executions_fail_on_sends_and_on_answers() {
        let violations = history(
            "burst refund_order -> ok; request POST /refunds -> committed
             and -> ok; request POST /refunds -> committed",
        )
        .fails(&CHECK, "a burst of 2 identical calls sent 2 side-effecting requests");
        assert!(violations.iter().any(|violation| violation.message == "2 calls of one burst executed"));
    }

    #[test]
    fn sends_no_id_ties_to_a_call_are_counted_for_the_burst() {
        history(
            "burst refund_order -> ok; and -> operation_in_progress
             request POST /refunds -> committed fault=hold_until,count=2 op",
        )
        .passes(&CHECK);
        history(
            "burst refund_order -> ok; and -> ok replayed
             request POST /refunds -> committed op; request POST /refunds -> committed op",
        )
        .fails(&CHECK, "a burst of 2 identical calls sent 2 side-effecting requests");
    }

    #[test]
    fn a_duplicate_that_answers_something_else_fails() {
        history(
            "burst refund_order -> ok; request POST /refunds -> committed
             and -> dependency_unavailable",
        )
        .fails(&CHECK, "a duplicate in a burst answered dependency_unavailable");
    }

    #[test]
    fn a_burst_under_a_failing_fault_and_single_calls_skip() {
        history(
            "burst refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop
             and -> ok reconciled",
        )
        .skips(&CHECK);
        history("submit refund_order -> ok; request POST /refunds -> committed").skips(&CHECK);
    }
}
