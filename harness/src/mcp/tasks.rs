//! The profile's checks of the Tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28), for a server
//! whose `server/discover` declares it: no `CreateTaskResult` to a request that did not declare it, the shape of
//! a `CreateTaskResult`, `tasks/get` polled until a terminal status that then stays, `failed` only with a
//! JSON-RPC error, and the errors for an unknown id and an undeclared client (docs/mcp.md, "Tasks").
//!
//! Rule enforced here: only what ext-tasks requires is judged, on every answer that shows it, and a check with
//! nothing to judge (no call was answered with a task, the server does not declare the extension) is `SKIP`
//! with the reason, never a vacuous pass. The server decides per request whether to make a task, so a plain
//! `CallToolResult` to a call that declared the extension is no finding. Safety: only a tool the profile may
//! call at all (`--call`, `--call-all`, `readOnlyHint: true`) gets the one extra call, with its generated base
//! arguments.

use super::bearer::Bearer;
use super::checks::{
    TASKS, TASKS_AUTH_BINDING, TASKS_CAPABILITY, TASKS_DURABLE_HANDLE, TASKS_FAILED_IS_JSONRPC, TASKS_RESULT_TYPE,
    TASKS_TERMINAL_STABLE, TASKS_UNKNOWN_ID,
};
use super::client::{Answer, Client, Exchange, call_line_with};
use super::profile::{Run, Server};
use super::report::Report;
use super::revision::{self, MODERN, Route};
use crate::mcp::checks::Check;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::time::Instant;

/// How long one task is polled for a terminal status before it is left unjudged (and cancelled).
const TASK_BOUND: Duration = Duration::from_secs(15);

/// The poll interval when the task names none, and the bounds a named `pollIntervalMs` is clamped to.
const POLL_MIN: Duration = Duration::from_millis(50);
const POLL_MAX: Duration = Duration::from_secs(1);

/// The statuses a task can have (ext-tasks §Tasks), and the terminal ones (§Task Status).
const STATUSES: [&str; 5] = ["working", "input_required", "completed", "failed", "cancelled"];
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// Why every Tasks check is `SKIP` for a server that does not declare the extension.
const NOT_DECLARED: &str = "the server does not declare io.modelcontextprotocol/tasks in server/discover";

/// Why `mcp-tasks-auth-binding` is `SKIP` over stdio, and over HTTP without a second identity.
const AUTH_OVER_STDIO: &str = "an HTTP-only check (the second identity is a second bearer token), and the server is \
                               spoken to over stdio (--url with --bearer and --bearer-second judges it)";
const AUTH_NO_SECOND: &str = "no --bearer-second: a second identity is needed to poll the first identity's task with";

/// A second identity over HTTP (`--bearer-second`): the endpoint, its token and the bound on a request.
#[derive(Debug)]
struct Second {
    url: String,
    bearer: Bearer,
    timeout: Duration,
}

/// What the Tasks checks need from the rest of the run, and what they found.
#[derive(Debug, Default)]
pub struct Tasks {
    /// `server/discover` declared the extension.
    pub declared: bool,
    /// The tools the profile may call and their generated base arguments (text), in list order.
    pub callable: Vec<(String, String)>,
    /// How many calls with the extension declared were answered with a `CreateTaskResult`.
    created: usize,
    /// Why a check judged nothing, the first reason per check.
    reasons: BTreeMap<&'static str, String>,
    /// Over Streamable HTTP.
    http: bool,
    /// The second identity, when given over HTTP.
    second: Option<Second>,
    /// The answer to `tasks/get` of an unknown id (the id, the answer, the HTTP status): what another
    /// identity's task must look like.
    unknown: Option<(String, Answer, Option<u16>)>,
}

impl Tasks {
    /// The state of a run against `server`; `second` (`--bearer-second`) is used over HTTP only.
    pub fn new(server: &Server, timeout: Duration, second: Option<&Bearer>) -> Tasks {
        let (http, second) = match (server, second) {
            (Server::Url(url), Some(bearer)) => {
                (true, Some(Second { url: url.clone(), bearer: bearer.clone(), timeout }))
            }
            (server, _) => (matches!(server, Server::Url(_)), None),
        };
        Tasks { http, second, ..Tasks::default() }
    }

