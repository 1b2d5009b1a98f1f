//! `hold_until`: matching requests are held until `count` are in flight, then released together.
//!
//! Rule enforced here: the first `count` requests are answered at one instant (the group's release, at most
//! `timeout_ms` after the first arrived), so they are all in flight at once; later ones are not held.

use crate::world::fault::{After, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio::time::Instant;

/// Hold matching requests until `count` are in flight (or `timeout_ms` passes), then release them together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HoldUntil {
    /// Requests to gather.
    pub count: u32,
    /// Longest hold in milliseconds.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
}

fn default_timeout_ms() -> u64 {
    1000
}

/// One arming's group: when it is released and how many requests it holds so far.
#[derive(Debug)]
struct Group {
    spec: HoldUntil,
    release: Option<Instant>,
    held: u32,
}

impl Rule for HoldUntil {}

impl Rule for Group {
    fn after_commit(&mut self, request: &Request<'_>, _answer: &mut Outgoing) -> After {
        let release = *self.release.get_or_insert(request.now + Duration::from_millis(self.spec.timeout_ms));
        self.held += 1;
        if self.held <= self.spec.count {
            After::Delay(release.saturating_duration_since(request.now))
        } else {
            After::Pass
        }
    }
}

impl Fault for HoldUntil {
    fn rule(&self) -> Box<dyn Rule> {
        Box::new(Group { spec: self.clone(), release: None, held: 0 })
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("hold_until", |step| {
            FaultKind::HoldUntil(HoldUntil { count: step.count.max(2), timeout_ms: 300 }).into()
        })]
    }
}
