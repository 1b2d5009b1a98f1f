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
}

fn default_status() -> u16 {
    503
}

impl Rule for FailBeforeCommit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        Before::Answer(Outgoing::refusal(self.status, json!({"error": {"reason": "temporarily_unavailable"}})))
    }
}

impl Fault for FailBeforeCommit {
    fn leaves_nothing_to_read(&self) -> bool {
        self.status >= 500
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("fail_before_commit", |_| FaultKind::FailBeforeCommit(FailBeforeCommit { status: 503 }).into())]
    }
}
