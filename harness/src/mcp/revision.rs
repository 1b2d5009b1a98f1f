//! The two MCP revisions the harness speaks as a client, and how it tells which one a server speaks
//! (docs/mcp.md "Protocol revisions"; 2026-07-28 versioning §Backward Compatibility).
//!
//! Rule enforced here: a modern (2026-07-28) request carries `_meta["io.modelcontextprotocol/protocolVersion"]`,
//! `["io.modelcontextprotocol/clientCapabilities"]` and `["io.modelcontextprotocol/clientInfo"]`, and over HTTP
//! the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers mirroring its body; `auto` picks modern only on
//! a `DiscoverResult` or a recognised modern error (-32020 to -32022), never on one other error code.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

/// The modern revision.
pub const MODERN: &str = "2026-07-28";
/// The legacy revision.
pub const LEGACY: &str = "2025-11-25";

/// The `_meta` key of a request's protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a request's client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of a request's client identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key by which a request opts in to the server's log messages, from that level up (a 2026-07-28
/// server sends none without it).
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The `_meta` key of a result's server identity.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The Tasks extension's identifier (ext-tasks §Extension Identifier): declared by a server in
/// `capabilities.extensions`, by a client per request in `clientCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The methods whose `Mcp-Name` header is the request's `params.taskId` (ext-tasks §Streamable HTTP).
pub const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// The id of the era probe (`server/discover`), a string so the numbered requests after it keep their ids.
pub const PROBE_ID: &str = "callproof-discover";

/// `--mcp-revision`: which revision to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Revision {
    /// Ask the server (`server/discover` first), fall back to 2025-11-25.
    #[default]
    Auto,
    /// 2026-07-28: stateless, `_meta` on every request.
    #[value(name = "2026-07-28")]
    Modern,
    /// 2025-11-25: `initialize`, then requests.
    #[value(name = "2025-11-25")]
    Legacy,
}

/// The `_meta` of a modern request for `version` (the callproof context, when given, beside it).
pub fn meta(version: &str) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_VERSION.to_owned(), json!(version));
    meta.insert(META_CLIENT_INFO.to_owned(), json!({"name": "callproof", "version": env!("CARGO_PKG_VERSION")}));
    meta.insert(META_CAPABILITIES.to_owned(), json!({}));
    meta
}

/// [`meta`] for a request that declares the Tasks extension in its `clientCapabilities`.
pub fn meta_with_tasks(version: &str) -> Map<String, Value> {
    let mut meta = meta(version);
    meta.insert(META_CAPABILITIES.to_owned(), json!({"extensions": {TASKS_EXTENSION: {}}}));
    meta
}

/// Whether a `capabilities` object (of `server/discover`, or a request's `clientCapabilities`) declares the
/// Tasks extension.
pub fn declares_tasks(capabilities: &Value) -> bool {
    capabilities.get("extensions").and_then(|extensions| extensions.get(TASKS_EXTENSION)).is_some_and(Value::is_object)
}

/// `params` with the modern `_meta` fields added (an existing `_meta` keeps its other members).
pub fn with_meta(params: Option<Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(params)) => params,
        _ => Map::new(),
    };
    let entry = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(existing) = entry {
        for (key, value) in meta(MODERN) {
            existing.entry(key).or_insert(value);
        }
    }
    Value::Object(params)
}

/// Whether a result is a `DiscoverResult` (a `supportedVersions` array).
pub fn is_discover_result(result: &Value) -> bool {
    result.get("supportedVersions").is_some_and(Value::is_array)
}

/// Whether an error code is one only a modern server sends (-32020 HeaderMismatch, -32021
/// MissingRequiredClientCapability, -32022 UnsupportedProtocolVersion).
pub fn is_modern_error(code: i64) -> bool {
    (-32022..=-32020).contains(&code)
}

/// Where a server declares the conformance app's features: `capabilities.extensions` of `server/discover`.
const FEATURES_POINTER: &str = "/capabilities/extensions/io.callproof~1conformance-app/features";

/// The server's name, version and conformance-app features from its `DiscoverResult` (docs/mcp.md, "Starting
/// the server"), or why that result cannot start a 2026-07-28 run.
///
/// # Errors
/// When it does not list 2026-07-28 or declares no tools capability.
pub fn read_discovered(result: &Value) -> Result<(String, String, Vec<String>), String> {
    let versions = result.get("supportedVersions").and_then(Value::as_array);
    if !versions.is_some_and(|versions| versions.iter().any(|version| version == MODERN)) {
        return Err(format!("its server/discover result does not list {MODERN}: {result}"));
    }
    if !result.pointer("/capabilities/tools").is_some_and(Value::is_object) {
        return Err(format!("its server/discover result declares no tools capability: {result}"));
    }
    let info = result.get("_meta").and_then(|meta| meta.get(META_SERVER_INFO));
    let text = |field: &str| info.and_then(|info| info.get(field)?.as_str()).unwrap_or("").to_owned();
    let features = result.pointer(FEATURES_POINTER).and_then(Value::as_array);
    let features = features.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect();
    Ok((text("name"), text("version"), features))
}

