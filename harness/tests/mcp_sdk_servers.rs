//! `callproof mcp --call-all` against the two MCP SDK servers of examples/ (mcp-python: the official Python SDK
//! 2.x; mcp-typescript: the official TypeScript SDK 1.x with zod), each started over stdio as its README says.
//!
//! Rule enforced here: what each server fails (every WARN or FAIL check, with how many findings) equals its
//! committed baseline in fixtures/mcp/baselines/, so a new failure (a regression of the SDK or of the profile)
//! and a stale expected failure (an upstream fix) both fail with the difference spelled out.
//! `CALLPROOF_UPDATE_BASELINES=1` rewrites the baselines from the run instead (docs/mcp.md, "The SDK servers'
//! baselines"). Where the server's dependencies are not installed (scripts/test installs them) the test prints a
//! loud SKIPPED line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1` (CI), where the skip is a failure.
//!
//! No downstream is given (`CALLPROOF_DOWNSTREAM_URL` unset): `callproof mcp` sends no
//! `_meta["io.callproof/context"]`, so both apps refuse every call that gets past the SDK's decoding as
//! `unauthorized` before they would reach one. The profile still judges the protocol and the SDK's input
//! validation; the acceptance checks that need a call to succeed stay inconclusive.

mod process_support;

use process_support::{REQUIRE_VAR, repo, run_callproof};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

const UPDATE_VAR: &str = "CALLPROOF_UPDATE_BASELINES";

/// One server under test: how to start it, what must exist first, and its baseline.
struct Server {
    name: &'static str,
    command: &'static str,
    needs: &'static str,
    install: &'static str,
    baseline: &'static str,
}

const PYTHON: Server = Server {
    name: "the Python SDK server (examples/mcp-python)",
    command: "target/mcp-python-venv/bin/python examples/mcp-python/server.py",
    needs: "target/mcp-python-venv/bin/python",
    install: "scripts/test, or: python3 -m venv target/mcp-python-venv && target/mcp-python-venv/bin/pip install \
              -r examples/mcp-python/requirements.txt",
    baseline: "fixtures/mcp/baselines/python-sdk.json",
};

const TYPESCRIPT: Server = Server {
    name: "the TypeScript SDK server (examples/mcp-typescript)",
    command: "node examples/mcp-typescript/dist/server.js",
    needs: "examples/mcp-typescript/dist/server.js",
    install: "scripts/test, or: cd examples/mcp-typescript && npm ci && npm run build",
    baseline: "fixtures/mcp/baselines/typescript-sdk.json",
};

/// Whether `server`'s dependencies are installed; a loud SKIPPED line when not (a failure under CI).
fn installed(server: &Server) -> bool {
    if repo().join(server.needs).exists() {
        return true;
    }
    let why = format!("{} is missing", server.needs);
    assert!(
        std::env::var(REQUIRE_VAR).as_deref() != Ok("1"),
        "{}: {why} and {REQUIRE_VAR}=1: {}",
        server.name,
        server.install
    );
    // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {}: {why} ({}; set {REQUIRE_VAR}=1 to fail instead)",
        server.name,
        server.install
    );
    false
}

/// A finding's request or answer cut to 300 characters, so a baseline stays readable.
fn cut(text: &Value) -> Value {
    let text = text.as_str().unwrap_or_default();
    match text.char_indices().nth(300) {
        Some((end, _)) => Value::String(format!("{}… ({} bytes)", &text[..end], text.len())),
        None => Value::String(text.to_owned()),
    }
}

/// What a report fails: every WARN or FAIL check with its findings, by id.
fn failing(report: &Value) -> BTreeMap<String, Value> {
    let checks = report["checks"].as_array().expect("checks");
    let mut failing = BTreeMap::new();
    for check in checks {
        let status = check["status"].as_str().expect("status");
        if status != "WARN" && status != "FAIL" {
            continue;
        }
        let findings = check["failures"].as_array().expect("failures");
        let mut reasons: Vec<&str> = findings.iter().filter_map(|finding| finding["why"].as_str()).collect();
        reasons.sort_unstable();
        reasons.dedup();
        let first = &findings[0];
        let entry = json!({
            "status": status,
            "failures": findings.len(),
            "reasons": reasons,
            "example": {"request": cut(&first["request"]), "answer": cut(&first["answer"])},
        });
        failing.insert(check["id"].as_str().expect("id").to_owned(), entry);
    }
    failing
}

