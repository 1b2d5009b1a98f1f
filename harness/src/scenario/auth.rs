//! Auth contexts: the trusted side of a call, by name.
//!
//! Rule enforced here: every table refuses unknown fields; an approval's fields default to its context's own,
//! so a scenario states only what differs.

use callproof_executor::tool::Risk;
use serde::{Deserialize, Serialize};

/// The state of the caller's identity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityState {
    /// Valid, not expiring.
    #[default]
    Valid,
    /// Rejected by the authentication layer.
    Invalid,
    /// Expired a second ago.
    Expired,
    /// Expired at 0, the Unix epoch: long past, and a number a truthiness test reads as "no expiry".
    ExpiredAtEpoch,
}

/// A trusted auth context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthFixture {
    /// The subject.
    pub subject_id: String,
    /// The tenant.
    pub tenant_id: String,
    /// Scopes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Roles.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Identity state.
    #[serde(default, skip_serializing_if = "is_valid")]
    pub identity: IdentityState,
    /// Tool allow-list, if the token carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// An approval the user gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<ApprovalFixture>,
}

fn is_valid(identity: &IdentityState) -> bool {
    *identity == IdentityState::Valid
}

/// An approval, bound to exact arguments; fields default to the auth context's own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalFixture {
    /// Approval id.
    #[serde(default = "default_approval_id")]
    pub id: String,
    /// The approved tool.
    pub tool: String,
    /// The approved arguments (JSON text; the harness hashes its canonical form).
    pub arguments: String,
    /// The approved risk (default: the tool's risk in the catalog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// The approved subject (default: the context's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_id: Option<String>,
    /// The approved tenant (default: the context's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    /// Milliseconds from the start of the scenario until it expires; negative means already expired.
    #[serde(default = "default_approval_ttl")]
    pub expires_in_ms: i64,
}

fn default_approval_id() -> String {
    "appr_1".to_owned()
}

fn default_approval_ttl() -> i64 {
    600_000
}
