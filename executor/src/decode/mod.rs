//! Stage 1, decode: turn the model's untrusted tool call into valid, canonical arguments of a known tool.
//!
//! Rule enforced here: the layers run in this order and the first refusal wins, each with its own code and
//! details: size → JSON syntax (+ duplicate keys, depth) → top-level object → exact tool name → schema (with
//! no implicit coercion) → canonical form and `arguments_hash`. Nothing here performs I/O.

mod json;
mod schema;

pub(crate) use json::pointer_token;
pub use json::{JsonFault, Position, parse_strict, parse_strict_str, push_pointer_token};
pub use schema::{CompiledSchema, SENSITIVE, Violation};

use crate::canonical::{Sha256Hex, canonical_digest};
use crate::error::{ErrorBody, ErrorCode};
use crate::registry::{Registered, Tools};
use crate::request::{Arguments, ToolCall};
use serde_json::Value;

/// Bounds on untrusted input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest raw argument text, in bytes. Default 1 MiB.
    pub max_argument_bytes: usize,
    /// Deepest container nesting. Default 64; at most [`Limits::MAX_DEPTH`].
    pub max_depth: usize,
    /// Most schema violations listed in one envelope. Default 10.
    pub max_violations: usize,
}

impl Limits {
    /// The ceiling for `max_depth`: below serde_json's own recursion guard, so ours always speaks first.
    pub const MAX_DEPTH: usize = 100;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_argument_bytes: 1024 * 1024, max_depth: 64, max_violations: 10 }
    }
}

/// A decoded call: a known tool and arguments that passed every input check. It borrows the tool from the
/// registry it was decoded against (`'t`): a call is decoded and executed while that registry is held, and a
/// borrow costs no reference count per call.
#[derive(Debug, Clone)]
pub struct Decoded<'t> {
    /// The tool.
    pub tool: &'t Registered,
    /// The arguments, exactly as parsed.
    pub arguments: Value,
    /// SHA-256 of the canonical JSON of the arguments ([`crate::canonical`]): what the idempotency key is
    /// derived from. The canonical text itself is not kept; `canonical_json(&arguments)` gives it again.
    pub arguments_digest: [u8; 32],
    /// Lowercase hex of `arguments_digest`.
    pub arguments_hash: Sha256Hex,
}

/// The reference decode stage.
///
/// # Errors
/// The first layer that refuses the call, as an error body with its details.
pub fn decode<'t>(call: &ToolCall, tools: &'t Tools, limits: &Limits) -> Result<Decoded<'t>, ErrorBody> {
    let arguments = parse_arguments(&call.arguments, limits)?;
    let tool = find_tool(tools, &call.name)?;
    check_schema(tool, &arguments, limits)?;
    Ok(finish(tool, arguments))
}

/// Layers up to the top-level object check: size, syntax, duplicates, depth, object.
///
/// # Errors
/// `invalid_json` or `invalid_arguments` with a `reason`.
pub(crate) fn parse_arguments(arguments: &Arguments, limits: &Limits) -> Result<Value, ErrorBody> {
    let value = match arguments {
        Arguments::Raw(text) => {
            check_size(text.len(), limits)?;
            parse_strict_str(text, limits.max_depth).map_err(|fault| json_fault(fault, limits))?
        }
        Arguments::Value(value) => {
            check_value_shape(value, limits)?;
            value.clone()
        }
    };
    if !value.is_object() {
        return Err(ErrorBody::new(ErrorCode::InvalidArguments, "tool arguments must be a JSON object")
            .with("reason", "not_an_object")
            .with("found", json_type(&value)));
    }
    Ok(value)
}

/// The exact-name lookup.
///
/// # Errors
/// `tool_not_found`.
pub(crate) fn find_tool<'t>(tools: &'t Tools, name: &str) -> Result<&'t Registered, ErrorBody> {
    tools.get(name).map(|tool| tool.as_ref()).ok_or_else(|| {
        let shown: String = name.chars().take(64).collect();
        ErrorBody::new(ErrorCode::ToolNotFound, "no tool has this exact name").with("tool", shown)
    })
}

