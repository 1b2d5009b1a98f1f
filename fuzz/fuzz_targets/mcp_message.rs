//! MCP messages on arbitrary bytes, as the reference MCP server's transport-independent core answers them: the
//! stdio line and the HTTP body alike go through `callproof_executor::mcp::answer`.
//!
//! Invariants: `answer` never panics, under either trust (stdio, or an HTTP token's identity); every answer sent
//! at once is a JSON-RPC 2.0 message with an `id` and exactly one of `result` and `error` (with an integer
//! code), and a -32700 has `id: null`; a call's argument text is the message's own text, byte for byte (or `{}`
//! when absent, `null` when null); over HTTP the call's identity is the token's, whatever `_meta` says.
//!
//! The same bytes are also an `Authorization` header for the HTTP server's token verifier: it never panics and
//! never accepts bytes not signed with its key; and when they are JSON, signed as a token's claims with the key,
//! they are never refused as malformed, forged or of another algorithm.
#![no_main]

use callproof_executor::AuthContext;
use callproof_executor::mcp::token::{TokenError, Verifier, sign};
use callproof_executor::mcp::{Answer, Trust, answer};
use callproof_executor::request::Arguments;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn check_message(message: &Value) {
    assert_eq!(message["jsonrpc"], "2.0", "{message}");
    assert!(message.get("id").is_some(), "no id: {message}");
    assert!(message.get("result").is_some() != message.get("error").is_some(), "result xor error: {message}");
    if let Some(error) = message.get("error") {
        let code = error["code"].as_i64().expect("an integer error code");
        assert!(code != -32700 || message["id"].is_null(), "a parse error names an id: {message}");
    }
}

fn check(bytes: &[u8], answered: Answer, token: Option<&AuthContext>) {
    match answered {
        Answer::Nothing => {}
        Answer::Now(message) | Answer::Initialize(message) => check_message(&message),
        Answer::Execute(call) => {
            let Arguments::Raw(text) = &call.request.call.arguments else { panic!("arguments not kept as text") };
            let found = bytes.windows(text.len().max(1)).any(|window| window == text.as_bytes());
            assert!(text == "{}" || text == "null" || found, "argument text not from the message: {text}");
            if let Some(token) = token {
                assert_eq!(&call.request.auth, token, "over HTTP the identity is the token's");
            }
        }
    }
}

const KEY: &[u8] = b"fuzz-key_0123456789abcdefghijklmnopqrstuvwx";
const NOW_MS: u64 = 1_800_000_000_000;

fn check_token(bytes: &[u8]) {
    let verifier = Verifier::new(KEY, "http://127.0.0.1:4000/mcp");
    assert!(verifier.verify(Some(bytes), NOW_MS).is_err(), "unsigned bytes verified");
    if let Ok(claims) = serde_json::from_slice::<Value>(bytes) {
        let token = sign(KEY, &serde_json::json!({"alg": "HS256", "typ": "JWT"}), &claims);
        let verified = verifier.verify(Some(format!("Bearer {token}").as_bytes()), NOW_MS);
        assert!(
            !matches!(verified, Err(TokenError::Malformed(_) | TokenError::Signature | TokenError::Algorithm)),
            "a signed token refused as {verified:?}"
        );
    }
}

fuzz_target!(|bytes: &[u8]| {
    check_token(bytes);
    check(bytes, answer(bytes, &[], Trust::Stdio), None);
    let token = AuthContext::new("u_token", "t_token", &["orders:read"]);
    let durable = ["durable_store".to_owned()];
    check(bytes, answer(bytes, &durable, Trust::Token(Box::new(token.clone()))), Some(&token));
});
