use super::*;
use serde_json::Map;

fn response(message: Value) -> Answer {
    Answer::Response(message)
}

fn error(code: i64) -> Answer {
    response(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}}))
}

fn created() -> Value {
    json!({"resultType": "task", "taskId": "t1", "status": "working", "createdAt": "2026-12-02T00:00:00Z",
           "lastUpdatedAt": "2026-12-02T00:00:00Z", "ttlMs": 60000, "pollIntervalMs": 100})
}

#[test]
fn a_task_is_known_by_its_result_type_or_its_shape_and_a_tool_result_is_not_one() {
    assert!(is_task(&created()));
    assert!(is_task(&json!({"taskId": "t1", "status": "working"})), "a task without its resultType");
    assert!(!is_task(&json!({"resultType": "complete", "content": [], "isError": false})));
    assert!(!is_task(&json!({"content": [{"type": "text", "text": "x"}], "taskId": "t", "status": "s"})));
}

#[test]
fn a_create_task_result_needs_result_type_task_and_the_task_fields() {
    assert_eq!(create_problem(&created()), None);
    let mut unlimited = created();
    unlimited["ttlMs"] = Value::Null;
    unlimited.as_object_mut().expect("an object").remove("pollIntervalMs");
    assert_eq!(create_problem(&unlimited), None, "ttlMs null and no pollIntervalMs");
    for (field, value, word) in [
        ("resultType", Value::Null, "resultType"),
        ("resultType", json!("complete"), "not \"task\""),
        ("taskId", json!(""), "taskId"),
        ("status", json!("done"), "status"),
        ("createdAt", json!(1), "createdAt"),
        ("ttlMs", json!("60000"), "ttlMs"),
        ("pollIntervalMs", json!("5"), "pollIntervalMs"),
        ("statusMessage", json!(1), "statusMessage"),
    ] {
        let mut bad = created();
        bad[field] = value;
        assert!(create_problem(&bad).is_some_and(|why| why.contains(word)), "{field}");
    }
    let mut missing = created();
    missing.as_object_mut().expect("an object").remove("resultType");
    assert!(create_problem(&missing).is_some_and(|why| why.contains("resultType is missing")));
    missing = created();
    missing.as_object_mut().expect("an object").remove("ttlMs");
    assert!(create_problem(&missing).is_some_and(|why| why.contains("ttlMs is missing")));
}

#[test]
fn tasks_get_and_cancel_results_must_be_complete() {
    assert_eq!(complete_problem(&json!({"resultType": "complete", "status": "working"})), None);
    assert!(complete_problem(&json!({"resultType": "task", "status": "working"})).is_some());
    assert!(complete_problem(&json!({})).is_some_and(|why| why.contains("missing")));
}

#[test]
fn an_undeclared_client_gets_32021_with_the_required_capabilities() {
    let good = json!({"id": 1, "error": {"code": -32021, "message": "m",
                      "data": {"requiredCapabilities": {"extensions": {revision::TASKS_EXTENSION: {}}}}}});
    assert!(missing_capability(&response(good)));
    assert!(!missing_capability(&error(-32021)), "no data.requiredCapabilities");
    assert!(!missing_capability(&error(-32602)));
    assert!(!missing_capability(&response(json!({"id": 1, "result": {"resultType": "complete"}}))));
}

#[test]
fn an_unknown_id_must_be_32602_and_no_answer_is_not_judged() {
    assert_eq!(unknown_id_problem(&error(-32602)), Ok(()));
    assert!(unknown_id_problem(&error(-32603)).is_err_and(|why| why.is_some_and(|why| why.contains("-32603"))));
    let found = response(json!({"id": 1, "result": {"resultType": "complete", "status": "working"}}));
    assert!(unknown_id_problem(&found).is_err_and(|why| why.is_some_and(|why| why.contains("a result"))));
    assert_eq!(unknown_id_problem(&Answer::Silent), Err(None));
}

#[test]
fn a_handle_must_resolve_at_once() {
    let found = response(json!({"id": 1, "result": {"resultType": "complete", "status": "working"}}));
    assert_eq!(durable_problem(&found), Ok(()));
    assert!(durable_problem(&error(-32602)).is_err_and(|why| why.is_some_and(|why| why.contains("durably"))));
    assert!(durable_problem(&error(-32603)).is_err_and(|why| why.is_some()));
    assert_eq!(durable_problem(&Answer::Silent), Err(None));
}

#[test]
fn failed_needs_a_json_rpc_error_and_completed_a_result() {
    let failed = json!({"status": "failed", "error": {"code": -32603, "message": "down"}});
    assert_eq!(outcome_problem(&failed), None);
    let tool_error = json!({"status": "completed", "result": {"content": [], "isError": true}});
    assert_eq!(outcome_problem(&tool_error), None);
    assert_eq!(outcome_problem(&json!({"status": "cancelled"})), None);
    assert_eq!(outcome_problem(&json!({"status": "working"})), None, "not terminal: nothing to judge");
    let no_error = json!({"status": "failed", "statusMessage": "the tool said no"});
    assert!(outcome_problem(&no_error).is_some_and(|why| why.contains("not a JSON-RPC error")));
    let text_code = json!({"status": "failed", "error": {"code": "E1", "message": "m"}});
    assert!(outcome_problem(&text_code).is_some());
    assert!(outcome_problem(&json!({"status": "completed"})).is_some_and(|why| why.contains("result")));
}

