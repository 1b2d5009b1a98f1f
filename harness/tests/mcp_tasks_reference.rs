//! The reference executor as an MCP server against the profile's Tasks checks: `callproof mcp` over stdio in
//! 2026-07-28, allowed to call `export_account_data` (the task tool), with a mocked downstream holding the
//! account the generated base input names and the caller's context in `--meta`.
//!
//! Over Streamable HTTP with two tenants' tokens, `mcp-tasks-auth-binding` is judged too.
//!
//! Rule enforced here: the reference passes every `mcp-tasks-*` check the profile judges it on (the task is
//! created, polled to its end and cancelled; another tenant's poll is answered as an unknown id), and a
//! 2025-11-25 run has none of them.

mod process_support;

use callproof_harness::mock::MockDownstream;
use callproof_harness::world::{Account, Behaviour, Fixtures, World};
use process_support::{executor_binary, mcp_report, mcp_statuses, spawn_http_reference};
use serde_json::json;
use std::sync::Arc;

const CONTEXT: &str = r#"{"io.callproof/context":{"auth":{"subject_id":"u_alice","tenant_id":"t_acme","roles":[],"identity":{"valid":true},"scopes":["exports:read","exports:write"]}}}"#;

/// The account the profile's generated base input names (the first string `^acct_[A-Za-z0-9]+$` allows).
fn world() -> Arc<World> {
    let account = Account {
        account_id: "acct_A".to_owned(),
        tenant_id: "t_acme".to_owned(),
        owner_id: "u_alice".to_owned(),
        closed: false,
    };
    let fixtures = Fixtures { orders: Vec::new(), accounts: vec![account] };
    Arc::new(World::new(&fixtures, Behaviour { honours_idempotency_key: true, checks_refundable_amount: true }))
}

/// The statuses of the `mcp-tasks-*` checks when the profile runs against the reference in `revision`.
fn tasks_statuses(revision: &str) -> (serde_json::Value, Vec<(String, String)>) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the downstream");
    let downstream = runtime.block_on(MockDownstream::start(world()));
    let server = format!(
        "env CALLPROOF_DOWNSTREAM_URL={} '{}' --mcp --store memory",
        downstream.uri(),
        executor_binary().display()
    );
    let args = ["--server", &server, "--call", "export_account_data", "--mcp-revision", revision, "--meta", CONTEXT];
    let (code, report) = mcp_report(&args);
    runtime.block_on(downstream.stop());
    assert!(code == 0 || code == 1, "exit code {code}: {report:#}");
    let tasks = mcp_statuses(&report).into_iter().filter(|(id, _)| id.starts_with("mcp-tasks-")).collect();
    (report, tasks)
}

#[test]
fn the_reference_passes_every_tasks_check_it_is_judged_on_in_2026_07_28() {
    let (report, tasks) = tasks_statuses("2026-07-28");
    assert!(!tasks.is_empty(), "the profile has tasks checks: {report:#}");
    let failed: Vec<&(String, String)> =
        tasks.iter().filter(|(_, status)| status == "FAIL" || status == "WARN").collect();
    assert!(failed.is_empty(), "{failed:?}\n{report:#}");
    let passed: Vec<&str> = tasks.iter().filter(|(_, status)| status == "PASS").map(|(id, _)| id.as_str()).collect();
    for judged in
        ["mcp-tasks-capability", "mcp-tasks-result-type", "mcp-tasks-durable-handle", "mcp-tasks-terminal-stable"]
    {
        assert!(passed.contains(&judged), "{judged} judged and passed: {tasks:?}\n{report:#}");
    }
}

#[test]
fn in_2025_11_25_no_tasks_check_is_judged() {
    // Like the other 2026-07-28 checks, the Tasks checks are not part of a 2025-11-25 run at all.
    let (report, tasks) = tasks_statuses("2025-11-25");
    assert_eq!(report["revision"], "2025-11-25", "{report:#}");
    assert!(tasks.is_empty(), "{tasks:?}\n{report:#}");
}

const KEY: &str = "dGFza3MtYXV0aC1iaW5kaW5nLWtleS1vZi10aGlzLXJ1bg";

/// A bearer token of the reference's key for `subject_id` of `tenant_id`, with the export scopes.
fn token(url: &str, subject_id: &str, tenant_id: &str) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("now").as_secs();
    let claims = json!({"iss": "callproof", "aud": url, "sub": subject_id, "tenant_id": tenant_id, "iat": now,
        "exp": now + 600, "jti": subject_id, "scope": "exports:read exports:write", "roles": []});
    callproof_harness::mcp::token::sign(KEY.as_bytes(), &claims)
}

#[test]
fn over_http_another_tenants_poll_of_the_references_task_is_answered_as_an_unknown_id() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the downstream");
    let downstream = runtime.block_on(MockDownstream::start(world()));
    let (mut child, url) = spawn_http_reference(KEY, Some(&downstream.uri()));
    let (alice, mallory) = (token(&url, "u_alice", "t_acme"), token(&url, "u_mallory", "t_globex"));
    let args = ["--url", &url, "--bearer", &alice, "--bearer-second", &mallory, "--call", "export_account_data"];
    let (code, report) = mcp_report(&[&args[..], &["--mcp-revision", "2026-07-28"]].concat());
    let _ = child.kill();
    let _ = child.wait();
    runtime.block_on(downstream.stop());
    assert!(code == 0 || code == 1, "exit code {code}: {report:#}");
    let statuses = mcp_statuses(&report);
    let tasks: Vec<(&String, &String)> = statuses.iter().filter(|(id, _)| id.starts_with("mcp-tasks-")).collect();
    assert_eq!(statuses.get("mcp-tasks-auth-binding").map(String::as_str), Some("PASS"), "{tasks:?}\n{report:#}");
    assert!(
        tasks.iter().all(|(_, status)| *status == "PASS"),
        "every tasks check judged over HTTP: {tasks:?}\n{report:#}"
    );
}
