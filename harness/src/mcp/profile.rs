//! One run of the MCP profile against one server: handshake, tool list, protocol errors, then the generated
//! calls of every tool it may call, each answer turned into findings.
//!
//! Rule enforced here (the safety rule): a tool gets any call at all only when the user named it (`--call`,
//! `--call-all`) or the server annotates it `readOnlyHint: true`; every other tool is listed as skipped with
//! the reason. After every hostile input the server must still answer `ping` (`server/discover` in 2026-07-28,
//! whose checks are in [`super::modern`]; the era is settled first, `handshake.rs`).

use super::bearer::Bearer;
use super::checks::{self, Check};
use super::client::{Answer, Client, Exchange, call_line};
use super::http_checks;
use super::inputs;
use super::leak;
use super::lint;
use super::report::{self, Finding, Report, Skipped};
use super::revision::{self, Revision};
use crate::subject::SubjectError;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// The protocol revision the legacy handshake asks for.
pub const PROTOCOL_VERSION: &str = revision::LEGACY;

/// Revisions a server may answer `initialize` with (lifecycle §Version Negotiation: one it supports).
pub(super) const KNOWN_VERSIONS: [&str; 5] = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Pages of `tools/list` followed at most.
pub(super) const MAX_PAGES: usize = 100;

/// Longest request or answer a finding keeps (a 2 MiB case stays out of the JSON report).
const KEPT: usize = 4096;

/// A tool name no server has.
const NO_SUCH_TOOL: &str = "callproof_no_such_tool";

/// The `_meta` member naming a request's progress token (utilities/progress).
const PROGRESS_TOKEN: &str = "progressToken";

/// Which tools may be called.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Calls {
    /// Only tools annotated `readOnlyHint: true`.
    #[default]
    ReadOnly,
    /// These tools, and those annotated read-only.
    Named(BTreeSet<String>),
    /// Every tool.
    All,
}

/// The server under test and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// A command, split like a POSIX shell would, started and spoken to over stdio.
    Command(String),
    /// A Streamable HTTP endpoint already running.
    Url(String),
}

impl Server {
    /// The command or the URL.
    pub fn name(&self) -> &str {
        match self {
            Server::Command(name) | Server::Url(name) => name,
        }
    }

    /// `stdio` or `streamable-http`.
    pub fn transport(&self) -> &'static str {
        match self {
            Server::Command(_) => "stdio",
            Server::Url(_) => "streamable-http",
        }
    }

    /// A client of the server: the process started, or the endpoint (nothing sent yet) with `bearer`.
    pub(super) fn client(&self, timeout: Duration, bearer: Option<&Bearer>) -> Result<Client, SubjectError> {
        match self {
            Server::Command(command) => Client::start(command, timeout),
            Server::Url(url) => Client::connect(url, timeout, bearer.cloned()),
        }
    }
}

/// What to test and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server.
    pub server: Server,
    /// Which tools may be called.
    pub calls: Calls,
    /// The bound on every request.
    pub timeout: Duration,
    /// The revision to speak (`auto`: ask the server).
    pub revision: Revision,
    /// `Authorization: Bearer` on every HTTP request (`--bearer`); never with a command.
    pub bearer: Option<Bearer>,
    /// Members added to the `_meta` of every `tools/call` (`--meta`): a context the server needs to get past
    /// its own authorization, so that what its decoding accepted is seen to run.
    pub meta: Map<String, Value>,
}

/// Runs the profile against `options.server`.
///
/// # Errors
/// [`SubjectError::Spawn`] when the server cannot be started at all (or the URL is not one); everything after
/// that is a finding.
pub async fn run(options: &Options) -> Result<Report, SubjectError> {
    run_with(options, None).await
}

