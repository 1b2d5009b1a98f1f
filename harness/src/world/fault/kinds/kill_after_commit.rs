//! `kill_after_commit`: the downstream commits, never answers, and the subject is killed.
//!
//! Rule enforced here: the effect is in the ledger before the kill, so the restarted executor must find the
//! claim it left and reconcile instead of sending again.

use crate::world::fault::{After, Fault, FaultKind, Generated, KillPoint, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit the side effect, never answer, and kill the subject (SIGKILL for a process; an in-process subject has
/// its calls dropped mid-flight while its store survives).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillAfterCommit {}

impl Rule for KillAfterCommit {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Kill(KillPoint::InFlight)
    }
}

impl Fault for KillAfterCommit {
    fn needs(&self) -> Needs {
        Needs::DurableStore
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("kill_after_commit", |_| FaultKind::KillAfterCommit(KillAfterCommit {}).into())]
    }
}
