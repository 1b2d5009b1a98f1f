//! `commit_then_delay`: the downstream commits, then answers only after `ms`.
//!
//! Rule enforced here: the commit happens on arrival; only the answer is late, so a caller that gives up first
//! faces an unknown outcome.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Commit, then answer after `ms`: a timeout after the side effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitThenDelay {
    /// Milliseconds between the commit and the answer.
    pub ms: u64,
}

impl Rule for CommitThenDelay {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Delay(Duration::from_millis(self.ms))
    }
}

impl Fault for CommitThenDelay {
    fn generated() -> Vec<Generated> {
        // Past the budget, so the executor's own deadline fires first.
        vec![Generated::new("commit_then_delay", |step| {
            FaultKind::CommitThenDelay(CommitThenDelay { ms: step.budget_ms + 700 }).into()
        })]
    }
}
