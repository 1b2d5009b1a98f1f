//! `resources/read` of a resource that does not exist (`mcp-resource-not-found`), asked only of a server that
//! declares the `resources` capability.
//!
//! Rule enforced here: a resource that does not exist is answered with a JSON-RPC error, never with contents
//! as if it existed (2025-11-25 server/resources §Error Handling: servers SHOULD return standard JSON-RPC
//! errors, resource not found -32002; 2026-07-28, SEP-2164: -32602). The code is not judged (SDKs differ:
//! the Python SDK answers 0), only that it is an error; the level is SHOULD, as the spec's.

use super::checks;
use super::client::Answer;
use super::profile::Run;
use serde_json::{Value, json};

/// A URI no server serves: a scheme of callproof's own.
pub(super) const NO_SUCH_RESOURCE: &str = "callproof-missing://nothing/callproof-no-such-resource";

impl Run {
    /// Reads [`NO_SUCH_RESOURCE`] when the server declared `resources`; the answer must be an error.
    pub(super) async fn resource_not_found(&mut self, capabilities: Option<&Value>) {
        if !capabilities.and_then(|capabilities| capabilities.get("resources")).is_some_and(Value::is_object) {
            return;
        }
        let exchange = self.request("resources/read", Some(json!({"uri": NO_SUCH_RESOURCE}))).await;
        if let Some((passed, why)) = judge(&exchange.answer) {
            self.found(checks::RESOURCE_NOT_FOUND, passed, None, why, Some(&exchange));
        }
    }
}

/// Whether an answer to the read of a resource that does not exist is an error, and what it was; `None` for
/// no answer at all, which `mcp-answers-in-time` judges.
fn judge(answer: &Answer) -> Option<(bool, String)> {
    match answer {
        Answer::Response(_) => match (answer.error_code(), answer.result()) {
            (Some(code), _) => Some((true, format!("answered error {code}"))),
            (None, Some(_)) => {
                Some((false, "answered with contents, as if the resource existed, not a JSON-RPC error".to_owned()))
            }
            (None, None) => Some((false, format!("answered {}, not a JSON-RPC error", answer.text()))),
        },
        Answer::Http { status: 400..=499, .. } => Some((true, "answered with an HTTP 4xx".to_owned())),
        Answer::Http { status, .. } => Some((false, format!("answered HTTP {status}, not a JSON-RPC error"))),
        Answer::Silent | Answer::Closed | Answer::Dropped | Answer::Failed(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_of_any_code_passes_and_contents_for_a_resource_that_does_not_exist_fail() {
        for code in [-32002, -32602, 0] {
            let error =
                Answer::Response(json!({"jsonrpc": "2.0", "id": 3, "error": {"code": code, "message": "nope"}}));
            assert_eq!(judge(&error).map(|(passed, _)| passed), Some(true), "{code}");
        }
        let contents = json!({"contents": [{"uri": NO_SUCH_RESOURCE, "text": "not found"}]});
        let found = Answer::Response(json!({"jsonrpc": "2.0", "id": 3, "result": contents}));
        let (passed, why) = judge(&found).expect("judged");
        assert!(!passed && why.contains("as if the resource existed"), "{why}");
        assert_eq!(judge(&Answer::Silent), None);
    }
}
