//! The checks of the MCP profile: each with a stable id, a level and the specification text it cites.
//!
//! Rule enforced here: an id is spelled once, here, and docs/mcp.md's table lists the same ids with the same
//! levels (a test compares them). The level is MUST only where the cited text is a MUST (or the spec's defined
//! mechanism); a rule that is callproof's own is a SHOULD. Revision cited: 2025-11-25.

use crate::checks::Level;

/// One check of the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// The stable id, e.g. `mcp-unknown-tool`.
    pub id: &'static str,
    /// MUST or SHOULD.
    pub level: Level,
    /// The specification section (MCP 2025-11-25 unless it says otherwise).
    pub cites: &'static str,
    /// What passes, in one line.
    pub rule: &'static str,
}

pub(super) const fn check(id: &'static str, level: Level, cites: &'static str, rule: &'static str) -> Check {
    Check { id, level, cites, rule }
}

/// `initialize` is answered with a protocol version and `capabilities.tools`.
pub const HANDSHAKE: Check = check(
    "mcp-handshake",
    Level::Must,
    "lifecycle §Initialization; server/tools §Capabilities",
    "initialize 2025-11-25 is answered with a supported protocolVersion and capabilities.tools",
);
/// An unknown requested version is answered with one the server supports.
pub const VERSION_NEGOTIATION: Check = check(
    "mcp-version-negotiation",
    Level::Must,
    "lifecycle §Version Negotiation",
    "initialize asking for 1900-01-01 (on a second server process) is answered with a version of MCP the server supports",
);
/// `tools/list` is a list of tools with names and object input schemas.
pub const TOOLS_LIST: Check = check(
    "mcp-tools-list",
    Level::Must,
    "server/tools §Listing Tools; schema.ts Tool, ListToolsResult",
    "tools/list (every page) gives tools, each with a string name and an object inputSchema",
);
/// Tool names are short and plain.
pub const TOOL_NAME: Check = check(
    "mcp-tool-name",
    Level::Should,
    "server/tools §Tool Names",
    "every tool name matches ^[A-Za-z0-9_.-]{1,128}$ and no two tools share one",
);
/// Input schemas are valid JSON Schema 2020-12 with an object root.
pub const INPUT_SCHEMA_VALID: Check = check(
    "mcp-input-schema-valid",
    Level::Must,
    "basic §JSON Schema Usage; server/tools §Tool (inputSchema)",
    "every inputSchema is a valid JSON Schema 2020-12 whose root has type \"object\" (a pattern callproof cannot \
     compile aside: mcp-schema-pattern)",
);
/// Declared output schemas are valid JSON Schema 2020-12, with an object root in 2025-11-25.
pub const OUTPUT_SCHEMA_VALID: Check = check(
    "mcp-output-schema-valid",
    Level::Must,
    "basic §JSON Schema Usage; server/tools §Output Schema; schema.ts Tool.outputSchema",
    "every declared outputSchema is a valid JSON Schema 2020-12; in 2025-11-25 its root has type \"object\" (in \
     2026-07-28 any root, an array included)",
);
/// Patterns in the schemas compile in callproof's regex engine.
pub const SCHEMA_PATTERN: Check = check(
    "mcp-schema-pattern",
    Level::Should,
    "JSON Schema 2020-12 Core §6.4 and Validation §6.3.3 (a pattern SHOULD be ECMA-262, with the u flag, in the \
     portable subset)",
    "every pattern and patternProperties name of an inputSchema or outputSchema compiles in callproof's regex \
     engine; one that does not is left out of the generated inputs and of output validation",
);
/// Annotations are what schema.ts says they are.
pub const ANNOTATIONS_CONSISTENT: Check = check(
    "mcp-annotations-consistent",
    Level::Should,
    "schema.ts ToolAnnotations",
    "every tool's annotations are an object whose hints are booleans (destructiveHint and idempotentHint are \
     meaningful only when readOnlyHint is false, so no combination contradicts)",
);
/// Input schemas are strict: no extra properties, every property required.
pub const INPUT_SCHEMA_STRICT: Check = check(
    "mcp-input-schema-strict",
    Level::Should,
    "callproof (the catalog's strict mode, docs/conformance-app.md)",
    "every object schema in an inputSchema sets additionalProperties: false and requires every property",
);
/// Every tool declares an output schema.
pub const OUTPUT_SCHEMA_DECLARED: Check = check(
    "mcp-output-schema-declared",
    Level::Should,
    "callproof; server/tools §Output Schema",
    "every tool declares an outputSchema",
);
/// A malformed line gets -32700.
pub const PARSE_ERROR: Check = check(
    "mcp-parse-error",
    Level::Should,
    "JSON-RPC 2.0 §5.1; basic §Messages; transports §stdio (a client MUST NOT send it, hence SHOULD)",
    "a line that is not JSON is answered with error -32700 and id null",
);
/// An invalid request gets -32600.
pub const INVALID_REQUEST: Check = check(
    "mcp-invalid-request",
    Level::Should,
    "JSON-RPC 2.0 §5.1",
    "{\"jsonrpc\":\"2.0\",\"id\":N,\"method\":5} is answered with error -32600",
);
/// An unknown method gets -32601.
pub const METHOD_NOT_FOUND: Check = check(
    "mcp-method-not-found",
    Level::Must,
    "JSON-RPC 2.0 §5.1; basic §Messages",
    "a request for a method the server does not have is answered with error -32601",
);
/// An unknown tool gets -32602.
pub const UNKNOWN_TOOL: Check = check(
    "mcp-unknown-tool",
    Level::Must,
    "server/tools §Error Handling (protocol errors: unknown tools, -32602)",
    "tools/call of a name no tool has is answered with error -32602, not a result",
);
/// An unknown tool is refused one way or the other, never answered as a success.
pub const UNKNOWN_TOOL_REFUSED: Check = check(
    "mcp-unknown-tool-refused",
    Level::Must,
    "server/tools §Error Handling (an unknown tool is an error: a protocol error, -32602)",
    "tools/call of a name no tool has is refused, with a JSON-RPC error or an isError result, never answered with a \
     successful result the model would take for the tool's output",
);
/// The server answers ping after every hostile input and is running at the end.
pub const SURVIVES: Check = check(
    "mcp-survives",
    Level::Must,
    "JSON-RPC 2.0 §5 (every request is answered); server/tools §Security Considerations",
    "after every hostile input the server answers ping, and it is still running at the end",
);
/// Every request is answered within the timeout.
pub const ANSWERS_IN_TIME: Check = check(
    "mcp-answers-in-time",
    Level::Must,
    "lifecycle §Timeouts; JSON-RPC 2.0 §5",
    "every request is answered within --timeout",
);
/// `tools/call` with arguments that are not an object gets -32602.
pub const CALL_PARAMS_INVALID: Check = check(
    "mcp-call-params-invalid",
    Level::Must,
    "server/tools §Error Handling (requests that fail CallToolRequest); JSON-RPC 2.0 §5.1",
    "tools/call of a callable tool with \"arguments\":\"x\" is answered with error -32602",
);
/// A body the server cannot accept gets a 4xx (HTTP only).
pub const HTTP_ERROR_STATUS: Check = check(
    "mcp-http-error-status",
    Level::Must,
    "transports §Sending Messages to the Server, item 4 (input the server cannot accept: an HTTP error status)",
    "a POST whose body is not JSON, and one whose body is not a valid request (\"method\":5), are each refused: \
     a 4xx status, or a 2xx carrying only a JSON-RPC error; never a result, a 5xx or silence",
);
/// A foreign `Origin` gets 403 and nothing is executed (HTTP only).
pub const HTTP_ORIGIN: Check = check(
    "mcp-http-origin",
    Level::Must,
    "transports §Security Warning (an Origin present and invalid: 403 Forbidden)",
    "the initialize POST the server accepted, sent again with Origin: http://attacker.invalid, is answered 403 \
     without a result",
);
/// Session ids are visible ASCII and not guessable (HTTP only, when the server gives sessions).
pub const HTTP_SESSION_ID: Check = check(
    "mcp-http-session-id",
    Level::Should,
    "transports §Session Management (a session ID SHOULD be globally unique and cryptographically secure; it \
     MUST only contain visible ASCII, 0x21 to 0x7E)",
    "three sessions opened by the initialize POST the server accepted get three different Mcp-Session-Id values, \
     each of visible ASCII and able to hold 64 random bits, every two differing in at least 8 characters (a \
     counter or a clock gives the next one away)",
);
/// A request without a token gets 401 with a Bearer challenge (HTTP with `--bearer` only).
pub const AUTH_REQUIRED: Check = check(
    "mcp-auth-required",
    Level::Must,
    "authorization §Access Token Usage, §Error Handling (401: authorization required); RFC 6750 §3",
    "with --bearer: the initialize POST without Authorization is answered 401 with WWW-Authenticate: Bearer, \
     and a GET and a DELETE of the session a valid token opened, without Authorization, are not served (no 2xx)",
);
/// A broken token gets 401 (HTTP with `--bearer` only).
pub const AUTH_INVALID_TOKEN: Check = check(
    "mcp-auth-invalid-token",
    Level::Must,
    "authorization §Token Handling (invalid tokens MUST receive 401); RFC 7519 §6 (alg none)",
    "with --bearer: the initialize POST is answered 401 both with the token's signature changed and with the \
     token re-encoded as alg none without a signature (a token that is not a JWT: one character changed)",
);
/// A required property left out is refused.
pub const MISSING_REQUIRED: Check = check(
    "mcp-input-missing-required",
    Level::Must,
    "server/tools §Security Considerations (servers MUST validate all tool inputs); the tool's required",
    "a call without a required property is refused (isError or a JSON-RPC error), never a success",
);
/// A value of a type the schema does not allow is refused.
pub const WRONG_TYPE: Check = check(
    "mcp-input-wrong-type",
    Level::Must,
    "server/tools §Security Considerations; the property's type",
    "a property of a JSON type its schema does not allow is refused",
);
/// `"100"` for an integer or number is refused.
pub const STRING_FOR_NUMBER: Check = check(
    "mcp-input-string-for-number",
    Level::Must,
    "server/tools §Security Considerations; the property's type",
    "a number sent as a string (\"100\") where the schema says integer or number is refused, not coerced",
);
/// `true` for an integer or number is refused.
pub const BOOL_FOR_NUMBER: Check = check(
    "mcp-input-bool-for-number",
    Level::Must,
    "server/tools §Security Considerations; the property's type",
    "true where the schema says integer or number is refused, not read as 1",
);
/// `null` where the type excludes it is refused.
pub const NULL: Check = check(
    "mcp-input-null",
    Level::Must,
    "server/tools §Security Considerations; the property's type",
    "null for a property whose type excludes null is refused",
);
/// A value just outside a declared constraint is refused.
pub const CONSTRAINT: Check = check(
    "mcp-input-constraint",
    Level::Must,
    "server/tools §Security Considerations; minimum, maximum, minLength, maxLength, enum, pattern",
    "a value just outside one declared constraint of a property is refused",
);
/// `NaN` spliced for a number is refused.
pub const NON_FINITE: Check = check(
    "mcp-input-non-finite",
    Level::Must,
    "RFC 8259 §6 (no NaN in JSON); server/tools §Security Considerations",
    "NaN spliced as the text of a number property is refused, answered with -32700, or dropped like any line that \
     is not JSON (mcp-parse-error judges that), never accepted",
);
/// Deeply nested arrays are refused.
pub const DEEP_NESTING: Check = check(
    "mcp-input-deep-nesting",
    Level::Must,
    "server/tools §Security Considerations",
    "10 000 nested arrays spliced into a property that is not an array are refused, or answered with -32700",
);
/// A lone surrogate escape in a string is refused.
pub const LONE_SURROGATE: Check = check(
    "mcp-input-lone-surrogate",
    Level::Should,
    "callproof; RFC 8259 §8.2 (a lone surrogate's behaviour is unpredictable)",
    "\"\\ud800\" spliced as the text of a string property is refused, or answered with -32700",
);
/// A 2 MiB string is refused where the schema sets no smaller bound.
pub const OVERSIZE: Check = check(
    "mcp-input-oversize",
    Level::Should,
    "callproof (1 MiB of arguments, docs/errors.md too_large); server/tools §Security Considerations",
    "a 2 MiB string for a string property with no maxLength is refused",
);
/// An unknown property is refused where the schema forbids extras.
pub const UNKNOWN_FIELD: Check = check(
    "mcp-input-unknown-field",
    Level::Must,
    "server/tools §Security Considerations; additionalProperties: false",
    "an extra property is refused where the inputSchema sets additionalProperties: false",
);
/// `100.0` and `1e2` for an integer are refused.
pub const INTEGRAL_FLOAT: Check = check(
    "mcp-input-integral-float",
    Level::Should,
    "callproof (docs/errors.md); JSON Schema 2020-12 Core §4.2.1 counts 100.0 as an integer, hence SHOULD",
    "100.0 and 1e2 spliced as the text of an integer property are refused",
);
/// The same key twice in the argument text is refused.
pub const DUPLICATE_KEY: Check = check(
    "mcp-input-duplicate-key",
    Level::Should,
    "callproof; RFC 8259 §4 (names SHOULD be unique)",
    "arguments whose text has the same property twice are refused, not resolved to one of them",
);
/// Invalid input is refused as a tool result, so the model can correct itself.
pub const ERROR_IS_RESULT: Check = check(
    "mcp-input-error-is-result",
    Level::Should,
    "server/tools §Error Handling (input validation errors are tool execution errors); SEP-1303",
    "an invalid input is refused with a result with isError: true, not a JSON-RPC error",
);
/// Successful results conform to the declared output schema.
pub const OUTPUT_CONFORMS: Check = check(
    "mcp-output-conforms",
    Level::Must,
    "server/tools §Output Schema",
    "every result without isError of a tool with an outputSchema carries structuredContent valid against it",
);
/// Structured content is mirrored in a text block.
pub const TEXT_MIRROR: Check = check(
    "mcp-output-text-mirror",
    Level::Should,
    "server/tools §Structured Content (a tool SHOULD also return the serialized JSON in a TextContent block)",
    "every result with structuredContent also has a text block whose JSON is the same value",
);
/// Error texts hold no stack trace, file path or secret.
pub const ERROR_NO_LEAK: Check = check(
    "mcp-error-no-leak",
    Level::Must,
    "server/tools §Security Considerations (servers MUST sanitize tool outputs)",
    "no error text (isError content, JSON-RPC error message or data) holds a stack trace through a server file, a \
     file path other than the one the call's arguments name, or a secret-shaped string",
);