/// [`run`] with a second identity over HTTP (`--bearer-second`), for `mcp-tasks-auth-binding`.
///
/// # Errors
/// As [`run`].
pub async fn run_with(options: &Options, second: Option<&Bearer>) -> Result<Report, SubjectError> {
    let client = options.server.client(options.timeout, options.bearer.as_ref())?;
    let http = matches!(options.server, Server::Url(_));
    let mut run = Run {
        client,
        findings: Vec::new(),
        called: Vec::new(),
        skipped: Vec::new(),
        params_checked: false,
        http,
        modern_failed: BTreeSet::new(),
        modern_refusal: false,
        meta: options.meta.clone(),
        tasks: super::tasks::Tasks::new(&options.server, options.timeout, second),
        configured: if http { Vec::new() } else { leak::command_paths(options.server.name()) },
        capabilities: None,
    };
    let (protocol_version, server_info) = run.era(options.revision).await;
    let modern = run.client.modern();
    let tools = if protocol_version.is_some() { run.list().await } else { Vec::new() };
    if protocol_version.is_some() {
        run.protocol_errors(&tools).await;
        if modern {
            run.modern_checks(&tools).await;
        }
        for tool in &tools {
            run.tool(tool, &options.calls, &tools).await;
        }
        if modern {
            run.tasks_checks().await;
        }
        // Last, so the requests before it keep their ids (the reports quoted in the docs show them).
        let capabilities = run.capabilities.clone();
        run.resource_not_found(capabilities.as_ref()).await;
    }
    run.stream_checks();
    let alive = run.client.alive();
    let why = match (alive, &options.server) {
        (true, Server::Command(_)) => "the server is still running at the end",
        (false, Server::Command(_)) => "the server exited during the run",
        (true, Server::Url(_)) => "the server still answers HTTP at the end",
        (false, Server::Url(_)) => "the server stopped answering HTTP during the run",
    };
    run.found(checks::SURVIVES, alive, None, why.to_owned(), None);
    let stderr_tail = if alive { Vec::new() } else { run.client.stderr_tail() };
    if let Calls::Named(names) = &options.calls {
        let listed: BTreeSet<&str> = tools.iter().filter_map(|tool| tool.get("name")?.as_str()).collect();
        for name in names.iter().filter(|name| !listed.contains(name.as_str())) {
            let why = "named with --call but not in tools/list".to_owned();
            run.skipped.push(Skipped { tool: name.clone(), why });
        }
    }
    run.client.close().await;
    if protocol_version.is_some() && !modern {
        run.findings.extend(super::handshake::negotiation(options).await);
    }
    let http = match &options.server {
        Server::Command(_) => http_checks::over_stdio(),
        Server::Url(url) => http_checks::over_http(url, options.bearer.as_ref(), options.timeout).await,
    };
    run.findings.extend(http.findings);
    let mut report = Report::with_checks(options.server.name().to_owned(), &run.findings, checks::of(modern));
    report.revision = if modern { revision::MODERN } else { revision::LEGACY };
    http.not_judged.iter().for_each(|(check, why)| report.not_judged(check, why));
    run.tasks.explain(&mut report);
    super::stream::explain(&mut report, matches!(options.server, Server::Url(_)));
    if let Some(bearer) = &options.bearer {
        report.redact(|text| bearer.redact(text));
    }
    report.transport = options.server.transport();
    report.protocol_version = protocol_version;
    report.server_info = server_info;
    report.called = run.called;
    report.skipped = run.skipped;
    report.stderr_tail = stderr_tail;
    Ok(report)
}

/// One run's state; the 2026-07-28 checks are in [`modern`].
pub(super) struct Run {
    pub(super) client: Client,
    pub(super) findings: Vec<Finding>,
    called: Vec<String>,
    skipped: Vec<Skipped>,
    /// Whether `mcp-call-params-invalid` has been judged (once per server, on the first callable tool).
    params_checked: bool,
    /// Over Streamable HTTP.
    pub(super) http: bool,
    /// The (check, method) pairs a 2026-07-28 result check already reported a failure for.
    pub(super) modern_failed: BTreeSet<(&'static str, String)>,
    /// `initialize` was refused with a modern error (a 2026-07-28 server that answered the probe too late).
    pub(super) modern_refusal: bool,
    /// `--meta`: added to the `_meta` of every `tools/call`.
    pub(super) meta: Map<String, Value>,
    /// What the Tasks checks need and found ([`super::tasks`]).
    pub(super) tasks: super::tasks::Tasks,
    /// The paths on the server's command line: the user's configuration, which an error may name.
    configured: Vec<String>,
    /// The capabilities the server declared (`initialize` or `server/discover`).
    pub(super) capabilities: Option<Value>,
}

impl Run {
    pub(super) fn found(
        &mut self,
        check: Check,
        passed: bool,
        tool: Option<&str>,
        why: String,
        exchange: Option<&Exchange>,
    ) {
        self.findings.push(Finding {
            check: check.id,
            passed,
            inconclusive: false,
            tool: tool.map(str::to_owned),
            why,
            request: exchange.map(|exchange| report::cut(&exchange.sent, KEPT)),
            answer: exchange.map(|exchange| report::cut(&exchange.answer.text(), KEPT)),
        });
    }

