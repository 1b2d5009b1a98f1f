//! Invalid inputs for one tool, generated from its own `inputSchema`: a valid base, then one change per case.
//!
//! Rule enforced here: every case breaks the tool's own schema in exactly one way and leaves the rest of the
//! base as it was, so a success is the server's fault whatever the base; the argument text is built by hand
//! where the break lives in the text (duplicate keys, `100.0`), because a serialiser would erase it.

use super::checks::{self, Check};
use serde_json::{Map, Value, json};

/// The oversize case's string length: twice callproof's 1 MiB argument limit.
const OVERSIZE: usize = 2 * 1024 * 1024;

/// How deep the nested-arrays case goes.
const NESTING: usize = 10_000;

/// Whether a case's text is not JSON, or may be beyond a parser's depth, so its line may get no answer that
/// names its id (-32700 carries `id: null`): the profile sends it with nothing else in flight, then a `ping`.
pub fn line_level(case: &Case) -> bool {
    [checks::NON_FINITE, checks::DEEP_NESTING, checks::LONE_SURROGATE].contains(&case.check)
}

/// Nesting the generator follows before it gives up on a sub-schema.
const MAX_DEPTH: usize = 8;

/// One generated call: the check it serves, what was changed, and the arguments as JSON text.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The check that judges the answer.
    pub check: Check,
    /// What was changed, for the report (`"amount" sent as the string "5"`).
    pub label: String,
    /// The `arguments` text, spliced into the `tools/call` line as is.
    pub arguments: String,
}

/// A valid instance of `schema` as far as the generator can tell: every required property, each from its
/// `examples`, `default`, `const` or `enum`, else made to fit its type and bounds. `None` for a schema that is
/// not an object schema.
pub fn base(schema: &Value) -> Option<Map<String, Value>> {
    match value_for(schema, 0) {
        Value::Object(members) if schema.get("type") == Some(&json!("object")) => Some(members),
        _ => None,
    }
}

/// The invalid cases for a tool whose input schema is `schema` and whose base instance is `base`. A case that
/// changes one value is kept only when the schema itself says the change is invalid (the whole instance when
/// the base validates, else the property's own schema), so no case is valid by accident.
pub fn cases(schema: &Value, base: &Map<String, Value>) -> Vec<Case> {
    let properties = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let validator = jsonschema::validator_for(schema).ok();
    let base_valid = validator.as_ref().is_some_and(|validator| validator.is_valid(&Value::Object(base.clone())));
    let mut cases = Vec::new();
    let text = |members: &Map<String, Value>| Value::Object(members.clone()).to_string();
    for name in required(schema) {
        let mut without = base.clone();
        if without.remove(&name).is_some() {
            cases.push(case(checks::MISSING_REQUIRED, format!("required {name:?} left out"), text(&without)));
        }
    }
    for (name, value) in base {
        let Some(property) = properties.get(name) else { continue };
        let types = types_of(property);
        let numeric = types.iter().any(|kind| kind == "integer" || kind == "number");
        let mut changes: Vec<(Check, String, Value)> = Vec::new();
        if let Some(wrong) = wrong_type(&types) {
            changes.push((checks::WRONG_TYPE, format!("{name:?} sent as {wrong}"), wrong));
        }
        if numeric && value.is_number() {
            let quoted = Value::String(value.to_string());
            changes.push((checks::STRING_FOR_NUMBER, format!("{name:?} sent as the string \"{value}\""), quoted));
            changes.push((checks::BOOL_FOR_NUMBER, format!("{name:?} sent as true"), Value::Bool(true)));
        }
        if !types.is_empty() && !types.iter().any(|kind| kind == "null") {
            changes.push((checks::NULL, format!("{name:?} sent as null"), Value::Null));
        }
        for (label, outside) in outside_constraints(property) {
            changes.push((checks::CONSTRAINT, format!("{name:?} {label}"), outside));
        }
        for (check, label, changed_value) in changes {
            let mut changed = base.clone();
            changed.insert(name.clone(), changed_value.clone());
            let invalid = match (&validator, base_valid) {
                (Some(validator), true) => !validator.is_valid(&Value::Object(changed.clone())),
                _ => jsonschema::validator_for(property).is_ok_and(|validator| !validator.is_valid(&changed_value)),
            };
            if invalid {
                cases.push(case(check, label, text(&changed)));
            }
        }
        cases.extend(text_cases(name, property, &types, value, base));
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) && !properties.contains_key("is_admin") {
        let mut extra = base.clone();
        extra.insert("is_admin".to_owned(), Value::Bool(true));
        cases.push(case(checks::UNKNOWN_FIELD, "an extra property \"is_admin\": true".to_owned(), text(&extra)));
    }
    if let Some((name, value)) = base.iter().next() {
        let inner = text(base);
        let duplicated = format!("{{{}:{value},{}", Value::String(name.clone()), &inner[1..]);
        cases.push(case(checks::DUPLICATE_KEY, format!("{name:?} twice in the text"), duplicated));
    }
    cases
}

