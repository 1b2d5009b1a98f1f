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
//!
//! The HTTP-only checks (`mcp-http-error-status`, `mcp-http-origin`, `mcp-auth-required`,
//! `mcp-auth-invalid-token`) bite both ways: the reference `callproof-executor --mcp-http`, given a token minted
//! here, passes them and every other check; fixtures/mcp/lax_http_server.py (standard library only) fails each.
//! The token given with `--bearer` never appears in what `callproof` prints, though the lax server echoes it.

mod process_support;

use process_support::{REQUIRE_VAR, TempDir, executor_binary, mcp_statuses, repo, run_callproof};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The lax fixture serving Streamable HTTP on a free loopback port; killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// Starts `fixtures/mcp/lax_server.py --http PORT` (with `--json` when `json`).
    fn start(json: bool) -> HttpServer {
        let port = free_port();
        let mut command = Command::new("python3");
        command.arg(repo().join("fixtures/mcp/lax_server.py")).args(["--http", &port.to_string()]);
        if json {
            command.arg("--json");
        }
        HttpServer::spawn(command, port)
    }

    /// Starts `command`, which serves `http://127.0.0.1:PORT/mcp`, and waits until the port accepts connections
    /// (at most 20 s: a bound on the wait, not an assertion on time).
    fn spawn(mut command: Command, port: u16) -> HttpServer {
        let child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("the server starts");
        let server = HttpServer { child, url: format!("http://127.0.0.1:{port}/mcp") };
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "the server did not listen on {port} within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

fn free_port() -> u16 {
    process_support::server_port()
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
    let status = mcp_statuses(report);
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
        // get_order's error names the file the caller asked for, nothing else of the server.
        ("mcp-error-no-leak", "PASS"),
        ("mcp-input-duplicate-key", "WARN"),
        ("mcp-input-integral-float", "WARN"),
        ("mcp-parse-error", "WARN"),
        // FastMCP on 127.0.0.1 turns its DNS rebinding protection on: a foreign Origin gets 403.
        ("mcp-http-error-status", "PASS"),
        ("mcp-http-origin", "PASS"),
        ("mcp-auth-required", "SKIP"),
        ("mcp-auth-invalid-token", "SKIP"),
    ] {
        assert_eq!(status[id], expected, "{id}: {report:#}");
    }
    let coerced = &failures(report, "mcp-input-string-for-number")[0];
    assert!(coerced["request"].as_str().expect("request").contains(r#""weight_grams":"1""#), "{coerced:#}");
    assert!(coerced["answer"].as_str().expect("answer").contains(r#""isError":false"#), "{coerced:#}");
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
    let port = free_port();
    let (code, report) = profile(&format!("http://127.0.0.1:{port}/mcp"));
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(mcp_statuses(&report)["mcp-handshake"], "FAIL", "{report:#}");
    let answer = failures(&report, "mcp-handshake")[0]["answer"].as_str().expect("answer").to_owned();
    assert!(answer.to_lowercase().contains("refused"), "{answer}");
    let https = run_callproof(&["mcp", "--url", "https://example.invalid/mcp"]);
    assert_eq!(https.code, 3, "{}", https.stderr);
    assert!(https.stderr.contains("http://"), "{}", https.stderr);
}

/// The HTTP-only checks.
const HTTP_CHECKS: [&str; 5] =
    ["mcp-http-error-status", "mcp-http-origin", "mcp-http-session-id", "mcp-auth-required", "mcp-auth-invalid-token"];

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    let checks = report["checks"].as_array().expect("checks");
    checks.iter().find(|check| check["id"] == id).unwrap_or_else(|| panic!("no check {id}"))
}

/// An HS256 token for a `--mcp-http` server at `url` holding `key` (docs/mcp.md's claims), as a file.
fn token_file(dir: &TempDir, key: &str, url: &str) -> (String, String) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("a clock").as_secs();
    let claims = json!({"iss": "callproof", "aud": url, "sub": "u", "tenant_id": "t", "iat": now, "exp": now + 600});
    let token = callproof_harness::mcp::token::sign(key.as_bytes(), &claims);
    let file = dir.join("token");
    std::fs::write(&file, format!("{token}\n")).expect("write the token");
    (token, file.display().to_string())
}

#[test]
fn the_reference_over_http_with_its_token_passes_every_check_and_the_token_is_never_printed() {
    let key = "profile-key-".repeat(4);
    let port = free_port();
    let mut command = Command::new(executor_binary());
    command
        .args(["--mcp-http", "--store", "memory"])
        .env("CALLPROOF_MCP_URL", format!("http://127.0.0.1:{port}/mcp"))
        .env("CALLPROOF_TOKEN_KEY", &key)
        .env_remove("CALLPROOF_DOWNSTREAM_URL");
    let server = HttpServer::spawn(command, port);
    let dir = TempDir::new();
    let (token, file) = token_file(&dir, &key, &server.url);
    let ran = run_callproof(&["mcp", "--url", &server.url, "--bearer-file", &file, "--format", "json"]);
    assert!(!ran.stdout.contains(&token) && !ran.stderr.contains(&token), "the token was printed");
    let report = ran.report();
    let status = mcp_statuses(&report);
    let bad: Vec<_> = status.iter().filter(|(_, status)| *status == "FAIL" || *status == "WARN").collect();
    assert!(bad.is_empty() && ran.code == 0, "{bad:?}: {report:#}");
    // mcp-auth-required: the POST without a token, then a GET and a DELETE of the session without one.
    for (id, passed) in HTTP_CHECKS.into_iter().zip([2, 1, 1, 3, 2]) {
        assert_eq!((status[id].as_str(), check(&report, id)["passed"].as_u64()), ("PASS", Some(passed)), "{id}");
    }
}

/// `program ARGS` (from the repository root) serving the conformance app with a token verifier at a free port,
/// as `conform --mcp-http` starts one; `None` (a loud SKIPPED line, a failure under CI) when `needs` is missing.
fn token_server(program: &str, args: &[&str], key: &str, needs: &str, install: &str) -> Option<HttpServer> {
    if !repo().join(needs).exists() {
        assert!(std::env::var(REQUIRE_VAR).as_deref() != Ok("1"), "{needs} is missing and {REQUIRE_VAR}=1: {install}");
        let _ = writeln!(std::io::stderr(), "SKIPPED: {needs} is missing ({install}; set {REQUIRE_VAR}=1 to fail)");
        return None;
    }
    let port = free_port();
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(repo())
        .env("CALLPROOF_MCP_URL", format!("http://127.0.0.1:{port}/mcp"))
        .env("CALLPROOF_TOKEN_KEY", key)
        .env_remove("CALLPROOF_DOWNSTREAM_URL");
    Some(HttpServer::spawn(command, port))
}

/// `callproof mcp --url --bearer-file` with a good token: the statuses of the HTTP checks, and the report.
fn http_statuses(server: &HttpServer, key: &str) -> (Vec<String>, Value) {
    let dir = TempDir::new();
    let (_, file) = token_file(&dir, key, &server.url);
    let ran = run_callproof(&["mcp", "--url", &server.url, "--bearer-file", &file, "--format", "json"]);
    let report = ran.report();
    let status = mcp_statuses(&report);
    (HTTP_CHECKS.iter().map(|id| status[*id].clone()).collect(), report)
}

#[test]
fn the_python_sdk_server_with_its_token_verifier_passes_the_http_checks() {
    let key = "sdk-key-".repeat(6);
    let install = "scripts/test installs it";
    let server = "examples/mcp-python/server.py";
    let python = "target/mcp-python-venv/bin/python";
    let Some(server) = token_server(&format!("./{python}"), &[server, "--http"], &key, python, install) else {
        return;
    };
    let (status, report) = http_statuses(&server, &key);
    assert_eq!(status, ["PASS"; 5], "{report:#}");
}

#[test]
fn the_typescript_sdk_server_executes_a_request_from_a_foreign_origin_and_passes_the_auth_checks() {
    let key = "sdk-key-".repeat(6);
    let script = "examples/mcp-typescript/dist/server.js";
    let Some(server) = token_server("node", &[script, "--http"], &key, script, "scripts/test builds it") else {
        return;
    };
    let (status, report) = http_statuses(&server, &key);
    assert_eq!(status, ["PASS", "FAIL", "PASS", "PASS", "PASS"], "{report:#}");
    let origin = &failures(&report, "mcp-http-origin")[0];
    assert!(origin["why"].as_str().expect("why").contains("executed"), "{origin:#}");
}

#[test]
fn a_lax_http_server_fails_every_http_check_and_without_a_bearer_the_auth_checks_say_why_they_skip() {
    let port = free_port();
    let mut command = Command::new("python3");
    command.arg(repo().join("fixtures/mcp/lax_http_server.py")).arg(port.to_string());
    let server = HttpServer::spawn(command, port);
    let dir = TempDir::new();
    // Any token will do: the server accepts all of them, and echoes the one it gets.
    let (token, file) = token_file(&dir, "a key the server never sees", &server.url);
    let ran = run_callproof(&["mcp", "--url", &server.url, "--bearer-file", &file, "--format", "json"]);
    // Neither the token nor its claims or its signature alone (the server's message quotes them).
    for part in token.split('.').skip(1) {
        assert!(!ran.stdout.contains(part) && !ran.stderr.contains(part), "the token was printed: {}", ran.stdout);
    }
    assert!(ran.stdout.contains("<bearer>"), "the echoed token is redacted: {}", ran.stdout);
    let report = ran.report();
    assert_eq!(ran.code, 1, "{report:#}");
    let status = mcp_statuses(&report);
    let why = |id: &str| -> Vec<String> {
        failures(&report, id).iter().map(|failure| failure["why"].as_str().expect("why").to_owned()).collect()
    };
    for id in HTTP_CHECKS {
        let failed = if id == "mcp-http-session-id" { "WARN" } else { "FAIL" };
        assert_eq!(status[id], failed, "{id}: {report:#}");
    }
    assert!(why("mcp-http-session-id")[0].contains("guessable from each other"), "{report:#}");
    let statuses_why = why("mcp-http-error-status");
    assert!(statuses_why[0].contains("not JSON: answered HTTP 500, a server error"), "{statuses_why:?}");
    assert!(statuses_why[1].contains("answered HTTP 200 with a result"), "{statuses_why:?}");
    assert!(why("mcp-http-origin")[0].contains("executed"), "{report:#}");
    let required = why("mcp-auth-required");
    assert!(required[0].contains("served without a token"), "{report:#}");
    for method in ["GET", "DELETE"] {
        let served = format!("{method} without a token was served: HTTP 200");
        assert!(required.iter().any(|why| why.contains(&served)), "{method}: {required:?}");
    }
    let tokens = why("mcp-auth-invalid-token");
    assert!(tokens.len() == 2 && tokens.iter().all(|why| why.contains("accepted")), "{tokens:?}");
    assert!(tokens[1].contains("alg none"), "{tokens:?}");

    let ran = run_callproof(&["mcp", "--url", &server.url]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    for line in [
        "FAIL  mcp-http-error-status",
        "FAIL  mcp-http-origin",
        "WARN  mcp-http-session-id",
        "SKIP  mcp-auth-required",
        "SKIP  mcp-auth-invalid-token",
        "(not judged: no --bearer",
    ] {
        assert!(ran.stdout.contains(line), "{line}:\n{}", ran.stdout);
    }
}

#[test]
fn a_bearer_is_for_a_url_and_a_bad_one_is_a_usage_error_that_never_quotes_it() {
    let secret = "s3cret-token-value";
    let with_server = run_callproof(&["mcp", "--server", "python3 server.py", "--bearer", secret]);
    assert_eq!(with_server.code, 2, "{with_server:?}");
    assert!(with_server.stderr.contains("for --url") && !with_server.stderr.contains(secret), "{with_server:?}");
    let missing = run_callproof(&["mcp", "--url", "http://127.0.0.1:9/mcp", "--bearer-file", "/no/such/token"]);
    assert_eq!(missing.code, 2, "{missing:?}");
    assert!(missing.stderr.contains("/no/such/token"), "{missing:?}");
    let spaced = run_callproof(&["mcp", "--url", "http://127.0.0.1:9/mcp", "--bearer", "has space s3cret"]);
    assert_eq!(spaced.code, 2, "{spaced:?}");
    assert!(spaced.stderr.contains("cannot carry") && !spaced.stderr.contains("s3cret"), "{spaced:?}");
    let both = run_callproof(&["mcp", "--url", "http://127.0.0.1:9/mcp", "--bearer", "a", "--bearer-file", "b"]);
    assert_eq!(both.code, 2, "{both:?}");
}
