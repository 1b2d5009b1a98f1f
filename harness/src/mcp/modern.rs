//! The profile's checks of MCP revision 2026-07-28 ("modern"): `server/discover` as the handshake, version
//! negotiation by -32022, the required `_meta` fields, `resultType` and `serverInfo` on every result, the cache
//! fields and the order of `tools/list`, and over Streamable HTTP the header checks and `GET` (docs/mcp.md, the
//! check tables, rev M); the Tasks extension's checks are in [`super::tasks`].
//!
//! Rule enforced here: each check judges a property of every answer it can see, never one lucky case, and only
//! what the cited text requires: a correct 2026-07-28 server never fails one (`resultType` may be any value the
//! spec defines, `input_required` included; `serverInfo` is a SHOULD; the order of tools a SHOULD).

use super::checks::{Check, check};
use super::client::{Answer, Exchange};
use super::profile::Run;
use super::revision::{self, MODERN, PROBE_ID, Route};
use crate::checks::Level;
use serde_json::{Value, json};
use std::time::Duration;

/// The longest the era probe waits (at most `--timeout`) before the server is taken for a legacy one (silence
/// means legacy); as long as rmcp waits, since the wait includes the server's start.
const PROBE_WAIT: Duration = Duration::from_secs(10);

/// A version no server speaks.
const NO_SUCH_VERSION: &str = "1900-01-01";

/// `mcp-handshake`, its 2026-07-28 form.
pub const HANDSHAKE: Check = check(
    "mcp-handshake",
    Level::Must,
    "2026-07-28 server/discover; versioning §Protocol Version Negotiation; server/tools §Capabilities",
    "server/discover is answered with a DiscoverResult: supportedVersions lists 2026-07-28 and capabilities.tools is an object",
);
/// `mcp-version-negotiation`, its 2026-07-28 form.
pub const VERSION_NEGOTIATION: Check = check(
    "mcp-version-negotiation",
    Level::Must,
    "2026-07-28 versioning §Protocol Version Negotiation; streamable-http §Protocol Version Header",
    "tools/list whose _meta names protocol version 1900-01-01 is answered with error -32022 whose data.supported lists versions (over HTTP with status 400)",
);
/// A modern request without a required `_meta` field is refused.
pub const META_REQUIRED: Check = check(
    "mcp-meta-required",
    Level::Must,
    "2026-07-28 basic §_meta (per-request fields: protocolVersion and clientCapabilities are required); basic §Error Codes",
    "tools/list whose _meta lacks io.modelcontextprotocol/clientCapabilities is answered with error -32602 (over HTTP with status 400)",
);
/// Every result says what kind of result it is.
pub const RESULT_TYPE: Check = check(
    "mcp-result-type",
    Level::Must,
    "2026-07-28 basic §Result Responses; schema.ts Result, ResultType",
    "every result carries resultType \"complete\" or \"input_required\"",
);
/// Every result names the server.
pub const SERVER_INFO: Check = check(
    "mcp-server-info",
    Level::Should,
    "2026-07-28 basic §_meta (per-response fields); schema.ts ResultMetaObject",
    "every result carries _meta[\"io.modelcontextprotocol/serverInfo\"] with a string name and version",
);
/// `tools/list` carries the cache fields.
pub const TOOLS_CACHE_FIELDS: Check = check(
    "mcp-tools-cache-fields",
    Level::Must,
    "2026-07-28 schema.ts CacheableResult, ListToolsResult; changelog minor change 5",
    "every tools/list page carries an integer ttlMs >= 0 and cacheScope \"public\" or \"private\"",
);
/// `tools/list` comes in the same order every time.
pub const TOOLS_DETERMINISTIC: Check = check(
    "mcp-tools-deterministic",
    Level::Should,
    "2026-07-28 server/tools §Capabilities (tools SHOULD be listed in a deterministic order)",
    "tools/list asked twice (every page) gives the same tool names in the same order",
);
/// HTTP: a header that does not mirror the body is refused.
pub const HTTP_HEADER_MISMATCH: Check = check(
    "mcp-http-header-mismatch",
    Level::Must,
    "2026-07-28 streamable-http §Server Validation",
    "a request whose Mcp-Method or Mcp-Name header does not match its body is answered with status 400 and error -32020",
);
/// HTTP: `GET` is not served by a modern-only endpoint.
pub const HTTP_GET: Check = check(
    "mcp-http-get",
    Level::Should,
    "2026-07-28 streamable-http §Backward Compatibility",
    "GET on the endpoint is refused with status 405 (another 4xx passes: a dual-era server refuses it its 2025-11-25 way), never served",
);

