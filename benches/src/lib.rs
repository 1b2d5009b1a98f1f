//! Fixtures shared by the criterion benches in `benches/benches/` and the ratio table (`src/bin/ratios.rs`).
//! Start here.
//!
//! Rule enforced here: every side of a comparison reads the same payloads and the same schemas. The payloads and
//! the create_order schema live in `benches/fixtures/` (the Python baseline reads the same files); the refund
//! schema is the conformance catalog's `refund_order`. The hand-assembled baselines are plain functions here, so a
//! test can check that they agree with the executor on what is valid and what the canonical text is.

use async_trait::async_trait;
use callproof_executor::app::catalog;
use callproof_executor::canonical::Sha256Hex;
use callproof_executor::decode::{Decoded, Limits, decode};
use callproof_executor::idempotency::{KeyInput, derive_key};
use callproof_executor::tool::{Output, ToolContext, ToolFailure};
use callproof_executor::{AuthContext, Risk, Tool, ToolCall, ToolSpec, Tools};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The create_order input schema (strict-mode style: every object closed, every property required).
pub const CREATE_ORDER_SCHEMA: &str = include_str!("../fixtures/create_order.schema.json");
/// A valid create_order payload of about 4 KiB.
pub const CREATE_ORDER_4K: &str = include_str!("../fixtures/create_order_4k.json");
/// A valid create_order payload of about 64 KiB.
pub const CREATE_ORDER_64K: &str = include_str!("../fixtures/create_order_64k.json");
/// The refund payloads of each decode layer, by case name.
pub const REFUND_CASES: &str = include_str!("../fixtures/refund_cases.json");
/// Refund payloads the strict decode refuses and a lenient peer may accept (only the peers' table uses them).
pub const ACCEPTANCE_CASES: &str = include_str!("../fixtures/acceptance_cases.json");

/// One payload of the decode benches.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case name, as used in bench ids and in the Python baseline's output.
    pub name: &'static str,
    /// The tool it is sent to.
    pub tool: &'static str,
    /// The raw argument text.
    pub arguments: String,
    /// Whether the executor accepts it.
    pub valid: bool,
}

/// Every decode case, in table order: the refund layers, then the large orders.
pub fn cases() -> Vec<Case> {
    let refund: Value = serde_json::from_str(REFUND_CASES).expect("fixtures/refund_cases.json is JSON");
    let refund_case = |name: &'static str, valid: bool| Case {
        name,
        tool: "refund_order",
        arguments: refund[name].as_str().expect("each refund case is a string").to_owned(),
        valid,
    };
    vec![
        refund_case("refund_valid", true),
        refund_case("refund_invalid_json", false),
        refund_case("refund_duplicate_key", false),
        refund_case("refund_string_for_integer", false),
        refund_case("refund_unknown_field", false),
        Case { name: "order_4k", tool: "create_order", arguments: CREATE_ORDER_4K.to_owned(), valid: true },
        Case { name: "order_64k", tool: "create_order", arguments: CREATE_ORDER_64K.to_owned(), valid: true },
    ]
}

/// The payloads of the peers' acceptance table: the rejected decode cases, then `fixtures/acceptance_cases.json`
/// (a float literal for an integer, a duplicate key whose first value is invalid), all refused by the executor.
pub fn acceptance_cases() -> Vec<Case> {
    let extra: serde_json::Map<String, Value> =
        serde_json::from_str(ACCEPTANCE_CASES).expect("fixtures/acceptance_cases.json is a JSON object");
    let extra = extra.into_iter().map(|(name, text)| Case {
        name: String::leak(name),
        tool: "refund_order",
        arguments: text.as_str().expect("each acceptance case is a string").to_owned(),
        valid: false,
    });
    cases().into_iter().filter(|case| !case.valid).chain(extra).collect()
}

/// The case called `name`.
pub fn case(name: &str) -> Case {
    cases().into_iter().find(|case| case.name == name).unwrap_or_else(|| panic!("no case {name}"))
}

