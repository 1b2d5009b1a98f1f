//! The idempotency record and its state machine.
//!
//! Rule enforced here: a record only moves along the seed's arrows, each move is a compare-and-set on
//! `(state, epoch)`, and only the move FAILED_RETRYABLE → IN_PROGRESS starts a new epoch. ABSENT is the
//! absence of a record. An expired lease leads to UNKNOWN, never back to ABSENT.
//!
//! A record's key and fingerprint are `Arc<str>`: set once when the caller builds its [`NewRecord`], then
//! shared, never copied, by the record the caller keeps, the in-memory store's table and every record a claim
//! or load hands back (a clone is a reference-count increment). They serialise as plain strings.
//!
//! ```text
//! ABSENT ──claim──▶ IN_PROGRESS ──▶ SUCCEEDED | FAILED_RETRYABLE | UNKNOWN | FAILED_FINAL
//! UNKNOWN ──reconcile──▶ SUCCEEDED | FAILED_RETRYABLE | FAILED_FINAL
//! FAILED_RETRYABLE ──retry, same key──▶ IN_PROGRESS (epoch + 1)   ──budget spent──▶ FAILED_FINAL
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// A record's state. ABSENT is represented by no record at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    /// An attempt holds the lease.
    InProgress,
    /// Done; the success envelope is stored.
    Succeeded,
    /// Known not applied; may be retried with the same key.
    FailedRetryable,
    /// May or may not have been applied; reconcile before anything else.
    Unknown,
    /// Known final failure; the failure envelope is stored.
    FailedFinal,
}

impl State {
    /// Every state.
    pub const ALL: [State; 5] =
        [State::InProgress, State::Succeeded, State::FailedRetryable, State::Unknown, State::FailedFinal];

    /// The stored form.
    pub const fn as_str(self) -> &'static str {
        match self {
            State::InProgress => "IN_PROGRESS",
            State::Succeeded => "SUCCEEDED",
            State::FailedRetryable => "FAILED_RETRYABLE",
            State::Unknown => "UNKNOWN",
            State::FailedFinal => "FAILED_FINAL",
        }
    }

    /// Parses the stored form.
    pub fn parse(text: &str) -> Option<State> {
        State::ALL.into_iter().find(|state| state.as_str() == text)
    }

    /// Whether retention may delete a record in this state. IN_PROGRESS and UNKNOWN are never deleted: the
    /// side effect may exist, and forgetting the key would let a retry apply it again.
    pub const fn may_expire(self) -> bool {
        matches!(self, State::Succeeded | State::FailedRetryable | State::FailedFinal)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether the seed's state machine has the arrow `from → to` (`None` is ABSENT).
pub const fn is_legal(from: Option<State>, to: State) -> bool {
    use State::*;
    matches!(
        (from, to),
        (None, InProgress)
            | (Some(InProgress), Succeeded | FailedRetryable | Unknown | FailedFinal)
            | (Some(Unknown), Succeeded | FailedRetryable | FailedFinal)
            | (Some(FailedRetryable), InProgress | FailedFinal)
    )
}

/// The compare half of a compare-and-set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// Expected state.
    pub state: State,
    /// Expected epoch.
    pub epoch: u64,
}

/// A stored record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The idempotency key.
    pub key: Arc<str>,
    /// `arguments_hash` of the call that created the record.
    pub fingerprint: Arc<str>,
    /// Current state.
    pub state: State,
    /// Fencing epoch: bumped each time a new attempt takes the lease.
    pub epoch: u64,
    /// Attempts started (claims), for the retry budget.
    pub attempts: u32,
    /// Wall-clock ms until which the IN_PROGRESS holder owns the lease.
    pub lease_expires_ms: u64,
    /// Wall-clock ms deadline of the latest attempt; after it, the downstream can no longer apply that attempt.
    pub deadline_ms: u64,
    /// The stored answer (envelope JSON) for settled states.
    pub outcome: Option<Value>,
    /// Wall-clock ms of creation.
    pub created_ms: u64,
    /// Wall-clock ms of the last transition.
    pub updated_ms: u64,
}

impl Record {
    /// The record's version, for a compare-and-set.
    pub fn version(&self) -> Version {
        Version { state: self.state, epoch: self.epoch }
    }
}

/// The new record a claim inserts when the key is ABSENT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecord {
    /// The key.
    pub key: Arc<str>,
    /// `arguments_hash` of the call.
    pub fingerprint: Arc<str>,
    /// Lease end, wall-clock ms.
    pub lease_expires_ms: u64,
    /// Attempt deadline, wall-clock ms.
    pub deadline_ms: u64,
    /// Now, wall-clock ms.
    pub now_ms: u64,
}

impl NewRecord {
    /// The record a successful claim creates: IN_PROGRESS, epoch 1, one attempt.
    pub fn into_record(self) -> Record {
        Record {
            key: self.key,
            fingerprint: self.fingerprint,
            state: State::InProgress,
            epoch: 1,
            attempts: 1,
            lease_expires_ms: self.lease_expires_ms,
            deadline_ms: self.deadline_ms,
            outcome: None,
            created_ms: self.now_ms,
            updated_ms: self.now_ms,
        }
    }
}

