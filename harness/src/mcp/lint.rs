//! The tool-list lint: names, schemas and annotations judged from `tools/list` alone, without calling a tool.
//!
//! Rule enforced here: each function takes one tool's declaration and returns what is wrong with it, as
//! sentences naming the tool; nothing here talks to the server.

use serde_json::{Value, json};

/// Nesting followed when looking for patterns (a parsed message is at most 128 deep anyway).
const MAX_DEPTH: usize = 128;

/// Patterns compiled one by one at most, per schema (each is a small compile; the schema is untrusted).
const MAX_PATTERNS: usize = 256;

/// Why `name` is not a good tool name, if it is not: 1 to 128 of `A-Z a-z 0-9 _ . -` (server/tools §Tool Names).
pub fn name_problem(name: &str) -> Option<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    if name.is_empty() || name.len() > 128 {
        return Some(format!("tool name {name:?} is {} characters long, not 1 to 128", name.chars().count()));
    }
    let bad: String = name.chars().filter(|&c| !plain(c)).collect();
    (!bad.is_empty()).then(|| format!("tool name {name:?} has characters outside [A-Za-z0-9_.-]: {bad:?}"))
}

/// Why `schema` is not a valid JSON Schema 2020-12 with an object root, if it is not. `what` names it in the
/// sentence (`inputSchema of refund_order`).
pub fn schema_problem(what: &str, schema: &Value) -> Option<String> {
    let Value::Object(members) = schema else { return Some(format!("{what} is not a JSON object")) };
    if members.get("type") != Some(&Value::String("object".to_owned())) {
        let found = members.get("type").map_or_else(|| "no type".to_owned(), |kind| format!("type {kind}"));
        return Some(format!("{what} has {found}, not type \"object\" at its root"));
    }
    validity_problem(what, schema)
}

/// Why `schema`, a tool's `outputSchema`, is not valid. In 2025-11-25 the root must be an object schema
/// (schema.ts `Tool.outputSchema`: "Currently restricted to type: \"object\" at the root level"); in 2026-07-28
/// (`modern`) it "can be any valid JSON Schema 2020-12" (an array root included), so only validity is judged.
pub fn output_schema_problem(what: &str, schema: &Value, modern: bool) -> Option<String> {
    if !modern {
        return schema_problem(what, schema);
    }
    if !schema.is_object() {
        return Some(format!("{what} is not a JSON object"));
    }
    validity_problem(what, schema)
}

/// Why `schema` is not a valid JSON Schema, if it is not. A `pattern` callproof's regex engine cannot compile
/// (many ECMA-262 ones: `[\w-\.]`, `[^]`) is not the server's MUST to answer for: [`pattern_problem`] says it.
fn validity_problem(what: &str, schema: &Value) -> Option<String> {
    // Compiling validates the schema against the meta-schema of its `$schema` (2020-12 when absent) and
    // refuses what cannot be evaluated (a bad regex, a `$ref` that resolves nowhere).
    let error = jsonschema::validator_for(schema).err()?;
    let evaluable = evaluable(schema);
    if evaluable != *schema && jsonschema::validator_for(&evaluable).is_ok() {
        return None;
    }
    Some(format!("{what} is not a valid JSON Schema: {error}"))
}

/// Why `schema` holds patterns callproof cannot evaluate, if it does: JSON Schema 2020-12 Core §6.4 and
/// Validation §6.3.3 say a pattern SHOULD be ECMA-262 (with the `u` flag, in a portable subset), so a pattern
/// outside what the Rust engines compile is a SHOULD, never the schema's validity.
pub fn pattern_problem(what: &str, schema: &Value) -> Option<String> {
    if jsonschema::validator_for(schema).is_ok() {
        return None;
    }
    let patterns = unevaluable_patterns(schema);
    (!patterns.is_empty()).then(|| {
        format!(
            "{what} has patterns callproof's regex engine cannot compile (not ECMA-262 with the u flag, or outside \
             its portable subset), so they are left out of its generated inputs and output checks: {patterns:?}"
        )
    })
}

