//! `output-invalid-withheld`: a result that breaks the output schema is answered output_invalid and never
//! passed on.
//!
//! Rule enforced here: judged on calls whose result came from an answer that met a `bad_output` fault with a
//! success status: the last request to their tool's own endpoint or, when a status query came after it, that
//! query's `completed` answer (a result found by reconciliation is output too). A call refused before its tool
//! ran never saw the output.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, refused_up_front};
use callproof_executor::ErrorCode;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const OUTPUT_INVALID_WITHHELD: CheckId = CheckId::new("output-invalid-withheld");

pub(super) const CHECK: Check = Check {
    id: OUTPUT_INVALID_WITHHELD,
    level: Level::Must,
    rule: "a result that breaks the output schema is answered output_invalid and never passed on",
    seed_ref: "§7",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        // The result comes from the call's last request to its tool's own endpoint (a read may look the same
        // resource up first, for authorization).
        let endpoint = context.main_endpoint(&call.tool);
        let last = context
            .transcript
            .exchanges_of_call(call.index)
            .filter(|exchange| exchange.record.status_query || exchange.record.endpoint == endpoint)
            .last();
        let broken = last.is_some_and(|exchange| {
            exchange.fault() == Some("bad_output")
                && exchange.record.status.is_some_and(|status| status < 300)
                && (!exchange.record.status_query || reports_completed(&exchange.record.reply))
        });
        if !broken || refused_up_front(call) {
            continue;
        }
        judgement.judged();
        let withheld = call.code() == Some(ErrorCode::OutputInvalid)
            && call.envelope().is_some_and(|envelope| envelope.result().is_none());
        if !withheld {
            let answered = call.error().map_or("ok", |error| error.wire_code.as_str());
            judgement.fail(
                format!("the tool returned output that breaks its schema, and the call answered {answered}"),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// Whether a status query's answer says the operation completed (and so carries its result).
fn reports_completed(reply: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(reply).is_ok_and(|body| body["status"] == "completed")
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn broken_output_answered_output_invalid_passes() {
        history(
            "submit get_order -> output_invalid path=\"/amount\" keyword=type
             request GET /orders/ord_1 -> 200
             request GET /orders/ord_1 -> 200 fault=bad_output",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_broken_result_found_by_reconciliation_is_judged_like_the_tool_s_own() {
        let reconciled = |answer: &str| {
            format!(
                "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop
                 retry -> {answer}
                 request GET /refunds?idempotency_key=k1 -> 200 fault=bad_output reply={{\"status\":\"completed\"}}"
            )
        };
        history(&reconciled("ok reconciled"))
            .fails(&CHECK, "the tool returned output that breaks its schema, and the call answered ok");
        history(&reconciled("output_invalid path=\"/amount\" keyword=type")).passes(&CHECK);
        // A status query that found nothing carried no result to break.
        history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped fault=commit_then_drop
             retry -> ok; request GET /refunds?idempotency_key=k1 -> 404 fault=bad_output reply={\"status\":\"not_found\"}
             request POST /refunds -> committed",
        )
        .skips(&CHECK);
    }

    #[test]
    fn broken_output_passed_on_fails() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200 fault=bad_output")
            .fails(&CHECK, "the tool returned output that breaks its schema, and the call answered ok");
    }

    #[test]
    fn a_call_refused_before_its_tool_ran_and_unbroken_output_skip() {
        history("submit get_order -> forbidden; request GET /orders/ord_1 -> 200 fault=bad_output").skips(&CHECK);
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200").skips(&CHECK);
    }
}
