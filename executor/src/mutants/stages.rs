//! Broken stage functions: each is the reference stage with one classic bug.

use crate::authorize::{self, AccessInput, OwnershipInput};
use crate::canonical::{Sha256Hex, canonical_json, hex};
use crate::decode::{self, Decoded, Limits};
use crate::envelope::{Envelope, Meta};
use crate::error::{ErrorBody, ErrorCode, Resolution};
use crate::idempotency::{self, KeyInput};
use crate::outcome::{self, Attempt, Settled};
use crate::reconcile::Plan;
use crate::registry::{Registered, Tools};
use crate::request::{Arguments, ToolCall};
use crate::tool::{Failure, ToolFailure};
use serde_json::{Map, Value, json};

/// Argument names a model may use to claim an identity.
const IDENTITY_FIELDS: [&str; 3] = ["tenant_id", "user_id", "is_admin"];

/// Decodes like the reference after converting strings to numbers and booleans to 0/1 where the schema wants
/// a number ("100" → 100, true → 1).
pub fn decode_coercing<'t>(call: &ToolCall, tools: &'t Tools, limits: &Limits) -> Result<Decoded<'t>, ErrorBody> {
    let mut arguments = decode::parse_arguments(&call.arguments, limits)?;
    let tool = decode::find_tool(tools, &call.name)?;
    for_each_property(&mut arguments, tool, |value, schema| {
        let wants_number = schema_types(schema).iter().any(|kind| kind == "integer" || kind == "number");
        match value {
            Value::String(text) if wants_number => {
                if let Ok(number) = text.trim().parse::<i64>() {
                    *value = json!(number);
                }
            }
            Value::Bool(flag) if wants_number => *value = json!(u8::from(*flag)),
            _ => {}
        }
    });
    decode::check_schema(tool, &arguments, limits)?;
    Ok(decode::finish(tool, arguments))
}

/// Decodes like the reference after dropping every argument the schema does not declare.
pub fn decode_ignoring_unknown_fields<'t>(
    call: &ToolCall,
    tools: &'t Tools,
    limits: &Limits,
) -> Result<Decoded<'t>, ErrorBody> {
    let mut arguments = decode::parse_arguments(&call.arguments, limits)?;
    let tool = decode::find_tool(tools, &call.name)?;
    drop_undeclared(&mut arguments, tool);
    decode::check_schema(tool, &arguments, limits)?;
    Ok(decode::finish(tool, arguments))
}

/// Decodes raw text with a plain `serde_json` parse, which keeps the last of two duplicate keys.
pub fn decode_last_key_wins<'t>(call: &ToolCall, tools: &'t Tools, limits: &Limits) -> Result<Decoded<'t>, ErrorBody> {
    let arguments = match &call.arguments {
        Arguments::Raw(text) => match serde_json::from_str::<Value>(text) {
            Ok(value) => Arguments::Value(value),
            Err(_) => call.arguments.clone(),
        },
        Arguments::Value(_) => call.arguments.clone(),
    };
    decode::decode(&ToolCall { arguments, ..call.clone() }, tools, limits)
}

/// Decodes like the reference but answers refusals without details: no path, no position, no reason.
pub fn decode_without_details<'t>(
    call: &ToolCall,
    tools: &'t Tools,
    limits: &Limits,
) -> Result<Decoded<'t>, ErrorBody> {
    decode::decode(call, tools, limits).map_err(|mut error| {
        error.forge_details().clear();
        error
    })
}

/// Decodes like the reference, but a schema violation's message quotes the value it refuses (the whole
/// arguments for a violation at the root), whether or not the schema marks it `x-sensitive`.
pub fn decode_echoing_values<'t>(call: &ToolCall, tools: &'t Tools, limits: &Limits) -> Result<Decoded<'t>, ErrorBody> {
    decode::decode(call, tools, limits).map_err(|mut error| {
        if error.code() != ErrorCode::SchemaViolation {
            return error;
        }
        let refused = decode::parse_arguments(&call.arguments, limits).ok().and_then(|arguments| {
            let path = error.details().get("path")?.as_str()?;
            arguments.pointer(path).map(Value::to_string)
        });
        if let Some(refused) = refused {
            error.forge_message(format!("{}: {refused}", error.message()));
        }
        error
    })
}

/// Decodes like the reference after lifting `tenant_id`, `user_id` and `is_admin` out of the arguments (so
/// the schema accepts them); [`ownership_from_arguments`] then believes them.
pub fn decode_lifting_identity<'t>(
    call: &ToolCall,
    tools: &'t Tools,
    limits: &Limits,
) -> Result<Decoded<'t>, ErrorBody> {
    let mut arguments = decode::parse_arguments(&call.arguments, limits)?;
    let tool = decode::find_tool(tools, &call.name)?;
    if let Some(members) = arguments.as_object_mut() {
        members.retain(|name, _| !IDENTITY_FIELDS.contains(&name.as_str()));
    }
    decode::check_schema(tool, &arguments, limits)?;
    Ok(decode::finish(tool, arguments))
}

