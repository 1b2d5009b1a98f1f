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

/// Breaks one field of a successful answer so that it violates the tool's output schema. A status query's
/// answer (`GET /refunds?idempotency_key=K` and friends) carries the result of a completed operation in its
/// `result` member: that result is broken, as the tool's own answer would be, so that a result found by
/// reconciliation is put to the same test.
fn break_output(endpoint: &str, body: &mut Value) {
    let own_endpoint = match endpoint {
        "GET /refunds" => Some("POST /refunds"),
        "GET /emails" => Some("POST /emails"),
        "GET /deletions" => Some("DELETE /accounts"),
        _ => None,
    };
    if let Some(own_endpoint) = own_endpoint {
        if let Some(result) = body.get_mut("result").filter(|result| result.is_object()) {
            break_output(own_endpoint, result);
        }
        return;
    }
    let (field, broken) = match endpoint {
        "POST /refunds" => ("amount", Value::String(body["amount"].to_string())),
        "GET /orders" => ("refundable_amount", Value::String(body["refundable_amount"].to_string())),
        "GET /weather" => ("temperature", Value::String("hot".to_owned())),
        "PUT /preferences" => ("value", json!(12)),
        "POST /emails" => ("status", json!(42)),
        _ => ("deleted", Value::String("yes".to_owned())),
    };
    if let Some(members) = body.as_object_mut() {
        members.insert(field.to_owned(), broken);
    }
}
