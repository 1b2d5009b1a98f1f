//! `output-invalid-withheld`: a result that breaks the output schema is answered output_invalid and never
//! passed on.
//!
//! Rule enforced here, in two parts:
//! - a call whose result came from an answer that met a `bad_output` fault with a success status (the last request
//!   to its tool's own endpoint or, when a status query came after it, that query's `completed` answer: a result
//!   found by reconciliation is output too) answers `output_invalid` without a result; a call refused before its
//!   tool ran never saw the output;
//! - no `ok` answer of a catalog tool carries a result that breaks the tool's output schema, wherever the result
//!   came from (a kept task answer, a cache, a replay). Judged with the schema read as plain JSON Schema: `12.0`
//!   is an integer, formats are annotations, and `additionalProperties` is left out, since how deep an executor
//!   projects the downstream's body onto the schema is its own choice (docs/protocol.md).

use super::{Check, CheckId, Context, Judgement, Level, Outcome, refused_up_front};
use callproof_executor::ErrorCode;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const OUTPUT_INVALID_WITHHELD: CheckId = CheckId::new("output-invalid-withheld");

pub(super) const CHECK: Check = Check {
    id: OUTPUT_INVALID_WITHHELD,
    level: Level::Must,
    rule: "a result that breaks the output schema is answered output_invalid and never passed on",
    seed_ref: "§7",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    let mut validators = Validators::default();
    for call in &context.transcript.calls {
        // The result comes from the call's last request to its tool's own endpoint (a read may look the same
        // resource up first, for authorization).
        let endpoint = context.main_endpoint(&call.tool);
        let last = context
            .transcript
            .exchanges_of_call(call.index)
            .filter(|exchange| exchange.record.status_query || exchange.record.endpoint == endpoint)
            .last();
        let broken = last.is_some_and(|exchange| {
            exchange.fault() == Some("bad_output")
                && exchange.record.status.is_some_and(|status| status < 300)
                && (!exchange.record.status_query || reports_completed(&exchange.record.reply))
        });
        if !broken || refused_up_front(call) {
            judge_passed_on_result(context, call, &mut validators, &mut judgement);
            continue;
        }
        judgement.judged();
        let withheld = call.code() == Some(ErrorCode::OutputInvalid)
            && call.envelope().is_some_and(|envelope| envelope.result().is_none());
        if !withheld {
            let answered = call.error().map_or("ok", |error| error.wire_code.as_str());
            judgement.fail(
                format!("the tool returned output that breaks its schema, and the call answered {answered}"),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// The second part of the rule: an `ok` answer's result conforms to its tool's output schema.
fn judge_passed_on_result<'a>(
    context: &Context<'_>,
    call: &'a crate::transcript::CallRecord,
    validators: &mut Validators<'a>,
    judgement: &mut Judgement,
) {
    let Some(result) = call.envelope().filter(|envelope| envelope.ok()).and_then(|envelope| envelope.result()) else {
        return;
    };
    let Some(validator) = validators.of(context, &call.tool) else { return };
    judgement.judged();
    if validator.is_valid(result) {
        return;
    }
    if let Some(error) = validator.iter_errors(result).next() {
        judgement.fail(
            format!(
                "the call answered ok with a result that breaks the output schema of {} (at \"{}\": {})",
                call.tool,
                error.instance_path(),
                error.kind().keyword()
            ),
            context.evidence(call),
        );
    }
}

/// The lenient validators one judgement has looked up, by tool (a transcript has few tools and many calls).
#[derive(Default)]
struct Validators<'a> {
    found: Vec<(&'a str, Option<Arc<jsonschema::Validator>>)>,
}

impl<'a> Validators<'a> {
    fn of(&mut self, context: &Context<'_>, tool: &'a str) -> Option<Arc<jsonschema::Validator>> {
        if let Some((_, validator)) = self.found.iter().find(|(known, _)| *known == tool) {
            return validator.clone();
        }
        let validator = context.tool(tool).and_then(|entry| lenient_validator(tool, &entry.spec.output_schema));
        self.found.push((tool, validator.clone()));
        validator
    }
}

/// The output schema of `tool` compiled as plain JSON Schema without `additionalProperties`, once per process
/// (by tool name, checked against the schema itself); `None` when it does not compile.
fn lenient_validator(tool: &str, schema: &Value) -> Option<Arc<jsonschema::Validator>> {
    type Compiled = HashMap<String, (Value, Option<Arc<jsonschema::Validator>>)>;
    static COMPILED: OnceLock<Mutex<Compiled>> = OnceLock::new();
    let mut compiled = COMPILED.get_or_init(Mutex::default).lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((known, validator)) = compiled.get(tool)
        && known == schema
    {
        return validator.clone();
    }
    let mut lenient = schema.clone();
    drop_additional_properties(&mut lenient);
    let validator =
        jsonschema::draft202012::options().should_validate_formats(false).build(&lenient).ok().map(Arc::new);
    compiled.insert(tool.to_owned(), (schema.clone(), validator.clone()));
    validator
}

/// Removes the `additionalProperties` keyword from a schema and every subschema (the members of `properties`,
/// `$defs` and `patternProperties` are subschemas, their names are not keywords).
fn drop_additional_properties(schema: &mut Value) {
    match schema {
        Value::Object(members) => {
            members.remove("additionalProperties");
            for (keyword, value) in members.iter_mut() {
                match (keyword.as_str(), value) {
                    ("properties" | "$defs" | "patternProperties", Value::Object(named)) => {
                        named.values_mut().for_each(drop_additional_properties);
                    }
                    (_, value) => drop_additional_properties(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_additional_properties),
        _ => {}
    }
}

/// Whether a status query's answer says the operation completed (and so carries its result).
fn reports_completed(reply: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(reply).is_ok_and(|body| body["status"] == "completed")
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const VALID_ORDER: &str = r#"result={"order_id":"ord_1","status":"paid","refundable_amount":100,"note":""}"#;

    #[test]
    fn broken_output_answered_output_invalid_passes() {
        history(
            "submit get_order -> output_invalid path=\"/amount\" keyword=type
             request GET /orders/ord_1 -> 200
             request GET /orders/ord_1 -> 200 fault=bad_output",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_broken_result_found_by_reconciliation_is_judged_like_the_tool_s_own() {
        let reconciled = |answer: &str| {
            format!(
                "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop
                 retry -> {answer}
                 request GET /refunds?idempotency_key=k1 -> 200 fault=bad_output reply={{\"status\":\"completed\"}}"
            )
        };
        history(&reconciled("ok reconciled"))
            .fails(&CHECK, "the tool returned output that breaks its schema, and the call answered ok");
        history(&reconciled("output_invalid path=\"/amount\" keyword=type")).passes(&CHECK);
        // A status query that found nothing carried no result to break: the result of the execution after it is
        // judged like any other.
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop
             retry -> ok result={\"refund_id\":\"rf_1\",\"order_id\":\"ord_1\",\"amount\":5,\"status\":\"completed\"}
             request GET /refunds?idempotency_key=k1 -> 404 fault=bad_output reply={\"status\":\"not_found\"}
             request POST /refunds -> committed",
        )
        .passes(&CHECK);
    }

    #[test]
    fn broken_output_passed_on_fails() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200 fault=bad_output")
            .fails(&CHECK, "the tool returned output that breaks its schema, and the call answered ok");
    }

    #[test]
    fn a_call_refused_before_its_tool_ran_and_unbroken_output_skip() {
        history("submit get_order -> forbidden; request GET /orders/ord_1 -> 200 fault=bad_output").skips(&CHECK);
        history("submit get_order -> forbidden; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }

    #[test]
    fn an_ok_result_that_breaks_the_output_schema_fails_wherever_it_came_from() {
        // A kept task answer, answered again without a request: the first poll met the broken output and refused
        // it, the second passed on what the executor kept.
        let kept = |second: &str| {
            format!(
                r#"submit task_status -> output_invalid path="/result/records" keyword=type
                   request GET /exports/exp_1 -> 200 fault=bad_output
                   submit task_status -> {second}"#
            )
        };
        let broken = r#"ok result={"task_id":"exp_1","status":"completed","result":{"account_id":"acct_1","records":"12","download_url":"https://x.test/d"}}"#;
        history(&kept(broken)).fails(
            &CHECK,
            "the call answered ok with a result that breaks the output schema of task_status (at \"/result/records\": type)",
        );
        history(&kept(&broken.replace(r#""12""#, "12"))).passes(&CHECK);
        history(&kept(r#"output_invalid path="/result/records" keyword=type"#)).passes(&CHECK);
        history(&format!("submit get_order -> ok {VALID_ORDER}; request GET /orders/ord_1 -> 200")).passes(&CHECK);
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200")
            .fails(&CHECK, "breaks the output schema of get_order (at \"\": required)");
    }

    #[test]
    fn plain_json_schema_decides_an_ok_result_integers_formats_and_extra_members_aside() {
        // 100.0 is an integer to JSON Schema, an unchecked format is an annotation, and an extra member is a
        // question of how deep the executor projects, not of validity.
        let order = r#"result={"order_id":"ord_1","status":"paid","refundable_amount":100.0,"note":"","more":{"x":1}}"#;
        history(&format!("submit get_order -> ok {order}; request GET /orders/ord_1 -> 200")).passes(&CHECK);
        let poll = r#"result={"task_id":"exp_1","status":"completed","result":{"account_id":"a","records":3,"download_url":"not-a-uri","extra":true}}"#;
        history(&format!("submit task_status -> ok {poll}; request GET /exports/exp_1 -> 200")).passes(&CHECK);
    }
}
