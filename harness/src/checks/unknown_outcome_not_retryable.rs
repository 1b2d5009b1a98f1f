//! `unknown-outcome-not-retryable`: a timeout after the effect committed, or a dropped answer, is timeout_unknown
//! and never retryable.
//!
//! Rule enforced here: judged on every call that answered an error while one of its side-effecting requests
//! committed and the answer to that request never reached the executor in time: the connection was dropped,
//! or the answer left at least [`LATE_MARGIN_MS`] after the call's deadline (the harness's reading of it). Which
//! fault caused it does not matter, and a refusal that was merely slow (nothing committed) or a committed answer
//! that came in time is not this check's business. Answers in the margin around the deadline are not judged: the
//! executor's clock starts a little after the harness's, so either reading is defensible there. Such a request
//! tied to its operation but to none of the calls in flight is charged only when every one of them answered
//! wrongly (one right answer may be the sender's).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use callproof_executor::ErrorCode;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const UNKNOWN_OUTCOME_NOT_RETRYABLE: CheckId = CheckId::new("unknown-outcome-not-retryable");

/// How long after the call's deadline a committed answer must leave before it counts as late for certain.
pub(super) const LATE_MARGIN_MS: u64 = 250;

pub(super) const CHECK: Check = Check {
    id: UNKNOWN_OUTCOME_NOT_RETRYABLE,
    level: Level::Must,
    rule: "a timeout after the effect committed, or a dropped answer, is timeout_unknown and never retryable",
    seed_ref: "§4.1, §4.3, §10 case 4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let lost = context.transcript.exchanges_of_call(call.index).find(|exchange| committed_and_lost(call, exchange));
        let Some(lost) = lost else { continue };
        if call.error().is_none() {
            continue;
        }
        judgement.judged();
        if let Some(problem) = misreported(call, lost) {
            judgement.fail(problem, context.evidence(call));
        }
    }
    for (exchange, senders) in context.shared_requests() {
        if !senders.iter().all(|call| committed_and_lost(call, exchange)) {
            continue;
        }
        judgement.judged();
        let problems: Vec<String> = senders.iter().filter_map(|call| misreported(call, exchange)).collect();
        if problems.len() == senders.len() {
            judgement.fail(
                format!("every call that may have sent request #{}: {}", exchange.record.index, problems.join("; ")),
                context.shared_evidence(exchange),
            );
        }
    }
    judgement.outcome()
}

/// Whether `exchange` committed an effect for `call` whose answer the executor cannot have seen in time.
fn committed_and_lost(call: &CallRecord, exchange: &Exchange) -> bool {
    if !exchange.record.side_effect || exchange.committed().is_none() {
        return false;
    }
    let deadline_ms = call.started_ms.saturating_add(call.budget_ms);
    exchange.record.answered_ms.is_none_or(|answered| answered >= deadline_ms.saturating_add(LATE_MARGIN_MS))
}

/// What is wrong with the answer of `call`, whose request `lost` committed and lost its answer, if anything. An ok
/// answer or none at all (a killed call) is not this check's to judge.
fn misreported(call: &CallRecord, lost: &Exchange) -> Option<String> {
    let error = call.error()?;
    let code = error.wire_code.as_str();
    let retryable = error.retryable == Some(true);
    let how = if lost.record.answered_ms.is_none() { "was dropped" } else { "came after the deadline" };
    (call.code() != Some(ErrorCode::TimeoutUnknown) || retryable).then(|| {
        format!(
            "request #{} committed the effect and its answer {how}, but the call answered {code} retryable={retryable}",
            lost.record.index
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_lost_answer_reported_as_unknown_passes() {
        history("submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop")
            .passes(&CHECK);
        history("submit refund_order budget=3000 -> timeout_unknown; request POST /refunds -> committed answered=4000")
            .passes(&CHECK);
    }

    #[test]
    fn a_late_answer_reported_as_not_started_fails() {
        history(
            "submit refund_order budget=3000 -> timeout_not_started
             request POST /refunds -> committed fault=commit_then_delay,ms=4000 answered=4000",
        )
        .fails(&CHECK, "request #0 committed the effect and its answer came after the deadline, but the call answered timeout_not_started retryable=true");
    }

    #[test]
    fn an_unknown_outcome_flagged_retryable_fails() {
        history(
            "submit refund_order -> timeout_unknown retryable=true
             request POST /refunds -> committed dropped fault=commit_then_drop",
        )
        .fails(&CHECK, "its answer was dropped, but the call answered timeout_unknown retryable=true");
    }

    #[test]
    fn a_lost_answer_found_by_any_fault_or_none_is_judged() {
        history("submit refund_order -> dependency_unavailable reason=unavailable; request POST /refunds -> committed dropped")
            .fails(&CHECK, "request #0 committed the effect and its answer was dropped");
    }

    #[test]
    fn a_slow_refusal_or_a_committed_answer_in_time_is_not_judged() {
        // A 422 delayed 300 ms inside a 3 s budget is a definite answer: nothing committed.
        history(
            "submit refund_order budget=3000 -> business_rejected reason=refund_exceeds_refundable
             request POST /refunds -> 422 fault=commit_then_delay,ms=300 answered=300",
        )
        .skips(&CHECK);
        let in_time = format!(
            "submit refund_order budget=3000 -> timeout_unknown; request POST /refunds -> committed answered={}",
            3000 + LATE_MARGIN_MS - 1
        );
        history(&in_time).skips(&CHECK);
    }

    #[test]
    fn a_killed_call_is_not_judged() {
        history("submit refund_order -> killed; request POST /refunds -> committed dropped").skips(&CHECK);
    }

    #[test]
    fn a_lost_answer_no_id_ties_to_a_call_passes_when_one_call_in_flight_reported_it_unknown() {
        history(
            "burst refund_order -> timeout_unknown; and -> operation_in_progress
             request POST /refunds -> committed dropped fault=commit_then_drop op",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_lost_answer_no_id_ties_to_a_call_fails_when_every_call_in_flight_misreported_it() {
        history(
            "burst refund_order -> timeout_not_started; and -> dependency_unavailable
             request POST /refunds -> committed dropped fault=commit_then_drop op",
        )
        .fails(&CHECK, "every call that may have sent request #0: request #0 committed the effect and its answer was dropped");
    }

    #[test]
    fn no_lost_answer_or_an_ok_despite_the_fault_skips() {
        history("submit refund_order -> dependency_unavailable; request POST /refunds -> 503").skips(&CHECK);
        history("submit refund_order -> ok; request POST /refunds -> committed fault=commit_then_delay,ms=4000 answered=4000")
            .skips(&CHECK);
    }
}
