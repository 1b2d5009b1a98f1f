//! `identity-propagated`: every downstream request carries X-Tenant-Id and X-Subject-Id, the caller's own from
//! the trusted context of the call it serves.
//!
//! Rule enforced here: the two headers are judged present on every request the configured downstream received,
//! whatever call it belongs to (an ownership lookup, a read and a status query as much as a side effect: the
//! downstream enforces and audits its own side of the tenancy with them). Their values are judged only where the
//! request is tied to calls: they must be the tenant and subject of the call that sent it, and a request tied
//! to its operation only (a burst without X-Request-Id) fails only when they are wrong for every call in
//! flight. A request tied to no call is judged for presence only. Requests at a foreign origin are
//! `identity-stays-home`'s.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const IDENTITY_PROPAGATED: CheckId = CheckId::new("identity-propagated");

pub(super) const CHECK: Check = Check {
    id: IDENTITY_PROPAGATED,
    level: Level::Must,
    rule: "every downstream request carries X-Tenant-Id and X-Subject-Id: the caller of the call it serves",
    seed_ref: "§3.1",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.exchanges.is_empty());
    for exchange in &context.transcript.exchanges {
        let record = &exchange.record;
        let index = record.index;
        let (Some(tenant), Some(subject)) = (record.tenant_id.as_deref(), record.subject_id.as_deref()) else {
            let missing: Vec<&str> = [("X-Tenant-Id", &record.tenant_id), ("X-Subject-Id", &record.subject_id)]
                .into_iter()
                .filter(|(_, value)| value.is_none())
                .map(|(name, _)| name)
                .collect();
            judgement.fail(
                format!("request #{index} ({}) carries no {}", record.endpoint, missing.join(" and no ")),
                vec![exchange.line()],
            );
            continue;
        };
        let senders = context.transcript.senders(exchange);
        let problems: Vec<String> =
            senders.iter().filter_map(|call| misstated(tenant, subject, call, exchange)).collect();
        if let Some(problem) = problems.first().filter(|_| problems.len() == senders.len()) {
            let mut evidence: Vec<String> = senders.iter().map(|call| call.line()).collect();
            evidence.push(exchange.line());
            judgement.fail(problem.clone(), evidence);
        }
    }
    judgement.outcome()
}

/// What is wrong with a request that names `tenant` and `subject` as the caller of `call`, if anything.
fn misstated(tenant: &str, subject: &str, call: &CallRecord, exchange: &Exchange) -> Option<String> {
    (tenant != call.tenant_id || subject != call.subject_id).then(|| {
        format!(
            "request #{} names the caller {tenant:?}/{subject:?}; the call it serves is {:?}/{:?}'s",
            exchange.record.index, call.tenant_id, call.subject_id
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn requests_naming_their_callers_pass() {
        history(
            "submit refund_order -> ok; request GET /orders/ord_1 -> 200; request POST /refunds -> committed; \
             submit get_order as=mallory -> forbidden reason=resource_not_accessible; request GET /orders/ord_1 -> 200",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_read_without_the_identity_headers_fails() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200 xtenant=none xsubject=none")
            .fails(&CHECK, "request #0 (GET /orders) carries no X-Tenant-Id and no X-Subject-Id");
        history("submit refund_order -> ok; request GET /orders/ord_1 -> 200 xsubject=none; request POST /refunds -> committed")
            .fails(&CHECK, "request #0 (GET /orders) carries no X-Subject-Id");
    }

    #[test]
    fn a_request_naming_another_caller_fails() {
        history("submit refund_order as=bob -> ok; request POST /refunds -> committed xsubject=u_alice")
            .fails(&CHECK, "request #0 names the caller \"t_acme\"/\"u_alice\"; the call it serves is \"t_acme\"/\"u_bob\"'s");
    }

    #[test]
    fn a_stray_request_is_judged_for_presence_only() {
        history("submit refund_order -> killed; request POST /refunds -> dropped stray xtenant=t_other").passes(&CHECK);
        history("submit refund_order -> killed; request POST /refunds -> dropped stray xtenant=none")
            .fails(&CHECK, "request #0 (POST /refunds) carries no X-Tenant-Id");
    }

    #[test]
    fn a_burst_request_tied_to_its_operation_is_judged_against_every_call_in_flight() {
        history("burst refund_order -> ok; and -> operation_in_progress; request POST /refunds -> committed op")
            .passes(&CHECK);
        history("burst refund_order -> ok; and -> operation_in_progress; request POST /refunds -> committed op xtenant=t_evil")
            .fails(&CHECK, "names the caller \"t_evil\"/\"u_alice\"");
    }

    #[test]
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
