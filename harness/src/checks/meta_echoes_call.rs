//! `meta-echoes-call`: every envelope carries in `meta.call_id` and `meta.attempt` the call_id and attempt of the
//! call it answers, and no member another call established.
//!
//! Rule enforced here: whatever the outcome (ok, refusal, replay, reconciliation, corpus case), the meta of an
//! answer names the call that got it, not an earlier call of the same operation; and it carries nothing left over
//! from another call: no `idempotency_key` on the answer of a tool without side effects (the schema gives a key to
//! side effects only), no `reconciled` on an operation whose status no one asked the downstream for (a status query
//! of the operation, or one no call could be tied to, excuses it), nor on an answer that is no outcome a status query
//! can establish (only `ok`, `business_rejected` and `output_invalid` are). Judged only where the subject
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
    rule: "every envelope's meta.call_id and meta.attempt are the call_id and attempt of the call it answers; no \
           meta member comes from another call (a key on a read, reconciled without a status query)",
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
        let meta = call.envelope().and_then(|envelope| envelope.raw().get("meta"));
        if let Some(key) = meta.and_then(|meta| meta.get("idempotency_key")).filter(|_| is_read(context, call)) {
            wrong.push(format!("meta.idempotency_key {key}, though {} has no side effects", call.tool));
        }
        let reconciled = meta.and_then(|meta| meta.get("reconciled")) == Some(&Value::Bool(true));
        if reconciled && !status_asked(context, call) {
            wrong.push("meta.reconciled, though no status query of its operation reached the downstream".to_owned());
        }
        if let Some(code) = call.error().map(|error| error.wire_code.as_str()).filter(|_| reconciled)
            && !ESTABLISHED_BY_RECONCILIATION.contains(&code)
        {
            wrong.push(format!("meta.reconciled on {code}, which is no outcome a status query established"));
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

/// The refusals a status query can establish as an operation's outcome (besides `ok`): the downstream's rejection,
/// and a completed result that breaks the output schema. `meta.reconciled` on any other answer (still pending,
/// waiting for the earlier deadline, a failed status query) says an outcome was found where none was.
const ESTABLISHED_BY_RECONCILIATION: [&str; 2] = ["business_rejected", "output_invalid"];

/// Whether the call's tool is one of the catalog's without side effects (a read or a task poll).
fn is_read(context: &Context<'_>, call: &CallRecord) -> bool {
    context.tool(&call.tool).is_some_and(|entry| !entry.spec.risk.has_side_effect())
}

/// Whether a status query of the call's operation reached the downstream, or one no operation could be tied to
/// (it may have been this one's).
fn status_asked(context: &Context<'_>, call: &CallRecord) -> bool {
    context
        .transcript
        .exchanges
        .iter()
        .any(|exchange| exchange.record.status_query && exchange.op.is_none_or(|op| op == call.op))
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
            "submit refund_order -> timeout_unknown; retry -> ok reconciled
             request GET /refunds?idempotency_key=k1 -> 200 key=k1; retry -> ok replayed
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
    fn a_key_on_a_read_fails_and_a_key_on_a_write_passes() {
        history("submit send_email -> ok key=k1").passes(&CHECK);
        history("submit send_email -> ok key=k1; submit get_weather -> ok key=k1")
            .fails(&CHECK, "call #1 (call_2) was answered with meta.idempotency_key \"k1\", though get_weather");
    }

    #[test]
    fn reconciled_needs_a_status_query_of_the_operation() {
        let asked = "submit refund_order -> timeout_unknown; retry -> ok reconciled
                     request GET /refunds?idempotency_key=k1 -> 200 key=k1";
        history(asked).passes(&CHECK);
        history(&format!("{asked}; retry -> ok replayed reconciled")).passes(&CHECK);
        history("submit refund_order -> timeout_unknown; retry -> ok reconciled")
            .fails(&CHECK, "meta.reconciled, though no status query");
        history(&format!("{asked}; submit send_email -> ok reconciled"))
            .fails(&CHECK, "call #2 (call_3) was answered with meta.reconciled");
    }

    #[test]
    fn reconciled_marks_only_an_outcome_the_status_query_established() {
        let asked = "submit refund_order -> timeout_unknown
                     retry -> REFUSAL reconciled
                     request GET /refunds?idempotency_key=k1 -> 200";
        for established in ["business_rejected", "output_invalid"] {
            history(&asked.replace("REFUSAL", established)).passes(&CHECK);
        }
        for pending in ["operation_in_progress", "dependency_unavailable"] {
            history(&asked.replace("REFUSAL", pending))
                .fails(&CHECK, &format!("meta.reconciled on {pending}, which is no outcome a status query established"));
        }
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
