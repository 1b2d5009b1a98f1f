//! The Tasks mapping of `conform --mcp` (MCP 2026-07-28, a server that declares `io.modelcontextprotocol/tasks`
//! in `server/discover`): a task submission declares the extension and may be answered with a
//! `CreateTaskResult`; a poll is `tasks/get` and a cancel `tasks/cancel` of the handle in the call's arguments
//! (docs/mcp.md, "The conformance app's task tool over MCP").
//!
//! Rule enforced here: an answer's envelope is the one the server gave for that request
//! (`_meta["io.callproof/envelope"]` of a task result, `data.envelope` of an error), never built from the
//! task's fields; a task whose status, handle or final result contradicts that envelope reads as no envelope
//! at all; the only refusal read without an envelope is -32602, which ext-tasks makes the answer to an unknown
//! or inaccessible handle, and which reads as that refusal (`forbidden`, `resource_not_accessible`) with the
//! JSON-RPC error kept in its details, so two such answers that differ still differ.

use super::wire::{self, CONTEXT_KEY, Era};
use crate::subject::{Reply, SubjectCall};
use callproof_executor::app::catalog_entries;
use callproof_executor::error::ErrorCode;
use callproof_executor::task::TaskRole;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The `_meta` key under which a task answer carries the envelope of its request.
pub(crate) const ENVELOPE_META: &str = "io.callproof/envelope";

/// How one call travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mapped {
    /// A `tools/call` with the `_meta` of this era.
    Call(Era),
    /// `tasks/get` or `tasks/cancel` (`method`) of `task_id`.
    Task {
        /// The method.
        method: &'static str,
        /// The handle, from the call's `task_id` argument.
        task_id: String,
    },
}

/// How `call` travels when the server speaks `era` and declared the extension (`tasks`): the submission
/// declares it, a poll or a cancel whose arguments name a handle is a task request; everything else is a
/// `tools/call` as without the mapping.
pub(crate) fn map(call: &SubjectCall, era: Era, tasks: bool) -> Mapped {
    if !tasks || era == Era::Legacy {
        return Mapped::Call(era);
    }
    let role = catalog_entries().iter().find(|entry| entry.spec.name == call.call.name).and_then(|entry| entry.task);
    let method = match role {
        None => return Mapped::Call(era),
        Some(TaskRole::Submit) => return Mapped::Call(Era::ModernTasks),
        Some(TaskRole::Poll) => "tasks/get",
        Some(TaskRole::Cancel) => "tasks/cancel",
    };
    let arguments = wire::arguments_json(call);
    match arguments.as_ref().and_then(|arguments| arguments.get("task_id")?.as_str()) {
        Some(task_id) => Mapped::Task { method, task_id: task_id.to_owned() },
        None => Mapped::Call(era),
    }
}

