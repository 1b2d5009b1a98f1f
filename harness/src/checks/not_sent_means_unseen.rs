//! `not-sent-means-unseen`: an answer that says nothing was sent comes from a call whose side-effecting request
//! the downstream never saw.
//!
//! Rule enforced here: docs/errors.md makes "not sent" a promise a client acts on (retry with the same key at
//! once, nothing to reconcile): `timeout_not_started` (the side effect had not started), `dependency_unavailable`
//! with `details.reason = not_sent` (the request never left) and `internal_error` with `details.sent = false`.
//! A side-effecting request in the request log that carries the call's own `X-Request-Id` refutes it. So does
//! one whose `X-Request-Id` no answer carries, when it arrived while this call was the only call in flight: an
//! executor's catch-all that answers a crash with a fresh request id and `sent: false` is still judged, and no
//! other call can have sent it. Requests tied to a call by time window while several calls were in flight are
//! not charged: that attribution can pick the wrong call of a burst (issue 17), and a false failure here would
//! be worse than a miss.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use callproof_executor::ErrorCode;
use serde_json::Value;
use std::collections::BTreeSet;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const NOT_SENT_MEANS_UNSEEN: CheckId = CheckId::new("not-sent-means-unseen");

pub(super) const CHECK: Check = Check {
    id: NOT_SENT_MEANS_UNSEEN,
    level: Level::Must,
    rule: "an answer that says nothing was sent comes from a call whose side-effecting request the downstream never saw",
    seed_ref: "§4.1, §6.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    let answered_ids: BTreeSet<&str> = context.transcript.calls.iter().filter_map(CallRecord::request_id).collect();
    for call in &context.transcript.calls {
        let Some(claim) = not_sent_claim(call) else { continue };
        judgement.judged();
        let own_id = call.request_id();
        // `Transcript::attribute` ties a request to a call without its id only when that call was the only one in
        // flight; a request whose id some answer carries belongs to that answer's call.
        let only_candidate = |exchange: &Exchange| {
            exchange.call == Some(call.index)
                && exchange.record.request_id.as_deref().is_some_and(|id| !answered_ids.contains(id))
        };
        let seen = context.transcript.exchanges.iter().find(|exchange| {
            exchange.record.side_effect
                && (own_id.is_some() && exchange.record.request_id.as_deref() == own_id || only_candidate(exchange))
        });
        if let Some(exchange) = seen {
            judgement.fail(
                format!(
                    "{claim} says nothing was sent, but the downstream saw request #{} ({})",
                    exchange.record.index, exchange.record.endpoint
                ),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// How the call's answer says that nothing reached the downstream, if it does.
fn not_sent_claim(call: &CallRecord) -> Option<String> {
    let error = call.error()?;
    match error.code? {
        ErrorCode::TimeoutNotStarted => Some(ErrorCode::TimeoutNotStarted.to_string()),
        ErrorCode::DependencyUnavailable if error.detail_str("reason") == Some("not_sent") => {
            Some("dependency_unavailable (reason not_sent)".to_owned())
        }
        ErrorCode::InternalError if error.details.get("sent") == Some(&Value::Bool(false)) => {
            Some("internal_error (sent false)".to_owned())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn not_sent_with_only_the_resource_lookup_seen_passes() {
        history(
            "submit refund_order -> dependency_unavailable reason=not_sent
             request GET /orders/ord_1 -> 200
             retry -> timeout_not_started reason=deadline_elapsed
             request GET /orders/ord_1 -> 200",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_timeout_after_sending_reported_as_not_started_fails() {
        history(
            "submit refund_order -> timeout_not_started reason=deadline_elapsed
             request GET /orders/ord_1 -> 200
             request POST /refunds -> committed fault=commit_then_delay,ms=4000",
        )
        .fails(&CHECK, "timeout_not_started says nothing was sent, but the downstream saw request #1 (POST /refunds)");
    }

    #[test]
    fn not_sent_for_a_request_that_arrived_fails_even_without_a_commit() {
        history("submit refund_order -> dependency_unavailable reason=not_sent; request POST /refunds -> 503")
            .fails(&CHECK, "dependency_unavailable (reason not_sent) says nothing was sent");
        history("submit send_email -> internal_error sent=false; request POST /emails -> dropped")
            .fails(&CHECK, "internal_error (sent false) says nothing was sent");
    }

    #[test]
    fn a_request_with_an_id_no_answer_carries_is_charged_to_the_only_call_in_flight() {
        // A catch-all that answers a crash after sending with a fresh request id and `sent: false`.
        history("submit refund_order -> internal_error sent=false rid=req_fresh; request POST /refunds -> committed rid=req_ctx")
            .fails(&CHECK, "internal_error (sent false) says nothing was sent, but the downstream saw request #0");
        history("submit refund_order -> timeout_not_started; request POST /refunds -> committed rid=req_other")
            .fails(&CHECK, "timeout_not_started says nothing was sent");
    }

    #[test]
    fn a_request_tied_to_the_call_only_by_time_among_several_in_flight_is_not_charged_to_it() {
        // Two calls of a burst in flight: the request, with an id neither answer carries, may be either's.
        history(
            "burst refund_order -> timeout_not_started; and -> ok
             request POST /refunds -> committed rid=req_other op",
        )
        .passes(&CHECK);
        // An id another call's answer carries belongs to that call, whenever it arrived.
        history(
            "submit refund_order -> ok rid=req_first
             retry -> timeout_not_started rid=req_second; request POST /refunds -> committed rid=req_first",
        )
        .passes(&CHECK);
        // No id at all: nothing ties it to the call.
        history("submit refund_order -> timeout_not_started; request POST /refunds -> committed rid=none").passes(&CHECK);
    }

    #[test]
    fn answers_that_admit_sending_skip() {
        history(
            "submit refund_order -> dependency_unavailable reason=unavailable; request POST /refunds -> 503
             retry -> internal_error sent=true; request POST /refunds -> dropped
             retry -> timeout_unknown; request POST /refunds -> committed dropped",
        )
        .skips(&CHECK);
    }
}
