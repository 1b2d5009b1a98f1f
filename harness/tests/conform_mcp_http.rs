//! `callproof conform --mcp-http CMD` and `--mcp-url URL --mcp-token-key-file FILE`: the scenario suite with the
//! executor as an MCP server over Streamable HTTP, the identity in a bearer JWT per call (docs/mcp.md, Part 1).
//!
//! Rule enforced here: a real token-verifying server (examples/mcp-python, the official Python SDK 2.x with
//! PyJWT) passes the identity scenarios through the tokens alone (a bad signature, a token for another
//! audience and an expired token are refused with 401 and read as `unauthorized`; scopes, tenants and approvals
//! come from the claims), and its known mistake (duplicate keys accepted) still shows, as does the audience
//! check switched off (examples/mcp-buggy/conform); a server the harness did not start gets the
//! scenario's downstream and session in the token and skips crash scenarios; the reference
//! `callproof-executor --mcp-http` passes, once the server side is merged. The SDK server is skipped with a
//! loud SKIPPED line when its venv is missing (a failure under `CALLPROOF_REQUIRE_SERVICES=1`).

mod process_support;

use process_support::{INSTALL_MCP_PYTHON, TempDir, executor_binary, present, repo, run_callproof};
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PYTHON: &str = "target/mcp-python-venv/bin/python";

/// The command of `examples/mcp-buggy/conform/<module>.py`, the Python SDK example with one bug, over HTTP.
fn buggy_server(module: &str) -> String {
    let path = repo().join("examples/mcp-buggy/conform").join(format!("{module}.py"));
    format!("'{}' '{}' --http", repo().join(PYTHON).display(), path.display())
}

fn python_server() -> String {
    format!("'{}' '{}' --http", repo().join(PYTHON).display(), repo().join("examples/mcp-python/server.py").display())
}

/// `callproof conform SCENARIOS... ARGS... --format json`: the exit code, each scenario's status, and the
/// failed checks as `scenario check`.
fn conform(scenarios: &[&str], args: &[&str]) -> (i32, BTreeMap<String, String>, Vec<String>, String) {
    let mut all = vec!["conform"];
    let paths: Vec<String> = scenarios.iter().map(|name| format!("scenarios/{name}.toml")).collect();
    all.extend(paths.iter().map(String::as_str));
    all.extend_from_slice(args);
    if !args.contains(&"--mcp-revision") {
        // What these tests pin is 2025-11-25 (sessions); 2026-07-28 is asked for by name.
        all.extend_from_slice(&["--mcp-revision", "2025-11-25"]);
    }
    all.extend_from_slice(&["--format", "json"]);
    let ran = run_callproof(&all);
    let report: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("not a JSON report ({error}):\n{}\nstderr:\n{}", ran.stdout, ran.stderr));
    let mut statuses = BTreeMap::new();
    let mut failed = Vec::new();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        let id = scenario["id"].as_str().expect("id").to_owned();
        for check in scenario["checks"].as_array().into_iter().flatten() {
            if check["status"] == "fail" {
                failed.push(format!("{id} {}", check["id"].as_str().unwrap_or("?")));
            }
        }
        statuses.insert(id, scenario["status"].as_str().expect("status").to_owned());
    }
    (ran.code, statuses, failed, ran.stdout)
}

#[test]
fn the_python_sdk_server_passes_the_identity_scenarios_through_its_tokens_and_still_accepts_duplicate_keys() {
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let identity = [
        "auth/identity_invalid_or_expired",
        "auth/missing_scope",
        "auth/foreign_order_forbidden",
        "auth/approval_bound_to_arguments",
        "auth/tool_not_allowed",
        "decode/truncated_arguments",
    ];
    let mut scenarios = identity.to_vec();
    scenarios.push("decode/duplicate_keys");
    let (code, statuses, failed, report) = conform(&scenarios, &["--mcp-http", &python_server()]);
    assert_eq!(code, 1, "decode/duplicate_keys fails: {report}");
    for id in identity {
        assert_eq!(statuses.get(id).map(String::as_str), Some("pass"), "{id}: {failed:?}\n{report}");
    }
    // `"amount":1,…,"amount":90`: the SDK keeps the last key and refunds, over HTTP as over stdio.
    assert!(failed.contains(&"decode/duplicate_keys malformed-input-refused".to_owned()), "{failed:?}");
    let report: Value = serde_json::from_str(&report).expect("JSON");
    let subject = report["executor"]["subject"].as_str().unwrap_or_default();
    assert!(subject.starts_with("mcp-http: "), "{subject}");
}