/// [`pattern_problem`] of a tool's `inputSchema` and `outputSchema`, in one sentence.
pub fn tool_pattern_problem(name: &str, tool: &Value) -> Option<String> {
    let problems: Vec<String> = ["inputSchema", "outputSchema"]
        .iter()
        .filter_map(|which| pattern_problem(&format!("the {which} of {name}"), tool.get(*which)?))
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// `schema` without the patterns callproof cannot compile (`pattern` keywords and `patternProperties` names),
/// what inputs are made from and answers judged by; `schema` itself when it compiles.
pub fn evaluable(schema: &Value) -> Value {
    let mut copy = schema.clone();
    if jsonschema::validator_for(schema).is_ok() {
        return copy;
    }
    let patterns = unevaluable_patterns(schema);
    strip(&mut copy, &patterns, 0);
    copy
}

/// The `pattern` values and `patternProperties` names in `schema` that do not compile alone.
fn unevaluable_patterns(schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let mut tried = 0;
    collect(schema, &mut found, &mut tried, 0);
    found
}

fn collect(value: &Value, found: &mut Vec<String>, tried: &mut usize, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut test = |pattern: &str, schema: Value| {
        if *tried < MAX_PATTERNS && !found.iter().any(|seen| seen == pattern) {
            *tried += 1;
            if jsonschema::validator_for(&schema).is_err() {
                found.push(pattern.to_owned());
            }
        }
    };
    match value {
        Value::Object(members) => {
            if let Some(Value::String(pattern)) = members.get("pattern") {
                test(pattern, json!({"pattern": pattern}));
            }
            if let Some(Value::Object(properties)) = members.get("patternProperties") {
                for name in properties.keys() {
                    test(name, json!({"patternProperties": {name: {}}}));
                }
            }
            members.values().for_each(|inner| collect(inner, found, tried, depth + 1));
        }
        Value::Array(items) => items.iter().for_each(|inner| collect(inner, found, tried, depth + 1)),
        _ => {}
    }
}

fn strip(value: &mut Value, patterns: &[String], depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(members) => {
            if members.get("pattern").and_then(Value::as_str).is_some_and(|p| patterns.iter().any(|bad| bad == p)) {
                members.remove("pattern");
            }
            if let Some(Value::Object(properties)) = members.get_mut("patternProperties") {
                properties.retain(|name, _| !patterns.contains(name));
            }
            members.values_mut().for_each(|inner| strip(inner, patterns, depth + 1));
        }
        Value::Array(items) => items.iter_mut().for_each(|inner| strip(inner, patterns, depth + 1)),
        _ => {}
    }
}

/// The compiled validator of an output schema, when it compiles (without the patterns callproof cannot).
pub fn compile(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::validator_for(&evaluable(schema)).ok()
}

/// Why `annotations` cannot be read as schema.ts `ToolAnnotations`, if they cannot: not an object, or a hint
/// that is not a boolean. No combination of boolean hints contradicts: `destructiveHint` and `idempotentHint`
/// are each "meaningful only when `readOnlyHint == false`" (schema.ts, both revisions), and their defaults
/// (`true`, `false`) are what a read-only tool that leaves them unset has.
pub fn annotations_problem(tool: &str, annotations: Option<&Value>) -> Option<String> {
    let annotations = annotations?;
    let Value::Object(members) = annotations else {
        return Some(format!("the annotations of {tool} are not an object: {annotations}"));
    };
    ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"].iter().find_map(|hint| {
        let value = members.get(*hint).filter(|value| !value.is_boolean())?;
        Some(format!("{tool} is annotated {hint}: {value}, not a boolean"))
    })
}

/// Why `schema` is not strict, if it is not: an object that allows extra properties, or a property that is not
/// required (the catalog's strict mode: optional properties are required and nullable, so a model cannot
/// leave one out by accident). `what` names the schema in the sentence.
pub fn strict_problem(what: &str, schema: &Value) -> Option<String> {
    strict_at(schema, "", 0).map(|problem| format!("{what}: {problem}"))
}

