//! `callproof mcp --url`: the MCP profile over Streamable HTTP against a real server, the official Python SDK
//! (fixtures/mcp/lax_server.py, mcp 1.30.0, `mcp.run(transport="streamable-http")`), answering as SSE (the SDK's
//! default) and as `application/json` (`json_response`).
//!
//! Rule enforced here: over HTTP the profile finds what the SDK gets wrong, each finding with the request that
//! shows it (`"1"` coerced to an integer, duplicate keys accepted, an unknown tool answered as a result, a
//! server path in an error), follows the session the SDK hands out (a client that did not echo
//! `Mcp-Session-Id` gets 400 on every request after `initialize`, and no check could pass), and reads both
//! kinds of answer. Where Python 3 with the `mcp` package is missing the tests print a loud SKIPPED line and
//! pass, unless `CALLPROOF_REQUIRE_SERVICES=1` (CI), where the skip is a failure.

mod process_support;

use process_support::{REQUIRE_VAR, repo, run_callproof};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The lax fixture serving Streamable HTTP on a free loopback port; killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// Starts `fixtures/mcp/lax_server.py --http PORT` (with `--json` when `json`) and waits until the port
    /// accepts connections (at most 20 s: a bound on the wait, not an assertion on time).
    fn start(json: bool) -> HttpServer {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a port").port();
        let mut command = Command::new("python3");
        command.arg(repo().join("fixtures/mcp/lax_server.py")).args(["--http", &port.to_string()]);
        if json {
            command.arg("--json");
        }
        let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("python3 starts");
        let server = HttpServer { child, url: format!("http://127.0.0.1:{port}/mcp") };
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "the SDK server did not listen on {port} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `python3` has the official MCP SDK; a loud SKIPPED line when not (a failure under CI).
fn python_with_mcp(test: &str) -> bool {
    let output = Command::new("python3").args(["-c", "import mcp.server.fastmcp, uvicorn"]).output();
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

/// `callproof mcp --url URL --call-all --format json`: the exit code and the report.
fn profile(url: &str) -> (i32, Value) {
    let ran = run_callproof(&["mcp", "--url", url, "--call-all", "--timeout", "10000", "--format", "json"]);
    let report = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("not a JSON report ({error}):\n{}\nstderr:\n{}", ran.stdout, ran.stderr));
    (ran.code, report)
}

fn statuses(report: &Value) -> BTreeMap<String, String> {
    let checks = report["checks"].as_array().expect("checks");
    checks
        .iter()
        .map(|check| (check["id"].as_str().expect("id").into(), check["status"].as_str().expect("status").into()))
        .collect()
}

fn failures<'a>(report: &'a Value, id: &str) -> &'a Vec<Value> {
    let checks = report["checks"].as_array().expect("checks");
    let check = checks.iter().find(|check| check["id"] == id).unwrap_or_else(|| panic!("no check {id}"));
    check["failures"].as_array().expect("failures")
}

/// What the SDK gets wrong over HTTP, and what it gets right, the same whichever way it answers.
fn assert_the_sdks_mistakes_are_found(report: &Value) {
    assert_eq!(report["transport"], "streamable-http", "{report:#}");
    assert_eq!(report["protocol_version"], "2025-11-25", "{report:#}");
    assert_eq!(report["server_info"]["name"], "lax-shop", "{report:#}");
    let status = statuses(report);
    for (id, expected) in [
        ("mcp-handshake", "PASS"),
        ("mcp-version-negotiation", "PASS"),
        ("mcp-tools-list", "PASS"),
        ("mcp-survives", "PASS"),
        ("mcp-answers-in-time", "PASS"),
        ("mcp-input-missing-required", "PASS"),
        ("mcp-input-wrong-type", "PASS"),
        ("mcp-call-params-invalid", "PASS"),
        ("mcp-output-conforms", "PASS"),
        ("mcp-input-string-for-number", "FAIL"),
        ("mcp-input-bool-for-number", "FAIL"),
        ("mcp-unknown-tool", "FAIL"),
        ("mcp-method-not-found", "FAIL"),
        ("mcp-error-no-leak", "FAIL"),
        ("mcp-input-duplicate-key", "WARN"),
        ("mcp-input-integral-float", "WARN"),
        ("mcp-parse-error", "WARN"),
    ] {
        assert_eq!(status[id], expected, "{id}: {report:#}");
    }
    let coerced = &failures(report, "mcp-input-string-for-number")[0];
    assert!(coerced["request"].as_str().expect("request").contains(r#""weight_grams":"1""#), "{coerced:#}");
    assert!(coerced["answer"].as_str().expect("answer").contains(r#""isError":false"#), "{coerced:#}");
    let leak = &failures(report, "mcp-error-no-leak")[0];
    assert!(leak["why"].as_str().expect("why").contains("/srv/shop/orders/"), "{leak:#}");
    // Over HTTP the SDK answers a body that is not JSON with a bare 400, not a -32700.
    let parse = &failures(report, "mcp-parse-error")[0];
    assert!(parse["answer"].as_str().expect("answer").starts_with("(HTTP 400"), "{parse:#}");
}

#[test]
fn over_sse_the_python_sdk_server_is_judged_as_over_stdio() {
    if !python_with_mcp("the Python SDK MCP server over HTTP (SSE)") {
        return;
    }
    let server = HttpServer::start(false);
    let (code, report) = profile(&server.url);
    assert_eq!(code, 1, "a MUST check fails: {report:#}");
    assert_the_sdks_mistakes_are_found(&report);
    // Nested 10 000 deep, the SDK's HTTP transport fails with a 500 (over stdio it drops the line).
    let deep = &failures(&report, "mcp-input-deep-nesting")[0];
    assert!(deep["why"].as_str().expect("why").contains("answered HTTP 500"), "{deep:#}");
}

#[test]
fn over_json_responses_the_python_sdk_server_is_judged_the_same() {
    if !python_with_mcp("the Python SDK MCP server over HTTP (JSON)") {
        return;
    }
    let server = HttpServer::start(true);
    let (code, report) = profile(&server.url);
    assert_eq!(code, 1, "a MUST check fails: {report:#}");
    assert_the_sdks_mistakes_are_found(&report);
}

#[test]
fn a_url_nothing_listens_on_is_a_failed_handshake_that_says_why() {
    let port = TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a port").port();
    let (code, report) = profile(&format!("http://127.0.0.1:{port}/mcp"));
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(statuses(&report)["mcp-handshake"], "FAIL", "{report:#}");
    let answer = failures(&report, "mcp-handshake")[0]["answer"].as_str().expect("answer").to_owned();
    assert!(answer.to_lowercase().contains("refused"), "{answer}");
    let https = run_callproof(&["mcp", "--url", "https://example.invalid/mcp"]);
    assert_eq!(https.code, 3, "{}", https.stderr);
    assert!(https.stderr.contains("http://"), "{}", https.stderr);
}
