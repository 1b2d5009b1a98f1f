//! `kill_after_claim`: the subject is killed when its side-effecting request arrives, before anything commits.
//!
//! Rule enforced here: nothing reaches the ledger: the executor has claimed its key and sent, nothing was
//! applied, and the restarted executor must not count the call as done.

use crate::world::fault::{After, Before, Fault, FaultKind, Generated, KillPoint, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Kill the subject when its side-effecting request arrives, before the downstream commits anything: the
/// executor has claimed the key and sent, nothing was applied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillAfterClaim {}

impl Rule for KillAfterClaim {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        Before::Answer(Outgoing::refusal(503, json!({"error": {"reason": "never_answered"}})))
    }

    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Kill(KillPoint::InFlight)
    }
}

impl Fault for KillAfterClaim {
    fn needs(&self) -> Needs {
        Needs::DurableStore
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("kill_after_claim", |_| FaultKind::KillAfterClaim(KillAfterClaim {}).into())]
    }
}
