//! Faults as values: what the downstream (or the subject) does wrong, to which request.
//!
//! Rule enforced here: a scenario step arms a [`FaultSpec`]; its kind compiles to one [`Rule`] whose hooks
//! return verdicts, and the world applies them. A fault applies to the n-th downstream request matching its
//! endpoint (counted from the moment it is armed), for `times` requests (0: every one from the n-th on). When
//! several armed faults match one request, the first one armed wins (turmoil's "first rule that does not
//! pass"). Every request a fault applied to records the fault with its parameters, and a fault that applied to
//! none is reported when it is disarmed, never dropped silently.

mod kinds;
mod rule;
mod spec;

pub use kinds::*;
pub use rule::{After, Before, KillPoint, Outgoing, Request, Rule};
pub use spec::{FaultLog, FaultSpec, Fired};

pub(crate) use spec::Armed;

use crate::subject::SubjectFault;

/// What every fault kind provides. Only [`Rule`] has to be written; the rest defaults to a downstream fault
/// that exploration does not arm.
pub trait Fault: Rule + Clone + Sized + 'static {
    /// What the subject must offer for this fault to run.
    fn needs(&self) -> Needs {
        Needs::Downstream
    }

    /// The subject-level fault this kind switches on for its whole step, if it acts on the subject itself (then
    /// it never matches a request).
    fn on_subject(&self) -> Option<SubjectFault> {
        None
    }

    /// Whether an answer it shapes is written in parts, which only the harness's own HTTP server can do (wiremock
    /// writes every body whole): the runner serves the step with that server instead.
    fn writes_body_in_parts(&self) -> bool {
        false
    }

    /// Whether it acts on the downstream's listener for its whole step (no connection is taken) instead of on a
    /// request.
    fn refuses_connections(&self) -> bool {
        false
    }

    /// Whether the request it applies to gets no answer a read could use (a 5xx, no answer, a redirect). After
    /// such an answer a call may send a read again within its deadline (docs/protocol.md), so a scenario that
    /// pins the outcome of a step must apply it to every read of the step (`times = 0`).
    fn leaves_nothing_to_read(&self) -> bool {
        false
    }

    /// A fresh rule for one arming. Stateless kinds are their own rule.
    fn rule(&self) -> Box<dyn Rule> {
        Box::new(self.clone())
    }

    /// The forms exploration arms this kind in (none by default).
    fn generated() -> Vec<Generated> {
        Vec::new()
    }
}

/// What a fault needs of the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Only the downstream: every subject can run it.
    Downstream,
    /// Control over the subject's idempotency store, which only an in-process subject offers.
    StoreControl,
    /// A subject that is killed and restarted keeps its idempotency records (a durable store).
    DurableStore,
    /// A subject whose process can be stopped and resumed (SIGSTOP, SIGCONT).
    Pause,
    /// A subject that answers its calls in flight when its input ends: a `callproof/1` executor process (an MCP
    /// server may end its session at once, as MCP lets it).
    LineProtocol,
}

/// The step a generated fault goes on: what its parameters may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The call's budget.
    pub budget_ms: u64,
    /// How many calls the step makes at once (a burst's count, else 1).
    pub count: u32,
}

/// One form in which exploration arms a fault kind.
#[derive(Clone, Copy)]
pub struct Generated {
    /// A name for it (e.g. `slow_past_deadline`).
    pub label: &'static str,
    build: fn(&Shape) -> FaultSpec,
}

impl Generated {
    /// A form named `label`, built for a step by `build`.
    pub const fn new(label: &'static str, build: fn(&Shape) -> FaultSpec) -> Generated {
        Generated { label, build }
    }

    /// The fault for a step of this shape.
    pub fn build(&self, shape: &Shape) -> FaultSpec {
        (self.build)(shape)
    }
}

impl std::fmt::Debug for Generated {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.label)
    }
}

impl PartialEq for Generated {
    fn eq(&self, other: &Generated) -> bool {
        self.label == other.label
    }
}
