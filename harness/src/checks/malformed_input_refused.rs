//! `malformed-input-refused`: a call the contract's decoding rules refuse is refused with an input-layer error,
//! never executed.
//!
//! Rule enforced here: the reference decoder is the oracle (see `oracle`); whenever it refuses a call's
//! arguments, the executor under test must answer an error of the input or protocol category.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use callproof_executor::error::Category;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const MALFORMED_INPUT_REFUSED: CheckId = CheckId::new("malformed-input-refused");

pub(super) const CHECK: Check = Check {
    id: MALFORMED_INPUT_REFUSED,
    level: Level::Must,
    rule: "a call the contract's decoding rules refuse is refused with an input-layer error, never executed",
    seed_ref: "§2.1, §2.3",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(refusal) = super::oracle::refusal(&call.tool, &call.arguments) else { continue };
        judgement.judged();
        let Some(envelope) = call.envelope() else { continue };
        // The envelope's own category: an input refusal under another category is not one.
        let category = envelope.error().and_then(|error| error.category);
        if !matches!(category, Some(Category::Input | Category::Protocol)) {
            let answered = envelope.error().map_or("ok", |error| error.wire_code.as_str());
            judgement.fail(
                format!(
                    "the contract refuses these arguments ({}: {}), but the call answered {answered}",
                    refusal.code(), refusal.message()
                ),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const STRING_AMOUNT: &str = r#"args={"order_id":"ord_1","amount":"100","reason":"x"}"#;

    #[test]
    fn a_refused_call_answered_with_an_input_error_passes() {
        history(&format!("submit refund_order {STRING_AMOUNT} -> schema_violation")).passes(&CHECK);
    }

    #[test]
    fn a_coerced_call_that_ran_fails() {
        history(&format!("submit refund_order {STRING_AMOUNT} -> ok"))
            .fails(&CHECK, "the contract refuses these arguments (schema_violation");
    }

    #[test]
    fn calls_the_contract_accepts_skip() {
        history("submit refund_order -> ok; submit get_order -> ok; submit send_email -> ok").skips(&CHECK);
    }
}
