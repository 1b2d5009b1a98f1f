//! `drop_then_land`: the connection closes at once without an answer, and the request lands `ms` later.
//!
//! Rule enforced here: the effect is in the ledger, yet a status query asked before it lands finds nothing,
//! as when a request sits in a queue or a retrying proxy after its connection was lost. "Not found" before the
//! earlier attempt's deadline is therefore no proof that nothing happened.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Close the connection without an answer; the commit becomes visible to status queries `ms` later.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropThenLand {
    /// Milliseconds from the lost answer until the effect is visible to status queries.
    pub ms: u64,
}

impl Rule for DropThenLand {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Lost(Duration::from_millis(self.ms))
    }
}

impl Fault for DropThenLand {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("drop_then_land", |step| {
            FaultKind::DropThenLand(DropThenLand { ms: step.budget_ms / 2 }).into()
        })]
    }
}
