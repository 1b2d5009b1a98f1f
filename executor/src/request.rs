//! What a caller hands the executor: the model's tool call plus the trusted facts around it.
//!
//! Rule enforced here: the model controls only [`ToolCall`]; everything that decides identity, the business
//! operation and the time budget arrives beside it in [`Request`], from the caller's trusted side.

use crate::auth::AuthContext;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// The arguments exactly as the model produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arguments {
    /// A raw JSON text (OpenAI style `arguments: "{...}"`). Decoded strictly by the executor.
    Raw(String),
    /// An already-parsed JSON value (MCP / Anthropic style `input: {...}`).
    Value(Value),
}

/// The model's tool call: untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The model's id for this call; echoed in the answer, never part of the idempotency key.
    pub call_id: String,
    /// The tool name, matched exactly.
    pub name: String,
    /// The arguments.
    pub arguments: Arguments,
}

impl ToolCall {
    /// A call with raw JSON text arguments.
    pub fn raw(call_id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall { call_id: call_id.into(), name: name.into(), arguments: Arguments::Raw(arguments.into()) }
    }

    /// A call with already-parsed arguments.
    pub fn value(call_id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall { call_id: call_id.into(), name: name.into(), arguments: Arguments::Value(arguments) }
    }
}

/// One execution request: the untrusted call and the trusted context.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The model's tool call.
    pub call: ToolCall,
    /// Who is calling, from the authentication layer.
    pub auth: AuthContext,
    /// The caller's id for the business operation; retries of one operation share it.
    pub business_request_id: Option<String>,
    /// The caller's attempt number for this business operation, starting at 1.
    pub attempt: u32,
    /// Time budget for this call; the executor turns it into an absolute deadline on arrival.
    pub budget: Duration,
    /// The executor's id for this execution; generated when absent.
    pub request_id: Option<String>,
    /// Distributed trace id, recorded in the audit record.
    pub trace_id: Option<String>,
}

impl Request {
    /// A first attempt with a 10 s budget and no business request id.
    pub fn new(call: ToolCall, auth: AuthContext) -> Request {
        Request {
            call,
            auth,
            business_request_id: None,
            attempt: 1,
            budget: Duration::from_secs(10),
            request_id: None,
            trace_id: None,
        }
    }

    /// Sets the business request id.
    #[must_use]
    pub fn business_request(mut self, id: impl Into<String>) -> Request {
        self.business_request_id = Some(id.into());
        self
    }

    /// Sets the attempt number.
    #[must_use]
    pub fn attempt(mut self, attempt: u32) -> Request {
        self.attempt = attempt;
        self
    }

    /// Sets the time budget.
    #[must_use]
    pub fn budget(mut self, budget: Duration) -> Request {
        self.budget = budget;
        self
    }
}
