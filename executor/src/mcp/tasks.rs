//! The Tasks extension (`io.modelcontextprotocol/tasks`, MCP 2026-07-28) over the conformance app's task
//! tools: a submission (catalog `task: submit`) from a client that declared the extension is answered with a
//! `CreateTaskResult` whose `taskId` is the job's handle; `tasks/get` runs the poll tool and `tasks/cancel` the
//! cancel tool, each under the trusted context of any other call (docs/mcp.md, "The conformance app's task
//! tool over MCP").
//!
//! Rule enforced here: a task request from a client that did not declare the extension is -32021 before
//! anything runs; an unknown handle, another tenant's handle and a text that is no handle all get the same
//! -32602 (the same message, and the same envelope in `data.envelope` apart from the request's own ids); a
//! `CreateTaskResult` is sent only for a submission that succeeded (the job exists downstream, so `tasks/get`
//! resolves at once); a task is `completed` or `cancelled` only when the poll tool said so, and a completed
//! task's `result` is the same on every poll (the recorded final answer, in an envelope whose `meta` is the
//! task's, not the poll's); every other refusal is -32603, never a task status. Each answer carries the
//! executor's envelope of that request (`_meta["io.callproof/envelope"]` of a result, `data.envelope` of an
//! error), so a harness judges what the executor did, request ids and all.

use super::call::{self, Call, Shape, Trust};
use super::{INVALID_PARAMS, Refusal, modern};
use crate::app::catalog_entries;
use crate::envelope::Envelope;
use crate::task::TaskRole;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// ext-tasks §Error Handling: a task request from a client that did not declare the extension.
pub const MISSING_CAPABILITY: i64 = -32021;
/// JSON-RPC 2.0 §5.1: the server failed (here: a task request the executor refused for a reason that is not
/// the handle; `data.envelope` says which).
pub const INTERNAL_ERROR: i64 = -32603;
/// The poll interval the server suggests: the export job looks for a cancel request this often.
const POLL_INTERVAL_MS: u64 = 500;
/// The one refusal of a handle that is unknown, another tenant's, or not a handle (no existence leak).
const NOT_FOUND: &str = "Failed to retrieve task: Task not found";
/// Tasks whose first sighting this process remembers, at most; past it the memory starts again.
const REMEMBERED: usize = 10_000;

/// Whether a modern request's `params._meta` declares the extension in its client capabilities.
pub(crate) fn declared(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("_meta")?.get(modern::META_CAPABILITIES)?.get("extensions")?.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// Whether `tool` starts a task (catalog `task: submit`).
pub(crate) fn submits(tool: &str) -> bool {
    catalog_entries().iter().any(|entry| entry.spec.name == tool && entry.task == Some(TaskRole::Submit))
}

/// The call that answers `tasks/get` or `tasks/cancel` (`method`), or the refusal sent before anything runs.
pub(crate) fn request(parsed: &Value, id: &Value, trust: Trust, method: &str) -> Result<Call, Value> {
    let params = parsed.get("params");
    if !declared(params) {
        return Err(json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": MISSING_CAPABILITY,
            "message": "Missing required client capability",
            "data": {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        }}));
    }
    let refused = |Refusal(code, why): Refusal| super::refusal(id, code, &why);
    let Some(params) = params.and_then(Value::as_object) else {
        return Err(refused(Refusal(INVALID_PARAMS, "Invalid params: params is not an object".to_owned())));
    };
    let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
        return Err(refused(Refusal(INVALID_PARAMS, "Invalid params: taskId is not a string".to_owned())));
    };
    let (role, shape) = if method == "tasks/get" {
        (TaskRole::Poll, Shape::Get(task_id.to_owned()))
    } else {
        (TaskRole::Cancel, Shape::Cancel(task_id.to_owned()))
    };
    let Some(tool) = catalog_entries().iter().find(|entry| entry.task == Some(role)) else {
        return Err(refused(Refusal(INVALID_PARAMS, "Invalid params: this server runs no task tools".to_owned())));
    };
    let arguments = json!({"task_id": task_id}).to_string();
    let request = call::prepared(params, id, trust, &tool.spec.name, arguments).map_err(refused)?;
    Ok(Call { id: id.clone(), request, refused: None, modern: true, shape })
}

