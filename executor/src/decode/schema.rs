//! Compiled JSON Schemas (Draft 2020-12) with the executor's no-coercion rule for integers.
//!
//! Rule enforced here: a schema is compiled once, when the tool is registered. Wherever it says
//! `"type": "integer"`, only an integer *literal* passes: `100.0` and `1e2` are refused although the JSON Schema
//! spec accepts them, because parsers in other languages read them as floats. Violations never echo the
//! value of a field marked `"x-sensitive": true`, and their number and length are bounded. The same schema
//! text compiles to the same validator, so compilations are shared process-wide (up to [`CACHED_SCHEMAS`]
//! distinct schemas): an executor assembled again, as exploration does once per schedule, compiles nothing.

use super::{pointer_token, push_pointer_token};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Keyword, ValidationError, Validator};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// The keyword the compiler adds next to every `"type": "integer"`.
const INTEGER_LITERAL: &str = "x-callproof-integer-literal";
/// The annotation that marks a property's value as secret.
pub const SENSITIVE: &str = "x-sensitive";
/// Longest message kept from the validator.
const MAX_MESSAGE_CHARS: usize = 200;
/// How many violations are looked at, at most, to order the ones reported.
const VIOLATIONS_EXAMINED: usize = 256;
/// How many unexpected members one violation names, at most.
const MAX_MEMBERS_NAMED: usize = 32;
/// How many distinct schemas the process keeps compiled; schemas beyond that are compiled every time.
const CACHED_SCHEMAS: usize = 256;

/// A schema compiled for validation (cheap to clone: the compiled parts are shared).
#[derive(Clone)]
pub struct CompiledSchema {
    validator: Arc<Validator>,
    sensitive: Arc<Vec<Vec<String>>>,
}

/// The compilations of this process, by the schema's JSON text.
fn compiled() -> &'static Mutex<HashMap<String, CompiledSchema>> {
    static COMPILED: OnceLock<Mutex<HashMap<String, CompiledSchema>>> = OnceLock::new();
    COMPILED.get_or_init(Mutex::default)
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchema").field("sensitive", &self.sensitive).finish_non_exhaustive()
    }
}

/// One violation, ready for an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer into the arguments (`""` is the whole object).
    pub path: String,
    /// The failing keyword (`type`, `required`, `additionalProperties`, ...).
    pub keyword: String,
    /// For people; the value is masked when the field is sensitive.
    pub message: String,
    /// For `required`, the pointers of the missing members; for `additionalProperties`, of the unexpected
    /// ones: what a client matches on, since messages are for people.
    pub members: Vec<String>,
}

impl Violation {
    /// The violation as a JSON object (`members` are reported apart, as `missing` or `unexpected`).
    pub fn into_json(self) -> Value {
        let mut fields = serde_json::Map::new();
        fields.insert("keyword".to_owned(), Value::String(self.keyword));
        fields.insert("message".to_owned(), Value::String(self.message));
        fields.insert("path".to_owned(), Value::String(self.path));
        Value::Object(fields)
    }
}

impl CompiledSchema {
    /// Compiles `schema` as Draft 2020-12 with format validation on.
    ///
    /// # Errors
    /// The validator's complaint when `schema` is not a valid schema.
    pub fn compile(schema: &Value) -> Result<CompiledSchema, String> {
        let text = schema.to_string();
        if let Some(known) = compiled().lock().ok().and_then(|cache| cache.get(&text).cloned()) {
            return Ok(known);
        }
        let fresh = CompiledSchema::compile_fresh(schema)?;
        if let Ok(mut cache) = compiled().lock()
            && cache.len() < CACHED_SCHEMAS
        {
            cache.insert(text, fresh.clone());
        }
        Ok(fresh)
    }

    /// [`CompiledSchema::compile`] without the process-wide cache.
    fn compile_fresh(schema: &Value) -> Result<CompiledSchema, String> {
        let mut prepared = schema.clone();
        mark_integer_types(&mut prepared);
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .with_keyword(INTEGER_LITERAL, |_, _, _| Ok(Box::new(IntegerLiteral)))
            .build(&prepared)
            .map_err(|error| error.to_string())?;
        let mut sensitive = Vec::new();
        collect_sensitive(schema, &mut Vec::new(), &mut sensitive);
        Ok(CompiledSchema { validator: Arc::new(validator), sensitive: Arc::new(sensitive) })
    }

    /// Whether `value` is valid. The fast path: no allocation on success.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Up to `limit` violations, and whether there were more. They come in the validator's order, except that
    /// a `type` violation goes before every other violation of the same value: a number that is no integer
    /// literal (`1e30`, `-0`, `100.0`) is first of all the wrong type, whatever `minimum` or `maximum` make of
    /// its rounded value. At most [`VIOLATIONS_EXAMINED`] are looked at to find them.
    pub fn violations(&self, value: &Value, limit: usize) -> (Vec<Violation>, bool) {
        let mut found: Vec<Violation> =
            self.validator.iter_errors(value).take(VIOLATIONS_EXAMINED).map(|error| self.violation(&error)).collect();
        if found.len() > 1 {
            let mut first_at: BTreeMap<String, usize> = BTreeMap::new();
            for (index, violation) in found.iter().enumerate() {
                first_at.entry(violation.path.clone()).or_insert(index);
            }
            found.sort_by_key(|violation| (first_at[&violation.path], violation.keyword != "type"));
        }
        let truncated = found.len() > limit;
        found.truncate(limit);
        (found, truncated)
    }