/// The checks only 2026-07-28 has, in report order (after the checks both revisions share).
pub const ONLY: [Check; 7] =
    [META_REQUIRED, RESULT_TYPE, SERVER_INFO, TOOLS_CACHE_FIELDS, TOOLS_DETERMINISTIC, HTTP_HEADER_MISMATCH, HTTP_GET];

/// The result types a client that declared no extension may get.
const RESULT_TYPES: [&str; 2] = ["complete", "input_required"];

/// What `server/discover` found: modern (with the server's identity), or a fallback to the legacy handshake.
pub(super) enum Discovered {
    /// A 2026-07-28 server; the run goes on statelessly.
    Modern(Option<Value>),
    /// Not a DiscoverResult, and the revision was `auto`: do the legacy handshake.
    Legacy,
    /// `--mcp-revision 2026-07-28` and no usable DiscoverResult: the run stops.
    Failed,
}

impl Run {
    /// `server/discover` (the era probe under `auto`): judged as `mcp-handshake` when the server is modern or
    /// the revision was asked for; under `auto` anything but a DiscoverResult or a modern error is legacy.
    pub(super) async fn discover(&mut self, explicit: bool) -> Discovered {
        let params = revision::with_meta(None);
        let line = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": "server/discover", "params": params});
        let full = self.client.timeout();
        if !explicit {
            self.client.set_timeout(full.min(PROBE_WAIT));
        }
        let route = Route::modern("server/discover", None);
        let exchange = self.client.exchange_routed(line.to_string(), &json!(PROBE_ID), &route).await;
        self.client.set_timeout(full);
        let result = exchange.answer.result();
        let modern_error = exchange.answer.error_code().is_some_and(revision::is_modern_error);
        if !explicit && !result.is_some_and(revision::is_discover_result) && !modern_error {
            return Discovered::Legacy;
        }
        self.client.set_modern(true);
        self.observed(&exchange, None);
        let problem = discover_problem(&exchange.answer);
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| "server/discover lists 2026-07-28 and the tools capability".to_owned());
        self.found(HANDSHAKE, passed, None, why, Some(&exchange));
        if !passed {
            return Discovered::Failed;
        }
        let capabilities = result.and_then(|result| result.get("capabilities"));
        self.capabilities = capabilities.cloned();
        self.tasks.declared = capabilities.is_some_and(revision::declares_tasks);
        Discovered::Modern(result.and_then(|result| result.get("_meta")?.get(revision::META_SERVER_INFO)).cloned())
    }

    /// What every modern result must carry; a failure is reported once per method, the first time.
    /// A `tools/call` that declared the Tasks extension may also be answered with `resultType: "task"`, which
    /// [`super::tasks`] judges.
    pub(super) fn observe_modern(&mut self, exchange: &Exchange) {
        let task_allowed = self.observe_task_capability(exchange);
        let Some(result) = exchange.answer.result() else { return };
        let method = method_of(&exchange.sent);
        let task = task_allowed && result.get("resultType").and_then(Value::as_str) == Some("task");
        let problem = if task { None } else { result_type_problem(result) }.map(|why| format!("{method}: {why}"));
        self.once(RESULT_TYPE, &method, problem, exchange);
        let problem = server_info_problem(result).map(|why| format!("{method}: {why}"));
        self.once(SERVER_INFO, &method, problem, exchange);
    }

    /// A finding for `check` about `method`: every pass, and only the first failure per method.
    fn once(&mut self, check: Check, method: &str, problem: Option<String>, exchange: &Exchange) {
        match problem {
            None => self.found(check, true, None, format!("{method}: fine"), None),
            Some(why) => {
                if self.modern_failed.insert((check.id, method.to_owned())) {
                    self.found(check, false, None, why, Some(exchange));
                }
            }
        }
    }

    /// `mcp-tools-cache-fields` on one page of `tools/list`.
    pub(super) fn judge_cache_fields(&mut self, exchange: &Exchange) {
        let Some(result) = exchange.answer.result() else { return };
        let problem = cache_problem(result);
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| "ttlMs and cacheScope present".to_owned());
        self.found(TOOLS_CACHE_FIELDS, passed, None, why, Some(exchange));
    }

    /// The checks that need requests of their own: version negotiation, `_meta` required, the order of the
    /// tool list, and over HTTP a header that lies about the method and `GET`.
    pub(super) async fn modern_checks(&mut self, tools: &[Value]) {
        let params = json!({"_meta": revision::meta(NO_SUCH_VERSION)});
        let route = Route { version: Some(NO_SUCH_VERSION.to_owned()), ..Route::modern("tools/list", None) };
        let exchange = self.send("tools/list", params, &route).await;
        let supported = lists_supported(&exchange.answer);
        self.judged(VERSION_NEGOTIATION, supported, 400, "error -32022 with data.supported", &exchange);

        let mut meta = revision::meta(MODERN);
        meta.remove(revision::META_CAPABILITIES);
        let exchange = self.send("tools/list", json!({"_meta": meta}), &Route::modern("tools/list", None)).await;
        let refused = exchange.answer.error_code() == Some(-32602);
        self.judged(META_REQUIRED, refused, 400, "error -32602", &exchange);

        let again = self.tool_names_again().await;
        let first: Vec<&str> = tools.iter().filter_map(|tool| tool.get("name")?.as_str()).collect();
        if let Some(again) = again {
            let problem = order_problem(&first, &again);
            let passed = problem.is_none();
            let why = problem.unwrap_or_else(|| "the same tools in the same order".to_owned());
            self.found(TOOLS_DETERMINISTIC, passed, None, why, None);
        }
        if self.http {
            self.http_checks().await;
        }
    }

    /// Over HTTP: `tools/list` whose `Mcp-Method` says `tools/call`, and `GET`.
    async fn http_checks(&mut self) {
        let route = Route { method: Some("tools/call".to_owned()), ..Route::modern("tools/list", None) };
        let exchange = self.send("tools/list", json!({"_meta": revision::meta(MODERN)}), &route).await;
        let refused = exchange.answer.error_code() == Some(-32020);
        self.judged(HTTP_HEADER_MISMATCH, refused, 400, "error -32020 for Mcp-Method: tools/call", &exchange);
        if let Some(got) = self.client.get().await {
            let (passed, why) = get_verdict(got);
            self.found(HTTP_GET, passed, None, why, None);
        }
    }

    /// Over HTTP, once: a call of `tool` (the base input, a tool the user let the profile call) whose `Mcp-Name`
    /// names another tool, which must be refused with 400 and -32020 before it runs.
    pub(super) async fn header_mismatch_call(&mut self, tool: &str, arguments: &str, other: &str) {
        let id = self.client.next_id();
        let line = super::client::call_line(id, tool, arguments, true, &self.meta);
        let route = Route { name: Some(other.to_owned()), ..Route::modern("tools/call", Some(tool)) };
        let exchange = self.client.exchange_routed(line, &json!(id), &route).await;
        self.observed(&exchange, Some(tool));
        let refused = exchange.answer.error_code() == Some(-32020);
        self.judged(HTTP_HEADER_MISMATCH, refused, 400, &format!("error -32020 for Mcp-Name: {other}"), &exchange);
    }

    /// Sends a request with `params` as they are (its `_meta` is the caller's) and the headers of `route`.
    async fn send(&mut self, method: &str, params: Value, route: &Route) -> Exchange {
        let id = self.client.next_id();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let exchange = self.client.exchange_routed(line, &json!(id), route).await;
        self.observed(&exchange, None);
        exchange
    }

    /// A finding: `passed` (the body's part), and over HTTP also the status `status`.
    fn judged(&mut self, check: Check, passed: bool, status: u16, wanted: &str, exchange: &Exchange) {
        let (passed, why) = verdict(passed, status, wanted, exchange);
        self.found(check, passed, None, why, Some(exchange));
    }

    /// Every page of `tools/list` again, its tool names; `None` when a page did not come.
    async fn tool_names_again(&mut self) -> Option<Vec<String>> {
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..super::profile::MAX_PAGES {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let exchange = self.client.request("tools/list", params).await;
            self.observed(&exchange, None);
            let result = exchange.answer.result()?;
            let page = result.get("tools")?.as_array()?;
            names.extend(page.iter().filter_map(|tool| tool.get("name")?.as_str().map(str::to_owned)));
            cursor = result.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            if cursor.is_none() {
                return Some(names);
            }
        }
        Some(names)
    }
}

