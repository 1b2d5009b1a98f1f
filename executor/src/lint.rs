//! Schema lint: does a tool's input schema fit OpenAI function-calling strict mode?
//!
//! Rule enforced here: findings are data with stable rule ids (append-only, like error codes), reported in
//! the schema's own order so output is deterministic. The lint never changes a schema; it only says where and
//! why the model provider would refuse or silently relax it.
//!
//! The limits are the documented strict-mode ones: 5000 object properties in all, 10 levels of nesting,
//! 1000 enum values in all, 15 000 characters for the values of one enum with more than 250 values, and
//! 120 000 characters of property names, definition names, enum and const values.

use crate::decode::pointer_token;
use serde_json::{Map, Value};

/// Most object properties in one schema.
pub const MAX_PROPERTIES: usize = 5000;
/// Deepest object nesting.
pub const MAX_NESTING: usize = 10;
/// Most enum values across the schema.
pub const MAX_ENUM_VALUES: usize = 1000;
/// An enum with more values than this has its total string length limited.
pub const LARGE_ENUM: usize = 250;
/// Total string length of a large enum's values.
pub const MAX_LARGE_ENUM_CHARS: usize = 15_000;
/// Total length of names and enum/const strings.
pub const MAX_TOTAL_STRING_CHARS: usize = 120_000;

/// Keywords strict mode refuses.
const UNSUPPORTED: [&str; 14] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contains",
    "prefixItems",
];

/// A stable lint rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// The root is not `"type": "object"`.
    RootNotObject,
    /// The root is an `anyOf`.
    RootAnyOf,
    /// An object lacks `"additionalProperties": false`.
    AdditionalPropertiesNotFalse,
    /// A property is missing from `required` (optional fields are required and nullable in strict mode).
    PropertyNotRequired,
    /// A keyword strict mode does not support.
    UnsupportedKeyword,
    /// A subschema names no type (and is not an `anyOf`, `$ref`, `enum` or `const`).
    MissingType,
    /// More than [`MAX_PROPERTIES`] properties.
    TooManyProperties,
    /// Nesting deeper than [`MAX_NESTING`].
    TooDeep,
    /// More than [`MAX_ENUM_VALUES`] enum values.
    TooManyEnumValues,
    /// A large enum's values are too long.
    EnumTooLong,
    /// Names and values together are too long.
    TooMuchText,
}

impl Rule {
    /// The stable id. This match is the only place rule ids are written.
    pub const fn id(self) -> &'static str {
        match self {
            Rule::RootNotObject => "strict/root-not-object",
            Rule::RootAnyOf => "strict/root-any-of",
            Rule::AdditionalPropertiesNotFalse => "strict/additional-properties",
            Rule::PropertyNotRequired => "strict/property-not-required",
            Rule::UnsupportedKeyword => "strict/unsupported-keyword",
            Rule::MissingType => "strict/missing-type",
            Rule::TooManyProperties => "strict/too-many-properties",
            Rule::TooDeep => "strict/too-deep",
            Rule::TooManyEnumValues => "strict/too-many-enum-values",
            Rule::EnumTooLong => "strict/enum-too-long",
            Rule::TooMuchText => "strict/too-much-text",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// JSON pointer into the schema.
    pub path: String,
    /// For people.
    pub message: String,
}

/// Lints `schema` against strict mode. An empty list means it fits.
pub fn lint_strict(schema: &Value) -> Vec<Finding> {
    let mut lint = Lint::default();
    match schema.as_object() {
        Some(root) if root.contains_key("anyOf") => {
            lint.find(Rule::RootAnyOf, "", "the root must be an object, not an anyOf")
        }
        Some(root) if root.get("type") == Some(&Value::String("object".to_owned())) => {}
        _ => lint.find(Rule::RootNotObject, "", "the root must be a schema with \"type\": \"object\""),
    }
    lint.walk(schema, "", 0);
    lint.totals();
    lint.findings
}

#[derive(Default)]
struct Lint {
    findings: Vec<Finding>,
    properties: usize,
    enum_values: usize,
    text_chars: usize,
    deepest: usize,
    deepest_path: String,
}

impl Lint {
    fn find(&mut self, rule: Rule, path: &str, message: impl Into<String>) {
        self.findings.push(Finding { rule, path: path.to_owned(), message: message.into() });
    }

    fn walk(&mut self, schema: &Value, path: &str, depth: usize) {
        let Some(node) = schema.as_object() else { return };
        for keyword in UNSUPPORTED {
            if node.contains_key(keyword) {
                self.find(Rule::UnsupportedKeyword, path, format!("strict mode does not support `{keyword}`"));
            }
        }
        let typed = ["type", "anyOf", "$ref", "enum", "const"].iter().any(|keyword| node.contains_key(*keyword));
        if !typed {
            self.find(Rule::MissingType, path, "every subschema needs a `type` (or anyOf, $ref, enum, const)");
        }
        if is_object_type(node) {
            self.object(node, path, depth + 1);
        }
        self.count_values(node);
        for (keyword, child) in node {
            match keyword.as_str() {
                "properties" => {} // walked by `object`
                "items" | "additionalProperties" => self.walk(child, &format!("{path}/{keyword}"), depth),
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                    for (index, branch) in child.as_array().into_iter().flatten().enumerate() {
                        self.walk(branch, &format!("{path}/{keyword}/{index}"), depth);
                    }
                }
                "$defs" | "definitions" => {
                    for (name, definition) in child.as_object().into_iter().flatten() {
                        self.text_chars += name.chars().count();
                        self.walk(definition, &format!("{path}/{keyword}/{}", pointer_token(name)), depth);
                    }
                }
                _ => {}
            }
        }
    }