    /// Judges what every answer says regardless of the request: answered in time, and no leak in its errors.
    pub(super) fn observed(&mut self, exchange: &Exchange, tool: Option<&str>) {
        if self.client.modern() {
            self.observe_modern(exchange);
        }
        match &exchange.answer {
            Answer::Silent => {
                self.found(checks::ANSWERS_IN_TIME, false, tool, "no answer within the timeout".into(), Some(exchange));
            }
            Answer::Closed | Answer::Dropped | Answer::Failed(_) => {}
            Answer::Http { .. } => self.found(checks::ANSWERS_IN_TIME, true, tool, "answered".into(), None),
            Answer::Response(message) => {
                self.found(checks::ANSWERS_IN_TIME, true, tool, "answered".into(), None);
                if let Some(text) = leak::error_text(message) {
                    let known = [leak::sent_strings(&exchange.sent), self.configured.clone()].concat();
                    let leaks = leak::leaks(&text, &known);
                    let why = if leaks.is_empty() {
                        "no leak".to_owned()
                    } else {
                        format!("the error text holds {}", leaks.join(", "))
                    };
                    self.found(checks::ERROR_NO_LEAK, leaks.is_empty(), tool, why, Some(exchange));
                }
            }
        }
    }

    pub(super) async fn request(&mut self, method: &str, params: Option<Value>) -> Exchange {
        let exchange = self.client.request(method, params).await;
        self.observed(&exchange, None);
        exchange
    }

    /// `ping` after a hostile input: the server must still answer.
    async fn still_answers(&mut self, after: &str, tool: Option<&str>) {
        let liveness = self.client.liveness();
        let ping = self.request(liveness, None).await;
        let answered = ping.answer.result().is_some();
        let why = if answered {
            format!("{liveness} answered after {after}")
        } else {
            format!("{liveness} not answered after {after}: {}", ping.answer.text())
        };
        self.found(checks::SURVIVES, answered, tool, why, Some(&ping));
    }

    /// Every page of `tools/list`, and the lint of each tool.
    async fn list(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
            let exchange = self.request("tools/list", params).await;
            if self.client.modern() {
                self.judge_cache_fields(&exchange);
            }
            let Some(page) = exchange.answer.result().and_then(|result| result.get("tools")?.as_array()).cloned()
            else {
                self.found(checks::TOOLS_LIST, false, None, "tools/list gave no tools array".into(), Some(&exchange));
                return tools;
            };
            tools.extend(page);
            cursor = exchange.answer.result().and_then(|result| result.get("nextCursor")?.as_str()).map(str::to_owned);
            if cursor.is_none() {
                break;
            }
        }
        let mut names = BTreeSet::new();
        for tool in &tools {
            self.lint(tool, &mut names);
        }
        tools
    }

