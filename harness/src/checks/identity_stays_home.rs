//! `identity-stays-home`: the caller's identity, the operation's key and the request's body never reach
//! another origin.
//!
//! Rule enforced here: `X-Tenant-Id`, `X-Subject-Id`, `Idempotency-Key` and `X-Request-Id` are meant for the
//! configured downstream only, and so is the body (a refund's order and amount). A request at the foreign
//! origin that carries any of them, or a body, leaked them there: the foreign host can act as the caller,
//! replay the key, or answer in the downstream's name. Judged only in runs where a redirect was answered.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const IDENTITY_STAYS_HOME: CheckId = CheckId::new("identity-stays-home");

pub(super) const CHECK: Check = Check {
    id: IDENTITY_STAYS_HOME,
    level: Level::Must,
    rule: "X-Tenant-Id, X-Subject-Id, Idempotency-Key, X-Request-Id and request bodies never reach another origin",
    seed_ref: "§3.1, §11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(context.redirected());
    for request in &context.transcript.foreign {
        let mut leaked: Vec<String> = request.identity.keys().cloned().collect();
        if request.body_bytes > 0 {
            leaked.push(format!("a body of {} bytes", request.body_bytes));
        }
        if leaked.is_empty() {
            continue;
        }
        judgement.fail(
            format!("{} {} took {} to another origin", request.method, request.path, leaked.join(", ")),
            context.foreign_evidence(request),
        );
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn identity_that_stays_on_the_configured_origin_passes_even_through_a_same_origin_redirect() {
        let followed_at_home = "submit refund_order -> output_invalid
             request POST /refunds -> committed 302 fault=redirect,to=\"same\",path=\"/orders/ord_1\",commit=true
             request GET /orders/ord_1 -> 200 key=k1";
        // Not this check's business: the scenario's expectations judge the GET's body posing as the result.
        history(followed_at_home).passes(&CHECK);
    }

    #[test]
    fn identity_headers_and_a_body_at_the_foreign_origin_fail() {
        history(
            "submit refund_order -> ok
             request POST /refunds -> committed 307 fault=redirect,to=\"foreign\",commit=true,status=307
             foreign POST /refunds -> identity body=64",
        )
        .fails(
            &CHECK,
            "POST /refunds took idempotency-key, x-request-id, x-subject-id, x-tenant-id, a body of 64 bytes to another origin",
        );
    }

    #[test]
    fn one_identity_header_is_enough_and_a_bare_request_is_left_to_configured_origin_only() {
        history(
            "submit refund_order -> ok
             request POST /refunds -> 302 fault=redirect,to=\"foreign\"
             foreign GET /refunds -> tenant=t_acme",
        )
        .fails(&CHECK, "GET /refunds took x-tenant-id to another origin");
        history(
            "submit refund_order -> ok
             request POST /refunds -> 302 fault=redirect,to=\"foreign\"
             foreign GET /refunds -> body=0",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_run_without_redirects_skips() {
        history("submit refund_order -> ok; request POST /refunds -> committed").skips(&CHECK);
    }
}
