//! `rate-limit-retry-after`: rate_limited carries details.retry_after_ms: the downstream's Retry-After when it
//! gave one, and the contract's default (1000 ms, docs/errors.md) when its 429 named none.
//!
//! Rule enforced here: the downstream's Retry-After is the `rate_limit` fault that answered the call's 429; a
//! fault without `retry_after` sends no header.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::Exchange;
use crate::world::FaultKind;
use callproof_executor::ErrorCode;
use callproof_executor::outcome::DEFAULT_RETRY_AFTER;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const RATE_LIMIT_RETRY_AFTER: CheckId = CheckId::new("rate-limit-retry-after");

pub(super) const CHECK: Check = Check {
    id: RATE_LIMIT_RETRY_AFTER,
    level: Level::Must,
    rule: "rate_limited carries details.retry_after_ms: the downstream's Retry-After, or 1000 ms when it gave none",
    seed_ref: "§6.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in context.transcript.calls.iter().filter(|call| call.code() == Some(ErrorCode::RateLimited)) {
        judgement.judged();
        let given = call.error().and_then(|error| error.details.get("retry_after_ms"));
        let told = given.and_then(whole_ms);
        let said = context
            .transcript
            .exchanges_of_call(call.index)
            .filter(|exchange| exchange.record.status == Some(429))
            .find_map(retry_after_ms);
        match (told, said) {
            (None, _) => {
                let problem = match given {
                    None => "rate_limited without details.retry_after_ms".to_owned(),
                    Some(value) => format!("details.retry_after_ms is {value}, not a whole number of milliseconds"),
                };
                judgement.fail(problem, context.evidence(call));
            }
            (Some(told), Some(Some(said))) if told != said => judgement.fail(
                format!("the downstream said Retry-After {said} ms, the envelope says {told} ms"),
                context.evidence(call),
            ),
            (Some(told), Some(None)) if told != DEFAULT_MS => judgement.fail(
                format!("the downstream's 429 said no Retry-After, so the default is {DEFAULT_MS} ms; the envelope says {told} ms"),
                context.evidence(call),
            ),
            _ => {}
        }
    }
    judgement.outcome()
}

/// A whole, non-negative number of milliseconds, however JSON spells it: `7000` and `7000.0` are the same
/// number (JSON Schema's `integer` accepts both).
fn whole_ms(value: &Value) -> Option<u64> {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    value.as_u64().or_else(|| {
        let float = value.as_f64()?;
        // The range check makes the cast exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        ((0.0..=EXACT).contains(&float) && float.fract() == 0.0).then_some(float as u64)
    })
}

/// The Retry-After default of the contract, in ms.
const DEFAULT_MS: u64 = DEFAULT_RETRY_AFTER.as_millis() as u64;

/// The Retry-After (in ms) of the `rate_limit` fault that answered `exchange`, if one did: `Some(None)` when
/// that 429 carried no Retry-After.
fn retry_after_ms(exchange: &Exchange) -> Option<Option<u64>> {
    match exchange.fault_kind()? {
        FaultKind::RateLimit(rate_limit) => Some(rate_limit.retry_after.map(|seconds| seconds * 1000)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn the_downstreams_retry_after_passes() {
        history("submit refund_order -> rate_limited retry_after_ms=2000; request POST /refunds -> 429 fault=rate_limit,retry_after=2")
            .passes(&CHECK);
    }

    #[test]
    fn another_wait_than_the_downstreams_fails() {
        history("submit refund_order -> rate_limited retry_after_ms=1000; request POST /refunds -> 429 fault=rate_limit,retry_after=2")
            .fails(&CHECK, "the downstream said Retry-After 2000 ms, the envelope says 1000 ms");
    }

    #[test]
    fn a_whole_number_spelled_as_a_float_is_the_same_wait() {
        history("submit refund_order -> rate_limited retry_after_ms=2000.0; request POST /refunds -> 429 fault=rate_limit,retry_after=2")
            .passes(&CHECK);
        history("submit refund_order -> rate_limited retry_after_ms=2000.5; request POST /refunds -> 429 fault=rate_limit,retry_after=2")
            .fails(&CHECK, "details.retry_after_ms is 2000.5, not a whole number of milliseconds");
    }

    #[test]
    fn a_429_without_retry_after_means_the_default() {
        history("submit refund_order -> rate_limited retry_after_ms=1000; request POST /refunds -> 429 fault=rate_limit")
            .passes(&CHECK);
        history("submit refund_order -> rate_limited retry_after_ms=0; request POST /refunds -> 429 fault=rate_limit")
            .fails(&CHECK, "the downstream's 429 said no Retry-After, so the default is 1000 ms; the envelope says 0 ms");
    }

    #[test]
    fn no_wait_at_all_fails() {
        history("submit refund_order -> rate_limited; request POST /refunds -> 429")
            .fails(&CHECK, "rate_limited without details.retry_after_ms");
    }

    #[test]
    fn runs_without_rate_limits_skip() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
