//! `failure-means-not-applied`: an error whose code says nothing was applied comes from a call that committed
//! nothing.
//!
//! Rule enforced here: Jepsen's second rule; "nothing applied" is the code table's effect `none`. A commit tied
//! to its operation but to none of the calls in flight (no `X-Request-Id` named one) is charged only when every
//! one of those calls said nothing was applied: the winner of a burst answering `ok` while the others answer
//! `operation_in_progress` is the story of a correct executor, whichever call the request came from (issue 17).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::ErrorCode;
use callproof_executor::error::Effect;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const FAILURE_MEANS_NOT_APPLIED: CheckId = CheckId::new("failure-means-not-applied");

pub(super) const CHECK: Check = Check {
    id: FAILURE_MEANS_NOT_APPLIED,
    level: Level::Must,
    rule: "an error whose code says nothing was applied comes from a call that committed nothing",
    seed_ref: "§4.1, §6.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(code) = nothing_applied(call) else { continue };
        judgement.judged();
        let committed =
            context.transcript.exchanges_of_call(call.index).find(|exchange| exchange.committed().is_some());
        if let Some(exchange) = committed {
            judgement.fail(
                format!("{code} says nothing was applied, but request #{} committed an effect", exchange.record.index),
                context.evidence(call),
            );
        }
    }
    for (exchange, senders) in context.shared_requests().filter(|(exchange, _)| exchange.committed().is_some()) {
        let codes: Vec<ErrorCode> = senders.iter().filter_map(|call| nothing_applied(call)).collect();
        if codes.len() == senders.len() {
            judgement.judged();
            let codes: Vec<String> = codes.iter().map(ErrorCode::to_string).collect();
            judgement.fail(
                format!(
                    "every call that may have sent request #{} says nothing was applied ({}), but it committed an effect",
                    exchange.record.index,
                    codes.join(", ")
                ),
                context.shared_evidence(exchange),
            );
        }
    }
    judgement.outcome()
}

/// The code of a call's answer when the code table says it means nothing was applied.
fn nothing_applied(call: &CallRecord) -> Option<ErrorCode> {
    call.code().filter(|code| code.info().effect == Effect::None)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_definite_failure_that_committed_nothing_passes() {
        history("submit refund_order -> dependency_unavailable reason=unavailable; request POST /refunds -> 503")
            .passes(&CHECK);
    }

    #[test]
    fn a_timeout_after_the_commit_reported_as_not_started_fails() {
        history("submit refund_order -> timeout_not_started; request POST /refunds -> committed fault=commit_then_delay,ms=4000")
            .fails(&CHECK, "timeout_not_started says nothing was applied, but request #0 committed an effect");
    }

    #[test]
    fn a_burst_commit_no_id_ties_to_a_call_fails_only_when_every_call_in_flight_said_nothing_was_applied() {
        let burst = |answers: &str| history(&format!("burst refund_order -> {answers}; request POST /refunds -> committed op"));
        burst("operation_in_progress; and -> ok").passes(&CHECK);
        burst("operation_in_progress; and -> dependency_unavailable reason=unavailable").fails(
            &CHECK,
            "every call that may have sent request #0 says nothing was applied (operation_in_progress, \
             dependency_unavailable), but it committed an effect",
        );
    }

    #[test]
    fn unknown_outcomes_and_successes_skip() {
        history("submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped; retry -> ok")
            .skips(&CHECK);
    }
}
