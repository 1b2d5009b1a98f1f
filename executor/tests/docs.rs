//! The published contract stays true to the code: docs/errors.md has a section and a table row per code that
//! agree with `ErrorCode::table()`, and docs/envelope.schema.json names exactly the wire strings, encodes the
//! same table, and actually refuses malformed envelopes.

mod support;

use callproof_executor::error::{Category, CodeInfo, Effect, ErrorCode, Resolution};
use callproof_executor::{Envelope, ErrorBody, Meta};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use support::{envelope_schema, schema_errors};

fn errors_md() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/errors.md");
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn wire<T: serde::Serialize>(value: T) -> String {
    serde_json::to_value(value).expect("serialize").as_str().expect("a string enum").to_owned()
}

/// Every category. The match makes this fail to compile when a category is added.
fn all_categories() -> Vec<Category> {
    let all = [
        Category::Input,
        Category::Protocol,
        Category::Authorization,
        Category::Business,
        Category::Idempotency,
        Category::Dependency,
        Category::Timeout,
        Category::Contract,
        Category::Internal,
    ];
    for category in all {
        match category {
            Category::Input
            | Category::Protocol
            | Category::Authorization
            | Category::Business
            | Category::Idempotency
            | Category::Dependency
            | Category::Timeout
            | Category::Contract
            | Category::Internal => {}
        }
    }
    all.to_vec()
}

/// Every resolution. The match makes this fail to compile when a resolution is added.
fn all_resolutions() -> Vec<Resolution> {
    let all = [
        Resolution::RepairArguments,
        Resolution::RefreshTools,
        Resolution::Reauthenticate,
        Resolution::Stop,
        Resolution::AskUser,
        Resolution::Poll,
        Resolution::RetrySameKey,
        Resolution::RetryAfter,
        Resolution::Reconcile,
        Resolution::Inspect,
    ];
    for resolution in all {
        match resolution {
            Resolution::RepairArguments
            | Resolution::RefreshTools
            | Resolution::Reauthenticate
            | Resolution::Stop
            | Resolution::AskUser
            | Resolution::Poll
            | Resolution::RetrySameKey
            | Resolution::RetryAfter
            | Resolution::Reconcile
            | Resolution::Inspect => {}
        }
    }
    all.to_vec()
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

fn effect(info: &CodeInfo) -> &'static str {
    match info.effect {
        Effect::None => "none",
        Effect::Unknown => "unknown",
    }
}

// ---- docs/errors.md ---------------------------------------------------------------------------------------

#[test]
fn errors_md_has_a_section_for_every_code_and_no_section_for_an_unknown_one() {
    let text = errors_md();
    let headings: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("## ")).collect();
    for code in ErrorCode::ALL {
        assert!(headings.contains(&code.as_str()), "docs/errors.md has no `## {code}` section");
    }
    for heading in headings {
        assert!(
            ErrorCode::from_wire(heading).is_some() || heading == "Resolutions",
            "docs/errors.md has a section `## {heading}` that is neither a code nor a known topic"
        );
    }
}

#[test]
fn errors_md_lists_the_codes_in_table_order() {
    let text = errors_md();
    let order: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .filter(|heading| ErrorCode::from_wire(heading).is_some())
        .collect();
    let expected: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
    assert_eq!(order, expected);
}

#[test]
fn errors_md_table_agrees_with_the_code_table() {
    let text = errors_md();
    let rows: BTreeMap<String, Vec<String>> = text
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<String> =
                line.trim_matches('|').split('|').map(|cell| cell.trim().trim_matches('`').to_owned()).collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .filter(|(first, _)| ErrorCode::from_wire(first).is_some())
        .collect();
    assert_eq!(rows.len(), ErrorCode::ALL.len(), "one table row per code");
    for info in ErrorCode::table() {
        let row = rows.get(info.code).unwrap_or_else(|| panic!("no table row for {}", info.code));
        let expected = vec![
            wire(info.category),
            yes_no(info.retryable).to_owned(),
            wire(info.resolution),
            effect(&info).to_owned(),
            yes_no(info.expose_to_user).to_owned(),
        ];
        assert_eq!(row, &expected, "table row of {}", info.code);
    }
}

#[test]
fn every_code_section_opens_with_its_table_row() {
    let text = errors_md();
    for info in ErrorCode::table() {
        let section = text.split(&format!("\n## {}\n", info.code)).nth(1).expect("a section");
        let body = section.split("\n## ").next().expect("a body");
        let first = body.lines().find(|line| !line.trim().is_empty()).expect("a first line");
        let expected = format!(
            "- **Category** {} · **retryable** {} · **resolution** {} · **effect** {}",
            wire(info.category),
            yes_no(info.retryable),
            wire(info.resolution),
            effect(&info)
        );
        assert_eq!(first, expected, "section {}", info.code);
        for part in ["**When:**", "**Details:**", "**Caller:**"] {
            assert!(body.contains(part), "section {} lacks {part}", info.code);
        }
    }
}

#[test]
fn errors_md_explains_every_resolution() {
    let text = errors_md();
    for resolution in all_resolutions() {
        let row = format!("| `{}` |", wire(resolution));
        assert!(text.contains(&row), "docs/errors.md does not explain resolution {}", wire(resolution));
    }
}

// ---- docs/envelope.schema.json ----------------------------------------------------------------------------

