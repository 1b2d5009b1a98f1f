//! `deadline-propagated`: every downstream request carries X-Deadline-Ms, and it says what is left of the
//! call's one deadline when the request is sent, not the whole budget again.
//!
//! Rule enforced here: the header is judged on every request; its value only where the request is tied to one
//! call, against that call's budget minus the time the harness saw pass between sending the call and the
//! request's arrival. The executor's own clock starts a little after the harness's and the request arrives a
//! little after it was sent, so the exact value sits between `left` (the harness's reading) and `left` plus
//! those two transit times: the upper bound allows [`TRANSIT_TOLERANCE_MS`] for them; the lower bound allows the
//! executor to keep up to half the time left for its own answer, so only a unit mistake or a constant trips it.
//! A request tied to its operation but to none of the calls in flight is judged against each of them and fails
//! only when its value is wrong for every one (the calls of a burst start within moments of each other).

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
        let senders = context.transcript.senders(exchange);
        let problems: Vec<String> = senders.iter().filter_map(|call| misstated(told, call, exchange)).collect();
        if let Some(problem) = problems.first().filter(|_| problems.len() == senders.len()) {
            let mut evidence: Vec<String> = senders.iter().map(|call| call.line()).collect();
            evidence.push(exchange.line());
            judgement.fail(problem.clone(), evidence);
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
    fn a_request_no_id_ties_to_a_call_fails_only_when_wrong_for_every_call_in_flight() {
        let burst = |deadline: &str| {
            history(&format!(
                "burst refund_order budget=3000 -> ok; and budget=3000 -> operation_in_progress
                 request POST /refunds -> committed deadline={deadline} op"
            ))
        };
        burst("2990").passes(&CHECK);
        burst("3").fails(&CHECK, "says 3 ms are left");
    }

    #[test]
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
