//! `meta-echoes-call`: every envelope carries in `meta.call_id` and `meta.attempt` the call_id and attempt of the
//! call it answers.
//!
//! Rule enforced here: whatever the outcome (ok, refusal, replay, reconciliation, corpus case), the meta of an
//! answer names the call that got it, not an earlier call of the same operation. Judged only where the subject
//! was told both and wrote the meta itself: every subject kind is told them (callproof/1's `call`, the in-process
//! `Request`, MCP's `_meta["io.callproof/context"]`), but an envelope the harness built for a JSON-RPC error or
//! an HTTP status (`meta_by_harness`) is not the subject's word, and a meta or member that is absent or not
//! of its type is `envelope-schema`'s to report, so it is not judged here twice.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const META_ECHOES_CALL: CheckId = CheckId::new("meta-echoes-call");

pub(super) const CHECK: Check = Check {
    id: META_ECHOES_CALL,
    level: Level::Must,
    rule: "every envelope's meta.call_id and meta.attempt are the call_id and attempt of the call it answers",
    seed_ref: "§6.2, §11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in context.transcript.calls.iter().filter(|call| !call.meta_by_harness) {
        let Some((call_id, attempt)) = echoed(call) else { continue };
        judgement.judged();
        let mut wrong = Vec::new();
        if call_id != call.call_id {
            wrong.push(format!("meta.call_id {call_id:?}, not {:?}", call.call_id));
        }
        if attempt != u64::from(call.attempt) {
            wrong.push(format!("meta.attempt {attempt}, not {}", call.attempt));
        }
        if !wrong.is_empty() {
            judgement.fail(
                format!("call #{} ({}) was answered with {}", call.index, call.call_id, wrong.join(" and ")),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// `meta.call_id` and `meta.attempt` of the call's envelope, when it has both with their schema types.
fn echoed(call: &CallRecord) -> Option<(&str, u64)> {
    let meta = call.envelope()?.raw().get("meta")?;
    Some((meta.get("call_id").and_then(Value::as_str)?, meta.get("attempt").and_then(Value::as_u64)?))
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn answers_that_echo_their_own_call_pass_whatever_the_outcome() {
        history(
            "submit refund_order -> timeout_unknown; retry -> ok reconciled; retry -> ok replayed
             submit get_order -> forbidden; corpus refund_order case=truncated_object -> invalid_json",
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_replay_that_names_the_first_call_fails() {
        let violations = history("submit refund_order -> ok; retry -> ok replayed cid=call_1 att=1")
            .fails(&CHECK, "call #1 (call_2) was answered with meta.call_id \"call_1\", not \"call_2\"");
        assert!(violations[0].message.contains("meta.attempt 1, not 2"), "{violations:#?}");
    }

    #[test]
    fn a_wrong_attempt_alone_fails() {
        history("submit refund_order -> ok; retry -> business_rejected att=7")
            .fails(&CHECK, "call #1 (call_2) was answered with meta.attempt 7, not 2");
    }

    #[test]
    fn meta_the_schema_refuses_or_the_harness_wrote_is_not_judged() {
        history("submit refund_order -> ok cid=none").skips(&CHECK);
        history("submit refund_order -> ok att=\"1\"").skips(&CHECK);
        history("submit refund_order -> invalid_arguments built cid=other").skips(&CHECK);
        history("corpus refund_order case=truncated_object -> invalid_json -32700 att=9").skips(&CHECK);
        history("submit refund_order -> killed; retry -> no-answer; retry -> garbage").skips(&CHECK);
    }
}
