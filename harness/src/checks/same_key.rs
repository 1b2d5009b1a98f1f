//! `same-key`: every side-effecting request and status query of one business operation carries the same
//! Idempotency-Key, whatever the call_id.
//!
//! Rule enforced here: per operation, one key across all its keyed requests; no side-effecting request and no
//! status query without the header; a status query's `idempotency_key` parameter is the key its header carries
//! (a service that looks the operation up by header would otherwise answer "not found" and invite a resend).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::world::RequestRecord;

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
        for query in keyed.iter().filter(|exchange| exchange.record.status_query) {
            if let Some(problem) = status_query_key_problem(&query.record) {
                judgement.fail(problem, context.op_evidence(op));
            }
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

/// What is wrong with a status query's key, if anything: no header, or a query parameter that says another key.
fn status_query_key_problem(record: &RequestRecord) -> Option<String> {
    let index = record.index;
    let Some(header) = record.idempotency_key.as_deref() else {
        return Some(format!("status query #{index} carries no Idempotency-Key header"));
    };
    let query = record.path.split_once('?').map_or("", |(_, query)| query);
    let parameter = query.split('&').find_map(|pair| pair.strip_prefix("idempotency_key="))?;
    let parameter = percent_decoded(parameter);
    (parameter != header)
        .then(|| format!("status query #{index} asks for key `{parameter}` but its Idempotency-Key header says `{header}`"))
}

/// `text` with `%XX` escapes (and `+`) decoded; malformed escapes stay as they are.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escape = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3).and_then(|hex| u8::from_str_radix(hex, 16).ok()))
            .flatten();
        match (escape, bytes[at]) {
            (Some(byte), _) => {
                decoded.push(byte);
                at += 3;
            }
            (None, b'+') => {
                decoded.push(b' ');
                at += 1;
            }
            (None, byte) => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
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
    fn a_status_query_without_the_header_fails() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok reconciled; request GET /refunds?idempotency_key=k1 -> 200",
        )
        .fails(&CHECK, "status query #1 carries no Idempotency-Key header");
    }

    #[test]
    fn a_status_query_asking_for_another_key_than_its_header_fails() {
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok reconciled; request GET /refunds?idempotency_key=k2 -> 200 key=k1",
        )
        .fails(&CHECK, "status query #1 asks for key `k2` but its Idempotency-Key header says `k1`");
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k%201
             retry -> ok reconciled; request GET /refunds?idempotency_key=k%25201 -> 200 key=k%201",
        )
        .passes(&CHECK);
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