/// Validates the arguments against the tool's input schema.
///
/// # Errors
/// `schema_violation` with the first violation's path and keyword, a bounded list of all of them, and the
/// pointers of the members that are `missing` (required) or `unexpected` (not allowed), when there are any.
pub(crate) fn check_schema(tool: &Registered, arguments: &Value, limits: &Limits) -> Result<(), ErrorBody> {
    if tool.input.is_valid(arguments) {
        return Ok(());
    }
    let (violations, truncated) = tool.input.violations(arguments, limits.max_violations.max(1));
    let (path, keyword, message) = match violations.first() {
        Some(first) => (first.path.clone(), first.keyword.clone(), first.message.as_str()),
        None => (String::new(), "schema".to_owned(), "the arguments do not match the schema"),
    };
    // `concat` sizes the text once, where `format!` would grow it through `fmt`.
    let message = ["argument ", display_path(&path), " is invalid: ", message].concat();
    let (mut missing, mut unexpected) = (Vec::new(), Vec::new());
    let mut listed = Vec::with_capacity(violations.len());
    for mut violation in violations {
        let named = match violation.keyword.as_str() {
            "required" => Some(&mut missing),
            "additionalProperties" => Some(&mut unexpected),
            _ => None,
        };
        if let Some(named) = named {
            named.extend(violation.members.drain(..).map(Value::String));
        }
        listed.push(violation.into_json());
    }
    let mut body = ErrorBody::new(ErrorCode::SchemaViolation, message)
        .with("path", path)
        .with("keyword", keyword)
        .with("violations", listed)
        .with("violations_truncated", truncated);
    for (name, members) in [("missing", missing), ("unexpected", unexpected)] {
        if !members.is_empty() {
            body = body.with(name, members);
        }
    }
    Err(body)
}

/// Canonical form and hash of arguments that passed every check.
pub(crate) fn finish(tool: &Registered, arguments: Value) -> Decoded<'_> {
    let arguments_digest = canonical_digest(&arguments);
    let arguments_hash = Sha256Hex::from_digest(&arguments_digest);
    Decoded { tool, arguments, arguments_digest, arguments_hash }
}

fn check_size(size: usize, limits: &Limits) -> Result<(), ErrorBody> {
    if size > limits.max_argument_bytes {
        return Err(ErrorBody::new(ErrorCode::InvalidArguments, "tool arguments are too large")
            .with("reason", "too_large")
            .with("limit_bytes", limits.max_argument_bytes)
            .with("size_bytes", size));
    }
    Ok(())
}

/// Size and depth of an already-parsed value, without recursion.
fn check_value_shape(value: &Value, limits: &Limits) -> Result<(), ErrorBody> {
    let mut size = 0usize;
    let mut stack = vec![(value, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        size += match node {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 24,
            Value::String(text) => text.len() + 2,
            Value::Array(items) => {
                check_depth(depth + 1, limits)?;
                stack.extend(items.iter().map(|item| (item, depth + 1)));
                items.len() + 2
            }
            Value::Object(members) => {
                check_depth(depth + 1, limits)?;
                stack.extend(members.values().map(|member| (member, depth + 1)));
                members.keys().map(|key| key.len() + 4).sum::<usize>() + 2
            }
        };
        if size > limits.max_argument_bytes {
            return check_size(size, limits);
        }
    }
    Ok(())
}

fn check_depth(depth: usize, limits: &Limits) -> Result<(), ErrorBody> {
    if depth > limits.max_depth {
        return Err(ErrorBody::new(ErrorCode::InvalidArguments, "tool arguments nest too deeply")
            .with("reason", "too_deep")
            .with("limit", limits.max_depth));
    }
    Ok(())
}

fn json_fault(fault: JsonFault, limits: &Limits) -> ErrorBody {
    let at = |body: ErrorBody, position: Position| {
        body.with("line", position.line).with("column", position.column).with("offset", position.offset)
    };
    match fault {
        JsonFault::Syntax { message, hint, position } => {
            let body = at(
                ErrorBody::new(ErrorCode::InvalidJson, format!("tool arguments are not valid JSON: {message}")),
                position,
            );
            match hint {
                Some(hint) => body.with("hint", hint),
                None => body,
            }
        }
        JsonFault::DuplicateKey { path, position } => at(
            ErrorBody::new(
                ErrorCode::InvalidArguments,
                format!("tool arguments repeat the key at {}", display_path(&path)),
            )
            .with("reason", "duplicate_key")
            .with("path", path),
            position,
        ),
        JsonFault::TooDeep { path, position } => at(
            ErrorBody::new(ErrorCode::InvalidArguments, "tool arguments nest too deeply")
                .with("reason", "too_deep")
                .with("limit", limits.max_depth)
                .with("path", path),
            position,
        ),
    }
}

fn display_path(pointer: &str) -> &str {
    if pointer.is_empty() { "(root)" } else { pointer }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
