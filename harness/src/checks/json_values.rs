//! JSON values compared and quoted the way the docs compare them, for the checks that compare what was sent or
//! answered with what it should be.
//!
//! Rule enforced here: numbers are compared by value (`30`, `30.0` and `3e1` are one number), places are named by
//! JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`), and a value quoted in a message is cut short.

use serde_json::{Number, Value};

/// Whether two numbers are one value, however they were spelled.
pub(super) fn same_number(left: &Number, right: &Number) -> bool {
    left == right || matches!((left.as_f64(), right.as_f64()), (Some(left), Some(right)) if left == right)
}

/// Whether two JSON values are one value: numbers by value, objects whatever their members' order.
pub(super) fn same_value(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => same_number(left, right),
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && right.iter().all(|(name, value)| left.get(name).is_some_and(|left| same_value(left, value)))
        }
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(left, right)| same_value(left, right))
        }
        _ => left == right,
    }
}

/// The pointer to member `name` below the pointer `at`.
pub(super) fn member_pointer(at: &str, name: &str) -> String {
    format!("{at}/{}", name.replace('~', "~0").replace('/', "~1"))
}

/// A value as JSON text, cut after `max_chars` characters.
pub(super) fn excerpt(value: &Value, max_chars: usize) -> String {
    let text = value.to_string();
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_one_value_however_spelled_and_others_differ() {
        let number = |value: Value| value.as_number().cloned().expect("a number");
        assert!(same_number(&number(json!(30)), &number(json!(30.0))));
        assert!(same_number(&number(json!(-1)), &number(json!(-1))));
        assert!(!same_number(&number(json!(30)), &number(json!(30.5))));
        assert!(!same_number(&number(json!(1)), &number(json!(-1))));
    }

    #[test]
    fn values_are_one_when_their_numbers_are_and_their_members_match_in_any_order() {
        assert!(same_value(&json!({"a": [1, {"b": 2.0}], "c": null}), &json!({"c": null, "a": [1.0, {"b": 2}]})));
        assert!(!same_value(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(!same_value(&json!([1, 2]), &json!([2, 1])));
        assert!(!same_value(&json!("1"), &json!(1)));
    }

    #[test]
    fn pointers_escape_and_excerpts_cut_on_characters() {
        assert_eq!(member_pointer("/a", "b/c~d"), "/a/b~1c~0d");
        assert_eq!(excerpt(&json!("ééé"), 3), "\"éé…");
        assert_eq!(excerpt(&json!(1), 3), "1");
    }
}