fn strings(value: &Value) -> Vec<String> {
    value.as_array().expect("an array").iter().map(|item| item.as_str().expect("a string").to_owned()).collect()
}

#[test]
fn the_schema_is_a_valid_draft_2020_12_schema() {
    let schema = envelope_schema();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    jsonschema::meta::validate(&schema).unwrap_or_else(|error| panic!("not a valid schema: {error}"));
}

#[test]
fn the_schemas_code_enum_is_exactly_the_wire_strings_in_order() {
    let schema = envelope_schema();
    let expected: Vec<String> = ErrorCode::ALL.iter().map(|code| code.as_str().to_owned()).collect();
    assert_eq!(strings(&schema["$defs"]["code"]["enum"]), expected);
}

#[test]
fn the_schemas_category_and_resolution_enums_are_complete() {
    let schema = envelope_schema();
    let categories: BTreeSet<String> = all_categories().into_iter().map(wire).collect();
    let resolutions: BTreeSet<String> = all_resolutions().into_iter().map(wire).collect();
    assert_eq!(strings(&schema["$defs"]["category"]["enum"]).into_iter().collect::<BTreeSet<_>>(), categories);
    assert_eq!(strings(&schema["$defs"]["resolution"]["enum"]).into_iter().collect::<BTreeSet<_>>(), resolutions);
}

#[test]
fn the_schema_encodes_the_code_table_row_by_row() {
    let schema = envelope_schema();
    let rules = schema["$defs"]["error"]["allOf"].as_array().expect("allOf");
    for info in ErrorCode::table() {
        let row = rules
            .iter()
            .find(|rule| {
                rule["if"]["properties"]["code"]["const"] == info.code
                    && rule["then"]["properties"].get("category").is_some()
            })
            .unwrap_or_else(|| panic!("no table rule for {}", info.code));
        let then = &row["then"]["properties"];
        assert_eq!(then["category"]["const"], wire(info.category), "{}", info.code);
        assert_eq!(then["retryable"]["const"], info.retryable, "{}", info.code);
        assert_eq!(then["resolution"]["const"], wire(info.resolution), "{}", info.code);
        assert_eq!(then["expose_to_model"]["const"], info.expose_to_model, "{}", info.code);
        assert_eq!(then["expose_to_user"]["const"], info.expose_to_user, "{}", info.code);
    }
}

fn meta() -> Meta {
    Meta {
        request_id: "req_1".to_owned(),
        call_id: "call_1".to_owned(),
        attempt: 1,
        idempotency_key: Some("0".repeat(64)),
        replayed: false,
        reconciled: false,
    }
}

#[test]
fn the_schema_accepts_every_code_with_its_table_flags() {
    for code in ErrorCode::ALL {
        let mut body = ErrorBody::new(code, "x");
        // The details some codes always carry, per docs/errors.md.
        for key in ["line", "column", "offset", "retry_after_ms"] {
            body = body.with(key, 1);
        }
        body = body.with("reason", "too_large").with("path", "").with("keyword", "type").with("tool", "t");
        let json = Envelope::failure(body, meta()).to_json();
        assert_eq!(schema_errors(&json), Vec::<String>::new(), "{code}");
    }
}

fn changed(envelope: &Value, change: impl FnOnce(&mut Value)) -> Value {
    let mut envelope = envelope.clone();
    change(&mut envelope);
    envelope
}

#[test]
fn the_schema_refuses_malformed_envelopes() {
    let success = Envelope::success(json!({"a": 1}), meta()).to_json();
    let failure = Envelope::failure(ErrorBody::new(ErrorCode::Forbidden, "no"), meta()).to_json();
    assert_eq!(schema_errors(&success), Vec::<String>::new());
    assert_eq!(schema_errors(&failure), Vec::<String>::new());
    let remove = |envelope: &mut Value, pointer: &str, key: &str| {
        envelope.pointer_mut(pointer).and_then(Value::as_object_mut).expect("an object").remove(key);
    };
    let mutations: Vec<(&str, Value)> = vec![
        ("both result and error", changed(&success, |json| json["error"] = failure["error"].clone())),
        ("neither result nor error", changed(&success, |json| remove(json, "", "result"))),
        ("ok true with an error", changed(&failure, |json| json["ok"] = json!(true))),
        ("flags that disagree with the code", changed(&failure, |json| json["error"]["retryable"] = json!(true))),
        ("a resolution of another code", changed(&failure, |json| json["error"]["resolution"] = json!("poll"))),
        ("an unknown code", changed(&failure, |json| json["error"]["code"] = json!("teapot"))),
        ("a missing request id", changed(&success, |json| remove(json, "/meta", "request_id"))),
        ("a key that is not a SHA-256", changed(&success, |json| json["meta"]["idempotency_key"] = json!("abc"))),
        ("reconciled written as false", changed(&success, |json| json["meta"]["reconciled"] = json!(false))),
        ("an extra top-level member", changed(&success, |json| json["debug"] = json!("stack trace"))),
        (
            "rate_limited without retry_after_ms",
            Envelope::failure(ErrorBody::new(ErrorCode::RateLimited, "slow down"), meta()).to_json(),
        ),
        (
            "schema_violation without a path",
            Envelope::failure(ErrorBody::new(ErrorCode::SchemaViolation, "bad").with("keyword", "type"), meta())
                .to_json(),
        ),
    ];
    for (what, json) in mutations {
        assert!(!schema_errors(&json).is_empty(), "the schema accepted {what}: {json}");
    }
}