fn strict_at(schema: &Value, at: &str, depth: usize) -> Option<String> {
    let Value::Object(members) = schema else { return None };
    if depth > 16 {
        return None;
    }
    let place = if at.is_empty() { "the root".to_owned() } else { format!("`{at}`") };
    let properties = members.get("properties").and_then(Value::as_object);
    let is_object = members.get("type") == Some(&Value::String("object".to_owned())) || properties.is_some();
    if is_object && members.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Some(format!("the object at {place} allows extra properties (no additionalProperties: false)"));
    }
    let required: Vec<&str> =
        members.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    for (name, property) in properties.into_iter().flatten() {
        if !required.contains(&name.as_str()) {
            return Some(format!(
                "`{at}/{name}` is optional (strict mode: required, and nullable if it may be absent)"
            ));
        }
        if let Some(problem) = strict_at(property, &format!("{at}/{name}"), depth + 1) {
            return Some(problem);
        }
    }
    let nested = ["items", "additionalItems"].iter().filter_map(|keyword| members.get(*keyword));
    let branches = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|keyword| members.get(*keyword).and_then(Value::as_array))
        .flatten();
    nested.chain(branches).find_map(|inner| strict_at(inner, at, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_names_pass_and_spaces_slashes_and_long_names_fail() {
        assert_eq!(name_problem("refund_order"), None);
        assert_eq!(name_problem("ns.tool-2"), None);
        assert!(name_problem("refund order").expect("space").contains("\" \""));
        assert!(name_problem("a/b").is_some());
        assert!(name_problem("").is_some());
        assert!(name_problem(&"x".repeat(129)).expect("long").contains("129"));
        assert_eq!(name_problem(&"x".repeat(128)), None);
    }

    #[test]
    fn an_object_schema_passes_and_a_wrong_root_or_an_invalid_keyword_fails() {
        let good = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        assert_eq!(schema_problem("inputSchema of t", &good), None);
        let array = json!({"type": "array"});
        assert!(schema_problem("inputSchema of t", &array).expect("root").contains("not type \"object\""));
        let invalid = json!({"type": "object", "properties": {"n": {"type": "integr"}}});
        assert!(schema_problem("inputSchema of t", &invalid).expect("keyword").contains("not a valid JSON Schema"));
        assert!(schema_problem("x", &json!("object")).is_some());
    }

    #[test]
    fn an_array_output_schema_is_valid_in_2026_07_28_and_not_in_2025_11_25() {
        // The 2026-07-28 spec's own example (server/tools, "Example tool with array output schema").
        let users = json!({"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}});
        assert_eq!(output_schema_problem("the outputSchema of list_users", &users, true), None);
        let legacy = output_schema_problem("the outputSchema of list_users", &users, false).expect("legacy root");
        assert!(legacy.contains("not type \"object\""), "{legacy}");
        let invalid = json!({"type": "array", "items": {"type": "strng"}});
        assert!(output_schema_problem("o", &invalid, true).expect("invalid").contains("not a valid JSON Schema"));
        assert!(output_schema_problem("o", &json!("array"), true).is_some());
    }

    #[test]
    fn an_ecma_pattern_the_engine_cannot_compile_is_a_warning_and_left_out_not_an_invalid_schema() {
        // The e-mail regex of countless snippets (valid JavaScript without the u flag), and JavaScript's `[^]`.
        let email = r"^[\w-\.]+@([\w-]+\.)+[\w-]{2,4}$";
        let schema = json!({"type": "object", "required": ["email"], "properties": {
            "email": {"type": "string", "pattern": email},
            "any": {"type": "string", "pattern": "[^]*"},
            "id": {"type": "string", "pattern": "^ord_[a-z]+$"}},
            "patternProperties": {"[^]": {}}});
        assert_eq!(schema_problem("the inputSchema of lookup_by_email", &schema), None);
        let warning = pattern_problem("the inputSchema of lookup_by_email", &schema).expect("a warning");
        assert!(warning.contains("\"[^]*\"") && warning.contains("{2,4}$"), "{warning}");
        let kept = evaluable(&schema);
        assert_eq!(kept["properties"]["email"], json!({"type": "string"}));
        assert_eq!(kept["properties"]["id"]["pattern"], json!("^ord_[a-z]+$"), "a pattern that compiles stays");
        assert_eq!(kept["patternProperties"], json!({}));
        let valid = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^ord_"}}});
        assert_eq!((pattern_problem("t", &valid), evaluable(&valid)), (None, valid.clone()));
        let broken = json!({"type": "object", "properties": {"a": {"type": "strng", "pattern": "[^]"}}});
        assert!(schema_problem("t", &broken).expect("still invalid").contains("not a valid JSON Schema"));
    }

    #[test]
    fn a_strict_schema_passes_and_an_optional_property_or_open_object_fails() {
        let strict = json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "object", "additionalProperties": false}},
            "required": ["a", "b"]});
        assert_eq!(strict_problem("t", &strict), None);
        let optional = json!({"type": "object", "additionalProperties": false, "properties": {"a": {}}});
        assert!(strict_problem("t", &optional).expect("optional").contains("`/a` is optional"));
        let open = json!({"type": "object", "properties": {}});
        assert!(strict_problem("t", &open).expect("open").contains("extra properties"));
        let nested = json!({"type": "object", "additionalProperties": false, "required": ["p"],
            "properties": {"p": {"type": "array", "items": {"type": "object", "properties": {}}}}});
        assert!(strict_problem("t", &nested).expect("nested").contains("`/p`"));
    }

    #[test]
    fn read_only_tools_may_carry_any_destructive_or_idempotent_hint_and_only_non_booleans_are_flagged() {
        // FastMCP's `current_time`: read-only, and different on every call (examples/mcp-false-positives #5).
        let clock = json!({"readOnlyHint": true, "idempotentHint": false});
        assert_eq!(annotations_problem("current_time", Some(&clock)), None);
        let both = json!({"readOnlyHint": true, "destructiveHint": true});
        assert_eq!(annotations_problem("t", Some(&both)), None, "meaningful only when readOnlyHint is false");
        assert_eq!(annotations_problem("t", None), None);
        let writes = json!({"readOnlyHint": false, "destructiveHint": true, "title": "Writes"});
        assert_eq!(annotations_problem("t", Some(&writes)), None);
        let text = json!({"readOnlyHint": true, "destructiveHint": "no"});
        assert!(annotations_problem("t", Some(&text)).expect("a string").contains("destructiveHint: \"no\""));
        assert!(annotations_problem("t", Some(&json!([true]))).expect("an array").contains("not an object"));
    }
}
