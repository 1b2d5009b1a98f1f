//! `pause`: the downstream commits, and the executor process is stopped (SIGSTOP) for `ms`, then resumed
//! (SIGCONT), with the answer waiting for it.
//!
//! Rule enforced here: the pause acts on the process, never on its store or its clock: a stop past the call's
//! deadline and lease (deadline + 2 s) leaves the executor holding an IN_PROGRESS claim whose lease has run
//! out, and what it does when it wakes up is judged by the usual properties (one side effect, outcomes that
//! say what happened), never by one spelling.

use crate::world::fault::{After, Fault, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Commit, then stop the executor process for `ms` and resume it: a process paused past its lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pause {
    /// Milliseconds the process stays stopped.
    pub ms: u64,
}

impl Rule for Pause {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Pause(Duration::from_millis(self.ms))
    }
}

impl Fault for Pause {
    fn needs(&self) -> Needs {
        Needs::Pause
    }
}
