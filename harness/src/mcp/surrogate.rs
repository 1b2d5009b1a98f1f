//! Reading a server's JSON text that holds a lone surrogate escape (`"\ud83c"`, half of an emoji a JavaScript
//! `slice` cut): grammatical JSON by RFC 8259 §7 and §8.2, which serde_json refuses.
//!
//! Rule enforced here: such a message is read, each lone surrogate escape as U+FFFD, never dropped as if the
//! server had not answered; a valid pair stays as it is. The rewrite is one linear pass over the text, the same
//! length out as in, and panics on nothing.

use serde_json::Value;

/// `text` parsed as JSON, lone surrogate escapes read as U+FFFD; `None` when it is not JSON even so.
pub(crate) fn parse(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => Some(value),
        Err(_) if text.contains("\\u") => serde_json::from_str(&replace_lone(text)?).ok(),
        Err(_) => None,
    }
}

/// [`parse`] for bytes that should be UTF-8.
pub(crate) fn parse_slice(bytes: &[u8]) -> Option<Value> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(value) => Some(value),
        Err(_) => parse(std::str::from_utf8(bytes).ok()?),
    }
}

/// `text` with every `\uD800`–`\uDFFF` escape that is not half of a high-then-low pair written `\uFFFD`. An
/// escaped backslash (`\\ud800`) is no escape and stays. `None` only if the result were not UTF-8, which an
/// ASCII-for-ASCII rewrite cannot make.
fn replace_lone(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            out.push(bytes[at]);
            at += 1;
            continue;
        }
        let Some(unit) = escaped_unit(bytes, at) else {
            // Any other escape (`\\`, `\"`, `\n`, a broken `\u`) is copied with the byte it escapes.
            let end = (at + 2).min(bytes.len());
            out.extend_from_slice(&bytes[at..end]);
            at = end;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        let paired = high && escaped_unit(bytes, at + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            out.extend_from_slice(&bytes[at..at + 12]);
            at += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.extend_from_slice(b"\\uFFFD");
            at += 6;
        } else {
            out.extend_from_slice(&bytes[at..at + 6]);
            at += 6;
        }
    }
    String::from_utf8(out).ok()
}

/// The code unit of a `\uXXXX` escape starting at `at`, when one does.
fn escaped_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let escape = bytes.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    if !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_answer_with_half_an_emoji_is_read_with_a_replacement_character() {
        let line = r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"grêle \ud83c"}]}}"#;
        assert!(serde_json::from_str::<Value>(line).is_err(), "serde_json refuses it, hence this module");
        let message = parse(line).expect("read");
        assert_eq!(message["id"], json!(4));
        assert_eq!(message["result"]["content"][0]["text"], json!("grêle \u{FFFD}"));
    }

    #[test]
    fn only_lone_halves_are_replaced_and_pairs_and_escaped_backslashes_stay() {
        assert_eq!(
            parse(r#"["\ud83c\udf29", "\udc00", "\ud800\ud800", "\ud800x"]"#).expect("read"),
            json!(["\u{1F329}", "\u{FFFD}", "\u{FFFD}\u{FFFD}", "\u{FFFD}x"])
        );
        assert_eq!(replace_lone(r#""\\ud800 \u00e9 \"\ud800\"""#).as_deref(), Some(r#""\\ud800 \u00e9 \"\uFFFD\"""#));
        assert_eq!(parse(r#""\\ud800""#), Some(json!("\\ud800")));
    }

    #[test]
    fn text_that_is_not_json_stays_unread_and_broken_escapes_do_not_panic() {
        for text in
            ["", "\\", "\\u", "\\ud8", "\"\\ud83c\\u", "\"\\ud83c\\udc", "{\"a\":\"\\ud800\"", "not json \\ud800"]
        {
            assert_eq!(parse(text), None, "{text:?}");
        }
        assert_eq!(parse_slice(b"[\"\\udfff\"]"), Some(json!(["\u{FFFD}"])));
        assert_eq!(parse_slice(b"[\"\xff\\ud800\"]"), None, "not UTF-8");
    }

    #[test]
    fn every_cut_of_a_text_full_of_escapes_is_rewritten_to_the_same_length_without_panicking() {
        let text = r#"{"a":"\\ud800\ud83c\udf29\ud83c\u00e9\"\udc00\ud800\ud800\u12"}"#;
        for end in (0..=text.len()).filter(|end| text.is_char_boundary(*end)) {
            let rewritten = replace_lone(&text[..end]).expect("ASCII for ASCII");
            assert_eq!(rewritten.len(), end, "{rewritten}");
        }
        assert_eq!(parse(text), None, "the last escape is cut");
    }
}
