//! Strict JSON parsing: RFC 8259 with no leniency, no duplicate keys, bounded nesting.
//!
//! Rule enforced here: a text either parses to exactly one value or is refused with a position. serde_json
//! supplies the grammar (it already refuses comments, single quotes, trailing commas, NaN, lone surrogates,
//! out-of-range numbers and trailing text); this visitor adds what serde_json lets through: a repeated key
//! (serde_json keeps the last) and nesting past our limit (checked before serde_json's own, so no stack risk).
//! The happy path allocates exactly what `serde_json::Value` would; paths are built only while an error
//! unwinds.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};
use std::cell::{Cell, RefCell};
use std::fmt;

/// Where in the text a problem was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes, of the last byte read.
    pub column: usize,
    /// 0-based byte offset of the last byte read.
    pub offset: usize,
}

/// Why a text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonFault {
    /// Not JSON.
    Syntax {
        /// serde_json's description, without its position suffix. A fixed vocabulary; never echoes input.
        message: String,
        /// A stable hint at the likely cause (`python_literal`, `single_quotes`, ...), when one is recognised.
        hint: Option<&'static str>,
        /// Where.
        position: Position,
    },
    /// An object repeats a key.
    DuplicateKey {
        /// JSON pointer of the repeated member.
        path: String,
        /// Where the second occurrence ends.
        position: Position,
    },
    /// Containers nest deeper than the limit.
    TooDeep {
        /// JSON pointer of the first container past the limit.
        path: String,
        /// Where.
        position: Position,
    },
}

/// Parses `bytes` strictly, refusing duplicate keys and nesting deeper than `max_depth` containers.
pub fn parse_strict(bytes: &[u8], max_depth: usize) -> Result<Value, JsonFault> {
    parse_with(serde_json::Deserializer::from_slice(bytes), bytes, max_depth)
}

/// [`parse_strict`] of a text already known to be UTF-8: the same answers, without checking each string's UTF-8
/// again (the decode stage's raw arguments arrive as a `String`).
pub fn parse_strict_str(text: &str, max_depth: usize) -> Result<Value, JsonFault> {
    parse_with(serde_json::Deserializer::from_str(text), text.as_bytes(), max_depth)
}

fn parse_with<'de, R: serde_json::de::Read<'de>>(
    mut deserializer: serde_json::Deserializer<R>,
    bytes: &[u8],
    max_depth: usize,
) -> Result<Value, JsonFault> {
    let shared = Shared { max_depth, fault: Cell::new(None), unwound_path: RefCell::new(Vec::new()) };
    let parsed = Node { shared: &shared, depth: 0 }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|error| {
        let position = position_of(bytes, error.line(), error.column());
        let path = pointer(shared.unwound_path.take());
        match shared.fault.get() {
            Some(Fault::DuplicateKey) => JsonFault::DuplicateKey { path, position },
            Some(Fault::TooDeep) => JsonFault::TooDeep { path, position },
            None => {
                let message = strip_position(&error.to_string());
                let hint = hint_for(bytes, position.offset, &message, error.is_eof());
                JsonFault::Syntax { message, hint, position }
            }
        }
    })
}

#[derive(Debug, Clone, Copy)]
enum Fault {
    DuplicateKey,
    TooDeep,
}

enum Segment {
    Key(String),
    Index(usize),
}

struct Shared {
    max_depth: usize,
    fault: Cell<Option<Fault>>,
    /// Path segments pushed innermost-first while an error unwinds.
    unwound_path: RefCell<Vec<Segment>>,
}

impl Shared {
    fn fail<E: de::Error>(&self, fault: Fault, innermost: Option<Segment>) -> E {
        self.fault.set(Some(fault));
        if let Some(segment) = innermost {
            self.unwound_path.borrow_mut().push(segment);
        }
        E::custom(match fault {
            Fault::DuplicateKey => "duplicate key",
            Fault::TooDeep => "nesting too deep",
        })
    }

    fn unwind(&self, segment: Segment) {
        if self.fault.get().is_some() {
            self.unwound_path.borrow_mut().push(segment);
        }
    }
}

