//! Stage 4, business rules: a tool's own rules over valid, authorized arguments (e.g. amount ≤ refundable).
//!
//! Rule enforced here: business rules run after authorization and after the idempotency claim. After
//! authorization, because a rule that reads a resource must not reveal facts of a resource the caller may not
//! see; after the claim, because a retry of a completed refund must replay its result, not be refused by a
//! balance the first attempt already reduced.

use crate::error::{ErrorBody, ErrorCode};
use crate::registry::Registered;
use crate::resource::Resource;
use crate::tool::Rejection;
use serde_json::Value;

/// Runs the tool's business rules.
///
/// # Errors
/// `business_rejected` with the rule's stable reason and field.
pub fn check_business_rules(
    tool: &Registered,
    arguments: &Value,
    resource: Option<&Resource>,
) -> Result<(), ErrorBody> {
    tool.implementation.check_business_rules(arguments, resource).map_err(|rejection| rejected(&rejection))
}

/// The envelope error for a business refusal (by a rule here or by the downstream).
pub fn rejected(rejection: &Rejection) -> ErrorBody {
    let body = ErrorBody::new(ErrorCode::BusinessRejected, "a business rule refused the request")
        .with("reason", rejection.reason.clone());
    match &rejection.field {
        Some(field) => body.with("field", field.clone()),
        None => body,
    }
}
