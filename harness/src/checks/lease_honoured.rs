//! `lease-honoured`: no idempotency record stays IN_PROGRESS past its lease.
//!
//! Rule enforced here: judged only when the subject lets the harness read its records (in-process subjects);
//! a record whose holder was killed mid-flight is exempt, since the lease exists for exactly that case and
//! expires into UNKNOWN on the next claim (the crash scenarios check that path).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{Answer, short};
use callproof_executor::idempotency::State;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const LEASE_HONOURED: CheckId = CheckId::new("lease-honoured");

pub(super) const CHECK: Check = Check {
    id: LEASE_HONOURED,
    level: Level::Must,
    rule: "no idempotency record stays IN_PROGRESS past its lease (judged only where the harness can read the \
           records: in process)",
    seed_ref: "§5.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let Some(records) = &context.transcript.records else { return Outcome::Skip };
    let read_at = context.transcript.records_read_at_ms;
    let mut judgement = Judgement::new();
    judgement.judged_if(!records.is_empty());
    for record in records {
        if record.state == State::InProgress && record.lease_expires_ms < read_at && !orphaned(context, &record.key) {
            judgement.fail(
                format!("key {} is IN_PROGRESS {} ms past its lease", short(&record.key), read_at - record.lease_expires_ms),
                Vec::new(),
            );
        }
    }
    judgement.outcome()
}

/// Whether the record's holder was killed: an operation with a killed call whose other calls answered with
/// this key.
fn orphaned(context: &Context<'_>, key: &str) -> bool {
    context.transcript.operations.iter().any(|operation| {
        context.calls_of(operation).any(|call| call.answer == Answer::Killed)
            && context.calls_of(operation).any(|call| {
                call.envelope().is_some_and(|envelope| envelope.meta().idempotency_key.as_deref() == Some(key))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;
    use callproof_executor::idempotency::Record;

    fn record(key: &str, state: State, lease_expires_ms: u64) -> Record {
        Record {
            key: key.into(),
            fingerprint: "f".into(),
            state,
            epoch: 1,
            attempts: 1,
            lease_expires_ms,
            deadline_ms: 0,
            outcome: None,
            created_ms: 0,
            updated_ms: 0,
        }
    }

    #[test]
    fn settled_records_and_live_leases_pass() {
        history("submit refund_order -> ok key=k1")
            .with_records(vec![record("k1", State::Succeeded, 0), record("k2", State::InProgress, 2000)], 1000)
            .passes(&CHECK);
    }

    #[test]
    fn a_record_in_progress_past_its_lease_fails() {
        history("submit refund_order -> ok key=k1")
            .with_records(vec![record("k1_abcdefgh", State::InProgress, 400)], 1000)
            .fails(&CHECK, "key k1_abcde is IN_PROGRESS 600 ms past its lease");
    }

    #[test]
    fn the_record_of_a_killed_holder_is_exempt() {
        history("submit refund_order -> killed; retry -> operation_in_progress key=k1")
            .with_records(vec![record("k1", State::InProgress, 400)], 1000)
            .passes(&CHECK);
    }

    #[test]
    fn subjects_that_hide_their_records_skip() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
