//! `slow_before_commit`: the downstream takes `ms` to do the work, and abandons it when the request's
//! deadline header runs out first.
//!
//! Rule enforced here: a downstream that honours `X-Deadline-Ms` never commits work that would finish after
//! it; a slow commit stays invisible to status queries ("pending") until it completes.

use crate::world::Handling;
use crate::world::fault::{After, Before, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::time::Duration;

/// Take `ms` before committing (and answering). A downstream that honours the deadline header does not commit
/// when the deadline passes first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlowBeforeCommit {
    /// Processing time in milliseconds.
    pub ms: u64,
}

impl Rule for SlowBeforeCommit {
    fn before_commit(&mut self, request: &Request<'_>) -> Before {
        if request.deadline_ms().is_some_and(|budget| self.ms > budget) {
            let mut answer = Outgoing::refusal(503, json!({"error": {"reason": "deadline_exceeded"}}));
            answer.handling = Handling::AbandonedAtDeadline;
            return Before::Answer(answer);
        }
        Before::Pass
    }

    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Slow(Duration::from_millis(self.ms))
    }
}

impl Fault for SlowBeforeCommit {
    fn generated() -> Vec<Generated> {
        vec![
            Generated::new("slow_in_time", |step| {
                FaultKind::SlowBeforeCommit(SlowBeforeCommit { ms: step.budget_ms / 4 }).into()
            }),
            Generated::new("slow_past_deadline", |step| {
                FaultKind::SlowBeforeCommit(SlowBeforeCommit { ms: step.budget_ms + 1000 }).into()
            }),
        ]
    }
}
