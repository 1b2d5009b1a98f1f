//! `callproof mcp` against real servers: the reference executor (`--mcp`) passes every check; a server
//! written with the official Python SDK (fixtures/mcp/lax_server.py, mcp 1.30.0) fails what the SDK gets wrong,
//! each failure naming the request that shows it; fixtures/mcp/broken_server.py fails every other check. Where
//! Python 3 with the `mcp` package is missing the Python tests print a loud SKIPPED line and pass, unless
//! `CALLPROOF_REQUIRE_SERVICES=1` (CI), where the skip is a failure.

mod process_support;

use callproof_harness::mcp::{Calls, Options, Server};
use callproof_harness::mock::MockDownstream;
use callproof_harness::world::{Behaviour, Fixtures, World};
use process_support::{REQUIRE_VAR, executor_binary, mcp_report, mcp_statuses, run_callproof};
use serde_json::Value;
use std::io::Write;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// The failures of check `id`.
fn failures<'a>(report: &'a Value, id: &str) -> &'a Vec<Value> {
    let checks = report["checks"].as_array().expect("checks");
    let check = checks.iter().find(|check| check["id"] == id).unwrap_or_else(|| panic!("no check {id}"));
    check["failures"].as_array().expect("failures")
}

fn reference() -> String {
    format!("'{}' --mcp --store memory", executor_binary().display())
}

/// Whether `python3` has the official MCP SDK; a loud SKIPPED line when not (a failure under CI).
fn python_with_mcp(test: &str) -> bool {
    let output = Command::new("python3").args(["-c", "import mcp.server.fastmcp"]).output();
    let why = match output {
        Ok(output) if output.status.success() => return true,
        Ok(output) => format!("python3 has no `mcp` package ({})", String::from_utf8_lossy(&output.stderr).trim()),
        Err(error) => format!("python3 cannot be run ({error})"),
    };
    let fix = "python3 -m pip install -r fixtures/mcp/requirements.txt";
    assert!(std::env::var(REQUIRE_VAR).as_deref() != Ok("1"), "{test}: {why} and {REQUIRE_VAR}=1: {fix}");
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why} ({fix}; set {REQUIRE_VAR}=1 to fail instead)");
    false
}

#[test]
fn the_reference_executor_over_mcp_passes_every_check_with_call_all() {
    let (code, report) = mcp_report(&["--server", &reference(), "--call-all", "--mcp-revision", "2025-11-25"]);
    assert_eq!(code, 0, "{report:#}");
    for (id, status) in mcp_statuses(&report) {
        let judged_elsewhere = id == "mcp-output-conforms"; // no downstream: no call succeeds
        let http_only = id.starts_with("mcp-http-") || id.starts_with("mcp-auth-"); // judged in mcp_http.rs
        // It sends no progress notification and declares no resources: nothing to judge.
        let not_applicable = id == "mcp-progress-token" || id == "mcp-resource-not-found";
        assert!(
            status == "PASS" || ((judged_elsewhere || http_only || not_applicable) && status == "SKIP"),
            "{id} is {status}: {report:#}"
        );
    }
    assert_eq!(report["called"].as_array().expect("called").len(), 9, "{report:#}");
    assert_eq!(report["protocol_version"], "2025-11-25");
}

