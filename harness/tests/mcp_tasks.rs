//! `callproof mcp`'s Tasks checks (`mcp-tasks-*`, MCP 2026-07-28 with `io.modelcontextprotocol/tasks`):
//! fixtures/mcp/broken_tasks_server.py (standard library only) passes every one in `--mode good`, fails
//! exactly the check of each defect mode, and gets every one `SKIP` with the reason when it does not declare the
//! extension; over Streamable HTTP (`--http`, a task per bearer token) another identity's task must be answered
//! as an unknown id (`mcp-tasks-auth-binding`, `--bearer-second`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod process_support;

use process_support::{mcp_report, mcp_statuses, repo, run_callproof};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const TASKS_CHECKS: [&str; 7] = [
    "mcp-tasks-capability",
    "mcp-tasks-result-type",
    "mcp-tasks-unknown-id",
    "mcp-tasks-durable-handle",
    "mcp-tasks-terminal-stable",
    "mcp-tasks-failed-is-jsonrpc",
    "mcp-tasks-auth-binding",
];

/// The fixture in `mode`, its read-only tools callable (no `--call`): the exit code and the report.
fn run(mode: &str) -> (i32, Value) {
    let fixture = repo().join("fixtures/mcp/broken_tasks_server.py");
    let server = format!("python3 '{}' --mode {mode}", fixture.display());
    mcp_report(&["--server", &server, "--timeout", "5000"])
}

/// The statuses of the Tasks checks.
fn tasks_statuses(report: &Value) -> BTreeMap<String, String> {
    mcp_statuses(report).into_iter().filter(|(id, _)| id.starts_with("mcp-tasks-")).collect()
}

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"].as_array().unwrap().iter().find(|check| check["id"] == id).unwrap_or_else(|| panic!("{id}"))
}

