//! `input_ends_after_commit`: the downstream commits, and the harness closes the executor's input while the call
//! is in flight.
//!
//! Rule enforced here: the end of input asks an executor to finish, not to drop what it started
//! (docs/protocol.md: "Answer what is still in flight, then exit"), so the call in flight is answered before the
//! process exits. An executor that exits first leaves the call without an answer, which is a protocol break.

use crate::world::fault::{After, Fault, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit, then close the executor's stdin before the answer goes out: the call is in flight when its input ends,
/// and must still be answered. The executor is started again (same session) for the steps after this one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputEndsAfterCommit {}

impl Rule for InputEndsAfterCommit {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::EndInput
    }
}

impl Fault for InputEndsAfterCommit {
    fn needs(&self) -> Needs {
        Needs::LineProtocol
    }
}