/// The JSON-RPC answer of a task-shaped call, from the executor's envelope; `None` for a submission that was
/// refused (it is answered as the `CallToolResult` of its envelope, like any call).
pub(crate) fn answer(id: &Value, shape: &Shape, envelope: &Envelope) -> Option<Value> {
    let json = envelope.to_json();
    let result = json.get("result").cloned().filter(|_| envelope.code().is_none());
    let (mut answer, result_type) = match (shape, result) {
        (Shape::Submit, Some(result)) => (task(result.get("task_id").and_then(Value::as_str)?, "working"), "task"),
        (Shape::Get(task_id), Some(result)) => (polled(task_id, result), "complete"),
        (Shape::Cancel(_), Some(_)) => (json!({}), "complete"),
        (Shape::Get(_) | Shape::Cancel(_), None) => return Some(refusal(id, json)),
        (Shape::Submit | Shape::Tool, _) => return None,
    };
    answer["_meta"] = json!({ENVELOPE_META: json});
    let mut answer = modern::complete(answer);
    answer["resultType"] = json!(result_type);
    Some(json!({"jsonrpc": "2.0", "id": id, "result": answer}))
}

/// The `_meta` key under which a task answer carries the executor's envelope of that request.
pub const ENVELOPE_META: &str = "io.callproof/envelope";

/// The `Task` a poll answer (`{task_id, status, result}`) stands for. The job's end, failed or not, is the
/// tool's answer: `completed` with that answer as its result (the extension keeps `failed` for JSON-RPC
/// errors), in an envelope whose `meta` names the task rather than the poll, so every poll carries the same.
fn polled(task_id: &str, result: Value) -> Value {
    let status = result.get("status").and_then(Value::as_str).unwrap_or("working");
    match status {
        "completed" | "failed" => {
            let meta = json!({"request_id": task_id, "call_id": task_id, "attempt": 1, "idempotency_key": null,
                "replayed": false, "reconciled": false});
            let mut answer = task(task_id, "completed");
            answer["result"] = super::tool_result(json!({"ok": true, "result": result, "meta": meta}));
            answer
        }
        "cancelled" => task(task_id, "cancelled"),
        _ => task(task_id, "working"),
    }
}

/// The refusal of a task request the executor refused (its envelope `json` in `data.envelope`): -32602 with
/// one message when it was about the handle (unknown, another tenant's, not a handle), else -32603.
fn refusal(id: &Value, json: Value) -> Value {
    let reason = json.pointer("/error/details/reason").and_then(Value::as_str);
    let code = json.pointer("/error/code").and_then(Value::as_str);
    let about_handle = match code {
        Some("forbidden") => reason == Some("resource_not_accessible"),
        Some("invalid_arguments" | "schema_violation") => true,
        _ => false,
    };
    let (code, message) = if about_handle {
        (INVALID_PARAMS, NOT_FOUND)
    } else {
        (INTERNAL_ERROR, "Internal error: the task request was refused")
    };
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": {"envelope": json}}})
}

/// The `Task` fields of `task_id` in `status`: `createdAt` is when this process first answered about the task
/// (the handle's own creation time is the downstream's, which the poll tool does not carry), `lastUpdatedAt`
/// now; no TTL (the final answer is kept in the idempotency store).
fn task(task_id: &str, status: &str) -> Value {
    let now = rfc3339(wall_ms());
    let created = first_seen(task_id, &now);
    json!({
        "taskId": task_id,
        "status": status,
        "createdAt": created,
        "lastUpdatedAt": now,
        "ttlMs": null,
        "pollIntervalMs": POLL_INTERVAL_MS,
    })
}

/// When this process first answered about `task_id` (`now` the first time).
fn first_seen(task_id: &str, now: &str) -> String {
    static SEEN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if seen.len() >= REMEMBERED && !seen.contains_key(task_id) {
        seen.clear();
    }
    seen.entry(task_id.to_owned()).or_insert_with(|| now.to_owned()).clone()
}