/// What the HTTP headers of a request mirror: its method, its `Mcp-Name` and its protocol version. Empty for a
/// legacy request (the session's version header is the transport's business then).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    /// `Mcp-Method`.
    pub method: Option<String>,
    /// `Mcp-Name`.
    pub name: Option<String>,
    /// `MCP-Protocol-Version`.
    pub version: Option<String>,
}

impl Route {
    /// The route of a modern request for `method` and the `name` its `Mcp-Name` mirrors: the tool of a
    /// `tools/call`, the `taskId` of a [`TASK_METHODS`] request, nothing for any other method.
    pub fn modern(method: &str, name: Option<&str>) -> Route {
        let named = method == "tools/call" || TASK_METHODS.contains(&method);
        let name = if named { name.map(str::to_owned) } else { None };
        Route { method: Some(method.to_owned()), name, version: Some(MODERN.to_owned()) }
    }

    /// The headers, in a fixed order; a name that is not plain printable ASCII in the Base64 sentinel
    /// (2026-07-28 streamable-http §Value Encoding).
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = Vec::new();
        if let Some(version) = &self.version {
            headers.push(("MCP-Protocol-Version", version.clone()));
        }
        if let Some(method) = &self.method {
            headers.push(("Mcp-Method", method.clone()));
        }
        if let Some(name) = &self.name {
            headers.push(("Mcp-Name", header_value(name)));
        }
        headers
    }
}

/// `value` as a header value: itself when plain printable ASCII without edge spaces, else `=?base64?…?=`.
fn header_value(value: &str) -> String {
    let plain = value.bytes().all(|byte| (0x20..0x7f).contains(&byte)) && value.trim() == value;
    if plain && !value.starts_with("=?") { value.to_owned() } else { format!("=?base64?{}?=", STANDARD.encode(value)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_added_beside_what_params_already_hold() {
        let params = with_meta(Some(json!({"name": "t", "_meta": {"io.callproof/context": {"call_id": "c"}}})));
        assert_eq!(params["_meta"][META_VERSION], MODERN);
        assert_eq!(params["_meta"][META_CAPABILITIES], json!({}));
        assert_eq!(params["_meta"]["io.callproof/context"]["call_id"], "c");
        assert_eq!(with_meta(None)["_meta"][META_VERSION], MODERN);
    }

    #[test]
    fn a_tasks_meta_declares_the_extension_and_a_plain_one_does_not() {
        assert!(declares_tasks(&meta_with_tasks(MODERN)[META_CAPABILITIES]));
        assert!(!declares_tasks(&meta(MODERN)[META_CAPABILITIES]));
        assert!(!declares_tasks(&json!({"extensions": {TASKS_EXTENSION: true}})));
    }

    #[test]
    fn only_a_discover_result_or_a_modern_error_code_means_modern() {
        assert!(is_discover_result(&json!({"supportedVersions": ["2026-07-28"]})));
        assert!(!is_discover_result(&json!({"protocolVersion": "2025-11-25"})));
        assert!(is_modern_error(-32022) && is_modern_error(-32020));
        assert!(!is_modern_error(-32601) && !is_modern_error(-32602) && !is_modern_error(-32019));
    }

    #[test]
    fn a_discover_result_gives_the_server_and_its_features_or_says_why_it_cannot_start_a_run() {
        let result = json!({"supportedVersions": [MODERN], "capabilities": {"tools": {},
            "extensions": {"io.callproof/conformance-app": {"features": ["durable_store"]}}},
            "_meta": {META_SERVER_INFO: {"name": "s", "version": "1"}}});
        assert_eq!(read_discovered(&result), Ok(("s".into(), "1".into(), vec!["durable_store".into()])));
        let legacy_only = json!({"supportedVersions": [LEGACY], "capabilities": {"tools": {}}});
        assert!(read_discovered(&legacy_only).is_err_and(|why| why.contains("does not list")));
        assert!(read_discovered(&json!({"supportedVersions": [MODERN], "capabilities": {}})).is_err());
    }

    #[test]
    fn headers_mirror_the_route_and_encode_a_name_that_is_not_plain_ascii() {
        let route = Route::modern("tools/call", Some("get_order"));
        assert_eq!(
            route.headers(),
            vec![
                ("MCP-Protocol-Version", MODERN.to_owned()),
                ("Mcp-Method", "tools/call".to_owned()),
                ("Mcp-Name", "get_order".to_owned())
            ]
        );
        assert_eq!(Route::modern("tools/list", Some("x")).name, None);
        assert_eq!(Route::modern("tasks/get", Some("exp_1")).name.as_deref(), Some("exp_1"));
        assert_eq!(header_value("café"), "=?base64?Y2Fmw6k=?=");
        assert!(Route::default().headers().is_empty());
    }
}
