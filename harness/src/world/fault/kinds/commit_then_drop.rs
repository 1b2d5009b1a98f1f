//! `commit_then_drop`: the downstream commits, then closes the connection without an answer.
//!
//! Rule enforced here: the effect is in the ledger before the connection closes, so the executor cannot know
//! the outcome: the only honest answer is an unknown one.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit, then close the connection without an answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitThenDrop {}

impl Rule for CommitThenDrop {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Drop
    }
}

impl Fault for CommitThenDrop {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("commit_then_drop", |_| FaultKind::CommitThenDrop(CommitThenDrop {}).into())]
    }
}