/// No `CreateTaskResult` to a request without the extension, and -32021 for `tasks/get` without it.
pub const TASKS_CAPABILITY: Check = check(
    "mcp-tasks-capability",
    Level::Must,
    "ext-tasks §Capability Negotiation; §Error Handling (-32021 for tasks/get without the extension)",
    "no tools/call without the extension in clientCapabilities is answered with a CreateTaskResult, and tasks/get \
     without it is answered with error -32021 whose data.requiredCapabilities is an object (over HTTP with status 400)",
);
/// A `CreateTaskResult` says it is one; `tasks/get` and `tasks/cancel` results are `"complete"`.
pub const TASKS_RESULT_TYPE: Check = check(
    "mcp-tasks-result-type",
    Level::Must,
    "ext-tasks §Polymorphic Results, §Tasks, §Task Polling, §Task Cancellation",
    "a CreateTaskResult carries resultType \"task\", a taskId, a known status, createdAt, lastUpdatedAt and ttlMs \
     (a number or null); every tasks/get and tasks/cancel result carries resultType \"complete\"",
);
/// An unknown task id is invalid params.
pub const TASKS_UNKNOWN_ID: Check = check(
    "mcp-tasks-unknown-id",
    Level::Must,
    "ext-tasks §Error Handling (Protocol Errors: -32602, MUST for tasks/get)",
    "tasks/get with a random taskId (the extension declared) is answered with error -32602",
);
/// A task handle resolves as soon as it is returned.
pub const TASKS_DURABLE_HANDLE: Check = check(
    "mcp-tasks-durable-handle",
    Level::Must,
    "ext-tasks §Task Creation (no CreateTaskResult before tasks/get for it resolves)",
    "tasks/get sent right after a CreateTaskResult is answered with the task, not with error -32602",
);
/// A terminal task stays as it ended.
pub const TASKS_TERMINAL_STABLE: Check = check(
    "mcp-tasks-terminal-stable",
    Level::Must,
    "ext-tasks §Task Status (completed, failed and cancelled are terminal); §Task Polling",
    "two more tasks/get after a terminal status give the same status, result and error",
);
/// `failed` is for JSON-RPC errors only.
pub const TASKS_FAILED_IS_JSONRPC: Check = check(
    "mcp-tasks-failed-is-jsonrpc",
    Level::Must,
    "ext-tasks §Task Execution Errors; §Task Status",
    "a failed task carries error, a JSON-RPC error object (an integer code, a string message); a completed one \
     carries result, an object (a tool error is completed with an isError result)",
);
/// Another identity's task is not found.
pub const TASKS_AUTH_BINDING: Check = check(
    "mcp-tasks-auth-binding",
    Level::Must,
    "ext-tasks §Security Considerations (Auth binding)",
    "over HTTP with --bearer and --bearer-second: tasks/get of a task of the first identity with the second's \
     token is answered with error -32602, as for an unknown id (the same code, message and HTTP status, the task id aside, and data with the same members)",
);

