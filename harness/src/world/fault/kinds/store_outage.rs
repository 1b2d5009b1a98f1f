//! `store_outage`: not a downstream fault: the subject's idempotency store fails for the whole step.
//!
//! Rule enforced here: the fault acts on the subject, never on a request, so it matches no request and
//! fires when the subject accepts it.

use crate::subject::SubjectFault;
use crate::world::fault::{Fault, Needs, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Not a downstream fault: the subject's idempotency store fails for the whole step (in-process subjects).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreOutage {}

impl Rule for StoreOutage {}

impl Fault for StoreOutage {
    fn needs(&self) -> Needs {
        Needs::StoreControl
    }

    fn on_subject(&self) -> Option<SubjectFault> {
        Some(SubjectFault::StoreOutage)
    }
}