    /// Whether the schema marks any property sensitive.
    pub fn marks_sensitive(&self) -> bool {
        !self.sensitive.is_empty()
    }

    /// Whether the JSON pointer `path` lies inside a property marked sensitive.
    pub fn is_sensitive(&self, path: &str) -> bool {
        if self.sensitive.is_empty() {
            return false;
        }
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        self.sensitive.iter().any(|pattern| {
            pattern.len() <= segments.len()
                && pattern.iter().zip(&segments).all(|(want, got)| want == "*" || want == got)
        })
    }

    /// The sensitive paths as JSON pointers (`*` matches any array index).
    pub fn sensitive_paths(&self) -> Vec<String> {
        self.sensitive.iter().map(|segments| format!("/{}", segments.join("/"))).collect()
    }

    fn violation(&self, error: &ValidationError<'_>) -> Violation {
        let path = error.instance_path().as_str().to_owned();
        let (keyword, raw_message) = if error.kind().keyword() == INTEGER_LITERAL {
            (
                "type".to_owned(),
                "value is not an integer literal (no fraction, exponent or out-of-range value)".to_owned(),
            )
        } else if self.is_sensitive(&path) {
            (error.kind().keyword().to_owned(), message_of(&error.masked_with("the value")))
        } else {
            (error.kind().keyword().to_owned(), message_of(error))
        };
        let member = |name: &str| pointer_to_member(&path, name);
        let members = match error.kind() {
            ValidationErrorKind::Required { property } => property.as_str().map(member).into_iter().collect(),
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                unexpected.iter().take(MAX_MEMBERS_NAMED).map(|name| member(name)).collect()
            }
            _ => Vec::new(),
        };
        Violation { path, keyword, message: truncate(raw_message), members }
    }
}

/// The JSON pointer of member `name` of the value at pointer `parent`.
fn pointer_to_member(parent: &str, name: &str) -> String {
    let mut pointer = String::with_capacity(parent.len() + 1 + name.len());
    pointer.push_str(parent);
    pointer.push('/');
    push_pointer_token(&mut pointer, name);
    pointer
}

/// The validator's message, written into a buffer sized for a typical one instead of grown from empty.
fn message_of(error: &impl std::fmt::Display) -> String {
    use std::fmt::Write as _;
    let mut message = String::with_capacity(96);
    // Writing into a `String` cannot fail; only a `Display` that reports an error could end it early.
    let _ = write!(message, "{error}");
    message
}

fn truncate(mut message: String) -> String {
    // A message of at most MAX_MESSAGE_CHARS bytes has at most as many characters: no count needed.
    if message.len() > MAX_MESSAGE_CHARS && message.chars().count() > MAX_MESSAGE_CHARS {
        message = message.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    message
}

/// Refuses numbers that are not integer literals (serde_json holds those as floats).
struct IntegerLiteral;

impl<'i> Keyword<'i> for IntegerLiteral {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) { Ok(()) } else { Err(ValidationError::custom("not an integer literal")) }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        match instance {
            Value::Number(number) => number.is_i64() || number.is_u64(),
            _ => true,
        }
    }
}

fn says_integer(kind: &Value) -> bool {
    match kind {
        Value::String(name) => name == "integer",
        Value::Array(names) => names.iter().any(|name| name == "integer") && !names.iter().any(|name| name == "number"),
        _ => false,
    }
}

