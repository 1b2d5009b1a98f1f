//! `envelope-schema`: every answer is an envelope that validates against docs/envelope.schema.json.
//!
//! Rule enforced here: the schema, not the harness's reading of the envelope, decides the shape; an answer that
//! is not an envelope at all, or a subject that broke, fails here. A refusal the transport carried instead of
//! an envelope (an MCP -32700 to a text that is not JSON, docs/mcp.md) has no envelope to judge and passes.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::Answer;
use serde_json::Value;
use std::sync::OnceLock;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const ENVELOPE_SCHEMA: CheckId = CheckId::new("envelope-schema");

pub(super) const CHECK: Check = Check {
    id: ENVELOPE_SCHEMA,
    level: Level::Must,
    rule: "every answer is an envelope that validates against docs/envelope.schema.json",
    seed_ref: "§6.2",
    run,
};

/// The envelope schema, compiled once.
fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let schema: Value = serde_json::from_str(include_str!("../../../docs/envelope.schema.json"))
            .expect("docs/envelope.schema.json is valid JSON");
        jsonschema::draft202012::options().build(&schema).expect("docs/envelope.schema.json is a valid schema")
    })
}

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.calls.is_empty());
    for call in context.transcript.calls.iter().filter(|call| call.refusal.is_none()) {
        let message = match &call.answer {
            Answer::Envelope(_) | Answer::Malformed(_) => {
                let raw = call.answer.raw().unwrap_or(&Value::Null);
                // `is_valid` first: it stops at the first mismatch and builds no error, and nearly every
                // envelope is valid (exploration judges each one again after every later step).
                let first_error = if validator().is_valid(raw) { None } else { validator().iter_errors(raw).next() };
                match first_error {
                    Some(error) => format!(
                        "envelope does not match the schema at {}: {}",
                        error.instance_path().as_str(),
                        error.masked()
                    ),
                    None => match &call.answer {
                        Answer::Malformed(malformed) => format!("no envelope: {}", malformed.why),
                        _ => continue,
                    },
                }
            }
            Answer::Broken(why) => format!("no envelope: {why}"),
            Answer::NoAnswer | Answer::Killed => continue,
        };
        judgement.fail(message, context.evidence(call));
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn envelopes_that_follow_the_schema_pass() {
        history("submit refund_order -> ok; retry -> timeout_unknown reason=deadline_elapsed").passes(&CHECK);
    }

    #[test]
    fn flags_that_disagree_with_the_code_break_the_schema() {
        history("submit refund_order -> timeout_unknown retryable=true").fails(&CHECK, "does not match the schema");
    }

    #[test]
    fn an_answer_that_is_no_envelope_or_a_broken_subject_fails() {
        history("submit refund_order -> garbage").fails(&CHECK, "does not match the schema");
        history("submit refund_order -> broken").fails(&CHECK, "no envelope: the process exited");
    }

    #[test]
    fn a_transport_refusal_has_no_envelope_to_judge_but_the_same_answer_from_an_executor_fails() {
        // The harness's envelope for a -32700 has no details; only the out-of-band refusal excuses that.
        history("corpus refund_order case=truncated_object -> invalid_json -32700").passes(&CHECK);
        history("corpus refund_order case=truncated_object -> invalid_json").fails(&CHECK, "does not match the schema");
    }

    #[test]
    fn attempts_count_from_one() {
        let with_attempt = |attempt: u64| {
            history("submit refund_order -> ok").with_call(0, |call| {
                let mut raw = call.answer.raw().cloned().unwrap_or_default();
                raw["meta"]["attempt"] = attempt.into();
                call.answer = Answer::read(raw);
            })
        };
        with_attempt(1).passes(&CHECK);
        with_attempt(0).fails(&CHECK, "does not match the schema");
    }

    #[test]
    fn a_killed_call_is_not_judged_and_no_calls_skip() {
        history("submit refund_order -> killed").passes(&CHECK);
        history("").skips(&CHECK);
    }
}
