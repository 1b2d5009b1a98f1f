//! Checks on time and on answers to downstream faults: deadlines, leases, rate limits, bad output.

use super::{Check, Context, Level, Outcome, Violation};
use crate::transcript::Answer;
use callproof_executor::error::Category;

/// How far past its budget an answer may arrive and still count as on time. Wide on purpose: the suite runs
/// on loaded 2-core CI machines, and the check is about not hanging, not about milliseconds.
pub(crate) const DEADLINE_MARGIN_MS: u64 = 1500;

pub(super) const CHECKS: [Check; 6] = [
    Check {
        id: "answer-within-deadline",
        level: Level::Must,
        rule: "every call is answered within its budget plus 1.5 s",
        seed_ref: "§4.2",
        run: answer_within_deadline,
    },
    Check {
        id: "lease-honoured",
        level: Level::Must,
        rule: "no idempotency record stays IN_PROGRESS past its lease",
        seed_ref: "§5.4",
        run: lease_honoured,
    },
    Check {
        id: "rate-limit-retry-after",
        level: Level::Must,
        rule: "rate_limited carries details.retry_after_ms, the downstream's Retry-After when it gave one",
        seed_ref: "§6.4",
        run: rate_limit_retry_after,
    },
    Check {
        id: "output-invalid-withheld",
        level: Level::Must,
        rule: "a result that breaks the output schema is answered output_invalid and never passed on",
        seed_ref: "§7",
        run: output_invalid_withheld,
    },
    Check {
        id: "deadline-propagated",
        level: Level::Should,
        rule: "every downstream request carries X-Deadline-Ms, no more than the call's budget",
        seed_ref: "§4.2",
        run: deadline_propagated,
    },
    Check {
        id: "request-id-propagated",
        level: Level::Should,
        rule: "every downstream request carries X-Request-Id, the request_id of the envelope it served",
        seed_ref: "§11",
        run: request_id_propagated,
    },
];

fn answer_within_deadline(context: &Context<'_>) -> Outcome {
    let violations = context
        .transcript
        .calls
        .iter()
        .filter(|call| call.answer != Answer::Killed)
        .filter(|call| {
            call.envelope().is_none()
                || call.answered_ms.saturating_sub(call.started_ms) > call.budget_ms + DEADLINE_MARGIN_MS
        })
        .map(|call| Violation {
            message: format!(
                "answered after {} ms with a budget of {} ms",
                call.answered_ms.saturating_sub(call.started_ms),
                call.budget_ms
            ),
            evidence: context.evidence(call),
        })
        .collect();
    Outcome::from_violations(!context.transcript.calls.is_empty(), violations)
}

fn lease_honoured(context: &Context<'_>) -> Outcome {
    let Some(records) = &context.transcript.records else { return Outcome::Skip };
    // A holder killed mid-flight cannot settle its record; the lease exists for exactly that case, and the
    // record expires into UNKNOWN on the next claim (the crash scenarios check that path). Only records whose
    // holders lived are judged here.
    let orphaned = |key: &str| {
        context.transcript.operations.iter().any(|operation| {
            let calls: Vec<_> = operation.calls.iter().map(|index| &context.transcript.calls[*index]).collect();
            calls.iter().any(|call| call.answer == Answer::Killed)
                && calls
                    .iter()
                    .any(|call| call.envelope().is_some_and(|envelope| envelope["meta"]["idempotency_key"] == key))
        })
    };
    let violations = records
        .iter()
        .filter(|record| {
            record.state == callproof_executor::idempotency::State::InProgress
                && record.lease_expires_ms < context.transcript.records_read_at_ms
                && !orphaned(&record.key)
        })
        .map(|record| Violation {
            message: format!(
                "key {} is IN_PROGRESS {} ms past its lease",
                crate::transcript::short(&record.key),
                context.transcript.records_read_at_ms - record.lease_expires_ms
            ),
            evidence: Vec::new(),
        })
        .collect();
    Outcome::from_violations(!records.is_empty(), violations)
}