/// The input schema of `tool` (`refund_order` or `create_order`).
pub fn input_schema(tool: &str) -> Value {
    match tool {
        "create_order" => serde_json::from_str(CREATE_ORDER_SCHEMA).expect("fixtures/create_order.schema.json"),
        _ => spec_of(tool).input_schema,
    }
}

fn spec_of(tool: &str) -> ToolSpec {
    catalog()
        .into_iter()
        .find(|entry| entry.spec.name == tool)
        .map(|entry| entry.spec)
        .unwrap_or_else(|| panic!("no catalog tool {tool}"))
}

/// A tool that does nothing and answers a fixed, schema-valid result: the executor's own cost, no I/O.
pub struct NoopTool {
    spec: ToolSpec,
    answer: Value,
}

impl NoopTool {
    /// The catalog's `refund_order` contract, answering a completed refund.
    pub fn refund() -> NoopTool {
        let answer = json!({"refund_id": "rf_1", "order_id": "ord_123", "amount": 100, "status": "completed"});
        NoopTool { spec: spec_of("refund_order"), answer }
    }

    /// A `create_order` tool with the fixture schema, answering an order id.
    pub fn create_order() -> NoopTool {
        let spec = ToolSpec {
            name: "create_order".to_owned(),
            version: "1.0.0".to_owned(),
            description: "Place an order.".to_owned(),
            input_schema: input_schema("create_order"),
            output_schema: json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"]
            }),
            risk: Risk::Financial,
            required_scopes: vec!["orders:write".to_owned()],
            requires_approval: false,
            repeatable: false,
        };
        NoopTool { spec, answer: json!({"order_id": "ord_7Hq2Lx9Pz"}) }
    }
}

#[async_trait]
impl Tool for NoopTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, _ctx: &ToolContext<'_>, _arguments: &Value) -> Result<Output, ToolFailure> {
        Ok(self.answer.clone().into())
    }
}

/// `refund_order` and `create_order` as no-op tools.
pub fn noop_tools() -> Tools {
    let mut tools = Tools::new();
    tools.register(Arc::new(NoopTool::refund())).expect("refund_order registers");
    tools.register(Arc::new(NoopTool::create_order())).expect("create_order registers");
    tools
}

/// The caller of every bench: owner of ord_123 in tenant t_1, with the scopes both tools need.
pub fn caller() -> AuthContext {
    AuthContext::new("u_1", "t_1", &["refunds:write", "orders:write"])
}

/// A prebuilt Draft 2020-12 validator of `schema`, with formats on, as the executor builds its own (minus the
/// integer-literal keyword, which is the executor's addition).
pub fn plain_validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::options().should_validate_formats(true).build(schema).expect("schema compiles")
}

/// The hand-assembled floor: parse, validate, serialize with sorted keys, SHA-256 as hex. No duplicate-key or
/// depth check, no integer-literal rule, one hash; what any executor must at least do. `None` when invalid.
pub fn floor(text: &str, validator: &jsonschema::Validator) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    if !validator.is_valid(&value) {
        return None;
    }
    // serde_json's Map is a BTreeMap in this workspace (no `preserve_order`): keys come out sorted.
    let sorted = serde_json::to_vec(&value).ok()?;
    Some(hex(&Sha256::digest(&sorted)))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = [0u8; 64];
    for (pair, byte) in text.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0x0f)];
    }
    std::str::from_utf8(&text[..bytes.len() * 2]).expect("hex digits are ASCII").to_owned()
}

