//! Checks on side effects: what reached the downstream and what the ledger holds, per call and per
//! business operation.

use super::{Check, Context, Level, Outcome, Violation};
use crate::world::{Handling, INJECTION};
use callproof_executor::ErrorCode;
use callproof_executor::error::{Category, Effect};

pub(super) const CHECKS: [Check; 7] = [
    Check {
        id: "rejection-has-no-effect",
        level: Level::Must,
        rule: "refused input reaches no downstream; a refused authorization reaches nothing but the lookup of the named resource",
        seed_ref: "§2.1, §3.1, §10 cases 1-2",
        run: rejection_has_no_effect,
    },
    Check {
        id: "single-effect",
        level: Level::Must,
        rule: "a business operation commits at most one effect across retries, duplicates, bursts and reconciliations",
        seed_ref: "§5.1, §12 Retry ⇒ SameBusinessOperation",
        run: single_effect,
    },
    Check {
        id: "ok-means-applied",
        level: Level::Must,
        rule: "a successful answer for a side-effecting tool means exactly one committed effect",
        seed_ref: "§5.1, §12",
        run: ok_means_applied,
    },
    Check {
        id: "failure-means-not-applied",
        level: Level::Must,
        rule: "an error whose code says nothing was applied comes from a call that committed nothing",
        seed_ref: "§4.1, §6.4",
        run: failure_means_not_applied,
    },
    Check {
        id: "burst-single-execution",
        level: Level::Must,
        rule: "N identical concurrent calls execute once; the others answer operation_in_progress or replay the result",
        seed_ref: "§5.3 IN_PROGRESS, §5.4",
        run: burst_single_execution,
    },
    Check {
        id: "conflict-on-changed-arguments",
        level: Level::Must,
        rule: "the same business request with changed arguments answers idempotency_conflict and sends nothing",
        seed_ref: "§5.2",
        run: conflict_on_changed_arguments,
    },
    Check {
        id: "injected-text-inert",
        level: Level::Must,
        rule: "tool output is data: text in a result triggers no side effect that no call asked for",
        seed_ref: "§7",
        run: injected_text_inert,
    },
];

fn category(code: &str) -> Option<Category> {
    ErrorCode::from_wire(code).map(|code| code.info().category)
}

