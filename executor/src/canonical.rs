//! Canonical JSON and SHA-256: one text per value, so equal arguments hash equally.
//!
//! Rule enforced here: object keys sorted by their UTF-8 bytes, no whitespace, strings escaped as serde_json
//! does, and one number form: integers as integers, an integral float inside ±2^53 as an integer (`100.0`,
//! `1e2` → `100`, `-0.0` → `0`), any other float in serde_json's shortest round-trip form.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::Write;

/// Largest integer every IEEE-754 double represents exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Writes the canonical text of `value` into `out`.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => write_number(number, out),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            // serde_json's Map is a BTreeMap here (no `preserve_order`), so iteration is already sorted by key
            // bytes. The unit test `keys_are_sorted_by_bytes` guards this assumption.
            out.push(b'{');
            for (index, (key, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_string(key, out);
                out.push(b':');
                write_canonical(item, out);
            }
            out.push(b'}');
        }
    }
}

/// The canonical text of `value`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::with_capacity(128);
    write_canonical(value, &mut out);
    // Only valid UTF-8 is ever written: JSON punctuation and serde_json-escaped strings.
    String::from_utf8(out).expect("canonical JSON is UTF-8")
}

fn write_number(number: &serde_json::Number, out: &mut Vec<u8>) {
    if let Some(unsigned) = number.as_u64() {
        let _ = write!(out, "{unsigned}");
    } else if let Some(signed) = number.as_i64() {
        let _ = write!(out, "{signed}");
    } else if let Some(float) = number.as_f64() {
        if float.fract() == 0.0 && float.abs() <= MAX_SAFE_INTEGER {
            // Integral and exact: one form with the integer literal. `as` is exact in this range; -0.0 → 0.
            let _ = write!(out, "{}", float as i64);
        } else {
            // Finite by construction (serde_json never holds NaN or infinity): shortest round-trip form.
            let _ = serde_json::to_writer(&mut *out, number);
        }
    }
}

fn write_string(text: &str, out: &mut Vec<u8>) {
    // Fast path: nothing to escape.
    if text.bytes().all(|byte| byte >= 0x20 && byte != b'"' && byte != b'\\') {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        // Writing a str into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 0x0f)] as char);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_by_bytes_and_whitespace_is_gone() {
        let value: Value =
            serde_json::from_str(r#"{ "reason":"duplicate", "amount" : 100, "order_id":"ord_123" , "Z":1, "é":2 }"#)
                .expect("parse");
        assert_eq!(canonical_json(&value), r#"{"Z":1,"amount":100,"order_id":"ord_123","reason":"duplicate","é":2}"#);
    }

    #[test]
    fn numbers_have_one_form() {
        let value: Value =
            serde_json::from_str(r#"[100, 100.0, 1e2, -0.0, -0, 0.5, 1e-7, 9007199254740993.0, 1e300, -12]"#)
                .expect("parse");
        assert_eq!(canonical_json(&value), "[100,100,100,0,0,0.5,1e-7,9007199254740992,1e+300,-12]");
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let value = json!({"k\"ey": "line\nbreak \u{1} \\ done"});
        assert_eq!(canonical_json(&value), r#"{"k\"ey":"line\nbreak \u0001 \\ done"}"#);
    }

    #[test]
    fn sha256_matches_a_known_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
