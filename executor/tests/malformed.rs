//! The named malformed-input corpus (scenarios/corpus/malformed.toml) through a real executor.
//!
//! Every case must be refused with its code and listed details, and none may reach a tool. Failures are
//! collected and reported together, by case name.

mod support;

use callproof_executor::audit::Decision;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeSet;
use support::{World, call};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    tool: String,
    #[serde(default)]
    arguments: Option<String>,
    #[serde(default)]
    generate: Option<Generate>,
    code: String,
    #[serde(default)]
    details: toml::Table,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Generate {
    DeepNesting { depth: usize },
    HugeString { bytes: usize, fill: Option<char> },
    ManyKeys { count: usize },
    Repeated { arguments: String, text: String, count: usize },
}

impl Case {
    fn arguments(&self) -> String {
        match (&self.arguments, &self.generate) {
            (Some(text), None) => text.clone(),
            (None, Some(Generate::DeepNesting { depth })) => format!("{}{}", "[".repeat(*depth), "]".repeat(*depth)),
            (None, Some(Generate::HugeString { bytes, fill })) => {
                let fill = fill.unwrap_or('a');
                let reason = fill.to_string().repeat(bytes / fill.len_utf8());
                format!(r#"{{"order_id":"ord_123","amount":100,"reason":"{reason}"}}"#)
            }
            (None, Some(Generate::ManyKeys { count })) => {
                let mut text = String::from(r#"{"order_id":"ord_123","amount":100,"reason":"duplicate""#);
                for index in 0..*count {
                    text.push_str(&format!(r#","k{index}":0"#));
                }
                text.push('}');
                text
            }
            (None, Some(Generate::Repeated { arguments, text, count })) => {
                arguments.replacen("{repeat}", &text.repeat(*count), 1)
            }
            _ => panic!("case {}: give exactly one of `arguments` and `generate`", self.name),
        }
    }
}

fn corpus() -> Vec<Case> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/corpus/malformed.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let corpus: Corpus = toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    corpus.case
}

fn toml_to_json(value: &toml::Value) -> Value {
    serde_json::to_value(value).expect("TOML detail values are JSON values")
}

#[test]
fn the_corpus_is_large_and_its_names_are_unique_snake_case() {
    let cases = corpus();
    assert!(cases.len() >= 45, "only {} cases", cases.len());
    let mut names = BTreeSet::new();
    for case in &cases {
        assert!(names.insert(case.name.as_str()), "duplicate case name {}", case.name);
        assert!(
            case.name.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_'),
            "case name {} is not snake_case",
            case.name
        );
        assert!(callproof_executor::ErrorCode::from_wire(&case.code).is_some(), "{}: unknown code", case.name);
        assert!(!case.details.is_empty(), "{}: name at least one detail that matters", case.name);
    }
}

#[tokio::test]
async fn every_malformed_case_is_refused_with_its_code_and_details_before_any_tool_runs() {
    let world = World::new();
    let cases = corpus();
    let mut failures = Vec::new();
    for case in &cases {
        let envelope = world.execute(call(&case.tool, &case.arguments())).await;
        let json = envelope.to_json();
        let mut problems = Vec::new();
        if json["error"]["code"] != case.code.as_str() {
            problems.push(format!("code {} (expected {})", json["error"]["code"], case.code));
        }
        for (key, expected) in &case.details {
            let expected = toml_to_json(expected);
            let found = &json["error"]["details"][key];
            if *found != expected {
                problems.push(format!("details.{key} = {found} (expected {expected})"));
            }
        }
        if !problems.is_empty() {
            let mut shown = json["error"].to_string();
            shown.truncate(600);
            failures.push(format!("{}: {}\n    error: {shown}", case.name, problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert_eq!(world.tool_calls(), 0, "a malformed call reached a tool");
}

#[tokio::test]
async fn every_malformed_case_leaves_one_audit_record_that_denies_or_never_authorizes() {
    let world = World::new();
    let cases = corpus();
    for case in &cases {
        world.execute(call(&case.tool, &case.arguments())).await;
    }
    let records = world.audit_records();
    assert_eq!(records.len(), cases.len());
    for (case, record) in cases.iter().zip(&records) {
        assert_eq!(record.error_code.as_deref(), Some(case.code.as_str()), "{}", case.name);
        assert_eq!(
            record.authorization,
            Decision::NotEvaluated,
            "{}: decode failures never reach authorization",
            case.name
        );
        assert_eq!(record.idempotency_key, None, "{}", case.name);
        assert_eq!(record.arguments, None, "{}", case.name);
        assert!(record.tool.chars().count() <= 64, "{}", case.name);
    }
}
