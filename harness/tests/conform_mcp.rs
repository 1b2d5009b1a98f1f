//! `callproof conform --mcp`: the scenario suite with the executor as an MCP server over stdio (docs/mcp.md,
//! Part 1).
//!
//! Rule enforced here: the reference `callproof-executor --mcp` passes a subset of every kind of scenario
//! (idempotency, auth, decode, a burst, a crash over a durable store) with no failure, and the malformed
//! corpus too, where texts that are not JSON can only be refused with -32700 (judged as refusals); and the
//! official Python SDK server's mistakes (duplicate keys and `"100"` accepted and executed, a malformed line
//! dropped, an unknown tool answered without an envelope) are seen. The SDK server is skipped with a loud
//! SKIPPED line when its venv is missing, as in mcp_sdk_servers.rs. Every mutant over MCP is caught in
//! conform_mcp_mutants.rs.

mod process_support;

use callproof_executor::{AuthContext, ToolCall};
use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::mcp::McpFactory;
use callproof_harness::mcp::revision::Revision;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::{SubjectCall, SubjectFactory};
use process_support::{
    INSTALL_MCP_PYTHON, INSTALL_MCP_TYPESCRIPT, TempDir, executor_binary, present, repo, run_callproof,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

const PYTHON: &str = "target/mcp-python-venv/bin/python";

/// The command of `examples/mcp-buggy/conform/<module>.py`, the Python SDK example with one bug.
fn buggy_server(module: &str) -> String {
    let path = repo().join("examples/mcp-buggy/conform").join(format!("{module}.py"));
    format!("'{}' '{}'", repo().join(PYTHON).display(), path.display())
}

fn scenarios(names: &[&str]) -> Vec<Scenario> {
    let paths: Vec<_> = names.iter().map(|name| repo().join("scenarios").join(format!("{name}.toml"))).collect();
    Scenario::discover(&paths).expect("the scenarios load")
}

/// `"<reference binary> --mcp <args>"`, quoted for the command splitter.
fn reference_mcp(args: &str) -> String {
    format!("'{}' --mcp {args}", executor_binary().display())
}

async fn run(command: &str, names: &[&str]) -> conform::Report {
    run_in(Revision::Legacy, command, names).await
}

/// [`run`] speaking `revision`.
async fn run_in(revision: Revision, command: &str, names: &[&str]) -> conform::Report {
    let factory = Arc::new(McpFactory::new(command).expect("a command").with_revision(revision));
    let capabilities = factory.probe().await.expect("the server starts");
    let options = Options { profile: Profile::All, jobs: 4, ..Options::default() };
    conform::run(factory, scenarios(names), Corpus::shipped(), &options, Some(capabilities), &|_: &ScenarioResult| {})
        .await
        .expect("the options are valid")
}

/// The checks that failed (as required failures), as `scenario check` lines.
fn failed(report: &conform::Report) -> BTreeSet<String> {
    report
        .scenarios
        .iter()
        .flat_map(|scenario| {
            scenario
                .checks
                .iter()
                .filter(|check| check.status == Status::Fail)
                .map(move |check| format!("{} {}", scenario.id, check.id))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_over_mcp_passes_idempotency_auth_decode_burst_and_crash_scenarios() {
    let dir = TempDir::new();
    let command = reference_mcp(&format!("--store sqlite:{}", dir.join("mcp.sqlite3").display()));
    let report = run(&command, &REFERENCE_SCENARIOS).await;
    assert_reference_passes(&report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_over_mcp_2026_07_28_passes_the_same_scenarios() {
    let dir = TempDir::new();
    let command = reference_mcp(&format!("--store sqlite:{}", dir.join("mcp.sqlite3").display()));
    let report = run_in(Revision::Modern, &command, &REFERENCE_SCENARIOS).await;
    assert_reference_passes(&report);
    let capabilities = report.executor.capabilities.as_ref().expect("probed");
    assert_eq!(capabilities.protocol, "mcp 2026-07-28", "the report names the revision");
}

/// Every kind of scenario: idempotency, a burst, a crash over a durable store, auth, decode.
const REFERENCE_SCENARIOS: [&str; 13] = [
    "idempotency/duplicate_refund_after_lost_response",
    "idempotency/burst_of_identical_calls",
    "idempotency/crash_after_commit",
    "auth/missing_scope",
    "auth/identity_invalid_or_expired",
    "auth/foreign_order_forbidden",
    "auth/approval_bound_to_arguments",
    "auth/tool_not_allowed",
    "decode/duplicate_keys",
    "decode/string_for_integer",
    "decode/unknown_tool",
    "decode/unknown_field_is_admin",
    "decode/parsed_arguments",
];

/// Every scenario judged and passed, and the durable store declared.
fn assert_reference_passes(report: &conform::Report) {
    assert!(report.passed(), "{}", conform::human::human(report));
    assert!(failed(report).is_empty(), "{:?}", failed(report));
    let judged: Vec<&str> =
        report.scenarios.iter().filter(|s| s.status == Status::Pass).map(|s| s.id.as_str()).collect();
    let names = report.scenarios.len();
    assert_eq!(judged.len(), names, "every scenario judged (none skipped, none expected to fail): {judged:?}");
    let capabilities = report.executor.capabilities.as_ref().expect("probed");
    assert!(capabilities.has("durable_store"), "declared in initialize's or server/discover's capabilities");
}

#[test]
fn the_reference_over_mcp_passes_the_malformed_corpus_with_parse_errors_judged_as_refusals() {
    // 33 corpus texts that are not JSON and the two 100 000-level nestings can only be answered -32700 (the
    // whole line is then not JSON): refusals that satisfy invalid_json and invalid_arguments, with no details.
    let command = reference_mcp("--store memory");
    // In 2026-07-28 the liveness request after each such line is server/discover, not ping.
    for revision in ["2025-11-25", "2026-07-28"] {
        let ran = run_callproof(&[
            "conform",
            "scenarios/decode/malformed_corpus.toml",
            "scenarios/decode/truncated_arguments.toml",
            "--mcp",
            &command,
            "--format",
            "json",
            "--mcp-revision",
            revision,
        ]);
        assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
        let report: Value = serde_json::from_str(&ran.stdout).expect("a JSON report");
        assert!(report["executor"]["subject"].as_str().is_some_and(|name| name.starts_with("mcp: ")), "{report}");
        let statuses: Vec<(&str, &str)> = report["scenarios"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|scenario| Some((scenario["id"].as_str()?, scenario["status"].as_str()?)))
            .collect();
        assert_eq!(statuses.len(), 2, "{report}");
        assert!(statuses.iter().all(|(_, status)| *status == "pass"), "{revision}: {statuses:?}");
    }
}

#[test]
fn mcp_and_executor_are_one_or_the_other() {
    let both = run_callproof(&["conform", "--executor", "x", "--mcp", "y"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let neither = run_callproof(&["conform"]);
    assert_eq!(neither.code, 2, "{}", neither.stderr);
    let missing = run_callproof(&["conform", "--mcp", "./no/such/server"]);
    assert_eq!(missing.code, 3, "{}", missing.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_amount_is_a_float_refunds_a_fraction_and_fails_malformed_input_refused() {
    // examples/mcp-buggy/conform/amount_typed_float.py (blind round 17): `amount: float`, so 30.5 passes the SDK's
    // validation and, within the refundable amount, is refunded. The example refuses it through the SDK (an
    // `isError` result without an envelope), which fails only the envelope's checks.
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let scenario = ["decode/fraction_for_integer"];
    let example = failed(&run(&python_server(), &scenario).await);
    let expected: BTreeSet<String> = ["envelope-schema", "expectations"]
        .iter()
        .map(|check| format!("decode/fraction_for_integer {check}"))
        .collect();
    assert_eq!(example, expected, "the example refuses 30.5, without an envelope");
    let buggy = failed(&run(&buggy_server("amount_typed_float"), &scenario).await);
    assert!(buggy.contains("decode/fraction_for_integer malformed-input-refused"), "30.5 was refunded: {buggy:?}");
    assert!(!buggy.contains("decode/fraction_for_integer envelope-schema"), "its answer is an envelope: {buggy:?}");
}

/// The TypeScript SDK example server, built by `npm run build` (scripts/test).
const TYPESCRIPT: &str = "examples/mcp-typescript/dist/server.js";

fn python_server() -> String {
    format!("'{}' '{}'", repo().join(PYTHON).display(), repo().join("examples/mcp-python/server.py").display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_executes_duplicate_keys_and_coerced_numbers() {
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let report = run(&python_server(), &["decode/duplicate_keys", "decode/string_for_integer"]).await;
    let failed = failed(&report);
    for wrong in [
        // "amount":1,…,"amount":90 (a valid value twice): the SDK keeps the last and refunds.
        "decode/duplicate_keys malformed-input-refused",
        "decode/duplicate_keys expectations",
        // "amount":"100" is coerced to 100 by pydantic and refunded.
        "decode/string_for_integer malformed-input-refused",
        "decode/string_for_integer expectations",
    ] {
        assert!(failed.contains(wrong), "the Python SDK server no longer fails {wrong}: {failed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deletion_that_claims_to_be_read_only_fails_annotations_match_risk_and_the_honest_server_passes_it() {
    // examples/mcp-buggy/conform/delete_claims_read_only.py: the Python SDK example with the read tools'
    // annotations on delete_account (blind round 14).
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let buggy = buggy_server("delete_claims_read_only");
    let scenarios = ["auth/approval_bound_to_arguments", "idempotency/retry_replays_success"];
    let failed_buggy = failed(&run(&buggy, &scenarios).await);
    assert!(
        failed_buggy.contains("auth/approval_bound_to_arguments annotations-match-risk"),
        "delete_account says readOnlyHint: true: {failed_buggy:?}"
    );
    assert!(
        !failed_buggy.contains("idempotency/retry_replays_success annotations-match-risk"),
        "a run that never calls delete_account does not judge its annotations: {failed_buggy:?}"
    );
    for honest in [python_server(), reference_mcp("--store memory")] {
        let failed = failed(&run(&honest, &scenarios).await);
        assert!(!failed.iter().any(|line| line.ends_with(" annotations-match-risk")), "{honest}: {failed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_logged_to_the_client_with_its_arguments_fails_no_secret_leak_in_both_revisions() {
    // examples/mcp-buggy/conform/refusal_logged_to_client.py: the Python SDK example that sends every refused
    // call's arguments to the client as a notifications/message (blind round 14). A 2026-07-28 server logs only
    // what a request opts in to, so this also holds conform to asking for every level.
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let buggy = buggy_server("refusal_logged_to_client");
    let scenarios = ["downstream/failed_email_keeps_its_body_private"];
    for revision in [Revision::Legacy, Revision::Modern] {
        let failed_buggy = failed(&run_in(revision, &buggy, &scenarios).await);
        assert!(
            failed_buggy.contains("downstream/failed_email_keeps_its_body_private no-secret-leak"),
            "{revision:?}: the log carries the private body: {failed_buggy:?}"
        );
    }
    for honest in [python_server(), reference_mcp("--store memory")] {
        let failed = failed(&run_in(Revision::Modern, &honest, &scenarios).await);
        assert!(!failed.iter().any(|line| line.ends_with(" no-secret-leak")), "{honest}: {failed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_debug_log_of_the_arguments_fails_no_secret_leak_once_conform_asks_for_the_debug_level() {
    // examples/mcp-buggy/conform/debug_log_carries_arguments.py sends its debug log (each call's arguments) only
    // after logging/setLevel asks for debug, which conform sends to a 2025-11-25 server that declares logging.
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let scenarios = ["downstream/failed_email_keeps_its_body_private"];
    let buggy = failed(&run_in(Revision::Legacy, &buggy_server("debug_log_carries_arguments"), &scenarios).await);
    assert!(buggy.contains("downstream/failed_email_keeps_its_body_private no-secret-leak"), "{buggy:?}");
    let honest = failed(&run_in(Revision::Legacy, &python_server(), &scenarios).await);
    assert!(!honest.iter().any(|line| line.ends_with(" no-secret-leak")), "{honest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_drops_a_malformed_line_and_answers_an_unknown_tool_without_an_envelope() {
    if !present(PYTHON, "the Python SDK server (examples/mcp-python) through conform --mcp", INSTALL_MCP_PYTHON) {
        return;
    }
    let factory = McpFactory::new(&python_server()).expect("a command");
    let subject = factory.start("http://127.0.0.1:9").await.expect("the server starts");
    let call = |name: &str, text: &str| SubjectCall {
        call: ToolCall::raw("call_1", name, text),
        auth: AuthContext::new("u_alice", "t_acme", &["refunds:write"]),
        business_request_id: Some("br_1".into()),
        attempt: 1,
        budget: Duration::from_secs(5),
    };
    let truncated = subject.execute(call("refund_order", r#"{"order_id":"ord_123","amount":"#)).await;
    let unknown = subject.execute(call("refund_orders", "{}")).await;
    subject.stop().await;
    let truncated = truncated.expect("the server survives the line");
    assert_eq!(truncated["mcp"], "dropped", "no -32700 for a line that is not JSON: {truncated}");
    let unknown = unknown.expect("an answer");
    assert_eq!(unknown["mcp"], "no envelope", "{unknown}");
    assert_eq!(unknown["result"]["isError"], true, "a tool result, not -32602: {unknown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_server_executes_duplicate_keys_and_an_integral_float_but_refuses_a_string() {
    if !present(
        TYPESCRIPT,
        "the TypeScript SDK server (examples/mcp-typescript) through conform --mcp",
        INSTALL_MCP_TYPESCRIPT,
    ) {
        return;
    }
    let server = format!("node '{}'", repo().join(TYPESCRIPT).display());
    let report = run(&server, &["decode/duplicate_keys", "decode/string_for_integer", "auth/missing_scope"]).await;
    let failed = failed(&report);
    for wrong in [
        // "amount":1,…,"amount":90: JSON.parse keeps the last and the app refunds it.
        "decode/duplicate_keys malformed-input-refused",
        "decode/duplicate_keys expectations",
        // "amount":100.0 is the number 100 to JSON.parse, an integer to zod: refunded.
        "decode/string_for_integer malformed-input-refused",
    ] {
        assert!(failed.contains(wrong), "the TypeScript SDK server no longer fails {wrong}: {failed:?}");
    }
    // zod refuses "amount":"100" (step 1) before the app runs; only step 2's 100.0 is refunded.
    let scenario = report.scenarios.iter().find(|scenario| scenario.id == "decode/string_for_integer").expect("run");
    let expectations = scenario.checks.iter().find(|check| check.id == "expectations").expect("judged");
    let said: Vec<&str> = expectations.violations.iter().map(|violation| violation.message.as_str()).collect();
    assert!(said.iter().any(|message| message.starts_with("step 2: ok: expected false, got true")), "{said:?}");
    assert!(!said.iter().any(|message| message.starts_with("step 1: ok")), "{said:?}");
    assert!(!failed.iter().any(|failure| failure.starts_with("auth/missing_scope")), "{failed:?}");
}
