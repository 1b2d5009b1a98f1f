//! `oversized_body`: the downstream commits and answers success with a body over 1 MiB.
//!
//! Rule enforced here: an executor reads at most 1 MiB of an answer's body (docs/errors.md); a success whose body
//! is larger never arrived whole, so for a side effect its outcome is unknown (`timeout_unknown`), never `ok`
//! with what was read, and never `output_invalid` (the effect happened). The body is the service's own answer
//! with one more member, a history of the order that makes it longer than the limit.

use crate::world::fault::{After, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most of an answer's body an executor reads (docs/errors.md), as the reference executor bounds it.
const BODY_LIMIT: usize = callproof_executor::app::MAX_RESPONSE_BYTES;

/// Commit, then answer success with the usual body plus a member that takes it past 1 MiB.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OversizedBody {}

impl Rule for OversizedBody {
    fn after_commit(&mut self, _request: &Request<'_>, answer: &mut Outgoing) -> After {
        if answer.is_success() {
            outgrow_the_limit(&mut answer.body);
        }
        After::Pass
    }
}

impl Fault for OversizedBody {}

/// Adds a member that takes an object's JSON text past [`BODY_LIMIT`]; anything else is left as it is.
fn outgrow_the_limit(body: &mut Value) {
    if let Value::Object(members) = body {
        members.insert("history".to_owned(), Value::String("order event; ".repeat(BODY_LIMIT / 13 + 1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_object_grows_past_the_limit_and_keeps_its_members() {
        let mut body = serde_json::json!({"refund_id": "rf_1", "amount": 30});
        outgrow_the_limit(&mut body);
        assert!(serde_json::to_vec(&body).expect("json").len() > BODY_LIMIT);
        assert_eq!((body["refund_id"].as_str(), body["amount"].as_i64()), (Some("rf_1"), Some(30)));
        let mut not_an_object = Value::Null;
        outgrow_the_limit(&mut not_an_object);
        assert_eq!(not_an_object, Value::Null);
    }
}