#[test]
fn a_server_that_does_not_check_the_tokens_audience_accepts_the_token_for_another_server_and_fails() {
    // examples/mcp-buggy/conform/audience_unchecked.py: the same server with PyJWT's audience check switched off.
    // The scenario's first two invalid identities are a bad signature, then the run's key for another audience.
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let buggy = buggy_server("audience_unchecked");
    let (code, statuses, failed, report) = conform(&["auth/identity_invalid_or_expired"], &["--mcp-http", &buggy]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(failed, ["auth/identity_invalid_or_expired expectations"], "{report}");
    assert!(report.contains("step 4"), "the second invalid identity, the foreign audience, got through: {report}");
    assert_eq!(statuses.get("auth/identity_invalid_or_expired").map(String::as_str), Some("fail"));
}

#[test]
fn a_server_that_skips_the_issuer_or_accepts_another_algorithm_lets_that_invalid_token_through_and_fails() {
    // examples/mcp-buggy/conform/issuer_unchecked.py and algorithm_unpinned.py (blind round 17). The scenario's
    // four invalid identities are a bad signature, another audience, another issuer and HS512, in that order
    // (steps 2, 4, 5 and 6), each refused by one verification step alone.
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    for (server, step) in [("issuer_unchecked", "step 5"), ("algorithm_unpinned", "step 6")] {
        let (code, _, failed, report) =
            conform(&["auth/identity_invalid_or_expired"], &["--mcp-http", &buggy_server(server)]);
        assert_eq!(code, 1, "{server}: {report}");
        assert_eq!(failed, ["auth/identity_invalid_or_expired expectations"], "{server}: {report}");
        assert!(report.contains(step), "{server}: the invalid token of {step} got through: {report}");
        for other in ["step 2", "step 4"] {
            assert!(!report.contains(&format!("{other}: ")), "{server}: only its own token got through: {report}");
        }
    }
}

#[test]
fn a_server_that_takes_the_caller_from_the_context_over_http_fails_the_auth_scenarios() {
    // examples/mcp-buggy/conform/context_auth_over_http.py: `_meta` auth wins over the token's claims (blind round
    // 15). Every tools/call over HTTP carries a forged auth with every scope and the role support_admin.
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let scenarios = ["auth/missing_scope", "auth/other_owner_same_tenant"];
    let (code, _, failed, report) = conform(&scenarios, &["--mcp-http", &buggy_server("context_auth_over_http")]);
    assert_eq!(code, 1, "{report}");
    for scenario in scenarios {
        assert!(failed.contains(&format!("{scenario} expectations")), "{scenario}: {failed:?}");
    }
    let honest = format!(
        "'{}' '{}' --http",
        repo().join(PYTHON).display(),
        repo().join("examples/mcp-python/server.py").display()
    );
    let (code, _, failed, report) = conform(&scenarios, &["--mcp-http", &honest]);
    assert_eq!((code, failed.len()), (0, 0), "the example takes the caller from the token only: {report}");
}

#[test]
fn a_refusal_logged_to_the_client_over_http_fails_no_secret_leak() {
    // examples/mcp-buggy/conform/refusal_logged_to_client.py: every refused call's arguments go to the client as a
    // notifications/message, which over HTTP rides the call's own event stream.
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let buggy = buggy_server("refusal_logged_to_client");
    let scenario = "downstream/failed_email_keeps_its_body_private";
    let (code, _, failed, report) = conform(&[scenario], &["--mcp-http", &buggy]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(failed, [format!("{scenario} no-secret-leak")], "{report}");
    assert!(report.contains("notifications/message"), "the violation names the notification: {report}");
}

#[test]
fn a_debug_log_of_the_arguments_fails_no_secret_leak_once_conform_asks_every_http_session_for_debug() {
    // examples/mcp-buggy/conform/debug_log_carries_arguments.py logs each call's arguments at the debug level,
    // which it sends only after a session's logging/setLevel asks for it: conform asks each session it opens.
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let buggy = buggy_server("debug_log_carries_arguments");
    let scenario = "downstream/failed_email_keeps_its_body_private";
    let (code, _, failed, report) = conform(&[scenario], &["--mcp-http", &buggy, "--mcp-revision", "2025-11-25"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(failed, [format!("{scenario} no-secret-leak")], "{report}");
}

#[test]
fn a_server_that_logs_its_callers_bearer_token_fails_no_secret_leak() {
    // examples/mcp-buggy/conform/token_logged_to_client.py: each call logs "authenticated with bearer <token>".
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let scenario = "auth/other_owner_same_tenant";
    let (code, _, failed, report) = conform(&[scenario], &["--mcp-http", &buggy_server("token_logged_to_client")]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(failed, [format!("{scenario} no-secret-leak")], "{report}");
    assert!(report.contains("carries a bearer token the harness sent"), "{report}");
    let (code, _, failed, report) = conform(&[scenario], &["--mcp-http", &python_server()]);
    assert!(code == 0 && failed.is_empty(), "{report}");
}

#[test]
fn a_server_whose_store_is_per_session_executes_a_retry_on_a_new_session_again() {
    // examples/mcp-buggy/conform/store_per_session.py keeps a pipeline per MCP session; conform opens a session
    // per attempt, as a client that reconnects before it retries (2025-11-25: 2026-07-28 has no sessions).
    if !present(PYTHON, "the Python SDK server through conform --mcp-http", INSTALL_MCP_PYTHON) {
        return;
    }
    let scenario = "idempotency/duplicate_refund_after_lost_response";
    let legacy = ["--mcp-revision", "2025-11-25"];
    let (code, _, failed, report) =
        conform(&[scenario], &["--mcp-http", &buggy_server("store_per_session"), legacy[0], legacy[1]]);
    assert_eq!(code, 1, "{report}");
    assert!(failed.contains(&format!("{scenario} single-effect")), "{failed:?}: {report}");
    let (code, _, failed, report) = conform(&[scenario], &["--mcp-http", &python_server(), legacy[0], legacy[1]]);
    assert!(code == 0 && failed.is_empty(), "{report}");
}

/// The example server started by the test, as an operator would run it for `--mcp-url`: its own URL and the
/// key in its environment, no downstream (each call's comes from the token); killed on drop.
struct Running {
    child: Child,
    url: String,
}

impl Running {
    fn start(key: &str) -> Running {
        let server = repo().join("examples/mcp-python/server.py").display().to_string();
        Running::command(&repo().join(PYTHON), &[&server, "--http"], key)
    }

    /// `program ARGS...` with `--mcp-http`'s environment, waited for until its port accepts connections.
    fn command(program: &std::path::Path, args: &[&str], key: &str) -> Running {
        let port = process_support::server_port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let child = Command::new(program)
            .args(args)
            .env("CALLPROOF_MCP_URL", &url)
            .env("CALLPROOF_TOKEN_KEY", key)
            .env_remove("CALLPROOF_DOWNSTREAM_URL")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let running = Running { child, url };
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "the server did not listen on {port} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_the_harness_did_not_start_gets_downstream_and_session_in_the_token_and_skips_crashes() {
    if !present(PYTHON, "the Python SDK server through conform --mcp-url", INSTALL_MCP_PYTHON) {
        return;
    }
    let dir = TempDir::new();
    let key = "a-key-the-operator-configured-0123456789abc";
    let key_file = dir.join("key");
    std::fs::write(&key_file, format!("{key}\n")).expect("the key file");
    let server = Running::start(key);
    let key_file = key_file.display().to_string();
    let scenarios = ["auth/identity_invalid_or_expired", "auth/missing_scope", "idempotency/crash_after_commit"];
    let (code, statuses, failed, report) =
        conform(&scenarios, &["--mcp-url", &server.url, "--mcp-token-key-file", &key_file]);
    assert_eq!(code, 0, "{failed:?}\n{report}");
    assert_eq!(statuses["auth/identity_invalid_or_expired"], "pass", "{report}");
    // missing_scope's second call succeeds only if the server reached the scenario's downstream (cp_downstream_url).
    assert_eq!(statuses["auth/missing_scope"], "pass", "{report}");
    assert_eq!(statuses["idempotency/crash_after_commit"], "skip", "{report}");
    // With another key every token fails verification: the handshake is refused with 401, before any scenario.
    let wrong = dir.join("wrong");
    std::fs::write(&wrong, "not-the-servers-key").expect("a key file");
    let wrong = wrong.display().to_string();
    let ran =
        run_callproof(&["conform", "auth/missing_scope", "--mcp-url", &server.url, "--mcp-token-key-file", &wrong]);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(ran.stderr.contains("HTTP 401"), "{}", ran.stderr);
}

#[test]
fn one_reference_server_with_a_memory_store_keeps_each_runs_records_apart() {
    // Every scenario reuses business request ids such as req_refund_1: one server for all of them, with one
    // memory store, passes only if each run's session (the token's cp_session) keeps its records apart.
    let dir = TempDir::new();
    let key = "a-key-the-operator-configured-0123456789abc";
    let key_file = dir.join("key");
    std::fs::write(&key_file, key).expect("the key file");
    let server = Running::command(&executor_binary(), &["--mcp-http", "--store", "memory"], key);
    let key_file = key_file.display().to_string();
    let scenarios = [
        "idempotency/duplicate_refund_after_lost_response",
        "idempotency/timeout_after_commit_reconciles",
        "idempotency/changed_arguments_conflict",
        "idempotency/late_landing_after_lost_answer",
        "idempotency/identical_resubmission",
        "idempotency/new_request_new_refund",
    ];
    let (code, statuses, failed, report) =
        conform(&scenarios, &["--mcp-url", &server.url, "--mcp-token-key-file", &key_file, "--jobs", "1"]);
    assert_eq!(code, 0, "{failed:?}\n{report}");
    for id in scenarios {
        assert_eq!(statuses.get(id).map(String::as_str), Some("pass"), "{id}\n{report}");
    }
}

#[test]
fn mcp_url_needs_its_key_file_and_the_key_file_needs_mcp_url() {
    let no_key = run_callproof(&["conform", "--mcp-url", "http://127.0.0.1:1/mcp"]);
    assert_eq!(no_key.code, 2, "{}", no_key.stderr);
    assert!(no_key.stderr.contains("--mcp-token-key-file"), "{}", no_key.stderr);
    let no_url = run_callproof(&["conform", "--mcp-http", "x", "--mcp-token-key-file", "k"]);
    assert_eq!(no_url.code, 2, "{}", no_url.stderr);
    let both = run_callproof(&["conform", "--mcp", "x", "--mcp-http", "y"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let missing = run_callproof(&["conform", "auth/missing_scope", "--mcp-http", "./no/such/server"]);
    assert_eq!(missing.code, 3, "{}", missing.stderr);
}

#[test]
fn the_reference_over_mcp_http_passes_identity_decode_burst_and_crash_scenarios() {
    // `--mcp-http` without an address listens where CALLPROOF_MCP_URL says.
    let dir = TempDir::new();
    let binary = executor_binary();
    let command =
        format!("'{}' --mcp-http --store sqlite:{}", binary.display(), dir.join("mcp-http.sqlite3").display());
    let scenarios = [
        "idempotency/duplicate_refund_after_lost_response",
        "idempotency/burst_of_identical_calls",
        "idempotency/crash_after_commit",
        "auth/missing_scope",
        "auth/identity_invalid_or_expired",
        "auth/approval_bound_to_arguments",
        "decode/duplicate_keys",
        "decode/malformed_corpus",
        "decode/truncated_arguments",
    ];
    let (code, statuses, failed, report) = conform(&scenarios, &["--mcp-http", &command]);
    assert_eq!(code, 0, "{failed:?}\n{report}");
    for id in scenarios {
        assert_eq!(statuses.get(id).map(String::as_str), Some("pass"), "{id}\n{report}");
    }
}

#[test]
fn the_reference_over_mcp_http_in_2026_07_28_passes_without_sessions() {
    let dir = TempDir::new();
    let binary = executor_binary();
    let command =
        format!("'{}' --mcp-http --store sqlite:{}", binary.display(), dir.join("mcp-modern.sqlite3").display());
    let scenarios = [
        "idempotency/burst_of_identical_calls",
        "idempotency/crash_after_commit",
        "auth/identity_invalid_or_expired",
        "decode/truncated_arguments",
        // Through the Tasks mapping: tasks/get and tasks/cancel, whose Mcp-Name must be the task id (the
        // reference refuses a mismatch with -32020 before anything runs), under each call's own token.
        "tasks/foreign_or_unknown_handle",
        "tasks/cancel_races_completion",
        "tasks/poll_after_crash",
    ];
    let (code, statuses, failed, report) =
        conform(&scenarios, &["--mcp-http", &command, "--mcp-revision", "2026-07-28"]);
    assert_eq!(code, 0, "{failed:?}\n{report}");
    for id in scenarios {
        assert_eq!(statuses.get(id).map(String::as_str), Some("pass"), "{id}\n{report}");
    }
    assert!(report.contains("\"mcp 2026-07-28\""), "the report names the revision: {report}");
}
