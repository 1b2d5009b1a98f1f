//! `rate_limit`: the downstream commits nothing and answers 429 with `Retry-After`.
//!
//! Rule enforced here: the header carries exactly `retry_after` seconds, so a check can compare what the
//! executor tells the caller with what the downstream said.

use crate::world::fault::{Before, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Commit nothing; answer 429 with `Retry-After: retry_after` seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateLimit {
    /// Seconds in the `Retry-After` header.
    pub retry_after: u64,
}

impl Rule for RateLimit {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        let mut answer = Outgoing::refusal(429, json!({"error": {"reason": "rate_limited"}}));
        answer.headers.push(("retry-after".to_owned(), self.retry_after.to_string()));
        Before::Answer(answer)
    }
}

impl Fault for RateLimit {
    fn generated() -> Vec<Generated> {
        vec![Generated::new("rate_limit", |_| FaultKind::RateLimit(RateLimit { retry_after: 2 }).into())]
    }
}
