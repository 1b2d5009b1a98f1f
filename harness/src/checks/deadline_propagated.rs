//! `deadline-propagated`: every downstream request carries X-Deadline-Ms, and it says what is left of the
//! call's one deadline when the request is sent, not the whole budget again.
//!
//! Rule enforced here: the header is judged on every request; its value only where the request is tied to a
//! call, and only against bounds that load on the machine cannot move, so a slow CI machine never fails a
//! correct executor:
//! - never more than the call's budget;
//! - never less than half of what the harness saw left (budget minus the time from sending the call to the
//!   request's arrival): the executor's clock starts after the harness's and the request arrives after it was
//!   sent, so the true value is at least that; half leaves the executor a reserve for its own answer, and a
//!   unit mistake or a constant still trips it;
//! - after an earlier request of the same call whose answer the harness held back for `held` ms, never more
//!   than that request's value minus `held`: an executor that waits for an answer before it sends the next
//!   request has seen at least `held` ms pass. [`PIPELINE_TOLERANCE_MS`] allows for an executor that prepared
//!   the next request before the answer came.
//!
//! A request tied to its operation but to none of the calls in flight is judged against each of them and fails
//! only when its value is wrong for every one (the calls of a burst start within moments of each other).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use crate::world::parse_deadline_ms;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const DEADLINE_PROPAGATED: CheckId = CheckId::new("deadline-propagated");

/// How much more than "the earlier request's value minus the time its answer was held" a later request of the
/// same call may say: zero for an executor that sends one request after another; this much for one that built
/// the next request while the earlier answer was on its way. Below the 1.5 s that `deadline/slow_lookup_then_effect`
/// holds its lookup, so an executor that gives every hop the whole budget again still trips it.
pub(super) const PIPELINE_TOLERANCE_MS: u64 = 1000;

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
    for (position, exchange) in context.transcript.exchanges.iter().enumerate() {
        let index = exchange.record.index;
        let Some(told) = told_of(exchange) else {
            let problem = match exchange.record.deadline_ms.as_deref() {
                None => format!("request #{index} carries no X-Deadline-Ms"),
                Some(value) => format!("request #{index} carries X-Deadline-Ms {value:?}, not a number of milliseconds"),
            };
            judgement.fail(problem, vec![exchange.line()]);
            continue;
        };
        let senders = context.transcript.senders(exchange);
        let problems: Vec<String> = senders.iter().filter_map(|call| misstated(told, call, exchange)).collect();
        if let Some(problem) = problems.first().filter(|_| problems.len() == senders.len()) {
            let mut evidence: Vec<String> = senders.iter().map(|call| call.line()).collect();
            evidence.push(exchange.line());
            judgement.fail(problem.clone(), evidence);
            continue;
        }
        let earlier = &context.transcript.exchanges[..position];
        if let Some((problem, before)) = restarted(told, exchange, earlier) {
            let call = exchange.call.map(|call| context.transcript.calls[call].line());
            judgement.fail(problem, call.into_iter().chain([before.line(), exchange.line()]).collect());
        }
    }
    judgement.outcome()
}

/// The X-Deadline-Ms value of `exchange`, when it has a usable one.
fn told_of(exchange: &Exchange) -> Option<u64> {
    exchange.record.deadline_ms.as_deref().and_then(parse_deadline_ms)
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
    if told < left / 2 {
        return Some(format!(
            "request #{index} says {told} ms are left, but {left} ms of the {budget} ms budget were (a unit mistake?)"
        ));
    }
    None
}

/// An earlier request of the same call whose held answer `exchange` ignores, with what is wrong, if any: its
/// value is more than the earlier one's minus the time that answer was held (plus the pipelining tolerance).
fn restarted<'a>(told: u64, exchange: &Exchange, earlier: &'a [Exchange]) -> Option<(String, &'a Exchange)> {
    let call = exchange.call?;
    earlier.iter().filter(|before| before.call == Some(call)).find_map(|before| {
        let answered = before.record.answered_ms.filter(|answered| *answered <= exchange.record.at_ms)?;
        let held = answered.saturating_sub(before.record.at_ms);
        let said = told_of(before)?;
        let at_most = said.saturating_sub(held);
        (told > at_most + PIPELINE_TOLERANCE_MS).then(|| {
            let (index, first) = (exchange.record.index, before.record.index);
            let problem = format!(
                "request #{index} says {told} ms are left, but request #{first} of the same call said {said} ms \
                 and its answer was held {held} ms, so at most {at_most} ms were left (the budget started again?)"
            );
            (problem, before)
        })
    })
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
    fn a_late_start_and_a_reserve_for_the_answer_are_tolerated() {
        // A loaded machine: the executor started its clock (or the request travelled) 2 s after the harness sent.
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=3000 after=2000")
            .passes(&CHECK);
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=1500")
            .passes(&CHECK);
    }

    #[test]
    fn a_decimal_deadline_is_read_rounded_down() {
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=2987.431")
            .passes(&CHECK);
        assert_eq!(parse_deadline_ms(" 2987.9 "), Some(2987));
        for refused in ["NaN", "inf", "-1", "1e400", ""] {
            assert_eq!(parse_deadline_ms(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_missing_or_inflated_deadline_fails() {
        history("submit refund_order -> ok; request POST /refunds -> committed deadline=none")
            .fails(&CHECK, "request #0 carries no X-Deadline-Ms");
        history("submit refund_order -> ok; request POST /refunds -> committed deadline=soon")
            .fails(&CHECK, "request #0 carries X-Deadline-Ms \"soon\", not a number of milliseconds");
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=30000")
            .fails(&CHECK, "request #0 says 30000 ms are left of a 3000 ms budget");
    }

    #[test]
    fn the_whole_budget_again_after_a_held_answer_fails() {
        let after_lookup = |deadline: u64| {
            history(&format!(
                "submit refund_order budget=4000 -> ok; request GET /orders/ord_123 -> 200 deadline=4000 answered=1501; \
                 request POST /refunds -> committed deadline={deadline} after=1600"
            ))
        };
        after_lookup(4000).fails(
            &CHECK,
            "request #1 says 4000 ms are left, but request #0 of the same call said 4000 ms and its answer was held \
             1500 ms, so at most 2500 ms were left",
        );
        after_lookup(2500).passes(&CHECK);
        after_lookup(2500 + PIPELINE_TOLERANCE_MS).passes(&CHECK);
        after_lookup(2501 + PIPELINE_TOLERANCE_MS).fails(&CHECK, "the budget started again?");
    }

    #[test]
    fn a_request_sent_before_the_earlier_answer_left_is_not_compared_with_it() {
        history(
            "submit refund_order budget=4000 -> ok; request GET /orders/ord_123 -> 200 deadline=4000 answered=1501; \
             request POST /refunds -> committed deadline=4000 after=1000",
        )
        .passes(&CHECK);
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
