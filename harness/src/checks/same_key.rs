//! `same-key`: every side-effecting request and status query of one business operation carries the same
//! Idempotency-Key, whatever the call_id.
//!
//! Rule enforced here: per operation, one key across all its keyed requests, and no side-effecting request
//! without one.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const SAME_KEY: CheckId = CheckId::new("same-key");

pub(super) const CHECK: Check = Check {
    id: SAME_KEY,
    level: Level::Must,
    rule: "every side-effecting request and status query of one business operation carries the same Idempotency-Key, whatever the call_id",
    seed_ref: "§5.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (op, operation) in context.side_effecting_operations() {
        let keyed: Vec<_> = context
            .transcript
            .exchanges_of_op(op)
            .filter(|exchange| exchange.record.side_effect || exchange.record.status_query)
            .collect();
        if keyed.is_empty() {
            continue;
        }
        judgement.judged();
        if let Some(unkeyed) =
            keyed.iter().find(|exchange| exchange.record.side_effect && exchange.record.idempotency_key.is_none())
        {
            judgement.fail(
                format!("request #{} has side effects but no Idempotency-Key", unkeyed.record.index),
                context.op_evidence(op),
            );
        }
        let mut keys: Vec<&str> =
            keyed.iter().filter_map(|exchange| exchange.record.idempotency_key.as_deref()).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.len() > 1 {
            judgement.fail(
                format!("operation `{}` used {} different keys", operation.name, keys.len()),
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
    fn one_key_across_attempts_and_the_status_query_passes() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok reconciled; request GET /refunds?idempotency_key=k1 -> 200 key=k1",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_new_key_per_attempt_fails() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok; request POST /refunds -> committed key=k2",
        )
        .fails(&CHECK, "operation `op1` used 2 different keys");
    }

    #[test]
    fn a_side_effect_without_a_key_fails() {
        history("submit refund_order -> ok; request POST /refunds -> committed")
            .fails(&CHECK, "request #0 has side effects but no Idempotency-Key");
    }

    #[test]
    fn operations_without_keyed_requests_skip() {
        history("submit refund_order -> forbidden; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }
}
