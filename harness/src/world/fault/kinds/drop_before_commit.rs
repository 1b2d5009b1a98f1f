//! `drop_before_commit`: the request arrives, the connection closes without an answer, and nothing is committed.
//!
//! Rule enforced here: to the executor this is the same lost answer as `commit_then_drop` (the request was sent,
//! so the outcome is unknown), but the truth is the other one: the effect never happened, and a status query finds
//! nothing however long it waits. Once the deadline of the attempt that sent the request has passed, "not found"
//! is proof, and a retry must send again; before it, the retry must not.

use crate::world::fault::{After, Before, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Commit nothing; close the connection without an answer (a proxy or a load balancer lost the request).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropBeforeCommit {}

impl Rule for DropBeforeCommit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        // Never written: the connection is closed instead. The status only fills the request log's entry.
        Before::Answer(Outgoing::refusal(502, json!({})))
    }

    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Drop
    }
}

impl Fault for DropBeforeCommit {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }
}