    /// Says in `report` why each Tasks check that judged nothing judged nothing, and keeps the second
    /// identity's token out of it.
    pub fn explain(&self, report: &mut Report) {
        for check in TASKS {
            let why = if !self.declared {
                NOT_DECLARED.to_owned()
            } else if check.id == TASKS_AUTH_BINDING.id && !self.http {
                AUTH_OVER_STDIO.to_owned()
            } else if check.id == TASKS_AUTH_BINDING.id && self.second.is_none() {
                AUTH_NO_SECOND.to_owned()
            } else if let Some(why) = self.reasons.get(check.id) {
                why.clone()
            } else if self.callable.is_empty() {
                "no tool the profile may call (--call, --call-all, readOnlyHint: true), so no task to judge".to_owned()
            } else if self.created == 0 {
                format!(
                    "no call with the extension declared was answered with a CreateTaskResult (tools called: {})",
                    self.callable.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(", ")
                )
            } else {
                continue;
            };
            report.not_judged(check.id, &why);
        }
        if let Some(second) = &self.second {
            report.redact(|text| second.bearer.redact(text));
        }
    }

    fn note(&mut self, check: Check, why: String) {
        self.reasons.entry(check.id).or_insert(why);
    }
}

impl Run {
    /// `mcp-tasks-capability` on one answer: a `tools/call` sent without the extension must not get a task.
    /// Returns whether the request was a `tools/call` that declared the extension (a task may answer it).
    pub(super) fn observe_task_capability(&mut self, exchange: &Exchange) -> bool {
        let Some((method, declared, tool)) = sent_request(&exchange.sent) else { return false };
        if method != "tools/call" || declared {
            return method == "tools/call" && declared;
        }
        if !self.tasks.declared || !matches!(exchange.answer, Answer::Response(_)) {
            return false;
        }
        let tool = tool.unwrap_or_default();
        match exchange.answer.result().filter(|result| is_task(result)) {
            None => self.found(TASKS_CAPABILITY, true, Some(&tool), "no task without the extension".into(), None),
            Some(_) => {
                if self.modern_failed.insert((TASKS_CAPABILITY.id, tool.clone())) {
                    let why = "a tools/call without the extension in clientCapabilities was answered with a \
                               CreateTaskResult"
                        .to_owned();
                    self.found(TASKS_CAPABILITY, false, Some(&tool), why, Some(exchange));
                }
            }
        }
        false
    }

    /// The Tasks checks that need requests of their own: `tasks/get` without the extension and with an unknown
    /// id, then one call with the extension declared per tool the profile may call, and its task followed.
    pub(super) async fn tasks_checks(&mut self) {
        if !self.tasks.declared {
            return;
        }
        let unknown = unknown_id();
        let exchange = self.task_request("tasks/get", &unknown, false, None).await;
        let (passed, why) = super::modern::verdict(
            missing_capability(&exchange.answer),
            400,
            "error -32021 with data.requiredCapabilities",
            &exchange,
        );
        self.found(TASKS_CAPABILITY, passed, None, format!("tasks/get without the extension: {why}"), Some(&exchange));

        let exchange = self.task_request("tasks/get", &unknown, true, None).await;
        self.tasks.unknown = Some((unknown.clone(), exchange.answer.clone(), exchange.status));
        match unknown_id_problem(&exchange.answer) {
            Ok(()) => self.found(TASKS_UNKNOWN_ID, true, None, "answered -32602".into(), None),
            Err(Some(why)) => self.found(TASKS_UNKNOWN_ID, false, None, why, Some(&exchange)),
            Err(None) => self.tasks.note(TASKS_UNKNOWN_ID, format!("tasks/get got {}", exchange.answer.text())),
        }

        let callable = std::mem::take(&mut self.tasks.callable);
        for (name, arguments) in &callable {
            self.task_of(name, arguments).await;
        }
        self.tasks.callable = callable;
    }

