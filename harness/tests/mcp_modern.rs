//! `callproof mcp` in MCP revision 2026-07-28: the reference executor passes every check over stdio and over
//! Streamable HTTP; `auto` finds the modern reference and falls back for a legacy server;
//! fixtures/mcp/broken_modern_server.py (standard library only) fails every modern check, over stdio and HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod process_support;

use process_support::{
    executor_binary, mcp_report, mcp_statuses, repo, run_callproof, served_url, spawn_http_reference,
};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};

/// Every check passes but those judged elsewhere (`mcp-output-conforms`: no downstream, no call succeeds),
/// those with nothing to judge here, over stdio the HTTP ones (`mcp-http-*`, `mcp-auth-*`) and over HTTP the
/// stdio one (`mcp-stdout-clean`).
fn assert_all_pass(report: &Value, http: bool) {
    for (id, status) in mcp_statuses(report) {
        let http_only = id.starts_with("mcp-http-") || id.starts_with("mcp-auth-");
        // No downstream here, so the export fails and no task is created: the Tasks checks that need one skip
        // (mcp_tasks_reference.rs runs them with a downstream).
        let needs_task = id.starts_with("mcp-tasks-") && id != "mcp-tasks-capability" && id != "mcp-tasks-unknown-id";
        // The reference sends no progress notification and declares no resources; over HTTP there is no stdout.
        let not_applicable = id == "mcp-progress-token" || id == "mcp-resource-not-found";
        let stdio_only = http && id == "mcp-stdout-clean";
        let skipped = id == "mcp-output-conforms" || (!http && http_only) || needs_task || not_applicable || stdio_only;
        assert!(status == "PASS" || (skipped && status == "SKIP"), "{id} is {status}: {report:#}");
    }
    assert_eq!(report["revision"], "2026-07-28");
}

const MODERN_CHECKS: [&str; 7] = [
    "mcp-meta-required",
    "mcp-result-type",
    "mcp-server-info",
    "mcp-tools-cache-fields",
    "mcp-tools-deterministic",
    "mcp-http-header-mismatch",
    "mcp-http-get",
];

#[test]
fn the_reference_over_stdio_passes_every_2026_07_28_check_and_auto_finds_it_modern() {
    let reference = format!("'{}' --mcp --store memory", executor_binary().display());
    let (code, report) = mcp_report(&["--server", &reference, "--call-all", "--mcp-revision", "2026-07-28"]);
    assert_eq!(code, 0, "{report:#}");
    assert_all_pass(&report, false);
    let ids: Vec<&str> = report["checks"].as_array().unwrap().iter().filter_map(|check| check["id"].as_str()).collect();
    assert!(MODERN_CHECKS.iter().all(|id| ids.contains(id)), "{ids:?}");
    assert_eq!(report["called"].as_array().expect("called").len(), 9);
    let (_, auto) = mcp_report(&["--server", &reference]);
    assert_eq!(
        (auto["revision"].as_str(), auto["protocol_version"].as_str()),
        (Some("2026-07-28"), Some("2026-07-28"))
    );
}

#[test]
fn auto_falls_back_to_2025_11_25_for_a_server_that_does_not_answer_server_discover() {
    let (_, report) = mcp_report(&["--server", "python3 fixtures/mcp/broken_server.py", "--timeout", "1000"]);
    assert_eq!(report["revision"], "2025-11-25", "{report:#}");
    let ids = mcp_statuses(&report);
    assert!(!ids.contains_key("mcp-result-type"), "no modern check in a legacy run");
    assert_eq!(ids["mcp-handshake"], "PASS", "the probe is not judged: {report:#}");
}

/// `callproof-executor --mcp-http` on a free port; its URL.
struct HttpReference {
    child: Child,
    url: String,
}

const KEY: &str = "bW9kZXJuLXRlc3Qta2V5LW9mLXRoaXMtcnVuLTAxMjM";

