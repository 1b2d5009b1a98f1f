//! `rate_limit`: the downstream commits nothing and answers 429, with `Retry-After` or without it.
//!
//! Rule enforced here: the header carries exactly `retry_after` seconds, and is left out when no `retry_after`
//! is given, so a check can compare what the executor tells the caller with what the downstream said (or with
//! the contract's default when it said nothing).

use crate::world::fault::{Before, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Commit nothing; answer 429 with `Retry-After: retry_after` seconds (no `Retry-After` without `retry_after`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// Seconds in the `Retry-After` header; left out, the 429 carries no `Retry-After`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl Rule for RateLimit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        let mut answer = Outgoing::refusal(429, json!({"error": {"reason": "rate_limited"}}));
        if let Some(seconds) = self.retry_after {
            answer.headers.push(("retry-after".to_owned(), seconds.to_string()));
        }
        Before::Answer(answer)
    }
}

impl Fault for RateLimit {
    fn generated() -> Vec<Generated> {
        vec![Generated::new("rate_limit", |_| FaultKind::RateLimit(RateLimit { retry_after: Some(2) }).into())]
    }
}
