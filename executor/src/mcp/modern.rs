//! MCP revision 2026-07-28 ("modern", stateless) beside 2025-11-25: which era a request is in, its required
//! `_meta` fields, `server/discover`, the fields every modern result carries, and the Streamable HTTP headers
//! that must mirror the body (docs/mcp.md "Protocol revisions"; docs/mcp-notes.md §1 to §5).
//!
//! Rule enforced here: a request is modern when it is `server/discover` or its `_meta` names a protocol version
//! that is not a legacy one; a modern request without `_meta["io.modelcontextprotocol/protocolVersion"]` (a
//! string) or `["io.modelcontextprotocol/clientCapabilities"]` (an object) is -32602 before anything runs, one
//! naming a version the server does not speak -32022 with `data.supported` and `data.requested`; every modern
//! result carries `resultType: "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`; over HTTP a
//! header that does not match the body is -32020 and nothing runs.

use super::{INVALID_PARAMS, VERSIONS};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

/// The modern revision this server speaks.
pub const MODERN: &str = "2026-07-28";
/// What `server/discover` lists: the modern revision, and the legacy one served after `initialize`.
pub const SUPPORTED: [&str; 2] = [MODERN, VERSIONS[0]];

/// 2026-07-28 basic §Error Codes: an HTTP header does not match the body, or a required one is missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28 basic §Error Codes: the request's protocol version is not one the server speaks.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The `_meta` key of a request's protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a request's client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of a result's server identity.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may cache `tools/list` and `server/discover` (the catalog does not change while the process
/// runs).
const TTL_MS: u64 = 60_000;

/// What the HTTP transport must know of a modern request: its id, method, `Mcp-Name` source and version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The JSON-RPC id, for the refusals the transport makes.
    pub id: Value,
    /// `method`, which `Mcp-Method` mirrors.
    pub method: String,
    /// `params.name` of a `tools/call` (`params.taskId` of a task request), which `Mcp-Name` mirrors.
    pub name: Option<String>,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when it is a string.
    pub version: Option<String>,
}

/// Whether a request (its `method` and `params`) is modern.
pub(crate) fn is_modern(method: &str, params: Option<&Value>) -> bool {
    if method == "server/discover" {
        return true;
    }
    match params.and_then(|params| params.get("_meta")?.get(META_VERSION)) {
        None => false,
        Some(Value::String(version)) => !VERSIONS.contains(&version.as_str()),
        Some(_) => true,
    }
}

/// The route of a modern request.
pub(crate) fn route(id: &Value, method: &str, params: Option<&Value>) -> Route {
    let text = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
    let name = match method {
        "tools/call" => text(params.and_then(|params| params.get("name"))),
        // ext-tasks §Streamable HTTP: `Mcp-Name` is the task id of a task request.
        "tasks/get" | "tasks/update" | "tasks/cancel" => text(params.and_then(|params| params.get("taskId"))),
        _ => None,
    };
    let version = text(params.and_then(|params| params.get("_meta")?.get(META_VERSION)));
    Route { id: id.clone(), method: method.to_owned(), name, version }
}

/// The refusal a modern request gets before anything runs, if any: a required `_meta` field missing or of the
/// wrong type (-32602), or a version the server does not speak (-32022).
pub(crate) fn refusal(id: &Value, params: Option<&Value>) -> Option<Value> {
    let missing = |why: &str| Some(super::refusal(id, INVALID_PARAMS, &format!("Invalid params: {why}")));
    let meta = match params.map(|params| params.get("_meta")) {
        Some(Some(Value::Object(meta))) => meta,
        Some(Some(_)) => return missing("_meta is not an object"),
        _ => return missing("_meta is required (io.modelcontextprotocol/protocolVersion, clientCapabilities)"),
    };
    let Some(Value::String(version)) = meta.get(META_VERSION) else {
        return missing(&format!("_meta[\"{META_VERSION}\"] is required and must be a string"));
    };
    if !meta.get(META_CAPABILITIES).is_some_and(Value::is_object) {
        return missing(&format!("_meta[\"{META_CAPABILITIES}\"] is required and must be an object"));
    }
    (version != MODERN).then(|| unsupported(id, version))
}

/// -32022 for `requested`, listing the versions the server speaks.
pub fn unsupported(id: &Value, requested: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": "Unsupported protocol version",
        "data": {"supported": SUPPORTED, "requested": requested},
    }})
}

/// A modern result: `result` with `resultType: "complete"` and the server's identity in `_meta`.
pub fn complete(mut result: Value) -> Value {
    if let Value::Object(members) = &mut result {
        members.insert("resultType".to_owned(), json!("complete"));
        let meta = members.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(META_SERVER_INFO.to_owned(), server_info());
        }
    }
    result
}

/// The server's `Implementation`.
pub(crate) fn server_info() -> Value {
    json!({"name": "callproof-executor", "version": env!("CARGO_PKG_VERSION")})
}

/// The `DiscoverResult`: the versions, the tools capability, and the conformance app's features as an extension
/// (docs/mcp.md, "Starting the server").
pub(crate) fn discover(features: &[String]) -> Value {
    complete(json!({
        "supportedVersions": SUPPORTED,
        "capabilities": {
            "tools": {"listChanged": false},
            "extensions": {
                "io.callproof/conformance-app": {"features": features},
                super::tasks::EXTENSION: {},
            },
        },
        "instructions": "The callproof conformance app; each result's structuredContent is a callproof envelope.",
        "ttlMs": TTL_MS,
        "cacheScope": "public",
    }))
}

