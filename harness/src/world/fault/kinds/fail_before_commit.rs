//! `fail_before_commit`: the downstream commits nothing and answers an error status.
//!
//! Rule enforced here: nothing reaches the ledger, so the failure is definite.

use crate::world::fault::{Before, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Commit nothing; answer `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailBeforeCommit {
    /// The HTTP status answered.
    #[serde(default = "default_status")]
    pub status: u16,
    /// The `error.reason` of the body: any name the service may give, listed by the catalog or not (an executor
    /// passes on only the listed ones).
    #[serde(default = "default_reason")]
    pub reason: String,
    /// The `error.field` of the body, when given: the argument the service says it refused (docs/conformance-app.md's
    /// refusal shape), which an executor may name in `details.field` but never quote the value of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

fn default_status() -> u16 {
    503
}

fn default_reason() -> String {
    "temporarily_unavailable".to_owned()
}

impl Rule for FailBeforeCommit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        let mut error = json!({"reason": self.reason});
        if let Some(field) = &self.field {
            error["field"] = json!(field);
        }
        Before::Answer(Outgoing::refusal(self.status, json!({ "error": error })))
    }
}

impl Fault for FailBeforeCommit {
    fn leaves_nothing_to_read(&self) -> bool {
        self.status >= 500
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("fail_before_commit", |_| FaultKind::FailBeforeCommit(FailBeforeCommit { status: 503, reason: default_reason(), field: None }).into())]
    }
}
