//! `bad_output`: the downstream commits and answers a body that breaks the tool's output schema.
//!
//! Rule enforced here: only a successful answer is broken (an error answer has no output to break), and the
//! broken field is one the tool's output schema pins.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Commit, then answer with a body that breaks the tool's output schema (e.g. amount as a string).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BadOutput {}

impl Rule for BadOutput {
    fn after_commit(&mut self, request: &Request<'_>, answer: &mut Outgoing) -> After {
        if answer.is_success() {
            break_output(request.endpoint, &mut answer.body);
        }
        After::Pass
    }
}

impl Fault for BadOutput {
    fn generated() -> Vec<Generated> {
        vec![Generated::new("bad_output", |_| FaultKind::BadOutput(BadOutput {}).into())]
    }
}

/// Breaks one field of a successful answer so that it violates the tool's output schema: a declared member, never
/// an extra one, which the projection onto the schema's properties would rightly drop. A status query's answer
/// (`GET /refunds?idempotency_key=K` and friends) carries the result of a completed operation in its `result`
/// member: that result is broken, as the tool's own answer would be, so that a result found by reconciliation is
/// put to the same test.
fn break_output(endpoint: &str, body: &mut Value) {
    let own_endpoint = match endpoint {
        "GET /refunds" => Some("POST /refunds"),
        "GET /emails" => Some("POST /emails"),
        "GET /deletions" => Some("DELETE /accounts"),
        // The export service answers a task's poll and the submission's status query at the same endpoint; only
        // a poll's answer names its task.
        "GET /exports" if body.get("task_id").is_none() => Some("POST /exports"),
        _ => None,
    };
    if let Some(own_endpoint) = own_endpoint {
        if let Some(result) = body.get_mut("result").filter(|result| result.is_object()) {
            break_output(own_endpoint, result);
        }
        return;
    }
    // A finished job's poll answer carries the export's result: that is what gets broken, so that the answer still
    // reads as final (an executor keeps the first final answer of a handle, docs/conformance-app.md) and breaks the
    // schema all the same.
    if endpoint == "GET /exports"
        && let Some(records) = body.pointer_mut("/result/records")
    {
        *records = Value::String(records.to_string());
        return;
    }
    let (field, broken) = match endpoint {
        "POST /refunds" => ("amount", Value::String(body["amount"].to_string())),
        "GET /orders" => ("refundable_amount", Value::String(body["refundable_amount"].to_string())),
        "GET /weather" => ("temperature", Value::String("hot".to_owned())),
        "PUT /preferences" => ("value", json!(12)),
        "POST /emails" | "POST /exports" | "GET /exports" | "DELETE /exports" => ("status", json!(42)),
        _ => ("deleted", Value::String("yes".to_owned())),
    };
    if let Some(members) = body.as_object_mut() {
        members.insert(field.to_owned(), broken);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The members `break_output` set on `body` for `endpoint`, with their new values.
    fn broken(endpoint: &str, body: Value) -> Vec<(String, Value)> {
        let mut changed = body.clone();
        break_output(endpoint, &mut changed);
        let members = changed.as_object().cloned().unwrap_or_default();
        members.into_iter().filter(|(name, value)| body.get(name) != Some(value)).collect()
    }

    #[test]
    fn every_tools_answer_is_broken_in_a_member_its_output_schema_declares() {
        for entry in callproof_executor::app::catalog_entries() {
            let endpoint = crate::world::endpoint_of_template(&entry.downstream.invoke).expect("an endpoint");
            // A poll's answer names its task; the others need nothing to be broken.
            let body = json!({"task_id": "exp_1", "amount": 5, "refundable_amount": 5});
            let declared = &entry.spec.output_schema["properties"];
            for (name, value) in broken(&endpoint, body) {
                assert!(
                    declared.get(&name).is_some(),
                    "{}: `{name}` = {value} is not a member of its output schema, so the projection drops it",
                    entry.spec.name
                );
            }
        }
    }

    #[test]
    fn a_status_querys_result_is_broken_as_the_tools_own_answer_would_be() {
        let mut export = json!({"status": "completed", "result": {"task_id": "exp_1", "status": "working"}});
        break_output("GET /exports", &mut export);
        assert_eq!(export["status"], "completed");
        assert_eq!(export["result"]["status"], 42);
        let mut poll = json!({"task_id": "exp_1", "status": "working", "result": null});
        break_output("GET /exports", &mut poll);
        assert_eq!(poll["status"], 42);
    }

    #[test]
    fn a_finished_polls_result_is_broken_and_its_status_still_reads_final() {
        let mut poll = json!({"task_id": "exp_1", "status": "completed",
                              "result": {"account_id": "acct_1", "records": 12, "download_url": "https://e.test/x"}});
        break_output("GET /exports", &mut poll);
        assert_eq!(poll["status"], "completed");
        assert_eq!(poll["result"]["records"], "12");
        assert_eq!(poll["result"]["account_id"], "acct_1");
    }
}
