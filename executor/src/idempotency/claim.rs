//! Stage 3, claim idempotency, as a protocol over the store: own the business operation's record, or answer
//! from it; and stage 8, record the final state on the version this attempt holds.
//!
//! Rule enforced here: an attempt executes only while it holds the record in IN_PROGRESS. A live lease answers
//! "in progress"; an expired one becomes UNKNOWN, never ABSENT; a settled record replays; a FAILED_RETRYABLE
//! one is retaken within the retry budget; an UNKNOWN one is reconciled by its tool's [`Plan`] before anything
//! is sent again. Every write is a checked compare-and-set ([`StoreExt::advance`]); a lost race re-reads, and a
//! store failure answers `internal_error` with its cause kept for the audit record.

use crate::audit::{AuditNote, Cause, StoreStep};
use crate::business;
use crate::canonical::Sha256Hex;
use crate::clock::Clock;
use crate::deadline;
use crate::decode::Decoded;
use crate::envelope::{Envelope, Meta};
use crate::error::{ErrorBody, ErrorCode};
use crate::idempotency::{KeyInput, NewRecord, Record, State, Update};
use crate::outcome::Settled;
use crate::output;
use crate::reconcile::Plan;
use crate::registry::Registered;
use crate::run::Run;
use crate::store::{Claim, Store, StoreExt};
use crate::tool::Status;
use futures::FutureExt;
use serde_json::Value;
use std::fmt::Display;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How many times a claim re-reads a record that others keep moving before it answers "in progress".
const CLAIM_ROUNDS: usize = 4;

/// What the claim stage decided.
pub(crate) enum Claimed {
    /// This attempt holds the record (IN_PROGRESS, this version) and goes on to execute.
    Execute(Record),
    /// Answer now (replay, conflict, in progress, reconciled, ...).
    Answer(Envelope),
}

/// What reconciling an UNKNOWN record decided.
enum Reconciled {
    /// The record moved (to FAILED_RETRYABLE, or someone else moved it): claim again.
    ClaimAgain,
    /// Answer now.
    Answer(Envelope),
}

/// The claim protocol over one store, with the policies it follows (the executor's stages and config).
pub(crate) struct Protocol<'a> {
    /// The idempotency store.
    pub(crate) store: &'a dyn Store,
    /// Wall time for leases and deadlines; monotonic time for the status query's deadline.
    pub(crate) clock: &'a dyn Clock,
    /// The key of the business operation.
    pub(crate) derive_key: fn(&KeyInput<'_>) -> Sha256Hex,
    /// How an UNKNOWN record is resolved.
    pub(crate) plan: fn(&Registered) -> Plan,
    /// How a settled record's stored answer becomes this call's answer.
    pub(crate) replay: fn(Envelope, &Meta) -> Envelope,
    /// Stage 7, for a result a status query reports.
    pub(crate) validate_output: fn(&Registered, &Value) -> Result<(), ErrorBody>,
    /// Executions one business operation may start.
    pub(crate) max_attempts: u32,
    /// How long a lease outlives the attempt's deadline.
    pub(crate) lease_margin: Duration,
}

