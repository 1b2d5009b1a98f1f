//! The adapter protocol `callproof/1` (docs/protocol.md) as the harness uses it: the message types are the
//! executor crate's ([`callproof_executor::protocol`]), so both ends serialize the same Rust types.
//!
//! Rule enforced here: the harness adds nothing to the wire format; it only turns a [`SubjectCall`] into an
//! `execute` message and keeps what it quotes of a peer's line short.

use crate::subject::SubjectCall;
pub use callproof_executor::protocol::{
    Capabilities, DURABLE_STORE, Execute, FEATURES, FromExecutor, Hello, PAUSE, ParseError, STORE_OUTAGE,
    STORE_PROXY_ENV, ToExecutor, VERSION,
};

/// The `execute` message for `call` under request id `id`.
pub fn execute(id: String, call: SubjectCall) -> ToExecutor {
    ToExecutor::Execute(Execute::new(id, call.into_request()))
}

/// At most `max` characters of `text`, with a mark when cut.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}… ({} bytes)", text.chars().take(max).collect::<String>(), text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use callproof_executor::{AuthContext, ToolCall};
    use serde_json::Value;

    #[test]
    fn a_subject_call_becomes_an_execute_line_with_its_budget_in_milliseconds() {
        let call = SubjectCall {
            call: ToolCall::raw("call_1", "refund_order", "{\"a\":1,\"a\":2}"),
            auth: AuthContext::new("u", "t", &["refunds:write"]),
            business_request_id: Some("br_1".into()),
            attempt: 2,
            budget: std::time::Duration::from_millis(1500),
        };
        let line = execute("7".into(), call).to_line();
        let back: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(back["type"], "execute");
        assert_eq!(back["id"], "7");
        assert_eq!(back["call"]["arguments"]["raw"], "{\"a\":1,\"a\":2}");
        assert_eq!((back["budget_ms"].as_u64(), back["attempt"].as_u64()), (Some(1500), Some(2)));
        assert_eq!(back["business_request_id"], "br_1");
    }

    #[test]
    fn long_lines_are_cut_with_their_size() {
        assert_eq!(excerpt("short", 10), "short");
        assert_eq!(excerpt("abcdef", 3), "abc… (6 bytes)");
    }
}
