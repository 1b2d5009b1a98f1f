//! `request-id-propagated`: every downstream request carries X-Request-Id, the request_id of the envelope it
//! served.
//!
//! Rule enforced here: a request of a call that never answered (killed) has nothing to compare with and is not
//! judged, nor is a request tied to its operation only while such a call was in flight (it may be that call's),
//! nor a request tied to no call that carries an id no answered envelope has while some call never answered (a
//! dying process's request can reach the downstream after the harness closed the killed calls' windows).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use std::collections::BTreeSet;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const REQUEST_ID_PROPAGATED: CheckId = CheckId::new("request-id-propagated");

pub(super) const CHECK: Check = Check {
    id: REQUEST_ID_PROPAGATED,
    level: Level::Should,
    rule: "every downstream request carries X-Request-Id, the request_id of the envelope it served",
    seed_ref: "§11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.exchanges.is_empty());
    let calls = &context.transcript.calls;
    let some_unanswered = calls.iter().any(|call| call.envelope().is_none());
    let answered_ids: BTreeSet<&str> = calls.iter().filter_map(|call| call.request_id()).collect();
    for exchange in &context.transcript.exchanges {
        let senders = context.transcript.senders(exchange);
        if senders.iter().any(|call| call.envelope().is_none()) {
            continue;
        }
        let carried = exchange.record.request_id.as_deref();
        if senders.is_empty() && some_unanswered && carried.is_some_and(|id| !answered_ids.contains(id)) {
            continue;
        }
        let call = exchange.call.map(|call| &context.transcript.calls[call]);
        let served = call.and_then(|call| call.request_id());
        if served.is_none() || exchange.record.request_id.as_deref() != served {
            judgement.fail(
                format!("request #{} cannot be tied to its call by X-Request-Id", exchange.record.index),
                vec![exchange.line()],
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn requests_carrying_their_calls_request_id_pass() {
        history("submit refund_order -> ok; request POST /refunds -> committed; submit refund_order -> killed; request POST /refunds -> dropped rid=none")
            .passes(&CHECK);
    }

    #[test]
    fn a_request_without_the_id_or_with_no_call_fails() {
        history("submit refund_order -> ok; request POST /refunds -> committed rid=none")
            .fails(&CHECK, "request #0 cannot be tied to its call by X-Request-Id");
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200 stray").fails(&CHECK, "request #0");
    }

    #[test]
    fn a_burst_request_no_id_ties_to_a_call_fails_unless_a_call_in_flight_never_answered() {
        history("burst refund_order -> ok; and -> operation_in_progress; request GET /orders/ord_1 -> 200 op")
            .fails(&CHECK, "request #0 cannot be tied to its call by X-Request-Id");
        history("burst refund_order -> killed; and -> operation_in_progress; request GET /orders/ord_1 -> 200 op")
            .passes(&CHECK);
    }

    #[test]
    fn a_stray_request_with_an_unknown_id_is_not_judged_only_when_a_call_never_answered() {
        history("submit refund_order -> killed; request POST /refunds -> dropped stray rid=r_9").passes(&CHECK);
        history("submit refund_order -> killed; request POST /refunds -> dropped stray rid=none")
            .fails(&CHECK, "request #0 cannot be tied to its call by X-Request-Id");
        history("submit refund_order -> ok; request POST /refunds -> committed stray rid=r_9")
            .fails(&CHECK, "request #0 cannot be tied to its call by X-Request-Id");
    }

    #[test]
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