/// The Tasks extension's checks, in report order (after [`super::modern::ONLY`], 2026-07-28 only).
pub const TASKS: [Check; 7] = [
    TASKS_CAPABILITY,
    TASKS_RESULT_TYPE,
    TASKS_UNKNOWN_ID,
    TASKS_DURABLE_HANDLE,
    TASKS_TERMINAL_STABLE,
    TASKS_FAILED_IS_JSONRPC,
    TASKS_AUTH_BINDING,
];

/// Nothing but MCP messages on a stdio server's stdout.
pub const STDOUT_CLEAN: Check = check(
    "mcp-stdout-clean",
    Level::Must,
    "transports §stdio (the server MUST NOT write anything to its stdout that is not a valid MCP message)",
    "over stdio, every line the server writes to stdout during the run is a JSON-RPC 2.0 message (blank lines \
     aside)",
);
/// Progress notifications name a token a request gave, their progress increasing.
pub const PROGRESS_TOKEN: Check = check(
    "mcp-progress-token",
    Level::Must,
    "utilities/progress §Progress Flow, §Behavior Requirements (progress notifications MUST only reference tokens \
     provided in an active request; progress MUST increase)",
    "every notifications/progress names a progressToken that a request of the run gave, over stdio before that \
     request's answer, and its progress increases with each notification of that token",
);
/// A resource that does not exist is an error.
pub const RESOURCE_NOT_FOUND: Check = check(
    "mcp-resource-not-found",
    Level::Should,
    "server/resources §Error Handling (servers SHOULD return standard JSON-RPC errors: resource not found); \
     2026-07-28 SEP-2164 (-32602)",
    "resources/read of a URI no server has is answered with a JSON-RPC error, not with contents (only when the \
     server declares resources)",
);

