//! Checks on the answers themselves: shape, code table, secrets, pinned expectations, the corpus.

use super::{Check, Context, Level, Outcome, Violation};
use crate::transcript::Answer;
use crate::world::{EffectKind, LEAK_MARKERS};
use callproof_executor::ErrorCode;
use serde_json::Value;
use std::sync::OnceLock;

pub(super) const CHECKS: [Check; 7] = [
    Check {
        id: "envelope-schema",
        level: Level::Must,
        rule: "every answer is an envelope that validates against docs/envelope.schema.json",
        seed_ref: "§6.2",
        run: envelope_schema,
    },
    Check {
        id: "code-table",
        level: Level::Must,
        rule: "an error's category, retryable flag and resolution are the ones the code table gives its code",
        seed_ref: "§6.4",
        run: code_table,
    },
    Check {
        id: "no-secret-leak",
        level: Level::Must,
        rule: "no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body",
        seed_ref: "§6.2, §11",
        run: no_secret_leak,
    },
    Check {
        id: "expectations",
        level: Level::Must,
        rule: "the envelope fields and final ledger counts the scenario pins hold",
        seed_ref: "scenario",
        run: expectations,
    },
    Check {
        id: "malformed-input-refused",
        level: Level::Must,
        rule: "a call the contract's decoding rules refuse is refused with an input-layer error, never executed",
        seed_ref: "§2.1, §2.3",
        run: malformed_input_refused,
    },
    Check {
        id: "corpus-codes",
        level: Level::Must,
        rule: "each malformed-corpus case is refused with its code",
        seed_ref: "§2.3, §10 case 1",
        run: corpus_codes,
    },
    Check {
        id: "corpus-details",
        level: Level::Should,
        rule: "each malformed-corpus case carries the details that locate the problem",
        seed_ref: "§2.3",
        run: corpus_details,
    },
];

/// The envelope schema, compiled once.
fn envelope_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(include_str!("../../../docs/envelope.schema.json"))
            .expect("docs/envelope.schema.json is valid JSON");
        jsonschema::draft202012::options().build(&schema).expect("docs/envelope.schema.json is a valid schema")
    })
}

fn envelope_schema(context: &Context<'_>) -> Outcome {
    let validator = envelope_validator();
    let mut violations = Vec::new();
    for call in &context.transcript.calls {
        match &call.answer {
            Answer::Envelope(envelope) => {
                if let Some(error) = validator.iter_errors(envelope).next() {
                    violations.push(Violation {
                        message: format!(
                            "envelope does not match the schema at {}: {}",
                            error.instance_path().as_str(),
                            error.masked()
                        ),
                        evidence: context.evidence(call),
                    });
                }
            }
            Answer::Broken(why) => {
                violations.push(Violation { message: format!("no envelope: {why}"), evidence: context.evidence(call) })
            }
            Answer::NoAnswer | Answer::Killed => {}
        }
    }
    Outcome::from_violations(!context.transcript.calls.is_empty(), violations)
}

fn code_table(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let Some(error) = call.envelope().and_then(|envelope| envelope.get("error")) else { continue };
        applicable = true;
        let code = error["code"].as_str().unwrap_or_default();
        let Some(info) = ErrorCode::from_wire(code).map(ErrorCode::info) else {
            violations.push(Violation {
                message: format!("`{code}` is not a code of the table"),
                evidence: context.evidence(call),
            });
            continue;
        };
        let expected =
            serde_json::json!({"category": info.category, "retryable": info.retryable, "resolution": info.resolution});
        for field in ["category", "retryable", "resolution"] {
            if error[field] != expected[field] {
                violations.push(Violation {
                    message: format!("{code}: {field} is {} but the table says {}", error[field], expected[field]),
                    evidence: context.evidence(call),
                });
            }
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn no_secret_leak(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    for call in &context.transcript.calls {
        let Some(envelope) = call.envelope() else { continue };
        let text = envelope.to_string();
        let leaked: Vec<&str> =
            LEAK_MARKERS.iter().copied().filter(|marker| text.contains(&marker.replace('"', "\\\""))).collect();
        if !leaked.is_empty() {
            violations.push(Violation {
                message: format!("the envelope carries {leaked:?}"),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(!context.transcript.calls.is_empty(), violations)
}

fn expectations(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let Some(expect) = context.scenario.steps[call.step].expect() else { continue };
        applicable = true;
        let Some(envelope) = call.envelope() else {
            violations.push(Violation {
                message: "expected an envelope, got none".to_owned(),
                evidence: context.evidence(call),
            });
            continue;
        };
        let mismatches = expect.mismatches(envelope);
        if !mismatches.is_empty() {
            violations.push(Violation {
                message: format!("step {}: {}", call.step + 1, mismatches.join("; ")),
                evidence: context.evidence(call),
            });
        }
    }
    for (name, expected) in &context.scenario.expect_ledger {
        applicable = true;
        let mut ids: Vec<&str> = context
            .transcript
            .ledger
            .iter()
            .filter(|effect| effect_name(effect.kind) == name)
            .map(|effect| effect.effect_id.as_str())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != *expected {
            violations.push(Violation {
                message: format!("expected {expected} {name} in the ledger, found {}", ids.len()),
                evidence: context.transcript.lines(),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn effect_name(kind: EffectKind) -> &'static str {
    kind.name()
}

fn malformed_input_refused(context: &Context<'_>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let submitted = callproof_executor::ToolCall {
            call_id: call.call_id.clone(),
            name: call.tool.clone(),
            arguments: call.arguments.clone(),
        };
        let Some(refusal) = super::oracle::refusal(&submitted) else { continue };
        applicable = true;
        let Some(envelope) = call.envelope() else { continue };
        let category = envelope["error"]["category"].as_str();
        if !matches!(category, Some("input" | "protocol")) {
            violations.push(Violation {
                message: format!(
                    "the contract refuses these arguments ({}: {}), but the call answered {}",
                    refusal.code,
                    refusal.message,
                    envelope["error"]["code"].as_str().unwrap_or("ok")
                ),
                evidence: context.evidence(call),
            });
        }
    }
    Outcome::from_violations(applicable, violations)
}

fn corpus_codes(context: &Context<'_>) -> Outcome {
    corpus_check(context, |case, envelope| {
        let got = envelope["error"]["code"].as_str().unwrap_or("(ok)");
        (got != case.code).then(|| format!("case `{}`: expected {}, got {got}", case.name, case.code))
    })
}

fn corpus_details(context: &Context<'_>) -> Outcome {
    corpus_check(context, |case, envelope| {
        let want = case.details_json();
        let details = &envelope["error"]["details"];
        let wrong: Vec<String> = want
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| &details[key.as_str()] != *value)
            .map(|(key, value)| format!("{key}: expected {value}, got {}", details[key.as_str()]))
            .collect();
        (!wrong.is_empty()).then(|| format!("case `{}`: {}", case.name, wrong.join("; ")))
    })
}

fn corpus_check(context: &Context<'_>, judge: impl Fn(&crate::corpus::Case, &Value) -> Option<String>) -> Outcome {
    let mut violations = Vec::new();
    let mut applicable = false;
    for call in &context.transcript.calls {
        let Some(case) = call.corpus_case.as_deref().and_then(|name| context.corpus.case(name)) else { continue };
        applicable = true;
        let Some(envelope) = call.envelope() else { continue };
        if let Some(message) = judge(case, envelope) {
            violations.push(Violation { message, evidence: vec![call.line()] });
        }
    }
    Outcome::from_violations(applicable, violations)
}
