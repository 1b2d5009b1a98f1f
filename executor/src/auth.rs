//! The trusted authorization context and the approval record.
//!
//! Rule enforced here: these types are filled by the caller's authentication layer, never from tool
//! arguments. Nothing in the executor copies a field of the arguments into them.

use crate::tool::Risk;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Whether the caller's identity token is valid, and until when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The authentication layer accepted the token.
    pub valid: bool,
    /// Unix time in milliseconds after which the identity is no longer valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
}

/// A user's approval of one exact operation, issued by a trusted approval flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The approval's id.
    pub approval_id: String,
    /// The subject the approval was issued to.
    pub subject_id: String,
    /// The tenant the approval was issued in.
    pub tenant_id: String,
    /// The tool that was approved.
    pub tool: String,
    /// SHA-256 of the canonical arguments that were approved.
    pub arguments_hash: String,
    /// The risk level shown to the user.
    pub risk: Risk,
    /// Unix time in milliseconds after which the approval is void.
    pub expires_at_ms: u64,
}

/// Who is calling. Comes only from the caller's trusted side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthContext {
    /// The authenticated user (or service) id.
    pub subject_id: String,
    /// The tenant the subject acts in.
    pub tenant_id: String,
    /// Granted scopes, e.g. `refunds:write`.
    #[serde(default)]
    pub scopes: BTreeSet<String>,
    /// Granted roles, e.g. `support_admin`.
    #[serde(default)]
    pub roles: BTreeSet<String>,
    /// Identity validity.
    pub identity: Identity,
    /// When set, only these tools may be called (e.g. the tool list the token was issued for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<BTreeSet<String>>,
    /// The approval the user gave for this call, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<Approval>,
}

impl AuthContext {
    /// A valid, non-expiring identity with the given scopes and no roles.
    pub fn new(subject_id: &str, tenant_id: &str, scopes: &[&str]) -> AuthContext {
        AuthContext {
            subject_id: subject_id.to_owned(),
            tenant_id: tenant_id.to_owned(),
            scopes: scopes.iter().map(|scope| (*scope).to_owned()).collect(),
            roles: BTreeSet::new(),
            identity: Identity { valid: true, expires_at_ms: None },
            allowed_tools: None,
            approval: None,
        }
    }

    /// The approval id, when an approval is attached.
    pub fn approval_id(&self) -> Option<&str> {
        self.approval.as_ref().map(|approval| approval.approval_id.as_str())
    }
}
