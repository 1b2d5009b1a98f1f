//! Error texts scanned for what a server must not tell a client: stack traces, file paths, secret-shaped strings.
//!
//! Rule enforced here: a pattern is added only when correct error messages cannot contain it (a false positive
//! fails a correct server); each match is reported with the pattern's name and the text it matched. Hence a
//! Python frame counts only when its file is a file (`<stdin>` is the caller's own snippet, run by a code-running
//! tool), and a file path only when it names something the caller did not ask for (a file tool's correct error
//! names the file it could not read: `No such file or directory: '/srv/notes/x'` for the argument `x`, or the
//! folder the user configured it with: `'/srv/notes'` for `--root /srv/notes` on its command line). A URL with
//! a password in it (`postgresql://app:pw@db/x`) counts unless the password is a placeholder (`user:password@`,
//! `:****@`, `:<password>@`: a correct message may show the expected form) or the caller sent that URL.

use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// The name of the pattern whose matches a sent argument can explain.
const FILE_PATH: &str = "a file path";

/// The name of the pattern for a URL's embedded credentials, which a placeholder or a sent argument explains.
const URL_PASSWORD: &str = "a password in a URL";

/// Most string arguments of one call looked at (their number and nesting are the caller's, but bound anyway).
const MAX_ARGUMENTS: usize = 64;