/// Whether the body passed (`passed`) and, over HTTP, the status is `status`; and what was answered.
pub(super) fn verdict(passed: bool, status: u16, wanted: &str, exchange: &Exchange) -> (bool, String) {
    let status_ok = exchange.status.is_none_or(|got| got == status);
    let why = match (passed, exchange.status) {
        (true, _) if status_ok => format!("answered {wanted}"),
        (true, Some(got)) => format!("answered {wanted}, but with status {got}, not {status}"),
        (_, Some(got)) => format!("answered {} with status {got}, not {wanted} with {status}", exchange.answer.text()),
        (_, None) => format!("answered {}, not {wanted}", exchange.answer.text()),
    };
    (passed && status_ok, why)
}

/// `mcp-http-get`: refused (405, the answer the spec names for a server of 2026-07-28 only; another 4xx is how a
/// server that also speaks 2025-11-25 refuses a GET without a session, e.g. the Python SDK's 400), never served.
fn get_verdict(got: Result<u16, String>) -> (bool, String) {
    match got {
        Ok(405) => (true, "GET answered with status 405".to_owned()),
        Ok(status @ 400..=499) => {
            (true, format!("GET refused with status {status} (405 is the answer the spec names)"))
        }
        Ok(status) => (false, format!("GET answered with status {status}, not refused with 405")),
        Err(why) => (false, format!("GET got no status: {why}")),
    }
}