/// Ownership judged against the tenant and user the *arguments* claim; `is_admin: true` skips it.
pub fn ownership_from_arguments(input: &OwnershipInput<'_>) -> Result<(), ErrorBody> {
    let claimed = match &input.call.arguments {
        Arguments::Raw(text) => serde_json::from_str::<Value>(text).unwrap_or(Value::Null),
        Arguments::Value(value) => value.clone(),
    };
    if claimed["is_admin"] == true {
        return Ok(());
    }
    let mut auth = input.auth.clone();
    if let Some(tenant) = claimed["tenant_id"].as_str() {
        auth.tenant_id = tenant.to_owned();
    }
    if let Some(user) = claimed["user_id"].as_str() {
        auth.subject_id = user.to_owned();
    }
    authorize::check_ownership(&OwnershipInput { auth: &auth, ..*input })
}

/// No ownership check at all: having the tool's scope is taken to mean access to every resource.
pub fn ownership_unchecked(_input: &OwnershipInput<'_>) -> Result<(), ErrorBody> {
    Ok(())
}

/// The approval is matched on subject, tenant, tool and expiry, but not on the arguments or the risk: the
/// user approves one thing and the model executes another.
pub fn approval_ignoring_arguments(input: &AccessInput<'_>) -> Result<(), ErrorBody> {
    let mut auth = input.auth.clone();
    if let Some(approval) = &mut auth.approval {
        approval.arguments_hash = input.decoded.arguments_hash.into();
        approval.risk = input.decoded.tool.spec().risk;
    }
    authorize::check_access(&AccessInput { auth: &auth, ..*input })
}

/// Access check without the scope test (the scope is checked later, by [`scope_after_lookup`]).
pub fn access_without_scope(input: &AccessInput<'_>) -> Result<(), ErrorBody> {
    let mut auth = input.auth.clone();
    auth.scopes.extend(input.decoded.tool.spec().required_scopes.iter().cloned());
    authorize::check_access(&AccessInput { auth: &auth, ..*input })
}

/// The scope test moved after the resource lookup: a caller without the scope still makes the executor load
/// the resource (and learns from the timing whether it exists).
pub fn scope_after_lookup(input: &OwnershipInput<'_>) -> Result<(), ErrorBody> {
    let spec = input.decoded.tool.spec();
    if spec.required_scopes.iter().any(|scope| !input.auth.scopes.contains(scope)) {
        return Err(
            ErrorBody::new(ErrorCode::Forbidden, "the caller lacks a required scope").with("reason", "missing_scope")
        );
    }
    authorize::check_ownership(input)
}

/// The key is derived from the model's call_id: a retry with a new call_id is a new operation.
pub fn key_from_call_id(input: &KeyInput<'_>) -> Sha256Hex {
    Sha256Hex::of(
        format!("{}|{}|{}|{}", input.auth.tenant_id, input.auth.subject_id, input.tool, input.call_id).as_bytes(),
    )
}

/// The key includes the attempt number: every retry is a new operation.
pub fn key_per_attempt(input: &KeyInput<'_>) -> Sha256Hex {
    Sha256Hex::of(format!("{}|{}", idempotency::derive_key(input), input.attempt).as_bytes())
}

/// The key hashes the arguments even when a business request id is given: the same business request with
/// changed arguments is silently a second operation instead of a conflict.
pub fn key_hashes_arguments(input: &KeyInput<'_>) -> Sha256Hex {
    let material = json!({
        "arguments_hash": hex(input.arguments_digest),
        "business_request_id": input.business_request_id,
        "subject_id": input.auth.subject_id,
        "tenant_id": input.auth.tenant_id,
        "tool": input.tool,
    });
    Sha256Hex::of(canonical_json(&material).as_bytes())
}

/// A timeout is a timeout: reported as not started (retryable) even after the request was sent.
pub fn settle_timeout_as_not_started(attempt: Attempt) -> Settled {
    match attempt {
        Attempt::TimedOut { .. } => outcome::settle(Attempt::TimedOut { sent: false }),
        other => outcome::settle(other),
    }
}

/// A connection closed after sending is reported as `dependency_unavailable` (retryable, "not applied").
pub fn settle_lost_as_unavailable(attempt: Attempt) -> Settled {
    match attempt {
        Attempt::Finished(Err(ToolFailure { failure: Failure::Lost, status, diagnostic, downstream_request_id })) => {
            outcome::settle(Attempt::Finished(Err(ToolFailure {
                failure: Failure::Unavailable,
                status,
                diagnostic,
                downstream_request_id,
            })))
        }
        other => outcome::settle(other),
    }
}

