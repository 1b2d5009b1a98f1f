//! The task scenarios over MCP (docs/mcp.md, "The conformance app's task tool over MCP"): in 2026-07-28 the
//! reference declares `io.modelcontextprotocol/tasks`, so `conform --mcp` submits the export declaring the
//! extension, polls with `tasks/get` and cancels with `tasks/cancel`; in 2025-11-25 the task tools are called
//! like any other tool. Both pass every task scenario (the crash one over a SQLite store).
//!
//! Rule enforced here: the mapping is really taken (the server's input, recorded by `tee`, holds the task
//! methods and the declared extension, and no `tools/call` of a poll or a cancel), and what it reads back
//! is judged like any answer: every check of the five scenarios passes, none is skipped.

mod process_support;

use process_support::{TempDir, executor_binary, run_callproof};
use serde_json::Value;
use std::path::Path;

/// Runs the task scenarios against the reference over stdio in `revision`, recording the server's input in
/// `input`; the report's failed checks and skipped scenarios, and the exit code.
fn conform_tasks(dir: &TempDir, revision: &str, input: &Path) -> (i32, Vec<String>, Value) {
    let server = format!(
        "sh -c 'tee -a {} | exec {} --mcp --store sqlite:{}'",
        input.display(),
        executor_binary().display(),
        dir.join(&format!("{revision}.sqlite3")).display()
    );
    let args = ["conform", "scenarios/tasks", "--mcp", &server, "--mcp-revision", revision, "--format", "json"];
    let ran = run_callproof(&args);
    let report: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("not a JSON report ({error}):\n{}\nstderr:\n{}", ran.stdout, ran.stderr));
    let mut problems = Vec::new();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        let id = scenario["id"].as_str().unwrap_or("?");
        if scenario["status"] != "pass" {
            problems.push(format!("{id}: {}", scenario["status"]));
        }
        for check in scenario["checks"].as_array().into_iter().flatten().filter(|check| check["status"] == "fail") {
            problems.push(format!("{id} {}", check["id"].as_str().unwrap_or("?")));
        }
    }
    (ran.code, problems, report)
}

/// The server's input lines as JSON, in order.
fn lines(input: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(input).expect("the recorded input");
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

fn method(line: &Value) -> &str {
    line["method"].as_str().unwrap_or("")
}

fn tool(line: &Value) -> &str {
    line.pointer("/params/name").and_then(Value::as_str).unwrap_or("")
}

#[test]
fn in_2026_07_28_the_task_scenarios_pass_through_tasks_get_and_tasks_cancel() {
    let dir = TempDir::new();
    let input = dir.join("input.jsonl");
    let (code, problems, report) = conform_tasks(&dir, "2026-07-28", &input);
    assert_eq!((code, problems), (0, Vec::<String>::new()), "{report:#}");
    assert_eq!(report["scenarios"].as_array().map(Vec::len), Some(10), "every task scenario ran");
    let lines = lines(&input);
    let count = |wanted: &str| lines.iter().filter(|line| method(line) == wanted).count();
    assert!(
        count("tasks/get") >= 5 && count("tasks/cancel") >= 3,
        "get {}, cancel {}",
        count("tasks/get"),
        count("tasks/cancel")
    );
    let polled_as_tools =
        lines.iter().filter(|line| method(line) == "tools/call" && tool(line).starts_with("task_")).count();
    assert_eq!(polled_as_tools, 0, "no poll or cancel went as a tools/call");
    let capabilities = "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions";
    let declares = |line: &Value| {
        line.pointer(capabilities).and_then(|extensions| extensions.get("io.modelcontextprotocol/tasks")).is_some()
    };
    let submissions: Vec<&Value> = lines.iter().filter(|line| tool(line) == "export_account_data").collect();
    assert!(!submissions.is_empty() && submissions.iter().all(|line| declares(line)), "every submission declares it");
    assert!(lines.iter().filter(|line| method(line).starts_with("tasks/")).all(declares));
    let others = lines.iter().filter(|line| method(line) == "tools/call" && tool(line) != "export_account_data");
    assert!(others.clone().all(|line| !declares(line)), "only the submission declares the extension");
}

#[test]
fn in_2025_11_25_the_task_tools_are_called_like_any_tool_and_pass_too() {
    let dir = TempDir::new();
    let input = dir.join("input.jsonl");
    let (code, problems, report) = conform_tasks(&dir, "2025-11-25", &input);
    assert_eq!((code, problems), (0, Vec::<String>::new()), "{report:#}");
    let lines = lines(&input);
    assert!(lines.iter().all(|line| !method(line).starts_with("tasks/")));
    assert!(
        lines.iter().any(|line| tool(line) == "task_status") && lines.iter().any(|line| tool(line) == "task_cancel")
    );
}
