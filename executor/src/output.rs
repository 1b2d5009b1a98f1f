//! Stage 7, validate output: a tool's result reaches the caller only if it matches the output schema.
//!
//! Rule enforced here: output is data. A result that breaks the contract is withheld (never partially
//! returned) and reported as `output_invalid`; nothing inside any result changes what the executor does next.

use crate::error::{ErrorBody, ErrorCode};
use crate::idempotency::State;
use crate::outcome::Settled;
use crate::registry::Registered;
use serde_json::Value;

/// The reference output check.
///
/// # Errors
/// `output_invalid` with the first violation's path and keyword (never the offending value).
pub fn validate_output(tool: &Registered, result: &Value) -> Result<(), ErrorBody> {
    if tool.output.is_valid(result) {
        return Ok(());
    }
    let (violations, _) = tool.output.violations(result, 1);
    let body =
        ErrorBody::new(ErrorCode::OutputInvalid, "the tool returned data that does not match its output contract");
    Err(match violations.first() {
        Some(first) => body.with("path", first.path.clone()).with("keyword", first.keyword.clone()),
        None => body,
    })
}

/// The output stage over a settled attempt: an invalid result becomes `output_invalid`, withheld, and the
/// record's final state FAILED_FINAL (the side effect may well have happened).
pub(crate) fn check_settled(
    validate: fn(&Registered, &Value) -> Result<(), ErrorBody>,
    tool: &Registered,
    settled: Settled,
) -> Settled {
    match &settled.result {
        Ok(result) => match validate(tool, result) {
            Ok(()) => settled,
            Err(error) => Settled { state: State::FailedFinal, result: Err(error), ..settled },
        },
        Err(_) => settled,
    }
}