impl HttpReference {
    fn start() -> HttpReference {
        let (child, url) = spawn_http_reference(KEY, None);
        HttpReference { child, url }
    }

    fn token(&self) -> String {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        let claims = json!({"iss": "callproof", "aud": self.url, "sub": "u_profile", "tenant_id": "t_profile",
                            "iat": now, "exp": now + 600, "jti": "profile", "scope": "orders:read", "roles": []});
        callproof_harness::mcp::token::sign(KEY.as_bytes(), &claims)
    }
}

impl Drop for HttpReference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_reference_over_http_passes_every_2026_07_28_check_with_a_bearer_token() {
    let server = HttpReference::start();
    let token = server.token();
    let args = ["--url", &server.url, "--bearer", &token, "--call-all", "--mcp-revision", "2026-07-28"];
    let (code, report) = mcp_report(&args);
    assert_eq!(code, 0, "{report:#}");
    assert_all_pass(&report, true);
    assert_eq!(report["transport"], "streamable-http");
}

#[test]
fn the_broken_modern_fixture_fails_every_modern_check_over_stdio_and_http() {
    let fixture = repo().join("fixtures/mcp/broken_modern_server.py");
    let command = format!("python3 '{}'", fixture.display());
    let (code, report) = mcp_report(&["--server", &command, "--call-all", "--timeout", "2000"]);
    assert_eq!((code, report["revision"].as_str()), (1, Some("2026-07-28")), "auto finds it modern: {report:#}");
    let status = mcp_statuses(&report);
    for (id, wanted) in [
        ("mcp-version-negotiation", "FAIL"),
        ("mcp-meta-required", "FAIL"),
        ("mcp-result-type", "FAIL"),
        ("mcp-server-info", "WARN"),
        ("mcp-tools-cache-fields", "FAIL"),
        ("mcp-tools-deterministic", "WARN"),
    ] {
        assert_eq!(status[id], wanted, "{id}: {report:#}");
    }
    let (_, empty) =
        mcp_report(&["--server", &format!("{command} --mode empty-versions"), "--mcp-revision", "2026-07-28"]);
    assert_eq!(mcp_statuses(&empty)["mcp-handshake"], "FAIL", "{empty:#}");

    let mut child = Command::new("python3")
        .arg(&fixture)
        .arg("--http")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let url = served_url(&mut child, "listening on ");
    let (_, over_http) = mcp_report(&["--url", &url, "--call-all", "--timeout", "2000"]);
    let _ = child.kill();
    let _ = child.wait();
    let status = mcp_statuses(&over_http);
    assert_eq!(status["mcp-http-header-mismatch"], "FAIL", "{over_http:#}");
    assert_eq!(status["mcp-http-get"], "WARN", "{over_http:#}");
    assert_eq!(status["mcp-method-not-found"], "FAIL", "-32601 with 200, not 404: {over_http:#}");
}

#[test]
fn docs_mcp_md_lists_every_2026_07_28_check_with_its_level_citation_and_rule() {
    let text = std::fs::read_to_string(repo().join("docs/mcp.md")).expect("read docs/mcp.md");
    let modern = callproof_harness::mcp::checks::of(true);
    let missing: Vec<String> = modern
        .iter()
        .map(|check| format!("| `{}` | {} | {} | {} |", check.id, check.level.as_str(), check.cites, check.rule))
        .filter(|row| !text.contains(row))
        .collect();
    assert!(missing.is_empty(), "docs/mcp.md lacks the rows:\n{}", missing.join("\n"));
}

#[test]
fn mcp_revision_is_for_an_mcp_server_and_takes_only_the_two_revisions_and_auto() {
    let executor = run_callproof(&["conform", "--executor", "x", "--mcp-revision", "2026-07-28"]);
    assert_eq!(executor.code, 2, "{}", executor.stderr);
    assert!(executor.stderr.contains("--mcp-revision is for an MCP server"), "{}", executor.stderr);
    let unknown = run_callproof(&["mcp", "--server", "x", "--mcp-revision", "2024-11-05"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
}
