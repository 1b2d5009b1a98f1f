//! `configured-origin-only`: every request goes to the configured downstream origin, and nowhere else.
//!
//! Rule enforced here: the executor was given one downstream URL; a 3xx from it is an answer, never a place to
//! send the request. Any request that arrives at the foreign origin (the second listener a `redirect` fault
//! points to) was sent somewhere the executor was never configured to reach. The check is judged only in runs
//! where a redirect was answered (or something arrived there anyway).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const CONFIGURED_ORIGIN_ONLY: CheckId = CheckId::new("configured-origin-only");

pub(super) const CHECK: Check = Check {
    id: CONFIGURED_ORIGIN_ONLY,
    level: Level::Must,
    rule: "every request goes to the configured downstream origin: a redirect is never followed elsewhere",
    seed_ref: "§11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(context.redirected());
    for request in &context.transcript.foreign {
        judgement.fail(
            format!(
                "{} {} reached an origin the executor was not configured to reach (a followed redirect)",
                request.method, request.path
            ),
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
    fn a_redirect_answered_as_unknown_and_never_followed_passes() {
        history(
            "submit refund_order -> timeout_unknown reason=unexpected_answer downstream_status=302
             request POST /refunds -> committed 302 fault=redirect,to=\"foreign\",commit=true",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_request_at_the_foreign_origin_fails_even_without_identity() {
        let violations = history(
            "submit refund_order -> ok
             request POST /refunds -> 302 fault=redirect,to=\"foreign\"
             foreign GET /refunds -> body=0",
        )
        .fails(&CHECK, "GET /refunds reached an origin the executor was not configured to reach");
        assert!(violations[0].evidence.iter().any(|line| line.contains("fault=redirect")), "{violations:?}");
    }

    #[test]
    fn a_run_without_redirects_skips() {
        history("submit refund_order -> ok; request POST /refunds -> committed").skips(&CHECK);
    }
}
