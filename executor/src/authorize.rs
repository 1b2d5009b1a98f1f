//! Stage 2, authorize: Allow = identity valid ∧ tool allowed ∧ scope sufficient ∧ approval satisfied ∧
//! resource owned.
//!
//! Rule enforced here: every fact comes from the trusted [`AuthContext`] or the system of record, never from
//! the arguments; a foreign resource and a missing one get the same answer, so a caller learns nothing about
//! resources it may not see; an approval covers one subject, tenant, tool, argument hash and risk, until it
//! expires.

use crate::auth::AuthContext;
use crate::decode::Decoded;
use crate::error::{ErrorBody, ErrorCode};
use crate::request::ToolCall;
use crate::resource::{Resource, ResourceRef};

/// What the access check may look at.
#[derive(Debug, Clone, Copy)]
pub struct AccessInput<'a> {
    /// The trusted caller.
    pub auth: &'a AuthContext,
    /// The decoded call.
    pub decoded: &'a Decoded<'a>,
    /// The raw call (the reference check never reads it; it is here for broken variants).
    pub call: &'a ToolCall,
    /// Wall-clock now, Unix ms.
    pub now_ms: u64,
}

/// What the ownership check may look at.
#[derive(Debug, Clone, Copy)]
pub struct OwnershipInput<'a> {
    /// The trusted caller.
    pub auth: &'a AuthContext,
    /// The resource the call acts on, if the tool names one.
    pub reference: Option<&'a ResourceRef>,
    /// What the system of record said about it (`None`: no such resource).
    pub resource: Option<&'a Resource>,
    /// The decoded call.
    pub decoded: &'a Decoded<'a>,
    /// The raw call (the reference check never reads it).
    pub call: &'a ToolCall,
    /// The role that may act on resources of other owners in the same tenant.
    pub support_role: Option<&'a str>,
}

/// The reference access check: identity, tool, scope, approval. Pure.
///
/// # Errors
/// `unauthorized`, `forbidden` or `approval_required`.
pub fn check_access(input: &AccessInput<'_>) -> Result<(), ErrorBody> {
    let auth = input.auth;
    let spec = input.decoded.tool.spec();
    if !auth.identity.valid {
        return Err(ErrorBody::new(ErrorCode::Unauthorized, "the caller's identity is not valid")
            .with("reason", "identity_invalid"));
    }
    if auth.identity.expires_at_ms.is_some_and(|expires| expires <= input.now_ms) {
        return Err(ErrorBody::new(ErrorCode::Unauthorized, "the caller's identity has expired")
            .with("reason", "identity_expired"));
    }
    if auth.allowed_tools.as_ref().is_some_and(|allowed| !allowed.contains(&spec.name)) {
        return Err(
            ErrorBody::new(ErrorCode::Forbidden, "the caller may not use this tool").with("reason", "tool_not_allowed")
        );
    }
    let missing: Vec<&String> = spec.required_scopes.iter().filter(|scope| !auth.scopes.contains(*scope)).collect();
    if !missing.is_empty() {
        return Err(ErrorBody::new(ErrorCode::Forbidden, "the caller lacks a required scope")
            .with("reason", "missing_scope")
            .with("required_scopes", missing.into_iter().cloned().collect::<Vec<_>>()));
    }
    if spec.requires_approval {
        check_approval(input)?;
    }
    Ok(())
}

fn check_approval(input: &AccessInput<'_>) -> Result<(), ErrorBody> {
    let spec = input.decoded.tool.spec();
    let refuse = |reason: &str, message: &str| {
        ErrorBody::new(ErrorCode::ApprovalRequired, message).with("reason", reason).with("tool", spec.name.clone())
    };
    let Some(approval) = &input.auth.approval else {
        return Err(refuse("approval_missing", "this operation needs the user's approval"));
    };
    let mismatch = [
        ("subject_id", approval.subject_id == input.auth.subject_id),
        ("tenant_id", approval.tenant_id == input.auth.tenant_id),
        ("tool", approval.tool == spec.name),
        ("arguments_hash", input.decoded.arguments_hash == approval.arguments_hash),
        ("risk", approval.risk == spec.risk),
    ]
    .into_iter()
    .find(|(_, matches)| !matches);
    if let Some((field, _)) = mismatch {
        return Err(refuse("approval_mismatch", "the approval does not cover this exact operation")
            .with("mismatch", field)
            .with("approval_id", approval.approval_id.clone()));
    }
    if approval.expires_at_ms <= input.now_ms {
        return Err(
            refuse("approval_expired", "the approval has expired").with("approval_id", approval.approval_id.clone())
        );
    }
    Ok(())
}

/// The reference ownership check: same tenant, and same owner unless the caller holds the support role.
///
/// # Errors
/// `forbidden`, with one message for "not yours" and "does not exist".
pub fn check_ownership(input: &OwnershipInput<'_>) -> Result<(), ErrorBody> {
    if input.reference.is_none() {
        return Ok(());
    }
    let owned = input.resource.is_some_and(|resource| {
        resource.tenant_id == input.auth.tenant_id
            && (resource.owner_id == input.auth.subject_id
                || input.support_role.is_some_and(|role| input.auth.roles.contains(role)))
    });
    if owned { Ok(()) } else { Err(not_accessible()) }
}

/// The one answer for a resource the caller may not see, whether or not it exists.
pub fn not_accessible() -> ErrorBody {
    ErrorBody::new(ErrorCode::Forbidden, "the resource is not accessible").with("reason", "resource_not_accessible")
}