    fn object(&mut self, node: &Map<String, Value>, path: &str, depth: usize) {
        if depth > self.deepest {
            self.deepest = depth;
            self.deepest_path = path.to_owned();
        }
        if node.get("additionalProperties") != Some(&Value::Bool(false)) {
            self.find(Rule::AdditionalPropertiesNotFalse, path, "objects must set \"additionalProperties\": false");
        }
        let required: Vec<&str> =
            node.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let Some(properties) = node.get("properties").and_then(Value::as_object) else { return };
        for (name, property) in properties {
            self.properties += 1;
            self.text_chars += name.chars().count();
            let property_path = format!("{path}/properties/{}", pointer_token(name));
            if !required.contains(&name.as_str()) {
                self.find(
                    Rule::PropertyNotRequired,
                    &property_path,
                    format!("`{name}` must be listed in `required`; make an optional field required and allow null"),
                );
            }
            self.walk(property, &property_path, depth);
        }
    }

    fn count_values(&mut self, node: &Map<String, Value>) {
        if let Some(Value::String(constant)) = node.get("const") {
            self.text_chars += constant.chars().count();
        }
        let Some(values) = node.get("enum").and_then(Value::as_array) else { return };
        self.enum_values += values.len();
        let chars: usize = values.iter().filter_map(Value::as_str).map(|value| value.chars().count()).sum();
        self.text_chars += chars;
        if values.len() > LARGE_ENUM && chars > MAX_LARGE_ENUM_CHARS {
            self.findings.push(Finding {
                rule: Rule::EnumTooLong,
                path: String::new(),
                message: format!(
                    "an enum with {} values has {chars} characters of values (limit {MAX_LARGE_ENUM_CHARS})",
                    values.len()
                ),
            });
        }
    }

    fn totals(&mut self) {
        if self.properties > MAX_PROPERTIES {
            let message = format!("{} properties (limit {MAX_PROPERTIES})", self.properties);
            self.find(Rule::TooManyProperties, "", message);
        }
        if self.deepest > MAX_NESTING {
            let message = format!("objects nest {} levels deep (limit {MAX_NESTING})", self.deepest);
            let path = self.deepest_path.clone();
            self.find(Rule::TooDeep, &path, message);
        }
        if self.enum_values > MAX_ENUM_VALUES {
            let message = format!("{} enum values (limit {MAX_ENUM_VALUES})", self.enum_values);
            self.find(Rule::TooManyEnumValues, "", message);
        }
        if self.text_chars > MAX_TOTAL_STRING_CHARS {
            let message =
                format!("{} characters of names and values (limit {MAX_TOTAL_STRING_CHARS})", self.text_chars);
            self.find(Rule::TooMuchText, "", message);
        }
    }
}

fn is_object_type(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(schema: &Value) -> Vec<(&'static str, String)> {
        lint_strict(schema).into_iter().map(|finding| (finding.rule.id(), finding.path)).collect()
    }

    #[test]
    fn the_seeds_weather_schema_is_clean() {
        let schema = json!({
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null]}
            },
            "required": ["location", "units"],
            "additionalProperties": false
        });
        assert_eq!(rules(&schema), vec![]);
    }

    #[test]
    fn finds_each_strict_mode_problem_where_it_is() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "object", "properties": {"c": {"allOf": [{"type": "string"}]}}, "required": ["c"]},
                "d": {"description": "no type"}
            },
            "required": ["b", "d"]
        });
        assert_eq!(
            rules(&schema),
            vec![
                ("strict/additional-properties", String::new()),
                ("strict/property-not-required", "/properties/a".to_owned()),
                ("strict/additional-properties", "/properties/b".to_owned()),
                ("strict/unsupported-keyword", "/properties/b/properties/c".to_owned()),
                ("strict/missing-type", "/properties/b/properties/c".to_owned()),
                ("strict/missing-type", "/properties/d".to_owned()),
            ]
        );
    }

    #[test]
    fn the_root_must_be_an_object() {
        assert_eq!(rules(&json!({"type": "array", "items": {"type": "string"}}))[0].0, "strict/root-not-object");
        assert_eq!(rules(&json!({"anyOf": [{"type": "object"}]}))[0].0, "strict/root-any-of");
    }

    #[test]
    fn size_limits_are_counted_over_the_whole_schema() {
        let mut inner = json!({"type": "string"});
        for level in 0..11 {
            inner = json!({"type": "object", "properties": {format!("l{level}"): inner}, "required": [format!("l{level}")], "additionalProperties": false});
        }
        assert!(rules(&inner).iter().any(|(rule, _)| *rule == "strict/too-deep"));
        let values: Vec<String> = (0..1001).map(|index| format!("v{index}")).collect();
        let schema = json!({"type": "object", "properties": {"e": {"type": "string", "enum": values}}, "required": ["e"], "additionalProperties": false});
        assert!(rules(&schema).iter().any(|(rule, _)| *rule == "strict/too-many-enum-values"));
    }

    #[test]
    fn rule_ids_are_unique() {
        let all = [
            Rule::RootNotObject,
            Rule::RootAnyOf,
            Rule::AdditionalPropertiesNotFalse,
            Rule::PropertyNotRequired,
            Rule::UnsupportedKeyword,
            Rule::MissingType,
            Rule::TooManyProperties,
            Rule::TooDeep,
            Rule::TooManyEnumValues,
            Rule::EnumTooLong,
            Rule::TooMuchText,
        ];
        let ids: std::collections::BTreeSet<&str> = all.iter().map(|rule| rule.id()).collect();
        assert_eq!(ids.len(), all.len());
    }
}