/// The cases of one property whose break lives in the argument text itself (a serialiser would erase it): NaN,
/// a lone surrogate, an oversized string, deep nesting and an integral float for an integer.
fn text_cases(name: &str, property: &Value, types: &[String], value: &Value, base: &Map<String, Value>) -> Vec<Case> {
    let numeric = types.iter().any(|kind| kind == "integer" || kind == "number");
    let mut cases = Vec::new();
    if numeric {
        cases.push(case(checks::NON_FINITE, format!("{name:?} sent as NaN"), spliced(base, name, "NaN")));
    }
    if types.iter().any(|kind| kind == "string") && value.is_string() {
        let label = format!("{name:?} sent as \"\\ud800\" (a lone surrogate)");
        cases.push(case(checks::LONE_SURROGATE, label, spliced(base, name, r#""\ud800""#)));
    }
    let bounded = property.get("maxLength").and_then(Value::as_u64).is_some_and(|max| max < OVERSIZE as u64);
    if types.iter().any(|kind| kind == "string") && value.is_string() && !bounded {
        // Valid by the schema on purpose: the limit is callproof's (SHOULD), so no schema guard here.
        let huge = format!("\"{}\"", "x".repeat(OVERSIZE));
        let label = format!("{name:?} sent as a 2 MiB string");
        cases.push(case(checks::OVERSIZE, label, spliced(base, name, &huge)));
    }
    if !types.is_empty() && !types.iter().any(|kind| kind == "array") {
        let nested = format!("{}{}", "[".repeat(NESTING), "]".repeat(NESTING));
        let label = format!("{name:?} sent as {NESTING} nested arrays");
        cases.push(case(checks::DEEP_NESTING, label, spliced(base, name, &nested)));
    }
    if types.iter().any(|kind| kind == "integer")
        && !types.iter().any(|kind| kind == "number")
        && let Some(n) = value.as_i64()
    {
        for spelled in [format!("{n}.0"), format!("{n}e0")] {
            let label = format!("{name:?} sent as {spelled}");
            cases.push(case(checks::INTEGRAL_FLOAT, label, spliced(base, name, &spelled)));
        }
    }
    cases
}

/// Values just outside each constraint `property` declares, with a label each.
fn outside_constraints(property: &Value) -> Vec<(String, Value)> {
    let number = |keyword: &str| property.get(keyword).and_then(Value::as_f64);
    let length = |keyword: &str| property.get(keyword).and_then(Value::as_u64);
    let integer = types_of(property).iter().any(|kind| kind == "integer");
    let step = if integer { 1.0 } else { 0.5 };
    let mut outside = Vec::new();
    let mut push_number = |label: String, n: f64| {
        #[allow(clippy::cast_possible_truncation, reason = "a bound a tool writer chose, plus or minus one")]
        let value = if integer && n.fract() == 0.0 { json!(n as i64) } else { json!(n) };
        outside.push((label, value));
    };
    if let Some(minimum) = number("minimum") {
        push_number(format!("below its minimum {minimum}"), minimum - step);
    }
    if let Some(maximum) = number("maximum") {
        push_number(format!("above its maximum {maximum}"), maximum + step);
    }
    if let Some(minimum) = number("exclusiveMinimum") {
        push_number(format!("at its exclusiveMinimum {minimum}"), minimum);
    }
    if let Some(maximum) = number("exclusiveMaximum") {
        push_number(format!("at its exclusiveMaximum {maximum}"), maximum);
    }
    if let Some(min) = length("minLength").filter(|min| (1..=4096).contains(min)) {
        let short = "x".repeat(usize::try_from(min - 1).unwrap_or(0));
        outside.push((format!("shorter than its minLength {min}"), Value::String(short)));
    }
    if let Some(max) = length("maxLength").filter(|max| *max <= 4096) {
        let long = "x".repeat(usize::try_from(max + 1).unwrap_or(0));
        outside.push((format!("longer than its maxLength {max}"), Value::String(long)));
    }
    if property.get("enum").and_then(Value::as_array).is_some() {
        outside.push(("outside its enum".to_owned(), json!("callproof_not_in_enum")));
    }
    if property.get("pattern").is_some() {
        outside.push(("not matching its pattern".to_owned(), json!("!~ callproof")));
    }
    outside
}

fn case(check: Check, label: String, arguments: String) -> Case {
    Case { check, label, arguments }
}

/// The object text of `base` with `name`'s value written as `value_text`, byte for byte.
fn spliced(base: &Map<String, Value>, name: &str, value_text: &str) -> String {
    let members: Vec<String> = base
        .iter()
        .map(|(key, value)| {
            let value = if key == name { value_text.to_owned() } else { value.to_string() };
            format!("{}:{value}", Value::String(key.clone()))
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

fn required(schema: &Value) -> Vec<String> {
    let names = schema.get("required").and_then(Value::as_array);
    names.into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
}

/// The JSON types `schema` allows by its `type` keyword, or, without one, by an `anyOf`/`oneOf` whose every
/// branch has a `type` (what SDKs emit for an optional value: pydantic's `int | None` is `anyOf [{"type":
/// "integer"}, {"type": "null"}]`); empty when neither says (it may allow anything).
fn types_of(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.clone()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => {
            let branches = ["anyOf", "oneOf"].iter().find_map(|keyword| schema.get(*keyword)?.as_array());
            let typed: Vec<Vec<String>> = branches.into_iter().flatten().map(types_of).collect();
            if typed.is_empty() || typed.iter().any(Vec::is_empty) {
                return Vec::new();
            }
            let mut types: Vec<String> = typed.concat();
            types.sort();
            types.dedup();
            types
        }
    }
}

/// A value of a JSON type none of `types` allows; `None` when the schema has no `type` (it may allow anything).
fn wrong_type(types: &[String]) -> Option<Value> {
    if types.is_empty() {
        return None;
    }
    let allows = |kind: &str| types.iter().any(|allowed| allowed == kind);
    let candidates = [
        ("array", json!([])),
        ("object", json!({})),
        ("boolean", json!(true)),
        ("number", json!(12345)),
        ("string", json!("x")),
    ];
    candidates
        .into_iter()
        .find(|(kind, _)| !(allows(kind) || (*kind == "number" && allows("integer"))))
        .map(|(_, value)| value)
}

/// A value meant to satisfy `schema`.
fn value_for(schema: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Value::Object(schema) = schema else { return Value::Null };
    if let Some(example) = schema.get("examples").and_then(Value::as_array).and_then(|examples| examples.first()) {
        return example.clone();
    }
    for keyword in ["default", "const"] {
        if let Some(value) = schema.get(keyword) {
            return value.clone();
        }
    }
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|values| values.first()) {
        return first.clone();
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema.get(keyword).and_then(Value::as_array).and_then(|branches| branches.first()) {
            return value_for(first, depth + 1);
        }
    }
    let kinds = types_of(&Value::Object(schema.clone()));
    let kind = kinds.iter().find(|kind| *kind != "null").or(kinds.first()).map_or("object", String::as_str);
    let bound = |name: &str| schema.get(name).and_then(Value::as_f64);
    match kind {
        "object" => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let mut members = Map::new();
            for name in required(&Value::Object(schema.clone())) {
                let property = properties.and_then(|properties| properties.get(&name)).unwrap_or(&Value::Null);
                members.insert(name, value_for(property, depth + 1));
            }
            Value::Object(members)
        }
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(8);
            Value::Array((0..count).map(|_| value_for(&items, depth + 1)).collect())
        }
        "integer" | "number" => {
            let low = bound("minimum").or(bound("exclusiveMinimum").map(|n| n + 1.0)).unwrap_or(1.0).max(1.0);
            let high = bound("maximum").or(bound("exclusiveMaximum").map(|n| n - 1.0));
            let chosen = high.map_or(low, |high| low.min(high)).ceil();
            #[allow(clippy::cast_possible_truncation, reason = "clamped to schema bounds a tool writer chose")]
            let integer = chosen as i64;
            json!(integer)
        }
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => Value::String(string_for(schema)),
    }
}

/// A string within the schema's `minLength`/`maxLength` that matches its `pattern` when the pattern is simple
/// (literals, character classes, `\d`, `\w` and counted repeats, anchored); otherwise `"x"` padded.
fn string_for(schema: &Map<String, Value>) -> String {
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(1).min(64);
    let max = schema.get("maxLength").and_then(Value::as_u64).unwrap_or(64).max(1);
    let mut text = schema.get("pattern").and_then(Value::as_str).and_then(from_pattern).unwrap_or_default();
    let width = u64::try_from(text.chars().count()).unwrap_or(u64::MAX);
    if width < min {
        text.push_str(&"x".repeat(usize::try_from(min - width).unwrap_or(0)));
    }
    if text.is_empty() {
        text.push('x');
    }
    text.chars().take(usize::try_from(max).unwrap_or(64)).collect()
}

/// A string that matches a simple anchored `pattern`, or `None` when the pattern is not simple.
fn from_pattern(pattern: &str) -> Option<String> {
    let body = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let atom = pattern_atom(c, &mut chars)?;
        out.extend(std::iter::repeat_n(atom, repetitions(&mut chars)?));
    }
    Some(out)
}

/// One character that matches the atom starting with `c` (a literal, a character class, an escape), or `None`
/// for an atom a simple pattern does not have (groups, alternation, any-character, a negated class).
fn pattern_atom(c: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<char> {
    match c {
        '[' => {
            let class: String = chars.by_ref().take_while(|&c| c != ']').collect();
            let first = class.chars().next()?;
            (first != '^' && first != '\\').then_some(first)
        }
        '\\' => match chars.next()? {
            'd' => Some('1'),
            'w' => Some('a'),
            escaped if escaped.is_ascii_punctuation() => Some(escaped),
            _ => None,
        },
        syntax if "()|.*+?{".contains(syntax) => None,
        literal => Some(literal),
    }
}

/// How many times the atom just read is written: its quantifier's least count (at most 64), 1 without one.
fn repetitions(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<usize> {
    let least = match chars.peek() {
        Some('+') => 1,
        Some('*' | '?') => 0,
        Some('{') => {
            chars.next();
            let counts: String = chars.by_ref().take_while(|&c| c != '}').collect();
            return Some(counts.split(',').next()?.trim().parse::<usize>().ok()?.min(64));
        }
        _ => return Some(1),
    };
    chars.next();
    Some(least)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refund's arguments, as the conformance app's catalog declares them.
    fn refund_schema() -> Value {
        let properties = json!({
            "order_id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]+$", "maxLength": 64},
            "amount": {"type": "integer", "minimum": 1, "maximum": 100000},
            "reason": {"type": ["string", "null"], "maxLength": 200}
        });
        let required = json!(["order_id", "amount", "reason"]);
        json!({"type": "object", "additionalProperties": false, "properties": properties, "required": required})
    }

    #[test]
    fn the_base_fits_the_schema_including_simple_patterns() {
        let schema = refund_schema();
        let made = base(&schema).expect("object schema");
        assert_eq!(Value::Object(made.clone()), json!({"order_id": "ord_A", "amount": 1, "reason": "x"}));
        assert!(jsonschema::is_valid(&schema, &Value::Object(made)));
        assert_eq!(from_pattern("^[a-z]{3}-\\d+$").as_deref(), Some("aaa-1"));
        assert_eq!(from_pattern("^(a|b)$"), None);
        assert_eq!(from_pattern("^a*b?c+\\.\\w{2,5}$").as_deref(), Some("c.aa"));
        assert_eq!(from_pattern("^[^a]$"), None);
        assert_eq!(from_pattern("^a.b$"), None);
        assert_eq!(base(&json!({"type": "array"})), None);
    }

    #[test]
    fn every_case_breaks_the_schema_it_came_from() {
        let schema = refund_schema();
        let base = base(&schema).expect("object schema");
        let cases = cases(&schema, &base);
        let ids: Vec<&str> = cases.iter().map(|case| case.check.id).collect();
        for id in [
            "mcp-input-missing-required",
            "mcp-input-wrong-type",
            "mcp-input-string-for-number",
            "mcp-input-bool-for-number",
            "mcp-input-null",
            "mcp-input-constraint",
            "mcp-input-non-finite",
            "mcp-input-deep-nesting",
            "mcp-input-lone-surrogate",
            "mcp-input-integral-float",
            "mcp-input-unknown-field",
            "mcp-input-duplicate-key",
        ] {
            assert!(ids.contains(&id), "{id} missing from {ids:?}");
        }
        assert!(cases.iter().any(|case| case.arguments.contains("\"amount\":NaN")));
        assert!(cases.iter().any(|case| case.arguments.contains(r#""order_id":"\ud800""#)));
        assert!(cases.iter().any(|case| case.arguments.contains(&"[".repeat(NESTING))));
        for case in cases.iter().filter(|case| !line_level(case)) {
            let parsed: Result<Value, _> = serde_json::from_str(&case.arguments);
            let parsed = parsed.expect("every case but the line-level ones is JSON text");
            let schema_says_invalid = !jsonschema::is_valid(&schema, &parsed);
            let text_level = matches!(case.check.id, "mcp-input-integral-float" | "mcp-input-duplicate-key");
            assert!(schema_says_invalid || text_level, "{} does not break the schema: {}", case.label, case.arguments);
        }
        let floats: Vec<&str> = cases
            .iter()
            .filter(|case| case.check.id == "mcp-input-integral-float")
            .map(|c| c.arguments.as_str())
            .collect();
        assert!(floats.iter().any(|text| text.contains("\"amount\":1.0")), "{floats:?}");
        assert!(floats.iter().any(|text| text.contains("\"amount\":1e0")), "{floats:?}");
        let duplicate = cases.iter().find(|case| case.check.id == "mcp-input-duplicate-key").expect("duplicate");
        assert_eq!(duplicate.arguments.matches("\"amount\"").count(), 2, "{}", duplicate.arguments);
    }

    #[test]
    fn only_a_string_without_a_small_max_length_gets_the_oversize_case() {
        let schema = json!({"type": "object", "properties": {"free": {"type": "string"}, "short": {"type": "string", "maxLength": 8}},
            "required": ["free", "short"]});
        let made = base(&schema).expect("object schema");
        let oversize: Vec<String> = cases(&schema, &made)
            .into_iter()
            .filter(|case| case.check.id == "mcp-input-oversize")
            .map(|case| case.label)
            .collect();
        assert_eq!(oversize, vec!["\"free\" sent as a 2 MiB string".to_owned()]);
    }

    #[test]
    fn an_optional_integer_spelled_as_any_of_gets_the_number_cases() {
        let amount = json!({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]});
        let schema = json!({"type": "object", "properties": {"amount": amount}, "required": ["amount"]});
        let base = base(&schema).expect("a base");
        assert!(base["amount"].is_i64(), "{base:?}");
        let checks: Vec<&str> = cases(&schema, &base).iter().map(|case| case.check.id).collect();
        for id in ["mcp-input-string-for-number", "mcp-input-bool-for-number", "mcp-input-integral-float"] {
            assert!(checks.contains(&id), "{id} missing from {checks:?}");
        }
        assert!(!checks.contains(&"mcp-input-null"), "null is allowed: {checks:?}");
        let untyped = json!({"anyOf": [{"type": "integer"}, {"minimum": 1}]});
        assert!(types_of(&untyped).is_empty(), "a branch without a type may allow anything");
    }

    #[test]
    fn a_schema_without_type_gets_no_wrong_type_case_and_no_extras_case_without_additional_properties_false() {
        let schema = json!({"type": "object", "properties": {"any": {}}, "required": ["any"]});
        let base = base(&schema).expect("object schema");
        let ids: Vec<&str> = cases(&schema, &base).iter().map(|case| case.check.id).collect();
        assert!(!ids.contains(&"mcp-input-wrong-type") && !ids.contains(&"mcp-input-unknown-field"), "{ids:?}");
    }
}
