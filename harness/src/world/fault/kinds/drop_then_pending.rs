//! `drop_then_pending`: the connection closes at once without an answer, and status queries say `pending` for
//! `ms` before they say `completed`.
//!
//! Rule enforced here: the effect is in the ledger from the start, but the service is still settling it (a
//! payment awaiting capture, a message queued for delivery), so for `ms` its status query answers
//! `{"status":"pending"}`. An executor that reads `pending` as "nothing happened" sends the request again.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Close the connection without an answer; status queries answer `pending` for `ms`, then `completed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropThenPending {
    /// Milliseconds from the lost answer until status queries answer `completed`.
    pub ms: u64,
}

impl Rule for DropThenPending {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::LostPending(Duration::from_millis(self.ms))
    }
}

impl Fault for DropThenPending {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("drop_then_pending", |step| {
            FaultKind::DropThenPending(DropThenPending { ms: step.budget_ms * 2 }).into()
        })]
    }
}
