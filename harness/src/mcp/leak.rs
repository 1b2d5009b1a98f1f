//! Error texts scanned for what a server must not tell a client: stack traces, file paths, secret-shaped strings.
//!
//! Rule enforced here: a pattern is added only when correct error messages cannot contain it (a false positive
//! fails a correct server); each match is reported with the pattern's name and the text it matched.

use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// The patterns, each with a name for the report.
const PATTERNS: [(&str, &str); 12] = [
    ("a Python traceback", r"Traceback \(most recent call last\)"),
    ("a Python stack frame", r#"File "[^"]+", line \d+"#),
    ("a Python source line", r#"\.py", line \d+"#),
    ("a JavaScript stack frame", r"\bat (?:Object\.|async |new )?[\w.$<>]+ \((?:file://)?/?[^)\s]*:\d+:\d+\)"),
    ("a JavaScript stack frame", r"\bat Object\.<?\w"),
    ("a Rust panic", r"panicked at [^\s:]+\.rs:\d+"),
    ("a Java stack frame", r"\bat [\w$.]+\([\w$]+\.java:\d+\)"),
    (
        "a file path",
        r#"(?:/home/|/Users/|/root/|/srv/|/opt/|/usr/(?:local/)?lib/|site-packages/|node_modules/|[A-Za-z]:\\\\?Users)[^\s"']*"#,
    ),
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    (
        "a cloud or API key",
        r"\b(?:AKIA[0-9A-Z]{16}|sk_live_[0-9A-Za-z]{8,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,})",
    ),
    ("a JWT", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
    ("a password or key assignment", r#"(?i)\b(?:password|passwd|secret|api[_-]?key)\s*[=:]\s*["']?[^\s"',}]{6,}"#),
];

fn compiled() -> &'static [(&'static str, Regex)] {
    static COMPILED: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    COMPILED.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|(name, pattern)| (*name, Regex::new(pattern).expect("the leak patterns are valid regexes")))
            .collect()
    })
}

/// What `text` leaks: one `name: "match"` entry per pattern that matches, in pattern order.
pub fn leaks(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (name, regex) in compiled() {
        if let Some(hit) = regex.find(text) {
            let shown: String = hit.as_str().chars().take(80).collect();
            let entry = format!("{name}: {shown:?}");
            if !found.iter().any(|seen| seen.starts_with(name)) {
                found.push(entry);
            }
        }
    }
    found
}

/// The error texts of a JSON-RPC answer: an error's `message` and `data`, or an `isError` result's content
/// and `structuredContent`. A successful result has none.
pub fn error_text(message: &Value) -> Option<String> {
    if let Some(error) = message.get("error") {
        return Some(error.to_string());
    }
    let result = message.get("result")?;
    (result.get("isError") == Some(&Value::Bool(true))).then(|| {
        let mut text = String::new();
        for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
            if let Some(part) = block.get("text").and_then(Value::as_str) {
                text.push_str(part);
                text.push('\n');
            }
        }
        if let Some(structured) = result.get("structuredContent") {
            text.push_str(&structured.to_string());
        }
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_validation_messages_leak_nothing() {
        for text in [
            "Input validation error: '100' is not of type 'integer'",
            "invalid_arguments: unknown field `is_admin` at /is_admin",
            "Unknown tool: no_such_tool",
            "the field order_id must match ^ord_[A-Za-z0-9]+$",
            "token expired; secret rotation pending",
        ] {
            assert_eq!(leaks(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn tracebacks_paths_and_keys_are_found_and_named() {
        let python = "Traceback (most recent call last):\n  File \"/home/app/server.py\", line 12, in refund";
        let found = leaks(python);
        assert!(found.iter().any(|entry| entry.starts_with("a Python traceback")), "{found:?}");
        assert!(found.iter().any(|entry| entry.contains("/home/app/server.py")), "{found:?}");
        let node = "TypeError: x is undefined\n    at Object.<anonymous> (/srv/app/index.js:3:9)";
        assert!(!leaks(node).is_empty());
        assert!(leaks("No such file or directory: '/home/deploy/orders/ord_1.json'")[0].starts_with("a file path"));
        assert!(leaks("upstream said: api_key=sk_live_abcdefgh1234").len() >= 2);
        assert!(!leaks("-----BEGIN RSA PRIVATE KEY-----").is_empty());
    }

    #[test]
    fn error_texts_come_from_errors_and_is_error_results_only() {
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: x"}});
        assert!(error_text(&error).expect("error").contains("Unknown tool"));
        let refused = json!({"result": {"isError": true, "content": [{"type": "text", "text": "bad input"}]}});
        assert_eq!(error_text(&refused).as_deref(), Some("bad input\n"));
        let success = json!({"result": {"content": [{"type": "text", "text": "/home/me is fine here"}]}});
        assert_eq!(error_text(&success), None);
    }
}
