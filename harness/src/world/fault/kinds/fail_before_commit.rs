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
}

fn default_status() -> u16 {
    503
}

fn default_reason() -> String {
    "temporarily_unavailable".to_owned()
}

impl Rule for FailBeforeCommit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        Before::Answer(Outgoing::refusal(self.status, json!({"error": {"reason": self.reason}})))
    }
}

impl Fault for FailBeforeCommit {
    fn leaves_nothing_to_read(&self) -> bool {
        self.status >= 500
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("fail_before_commit", |_| FaultKind::FailBeforeCommit(FailBeforeCommit { status: 503, reason: default_reason() }).into())]
    }
}