impl Protocol<'_> {
    /// Stage 3: derives the key, then owns the record for this attempt or answers from it.
    pub(crate) async fn claim(&self, run: &mut Run<'_>, decoded: &Decoded<'_>) -> Claimed {
        let request = run.request;
        let key = (self.derive_key)(&KeyInput {
            auth: &request.auth,
            tool: &decoded.tool.spec().name,
            arguments_digest: &decoded.arguments_digest,
            business_request_id: request.business_request_id.as_deref(),
            call_id: &request.call.call_id,
            attempt: request.attempt,
        });
        run.set_key(&key);
        let new = NewRecord {
            key: key.into(),
            fingerprint: decoded.arguments_hash.into(),
            lease_expires_ms: run.deadline.wall_ms().saturating_add(self.lease_margin.as_millis() as u64),
            deadline_ms: run.deadline.wall_ms(),
            now_ms: self.clock.wall_ms(),
        };
        for _ in 0..CLAIM_ROUNDS {
            let record = match self.store.claim(&new).await {
                Ok(Claim::Acquired) => return Claimed::Execute(new.into_record()),
                Ok(Claim::Existing(record)) => record,
                Err(error) => return Claimed::Answer(store_failed(run, StoreStep::Claim, error)),
            };
            if record.fingerprint != new.fingerprint {
                return Claimed::Answer(
                    run.fail(
                        ErrorBody::new(
                            ErrorCode::IdempotencyConflict,
                            "this business request was already made with different arguments",
                        )
                        .with("reason", "arguments_changed"),
                    ),
                );
            }
            if let Some(claimed) = self.existing(run, decoded, &new, record).await {
                return claimed;
            }
        }
        Claimed::Answer(run.fail(in_progress(0)))
    }

    /// What an existing record of the same operation means for this attempt; `None` to read it again.
    async fn existing(
        &self,
        run: &mut Run<'_>,
        decoded: &Decoded<'_>,
        new: &NewRecord,
        record: Record,
    ) -> Option<Claimed> {
        let now_ms = self.clock.wall_ms();
        match record.state {
            State::InProgress if record.lease_expires_ms > now_ms => {
                Some(Claimed::Answer(run.fail(in_progress(record.lease_expires_ms.saturating_sub(now_ms)))))
            }
            State::InProgress => {
                // The holder's lease ran out: it may still have acted, so the record becomes UNKNOWN.
                let update = Update::settle(&record, State::Unknown, record.outcome.clone(), now_ms);
                self.advance(run, StoreStep::Claim, &record, update).await.err().map(Claimed::Answer)
            }
            State::Succeeded | State::FailedFinal => Some(Claimed::Answer(self.replay(run, &record))),
            State::FailedRetryable if record.attempts >= self.max_attempts => {
                let envelope = run.fail(
                    ErrorBody::new(
                        ErrorCode::RetryBudgetExhausted,
                        "this business request failed too often; retries stop here",
                    )
                    .with("attempts", record.attempts),
                );
                let update = Update::settle(&record, State::FailedFinal, Some(envelope.to_json()), now_ms);
                decided(self.advance(run, StoreStep::Claim, &record, update).await, Claimed::Answer(envelope))
            }
            State::FailedRetryable => {
                let update = Update::retake(&record, new.lease_expires_ms, new.deadline_ms, now_ms);
                let mut taken = record.clone();
                update.clone().apply_to(&mut taken);
                decided(self.advance(run, StoreStep::Claim, &record, update).await, Claimed::Execute(taken))
            }
            State::Unknown => match self.reconcile(run, decoded, &record).await {
                Reconciled::Answer(envelope) => Some(Claimed::Answer(envelope)),
                Reconciled::ClaimAgain => None,
            },
        }
    }

    /// Resolves an UNKNOWN record by the tool's plan, before anything is sent again.
    async fn reconcile(&self, run: &mut Run<'_>, decoded: &Decoded<'_>, record: &Record) -> Reconciled {
        match (self.plan)(decoded.tool) {
            Plan::Unresolvable => Reconciled::Answer(match record.outcome {
                Some(_) => self.replay(run, record),
                None => run.fail(
                    ErrorBody::new(
                        ErrorCode::TimeoutUnknown,
                        "an earlier attempt's outcome is unknown and this tool cannot be reconciled automatically",
                    )
                    .with("reason", "unreconcilable"),
                ),
            }),
            Plan::ReExecute => self.settle_unknown(run, record, State::FailedRetryable, None).await,
            Plan::QueryStatus => self.query_status(run, decoded, record).await,
        }
    }

    /// Asks the downstream what became of the earlier attempt, and settles the record by its answer.
    async fn query_status(&self, run: &mut Run<'_>, decoded: &Decoded<'_>, record: &Record) -> Reconciled {
        let now_ms = self.clock.wall_ms();
        let status = match self.status(run, decoded, record).await {
            Ok(status) => status,
            Err(cause) => {
                run.note(AuditNote::ReconciliationFailed { cause });
                return Reconciled::Answer(
                    run.fail(
                        ErrorBody::new(
                            ErrorCode::DependencyUnavailable,
                            "the outcome of an earlier attempt could not be checked; retry later",
                        )
                        .with("reason", "reconciliation_failed"),
                    ),
                );
            }
        };
        match status {
            Status::Completed(result) => {
                let reported = Settled { state: State::Succeeded, result: Ok(result), downstream_request_id: None };
                let settled = output::check_settled(self.validate_output, decoded.tool, reported);
                run.meta.reconciled = true;
                let envelope = run.envelope(settled.result);
                self.settle_unknown(run, record, settled.state, Some(envelope)).await
            }
            Status::Rejected(rejection) => {
                run.meta.reconciled = true;
                let envelope = run.fail(business::rejected(&rejection));
                self.settle_unknown(run, record, State::FailedFinal, Some(envelope)).await
            }
            Status::Pending => Reconciled::Answer(run.fail(in_progress(0).with("reason", "downstream_pending"))),
            Status::NotFound if record.deadline_ms > now_ms => {
                // The earlier attempt may still arrive downstream before its deadline: wait it out.
                let wait = in_progress(record.deadline_ms - now_ms).with("reason", "awaiting_earlier_deadline");
                Reconciled::Answer(run.fail(wait))
            }
            Status::NotFound => self.settle_unknown(run, record, State::FailedRetryable, None).await,
        }
    }

    /// The tool's status query for `record`'s key, within the call's deadline, a panic caught.
    async fn status(&self, run: &Run<'_>, decoded: &Decoded<'_>, record: &Record) -> Result<Status, Cause> {
        let Some(query) = decoded.tool.implementation.status_query() else {
            return Err(Cause::NoStatusQuery);
        };
        let sent = AtomicBool::new(false);
        let context = run.context(Some(&record.key), &sent);
        let query = AssertUnwindSafe(query.status(&context, &decoded.arguments)).catch_unwind();
        match deadline::bounded(&run.deadline, self.clock, query).await {
            Ok(Ok(Ok(status))) => Ok(status),
            Ok(Ok(Err(failure))) => Err(Cause::of(&failure)),
            Ok(Err(_panic)) => Err(Cause::Panicked),
            Err(_elapsed) => Err(Cause::DeadlineElapsed),
        }
    }

    /// Moves an UNKNOWN record to `state`, then either answers with `answer` (the write won) or claims again
    /// (it lost: someone else resolved the record first, and their outcome is the one to answer with). With no
    /// `answer`, the caller claims again either way (the record went back to FAILED_RETRYABLE for a retake).
    async fn settle_unknown(
        &self,
        run: &mut Run<'_>,
        record: &Record,
        state: State,
        answer: Option<Envelope>,
    ) -> Reconciled {
        let outcome = answer.as_ref().map(Envelope::to_json);
        let update = Update::settle(record, state, outcome, self.clock.wall_ms());
        match (self.advance(run, StoreStep::Reconcile, record, update).await, answer) {
            (Ok(true), Some(answer)) => Reconciled::Answer(answer),
            (Ok(_), _) => Reconciled::ClaimAgain,
            (Err(failed), _) => Reconciled::Answer(failed),
        }
    }

    /// Stage 8: stores the final state with a compare-and-set on the version this attempt holds. The answer
    /// stands whatever happens here; what went wrong is noted for operators.
    pub(crate) async fn record(&self, run: &mut Run<'_>, held: &Record, state: State, envelope: &Envelope) {
        let update = Update::settle(held, state, Some(envelope.to_json()), self.clock.wall_ms());
        match self.store.advance(&held.key, held.version(), update).await {
            Ok(true) => {}
            // The lease expired and the record moved on: this attempt is fenced off. Its answer is still the
            // truth about this attempt; reconciliation will establish the record's state.
            Ok(false) => run.note(AuditNote::CompletionFenced),
            Err(error) => run.note(AuditNote::StoreFailed { step: StoreStep::Record, cause: error.to_string() }),
        }
    }

    /// A checked compare-and-set of `record`; a store failure becomes this call's answer.
    async fn advance(
        &self,
        run: &mut Run<'_>,
        step: StoreStep,
        record: &Record,
        update: Update,
    ) -> Result<bool, Envelope> {
        match self.store.advance(&record.key, record.version(), update).await {
            Ok(moved) => Ok(moved),
            Err(error) => Err(store_failed(run, step, error)),
        }
    }
}