#[test]
fn a_server_with_correct_tasks_passes_every_tasks_check_stdio_can_judge() {
    let (_, report) = run("good");
    assert_eq!(report["revision"], "2026-07-28", "{report:#}");
    let statuses = tasks_statuses(&report);
    assert_eq!(statuses.len(), TASKS_CHECKS.len(), "{report:#}");
    for (id, status) in &statuses {
        let wanted = if id == "mcp-tasks-auth-binding" { "SKIP" } else { "PASS" };
        assert_eq!(status, wanted, "{id}: {report:#}");
    }
    let reason = check(&report, "mcp-tasks-auth-binding")["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("HTTP-only"), "{reason}");
    assert_eq!(mcp_statuses(&report)["mcp-result-type"], "PASS", "a task answers a declared call: {report:#}");
    assert!(check(&report, "mcp-tasks-terminal-stable")["passed"].as_u64().unwrap() >= 4, "two tasks, two polls each");
}

#[test]
fn each_defect_fails_its_own_tasks_check_with_the_request_and_answer_that_show_it() {
    let cases = [
        ("capability", "mcp-tasks-capability", "without the extension in clientCapabilities was answered with"),
        ("capability-get", "mcp-tasks-capability", "not error -32021"),
        ("result-type", "mcp-tasks-result-type", "resultType is missing"),
        ("unknown-id", "mcp-tasks-unknown-id", "answered with a result, not error -32602"),
        ("durable", "mcp-tasks-durable-handle", "not durably created"),
        ("unstable", "mcp-tasks-terminal-stable", "changed result"),
        ("failed", "mcp-tasks-failed-is-jsonrpc", "not a JSON-RPC error"),
    ];
    let handles: Vec<_> =
        cases.into_iter().map(|(mode, id, word)| std::thread::spawn(move || (mode, id, word, run(mode)))).collect();
    for handle in handles {
        let (mode, id, word, (code, report)) = handle.join().unwrap();
        assert_eq!(code, 1, "{mode}: a MUST check failed: {report:#}");
        let statuses = tasks_statuses(&report);
        for (other, status) in &statuses {
            if other == id {
                assert_eq!(status, "FAIL", "{mode}: {report:#}");
            } else {
                assert_ne!(status, "FAIL", "{mode}: only {id} fails, not {other}: {report:#}");
            }
        }
        let failure = &check(&report, id)["failures"][0];
        assert!(failure["why"].as_str().unwrap().contains(word), "{mode}: {failure:#}");
        assert!(failure["request"].is_string() && failure["answer"].is_string(), "{mode}: {failure:#}");
    }
}

#[test]
fn a_task_whose_polls_are_refused_leaves_the_terminal_checks_unjudged_with_the_reason() {
    let (_, report) = run("durable");
    for id in ["mcp-tasks-terminal-stable", "mcp-tasks-failed-is-jsonrpc"] {
        let judged = check(&report, id);
        assert_eq!(judged["status"], "SKIP", "{report:#}");
        assert!(judged["reason"].as_str().unwrap().contains("not the task"), "{judged:#}");
    }
}

#[test]
fn a_server_that_does_not_declare_the_extension_gets_every_tasks_check_skipped_with_the_reason() {
    let (code, report) = run("no-tasks");
    assert_eq!(code, 0, "{report:#}");
    let statuses = tasks_statuses(&report);
    assert_eq!(statuses.len(), TASKS_CHECKS.len(), "{report:#}");
    for id in TASKS_CHECKS {
        let skipped = check(&report, id);
        assert_eq!(skipped["status"], "SKIP", "{report:#}");
        assert!(skipped["reason"].as_str().unwrap().contains("does not declare io.modelcontextprotocol/tasks"));
    }
}

#[test]
fn a_tool_the_profile_may_not_call_gets_no_call_with_the_extension_either() {
    // `purge` is not annotated read-only and ends the server if it is ever called.
    let (_, report) = run("good");
    let called: Vec<&str> = report["called"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(called, ["export", "export_broken"], "{report:#}");
    assert!(report["skipped"].as_array().unwrap().iter().any(|skipped| skipped["tool"] == "purge"), "{report:#}");
    assert_eq!(mcp_statuses(&report)["mcp-survives"], "PASS", "purge was never called: {report:#}");
}

/// broken_tasks_server.py `--http` in `mode`; killed on drop.
struct HttpFixture {
    child: Child,
    url: String,
}

impl HttpFixture {
    fn start(mode: &str) -> HttpFixture {
        let mut child = Command::new("python3")
            .arg(repo().join("fixtures/mcp/broken_tasks_server.py"))
            .args(["--http", "--mode", mode])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut first = String::new();
        BufReader::new(child.stderr.take().expect("stderr")).read_line(&mut first).expect("its first line");
        let url = first.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{first:?}")).to_owned();
        HttpFixture { child, url }
    }

    fn report(&self, extra: &[&str]) -> Value {
        let mut args = vec!["--url", &self.url, "--bearer", "alice-token", "--timeout", "5000"];
        args.extend_from_slice(extra);
        mcp_report(&args).1
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_http_another_identitys_task_must_be_answered_as_an_unknown_id() {
    let modes = ["good", "auth-binding", "auth-binding-message"];
    let handles: Vec<_> = modes
        .into_iter()
        .map(|mode| {
            std::thread::spawn(move || {
                let fixture = HttpFixture::start(mode);
                (mode, fixture.report(&["--bearer-second", "bob-s3cr3t"]), fixture.report(&[]))
            })
        })
        .collect();
    for handle in handles {
        let (mode, report, alone) = handle.join().unwrap();
        let statuses = tasks_statuses(&report);
        let wanted = if mode == "good" { "PASS" } else { "FAIL" };
        assert_eq!(statuses["mcp-tasks-auth-binding"], wanted, "{mode}: {report:#}");
        for (id, status) in statuses.iter().filter(|(id, _)| *id != "mcp-tasks-auth-binding") {
            assert_eq!(status, "PASS", "{mode}: {id}: {report:#}");
        }
        assert!(!report.to_string().contains("bob-s3cr3t"), "the second token never reaches the report");
        let skipped = check(&alone, "mcp-tasks-auth-binding");
        assert_eq!(skipped["status"], "SKIP", "{mode}: {alone:#}");
        assert!(skipped["reason"].as_str().unwrap().starts_with("no --bearer-second"), "{skipped:#}");
    }
}

#[test]
fn bearer_second_is_a_second_identity_beside_bearer_over_http() {
    let ran = run_callproof(&["mcp", "--url", "http://127.0.0.1:9/mcp", "--bearer-second", "bob"]);
    assert_eq!(ran.code, 2, "{ran:?}");
    assert!(ran.stderr.contains("a second identity beside --bearer"), "{}", ran.stderr);
    let stdio = run_callproof(&["mcp", "--server", "python3 x.py", "--bearer", "a", "--bearer-second", "b"]);
    assert_eq!(stdio.code, 2, "{stdio:?}");
    let empty = run_callproof(&["mcp", "--url", "http://127.0.0.1:9/mcp", "--bearer", "a", "--bearer-second", ""]);
    assert!(empty.code == 2 && empty.stderr.contains("--bearer-second: the bearer token is empty"), "{empty:?}");
}
