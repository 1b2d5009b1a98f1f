//! Checks on unknown outcomes and keys: a timeout is not "not done", and a retry is the same operation.

use super::{Check, Context, Level, Outcome, Violation};
use crate::transcript::Answer;
use callproof_executor::ErrorCode;
use callproof_executor::error::Effect;

pub(super) const CHECKS: [Check; 4] = [
    Check {
        id: "unknown-outcome-not-retryable",
        level: Level::Must,
        rule: "a timeout after the effect committed, or a dropped answer, is timeout_unknown and never retryable",
        seed_ref: "§4.1, §4.3, §10 case 4",
        run: unknown_outcome_not_retryable,
    },
    Check {
        id: "reconcile-before-resend",
        level: Level::Must,
        rule: "after an unknown outcome, the operation's status is queried by its key before any new side-effecting request",
        seed_ref: "§5.3 UNKNOWN, §10 case 4",
        run: reconcile_before_resend,
    },
    Check {
        id: "same-key",
        level: Level::Must,
        rule: "every side-effecting request and status query of one business operation carries the same Idempotency-Key, whatever the call_id",
        seed_ref: "§5.2",
        run: same_key,
    },
    Check {
        id: "replay-same-result",
        level: Level::Should,
        rule: "every successful answer of one business operation carries the same result",
        seed_ref: "§5.1",
        run: replay_same_result,
    },
];

fn unknown_outcome_not_retryable(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let lost = context.transcript.exchanges_of_call(call.index).any(|exchange| {
            exchange.record.side_effect
                && exchange
                    .record
                    .fault
                    .as_ref()
                    .is_some_and(|(_, name)| name == "commit_then_drop" || name == "commit_then_delay")
        });
        if !lost || call.ok() {
            continue;
        }
        applicable = true;
        let envelope = call.envelope();
        let code = call.code().unwrap_or("(none)");
        let retryable = envelope.is_some_and(|envelope| envelope["error"]["retryable"] == true);
        if code != "timeout_unknown" || retryable {
            violations.push(Violation {
                message: format!(
                    "the effect committed and its answer was lost, but the call answered {code} retryable={retryable}"
                ),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn reconcile_before_resend(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        let Some(entry) = context.tool(&operation.tool) else { continue };
        if entry.spec.repeatable || !entry.spec.risk.has_side_effect() {
            continue;
        }
        let calls: Vec<_> = operation.calls.iter().map(|index| &context.transcript.calls[*index]).collect();
        // A call left the outcome unknown if it says so and its request did reach the downstream (a call that
        // sent nothing has nothing to reconcile, whatever it answered).
        let Some(unknown_at) = calls.iter().position(|call| {
            let unknown = call.answer == Answer::Killed
                || call.code().and_then(ErrorCode::from_wire).is_some_and(|code| code.info().effect == Effect::Unknown);
            unknown && context.transcript.exchanges_of_call(call.index).any(|exchange| exchange.record.side_effect)
        }) else {
            continue;
        };
        let later: Vec<_> =
            calls[unknown_at + 1..].iter().flat_map(|call| context.transcript.exchanges_of_call(call.index)).collect();
        if later.is_empty() {
            continue;
        }
        applicable = true;
        let first_send = later.iter().position(|exchange| exchange.record.side_effect);
        let first_query = later.iter().position(|exchange| exchange.record.status_query);
        if let Some(send) = first_send
            && first_query.is_none_or(|query| query > send)
        {
            violations.push(Violation {
                message: format!(
                    "after call #{} ended unknown, request #{} was sent again without a status query first",
                    calls[unknown_at].index, later[send].record.index
                ),
                evidence: context.op_evidence(op),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn same_key(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        if !context.has_side_effect(&operation.tool) {
            continue;
        }
        let keyed: Vec<_> = context
            .transcript
            .exchanges_of_op(op)
            .filter(|exchange| exchange.record.side_effect || exchange.record.status_query)
            .collect();
        if keyed.is_empty() {
            continue;
        }
        applicable = true;
        if let Some(unkeyed) =
            keyed.iter().find(|exchange| exchange.record.side_effect && exchange.record.idempotency_key.is_none())
        {
            violations.push(Violation {
                message: format!("request #{} has side effects but no Idempotency-Key", unkeyed.record.index),
                evidence: context.op_evidence(op),
            });
        }
        let mut keys: Vec<&str> =
            keyed.iter().filter_map(|exchange| exchange.record.idempotency_key.as_deref()).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.len() > 1 {
            violations.push(Violation {
                message: format!("operation `{}` used {} different keys", operation.name, keys.len()),
                evidence: context.op_evidence(op),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn replay_same_result(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        let results: Vec<_> = operation
            .calls
            .iter()
            .map(|index| &context.transcript.calls[*index])
            .filter(|call| call.ok())
            .filter_map(|call| call.envelope().map(|envelope| &envelope["result"]))
            .collect();
        if results.len() < 2 || !context.has_side_effect(&operation.tool) {
            continue;
        }
        applicable = true;
        if results.windows(2).any(|pair| pair[0] != pair[1]) {
            violations.push(Violation {
                message: format!("operation `{}` answered success with different results", operation.name),
                evidence: context.op_evidence(op),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}
