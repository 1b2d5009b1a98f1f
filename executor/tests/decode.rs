//! Stage 1 through `Executor::execute`, beyond the malformed corpus: already-parsed arguments, configured
//! limits and their boundaries, layer order, number forms and the canonical hash.

mod support;

use callproof_executor::decode::Limits;
use callproof_executor::{Config, ConfigError, Executor, Tools};
use serde_json::{Value, json};
use support::{World, assert_code, call, call_value, details};

fn nested_arrays(depth: usize) -> Value {
    let mut value = json!([]);
    for _ in 1..depth {
        value = Value::Array(vec![value]);
    }
    value
}

fn with_limits(limits: Limits) -> World {
    World::builder().config(Config { limits, ..Config::default() }).build()
}

#[tokio::test]
async fn parsed_arguments_are_accepted_like_raw_text() {
    let world = World::new();
    let envelope =
        world.execute(call_value("refund_order", json!({"order_id": "ord_123", "amount": 100, "reason": "x"}))).await;
    assert!(envelope.ok, "{:#}", envelope.to_json());
    let raw = world.execute(call("refund_order", r#"{"reason":"x","amount":100,"order_id":"ord_123"}"#)).await;
    assert!(raw.meta.replayed, "the same canonical arguments are the same operation");
    let hashes: Vec<_> = world.audit_records().into_iter().map(|record| record.arguments_hash).collect();
    assert_eq!(hashes[0], hashes[1]);
}

#[tokio::test]
async fn parsed_arguments_nested_too_deeply_are_refused() {
    let world = World::new();
    let envelope =
        world.execute(call_value("refund_order", json!({"order_id": "ord_1", "x": nested_arrays(64)}))).await;
    assert_code(&envelope, "invalid_arguments");
    assert_eq!(details(&envelope)["reason"], "too_deep");
    assert_eq!(details(&envelope)["limit"], 64);
    let shallow = world.execute(call_value("refund_order", json!({"x": nested_arrays(63)}))).await;
    assert_code(&shallow, "schema_violation");
}

#[tokio::test]
async fn parsed_arguments_too_large_are_refused() {
    let world = World::new();
    let big = json!({"order_id": "ord_123", "amount": 100, "reason": "a".repeat(2 * 1024 * 1024)});
    let envelope = world.execute(call_value("refund_order", big)).await;
    assert_code(&envelope, "invalid_arguments");
    assert_eq!(details(&envelope)["reason"], "too_large");
    assert_eq!(details(&envelope)["limit_bytes"], 1024 * 1024);
}

#[tokio::test]
async fn parsed_arguments_must_be_an_object() {
    let world = World::new();
    for (value, found) in [(json!([]), "array"), (json!("{}"), "string"), (json!(1), "number"), (Value::Null, "null")] {
        let envelope = world.execute(call_value("refund_order", value)).await;
        assert_code(&envelope, "invalid_arguments");
        assert_eq!(details(&envelope)["found"], found);
    }
}

#[tokio::test]
async fn parsed_float_forms_for_an_integer_field_are_refused() {
    let world = World::new();
    let envelope =
        world.execute(call_value("refund_order", json!({"order_id": "ord_123", "amount": 100.0, "reason": "x"}))).await;
    assert_code(&envelope, "schema_violation");
    assert_eq!(details(&envelope)["path"], "/amount");
    assert_eq!(details(&envelope)["keyword"], "type");
}

#[tokio::test]
async fn the_size_limit_counts_raw_bytes_and_is_inclusive() {
    let world = with_limits(Limits { max_argument_bytes: 80, ..Limits::default() });
    let base = r#"{"order_id":"ord_123","amount":100,"reason":"duplicate"}"#;
    let at_limit = format!("{base}{}", " ".repeat(80 - base.len()));
    assert!(world.execute(call("refund_order", &at_limit)).await.ok);
    let over = format!("{at_limit} ");
    let envelope = world.execute(call("refund_order", &over)).await;
    assert_code(&envelope, "invalid_arguments");
    assert_eq!(details(&envelope)["size_bytes"], 81);
    assert_eq!(details(&envelope)["limit_bytes"], 80);
}

#[tokio::test]
async fn a_configured_depth_limit_is_honoured_and_reported() {
    let world = with_limits(Limits { max_depth: 3, ..Limits::default() });
    let envelope = world.execute(call("refund_order", r#"{"a":{"b":[{"c":1}]}}"#)).await;
    assert_code(&envelope, "invalid_arguments");
    assert_eq!(details(&envelope)["reason"], "too_deep");
    assert_eq!(details(&envelope)["limit"], 3);
    assert_eq!(details(&envelope)["path"], "/a/b/0");
    assert_code(&world.execute(call("refund_order", r#"{"a":{"b":[1]}}"#)).await, "schema_violation");
}

#[tokio::test]
async fn the_parser_accepts_exactly_sixty_four_levels() {
    let world = World::new();
    let inside = format!(r#"{{"x":{}{}}}"#, "[".repeat(63), "]".repeat(63));
    assert_code(&world.execute(call("refund_order", &inside)).await, "schema_violation");
    let past = format!(r#"{{"x":{}{}}}"#, "[".repeat(64), "]".repeat(64));
    assert_code(&world.execute(call("refund_order", &past)).await, "invalid_arguments");
}

#[test]
fn the_executor_refuses_to_start_with_limits_outside_their_range() {
    let build = |config: Config| Executor::builder(Tools::new()).config(config).build().err();
    let depth = |max_depth| Config { limits: Limits { max_depth, ..Limits::default() }, ..Config::default() };
    assert_eq!(build(depth(0)), Some(ConfigError::MaxDepth { got: 0 }));
    assert_eq!(build(depth(Limits::MAX_DEPTH + 1)), Some(ConfigError::MaxDepth { got: Limits::MAX_DEPTH + 1 }));
    assert_eq!(build(depth(Limits::MAX_DEPTH)), None);
    assert_eq!(build(Config { max_attempts: 0, ..Config::default() }), Some(ConfigError::MaxAttempts));
}

#[tokio::test]
async fn syntax_and_shape_are_checked_before_the_tool_name() {
    let world = World::new();
    assert_code(&world.execute(call("no_such_tool", "{")).await, "invalid_json");
    assert_code(&world.execute(call("no_such_tool", "[]")).await, "invalid_arguments");
    assert_code(&world.execute(call("no_such_tool", "{}")).await, "tool_not_found");
}

#[tokio::test]
async fn all_schema_violations_are_listed_up_to_the_configured_bound() {
    let world = World::new();
    let envelope = world.execute(call("refund_order", "{}")).await;
    assert_eq!(details(&envelope)["violations"].as_array().expect("list").len(), 3);
    assert_eq!(details(&envelope)["violations_truncated"], false);

    let bounded = with_limits(Limits { max_violations: 2, ..Limits::default() });
    let envelope = bounded.execute(call("refund_order", "{}")).await;
    assert_eq!(details(&envelope)["violations"].as_array().expect("list").len(), 2);
    assert_eq!(details(&envelope)["violations_truncated"], true);
}

fn counter_tool() -> Value {
    json!({
        "name": "adjust_counter",
        "version": "1.0.0",
        "description": "Adds `by` to a counter; `scale` is any number.",
        "risk": "write",
        "input_schema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {"by": {"type": "integer"}, "scale": {"type": "number"}},
            "required": ["by"]
        },
        "output_schema": {}
    })
}

#[tokio::test]
async fn negative_zero_is_refused_for_an_integer_field() {
    // Decided in scenarios/corpus/malformed.toml: `-0` is read as a float by serde-style parsers and as an
    // integer by others, so an integer field refuses it rather than guess.
    let world = World::builder().extra(counter_tool()).build();
    let envelope = world.execute(call("adjust_counter", r#"{"by":-0}"#)).await;
    assert_code(&envelope, "schema_violation");
    assert_eq!(details(&envelope)["path"], "/by");
    assert_eq!(details(&envelope)["keyword"], "type");
    assert!(world.execute(call("adjust_counter", r#"{"by":0}"#)).await.ok);
}

#[tokio::test]
async fn number_fields_accept_every_spelling_of_a_value_as_one_operation() {
    let world = World::builder().extra(counter_tool()).build();
    for (index, scale) in ["100", "100.0", "1e2", "1.0E+2"].into_iter().enumerate() {
        let envelope = world.execute(call("adjust_counter", &format!(r#"{{"by":1,"scale":{scale}}}"#))).await;
        assert!(envelope.ok, "{scale}: {:#}", envelope.to_json());
        assert_eq!(envelope.meta.replayed, index > 0, "{scale} is the same canonical number as 100");
    }
    let zero = world.execute(call("adjust_counter", r#"{"by":1,"scale":-0}"#)).await;
    let plain = world.execute(call("adjust_counter", r#"{"by":1,"scale":0}"#)).await;
    assert!(plain.meta.replayed, "-0 and 0 share one canonical form");
    assert_eq!(zero.meta.idempotency_key, plain.meta.idempotency_key);
    assert_eq!(world.tool("adjust_counter").invocations().len(), 2);
}
