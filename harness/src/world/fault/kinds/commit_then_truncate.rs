//! `commit_then_truncate`: the downstream commits, then answers 2xx with its JSON body cut short.
//!
//! Rule enforced here: the status says the work is done and the ledger agrees, but the body cannot be read:
//! the executor knows the effect happened and cannot know its result, so it must neither report a definite
//! failure nor send again. What is left of the body begins with an internal member (the serving host, a leak
//! marker), so an executor that quotes the text it could not read repeats a downstream's raw answer.

use crate::world::LEAK_MARKERS;
use crate::world::fault::{After, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit, then answer 2xx with the JSON body cut in half (it no longer parses); the body begins with an internal
/// `served_by` member naming a host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitThenTruncate {}

impl Rule for CommitThenTruncate {
    fn after_commit(&mut self, _request: &Request<'_>, answer: &mut Outgoing) -> After {
        if answer.is_success() {
            let body = serde_json::to_string(&answer.body).unwrap_or_default();
            let members = body.strip_prefix('{').unwrap_or(&body);
            let head = format!("{{\"served_by\":\"{}\",", LEAK_MARKERS[3]);
            // The whole head, then half of the rest: the marker always survives the cut.
            let cut = head.len() + members.len() / 2;
            answer.raw = Some(format!("{head}{members}").into_bytes()[..cut].to_vec());
        }
        After::Pass
    }
}

impl Fault for CommitThenTruncate {}
