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
//! Each server runs against the harness's mocked downstream (`CALLPROOF_DOWNSTREAM_URL`, one order and one
//! account the generated inputs name) and every `tools/call` carries a caller with every scope of the catalog in
//! `_meta["io.callproof/context"]` (`--meta`, as `conform --mcp` sends it over stdio), so a call the SDK's
//! decoding let through runs to the end and succeeds: what the SDK accepted is seen, not hidden behind the app's
//! own refusal of a call without a caller.

mod process_support;

use callproof_harness::mock::MockDownstream;
use callproof_harness::world::{Account, Behaviour, Fixtures, Order, World};
use process_support::{INSTALL_MCP_PYTHON, INSTALL_MCP_TYPESCRIPT, present, repo, run_callproof};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

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
    install: INSTALL_MCP_PYTHON,
    baseline: "fixtures/mcp/baselines/python-sdk.json",
};

const TYPESCRIPT: Server = Server {
    name: "the TypeScript SDK server (examples/mcp-typescript)",
    command: "node examples/mcp-typescript/dist/server.js",
    needs: "examples/mcp-typescript/dist/server.js",
    install: INSTALL_MCP_TYPESCRIPT,
    baseline: "fixtures/mcp/baselines/typescript-sdk.json",
};

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

/// The caller of every call: every scope the catalog names, no approval (so `delete_account` still refuses).
const CONTEXT: &str = r#"{"io.callproof/context":{"auth":{"subject_id":"u_alice","tenant_id":"t_acme","roles":[],
"identity":{"valid":true},"scopes":["accounts:delete","email:send","exports:read","exports:write","orders:read","preferences:write",
"refunds:write"]}}}"#;

/// The downstream's world: the order and the account the profile's generated base inputs name (the first
/// string each pattern allows), the caller's own.
fn world() -> Arc<World> {
    let order = |order_id: &str| Order {
        order_id: order_id.to_owned(),
        tenant_id: "t_acme".to_owned(),
        owner_id: "u_alice".to_owned(),
        refundable_amount: 100_000_000,
        status: "paid".to_owned(),
        note: String::new(),
    };
    let account = Account {
        account_id: "acct_A".to_owned(),
        tenant_id: "t_acme".to_owned(),
        owner_id: "u_alice".to_owned(),
        closed: false,
    };
    let fixtures = Fixtures { orders: vec![order("ord_A")], accounts: vec![account] };
    Arc::new(World::new(&fixtures, Behaviour { honours_idempotency_key: true, checks_refundable_amount: true }))
}

/// Runs the profile against `server` and compares what it fails with the baseline; the report, or `None` when
/// the server is not installed.
fn matches_its_baseline(server: &Server) -> Option<Value> {
    if !present(server.needs, server.name, server.install) {
        return None;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the downstream");
    let downstream = runtime.block_on(MockDownstream::start(world()));
    let command = format!("env CALLPROOF_DOWNSTREAM_URL={} {}", downstream.uri(), server.command);
    let meta = CONTEXT.replace('\n', "");
    // The baselines are of 2025-11-25; the Python SDK also speaks 2026-07-28, which `auto` would pick.
    let args = ["mcp", "--server", &command, "--call-all", "--format", "json", "--mcp-revision", "2025-11-25"];
    let ran = run_callproof(&[&args[..], &["--meta", &meta]].concat());
    runtime.block_on(downstream.stop());
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

/// The first failure of `id`, which must have `status` (WARN or FAIL): its why and the request that shows it.
fn shown<'a>(report: &'a Value, id: &str, status: &str) -> (&'a str, &'a str) {
    let checks = report["checks"].as_array().expect("checks");
    let check = checks.iter().find(|check| check["id"] == id).unwrap_or_else(|| panic!("{id} in {report:#}"));
    assert_eq!(check["status"], status, "{check:#}");
    let finding = &check["failures"][0];
    (finding["why"].as_str().expect("why"), finding["request"].as_str().expect("request"))
}

/// A malformed line dropped without -32700, and duplicate keys run, each with the request that shows it.
fn drops_a_malformed_line_and_runs_duplicate_keys(report: &Value) {
    let (why, request) = shown(report, "mcp-parse-error", "WARN");
    assert!(why.contains("no -32700"), "{why}");
    assert!(serde_json::from_str::<Value>(request).is_err(), "the request shown is not JSON: {request}");
    let (why, request) = shown(report, "mcp-input-duplicate-key", "WARN");
    assert!(why.contains("twice in the text: accepted"), "{why}");
    let arguments = &request[request.find(r#""arguments":"#).expect("arguments")..];
    let first = arguments.split_once(':').and_then(|(_, rest)| rest.split_once(':')).map(|(key, _)| key);
    let key = first.expect("a first key").trim_start_matches('{');
    assert_eq!(arguments.matches(key).count(), 2, "{key} twice in {request}");
}

#[test]
fn the_python_sdk_server_fails_exactly_its_baseline_drops_a_malformed_line_runs_duplicate_keys_and_coerces_100() {
    let Some(report) = matches_its_baseline(&PYTHON) else { return };
    drops_a_malformed_line_and_runs_duplicate_keys(&report);
    let (why, request) = shown(&report, "mcp-input-string-for-number", "FAIL");
    assert!(why.contains("sent as the string") && why.contains("accepted"), "{why}");
    assert!(request.contains(r#""amount":"1""#), "the number sent as a string: {request}");
}

#[test]
fn the_typescript_sdk_server_fails_exactly_its_baseline_drops_a_malformed_line_and_runs_duplicate_keys() {
    let Some(report) = matches_its_baseline(&TYPESCRIPT) else { return };
    drops_a_malformed_line_and_runs_duplicate_keys(&report);
    let checks = report["checks"].as_array().expect("checks");
    let coerced = checks.iter().find(|check| check["id"] == "mcp-input-string-for-number").expect("the check");
    assert_eq!(coerced["status"], "PASS", "zod refuses \"1\" for a number: {coerced:#}");
}