/// Every check of the profile, in report order.
pub const ALL: [Check; 43] = [
    HANDSHAKE,
    VERSION_NEGOTIATION,
    TOOLS_LIST,
    TOOL_NAME,
    INPUT_SCHEMA_VALID,
    OUTPUT_SCHEMA_VALID,
    SCHEMA_PATTERN,
    INPUT_SCHEMA_STRICT,
    OUTPUT_SCHEMA_DECLARED,
    ANNOTATIONS_CONSISTENT,
    PARSE_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNKNOWN_TOOL,
    UNKNOWN_TOOL_REFUSED,
    SURVIVES,
    ANSWERS_IN_TIME,
    CALL_PARAMS_INVALID,
    HTTP_ERROR_STATUS,
    HTTP_ORIGIN,
    HTTP_SESSION_ID,
    AUTH_REQUIRED,
    AUTH_INVALID_TOKEN,
    MISSING_REQUIRED,
    WRONG_TYPE,
    STRING_FOR_NUMBER,
    BOOL_FOR_NUMBER,
    NULL,
    CONSTRAINT,
    NON_FINITE,
    DEEP_NESTING,
    LONE_SURROGATE,
    OVERSIZE,
    UNKNOWN_FIELD,
    INTEGRAL_FLOAT,
    DUPLICATE_KEY,
    ERROR_IS_RESULT,
    OUTPUT_CONFORMS,
    TEXT_MIRROR,
    ERROR_NO_LEAK,
    STDOUT_CLEAN,
    PROGRESS_TOKEN,
    RESOURCE_NOT_FOUND,
];