    /// One call of `name` with the extension declared; a task it creates is judged, followed and cancelled.
    async fn task_of(&mut self, name: &str, arguments: &str) {
        let id = self.client.next_id();
        let line = call_line_with(id, name, arguments, revision::meta_with_tasks(MODERN), &self.meta);
        let route = Route::modern("tools/call", Some(name));
        let exchange = self.client.exchange_routed(line, &json!(id), &route).await;
        self.observed(&exchange, Some(name));
        let Some(created) = exchange.answer.result().filter(|result| is_task(result)).cloned() else { return };
        self.tasks.created += 1;
        let problem = create_problem(&created);
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| "a CreateTaskResult with resultType \"task\" and the Task fields".into());
        self.found(TASKS_RESULT_TYPE, passed, Some(name), why, Some(&exchange));
        let Some(task_id) = created.get("taskId").and_then(Value::as_str).map(str::to_owned) else {
            let why = format!("{name}: the CreateTaskResult has no string taskId to poll");
            self.tasks.note(TASKS_DURABLE_HANDLE, why.clone());
            self.tasks.note(TASKS_TERMINAL_STABLE, why.clone());
            self.tasks.note(TASKS_FAILED_IS_JSONRPC, why);
            return;
        };
        let first = self.task_request("tasks/get", &task_id, true, Some(name)).await;
        match durable_problem(&first.answer) {
            Ok(()) => self.found(TASKS_DURABLE_HANDLE, true, Some(name), "tasks/get resolved at once".into(), None),
            Err(Some(why)) => self.found(TASKS_DURABLE_HANDLE, false, Some(name), why, Some(&first)),
            Err(None) => {
                let why = format!("{name}: the first tasks/get got {}", first.answer.text());
                self.tasks.note(TASKS_DURABLE_HANDLE, why);
            }
        }
        self.judge_complete(name, &first);
        if first.answer.result().is_none() {
            let why =
                format!("{name}: the task's first tasks/get did not resolve, so no task to poll as another identity");
            self.tasks.note(TASKS_AUTH_BINDING, why);
        } else if self.tasks.second.is_some() {
            self.auth_binding(name, &task_id).await;
        }
        if let Some(terminal) = self.poll(name, &task_id, first).await {
            self.judge_terminal(name, &task_id, terminal).await;
        }
        let cancel = self.task_request("tasks/cancel", &task_id, true, Some(name)).await;
        self.judge_complete(name, &cancel);
    }

    /// Polls the task (honouring `pollIntervalMs`, clamped) until a terminal status or [`TASK_BOUND`]; the
    /// terminal answer, or `None` with the reason noted for the checks that needed it.
    async fn poll(&mut self, name: &str, task_id: &str, first: Exchange) -> Option<Exchange> {
        let deadline = Instant::now() + TASK_BOUND;
        let mut last = first;
        loop {
            let Some(result) = last.answer.result() else {
                let why = format!("{name}: tasks/get of task {task_id} got {}, not the task", last.answer.text());
                self.tasks.note(TASKS_TERMINAL_STABLE, why.clone());
                self.tasks.note(TASKS_FAILED_IS_JSONRPC, why);
                return None;
            };
            if terminal(result).is_some() {
                return Some(last);
            }
            if Instant::now() >= deadline {
                let why = format!("{name}: task {task_id} did not end within {} s", TASK_BOUND.as_secs());
                self.tasks.note(TASKS_TERMINAL_STABLE, why.clone());
                self.tasks.note(TASKS_FAILED_IS_JSONRPC, why);
                return None;
            }
            tokio::time::sleep(poll_interval(result)).await;
            last = self.task_request("tasks/get", task_id, true, Some(name)).await;
            self.judge_complete(name, &last);
        }
    }

    /// A terminal task: what it carries for its status, then two more polls that must show the same.
    async fn judge_terminal(&mut self, name: &str, task_id: &str, terminal: Exchange) {
        let Some(ended) = terminal.answer.result().cloned() else { return };
        let problem = outcome_problem(&ended);
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| format!("status {} with what it carries", shown(ended.get("status"))));
        self.found(TASKS_FAILED_IS_JSONRPC, passed, Some(name), why, Some(&terminal));
        for _ in 0..2 {
            let again = self.task_request("tasks/get", task_id, true, Some(name)).await;
            self.judge_complete(name, &again);
            let problem = match again.answer.result() {
                Some(result) => stable_problem(&ended, result),
                None => Some(format!("after the terminal status, tasks/get got {}", again.answer.text())),
            };
            let passed = problem.is_none();
            let why = problem.unwrap_or_else(|| "the same terminal status, result and error".to_owned());
            self.found(TASKS_TERMINAL_STABLE, passed, Some(name), why, Some(&again));
            if !passed {
                return;
            }
        }
    }

    /// `mcp-tasks-result-type` on a `tasks/get` or `tasks/cancel` answer that is a result.
    fn judge_complete(&mut self, name: &str, exchange: &Exchange) {
        let Some(result) = exchange.answer.result() else { return };
        let method = sent_request(&exchange.sent).map_or_else(|| "?".to_owned(), |(method, _, _)| method);
        let problem = complete_problem(result).map(|why| format!("{method}: {why}"));
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| format!("{method}: resultType \"complete\""));
        self.found(TASKS_RESULT_TYPE, passed, Some(name), why, Some(exchange));
    }

    /// Sends `method` (`tasks/get`, `tasks/cancel`) for `task_id`, the extension declared or not, with the
    /// `--meta` members beside it (the same caller as the calls).
    async fn task_request(&mut self, method: &str, task_id: &str, declared: bool, tool: Option<&str>) -> Exchange {
        let id = self.client.next_id();
        let line = self.task_line(id, method, task_id, declared);
        let exchange = self.client.exchange_routed(line, &json!(id), &Route::modern(method, Some(task_id))).await;
        self.observed(&exchange, tool);
        exchange
    }

    /// The line of `method` for `task_id` under request id `id`.
    fn task_line(&self, id: i64, method: &str, task_id: &str, declared: bool) -> String {
        let mut meta = if declared { revision::meta_with_tasks(MODERN) } else { revision::meta(MODERN) };
        meta.extend(self.meta.iter().map(|(key, value)| (key.clone(), value.clone())));
        let params = json!({"taskId": task_id, "_meta": Value::Object(meta)});
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    }

    /// `mcp-tasks-auth-binding`: `tasks/get` of the first identity's task with the second identity's token
    /// (all else the same) must be the unknown-id answer.
    async fn auth_binding(&mut self, name: &str, task_id: &str) {
        let Some(second) = &self.tasks.second else { return };
        let Some((unknown_id, unknown, unknown_status)) = self.tasks.unknown.clone() else { return };
        let mut client = match Client::connect(&second.url, second.timeout, Some(second.bearer.clone())) {
            Ok(client) => client,
            Err(error) => return self.tasks.note(TASKS_AUTH_BINDING, format!("no second client: {error}")),
        };
        client.set_modern(true);
        let id = self.client.next_id();
        let line = self.task_line(id, "tasks/get", task_id, true);
        let route = Route::modern("tasks/get", Some(task_id));
        let exchange = client.exchange_routed(line, &json!(id), &route).await;
        client.close().await;
        self.observed(&exchange, Some(name));
        let unknown = (unknown_id.as_str(), &unknown, unknown_status);
        match binding_problem(unknown, (task_id, &exchange.answer, exchange.status)) {
            Ok(()) => {
                let why = "another identity's tasks/get answered as for an unknown id".to_owned();
                self.found(TASKS_AUTH_BINDING, true, Some(name), why, None);
            }
            Err(Some(why)) => self.found(TASKS_AUTH_BINDING, false, Some(name), why, Some(&exchange)),
            Err(None) => {
                let why = format!("another identity's tasks/get got {}", exchange.answer.text());
                self.tasks.note(TASKS_AUTH_BINDING, why);
            }
        }
    }
}

