//! `deadline-propagated`: every downstream request carries X-Deadline-Ms, and it says what is left of the
//! call's one deadline when the request is sent, not the whole budget again.
//!
//! Rule enforced here: the header is judged on every request; its value only where the request is tied to one
//! call, against that call's budget minus the time the harness saw pass between sending the call and the
//! request's arrival. The executor's own clock starts a little after the harness's and the request arrives a
//! little after it was sent, so the exact value sits between `left` (the harness's reading) and `left` plus
//! those two transit times: the upper bound allows [`TRANSIT_TOLERANCE_MS`] for them; the lower bound allows the
//! executor to keep up to half the time left for its own answer, so only a unit mistake or a constant trips it.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const DEADLINE_PROPAGATED: CheckId = CheckId::new("deadline-propagated");

/// How much later than the harness the executor may start its clock, plus the request's own transit, before a
/// header above the time left counts as an inflated deadline. Generous: on a loaded 2-core CI machine a loopback
/// request was seen to take over 500 ms, and the scenario that proves the check is 1.5 s over.
pub(super) const TRANSIT_TOLERANCE_MS: u64 = 1000;

pub(super) const CHECK: Check = Check {
    id: DEADLINE_PROPAGATED,
    level: Level::Must,
    rule: "every downstream request carries X-Deadline-Ms: the time left of the call's one deadline when it is sent",
    seed_ref: "§4.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.exchanges.is_empty());
    for exchange in &context.transcript.exchanges {
        let index = exchange.record.index;
        let Some(told) = exchange.record.deadline_ms.as_deref().and_then(|value| value.parse::<u64>().ok()) else {
            judgement.fail(format!("request #{index} carries no usable X-Deadline-Ms"), vec![exchange.line()]);
            continue;
        };
        let Some(call) = exchange.call.map(|call| &context.transcript.calls[call]) else { continue };
        if let Some(problem) = misstated(told, call, exchange) {
            judgement.fail(problem, vec![call.line(), exchange.line()]);
        }
    }
    judgement.outcome()
}

/// What is wrong with a request telling the downstream `told` ms are left of `call`'s budget, if anything.
fn misstated(told: u64, call: &CallRecord, exchange: &Exchange) -> Option<String> {
    let index = exchange.record.index;
    let budget = call.budget_ms;
    let elapsed = exchange.record.at_ms.saturating_sub(call.started_ms);
    let left = budget.saturating_sub(elapsed);
    if told > budget {
        return Some(format!("request #{index} says {told} ms are left of a {budget} ms budget"));
    }
    if told > left + TRANSIT_TOLERANCE_MS {
        return Some(format!(
            "request #{index} arrived {elapsed} ms into a {budget} ms budget, so at most {left} ms were left, but it \
             says {told} ms (the budget started again?)"
        ));
    }
    if told < left / 2 {
        return Some(format!(
            "request #{index} says {told} ms are left, but {left} ms of the {budget} ms budget were (a unit mistake?)"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn deadlines_that_say_the_time_left_pass() {
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=2990").passes(&CHECK);
        history(
            "submit refund_order budget=3000 -> ok; request GET /orders/ord_123 -> 200 deadline=2999; \
             request POST /refunds -> committed deadline=1990 after=1000",
        )
        .passes(&CHECK);
    }

    #[test]
    fn transit_and_a_reserve_for_the_answer_are_tolerated() {
        let late_start = format!("deadline={} after=1000", 2000 + TRANSIT_TOLERANCE_MS);
        history(&format!("submit refund_order budget=3000 -> ok; request POST /refunds -> committed {late_start}"))
            .passes(&CHECK);
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=1500")
            .passes(&CHECK);
    }

    #[test]
    fn a_missing_or_inflated_deadline_fails() {
        history("submit refund_order -> ok; request POST /refunds -> committed deadline=none")
            .fails(&CHECK, "request #0 carries no usable X-Deadline-Ms");
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=30000")
            .fails(&CHECK, "request #0 says 30000 ms are left of a 3000 ms budget");
    }

    #[test]
    fn the_whole_budget_again_after_a_slow_request_fails() {
        history(
            "submit refund_order budget=3000 -> ok; request GET /orders/ord_123 -> 200 deadline=3000; \
             request POST /refunds -> committed deadline=3000 after=1500",
        )
        .fails(&CHECK, "arrived 1500 ms into a 3000 ms budget, so at most 1500 ms were left, but it says 3000 ms");
    }

    #[test]
    fn seconds_for_milliseconds_fails() {
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=3")
            .fails(&CHECK, "says 3 ms are left, but 2999 ms of the 3000 ms budget were");
    }

    #[test]
    fn a_request_tied_to_no_call_is_judged_for_the_header_only() {
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=3 stray")
            .passes(&CHECK);
    }

    #[test]
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
