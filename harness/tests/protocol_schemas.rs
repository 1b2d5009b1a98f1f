//! The protocol's JSON Schemas (docs/protocol/) describe what the harness and the reference binary really
//! send: a hello and execute messages as the harness writes them, and the capabilities and results the
//! reference binary answers, each validated against its schema.

mod process_support;

use callproof_executor::{AuthContext, ToolCall};
use callproof_harness::protocol::{self, Hello, ToExecutor, VERSION};
use callproof_harness::subject::SubjectCall;
use process_support::{executor_binary, repo};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join(format!("docs/protocol/{name}.schema.json"))).expect("read");
    let schema: Value = serde_json::from_str(&text).expect("JSON");
    jsonschema::draft202012::options().should_validate_formats(true).build(&schema).expect("a valid schema")
}

fn assert_fits(name: &str, message: &Value) {
    let errors: Vec<String> = validator(name)
        .iter_errors(message)
        .map(|error| format!("{}: {error}", error.instance_path().as_str()))
        .collect();
    assert!(errors.is_empty(), "{name}: {message}\n{}", errors.join("\n"));
}

fn hello() -> Value {
    let catalog =
        callproof_executor::app::catalog().iter().map(|entry| serde_json::to_value(entry).expect("json")).collect();
    let hello = ToExecutor::Hello(Hello {
        protocol: VERSION.into(),
        session: "cp_test_1".into(),
        downstream_url: "http://127.0.0.1:9".into(),
        catalog,
    });
    serde_json::to_value(hello).expect("json")
}

fn execute(id: &str, call: ToolCall, auth: AuthContext) -> Value {
    let call = SubjectCall { call, auth, business_request_id: None, attempt: 1, budget: Duration::from_millis(500) };
    serde_json::to_value(protocol::execute(id.into(), call)).expect("json")
}

#[test]
fn the_harness_messages_fit_their_schemas() {
    assert_fits("hello", &hello());
    let mut auth = AuthContext::new("u_alice", "t_acme", &["refunds:write"]);
    assert_fits("execute", &execute("1", ToolCall::raw("call_1", "refund_order", "{\"a\":1,\"a\":2"), auth.clone()));
    auth.approval = Some(callproof_executor::Approval {
        approval_id: "appr_1".into(),
        subject_id: "u_alice".into(),
        tenant_id: "t_acme".into(),
        tool: "delete_account".into(),
        arguments_hash: "0".repeat(64),
        risk: callproof_executor::Risk::Destructive,
        expires_at_ms: 1,
    });
    auth.allowed_tools = Some(["delete_account".to_owned()].into());
    assert_fits(
        "execute",
        &execute("2", ToolCall::value("call_2", "delete_account", json!(["not", "an", "object"])), auth),
    );
    let mut wrong = hello();
    wrong["protocol"] = json!("callproof/0");
    assert!(!validator("hello").is_valid(&wrong), "the schema pins the version");
}

#[test]
fn the_reference_binary_answers_with_messages_that_fit_their_schemas() {
    let mut child = Command::new(executor_binary())
        .args(["--stdio", "--store", "memory"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    writeln!(stdin, "{}", hello()).expect("write");
    stdout.read_line(&mut line).expect("read");
    let capabilities: Value = serde_json::from_str(&line).expect("JSON");
    assert_fits("capabilities", &capabilities);

    let auth = AuthContext::new("u_alice", "t_acme", &["refunds:write"]);
    writeln!(stdin, "{}", execute("a", ToolCall::raw("call_1", "refund_order", "{\"amount\":"), auth.clone()))
        .expect("write");
    writeln!(stdin, "{}", execute("b", ToolCall::raw("call_2", "Refund_Order", "{}"), auth)).expect("write");
    writeln!(stdin, "{{\"type\":\"execute\",\"id\":\"c\"}}").expect("write");
    drop(stdin);
    let mut answered = Vec::new();
    for line in stdout.lines() {
        let message: Value = serde_json::from_str(&line.expect("a line")).expect("JSON");
        match message["type"].as_str() {
            Some("result") => assert_fits("result", &message),
            Some("error") => assert_fits("error", &message),
            other => panic!("unexpected {other:?}: {message}"),
        }
        answered.push((message["id"].as_str().unwrap_or_default().to_owned(), message["type"].clone()));
    }
    answered.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        answered,
        vec![("a".into(), json!("result")), ("b".into(), json!("result")), ("c".into(), json!("error"))]
    );
    assert!(child.wait().expect("exits").success(), "it exits cleanly at the end of stdin");
}
