//! `kill_after_commit`: the downstream commits, never answers, and the subject is killed.
//!
//! Rule enforced here: the effect is in the ledger before the kill, so the restarted executor must find the
//! claim it left and reconcile instead of sending again. With `lands_after_ms`, a status query finds nothing
//! for that long (the request sits in a queue): "not found" before the dead attempt's deadline proves nothing,
//! so the restarted executor must keep that attempt's deadline rather than take the holder's death for its end.

use crate::world::fault::{After, Fault, FaultKind, Generated, KillPoint, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Commit the side effect, never answer, and kill the subject (SIGKILL for a process; an in-process subject has
/// its calls dropped mid-flight while its store survives).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillAfterCommit {
    /// Milliseconds from the kill until the commit is visible to status queries (0, the default: at once).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lands_after_ms: u64,
}

fn is_zero(ms: &u64) -> bool {
    *ms == 0
}

impl Rule for KillAfterCommit {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        match self.lands_after_ms {
            0 => After::Kill(KillPoint::InFlight),
            ms => After::KillWhileQueued(Duration::from_millis(ms)),
        }
    }
}

impl Fault for KillAfterCommit {
    fn needs(&self) -> Needs {
        Needs::DurableStore
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("kill_after_commit", |_| FaultKind::KillAfterCommit(KillAfterCommit::default()).into())]
    }
}
