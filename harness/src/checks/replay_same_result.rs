//! `replay-same-result`: every successful answer of one business operation carries the same result.
//!
//! Rule enforced here: compared on operations of side-effecting tools with at least two successes, as JSON values
//! (numbers by value: a replay read back from a store may write `30` as `30.0`).

use super::json_values::same_value;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const REPLAY_SAME_RESULT: CheckId = CheckId::new("replay-same-result");

pub(super) const CHECK: Check = Check {
    id: REPLAY_SAME_RESULT,
    level: Level::Should,
    rule: "every successful answer of one business operation carries the same result",
    seed_ref: "§5.1",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.side_effecting_operations() {
        let results: Vec<_> = context
            .calls_of(operation)
            .filter_map(|call| call.envelope().filter(|envelope| envelope.ok()))
            .map(|envelope| envelope.result())
            .collect();
        if results.len() < 2 {
            continue;
        }
        judgement.judged();
        let same = |pair: &[Option<&Value>]| match pair {
            [Some(one), Some(other)] => same_value(one, other),
            [one, other] => one == other,
            _ => true,
        };
        if !results.windows(2).all(same) {
            judgement.fail(
                format!("operation `{}` answered success with different results", operation.name),
                context.op_evidence(op),
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn a_replay_of_the_same_result_passes() {
        history(r#"submit refund_order -> ok result={"refund_id":"rf_1"}; retry -> ok replayed result={"refund_id":"rf_1"}"#)
            .passes(&CHECK);
    }

    #[test]
    fn a_second_success_with_another_result_fails() {
        history(r#"submit refund_order -> ok result={"refund_id":"rf_1"}; retry -> ok result={"refund_id":"rf_2"}"#)
            .fails(&CHECK, "operation `op1` answered success with different results");
    }

    #[test]
    fn a_replay_that_writes_a_number_another_way_passes() {
        history(r#"submit refund_order -> ok result={"amount":30}; retry -> ok replayed result={"amount":30.0}"#)
            .passes(&CHECK);
    }

    #[test]
    fn a_single_success_skips() {
        history("submit refund_order -> ok; retry -> dependency_unavailable").skips(&CHECK);
    }
}