/// The set half of a compare-and-set.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    /// New state.
    pub state: State,
    /// New epoch.
    pub epoch: u64,
    /// New attempt count.
    pub attempts: u32,
    /// New lease end.
    pub lease_expires_ms: u64,
    /// New attempt deadline.
    pub deadline_ms: u64,
    /// New stored answer.
    pub outcome: Option<Value>,
    /// Now, wall-clock ms.
    pub now_ms: u64,
}

impl Update {
    /// Settles `record` into `state` with the stored answer `outcome`, keeping epoch, attempts and times.
    pub fn settle(record: &Record, state: State, outcome: Option<Value>, now_ms: u64) -> Update {
        Update {
            state,
            epoch: record.epoch,
            attempts: record.attempts,
            lease_expires_ms: record.lease_expires_ms,
            deadline_ms: record.deadline_ms,
            outcome,
            now_ms,
        }
    }

    /// A retry takes the lease of a FAILED_RETRYABLE `record`: next epoch, one more attempt.
    pub fn retake(record: &Record, lease_expires_ms: u64, deadline_ms: u64, now_ms: u64) -> Update {
        Update {
            state: State::InProgress,
            epoch: record.epoch + 1,
            attempts: record.attempts.saturating_add(1),
            lease_expires_ms,
            deadline_ms,
            outcome: None,
            now_ms,
        }
    }

    /// Applies this update to `record` (for stores that keep records in memory).
    pub fn apply_to(self, record: &mut Record) {
        record.state = self.state;
        record.epoch = self.epoch;
        record.attempts = self.attempts;
        record.lease_expires_ms = self.lease_expires_ms;
        record.deadline_ms = self.deadline_ms;
        record.outcome = self.outcome;
        record.updated_ms = self.now_ms;
    }
}

/// Why a transition was refused before it reached the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal idempotency transition {from} (epoch {from_epoch}) → {to} (epoch {to_epoch})")]
pub struct IllegalTransition {
    /// From.
    pub from: State,
    /// From epoch.
    pub from_epoch: u64,
    /// To.
    pub to: State,
    /// To epoch.
    pub to_epoch: u64,
}

/// Checks the arrow and the epoch rule of a transition.
///
/// # Errors
/// [`IllegalTransition`] when the state machine has no such arrow or the epoch does not follow the rule.
pub fn check_transition(from: Version, to: &Update) -> Result<(), IllegalTransition> {
    let expected_epoch = if to.state == State::InProgress { from.epoch + 1 } else { from.epoch };
    if is_legal(Some(from.state), to.state) && to.epoch == expected_epoch {
        Ok(())
    } else {
        Err(IllegalTransition { from: from.state, from_epoch: from.epoch, to: to.state, to_epoch: to.epoch })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arrows_are_exactly_the_seeds() {
        let legal: Vec<(Option<State>, State)> = [None]
            .into_iter()
            .chain(State::ALL.into_iter().map(Some))
            .flat_map(|from| State::ALL.into_iter().map(move |to| (from, to)))
            .filter(|(from, to)| is_legal(*from, *to))
            .collect();
        use State::*;
        assert_eq!(
            legal,
            vec![
                (None, InProgress),
                (Some(InProgress), Succeeded),
                (Some(InProgress), FailedRetryable),
                (Some(InProgress), Unknown),
                (Some(InProgress), FailedFinal),
                (Some(FailedRetryable), InProgress),
                (Some(FailedRetryable), FailedFinal),
                (Some(Unknown), Succeeded),
                (Some(Unknown), FailedRetryable),
                (Some(Unknown), FailedFinal),
            ]
        );
    }

    #[test]
    fn only_a_retake_bumps_the_epoch() {
        let record =
            NewRecord { key: "k".into(), fingerprint: "f".into(), lease_expires_ms: 5, deadline_ms: 4, now_ms: 1 }
                .into_record();
        let done = Update::settle(&record, State::Succeeded, None, 2);
        assert!(check_transition(record.version(), &done).is_ok());
        let mut bumped = done.clone();
        bumped.epoch += 1;
        assert!(check_transition(record.version(), &bumped).is_err());

        let failed = Record { state: State::FailedRetryable, ..record.clone() };
        assert!(check_transition(failed.version(), &Update::retake(&failed, 9, 8, 3)).is_ok());
        let same_epoch = Update { epoch: failed.epoch, ..Update::retake(&failed, 9, 8, 3) };
        assert!(check_transition(failed.version(), &same_epoch).is_err());
    }

    #[test]
    fn a_record_serialises_its_shared_key_and_fingerprint_as_plain_strings() {
        let record =
            NewRecord { key: "k".into(), fingerprint: "f".into(), lease_expires_ms: 5, deadline_ms: 4, now_ms: 1 }
                .into_record();
        let json = serde_json::to_value(&record).expect("serialisable");
        assert_eq!((&json["key"], &json["fingerprint"]), (&Value::from("k"), &Value::from("f")));
        assert_eq!(serde_json::from_value::<Record>(json).expect("deserialisable"), record);
    }

    #[test]
    fn retention_never_forgets_a_possible_side_effect() {
        assert!(!State::InProgress.may_expire());
        assert!(!State::Unknown.may_expire());
        assert!(State::Succeeded.may_expire());
    }
}