#[test]
fn a_terminal_task_must_not_change_but_its_timestamps_may() {
    let ended = json!({"status": "completed", "result": {"content": [{"type": "text", "text": "1"}]},
                       "lastUpdatedAt": "a"});
    let mut again = ended.clone();
    again["lastUpdatedAt"] = json!("b");
    assert_eq!(stable_problem(&ended, &again), None);
    again["result"]["content"][0]["text"] = json!("2");
    assert!(stable_problem(&ended, &again).is_some_and(|why| why.contains("changed result")));
    let working = json!({"status": "working"});
    assert!(stable_problem(&ended, &working).is_some_and(|why| why.contains("changed status")));
}

#[test]
fn the_poll_interval_is_honoured_within_its_bounds() {
    assert_eq!(poll_interval(&json!({"pollIntervalMs": 200})), Duration::from_millis(200));
    assert_eq!(poll_interval(&json!({"pollIntervalMs": 0})), POLL_MIN);
    assert_eq!(poll_interval(&json!({"pollIntervalMs": 1e12})), POLL_MAX);
    assert_eq!(poll_interval(&json!({"pollIntervalMs": "x"})), POLL_MIN);
    assert_eq!(poll_interval(&json!({})), POLL_MIN);
}

#[test]
fn a_sent_line_says_its_method_its_tool_and_whether_it_declared_the_extension() {
    let declared = call_line_with(3, "export", "{}", revision::meta_with_tasks(MODERN), &Map::new());
    assert_eq!(sent_request(&declared), Some(("tools/call".into(), true, Some("export".into()))));
    let plain = super::super::client::call_line(3, "export", "{}", true, &Map::new());
    assert_eq!(sent_request(&plain), Some(("tools/call".into(), false, Some("export".into()))));
    assert_eq!(sent_request("not json"), None);
}

#[test]
fn every_unjudged_check_says_why() {
    let mut report = Report::with_checks("s".into(), &[], super::super::checks::of(true));
    let mut tasks = Tasks { declared: true, ..Tasks::default() };
    tasks.callable.push(("export".into(), "{}".into()));
    tasks.explain(&mut report);
    let durable = reason_of(&report, "mcp-tasks-durable-handle");
    assert!(durable.is_some_and(|why| why.contains("no call with the extension")));
    assert!(reason_of(&report, "mcp-tasks-auth-binding").is_some_and(|why| why.contains("HTTP-only")));
    let mut report = Report::with_checks("s".into(), &[], super::super::checks::of(true));
    let url = Server::Url("http://127.0.0.1:1/mcp".into());
    let mut over_http = Tasks::new(&url, Duration::from_secs(1), None);
    over_http.declared = true;
    over_http.explain(&mut report);
    let auth = reason_of(&report, "mcp-tasks-auth-binding");
    assert!(auth.is_some_and(|why| why.starts_with("no --bearer-second")));
    let mut report = Report::with_checks("s".into(), &[], super::super::checks::of(true));
    Tasks::default().explain(&mut report);
    assert!(reason_of(&report, "mcp-tasks-capability").is_some_and(|why| why.contains("does not declare")));
}

fn reason_of(report: &Report, id: &str) -> Option<String> {
    report.checks.iter().find(|check| check.id == id).and_then(|check| check.reason.clone())
}

#[test]
fn another_identitys_task_must_look_exactly_like_an_unknown_id() {
    let not_found = |id: i64, task: &str| {
        response(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!("no task {task}")}}))
    };
    let unknown = not_found(4, "u-1");
    let unknown = ("u-1", &unknown, Some(200));
    assert_eq!(binding_problem(unknown, ("t-9", &not_found(9, "t-9"), Some(200))), Ok(()), "ids aside, the same");
    let other = response(json!({"id": 9, "error": {"code": -32602, "message": "the task is another caller's"}}));
    let why = binding_problem(unknown, ("t-9", &other, Some(200))).expect_err("a different message");
    assert!(why.is_some_and(|why| why.contains("existence shows")));
    let status = binding_problem(unknown, ("t-9", &not_found(9, "t-9"), Some(404))).expect_err("another status");
    assert!(status.is_some_and(|why| why.contains("HTTP 200 for an unknown id, 404 here")));
    let task = response(json!({"id": 9, "result": {"resultType": "complete", "taskId": "t-9", "status": "working"}}));
    let leaked = binding_problem(unknown, ("t-9", &task, Some(200))).expect_err("the task itself");
    assert!(leaked.is_some_and(|why| why.contains("not bound")));
    assert!(binding_problem(unknown, ("t-9", &error(-32603), Some(200))).is_err_and(|why| why.is_some()));
    // Per-request ids in `data` are not the task's existence; another member of `data` may be.
    let with_data = |id: i64, task: &str, data: Value| {
        response(json!({"id": id, "error": {"code": -32602, "message": format!("no task {task}"), "data": data}}))
    };
    let unknown_with = with_data(4, "u-1", json!({"trace": "r-1"}));
    let unknown_with = ("u-1", &unknown_with, Some(200));
    let own_trace = with_data(9, "t-9", json!({"trace": "r-2"}));
    assert_eq!(binding_problem(unknown_with, ("t-9", &own_trace, Some(200))), Ok(()), "its own trace id");
    let owner = with_data(9, "t-9", json!({"trace": "r-2", "owner": "u_alice"}));
    assert!(binding_problem(unknown_with, ("t-9", &owner, Some(200))).is_err_and(|why| why.is_some()));
    assert_eq!(binding_problem(unknown, ("t-9", &Answer::Silent, None)), Err(None));
}