fn wall_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// Unix milliseconds as an RFC 3339 UTC timestamp with milliseconds (ISO 8601, as the Task's fields want).
fn rfc3339(ms: u64) -> String {
    let (days, of_day) = (ms / 86_400_000, ms % 86_400_000);
    // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted), proleptic Gregorian.
    let z = i64::try_from(days).unwrap_or(i64::MAX / 2) + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    let (hours, minutes) = (of_day / 3_600_000, of_day / 60_000 % 60);
    let (seconds, millis) = (of_day / 1_000 % 60, of_day % 1_000);
    format!("{year:04}-{month:02}-{day:02}T{hours:02}:{minutes:02}:{seconds:02}.{millis:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::Meta;
    use crate::error::{ErrorBody, ErrorCode};

    fn meta() -> Meta {
        Meta {
            request_id: "r".into(),
            call_id: "c".into(),
            attempt: 1,
            idempotency_key: None,
            replayed: false,
            reconciled: false,
        }
    }

    fn ok(result: Value) -> Envelope {
        Envelope::success(result, meta())
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_785_196_800_123), "2026-07-28T00:00:00.123Z");
    }

    #[test]
    fn a_successful_submission_is_a_create_task_result_and_a_refused_one_is_not() {
        let created = answer(&json!(1), &Shape::Submit, &ok(json!({"task_id": "exp_1", "status": "working"})));
        let result = &created.expect("a task")["result"];
        assert_eq!((result["resultType"].clone(), result["taskId"].clone()), (json!("task"), json!("exp_1")));
        assert_eq!(result["status"], "working");
        assert!(result["createdAt"].is_string() && result["ttlMs"].is_null());
        assert_eq!(result["_meta"][ENVELOPE_META]["result"]["task_id"], "exp_1");
        let conflict = Envelope::failure(ErrorBody::new(ErrorCode::IdempotencyConflict, "other arguments"), meta());
        assert_eq!(answer(&json!(1), &Shape::Submit, &conflict), None);
    }

    #[test]
    fn a_poll_is_working_until_the_tool_says_completed_and_then_carries_its_envelope() {
        let get = Shape::Get("exp_1".into());
        let working = answer(&json!(2), &get, &ok(json!({"task_id": "exp_1", "status": "working", "result": null})));
        let working = working.expect("an answer");
        assert_eq!(
            (working["result"]["status"].clone(), working["result"]["resultType"].clone()),
            (json!("working"), json!("complete"))
        );
        assert!(working["result"].get("result").is_none());
        let done = ok(json!({"task_id": "exp_1", "status": "completed", "result": {"records": 3}}));
        let completed = answer(&json!(3), &get, &done).expect("an answer");
        assert_eq!(completed["result"]["status"], "completed");
        let content = &completed["result"]["result"]["structuredContent"];
        assert_eq!((content["ok"].clone(), &content["result"]), (json!(true), &done.to_json()["result"]));
        assert_eq!(content["meta"]["request_id"], "exp_1", "the task's meta, the same on every poll");
        assert_eq!(completed["result"]["result"]["isError"], false);
        assert_eq!(completed["result"]["_meta"][ENVELOPE_META], done.to_json(), "the poll's own envelope");
        let failed = ok(json!({"task_id": "exp_1", "status": "failed", "result": null}));
        assert_eq!(answer(&json!(3), &get, &failed).expect("an answer")["result"]["status"], "completed");
        let cancelled = ok(json!({"task_id": "exp_1", "status": "cancelled", "result": null}));
        assert_eq!(answer(&json!(4), &get, &cancelled).expect("an answer")["result"]["status"], "cancelled");
    }

    #[test]
    fn a_refused_handle_is_one_answer_and_any_other_refusal_carries_its_envelope() {
        let forbidden = |reason: &str| {
            let body = ErrorBody::new(ErrorCode::Forbidden, "no").with("reason", reason);
            answer(&json!(5), &Shape::Get("exp_9".into()), &Envelope::failure(body, meta())).expect("an answer")
        };
        let invalid = ErrorBody::new(ErrorCode::InvalidArguments, "pattern");
        let malformed = answer(&json!(5), &Shape::Cancel("x".into()), &Envelope::failure(invalid, meta()));
        let without_envelope = |mut answer: Value| {
            answer["error"]["data"].take();
            answer
        };
        assert_eq!(without_envelope(forbidden("resource_not_accessible")), without_envelope(malformed.expect("x")));
        assert_eq!(forbidden("resource_not_accessible")["error"]["code"], -32602);
        assert_eq!(forbidden("resource_not_accessible")["error"]["data"]["envelope"]["error"]["code"], "forbidden");
        let scope = forbidden("missing_scope");
        assert_eq!(scope["error"]["code"], -32603);
        assert_eq!(scope["error"]["data"]["envelope"]["error"]["details"]["reason"], "missing_scope");
    }

    #[test]
    fn a_task_request_without_the_extension_is_minus_32021_and_one_without_a_task_id_minus_32602() {
        let line = |meta: Value, params: Value| {
            let mut params = params;
            params["_meta"] = meta;
            json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": params})
        };
        let plain = json!({modern::META_VERSION: modern::MODERN, modern::META_CAPABILITIES: {}});
        let declaring = json!({modern::META_VERSION: modern::MODERN,
            modern::META_CAPABILITIES: {"extensions": {EXTENSION: {}}}});
        let refused = |message: Value| request(&message, &json!(7), Trust::Stdio, "tasks/get").err();
        let missing = refused(line(plain, json!({"taskId": "exp_1"}))).expect("refused");
        assert_eq!(missing["error"]["code"], MISSING_CAPABILITY);
        assert!(missing["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION].is_object());
        let no_id = refused(line(declaring.clone(), json!({}))).expect("refused");
        assert_eq!(no_id["error"]["code"], -32602);
        let get = request(&line(declaring, json!({"taskId": "exp_1"})), &json!(7), Trust::Stdio, "tasks/get");
        let call = get.expect("a call");
        assert_eq!((call.request.call.name.as_str(), call.shape), ("task_status", Shape::Get("exp_1".into())));
    }
}
