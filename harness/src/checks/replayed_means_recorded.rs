//! `replayed-means-recorded`: an answer marked `meta.replayed` is an outcome that another call of its
//! business operation got, not a conflict, a wait or a first refusal dressed up as a replay.
//!
//! Rule enforced here: docs/envelope.schema.json gives `replayed: true` only to the stored outcome of an
//! earlier attempt. So a replayed answer must be one that another call of the same operation answered (ok
//! again, or the same error code), unless some other call of the operation never got an answer back (killed,
//! lost, unanswered): its outcome may have been recorded unseen, and anything may be its replay. Calls are
//! compared within one operation (tenant, subject, tool, business request id), so a replay served to another
//! caller's request is judged too. A task poll claims no key, but its handle's first final answer is kept and
//! answered to every later poll (docs/protocol.md, Task tools), so a kept answer marked replayed may repeat what
//! an earlier poll of the same handle (same tenant, tool and arguments) got. Only envelopes the subject wrote are
//! judged (`meta_by_harness` ones are not), and not a reconciled answer, whose outcome the executor has just
//! established.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::task::TaskRole;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const REPLAYED_MEANS_RECORDED: CheckId = CheckId::new("replayed-means-recorded");

pub(super) const CHECK: Check = Check {
    id: REPLAYED_MEANS_RECORDED,
    level: Level::Must,
    rule: "an answer marked replayed is an outcome another call of its business operation got",
    seed_ref: "§5.1, §6.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in context.transcript.calls.iter().filter(|call| !call.meta_by_harness && replayed(call) && !reconciled(call)) {
        judgement.judged();
        let operation = &context.transcript.operations[call.op];
        let others: Vec<&CallRecord> = context.calls_of(operation).filter(|other| other.index != call.index).collect();
        // An answer that never came back may have been recorded: its replay cannot be told from anything.
        if others.iter().any(|other| other.envelope().is_none()) {
            continue;
        }
        if others.iter().chain(&earlier_polls(context, call)).any(|other| !replayed(other) && same_outcome(other, call)) {
            continue;
        }
        judgement.fail(
            format!(
                "call #{} ({}) was answered {} marked replayed, but no other call of its business operation got \
                 that outcome: a replay repeats a recorded outcome",
                call.index,
                call.call_id,
                outcome_of(call)
            ),
            context.evidence(call),
        );
    }
    judgement.outcome()
}

/// For a task poll, the earlier polls of the same handle by the same tenant: the calls whose kept final answer a
/// later poll may repeat. Empty for any other tool.
fn earlier_polls<'c>(context: &'c Context<'_>, call: &CallRecord) -> Vec<&'c CallRecord> {
    if context.tool(&call.tool).and_then(|tool| tool.task) != Some(TaskRole::Poll) {
        return Vec::new();
    }
    context.transcript.calls[..call.index]
        .iter()
        .filter(|other| other.tool == call.tool && other.tenant_id == call.tenant_id && other.arguments == call.arguments)
        .collect()
}

/// Whether the call's envelope says `meta.replayed: true`.
fn replayed(call: &CallRecord) -> bool {
    call.envelope().is_some_and(|envelope| envelope.meta().replayed == Some(true))
}

/// Whether the call's envelope says `meta.reconciled: true`: an outcome just established by asking the downstream,
/// which an executor may also call the earlier attempt's (a reading this check leaves alone).
fn reconciled(call: &CallRecord) -> bool {
    call.envelope().is_some_and(|envelope| envelope.meta().reconciled == Some(true))
}

/// Whether two answers are the same outcome: both ok, or both the same error code.
fn same_outcome(one: &CallRecord, other: &CallRecord) -> bool {
    outcome_of(one) == outcome_of(other)
}

/// `ok`, or the error's code as written.
fn outcome_of(call: &CallRecord) -> &str {
    call.error().map_or("ok", |error| error.wire_code.as_str())
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_replay_of_an_outcome_another_call_got_passes() {
        history("submit refund_order -> ok; retry -> ok replayed").passes(&CHECK);
        history("submit refund_order -> business_rejected; retry -> business_rejected replayed").passes(&CHECK);
        history("submit refund_order -> timeout_unknown; retry -> ok reconciled; retry -> ok replayed").passes(&CHECK);
    }

    #[test]
    fn a_conflict_a_wait_or_a_first_refusal_marked_replayed_fails() {
        history("submit refund_order -> ok; changed -> idempotency_conflict replayed")
            .fails(&CHECK, "answered idempotency_conflict marked replayed");
        history("burst refund_order -> ok; and -> operation_in_progress replayed")
            .fails(&CHECK, "answered operation_in_progress marked replayed");
        history("submit refund_order -> dependency_unavailable; retry -> retry_budget_exhausted replayed")
            .fails(&CHECK, "answered retry_budget_exhausted marked replayed");
        // A replay only matches an answer that was not itself a replay.
        history("submit refund_order -> timeout_unknown; retry -> ok replayed; retry -> ok replayed")
            .fails(&CHECK, "answered ok marked replayed");
    }

    #[test]
    fn an_outcome_recorded_by_a_call_that_never_answered_may_be_replayed() {
        history("submit refund_order -> killed; retry -> ok replayed").passes(&CHECK);
    }

    #[test]
    fn a_reconciled_answer_marked_replayed_is_left_alone() {
        history("submit refund_order -> timeout_unknown; retry -> ok reconciled replayed").skips(&CHECK);
    }

    #[test]
    fn a_kept_poll_answer_marked_replayed_repeats_an_earlier_poll_of_the_same_handle() {
        history("submit task_status -> ok result={\"task_id\":\"exp_1\",\"status\":\"completed\"}; submit task_status -> ok replayed result={\"task_id\":\"exp_1\",\"status\":\"completed\"}").passes(&CHECK);
        // The first poll of a handle has no earlier answer to repeat, and an earlier refusal is another outcome.
        history("submit task_status -> ok replayed result={\"task_id\":\"exp_1\",\"status\":\"completed\"}")
            .fails(&CHECK, "answered ok marked replayed");
        history("submit task_status -> forbidden; submit task_status -> ok replayed result={\"task_id\":\"exp_1\",\"status\":\"completed\"}")
            .fails(&CHECK, "answered ok marked replayed");
    }

    #[test]
    fn a_run_without_replays_skips() {
        history("submit refund_order -> ok; retry -> idempotency_conflict").skips(&CHECK);
    }
}