/// A request line's method, whether its `_meta` declares the Tasks extension, and its `params.name`.
fn sent_request(line: &str) -> Option<(String, bool, Option<String>)> {
    let request = serde_json::from_str::<Value>(line).ok()?;
    let method = request.get("method")?.as_str()?.to_owned();
    let params = request.get("params");
    let capabilities = params.and_then(|params| params.get("_meta")?.get(revision::META_CAPABILITIES));
    let name = params.and_then(|params| params.get("name")?.as_str().map(str::to_owned));
    Some((method, capabilities.is_some_and(revision::declares_tasks), name))
}

/// Whether a result is a `CreateTaskResult`: `resultType: "task"`, or a `taskId` and a `status` where a
/// `CallToolResult` has its `content` (a task that forgot its `resultType` is still a task).
fn is_task(result: &Value) -> bool {
    let labelled = result.get("resultType").and_then(Value::as_str) == Some("task");
    let shaped = result.get("taskId").is_some_and(Value::is_string)
        && result.get("status").is_some_and(Value::is_string)
        && result.get("content").is_none();
    labelled || shaped
}

/// Why a `CreateTaskResult` is not one (ext-tasks §Polymorphic Results, §Tasks), if it is not.
fn create_problem(result: &Value) -> Option<String> {
    let field = |name: &str| result.get(name);
    let problem = match field("resultType").and_then(Value::as_str) {
        Some("task") => None,
        Some(kind) => Some(format!("resultType {kind:?}, not \"task\"")),
        None => Some(format!("resultType is {}, not \"task\"", shown(field("resultType")))),
    };
    let status = field("status").and_then(Value::as_str);
    let problem = problem
        .or_else(|| match field("taskId").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => None,
            _ => Some(format!("taskId is {}, not a non-empty string", shown(field("taskId")))),
        })
        .or_else(|| match status {
            Some(status) if STATUSES.contains(&status) => None,
            _ => Some(format!("status is {}, not one of {STATUSES:?}", shown(field("status")))),
        });
    let problem = ["createdAt", "lastUpdatedAt"].into_iter().fold(problem, |problem, name| {
        problem.or_else(|| (!field(name).is_some_and(Value::is_string)).then(|| format!("{name} is not a string")))
    });
    problem
        .or_else(|| match field("ttlMs") {
            Some(Value::Null | Value::Number(_)) => None,
            other => Some(format!("ttlMs is {}, not a number or null", shown(other))),
        })
        .or_else(|| match field("pollIntervalMs") {
            None | Some(Value::Number(_)) => None,
            Some(other) => Some(format!("pollIntervalMs is {other}, not a number")),
        })
        .or_else(|| match field("statusMessage") {
            None | Some(Value::String(_)) => None,
            Some(other) => Some(format!("statusMessage is {other}, not a string")),
        })
        .map(|why| format!("the CreateTaskResult: {why}"))
}