/// `callproof mcp` (the library) against the reference with `extra` options, its tools talking to the harness's
/// mocked downstream, calling `get_weather`; the report as JSON.
async fn against_a_downstream(extra: &str) -> Value {
    let world = Arc::new(World::new(
        &Fixtures::default(),
        Behaviour { honours_idempotency_key: true, checks_refundable_amount: true },
    ));
    let downstream = MockDownstream::start(world).await;
    let server = format!("env CALLPROOF_DOWNSTREAM_URL={} {} {extra}", downstream.uri(), reference());
    let calls = Calls::Named(["get_weather".to_owned()].into_iter().collect());
    let revision = callproof_harness::mcp::revision::Revision::Auto;
    let timeout = Duration::from_secs(10);
    let options =
        Options { server: Server::Command(server), calls, timeout, revision, bearer: None, meta: Default::default() };
    let report = callproof_harness::mcp::run(&options).await.expect("the reference starts");
    downstream.stop().await;
    serde_json::to_value(&report).expect("a report is JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_downstream_the_reference_answers_a_valid_call_with_structured_content_that_fits_its_output_schema() {
    let json = against_a_downstream("").await;
    assert!(mcp_statuses(&json).values().all(|status| status != "FAIL" && status != "WARN"), "{json:#}");
    assert_eq!(mcp_statuses(&json)["mcp-output-conforms"], "PASS", "{json:#}");
    let checks = json["checks"].as_array().expect("checks");
    let unknown = checks.iter().find(|check| check["id"] == "mcp-input-unknown-field").expect("unknown field");
    let (passed, inconclusive) = (unknown["passed"].as_u64(), unknown["inconclusive"].as_u64());
    assert!(
        passed > inconclusive,
        "get_weather's generated base should succeed, so its refusals are conclusive: {json:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_profile_catches_the_known_bad_decoders_served_over_mcp() {
    let extras = against_a_downstream("--mutant unknown-fields-ignored").await;
    assert_eq!(mcp_statuses(&extras)["mcp-input-unknown-field"], "FAIL", "{extras:#}");
    let request = failures(&extras, "mcp-input-unknown-field")[0]["request"].as_str().expect("request").to_owned();
    assert!(request.contains(r#""is_admin":true"#), "{request}");
    let duplicates = against_a_downstream("--mutant duplicate-keys-last-wins").await;
    assert_eq!(mcp_statuses(&duplicates)["mcp-input-duplicate-key"], "WARN", "{duplicates:#}");
}

#[test]
fn without_call_only_tools_annotated_read_only_are_called_and_the_others_are_listed_with_the_reason() {
    let (code, report) = mcp_report(&["--server", &reference()]);
    assert_eq!(code, 0, "{report:#}");
    let called: Vec<&str> = report["called"].as_array().expect("called").iter().filter_map(Value::as_str).collect();
    assert!(called.contains(&"get_order") && !called.contains(&"refund_order"), "{called:?}");
    let skipped = report["skipped"].as_array().expect("skipped");
    let refund = skipped.iter().find(|skipped| skipped["tool"] == "refund_order").expect("refund_order skipped");
    assert_eq!(refund["why"], "not named with --call and not annotated readOnlyHint: true");
    let (_, named) = mcp_report(&["--server", &reference(), "--call", "refund_order", "--call", "no_such"]);
    let called: Vec<&str> = named["called"].as_array().expect("called").iter().filter_map(Value::as_str).collect();
    assert!(called.contains(&"refund_order") && !called.contains(&"delete_account"), "{called:?}");
    let skipped = named["skipped"].to_string();
    assert!(skipped.contains("named with --call but not in tools/list"), "{skipped}");
}

#[test]
fn the_python_sdk_server_drops_a_malformed_line_accepts_duplicate_keys_and_coerces_a_string_to_an_integer() {
    if !python_with_mcp("the Python SDK MCP server") {
        return;
    }
    let (code, report) = mcp_report(&["--server", "python3 fixtures/mcp/lax_server.py"]);
    assert_eq!(code, 1, "{report:#}");
    let status = mcp_statuses(&report);
    let parse = &failures(&report, "mcp-parse-error")[0];
    assert_eq!(status["mcp-parse-error"], "WARN");
    assert!(parse["why"].as_str().expect("why").contains("dropped without an answer"), "{parse:#}");
    assert_eq!(parse["request"], r#"{"jsonrpc":"2.0","id":7,"method":"tools/list""#);
    assert_eq!(status["mcp-input-duplicate-key"], "WARN");
    let duplicate = failures(&report, "mcp-input-duplicate-key")[0]["request"].as_str().expect("request");
    assert!(duplicate.contains(r#""express":true,"express":true"#), "{duplicate}");
    assert_eq!(status["mcp-input-string-for-number"], "FAIL");
    let coerced = &failures(&report, "mcp-input-string-for-number")[0];
    assert!(coerced["request"].as_str().expect("request").contains(r#""weight_grams":"1""#), "{coerced:#}");
    assert!(coerced["answer"].as_str().expect("answer").contains(r#""isError":false"#), "{coerced:#}");
    // What else SDK 1.30 does: an unknown tool is a tool result, an unknown method -32602, 1.0 an integer; an
    // exception's text reaches the client, but get_order's names only the file the caller asked for
    // ('/srv/shop/orders/x.json' for "x"), which a correct file tool's error does (docs/mcp.md, mcp-error-no-leak).
    for (id, expected) in [
        ("mcp-unknown-tool", "FAIL"),
        ("mcp-method-not-found", "FAIL"),
        ("mcp-input-integral-float", "WARN"),
        ("mcp-input-bool-for-number", "FAIL"),
        ("mcp-input-schema-strict", "WARN"),
        ("mcp-input-error-is-result", "PASS"),
        ("mcp-input-non-finite", "PASS"),
        ("mcp-input-deep-nesting", "FAIL"),
        ("mcp-input-lone-surrogate", "WARN"),
        ("mcp-error-no-leak", "PASS"),
        ("mcp-handshake", "PASS"),
        ("mcp-version-negotiation", "PASS"),
        ("mcp-survives", "PASS"),
    ] {
        assert_eq!(status[id], expected, "{id}: {report:#}");
    }
    let skipped = report["skipped"].to_string();
    assert!(skipped.contains("refund_order"), "the destructive tool was called: {skipped}");
}

#[test]
fn the_broken_fixture_fails_every_check_it_was_written_to_fail() {
    if !python_with_mcp("the broken MCP fixture") {
        return;
    }
    let (code, report) = mcp_report(&["--server", "python3 fixtures/mcp/broken_server.py", "--timeout", "1000"]);
    assert_eq!(code, 1);
    let status = mcp_statuses(&report);
    for id in [
        "mcp-tools-list",
        "mcp-version-negotiation",
        "mcp-input-schema-valid",
        "mcp-output-schema-valid",
        "mcp-method-not-found",
        "mcp-unknown-tool",
        "mcp-answers-in-time",
        "mcp-input-missing-required",
        "mcp-input-wrong-type",
        "mcp-input-string-for-number",
        "mcp-input-bool-for-number",
        "mcp-input-null",
        "mcp-input-constraint",
        "mcp-input-non-finite",
        "mcp-input-deep-nesting",
        "mcp-input-unknown-field",
        "mcp-call-params-invalid",
        "mcp-output-conforms",
        "mcp-error-no-leak",
    ] {
        assert_eq!(status[id], "FAIL", "{id}: {report:#}");
    }
    for id in [
        "mcp-tool-name",
        "mcp-annotations-consistent",
        "mcp-invalid-request",
        "mcp-parse-error",
        "mcp-input-schema-strict",
        "mcp-output-schema-declared",
        "mcp-input-error-is-result",
        "mcp-output-text-mirror",
        "mcp-input-oversize",
        "mcp-input-lone-surrogate",
        "mcp-schema-pattern",
    ] {
        assert_eq!(status[id], "WARN", "{id}: {report:#}");
    }
    let leak = failures(&report, "mcp-error-no-leak")[0]["why"].as_str().expect("why").to_owned();
    assert!(leak.contains("a Python traceback"), "{leak}");
    let skipped = report["skipped"].to_string();
    assert!(skipped.contains("search docs") && skipped.contains("not a valid object schema"), "{skipped}");

    let (_, no_tools) =
        mcp_report(&["--server", "python3 fixtures/mcp/broken_server.py --mode no-tools", "--timeout", "1000"]);
    assert_eq!(mcp_statuses(&no_tools)["mcp-handshake"], "FAIL");
    let (_, dies) =
        mcp_report(&["--server", "python3 fixtures/mcp/broken_server.py --mode exit-on-garbage", "--timeout", "1000"]);
    assert_eq!(mcp_statuses(&dies)["mcp-survives"], "FAIL", "{dies:#}");
}

#[test]
fn a_server_that_cannot_start_exits_3() {
    let ran = run_callproof(&["mcp", "--server", "/no/such/server"]);
    assert_eq!(ran.code, 3, "{ran:?}");
    assert!(ran.stderr.contains("callproof mcp: cannot start"), "{}", ran.stderr);
}

#[test]
fn docs_mcp_md_lists_every_check_of_the_profile_with_its_level_citation_and_rule() {
    let text = std::fs::read_to_string(process_support::repo().join("docs/mcp.md")).expect("read docs/mcp.md");
    let mut missing = Vec::new();
    for check in callproof_harness::mcp::checks::ALL {
        let row = format!("| `{}` | {} | {} | {} |", check.id, check.level.as_str(), check.cites, check.rule);
        if !text.contains(&row) {
            missing.push(row);
        }
    }
    assert!(missing.is_empty(), "docs/mcp.md lacks the rows:\n{}", missing.join("\n"));
}

#[test]
fn the_readme_and_docs_excerpts_of_the_python_sdk_report_are_real_output() {
    if !python_with_mcp("the README's MCP excerpt") {
        return;
    }
    let folder = process_support::repo().join("fixtures/mcp");
    let ran = process_support::run_callproof_in(&folder, &["mcp", "--server", "python3 lax_server.py"]);
    assert_eq!(ran.code, 1, "{ran:?}");
    for path in ["README.md", "docs/mcp.md"] {
        let text = std::fs::read_to_string(process_support::repo().join(path)).expect("read");
        let start = text.find("WARN  mcp-parse-error").unwrap_or_else(|| panic!("{path} has no excerpt"));
        let excerpt = &text[start..start + text[start..].find("```").expect("the excerpt's block ends")];
        for line in excerpt.lines().filter(|line| !line.trim().is_empty()) {
            assert!(
                ran.stdout.contains(line),
                "{path}: this excerpt line is not in the output:\n{line}\n\n{}",
                ran.stdout
            );
        }
    }
}

#[test]
fn the_blind_rounds_missed_buggy_servers_fail_the_checks_added_for_them_and_their_control_passes_those() {
    // examples/mcp-buggy: six servers (Python SDK 1.30.0, the low-level Server) the profile missed before
    // mcp-stdout-clean, mcp-progress-token (a token nobody gave; a ticker that outlives its call),
    // mcp-resource-not-found, mcp-unknown-tool-refused and the URL-password pattern of mcp-error-no-leak; each is
    // the control with one bug. The control reports progress while a call runs, when its request gave a token. Run side by side, read-only
    // tools and sync_warehouse.
    if !python_with_mcp("the blind round's buggy MCP servers") {
        return;
    }
    let expected: [(&str, &[(&str, &str)]); 7] = [
        (
            "control.py",
            &[
                ("mcp-stdout-clean", "PASS"),
                ("mcp-progress-token", "PASS"),
                ("mcp-resource-not-found", "PASS"),
                ("mcp-error-no-leak", "PASS"),
                ("mcp-unknown-tool-refused", "PASS"),
            ],
        ),
        ("stdout_print.py", &[("mcp-stdout-clean", "FAIL")]),
        ("progress_without_token.py", &[("mcp-progress-token", "FAIL")]),
        ("progress_outlives_call.py", &[("mcp-progress-token", "FAIL")]),
        ("resource_not_found_ok.py", &[("mcp-resource-not-found", "WARN")]),
        ("secret_leak.py", &[("mcp-error-no-leak", "FAIL")]),
        ("unknown_tool_ok.py", &[("mcp-unknown-tool-refused", "FAIL")]),
    ];
    let reports: Vec<(i32, Value)> = std::thread::scope(|scope| {
        let runs: Vec<_> = expected
            .iter()
            .map(|(file, _)| {
                let command = format!("python3 examples/mcp-buggy/{file}");
                scope.spawn(move || process_support::mcp_report(&["--server", &command, "--call", "sync_warehouse"]))
            })
            .collect();
        runs.into_iter().map(|run| run.join().expect("the run")).collect()
    });
    for ((file, checks), (code, report)) in expected.iter().zip(&reports) {
        let statuses = mcp_statuses(report);
        for (id, status) in checks.iter() {
            assert_eq!(statuses.get(*id).map(String::as_str), Some(*status), "{file}: {id}: {report:#}");
        }
        let progress_bug = file.starts_with("progress_");
        assert_eq!(
            statuses.get("mcp-progress-token").map(String::as_str) == Some("FAIL"),
            progress_bug,
            "{file}: {report:#}"
        );
        assert_eq!(*code, 1, "{file}: the stock SDK fails mcp-unknown-tool: {report:#}");
    }
    let stray = &failures(&reports[1].1, "mcp-stdout-clean")[0];
    assert!(stray["answer"].as_str().is_some_and(|lines| lines.starts_with("DEBUG call_tool")), "{stray:#}");
    let late = &failures(&reports[3].1, "mcp-progress-token")[0];
    assert!(late["why"].as_str().is_some_and(|why| why.contains("after its request was answered")), "{late:#}");
    let leak = &failures(&reports[5].1, "mcp-error-no-leak")[0];
    assert!(leak["why"].as_str().is_some_and(|why| why.contains("a password in a URL")), "{leak:#}");
}