/// The line of a task request: `taskId`, and the `_meta` declaring the extension with the call's context (its
/// `auth` only over stdio, where it is the trusted identity).
pub(crate) fn task_line(id: i64, call: &SubjectCall, method: &str, task_id: &str, with_auth: bool) -> String {
    let mut meta = Era::ModernTasks.meta();
    meta.insert(CONTEXT_KEY.to_owned(), wire::context(call, with_auth));
    let params = json!({"taskId": task_id, "_meta": meta});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The envelope of a `CreateTaskResult` (`resultType: "task"`): the one in its `_meta`, when it is a success
/// naming the same handle.
pub(crate) fn created(result: &Value) -> Value {
    let Some(envelope) = carried(result) else {
        return json!({"mcp": "a CreateTaskResult without the envelope in _meta", "result": result});
    };
    let handle = envelope.pointer("/result/task_id");
    if envelope.get("ok") != Some(&Value::Bool(true)) || handle != result.get("taskId") {
        return json!({"mcp": "a CreateTaskResult that contradicts its envelope", "result": result});
    }
    envelope.clone()
}

/// One answer to a task request, as the module's rule says; `Err` is a protocol break.
pub(crate) fn read_task(
    message: &Value,
    call: &SubjectCall,
    id: i64,
    tools: &BTreeSet<String>,
) -> Result<Reply, String> {
    if let Some(result) = message.get("result") {
        let Some(envelope) = carried(result) else {
            return Ok(json!({"mcp": "a task answer without the envelope in _meta", "result": result}).into());
        };
        if let Some(why) = contradiction(result, envelope) {
            return Ok(json!({"mcp": why, "result": result}).into());
        }
        return Ok(envelope.clone().into());
    }
    let error = message.get("error").unwrap_or(&Value::Null);
    let code = error.get("code").and_then(Value::as_i64);
    if error.pointer("/data/envelope").is_none() {
        match code {
            Some(-32602) => {
                let details = vec![("reason", json!("resource_not_accessible")), ("jsonrpc_error", error.clone())];
                let message = "the server answered the task request with JSON-RPC error -32602 (no such task)";
                return Ok(Reply::built(wire::built(call, id, ErrorCode::Forbidden, message, details), None));
            }
            Some(code @ (-32601 | -32021)) => {
                return Err(format!(
                    "it declared io.modelcontextprotocol/tasks but answered a task request with {code}: {}",
                    crate::protocol::excerpt(&message.to_string(), 300)
                ));
            }
            _ => {}
        }
    }
    wire::read_answer(message, call, id, tools)
}

/// The envelope a task result carries in `_meta`, if it is one.
fn carried(result: &Value) -> Option<&Value> {
    result.get("_meta")?.get(ENVELOPE_META).filter(|envelope| envelope.get("ok").is_some_and(Value::is_boolean))
}

/// Why a `tasks/get` or `tasks/cancel` result contradicts the envelope it carries, if it does: a task status the
/// envelope's does not allow, another handle, or a completed task whose result is not the envelope's answer.
fn contradiction(result: &Value, envelope: &Value) -> Option<String> {
    let Some(status) = result.get("status").and_then(Value::as_str) else {
        // `tasks/cancel`: an acknowledgement; the envelope says what the job's status was.
        return None;
    };
    if envelope.get("ok") != Some(&Value::Bool(true)) {
        return Some(format!("a task in status {status} whose envelope is a refusal"));
    }
    let answered = envelope.pointer("/result/status").and_then(Value::as_str).unwrap_or("");
    let allowed: &[&str] = match status {
        "working" | "input_required" => &["working"],
        "completed" => &["completed", "failed"],
        "cancelled" => &["cancelled"],
        "failed" => &["failed"],
        _ => &[],
    };
    if !allowed.contains(&answered) {
        return Some(format!("a task in status {status} whose envelope answers status {answered:?}"));
    }
    if result.get("taskId") != envelope.pointer("/result/task_id") {
        return Some("a task whose taskId is not the handle its envelope names".to_owned());
    }
    let final_answer = result.pointer("/result/structuredContent/result");
    if status == "completed" && final_answer != envelope.get("result") {
        return Some("a completed task whose result is not the answer its envelope gives".to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wire::subject_call as call;
    use super::*;

    fn envelope(status: &str) -> Value {
        json!({"ok": true, "result": {"task_id": "exp_1", "status": status, "result": null},
            "meta": {"request_id": "req_9", "call_id": "call_1", "attempt": 1}})
    }

    fn task(status: &str, envelope: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "taskId": "exp_1", "status": status,
            "_meta": {ENVELOPE_META: envelope}}})
    }

    fn read(message: &Value) -> Value {
        read_task(message, &call("task_status", r#"{"task_id":"exp_1"}"#), 3, &BTreeSet::new()).expect("read").value
    }

    #[test]
    fn only_task_tools_are_mapped_and_only_when_the_server_declared_the_extension_in_2026_07_28() {
        let poll = call("task_status", r#"{"task_id":"exp_1"}"#);
        assert_eq!(map(&poll, Era::Modern, true), Mapped::Task { method: "tasks/get", task_id: "exp_1".into() });
        assert_eq!(map(&poll, Era::Modern, false), Mapped::Call(Era::Modern));
        assert_eq!(map(&poll, Era::Legacy, true), Mapped::Call(Era::Legacy));
        let cancel = call("task_cancel", r#"{"task_id":"exp_2"}"#);
        assert_eq!(map(&cancel, Era::Modern, true), Mapped::Task { method: "tasks/cancel", task_id: "exp_2".into() });
        let submit = call("export_account_data", r#"{"account_id":"acct_1","format":"json"}"#);
        assert_eq!(map(&submit, Era::Modern, true), Mapped::Call(Era::ModernTasks));
        assert_eq!(map(&call("get_order", "{}"), Era::Modern, true), Mapped::Call(Era::Modern));
        let malformed = call("task_status", r#"{"task_id":7}"#);
        assert_eq!(map(&malformed, Era::Modern, true), Mapped::Call(Era::Modern), "no handle: a plain call");
    }

    #[test]
    fn a_task_line_declares_the_extension_and_carries_the_context() {
        let line = task_line(4, &call("task_status", "{}"), "tasks/get", "exp_1", false);
        let message: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(
            (message["method"].clone(), message["params"]["taskId"].clone()),
            (json!("tasks/get"), json!("exp_1"))
        );
        let meta = &message["params"]["_meta"];
        assert!(super::super::revision::declares_tasks(&meta[super::super::revision::META_CAPABILITIES]));
        assert_eq!(meta[CONTEXT_KEY]["call_id"], "call_1");
        assert!(meta[CONTEXT_KEY].get("auth").is_none(), "over HTTP the token carries the identity");
    }

    #[test]
    fn a_task_answer_is_the_envelope_it_carries_when_nothing_contradicts_it() {
        assert_eq!(read(&task("working", envelope("working"))), envelope("working"));
        assert_eq!(read(&task("cancelled", envelope("cancelled"))), envelope("cancelled"));
        let mut done = envelope("completed");
        done["result"]["result"] = json!({"records": 3});
        let mut completed = task("completed", done.clone());
        completed["result"]["result"] = json!({"structuredContent": {"ok": true, "result": done["result"]}});
        assert_eq!(read(&completed), done);
        let ack = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete",
            "_meta": {ENVELOPE_META: envelope("working")}}});
        assert_eq!(read(&ack), envelope("working"));
    }

    #[test]
    fn a_task_that_contradicts_its_envelope_or_carries_none_reads_as_no_envelope() {
        let no_envelope = |value: Value| value.get("ok").is_none() && value.get("mcp").is_some();
        assert!(no_envelope(read(&task("completed", envelope("working")))), "completed while the tool says working");
        assert!(no_envelope(read(&task("cancelled", envelope("completed")))));
        let mut other = task("working", envelope("working"));
        other["result"]["taskId"] = json!("exp_2");
        assert!(no_envelope(read(&other)));
        let mut done = envelope("completed");
        done["result"]["result"] = json!({"records": 3});
        let mut changed = task("completed", done);
        changed["result"]["result"] = json!({"structuredContent": {"ok": true, "result": {"records": 4}}});
        assert!(no_envelope(read(&changed)), "a final result that is not the envelope's");
        let bare = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "taskId": "exp_1",
            "status": "working"}});
        assert!(no_envelope(read(&bare)));
    }

    #[test]
    fn minus_32602_without_an_envelope_is_the_handle_refusal_and_keeps_the_error() {
        let refused =
            |message: &str| read(&json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": message}}));
        let not_found = refused("Task not found");
        assert_eq!(not_found["error"]["code"], "forbidden");
        assert_eq!(not_found["error"]["details"]["reason"], "resource_not_accessible");
        assert_ne!(not_found["error"], refused("Task belongs to another tenant")["error"], "differences stay");
        let carried = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "x",
            "data": {"envelope": {"ok": false, "error": {"code": "forbidden"}, "meta": {"request_id": "r"}}}}});
        assert_eq!(read(&carried)["meta"]["request_id"], "r", "the server's own envelope wins");
        let unsupported = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "no"}});
        let poll = call("task_status", r#"{"task_id":"exp_1"}"#);
        assert!(read_task(&unsupported, &poll, 3, &BTreeSet::new()).is_err());
    }

    #[test]
    fn a_create_task_result_is_its_envelope_when_it_names_the_same_handle() {
        let submitted = json!({"ok": true, "result": {"task_id": "exp_1", "status": "working"}, "meta": {}});
        let result = json!({"resultType": "task", "taskId": "exp_1", "status": "working",
            "_meta": {ENVELOPE_META: submitted}});
        assert_eq!(created(&result), submitted);
        let mut other = result.clone();
        other["taskId"] = json!("exp_2");
        assert!(created(&other).get("mcp").is_some());
        assert!(created(&json!({"resultType": "task", "taskId": "exp_1"})).get("mcp").is_some());
    }
}
