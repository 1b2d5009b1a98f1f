//! Reconciliation: how an UNKNOWN record finds its truth before anything is sent again.
//!
//! Rule enforced here: an unknown outcome is resolved by asking the downstream with the *same* key; only a
//! tool whose request is repeatable by nature (a PUT) may skip the question; a tool with neither stays
//! UNKNOWN for a person to resolve. "Not found" counts only once the earlier attempt's deadline has passed,
//! because until then the downstream may still apply it.

use crate::registry::Registered;

/// How to resolve an UNKNOWN record of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Ask the downstream with the same key.
    QueryStatus,
    /// Execute again with the same key (safe only for repeatable requests).
    ReExecute,
    /// No automatic resolution: answer `timeout_unknown` until a person settles it.
    Unresolvable,
}

/// The reference plan.
pub fn plan_reconciliation(tool: &Registered) -> Plan {
    if tool.implementation.status_query().is_some() {
        Plan::QueryStatus
    } else if tool.spec().repeatable {
        Plan::ReExecute
    } else {
        Plan::Unresolvable
    }
}
