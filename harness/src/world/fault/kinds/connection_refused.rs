//! `connection_refused`: not a request fault: the downstream takes no connection for the whole step.
//!
//! Rule enforced here: a refused connection is the one failure where the executor knows for certain that nothing
//! was sent (docs/protocol.md: `dependency_unavailable`, `reason: not_sent`), so nothing may be recorded as final
//! or unknown: a retry once the downstream is back executes. The fault matches no request (none arrives); over
//! loopback the downstream's listener is closed for the step, in simulation the world refuses every send.

use crate::world::fault::{Fault, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The downstream refuses every connection for the whole step (its listener is closed; open connections are closed
/// before the step's calls go out), and listens again on the same port after it. Nothing reaches the services.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConnectionRefused {}

impl Rule for ConnectionRefused {}

impl Fault for ConnectionRefused {
    fn refuses_connections(&self) -> bool {
        true
    }
}