    fn lint(&mut self, tool: &Value, names: &mut BTreeSet<String>) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            self.found(checks::TOOLS_LIST, false, None, format!("a tool without a string name: {tool}"), None);
            return;
        };
        let Some(input) = tool.get("inputSchema").filter(|schema| schema.is_object()) else {
            self.found(checks::TOOLS_LIST, false, Some(name), "no object inputSchema".into(), None);
            return;
        };
        self.found(checks::TOOLS_LIST, true, Some(name), "listed with a name and an inputSchema".into(), None);
        let mut problem = lint::name_problem(name);
        if !names.insert(name.to_owned()) {
            problem = Some(format!("two tools are named {name:?}"));
        }
        self.verdict(checks::TOOL_NAME, name, problem);
        let problem = lint::schema_problem(&format!("the inputSchema of {name}"), input);
        let valid = problem.is_none();
        self.verdict(checks::INPUT_SCHEMA_VALID, name, problem);
        if valid {
            let problem = lint::strict_problem(&format!("the inputSchema of {name}"), input);
            self.verdict(checks::INPUT_SCHEMA_STRICT, name, problem);
        }
        let problem = tool.get("outputSchema").is_none().then(|| format!("{name} declares no outputSchema"));
        self.verdict(checks::OUTPUT_SCHEMA_DECLARED, name, problem);
        if let Some(output) = tool.get("outputSchema") {
            let what = format!("the outputSchema of {name}");
            let problem = lint::output_schema_problem(&what, output, self.client.modern());
            self.verdict(checks::OUTPUT_SCHEMA_VALID, name, problem);
        }
        self.verdict(checks::SCHEMA_PATTERN, name, lint::tool_pattern_problem(name, tool));
        let problem = lint::annotations_problem(name, tool.get("annotations"));
        self.verdict(checks::ANNOTATIONS_CONSISTENT, name, problem);
    }

    fn verdict(&mut self, check: Check, tool: &str, problem: Option<String>) {
        let passed = problem.is_none();
        self.found(check, passed, Some(tool), problem.unwrap_or_else(|| "fine".to_owned()), None);
    }

    async fn protocol_errors(&mut self, tools: &[Value]) {
        let truncated = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list""#.to_owned();
        let route = self.client.route("tools/list", None);
        let (exchange, ping) = self.client.garbage_routed(truncated, None, &route).await;
        self.observed(&ping, None);
        let code = exchange.answer.error_code();
        let why = match (code, &exchange.answer) {
            (Some(-32700), _) => "answered -32700".to_owned(),
            (Some(code), _) => format!("answered error {code}, not -32700"),
            (None, Answer::Dropped) => "no -32700 for a line that is not JSON (dropped without an answer)".to_owned(),
            (None, answer) => format!("no -32700 for a line that is not JSON: {}", answer.text()),
        };
        self.found(checks::PARSE_ERROR, code == Some(-32700), None, why, Some(&exchange));
        self.still_answers("a line that is not JSON", None).await;

        let id = self.client.next_id();
        let invalid = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":5}}"#);
        let (exchange, ping) = self.client.garbage(invalid, Some(json!(id))).await;
        self.observed(&ping, None);
        let code = exchange.answer.error_code();
        let why = match code {
            Some(-32600) => "answered -32600".to_owned(),
            Some(code) => format!("answered error {code}, not -32600"),
            None if exchange.answer == Answer::Dropped => "dropped without an answer, not error -32600".to_owned(),
            None => format!("answered {}, not error -32600", exchange.answer.text()),
        };
        self.found(checks::INVALID_REQUEST, code == Some(-32600), None, why, Some(&exchange));
        self.still_answers("an invalid request", None).await;

        let exchange = self.request("callproof/no-such-method", None).await;
        let (mut passed, mut why) = answered_with(&exchange, -32601);
        if let Some(status) = exchange.status.filter(|status| self.client.modern() && *status != 404) {
            // 2026-07-28 streamable-http §Protocol Version Header: an unknown method is 404 over HTTP.
            (passed, why) = (false, format!("{why}, with HTTP status {status}, not 404"));
        }
        self.found(checks::METHOD_NOT_FOUND, passed, None, why, Some(&exchange));

        let mut name = NO_SUCH_TOOL.to_owned();
        while tools.iter().any(|tool| tool.get("name").and_then(Value::as_str) == Some(&name)) {
            name.push('_');
        }
        let exchange = self.request("tools/call", Some(json!({"name": name, "arguments": {}}))).await;
        let (passed, why) = answered_with(&exchange, -32602);
        self.found(checks::UNKNOWN_TOOL, passed, None, why, Some(&exchange));
        // The SDKs' isError answer fails the check above but refuses; a plain result does neither.
        if matches!(exchange.answer, Answer::Response(_) | Answer::Http { .. }) {
            let refusal = refused(&exchange.answer);
            let why = if refusal { "refused" } else { "answered with a successful result, as if the tool existed" };
            self.found(checks::UNKNOWN_TOOL_REFUSED, refusal, None, why.to_owned(), Some(&exchange));
        }
        self.still_answers("a call of an unknown tool", None).await;
    }

    /// The generated calls of one tool, when the safety rule allows calling it.
    async fn tool(&mut self, tool: &Value, calls: &Calls, tools: &[Value]) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else { return };
        let read_only =
            tool.get("annotations").and_then(|annotations| annotations.get("readOnlyHint")) == Some(&Value::Bool(true));
        let allowed = match calls {
            Calls::All => true,
            Calls::Named(names) => read_only || names.contains(name),
            Calls::ReadOnly => read_only,
        };
        if !allowed {
            let why = "not named with --call and not annotated readOnlyHint: true".to_owned();
            self.skipped.push(Skipped { tool: name.to_owned(), why });
            return;
        }
        // Inputs are made without the patterns callproof cannot compile (mcp-schema-pattern says which).
        let schema = lint::evaluable(tool.get("inputSchema").unwrap_or(&Value::Null));
        if lint::schema_problem("inputSchema", &schema).is_some() {
            let why = "its inputSchema is not a valid object schema (mcp-input-schema-valid), so inputs cannot be \
                       made from it"
                .to_owned();
            self.skipped.push(Skipped { tool: name.to_owned(), why });
            return;
        }
        let Some(base) = inputs::base(&schema) else {
            let why = "its inputSchema is not an object schema, so no inputs can be made from it".to_owned();
            self.skipped.push(Skipped { tool: name.to_owned(), why });
            return;
        };
        self.called.push(name.to_owned());
        if !self.params_checked {
            self.params_checked = true;
            let exchange = self.call(name, r#""x""#).await;
            if matches!(exchange.answer, Answer::Response(_)) {
                let (passed, why) = answered_with(&exchange, -32602);
                self.found(checks::CALL_PARAMS_INVALID, passed, Some(name), why, Some(&exchange));
            }
            self.still_answers(&format!("{name} with arguments that are not an object"), Some(name)).await;
        }
        let output = tool.get("outputSchema");
        let base_text = Value::Object(base.clone()).to_string();
        self.tasks.callable.push((name.to_owned(), base_text.clone()));
        let other = tools.iter().filter_map(|tool| tool.get("name")?.as_str()).find(|other| *other != name);
        if self.http && self.client.modern() && self.called.len() == 1 {
            self.header_mismatch_call(name, &base_text, other.unwrap_or(NO_SUCH_TOOL)).await;
        }
        let exchange = self.base_call(name, &base_text).await;
        self.judge_output(name, output, &exchange);
        let base_refused = refused(&exchange.answer);
        for case in inputs::cases(&schema, &base) {
            let exchange = if inputs::line_level(&case) {
                self.line_level_call(name, &case.arguments).await
            } else {
                self.call(name, &case.arguments).await
            };
            self.judge_refusal(name, &case, &exchange, base_refused);
            self.judge_output(name, output, &exchange);
            self.still_answers(&format!("{name} with {}", case.label), Some(name)).await;
        }
    }

    async fn call(&mut self, name: &str, arguments: &str) -> Exchange {
        let meta = self.meta.clone();
        self.call_with(name, arguments, &meta).await
    }

    /// The first valid call of a tool gives a `progressToken` of its own (unless `--meta` gives every call one), so
    /// that a server that reports progress shows whether it stops once the call is answered (`mcp-progress-token`).
    /// Only that call: the others show whether a server reports progress for a token nobody gave.
    async fn base_call(&mut self, name: &str, arguments: &str) -> Exchange {
        let mut meta = self.meta.clone();
        let token = format!("callproof-progress-{}", self.called.len());
        meta.entry(PROGRESS_TOKEN).or_insert(Value::String(token));
        self.call_with(name, arguments, &meta).await
    }

    async fn call_with(&mut self, name: &str, arguments: &str, meta: &Map<String, Value>) -> Exchange {
        let id = self.client.next_id();
        let line = call_line(id, name, arguments, self.client.modern(), meta);
        let route = self.client.route("tools/call", Some(name));
        let exchange = self.client.exchange_routed(line, &json!(id), &route).await;
        self.observed(&exchange, Some(name));
        exchange
    }

    /// A call whose line may be answered only with `id: null`, or not at all: sent alone, then a `ping`.
    async fn line_level_call(&mut self, name: &str, arguments: &str) -> Exchange {
        let id = self.client.next_id();
        let line = call_line(id, name, arguments, self.client.modern(), &self.meta);
        let route = self.client.route("tools/call", Some(name));
        let (exchange, ping) = self.client.garbage_routed(line, Some(json!(id)), &route).await;
        self.observed(&ping, None);
        self.observed(&exchange, Some(name));
        exchange
    }

    /// A refused case passes; when the generated base was refused too, the pass is inconclusive (the server
    /// may refuse the base for a reason of its own) and says so. An accepted case fails whatever the base.
    fn judge_refusal(&mut self, name: &str, case: &inputs::Case, exchange: &Exchange, base_refused: bool) {
        if exchange.answer == Answer::Dropped {
            let liveness = self.client.liveness();
            // A line that is not JSON (NaN) was not run; dropping it is `mcp-parse-error`'s SHOULD, not a MUST.
            let not_json = case.check.id == checks::NON_FINITE.id;
            let why = format!("{}: dropped without an answer (the {liveness} sent after it was answered)", case.label);
            self.found(case.check, not_json, Some(name), why, Some(exchange));
            return;
        }
        if !matches!(exchange.answer, Answer::Response(_) | Answer::Http { .. }) {
            return;
        }
        let passed = refused(&exchange.answer);
        let why = match &exchange.answer {
            _ if passed => format!("{}: refused", case.label),
            Answer::Http { status, .. } => format!("{}: answered HTTP {status}, not a refusal", case.label),
            _ => format!("{}: accepted (a result without isError: true)", case.label),
        };
        self.found(case.check, passed, Some(name), why, Some(exchange));
        if passed
            && base_refused
            && let Some(finding) = self.findings.last_mut()
        {
            finding.inconclusive = true;
        }
        if passed {
            self.judge_error_is_result(name, case, exchange);
        }
    }

    /// A refusal the model can read is an `isError` result; a -32700 (or its HTTP form, a 4xx to a line that
    /// may not parse) is the one protocol answer that cannot be one.
    fn judge_error_is_result(&mut self, name: &str, case: &inputs::Case, exchange: &Exchange) {
        let label = &case.label;
        let why = match (&exchange.answer, exchange.answer.error_code()) {
            (_, Some(-32700)) => return,
            (Answer::Http { .. }, _) if inputs::line_level(case) => return,
            (Answer::Http { status, .. }, _) => {
                format!("{label}: refused with HTTP {status}, not a result the model can read")
            }
            (_, Some(code)) => format!("{label}: refused with JSON-RPC error {code}, not a result the model can read"),
            (_, None) => {
                let why = format!("{label}: refused with an isError result");
                return self.found(checks::ERROR_IS_RESULT, true, Some(name), why, None);
            }
        };
        self.found(checks::ERROR_IS_RESULT, false, Some(name), why, Some(exchange));
    }
}