/// Why a `tasks/get` or `tasks/cancel` result does not say `resultType: "complete"`, if it does not.
fn complete_problem(result: &Value) -> Option<String> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("complete") => None,
        _ => Some(format!("resultType is {}, not \"complete\"", shown(result.get("resultType")))),
    }
}

/// Whether an answer is -32021 with `data.requiredCapabilities` (an object).
fn missing_capability(answer: &Answer) -> bool {
    let Answer::Response(message) = answer else { return false };
    answer.error_code() == Some(-32021)
        && message.pointer("/error/data/requiredCapabilities").is_some_and(Value::is_object)
}

/// `mcp-tasks-unknown-id`: `Ok` for -32602, `Err(Some(why))` for another answer, `Err(None)` for no answer
/// (`mcp-answers-in-time`'s).
fn unknown_id_problem(answer: &Answer) -> Result<(), Option<String>> {
    match (answer, answer.error_code()) {
        (_, Some(-32602)) => Ok(()),
        (_, Some(code)) => Err(Some(format!("tasks/get of an unknown taskId answered error {code}, not -32602"))),
        (Answer::Response(_), None) => Err(Some(
            "tasks/get of an unknown taskId answered with a result, not error \
                                                 -32602"
                .to_owned(),
        )),
        (Answer::Http { status, .. }, None) => Err(Some(format!(
            "tasks/get of an unknown taskId answered HTTP \
                                                                  {status} without error -32602"
        ))),
        _ => Err(None),
    }
}

/// `mcp-tasks-durable-handle`: `Ok` when the first `tasks/get` resolves (a result), `Err(Some(why))` for an
/// error, `Err(None)` for no answer.
fn durable_problem(answer: &Answer) -> Result<(), Option<String>> {
    match (answer.result(), answer.error_code()) {
        (Some(_), _) => Ok(()),
        (None, Some(-32602)) => Err(Some(
            "tasks/get right after the CreateTaskResult answered -32602: the task was \
                                          not durably created when its handle was returned"
                .to_owned(),
        )),
        (None, Some(code)) => {
            Err(Some(format!("tasks/get right after the CreateTaskResult answered error {code}, not the task")))
        }
        (None, None) if matches!(answer, Answer::Http { .. }) => {
            Err(Some(format!("tasks/get right after the CreateTaskResult got {}, not the task", answer.text())))
        }
        (None, None) => Err(None),
    }
}

/// The terminal status of a task, if it has one.
fn terminal(result: &Value) -> Option<&str> {
    result.get("status").and_then(Value::as_str).filter(|status| TERMINAL.contains(status))
}