struct Node<'s> {
    shared: &'s Shared,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value).map(Value::Number).ok_or_else(|| E::custom("number out of range"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > self.shared.max_depth {
            return Err(self.shared.fail(Fault::TooDeep, None));
        }
        let mut items = Vec::new();
        loop {
            match seq.next_element_seed(Node { shared: self.shared, depth }) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(error) => {
                    self.shared.unwind(Segment::Index(items.len()));
                    return Err(error);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > self.shared.max_depth {
            return Err(self.shared.fail(Fault::TooDeep, None));
        }
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match members.entry(key) {
                Entry::Occupied(occupied) => {
                    return Err(self.shared.fail(Fault::DuplicateKey, Some(Segment::Key(occupied.key().clone()))));
                }
                Entry::Vacant(vacant) => match map.next_value_seed(Node { shared: self.shared, depth }) {
                    Ok(member) => {
                        vacant.insert(member);
                    }
                    Err(error) => {
                        self.shared.unwind(Segment::Key(vacant.key().clone()));
                        return Err(error);
                    }
                },
            }
        }
        Ok(Value::Object(members))
    }
}

/// JSON pointer (RFC 6901) from innermost-first segments.
fn pointer(innermost_first: Vec<Segment>) -> String {
    let mut path = String::new();
    for segment in innermost_first.into_iter().rev() {
        path.push('/');
        match segment {
            Segment::Key(key) => push_pointer_token(&mut path, &key),
            Segment::Index(index) => path.push_str(&index.to_string()),
        }
    }
    path
}

/// Appends member name `name` to a JSON pointer as one reference token: `~` becomes `~0` and `/` becomes `~1`
/// (RFC 6901), so a name that contains either still names one member.
pub fn push_pointer_token(pointer: &mut String, name: &str) {
    pointer.reserve(name.len());
    for character in name.chars() {
        match character {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            other => pointer.push(other),
        }
    }
}

/// Member name `name` as one JSON-pointer reference token ([`push_pointer_token`]).
pub(crate) fn pointer_token(name: &str) -> String {
    let mut token = String::new();
    push_pointer_token(&mut token, name);
    token
}

/// serde_json reports the line and the count of bytes read on it; turn that into our three numbers, which all
/// locate one byte: the last byte read, where the parser gave up (docs/errors.md, `invalid_json`). serde_json
/// counts a newline it has just read as the start of the next line (column 0), so the line and column are
/// recomputed from the offset: a raw newline inside a string is on the line it ends, not the one after.
fn position_of(bytes: &[u8], line: usize, column: usize) -> Position {
    let mut start_of_line = 0;
    let mut newlines_left = line.saturating_sub(1);
    if newlines_left > 0 {
        for (index, byte) in bytes.iter().enumerate() {
            if *byte == b'\n' {
                newlines_left -= 1;
                if newlines_left == 0 {
                    start_of_line = index + 1;
                    break;
                }
            }
        }
    }
    let offset = (start_of_line + column).saturating_sub(1).min(bytes.len().saturating_sub(1));
    let before = bytes.get(..offset).unwrap_or_default();
    let line_start = before.iter().rposition(|byte| *byte == b'\n').map_or(0, |newline| newline + 1);
    let line = 1 + before.iter().filter(|byte| **byte == b'\n').count();
    Position { line, column: offset - line_start + 1, offset }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) => message[..cut].to_owned(),
        None => message.to_owned(),
    }
}

