//! The input oracle: what the contract refuses, judged by the reference decoder.
//!
//! Rule enforced here: the decoding rules (strict JSON, no duplicate keys, bounded size and depth, exact tool
//! names, the catalog's schemas, integer literals only) are the specification every executor implements; the
//! reference decoder *is* that specification, compiled. A call it refuses must be refused by the executor under
//! test with an input-layer error, whatever else the executor thinks of it.

use callproof_executor::app::{Downstream, HttpRequest, HttpResponse, SendError, conformance_app};
use callproof_executor::decode::{self, Limits};
use callproof_executor::error::Category;
use callproof_executor::{ErrorBody, ToolCall, Tools};
use std::sync::{Arc, OnceLock};
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

/// The reference decoder's refusal of `call`, if it refuses it at the input or protocol layer.
pub(crate) fn refusal(call: &ToolCall) -> Option<ErrorBody> {
    match decode::decode(call, tools(), &Limits::default()) {
        Ok(_) => None,
        Err(error) if matches!(error.category(), Category::Input | Category::Protocol) => Some(error),
        Err(_) => None,
    }
}