/// The patterns, each with a name for the report.
const PATTERNS: [(&str, &str); 13] = [
    // A traceback and a frame count only with a file that is one: `File "<stdin>"` and `File "<string>"` are
    // the caller's own code, run by a code-running tool, and disclose nothing of the server.
    // In a JSON-RPC error the text is JSON: its newlines are `\n` and its quotes `\"`.
    ("a Python traceback", r#"Traceback \(most recent call last\):?(?:\s|\\n)*File \\?"[^"<]"#),
    ("a Python stack frame", r#"File \\?"[^"<][^"]*?", line \d+"#),
    ("a Python source line", r#"\.py", line \d+"#),
    ("a JavaScript stack frame", r"\bat (?:Object\.|async |new )?[\w.$<>]+ \((?:file://)?/?[^)\s]*:\d+:\d+\)"),
    ("a JavaScript stack frame", r"\bat Object\.<?\w"),
    ("a Rust panic", r"panicked at [^\s:]+\.rs:\d+"),
    ("a Java stack frame", r"\bat [\w$.]+\([\w$]+\.java:\d+\)"),
    (
        FILE_PATH,
        r#"(?:/home/|/Users/|/root/|/srv/|/opt/|/usr/(?:local/)?lib/|site-packages/|node_modules/|[A-Za-z]:\\\\?Users)[^\s"']*"#,
    ),
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    (
        "a cloud or API key",
        r"\b(?:AKIA[0-9A-Z]{16}|sk_live_[0-9A-Za-z]{8,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,})",
    ),
    ("a JWT", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."),
    (URL_PASSWORD, r#"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@"'\\]+:[^\s/@"'\\]+@[^\s/"'\\]+"#),
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

/// What `text` leaks: one `name: "match"` entry per pattern that matches, in pattern order. A file path that
/// names one of `sent` (the string arguments of the call it answers, [`sent_strings`]) is not a leak.
pub fn leaks(text: &str, sent: &[String]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (name, regex) in compiled() {
        let explained = |hit: &str| match *name {
            FILE_PATH => sent.iter().any(|argument| names(hit, argument)),
            URL_PASSWORD => placeholder(hit) || sent.iter().any(|argument| argument.contains(hit)),
            _ => false,
        };
        if let Some(hit) = regex.find_iter(text).find(|hit| !explained(hit.as_str())) {
            let shown: String = hit.as_str().chars().take(80).collect();
            let entry = format!("{name}: {shown:?}");
            if !found.iter().any(|seen| seen.starts_with(name)) {
                found.push(entry);
            }
        }
    }
    found
}

/// Whether the password of a `scheme://user:password@host` match is a placeholder, not a password: a word
/// such as `password`, a mask (`****`, `xxxx`), or a template (`<password>`, `${DB_PASSWORD}`, `{pw}`, `%s`).
fn placeholder(url: &str) -> bool {
    let credentials = url.split_once("://").map_or(url, |(_, rest)| rest);
    let Some((_, password)) = credentials.rsplit_once('@').and_then(|(userinfo, _)| userinfo.split_once(':')) else {
        return true;
    };
    let words = ["password", "passwd", "pass", "pwd", "pw", "secret"];
    words.contains(&password.to_ascii_lowercase().as_str())
        || password.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '•'))
        || password.starts_with(['<', '{', '$', '%', '['])
}

/// Whether `path` is the file `argument` asks for: the path ends with the argument as its last component(s),
/// or with it and an extension the server added (`x` read as `/srv/shop/orders/x.json`).
fn names(path: &str, argument: &str) -> bool {
    let argument = argument.trim_start_matches("./").trim_matches('/');
    if argument.is_empty() {
        return false;
    }
    let path = path.trim_end_matches(['.', ',', ':', ';', ')', ']', '}']);
    let tail = format!("/{argument}");
    let stem = match path.rsplit_once('.') {
        Some((stem, extension)) if extension.len() <= 8 && !extension.contains(['/', '\\']) => stem,
        _ => path,
    };
    path.ends_with(&tail) || stem.ends_with(&tail)
}

/// The words of a server's command line that hold a `/` (the value of `--opt=VALUE` too): the paths the user
/// configured the server with, which its errors may name without disclosing anything the user did not choose.
pub fn command_paths(command: &str) -> Vec<String> {
    let words = crate::shell::split(command).unwrap_or_default();
    let values = words.iter().map(|word| word.split_once('=').map_or(word.as_str(), |(_, value)| value));
    values.filter(|value| value.contains('/')).map(str::to_owned).collect()
}

/// The string values of the `arguments` of a `tools/call` line (none when it is not JSON or has none).
pub fn sent_strings(line: &str) -> Vec<String> {
    let Ok(message) = serde_json::from_str::<Value>(line) else { return Vec::new() };
    let mut strings = Vec::new();
    let mut pending: Vec<&Value> = message.pointer("/params/arguments").into_iter().collect();
    let mut budget = 16 * MAX_ARGUMENTS;
    while let Some(value) = pending.pop() {
        budget -= 1;
        if strings.len() == MAX_ARGUMENTS || budget == 0 {
            break;
        }
        match value {
            Value::String(text) => strings.push(text.clone()),
            Value::Array(items) => pending.extend(items.iter().take(MAX_ARGUMENTS)),
            Value::Object(members) => pending.extend(members.values().take(MAX_ARGUMENTS)),
            _ => {}
        }
    }
    strings
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
            assert_eq!(leaks(text, &[]), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn tracebacks_paths_and_keys_are_found_and_named() {
        let python = "Traceback (most recent call last):\n  File \"/home/app/server.py\", line 12, in refund";
        let found = leaks(python, &[]);
        assert!(found.iter().any(|entry| entry.starts_with("a Python traceback")), "{found:?}");
        assert!(found.iter().any(|entry| entry.contains("/home/app/server.py")), "{found:?}");
        let node = "TypeError: x is undefined\n    at Object.<anonymous> (/srv/app/index.js:3:9)";
        assert!(!leaks(node, &[]).is_empty());
        let path = "No such file or directory: '/home/deploy/orders/ord_1.json'";
        assert!(leaks(path, &[])[0].starts_with("a file path"));
        assert!(leaks(path, &["ord_2".to_owned()])[0].starts_with("a file path"), "not the file asked for");
        assert!(leaks("upstream said: api_key=sk_live_abcdefgh1234", &[]).len() >= 2);
        assert!(!leaks("-----BEGIN RSA PRIVATE KEY-----", &[]).is_empty());
        // The same traceback inside a JSON-RPC error, whose text is JSON.
        let escaped = Value::String(python.to_owned()).to_string();
        let found = leaks(&escaped, &[]);
        assert!(found.iter().any(|entry| entry.starts_with("a Python traceback")), "{found:?}");
        assert!(found.iter().any(|entry| entry.starts_with("a Python stack frame")), "{found:?}");
    }

    #[test]
    fn a_database_url_with_its_password_leaks_and_a_placeholder_or_the_callers_own_url_does_not() {
        let text = "could not connect to postgresql://inventory:Tr0ub4dor-3@db.internal:5432/warehouse: timeout";
        let found = leaks(text, &[]);
        assert!(found.iter().any(|entry| entry.starts_with("a password in a URL")), "{found:?}");
        let escaped = Value::String(text.to_owned()).to_string();
        assert!(leaks(&escaped, &[]).iter().any(|entry| entry.starts_with("a password in a URL")));
        for correct in [
            "dsn must look like postgresql://user:password@host:5432/db",
            "cannot reach postgresql://app:****@db.internal/x",
            "set DATABASE_URL=postgres://app:${DB_PASSWORD}@db/x",
            "ssh://git@github.com:22 refused the key",
            "http://[::1]:8080/ did not answer",
        ] {
            assert_eq!(leaks(correct, &[]), Vec::<String>::new(), "{correct}");
        }
        let dsn = "mysql://me:hunter22@localhost/shop".to_owned();
        assert_eq!(leaks(&format!("cannot connect to {dsn}"), &[dsn]), Vec::<String>::new(), "the caller's own URL");
    }

    #[test]
    fn the_callers_own_snippet_traceback_is_no_leak_but_one_through_a_server_file_is() {
        // A code-running tool returns the snippet's traceback so the model can fix its code
        // (examples/mcp-false-positives, #8).
        let snippet = "Error executing tool run_python: Traceback (most recent call last):\n  File \"<stdin>\", line 1, \
                       in <module>\nNameError: name 'x' is not defined";
        assert_eq!(leaks(snippet, &[]), Vec::<String>::new());
        assert_eq!(leaks(&Value::String(snippet.to_owned()).to_string(), &[]), Vec::<String>::new());
        let server = "Traceback (most recent call last):\n  File \"app/server.py\", line 9, in call\nKeyError: 'x'";
        assert!(leaks(server, &[]).iter().any(|entry| entry.starts_with("a Python traceback")));
    }

    #[test]
    fn a_file_tools_error_naming_the_file_the_caller_asked_for_is_no_leak() {
        let sent = |line: &str| sent_strings(line);
        let call =
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_note","arguments":{"path":"x"}}}"#;
        assert_eq!(sent(call), vec!["x".to_owned()]);
        let missing = "Error executing tool read_note: [Errno 2] No such file or directory: '/srv/notes/x'";
        assert_eq!(leaks(missing, &sent(call)), Vec::<String>::new());
        let with_extension = "[Errno 2] No such file or directory: '/srv/shop/orders/x.json'";
        assert_eq!(leaks(with_extension, &sent(call)), Vec::<String>::new());
        let nested =
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"n","arguments":{"a":["notes/x.md"]}}}"#;
        assert_eq!(leaks("cannot open /home/me/notes/x.md.", &sent(nested)), Vec::<String>::new());
        // A path the call did not name is still one: the server's own files, or another file than the one asked.
        let config = "cannot parse /srv/app/config.yaml: bad indent at /srv/notes/x";
        assert!(leaks(config, &sent(call))[0].contains("/srv/app/config.yaml"), "{:?}", leaks(config, &sent(call)));
        assert!(!leaks("No such file: /srv/notes/xylophone", &sent(call)).is_empty());
        assert_eq!(sent("not json"), Vec::<String>::new());
    }

    #[test]
    fn the_folder_the_user_configured_on_the_command_line_is_no_leak() {
        let configured = command_paths("/venv/bin/python files.py --root /srv/notes --cache=/var/cache/notes -v");
        assert_eq!(configured, ["/venv/bin/python", "/srv/notes", "/var/cache/notes"]);
        let missing = "Error executing tool list_notes: [Errno 2] No such file or directory: '/srv/notes'";
        assert_eq!(leaks(missing, &configured), Vec::<String>::new());
        assert!(!leaks("cannot read /srv/app/secrets.yaml", &configured).is_empty());
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
