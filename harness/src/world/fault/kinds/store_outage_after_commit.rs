//! `store_outage_after_commit`: the downstream commits, then the subject's idempotency store is cut off for the
//! rest of the step, before the answer reaches the subject.
//!
//! Rule enforced here: the executor has claimed, sent, and the effect happened; it cannot record the outcome.
//! Whatever it answers must not deny the effect, and once the store is back the retry must find the one
//! effect (after the lease, by reconciling), never make a second.

use crate::world::fault::{After, Fault, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit, then cut the subject's idempotency store off until the step ends: the outcome cannot be recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreOutageAfterCommit {}

impl Rule for StoreOutageAfterCommit {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::CutStore
    }
}

impl Fault for StoreOutageAfterCommit {
    fn needs(&self) -> Needs {
        Needs::StoreControl
    }
}