/// The part of an entry the comparison holds to: status and number of findings (reasons and the example
/// document the failure; their wording may change with the profile's messages).
fn key(entry: &Value) -> (Value, Value) {
    (entry["status"].clone(), entry["failures"].clone())
}

/// Runs the profile against `server` and compares what it fails with the baseline; the report, or `None` when
/// the server is not installed.
fn matches_its_baseline(server: &Server) -> Option<Value> {
    if !installed(server) {
        return None;
    }
    // The baselines are of 2025-11-25; the Python SDK also speaks 2026-07-28, which `auto` would pick.
    let args = ["mcp", "--server", server.command, "--call-all", "--format", "json", "--mcp-revision", "2025-11-25"];
    let ran = run_callproof(&args);
    let report: Value = serde_json::from_str(&ran.stdout).unwrap_or_else(|error| {
        panic!("{}: not a JSON report ({error}):\n{}\nstderr:\n{}", server.name, ran.stdout, ran.stderr)
    });
    assert!(ran.code == 0 || ran.code == 1, "{}: exit code {}: {report:#}\n{}", server.name, ran.code, ran.stderr);
    let actual = failing(&report);
    let path = repo().join(server.baseline);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut baseline: Value = serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    if std::env::var(UPDATE_VAR).as_deref() == Ok("1") {
        baseline["expected"] = json!(actual);
        let written = serde_json::to_string_pretty(&baseline).expect("JSON") + "\n";
        std::fs::write(&path, written).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        return Some(report);
    }
    let expected: BTreeMap<String, Value> =
        serde_json::from_value(baseline["expected"].clone()).expect("`expected` maps check ids to entries");
    let mut problems = Vec::new();
    for (id, entry) in &actual {
        match expected.get(id) {
            None => problems.push(format!("NEW FAILURE {id}: {entry:#}")),
            Some(known) if key(known) != key(entry) => {
                problems.push(format!("CHANGED {id}: expected {:?}, now {:?}: {entry:#}", key(known), key(entry)));
            }
            Some(_) => {}
        }
    }
    for id in expected.keys().filter(|id| !actual.contains_key(*id)) {
        problems.push(format!("STALE expected failure {id}: it no longer fails (fixed upstream or in the profile?)"));
    }
    assert!(
        problems.is_empty(),
        "{} no longer matches {}:\n{}\nIf the change is intended, refresh the baseline: {UPDATE_VAR}=1 cargo test -p \
         callproof-harness --test mcp_sdk_servers (docs/mcp.md, \"The SDK servers' baselines\").",
        server.name,
        Path::new(server.baseline).display(),
        problems.join("\n")
    );
    Some(report)
}

#[test]
fn the_python_sdk_server_fails_exactly_its_baseline_and_drops_a_malformed_line_without_a_parse_error() {
    let Some(report) = matches_its_baseline(&PYTHON) else { return };
    let checks = report["checks"].as_array().expect("checks");
    let parse = checks.iter().find(|check| check["id"] == "mcp-parse-error").expect("mcp-parse-error");
    assert_eq!(parse["status"], "WARN", "{parse:#}");
    let finding = &parse["failures"][0];
    assert!(finding["why"].as_str().expect("why").contains("no -32700"), "{finding:#}");
    let request = finding["request"].as_str().expect("request");
    assert!(serde_json::from_str::<Value>(request).is_err(), "the request shown is not JSON: {request}");
}

#[test]
fn the_typescript_sdk_server_fails_exactly_its_baseline() {
    matches_its_baseline(&TYPESCRIPT);
}
