//! `callproof-executor --stdio` as a process: what it does with lines it cannot read or accept, and how it
//! bounds the calls it runs at once. Each test talks to the real binary over pipes, with wiremock on loopback
//! as the downstream.

mod support;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;
use support::{ALICE, TENANT};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The binary, serving with an in-memory store and `extra` options.
struct Executor {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Executor {
    fn start(extra: &[&str]) -> Executor {
        let mut child = Command::new(env!("CARGO_BIN_EXE_callproof-executor"))
            .args(["--stdio", "--store", "memory"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Executor { child, stdin, stdout }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write");
        stdin.flush().expect("flush");
    }

    fn send_line(&mut self, message: &Value) {
        self.send(format!("{message}\n").as_bytes());
    }

    fn hello(&mut self, downstream_url: &str) -> Value {
        self.send_line(
            &json!({"type": "hello", "protocol": "callproof/1", "session": "s1", "downstream_url": downstream_url}),
        );
        self.read()
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{line:?} is not JSON: {error}"))
    }

    /// Closes stdin, reads what is left of stdout, and returns it with the exit code and stderr.
    fn finish(mut self) -> (Vec<Value>, Option<i32>, String) {
        drop(self.stdin.take());
        let rest: Vec<Value> =
            self.stdout.lines().map(|line| serde_json::from_str(&line.expect("read")).expect("JSON")).collect();
        let output = self.child.wait_with_output().expect("it exits");
        (rest, output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn get_order(id: &str, attempt: u32) -> Value {
    json!({
        "type": "execute", "id": id,
        "call": {"call_id": format!("call_{id}"), "name": "get_order", "arguments": {"value": {"order_id": "ord_123"}}},
        "auth": {"subject_id": ALICE, "tenant_id": TENANT, "scopes": ["orders:read"], "roles": [], "identity": {"valid": true}},
        "business_request_id": null, "attempt": attempt, "budget_ms": 5000
    })
}

/// A downstream whose order lookup answers after `delay`.
async fn downstream(delay: Duration) -> MockServer {
    let server = MockServer::start().await;
    let order = json!({"order_id": "ord_123", "tenant_id": TENANT, "owner_id": ALICE, "refundable_amount": 100,
                       "status": "paid", "note": ""});
    Mock::given(method("GET"))
        .and(path("/orders/ord_123"))
        .respond_with(ResponseTemplate::new(200).set_body_json(order).set_delay(delay))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_line_that_is_not_utf8_ends_the_session_with_an_error_and_a_failing_exit() {
    let server = downstream(Duration::ZERO).await;
    let mut executor = Executor::start(&[]);
    assert_eq!(executor.hello(&server.uri())["type"], "capabilities");
    executor.send(b"{\"type\":\"execute\",\"id\":\"\xff\"}\n");
    let (rest, code, stderr) = executor.finish();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["type"], "error");
    assert!(rest[0]["message"].as_str().expect("a message").contains("not UTF-8"), "{rest:?}");
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("not UTF-8"), "{stderr}");
}

#[tokio::test]
async fn stdin_that_ends_in_the_middle_of_a_line_is_a_failing_exit_and_a_clean_end_is_not() {
    let server = downstream(Duration::ZERO).await;
    let mut cut = Executor::start(&[]);
    cut.hello(&server.uri());
    cut.send(b"{\"type\":\"execute\",\"id\":\"1\"");
    let (rest, code, stderr) = cut.finish();
    assert_eq!(rest.first().map(|line| &line["type"]), Some(&json!("error")), "{rest:?}");
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("middle of a line"), "{stderr}");

    let mut clean = Executor::start(&[]);
    clean.hello(&server.uri());
    clean.send_line(&get_order("1", 1));
    let (rest, code, stderr) = clean.finish();
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(
        (rest[0]["type"].as_str(), rest[0]["envelope"]["ok"].as_bool()),
        (Some("result"), Some(true)),
        "{rest:?}"
    );
    assert_eq!(code, Some(0), "{stderr}");
}

#[tokio::test]
async fn attempt_zero_is_refused_naming_the_request() {
    let server = downstream(Duration::ZERO).await;
    let mut executor = Executor::start(&[]);
    executor.hello(&server.uri());
    executor.send_line(&get_order("7", 0));
    let refused = executor.read();
    assert_eq!((refused["type"].as_str(), refused["id"].as_str()), (Some("error"), Some("7")), "{refused}");
    assert!(refused["message"].as_str().expect("a message").contains("attempt"), "{refused}");
    assert!(server.received_requests().await.expect("recorded").is_empty(), "nothing reached the downstream");
    let (_, code, stderr) = executor.finish();
    assert_eq!(code, Some(0), "a refused message does not end the session: {stderr}");
}

#[tokio::test]
async fn an_unusable_downstream_url_is_refused_at_hello() {
    for url in ["not a url", "ftp://127.0.0.1:21", "http://", "http://127.0.0.1:1/?x=1"] {
        let mut executor = Executor::start(&[]);
        let refused = executor.hello(url);
        assert_eq!(refused["type"], "error", "{url}: {refused}");
        assert!(refused["message"].as_str().expect("a message").contains("is not usable"), "{url}: {refused}");
        let (_, code, stderr) = executor.finish();
        assert_ne!(code, Some(0), "{url}: {stderr}");
    }
}

#[tokio::test]
async fn a_request_id_still_in_flight_is_refused_and_free_again_once_answered() {
    let server = downstream(Duration::from_millis(1_000)).await;
    let mut executor = Executor::start(&[]);
    executor.hello(&server.uri());
    executor.send_line(&get_order("1", 1));
    executor.send_line(&get_order("1", 2));
    let first = executor.read();
    assert_eq!((first["type"].as_str(), first["id"].as_str()), (Some("error"), Some("1")), "{first}");
    assert!(first["message"].as_str().expect("a message").contains("already in flight"), "{first}");
    let answered = executor.read();
    assert_eq!(
        (answered["type"].as_str(), answered["envelope"]["meta"]["attempt"].as_u64()),
        (Some("result"), Some(1))
    );
    executor.send_line(&get_order("1", 3));
    let again = executor.read();
    assert_eq!((again["type"].as_str(), again["envelope"]["meta"]["attempt"].as_u64()), (Some("result"), Some(3)));
    let (_, code, _) = executor.finish();
    assert_eq!(code, Some(0));
}

#[tokio::test]
async fn past_max_in_flight_the_next_line_waits_until_a_call_finishes() {
    // With one call at a time, the second line is read only once the first call is answered, so reusing its
    // id is no longer a clash: both are answered, in order, and none is refused.
    let server = downstream(Duration::from_millis(300)).await;
    let mut executor = Executor::start(&["--max-in-flight", "1"]);
    executor.hello(&server.uri());
    executor.send_line(&get_order("1", 1));
    executor.send_line(&get_order("1", 2));
    let (mut rest, code, stderr) = executor.finish();
    rest.retain(|line| line["type"] != "capabilities");
    let attempts: Vec<(Option<&str>, Option<u64>)> =
        rest.iter().map(|line| (line["type"].as_str(), line["envelope"]["meta"]["attempt"].as_u64())).collect();
    assert_eq!(attempts, [(Some("result"), Some(1)), (Some("result"), Some(2))], "{stderr}");
    assert_eq!(code, Some(0));
}

#[test]
fn max_in_flight_must_be_a_positive_number() {
    for bad in ["0", "-1", "many"] {
        let output = Command::new(env!("CARGO_BIN_EXE_callproof-executor"))
            .args(["--stdio", "--store", "memory", "--max-in-flight", bad])
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--max-in-flight"), "{bad}");
    }
}