/// What the executor does with a call before it claims: the strict decode, then the idempotency key without a
/// business request id (one SHA-256 over tenant, subject, tool and the digest the decode already computed, then
/// its hex). Only valid cases are timed this way: a refused one panics, naming the case's tool.
pub fn decode_and_key<'t>(
    call: &ToolCall,
    tools: &'t Tools,
    limits: &Limits,
    auth: &AuthContext,
) -> (Decoded<'t>, Sha256Hex) {
    let decoded = decode(call, tools, limits).unwrap_or_else(|error| panic!("{}: {error:?}", call.name));
    let key = derive_key(&KeyInput {
        auth,
        tool: &decoded.tool.spec().name,
        arguments_digest: &decoded.arguments_digest,
        business_request_id: None,
        call_id: &call.call_id,
        attempt: 1,
    });
    (decoded, key)
}

/// Runs `routines` in alternation, `batch` calls of each per round, for `rounds` rounds, and returns each one's
/// median time per call in ns. Alternating batch by batch makes a busy machine's slow spells hit every routine
/// alike, so ratios of these medians hold still where separately measured medians drift.
pub fn paired(rounds: usize, batch: usize, routines: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let mut samples = vec![Vec::with_capacity(rounds); routines.len()];
    for _ in 0..rounds {
        for (routine, samples) in routines.iter_mut().zip(&mut samples) {
            let start = std::time::Instant::now();
            for _ in 0..batch {
                routine();
            }
            samples.push(start.elapsed().as_nanos() as f64 / batch as f64);
        }
    }
    samples
        .into_iter()
        .map(|mut samples| {
            samples.sort_by(f64::total_cmp);
            samples[samples.len() / 2]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use callproof_executor::decode::{Limits, decode};
    use callproof_executor::{ErrorCode, ToolCall};

    #[test]
    fn every_case_decodes_as_labelled() {
        let tools = noop_tools();
        for case in cases() {
            let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
            let decoded = decode(&call, &tools, &Limits::default());
            assert_eq!(decoded.is_ok(), case.valid, "{}: {:?}", case.name, decoded.err());
        }
    }

    #[test]
    fn every_acceptance_case_is_refused() {
        let tools = noop_tools();
        let cases = acceptance_cases();
        assert_eq!(cases.len(), 6);
        for case in cases {
            let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
            assert!(decode(&call, &tools, &Limits::default()).is_err(), "{}", case.name);
        }
    }

    #[test]
    fn each_rejection_case_is_refused_by_its_own_layer() {
        let tools = noop_tools();
        let refusal = |name: &str| {
            let case = case(name);
            let call = ToolCall::raw("call_1", case.tool, case.arguments);
            let error = decode(&call, &tools, &Limits::default()).expect_err(name);
            (error.code(), error.details().get("reason").cloned(), error.details().get("keyword").cloned())
        };
        assert_eq!(refusal("refund_invalid_json").0, ErrorCode::InvalidJson);
        assert_eq!(refusal("refund_duplicate_key"), (ErrorCode::InvalidArguments, Some(json!("duplicate_key")), None));
        assert_eq!(refusal("refund_string_for_integer"), (ErrorCode::SchemaViolation, None, Some(json!("type"))));
        assert_eq!(
            refusal("refund_unknown_field"),
            (ErrorCode::SchemaViolation, None, Some(json!("additionalProperties")))
        );
    }

    #[test]
    fn payload_sizes_are_as_named() {
        assert!((3 * 1024..=4 * 1024).contains(&CREATE_ORDER_4K.len()), "{}", CREATE_ORDER_4K.len());
        assert!((60 * 1024..=64 * 1024).contains(&CREATE_ORDER_64K.len()), "{}", CREATE_ORDER_64K.len());
    }

    #[test]
    fn the_order_schema_fits_strict_mode() {
        let findings = callproof_executor::lint::lint_strict(&input_schema("create_order"));
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn the_floor_hashes_the_same_canonical_text_as_the_executor() {
        let tools = noop_tools();
        for case in cases().into_iter().filter(|case| case.valid) {
            let validator = plain_validator(&input_schema(case.tool));
            let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
            let decoded = decode(&call, &tools, &Limits::default()).expect("valid");
            assert_eq!(floor(&case.arguments, &validator), Some(decoded.arguments_hash.into()), "{}", case.name);
        }
    }
}