/// Whether an answer is -32022 listing the supported versions in `data.supported`.
fn lists_supported(answer: &Answer) -> bool {
    let Answer::Response(message) = answer else { return false };
    answer.error_code() == Some(-32022) && message.pointer("/error/data/supported").is_some_and(Value::is_array)
}

/// Why a result's `resultType` is not one a client without extensions may get, if it is not.
fn result_type_problem(result: &Value) -> Option<String> {
    let kind = result.get("resultType");
    match kind.and_then(Value::as_str) {
        Some(kind) if RESULT_TYPES.contains(&kind) => None,
        Some(kind) => Some(format!("resultType {kind:?} is not one the spec defines for this request")),
        None if kind.is_some() => Some("resultType is not a string".to_owned()),
        None => Some("the result has no resultType".to_owned()),
    }
}

/// Why a result does not name its server, if it does not.
fn server_info_problem(result: &Value) -> Option<String> {
    let info = result.get("_meta").and_then(|meta| meta.get(revision::META_SERVER_INFO));
    let named = info.is_some_and(|info| {
        info.get("name").is_some_and(Value::is_string) && info.get("version").is_some_and(Value::is_string)
    });
    (!named).then(|| format!("no _meta[\"{}\"] with a name and a version", revision::META_SERVER_INFO))
}

/// Why a `tools/list` result lacks the cache fields, if it does.
fn cache_problem(result: &Value) -> Option<String> {
    let ttl = result.get("ttlMs");
    match (ttl.and_then(Value::as_u64), result.get("cacheScope").and_then(Value::as_str)) {
        (None, _) => Some(format!("ttlMs is {}, not an integer >= 0", shown(ttl))),
        (_, Some("public" | "private")) => None,
        (_, _) => Some(format!("cacheScope is {}, not \"public\" or \"private\"", shown(result.get("cacheScope")))),
    }
}

/// Why two listings of the tool names differ, if they do.
fn order_problem<A: AsRef<str> + std::fmt::Debug, B: AsRef<str> + std::fmt::Debug>(
    first: &[A],
    again: &[B],
) -> Option<String> {
    let same = first.len() == again.len() && first.iter().zip(again).all(|(a, b)| a.as_ref() == b.as_ref());
    (!same).then(|| format!("first {first:?}, then {again:?}"))
}

/// Why a `server/discover` answer is not a usable DiscoverResult, if it is not.
fn discover_problem(answer: &Answer) -> Option<String> {
    let Some(result) = answer.result() else {
        return Some(format!("server/discover got no result: {}", answer.text()));
    };
    let versions = result.get("supportedVersions").and_then(Value::as_array);
    match versions {
        None => Some("the result has no supportedVersions array".to_owned()),
        Some(versions) if !versions.iter().any(|version| version == MODERN) => {
            Some(format!("supportedVersions {versions:?} does not list 2026-07-28"))
        }
        Some(_) if !result.pointer("/capabilities/tools").is_some_and(Value::is_object) => {
            Some("capabilities.tools is missing: the server declares no tools".to_owned())
        }
        Some(_) => None,
    }
}

/// The method of a line as sent (`?` when it does not parse).
fn method_of(line: &str) -> String {
    serde_json::from_str::<Value>(line)
        .ok()
        .and_then(|message| message.get("method")?.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

#[cfg(test)]
mod tests;