/// A 2xx answer whose body cannot be read is taken for a failed request: `dependency_unavailable`, retryable,
/// "nothing applied", although the downstream answered success and had committed.
pub fn settle_unreadable_as_unavailable(attempt: Attempt) -> Settled {
    match attempt {
        Attempt::Finished(Err(ToolFailure {
            failure: Failure::Unreadable,
            status,
            diagnostic,
            downstream_request_id,
        })) => outcome::settle(Attempt::Finished(Err(ToolFailure {
            failure: Failure::Unavailable,
            status,
            diagnostic,
            downstream_request_id,
        }))),
        other => outcome::settle(other),
    }
}

/// Error messages carry the downstream's body, secrets and stack traces included.
pub fn settle_leaking_downstream_body(attempt: Attempt) -> Settled {
    let body = match &attempt {
        Attempt::Finished(Err(failure)) => failure.diagnostic.clone(),
        _ => None,
    };
    let mut settled = outcome::settle(attempt);
    if let (Err(error), Some(body)) = (&mut settled.result, body) {
        let leaked = format!("{}: {body}", error.message());
        error.forge_message(leaked);
    }
    settled
}

/// `timeout_unknown` is flagged retryable with "retry_same_key": the model retries blindly.
pub fn settle_lying_retry_flags(attempt: Attempt) -> Settled {
    let mut settled = outcome::settle(attempt);
    if let Err(error) = &mut settled.result
        && error.code() == ErrorCode::TimeoutUnknown
    {
        error.forge_flags(true, Resolution::RetrySameKey);
    }
    settled
}

/// `rate_limited` without `retry_after_ms`: callers guess, usually too soon.
pub fn settle_dropping_retry_after(attempt: Attempt) -> Settled {
    let mut settled = outcome::settle(attempt);
    if let Err(error) = &mut settled.result {
        error.forge_details().remove("retry_after_ms");
    }
    settled
}

/// Output is passed on without checking it against the output schema.
pub fn output_unvalidated(_tool: &Registered, _result: &Value) -> Result<(), ErrorBody> {
    Ok(())
}

/// An unknown outcome is resolved by executing again, without asking the downstream first.
pub fn reconcile_by_reexecuting(_tool: &Registered) -> Plan {
    Plan::ReExecute
}

/// A replay sends the stored envelope back whole, its meta included (the first call's `call_id`, `attempt` and
/// `request_id`), with only `replayed` set: middleware that caches the whole response.
pub fn replay_with_stored_meta(stored: Envelope, _meta: &Meta) -> Envelope {
    Envelope { meta: Meta { replayed: true, ..stored.meta.clone() }, ..stored }
}

/// A replay answers that the operation is still in progress, marked replayed, whatever the stored outcome: a
/// cache that answers from the record's existence, not from what it holds.
pub fn replay_as_in_progress(_stored: Envelope, meta: &Meta) -> Envelope {
    let busy = ErrorBody::new(ErrorCode::OperationInProgress, "this business request is already being handled")
        .with("retry_after_ms", 1000);
    Envelope::failure(busy, Meta { replayed: true, ..meta.clone() })
}

fn schema_types(schema: &Value) -> Vec<String> {
    match &schema["type"] {
        Value::String(kind) => vec![kind.clone()],
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

fn declared(tool: &Registered) -> Map<String, Value> {
    tool.spec().input_schema["properties"].as_object().cloned().unwrap_or_default()
}

fn for_each_property(arguments: &mut Value, tool: &Registered, mut visit: impl FnMut(&mut Value, &Value)) {
    let properties = declared(tool);
    if let Some(members) = arguments.as_object_mut() {
        for (name, value) in members.iter_mut() {
            if let Some(schema) = properties.get(name) {
                visit(value, schema);
            }
        }
    }
}

fn drop_undeclared(arguments: &mut Value, tool: &Registered) {
    let properties = declared(tool);
    if let Some(members) = arguments.as_object_mut() {
        members.retain(|name, _| properties.contains_key(name));
    }
}

/// Never takes a task poll's answer as final, so nothing is recorded and every poll re-reads the downstream
/// (whose download links are signed afresh on each read).
pub fn task_never_final(_answer: &Value) -> bool {
    false
}

/// Checks ownership like the reference, but refuses a resource that does not exist with its own message, so
/// the answer tells a missing resource (or task handle) from another tenant's.
pub fn ownership_tells_missing_apart(input: &OwnershipInput<'_>) -> Result<(), ErrorBody> {
    if input.reference.is_some() && input.resource.is_none() {
        return Err(ErrorBody::new(ErrorCode::Forbidden, "no such resource").with("reason", "resource_not_accessible"));
    }
    authorize::check_ownership(input)
}
