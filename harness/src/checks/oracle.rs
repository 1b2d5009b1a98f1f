//! The input oracle: what the contract refuses, judged by the reference decoder.
//!
//! Rule enforced here: the decoding rules (strict JSON, no duplicate keys, bounded size and depth, exact tool
//! names, the catalog's schemas, integer literals only) are the specification every executor implements; the
//! reference decoder *is* that specification, compiled. A call it refuses must be refused by the executor under
//! test with an input-layer error, whatever else the executor thinks of it.

use callproof_executor::app::{Downstream, HttpRequest, HttpResponse, SendError, conformance_app};
use callproof_executor::decode::{self, CompiledSchema, Limits};
use callproof_executor::error::Category;
use callproof_executor::{Arguments, ErrorBody, ToolCall, Tools};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// A downstream the oracle's tools never call (decoding does no I/O).
struct Unreachable;

#[async_trait::async_trait]
impl Downstream for Unreachable {
    async fn send(&self, _request: HttpRequest, _timeout: Duration) -> Result<HttpResponse, SendError> {
        Err(SendError::NotSent)
    }
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| conformance_app(Arc::new(Unreachable)).expect("the catalog compiles").0)
}

/// The compiled input schema of the catalog tool `tool`, when it marks an argument `x-sensitive`: the reference's
/// own reading of the mark (which properties, at any depth, through `items` and the combinators).
pub(crate) fn sensitive_input(tool: &str) -> Option<&'static CompiledSchema> {
    tools().get(tool).map(|tool| &tool.input).filter(|input| input.marks_sensitive())
}

/// The reference decoder's refusal of a call of `tool` with `arguments`, if it refuses it at the input or
/// protocol layer. Decoding reads only the tool name and the arguments, so a verdict on raw text is remembered:
/// exploration judges every call again after each later step, and its calls come from small pools. The memory
/// is bounded ([`REMEMBERED`] entries; it starts over when full), and a lookup is a hash of the two texts.
pub(crate) fn refusal(tool: &str, arguments: &Arguments) -> Option<ErrorBody> {
    let Arguments::Raw(text) = arguments else { return decoded_refusal(tool, arguments) };
    let key = (tool.to_owned(), text.clone());
    static VERDICTS: OnceLock<Mutex<Verdicts>> = OnceLock::new();
    let verdicts = VERDICTS.get_or_init(Mutex::default);
    if let Some(verdict) = verdicts.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return verdict.clone();
    }
    let verdict = decoded_refusal(tool, arguments);
    let mut verdicts = verdicts.lock().unwrap_or_else(PoisonError::into_inner);
    if verdicts.len() >= REMEMBERED {
        verdicts.clear();
    }
    verdicts.insert(key, verdict.clone());
    verdict
}

/// Verdicts of the reference decoder by tool name and raw arguments text.
type Verdicts = HashMap<(String, String), Option<ErrorBody>>;

/// How many verdicts [`refusal`] keeps: far more than exploration's pools of arguments make.
const REMEMBERED: usize = 4096;

fn decoded_refusal(tool: &str, arguments: &Arguments) -> Option<ErrorBody> {
    let call = ToolCall { call_id: String::new(), name: tool.to_owned(), arguments: arguments.clone() };
    match decode::decode(&call, tools(), &Limits::default()) {
        Ok(_) => None,
        Err(error) if matches!(error.category(), Category::Input | Category::Protocol) => Some(error),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_verdict_is_the_decoders_own() {
        let texts = [
            r#"{"order_id":"ord_1","amount":100,"reason":"x"}"#,
            r#"{"order_id":"ord_1","amount":"100","reason":"x"}"#,
            r#"{"order_id":"ord_1","amount":1,"amount":100,"reason":"x"}"#,
            "{",
        ];
        for text in texts {
            let arguments = Arguments::Raw(text.to_owned());
            let decoded = decoded_refusal("refund_order", &arguments);
            assert_eq!(refusal("refund_order", &arguments), decoded, "{text}, first time");
            assert_eq!(refusal("refund_order", &arguments), decoded, "{text}, remembered");
            // The tool is part of what is remembered.
            assert_eq!(refusal("get_order", &arguments), decoded_refusal("get_order", &arguments), "{text}");
        }
        assert!(refusal("refund_order", &Arguments::Raw(texts[0].to_owned())).is_none());
        assert!(refusal("refund_order", &Arguments::Raw(texts[1].to_owned())).is_some());
    }
}
