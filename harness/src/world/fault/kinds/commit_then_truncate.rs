//! `commit_then_truncate`: the downstream commits, then answers 2xx with its JSON body cut short.
//!
//! Rule enforced here: the status says the work is done and the ledger agrees, but the body cannot be read:
//! the executor knows the effect happened and cannot know its result, so it must neither report a definite
//! failure nor send again.

use crate::world::fault::{After, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit, then answer 2xx with the JSON body cut in half (it no longer parses).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitThenTruncate {}

impl Rule for CommitThenTruncate {
    fn after_commit(&mut self, _request: &Request<'_>, answer: &mut Outgoing) -> After {
        if answer.is_success() {
            let bytes = serde_json::to_vec(&answer.body).unwrap_or_default();
            answer.raw = Some(bytes[..bytes.len() / 2].to_vec());
        }
        After::Pass
    }
}

impl Fault for CommitThenTruncate {}