/// The claim's decision after a compare-and-set: `won` if it landed, read again if it lost the race.
fn decided(advanced: Result<bool, Envelope>, won: Claimed) -> Option<Claimed> {
    match advanced {
        Ok(true) => Some(won),
        Ok(false) => None,
        Err(failed) => Some(Claimed::Answer(failed)),
    }
}

/// The reference replay stage: the stored answer (`ok`, `result`, `error`) under this call's own meta (its
/// `call_id`, `attempt` and `request_id`), marked `replayed` and `reconciled` as the stored answer was.
pub fn replayed(stored: Envelope, meta: &Meta) -> Envelope {
    let meta = Meta { replayed: true, reconciled: stored.meta.reconciled, ..meta.clone() };
    Envelope { meta, ..stored }
}

impl Protocol<'_> {
    /// The stored answer of a settled record, as this call's answer (`meta.replayed`), by the replay stage.
    fn replay(&self, run: &mut Run<'_>, record: &Record) -> Envelope {
        let stored = match record.outcome.clone().map(serde_json::from_value::<Envelope>) {
            Some(Ok(stored)) => stored,
            Some(Err(error)) => {
                return store_failed(run, StoreStep::Claim, format!("the stored answer is unreadable: {error}"));
            }
            None => return store_failed(run, StoreStep::Claim, "a settled record has no stored answer"),
        };
        let envelope = (self.replay)(stored, &run.meta);
        run.meta.replayed = envelope.meta.replayed;
        run.meta.reconciled = envelope.meta.reconciled;
        envelope
    }
}

fn in_progress(retry_after_ms: u64) -> ErrorBody {
    ErrorBody::new(ErrorCode::OperationInProgress, "another attempt of this business request is still in progress")
        .with("retry_after_ms", retry_after_ms.max(100))
}

/// `internal_error` for the caller (the message names no host); the cause for the audit record.
fn store_failed(run: &mut Run<'_>, step: StoreStep, cause: impl Display) -> Envelope {
    run.note(AuditNote::StoreFailed { step, cause: cause.to_string() });
    run.fail(ErrorBody::new(ErrorCode::InternalError, "the idempotency store failed").with("reason", "store_failed"))
}

#[cfg(test)]
mod tests;