/// Names the usual suspects of model output, so a model (and a person) knows what to repair.
fn hint_for(bytes: &[u8], offset: usize, message: &str, eof: bool) -> Option<&'static str> {
    let rest = bytes.get(offset..).unwrap_or_default();
    let starts = |prefix: &[u8]| rest.starts_with(prefix);
    if bytes.starts_with(b"\xEF\xBB\xBF") && offset < 3 {
        Some("byte_order_mark")
    } else if eof {
        Some("truncated")
    } else if message.contains("surrogate") || message.contains("hex escape") {
        Some("lone_surrogate")
    } else if message.contains("number out of range") {
        Some("number_out_of_range")
    } else if message.contains("trailing comma") {
        Some("trailing_comma")
    } else if message.contains("trailing characters") {
        Some("trailing_characters")
    } else if message.contains("control character") {
        Some("control_character")
    } else if starts(b"True") || starts(b"False") || starts(b"None") {
        Some("python_literal")
    } else if starts(b"NaN") || starts(b"Infinity") || starts(b"-Infinity") || starts(b"nan") || starts(b"inf") {
        Some("non_finite_number")
    } else if starts(b"'") {
        Some("single_quotes")
    } else if starts(b"//") || starts(b"/*") || starts(b"#") {
        Some("comment")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(text: &str) -> JsonFault {
        parse_strict(text.as_bytes(), 64).expect_err(text)
    }

    #[test]
    fn parses_what_serde_json_parses() {
        let text = r#"{"a":[1,2.5,{"b":null}],"c":"\u00e9"}"#;
        assert_eq!(
            parse_strict(text.as_bytes(), 64).expect("valid"),
            serde_json::from_str::<Value>(text).expect("valid")
        );
    }

    #[test]
    fn duplicate_keys_are_found_at_any_depth_with_their_path() {
        match fault(r#"{"a":1,"b":[{"c":1},{"c":2,"c":3}]}"#) {
            JsonFault::DuplicateKey { path, position } => {
                assert_eq!(path, "/b/1/c");
                assert_eq!(position.line, 1);
                assert_eq!(position.offset, 29, "the closing quote of the second \"c\"");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(fault(r#"{"x":1,"x":1}"#), JsonFault::DuplicateKey { path, .. } if path == "/x"));
    }

    #[test]
    fn the_problem_that_comes_first_in_the_text_wins() {
        // docs/protocol.md: within the syntax stage, a duplicate key or a level too deep before a syntax error is
        // what the refusal names, and a syntax error before them is.
        assert!(matches!(fault(r#"{"x":1,"x":2,"#), JsonFault::DuplicateKey { path, .. } if path == "/x"));
        assert!(matches!(fault(r#"{"x":1,,"x":2}"#), JsonFault::Syntax { .. }));
        let deep_then_broken = format!("{}{}", "[".repeat(65), "]".repeat(64));
        assert!(matches!(parse_strict(deep_then_broken.as_bytes(), 64), Err(JsonFault::TooDeep { .. })));
    }

    #[test]
    fn pointer_segments_are_escaped() {
        assert!(
            matches!(fault(r#"{"a/b":{"~":1,"~":2}}"#), JsonFault::DuplicateKey { path, .. } if path == "/a~1b/~0")
        );
    }

    #[test]
    fn depth_is_limited_without_recursing_past_the_limit() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        match parse_strict(deep.as_bytes(), 64).expect_err("too deep") {
            JsonFault::TooDeep { path, .. } => assert_eq!(path.matches('/').count(), 64),
            other => panic!("{other:?}"),
        }
        let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse_strict(ok.as_bytes(), 64).is_ok());
        let over = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert!(matches!(parse_strict(over.as_bytes(), 64), Err(JsonFault::TooDeep { .. })));
    }

    #[test]
    fn a_str_parses_exactly_like_its_bytes() {
        let deep = format!("{}{}", "[".repeat(80), "]".repeat(80));
        let corpus = [
            r#"{"a":[1,-2,2.5,1e2,-0,{"b":null}],"c":"\u00e9\n","d":true}"#,
            r#"{"x":1,"x":2}"#,
            "{\n  \"a\": True\n}",
            r#"{"a":1,}"#,
            r#"{"a":"\ud800"}"#,
            "\u{feff}{}",
            r#"{"a":1} x"#,
            r#"{"a":1e400}"#,
            "",
            "[1,2",
            &deep,
        ];
        for text in corpus {
            assert_eq!(parse_strict_str(text, 64), parse_strict(text.as_bytes(), 64), "{text}");
        }
    }

    #[test]
    fn line_column_and_offset_locate_the_same_byte() {
        let located = |text: &str| match fault(text) {
            JsonFault::Syntax { position, .. } => (position.line, position.column, position.offset),
            other => panic!("{other:?}"),
        };
        // A raw newline inside a string: the newline itself, on the line it ends.
        assert_eq!(located("{\"a\":\"x\ny\"}"), (1, 8, 7));
        assert_eq!(located("{\n\"a\":\"x\ny\"}"), (2, 7, 8));
        // A bad escape: the character after the backslash.
        assert_eq!(located(r#"{"a":"\q"}"#), (1, 8, 7));
        // Truncated: the last byte there is; empty: the start.
        assert_eq!(located(r#"{"a":"#), (1, 5, 4));
        assert_eq!(located(""), (1, 1, 0));
        for text in ["{\"a\":\"x\ny\"}", "{\n  \"a\": True\n}", "{\n\n\"a\":\"\u{1}\"}"] {
            let (line, column, offset) = located(text);
            let line_start = text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
            assert_eq!((line, column), (1 + text[..offset].matches('\n').count(), offset - line_start + 1), "{text:?}");
        }
    }

    #[test]
    fn syntax_errors_carry_line_column_offset_and_hint() {
        match fault("{\n  \"a\": True\n}") {
            JsonFault::Syntax { hint, position, message } => {
                assert_eq!(hint, Some("python_literal"));
                assert_eq!((position.line, position.column, position.offset), (2, 8, 9));
                assert!(!message.contains("line"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }
}