/// The checks of a run in `modern` (2026-07-28) or legacy (2025-11-25) mode, in report order: in 2026-07-28
/// the handshake and version negotiation take their modern forms and [`super::modern::ONLY`] and [`TASKS`]
/// follow (the Tasks extension is a 2026-07-28 one; a 2025-11-25 report does not list its checks).
pub fn of(modern: bool) -> Vec<Check> {
    if !modern {
        return ALL.to_vec();
    }
    let forms = [super::modern::HANDSHAKE, super::modern::VERSION_NEGOTIATION];
    let shared = ALL.iter().map(|check| forms.iter().find(|form| form.id == check.id).copied().unwrap_or(*check));
    shared.chain(super::modern::ONLY).chain(TASKS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_modern_run_has_the_modern_forms_and_the_modern_checks_with_no_id_twice() {
        let modern = of(true);
        let ids: BTreeSet<&str> = modern.iter().map(|check| check.id).collect();
        assert_eq!(ids.len(), modern.len());
        assert_eq!(modern.len(), ALL.len() + super::super::modern::ONLY.len() + TASKS.len());
        let handshake = modern.iter().find(|check| check.id == HANDSHAKE.id).expect("handshake");
        assert!(handshake.cites.starts_with("2026-07-28"), "{handshake:?}");
        assert_eq!(of(false), ALL.to_vec());
    }

    #[test]
    fn ids_are_unique_and_prefixed() {
        let ids: BTreeSet<&str> = ALL.iter().map(|check| check.id).collect();
        assert_eq!(ids.len(), ALL.len());
        assert!(ALL.iter().all(|check| check.id.starts_with("mcp-")));
    }
}