/// The modern `ListToolsResult`: the tools in catalog order (the same on every request) and the cache fields.
pub(crate) fn tools_list(tools: Vec<Value>) -> Value {
    complete(json!({"tools": tools, "ttlMs": TTL_MS, "cacheScope": "public"}))
}

/// The HTTP request headers a modern request must carry, as the transport read them (`None` when absent).
#[derive(Debug, Clone, Copy, Default)]
pub struct Headers<'a> {
    /// `MCP-Protocol-Version`.
    pub version: Option<&'a [u8]>,
    /// `Mcp-Method`.
    pub method: Option<&'a [u8]>,
    /// `Mcp-Name`.
    pub name: Option<&'a [u8]>,
}

/// Why the headers do not match the body (2026-07-28 streamable-http §Server Validation), if they do not: a
/// required header missing, or one whose value (after the Base64 sentinel is decoded) differs from the body's.
pub fn header_mismatch(route: &Route, headers: Headers<'_>) -> Option<String> {
    let check = |header: &str, sent: Option<&[u8]>, body: &str, encoded: bool| -> Option<String> {
        let Some(sent) = sent else { return Some(format!("the {header} header is required")) };
        let value = if encoded { decode_sentinel(sent) } else { std::str::from_utf8(sent).ok().map(str::to_owned) };
        match value {
            Some(value) if value == body => None,
            Some(value) => Some(format!("{header} header value {value:?} does not match body value {body:?}")),
            None => Some(format!("the {header} header is not valid")),
        }
    };
    if let Some(version) = &route.version
        && let Some(why) = check("MCP-Protocol-Version", headers.version, version, false)
    {
        return Some(why);
    }
    if let Some(why) = check("Mcp-Method", headers.method, &route.method, false) {
        return Some(why);
    }
    route.name.as_ref().and_then(|name| check("Mcp-Name", headers.name, name, true))
}

/// A header value, decoding the `=?base64?…?=` sentinel (2026-07-28 streamable-http §Value Encoding).
fn decode_sentinel(value: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(value).ok()?;
    match text.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) {
        Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok(),
        None => Some(text.to_owned()),
    }
}

/// The -32020 refusal of a request whose headers do not match it.
pub fn mismatch_refusal(id: &Value, why: &str) -> Value {
    super::refusal(id, HEADER_MISMATCH, &format!("Header mismatch: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(version: &str) -> Value {
        json!({"_meta": {META_VERSION: version, META_CAPABILITIES: {}}})
    }

    #[test]
    fn a_request_is_modern_by_its_method_or_a_modern_version_in_meta() {
        assert!(is_modern("server/discover", None));
        assert!(is_modern("tools/list", Some(&meta(MODERN))));
        assert!(is_modern("tools/list", Some(&meta("1900-01-01"))));
        assert!(!is_modern("tools/list", Some(&meta("2025-11-25"))), "a legacy version is a legacy request");
        assert!(!is_modern("tools/list", Some(&json!({"_meta": {"io.callproof/context": {}}}))));
        assert!(!is_modern("tools/list", None));
    }

    #[test]
    fn missing_meta_fields_are_minus_32602_and_an_unknown_version_minus_32022_with_the_supported_ones() {
        let code = |params: Value| refusal(&json!(1), Some(&params)).map(|refused| refused["error"]["code"].clone());
        assert_eq!(code(meta(MODERN)), None);
        assert_eq!(code(json!({})), Some(json!(-32602)));
        assert_eq!(code(json!({"_meta": {META_VERSION: MODERN}})), Some(json!(-32602)));
        assert_eq!(code(json!({"_meta": {META_VERSION: 7, META_CAPABILITIES: {}}})), Some(json!(-32602)));
        let refused = refusal(&json!(1), Some(&meta("1900-01-01"))).expect("refused");
        assert_eq!(refused["error"]["code"], -32022);
        assert_eq!(refused["error"]["data"], json!({"supported": SUPPORTED, "requested": "1900-01-01"}));
    }

    #[test]
    fn every_modern_result_is_complete_and_names_the_server() {
        let result = complete(json!({"tools": [], "_meta": {"x.y/z": 1}}));
        assert_eq!(result["resultType"], "complete");
        assert_eq!(result["_meta"]["x.y/z"], 1);
        assert_eq!(result["_meta"][META_SERVER_INFO]["name"], "callproof-executor");
        let discovered = discover(&["durable_store".to_owned()]);
        assert_eq!((discovered["ttlMs"].clone(), discovered["cacheScope"].clone()), (json!(TTL_MS), json!("public")));
        assert!(discovered["capabilities"]["tools"].is_object());
    }

    #[test]
    fn headers_must_be_present_and_match_the_body_after_the_base64_sentinel_is_decoded() {
        let route = Route {
            id: json!(1),
            method: "tools/call".into(),
            name: Some("get_order".into()),
            version: Some(MODERN.into()),
        };
        let headers = |name: &'static [u8]| Headers {
            version: Some(MODERN.as_bytes()),
            method: Some(b"tools/call"),
            name: Some(name),
        };
        assert_eq!(header_mismatch(&route, headers(b"get_order")), None);
        assert_eq!(header_mismatch(&route, headers(b"=?base64?Z2V0X29yZGVy?=")), None);
        assert!(header_mismatch(&route, headers(b"get_weather")).is_some_and(|why| why.contains("get_weather")));
        let no_name = Headers { name: None, ..headers(b"") };
        assert!(header_mismatch(&route, no_name).is_some_and(|why| why.contains("Mcp-Name header is required")));
        let list = Route { method: "tools/list".into(), name: None, ..route };
        let wrong_method = Headers { method: Some(b"tools/call"), ..headers(b"") };
        assert!(header_mismatch(&list, wrong_method).is_some());
    }
}