/// Whether `exchange` was answered with JSON-RPC error `wanted`, and what it was answered with.
fn answered_with(exchange: &Exchange, wanted: i64) -> (bool, String) {
    let code = exchange.answer.error_code();
    let why = match (code, exchange.answer.result()) {
        (Some(code), _) if code == wanted => format!("answered {wanted}"),
        (Some(code), _) => format!("answered error {code}, not {wanted}"),
        (None, Some(_)) => format!("answered with a result, not the protocol error {wanted}"),
        (None, None) => format!("answered {}, not error {wanted}", exchange.answer.text()),
    };
    (code == Some(wanted), why)
}

/// Whether an answer refuses the call: a JSON-RPC error, a result with `isError: true`, or an HTTP 4xx.
fn refused(answer: &Answer) -> bool {
    matches!(answer, Answer::Http { status: 400..=499, .. })
        || answer.error_code().is_some()
        || answer.result().and_then(|result| result.get("isError")) == Some(&Value::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(answer: Answer) -> Exchange {
        Exchange { sent: "{}".to_owned(), answer, status: None }
    }

    #[test]
    fn an_error_result_and_an_is_error_result_refuse_and_a_plain_result_does_not() {
        let error = Answer::Response(json!({"id": 1, "error": {"code": -32602, "message": "bad"}}));
        let is_error = Answer::Response(json!({"id": 1, "result": {"content": [], "isError": true}}));
        let success = Answer::Response(json!({"id": 1, "result": {"content": [], "isError": false}}));
        assert!(refused(&error) && refused(&is_error));
        assert!(!refused(&success) && !refused(&Answer::Silent));
    }

    #[test]
    fn the_wanted_code_passes_and_anything_else_says_what_came_instead() {
        let error = |code: i64| exchange(Answer::Response(json!({"id": 1, "error": {"code": code, "message": "m"}})));
        assert_eq!(answered_with(&error(-32601), -32601), (true, "answered -32601".to_owned()));
        assert_eq!(answered_with(&error(-32602), -32601), (false, "answered error -32602, not -32601".to_owned()));
        let result = exchange(Answer::Response(json!({"id": 1, "result": {}})));
        assert!(answered_with(&result, -32602).1.contains("a result, not the protocol error -32602"));
        let silent = answered_with(&exchange(Answer::Silent), -32602);
        assert!(!silent.0 && silent.1.contains("no answer within the timeout"), "{}", silent.1);
    }
}
