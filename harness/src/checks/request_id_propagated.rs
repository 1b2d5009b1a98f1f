//! `request-id-propagated`: every downstream request carries X-Request-Id, the request_id of the envelope it
//! served.
//!
//! Rule enforced here: a request of a call that never answered (killed) has nothing to compare with and is not
//! judged, nor is a request tied to its operation only while such a call was in flight (it may be that call's).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

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
    for exchange in &context.transcript.exchanges {
        if context.transcript.senders(exchange).iter().any(|call| call.envelope().is_none()) {
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
    fn a_run_without_requests_skips() {
        history("submit refund_order -> forbidden").skips(&CHECK);
    }
}
