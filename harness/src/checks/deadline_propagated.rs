//! `deadline-propagated`: every downstream request carries X-Deadline-Ms, no more than the call's budget.
//!
//! Rule enforced here: judged on every request; the budget bound only where the request is tied to a call.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const DEADLINE_PROPAGATED: CheckId = CheckId::new("deadline-propagated");

pub(super) const CHECK: Check = Check {
    id: DEADLINE_PROPAGATED,
    level: Level::Should,
    rule: "every downstream request carries X-Deadline-Ms, no more than the call's budget",
    seed_ref: "§4.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.exchanges.is_empty());
    for exchange in &context.transcript.exchanges {
        let budget = exchange.call.map(|call| context.transcript.calls[call].budget_ms);
        let deadline = exchange.record.deadline_ms.as_deref().and_then(|value| value.parse::<u64>().ok());
        let index = exchange.record.index;
        match (deadline, budget) {
            (None, _) => judgement.fail(format!("request #{index} carries no usable X-Deadline-Ms"), vec![exchange.line()]),
            (Some(deadline), Some(budget)) if deadline > budget => judgement.fail(
                format!("request #{index} says {deadline} ms are left of a {budget} ms budget"),
                vec![exchange.line()],
            ),
            _ => {}
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn deadlines_within_the_budget_pass() {
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=2990").passes(&CHECK);
    }

    #[test]
    fn a_missing_or_inflated_deadline_fails() {
        history("submit refund_order -> ok; request POST /refunds -> committed deadline=none")
            .fails(&CHECK, "request #0 carries no usable X-Deadline-Ms");
        history("submit refund_order budget=3000 -> ok; request POST /refunds -> committed deadline=30000")
            .fails(&CHECK, "request #0 says 30000 ms are left of a 3000 ms budget");
    }

    #[test]
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