fn rate_limit_retry_after(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in context.transcript.calls.iter().filter(|call| call.code() == Some("rate_limited")) {
        applicable = true;
        let told = call.envelope().and_then(|envelope| envelope["error"]["details"]["retry_after_ms"].as_u64());
        let said = context
            .transcript
            .exchanges_of_call(call.index)
            .filter(|exchange| exchange.record.status == Some(429))
            .find_map(|exchange| {
                context.scenario.steps[exchange.record.fault.as_ref()?.0].faults().iter().find_map(|fault| match fault
                    .kind
                {
                    crate::world::FaultKind::RateLimit { retry_after } => Some(retry_after * 1000),
                    _ => None,
                })
            });
        match (told, said) {
            (None, _) => violations.push(Violation {
                message: "rate_limited without details.retry_after_ms".to_owned(),
                evidence: context.evidence(call),
            }),
            (Some(told), Some(said)) if told != said => violations.push(Violation {
                message: format!("the downstream said Retry-After {said} ms, the envelope says {told} ms"),
                evidence: context.evidence(call),
            }),
            _ => {}
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn output_invalid_withheld(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        // The result comes from the call's last request to its tool's own endpoint (a read may look the same
        // resource up first, for authorization).
        let endpoint = super::effects::main_endpoint(context, &call.tool);
        let last = context
            .transcript
            .exchanges_of_call(call.index)
            .filter(|exchange| exchange.record.endpoint == endpoint && !exchange.record.status_query)
            .last();
        let broken = last.is_some_and(|exchange| {
            exchange.record.fault.as_ref().is_some_and(|(_, name)| name == "bad_output")
                && exchange.record.status.is_some_and(|status| status < 300)
        });
        // A call refused before the tool ran (input, authorization) never saw the output: only its lookup did.
        let refused_first = call.code().and_then(callproof_executor::ErrorCode::from_wire).is_some_and(|code| {
            matches!(code.info().category, Category::Input | Category::Protocol | Category::Authorization)
        });
        if !broken || refused_first {
            continue;
        }
        applicable = true;
        let envelope = call.envelope();
        if call.ok()
            || call.code() != Some("output_invalid")
            || envelope.is_some_and(|envelope| envelope.get("result").is_some())
        {
            violations.push(Violation {
                message: format!(
                    "the tool returned output that breaks its schema, and the call answered {}",
                    call.code().unwrap_or("ok")
                ),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn deadline_propagated(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    for exchange in &context.transcript.exchanges {
        let budget = exchange.call.map(|call| context.transcript.calls[call].budget_ms);
        let deadline = exchange.record.deadline_ms.as_deref().and_then(|value| value.parse::<u64>().ok());
        match (deadline, budget) {
            (None, _) => violations.push(Violation {
                message: format!("request #{} carries no usable X-Deadline-Ms", exchange.record.index),
                evidence: vec![exchange.line()],
            }),
            (Some(deadline), Some(budget)) if deadline > budget => violations.push(Violation {
                message: format!(
                    "request #{} says {deadline} ms are left of a {budget} ms budget",
                    exchange.record.index
                ),
                evidence: vec![exchange.line()],
            }),
            _ => {}
        }
    }
    Outcome::from_violations(!context.transcript.exchanges.is_empty(), violations)
}

fn request_id_propagated(context: &Context<'_>) -> Outcome {
    let violations = context
        .transcript
        .exchanges
        .iter()
        // A call that never answered (killed) has no request id to compare with.
        .filter(|exchange| exchange.call.is_none_or(|call| context.transcript.calls[call].envelope().is_some()))
        .filter(|exchange| {
            let served = exchange
                .call
                .and_then(|call| context.transcript.calls[call].envelope())
                .and_then(|envelope| envelope["meta"]["request_id"].as_str());
            served.is_none() || exchange.record.request_id.as_deref() != served
        })
        .map(|exchange| Violation {
            message: format!("request #{} cannot be tied to its call by X-Request-Id", exchange.record.index),
            evidence: vec![exchange.line()],
        })
        .collect();
    Outcome::from_violations(!context.transcript.exchanges.is_empty(), violations)
}