/// Adds the integer-literal keyword beside every integer type, in every subschema.
fn mark_integer_types(schema: &mut Value) {
    match schema {
        Value::Object(members) => {
            if members.get("type").is_some_and(says_integer) {
                members.insert(INTEGER_LITERAL.to_owned(), Value::Bool(true));
            }
            for (key, member) in members.iter_mut() {
                if !is_data_keyword(key) {
                    mark_integer_types(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mark_integer_types),
        _ => {}
    }
}

/// Keywords whose values are instance data, not subschemas.
fn is_data_keyword(key: &str) -> bool {
    matches!(key, "const" | "enum" | "default" | "examples")
}

fn collect_sensitive(schema: &Value, at: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
    let Some(members) = schema.as_object() else {
        return;
    };
    if members.get(SENSITIVE) == Some(&Value::Bool(true)) && !at.is_empty() {
        found.push(at.clone());
        return;
    }
    if let Some(Value::Object(properties)) = members.get("properties") {
        for (name, property) in properties {
            at.push(pointer_token(name));
            collect_sensitive(property, at, found);
            at.pop();
        }
    }
    if let Some(items) = members.get("items") {
        at.push("*".to_owned());
        collect_sensitive(items, at, found);
        at.pop();
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = members.get(combinator) {
            branches.iter().for_each(|branch| collect_sensitive(branch, at, found));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn refund_schema() -> Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "order_id": {"type": "string", "pattern": "^ord_[A-Za-z0-9]+$"},
                "amount": {"type": ["integer", "null"], "minimum": 1},
                "card": {"type": "string", "minLength": 12, "x-sensitive": true}
            },
            "required": ["order_id", "amount"]
        })
    }

    #[test]
    fn integer_fields_refuse_float_lexical_forms() {
        let schema = CompiledSchema::compile(&refund_schema()).expect("schema");
        for text in [r#"{"order_id":"ord_1","amount":100.0}"#, r#"{"order_id":"ord_1","amount":1e2}"#] {
            let value: Value = serde_json::from_str(text).expect("json");
            assert!(!schema.is_valid(&value), "{text}");
            let (violations, _) = schema.violations(&value, 10);
            assert_eq!(violations[0].path, "/amount");
            assert_eq!(violations[0].keyword, "type");
        }
        let ok: Value = serde_json::from_str(r#"{"order_id":"ord_1","amount":100}"#).expect("json");
        assert!(schema.is_valid(&ok));
    }

    #[test]
    fn a_number_that_is_no_integer_literal_is_a_type_violation_first() {
        let schema = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": {"amount": {"type": "integer", "minimum": 1, "maximum": 1000}}
        }))
        .expect("schema");
        for text in [
            r#"{"amount":1e30}"#,
            r#"{"amount":-0}"#,
            r#"{"amount":-1e30}"#,
            r#"{"amount":123456789012345678901234567890}"#,
        ] {
            let value: Value = serde_json::from_str(text).expect("json");
            let (violations, _) = schema.violations(&value, 10);
            assert_eq!(
                (violations[0].path.as_str(), violations[0].keyword.as_str()),
                ("/amount", "type"),
                "{text}: {violations:?}"
            );
        }
    }

    #[test]
    fn missing_and_unexpected_members_are_named_as_pointers() {
        let schema = CompiledSchema::compile(&refund_schema()).expect("schema");
        let (violations, _) = schema.violations(&json!({"amount": 5, "note": "x", "a/b": 1}), 10);
        let named = |keyword: &str| -> Vec<String> {
            violations.iter().filter(|violation| violation.keyword == keyword).flat_map(|v| v.members.clone()).collect()
        };
        assert_eq!(named("required"), ["/order_id"]);
        let mut unexpected = named("additionalProperties");
        unexpected.sort();
        assert_eq!(unexpected, ["/a~1b", "/note"]);
    }

    #[test]
    fn member_pointers_escape_tilde_then_slash() {
        for (parent, name, pointer) in [
            ("", "plain", "/plain"),
            ("/a", "x/y", "/a/x~1y"),
            ("", "~1", "/~01"),
            ("/0", "a~/b~", "/0/a~0~1b~0"),
            ("", "", "/"),
        ] {
            assert_eq!(pointer_to_member(parent, name), pointer, "{parent:?} {name:?}");
        }
    }

    #[test]
    fn sensitive_values_are_masked_in_messages() {
        let schema = CompiledSchema::compile(&refund_schema()).expect("schema");
        let value = json!({"order_id": "ord_1", "amount": 5, "card": "4111-secret"});
        let (violations, _) = schema.violations(&value, 10);
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].path, "/card");
        assert!(!violations[0].message.contains("4111"), "{}", violations[0].message);
        assert!(schema.is_sensitive("/card"));
        assert!(!schema.is_sensitive("/amount"));
    }

    #[test]
    fn messages_are_cut_by_characters_not_bytes() {
        let wide = "é".repeat(MAX_MESSAGE_CHARS);
        assert_eq!(truncate(wide.clone()), wide, "200 two-byte characters are 400 bytes and stay whole");
        let long = "a".repeat(MAX_MESSAGE_CHARS + 1);
        assert_eq!(truncate(long), "a".repeat(MAX_MESSAGE_CHARS) + "…");
        let wide_long = "é".repeat(MAX_MESSAGE_CHARS + 1);
        assert_eq!(truncate(wide_long), "é".repeat(MAX_MESSAGE_CHARS) + "…");
    }

    #[test]
    fn violations_are_bounded() {
        let schema = CompiledSchema::compile(&json!({"type": "object", "additionalProperties": {"type": "integer"}}))
            .expect("schema");
        let mut many = Map::new();
        for index in 0..50 {
            many.insert(format!("k{index}"), Value::String("x".repeat(1000)));
        }
        let (violations, truncated) = schema.violations(&Value::Object(many), 10);
        assert_eq!(violations.len(), 10);
        assert!(truncated);
        assert!(violations.iter().all(|violation| violation.message.chars().count() <= MAX_MESSAGE_CHARS + 1));
    }
}