fn rejection_has_no_effect(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let Some(category) = call.code().and_then(category) else { continue };
        let mut exchanges = context.transcript.exchanges_of_call(call.index);
        let offending = match category {
            // Only a refusal about the resource itself may have looked the resource up.
            Category::Authorization if about_resource(call) => {
                exchanges.find(|exchange| exchange.record.method != "GET" || exchange.record.status_query)
            }
            Category::Input | Category::Protocol | Category::Authorization => exchanges.next(),
            _ => continue,
        };
        applicable = true;
        if let Some(exchange) = offending {
            violations.push(Violation {
                message: format!(
                    "{} was refused, yet request #{} reached the downstream",
                    call.code().unwrap_or("?"),
                    exchange.record.index
                ),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

/// Canonical JSON of arguments as the harness reads them (raw text that is not JSON stays as it is).
fn canonical(arguments: &callproof_executor::Arguments) -> String {
    match arguments {
        callproof_executor::Arguments::Raw(text) => serde_json::from_str::<serde_json::Value>(text)
            .map(|value| callproof_executor::canonical::canonical_json(&value))
            .unwrap_or_else(|_| text.clone()),
        callproof_executor::Arguments::Value(value) => callproof_executor::canonical::canonical_json(value),
    }
}

/// Whether a refusal is about the resource (the only refusal that needs the resource loaded). Executors that
/// give no `details.reason` get the benefit of the doubt.
fn about_resource(call: &crate::transcript::CallRecord) -> bool {
    call.envelope()
        .and_then(|envelope| envelope["error"]["details"]["reason"].as_str())
        .is_none_or(|reason| reason == "resource_not_accessible")
}

fn single_effect(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        if !context.has_side_effect(&operation.tool) {
            continue;
        }
        applicable = true;
        let effects = context.transcript.effects_of_op(op);
        if effects.len() > 1 {
            let ids: Vec<&str> = effects.iter().map(|effect| effect.effect_id.as_str()).collect();
            violations.push(Violation {
                message: format!("operation `{}` committed {} effects: {ids:?}", operation.name, effects.len()),
                evidence: context.op_evidence(op),
            });
        }
    }
    // Requests no call can be tied to may hide a second effect: a committed one is a violation of its own.
    for exchange in context.transcript.exchanges.iter().filter(|exchange| exchange.op.is_none()) {
        if let Handling::Committed(_) = exchange.record.handling {
            applicable = true;
            violations.push(Violation {
                message: format!(
                    "request #{} committed an effect that no call of the scenario accounts for",
                    exchange.record.index
                ),
                evidence: vec![exchange.line()],
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn ok_means_applied(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        if !context.has_side_effect(&operation.tool) {
            continue;
        }
        let Some(ok_call) =
            operation.calls.iter().map(|index| &context.transcript.calls[*index]).find(|call| call.ok())
        else {
            continue;
        };
        applicable = true;
        let effects = context.transcript.effects_of_op(op).len();
        if effects != 1 {
            violations.push(Violation {
                message: format!(
                    "call #{} answered ok, but operation `{}` committed {effects} effects",
                    ok_call.index, operation.name
                ),
                evidence: context.op_evidence(op),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn failure_means_not_applied(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let Some(code) = call.code().and_then(ErrorCode::from_wire) else { continue };
        if code.info().effect != Effect::None {
            continue;
        }
        applicable = true;
        let committed = context
            .transcript
            .exchanges_of_call(call.index)
            .find(|exchange| matches!(exchange.record.handling, Handling::Committed(_)));
        if let Some(exchange) = committed {
            violations.push(Violation {
                message: format!(
                    "{code} says nothing was applied, but request #{} committed an effect",
                    exchange.record.index
                ),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn burst_single_execution(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for (op, operation) in context.transcript.operations.iter().enumerate() {
        if !context.has_side_effect(&operation.tool) {
            continue;
        }
        let mut bursts: std::collections::BTreeMap<usize, Vec<&crate::transcript::CallRecord>> =
            std::collections::BTreeMap::new();
        for call in
            operation.calls.iter().map(|index| &context.transcript.calls[*index]).filter(|call| call.action == "burst")
        {
            bursts.entry(call.step).or_default().push(call);
        }
        for calls in bursts.values().filter(|calls| calls.len() > 1) {
            // A fault that fails the execution (anything but holding requests back) lets a duplicate legitimately
            // take over (a retry after a known failure, a reconciliation after an unknown one): such bursts are
            // judged by the effect checks, not by this one.
            let exchanges: Vec<_> =
                calls.iter().flat_map(|call| context.transcript.exchanges_of_call(call.index)).collect();
            if exchanges
                .iter()
                .any(|exchange| exchange.record.fault.as_ref().is_some_and(|(_, fault)| fault != "hold_until"))
            {
                continue;
            }
            applicable = true;
            let sends = exchanges.iter().filter(|exchange| exchange.record.side_effect).count();
            if sends > 1 {
                violations.push(Violation {
                    message: format!("a burst of {} identical calls sent {sends} side-effecting requests", calls.len()),
                    evidence: context.op_evidence(op),
                });
            }
            let executed: Vec<_> = calls
                .iter()
                .filter(|call| {
                    call.ok() && call.envelope().is_some_and(|envelope| envelope["meta"]["replayed"] != true)
                })
                .collect();
            if executed.len() > 1 {
                violations.push(Violation {
                    message: format!("{} calls of one burst executed", executed.len()),
                    evidence: context.op_evidence(op),
                });
            }
            let Some(winner) = executed.first().and_then(|call| call.envelope()) else { continue };
            for call in calls.iter().filter(|call| call.index != executed[0].index) {
                let envelope = call.envelope();
                let waited = call.code() == Some("operation_in_progress");
                let replayed = call.ok() && envelope.is_some_and(|envelope| envelope["result"] == winner["result"]);
                if !waited && !replayed {
                    violations.push(Violation {
                        message: format!(
                            "a duplicate in a burst answered {}",
                            call.code().unwrap_or("a different result")
                        ),
                        evidence: context.evidence(call),
                    });
                }
            }
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn conflict_on_changed_arguments(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in context.transcript.calls.iter().filter(|call| call.action == "changed") {
        // Only a business request an earlier call recorded (got past authorization) can conflict; a changed
        // call refused for its own input or authorization never gets as far as the record.
        let operation = &context.transcript.operations[call.op];
        if !context.has_side_effect(&operation.tool) {
            continue;
        }
        // The first earlier call that got past authorization is the one whose arguments were recorded.
        let recorded = operation
            .calls
            .iter()
            .take_while(|earlier| **earlier != call.index)
            .map(|earlier| &context.transcript.calls[*earlier])
            .find(|earlier| match earlier.code().and_then(category) {
                Some(Category::Input | Category::Protocol | Category::Authorization) => false,
                Some(_) => true,
                None => {
                    earlier.ok()
                        || context
                            .transcript
                            .exchanges_of_call(earlier.index)
                            .any(|exchange| exchange.record.side_effect)
                }
            });
        // Changed back to what was recorded is a plain retry, not a conflict.
        if recorded.is_none_or(|recorded| canonical(&recorded.arguments) == canonical(&call.arguments)) {
            continue;
        }
        let refused_first = matches!(
            call.code().and_then(category),
            Some(Category::Input | Category::Protocol | Category::Authorization)
        );
        if refused_first {
            continue;
        }
        applicable = true;
        if call.code() != Some("idempotency_conflict") {
            violations.push(Violation {
                message: format!(
                    "changed arguments under one business request answered {}",
                    call.code().unwrap_or("ok")
                ),
                evidence: context.evidence(call),
            });
        }
        if let Some(exchange) =
            context.transcript.exchanges_of_call(call.index).find(|exchange| exchange.record.side_effect)
        {
            violations.push(Violation {
                message: format!("changed arguments reached the downstream as request #{}", exchange.record.index),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn injected_text_inert(context: &Context<'_>) -> Outcome {
    let injected = context.transcript.exchanges.iter().any(|exchange| {
        exchange.record.fault.as_ref().is_some_and(|(_, name)| name == "inject_text")
            || exchange.record.reply.contains(&INJECTION[..20])
    });
    if !injected {
        return Outcome::Skip;
    }
    let mut violations = Vec::new();
    for exchange in context.transcript.exchanges.iter().filter(|exchange| exchange.record.side_effect) {
        let asked = exchange
            .call
            .map(|index| &context.transcript.calls[index])
            .is_some_and(|call| main_endpoint(context, &call.tool) == exchange.record.endpoint);
        if !asked {
            violations.push(Violation {
                message: format!(
                    "request #{} ({}) was sent without any call asking for it",
                    exchange.record.index, exchange.record.endpoint
                ),
                evidence: context.transcript.lines(),
            });
        }
    }
    Outcome::from_violations(true, violations)
}

/// The endpoint of a tool's invoke request, e.g. `POST /refunds`.
pub(super) fn main_endpoint(context: &Context<'_>, tool: &str) -> String {
    let invoke = context.tool(tool).map_or("", |entry| entry.downstream.invoke.as_str());
    let (method, path) = invoke.split_once(' ').unwrap_or(("GET", invoke));
    crate::world::endpoint_of(method, path.split('?').next().unwrap_or(path))
}