/// How long to wait before the next poll: `pollIntervalMs`, clamped to [`POLL_MIN`]..=[`POLL_MAX`].
fn poll_interval(result: &Value) -> Duration {
    let named = result.get("pollIntervalMs").and_then(Value::as_f64).filter(|ms| ms.is_finite() && *ms >= 0.0);
    named
        .map_or(POLL_MIN, |ms| Duration::from_millis(ms.min(POLL_MAX.as_millis() as f64) as u64))
        .clamp(POLL_MIN, POLL_MAX)
}

/// Why a terminal task does not carry what its status needs (ext-tasks §Task Execution Errors), if it does not.
fn outcome_problem(result: &Value) -> Option<String> {
    match terminal(result)? {
        "failed" => {
            let error = result.get("error");
            let code = error.and_then(|error| error.get("code")).is_some_and(|code| code.as_i64().is_some());
            let message = error.and_then(|error| error.get("message")).is_some_and(Value::is_string);
            (!(code && message)).then(|| {
                format!(
                    "status failed, but error is {}, not a JSON-RPC error (an integer code and a string message): \
                     failed is only for JSON-RPC errors; a tool error is completed with an isError result",
                    shown(error)
                )
            })
        }
        "completed" => (!result.get("result").is_some_and(Value::is_object))
            .then(|| format!("status completed, but result is {}, not an object", shown(result.get("result")))),
        _ => None,
    }
}

/// Why a later poll of a terminal task differs from the terminal answer (status, result, error), if it does.
fn stable_problem(ended: &Value, again: &Value) -> Option<String> {
    ["status", "result", "error"].into_iter().find(|field| ended.get(*field) != again.get(*field)).map(|field| {
        format!(
            "after the terminal status {}, tasks/get changed {field}: first {}, then {}",
            shown(ended.get("status")),
            shown(ended.get(field)),
            shown(again.get(field))
        )
    })
}

/// `mcp-tasks-auth-binding` on `got` (the task id asked for, the answer, the HTTP status), beside `unknown` (the
/// same for an unknown id): `Ok` when both are -32602 and the same but for the request id and the task id
/// (over HTTP, with the same status), `Err(Some(why))` when not, `Err(None)` for no answer.
fn binding_problem(
    unknown: (&str, &Answer, Option<u16>),
    got: (&str, &Answer, Option<u16>),
) -> Result<(), Option<String>> {
    let (task_id, answer, status) = got;
    match (answer, answer.error_code()) {
        (_, Some(-32602)) => {}
        (Answer::Response(_), None) => {
            return Err(Some(
                "another identity's tasks/get of the task was answered with the task: the task is \
                             not bound to the identity that created it"
                    .to_owned(),
            ));
        }
        (Answer::Response(_) | Answer::Http { .. }, _) => {
            return Err(Some(format!(
                "another identity's tasks/get of the task answered {}, not error -32602",
                answer.text()
            )));
        }
        _ => return Err(None),
    }
    if unknown.1.error_code() != Some(-32602) {
        return Ok(());
    }
    let (expected, got) = (normalised(unknown.0, unknown.1), normalised(task_id, answer));
    if expected != got || unknown.2 != status {
        let statuses = match (unknown.2, status) {
            (Some(before), Some(now)) if before != now => format!(" (HTTP {before} for an unknown id, {now} here)"),
            _ => String::new(),
        };
        return Err(Some(format!(
            "another identity's tasks/get answered -32602, but not as for an unknown id{statuses}, so the task's \
             existence shows: unknown id {expected}, this task {got}"
        )));
    }
    Ok(())
}

/// What of a -32602 must not depend on whose task was asked for: the code, the message (`task_id` written
/// `<taskId>`) and the names of `data`'s members. `data`'s values are left out: a server may put the
/// request's own ids there (a trace id, the envelope of that request), which differ from request to request.
fn normalised(task_id: &str, answer: &Answer) -> String {
    let Answer::Response(message) = answer else { return answer.text().replace(task_id, "<taskId>") };
    let error = message.get("error").unwrap_or(&Value::Null);
    let members: Vec<&String> =
        error.get("data").and_then(Value::as_object).into_iter().flat_map(|data| data.keys()).collect();
    let shape = json!({"code": error.get("code"), "message": error.get("message"), "data members": members});
    shape.to_string().replace(task_id, "<taskId>")
}

/// A task id no server issued.
fn unknown_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    format!("callproof-no-such-task-{nanos:x}-{}", std::process::id())
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "missing".to_owned(), Value::to_string)
}

#[cfg(test)]
mod tests;
