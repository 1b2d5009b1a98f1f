//! `kill_before_answer`: the downstream commits and answers; the subject is killed as its answer arrives.
//!
//! Rule enforced here: the executor recorded the outcome before it died, so a retry must replay it, never
//! send again.

use crate::world::fault::{After, Fault, KillPoint, Needs, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Commit and answer normally, then kill the subject when its answer to the call arrives, before the caller sees
/// it: the executor has recorded the outcome and dies before answering.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillBeforeAnswer {}

impl Rule for KillBeforeAnswer {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Kill(KillPoint::BeforeAnswer)
    }
}

impl Fault for KillBeforeAnswer {
    fn needs(&self) -> Needs {
        Needs::DurableStore
    }
}
