//! What the durable stores share: the schema version, retention, opening errors and integer encoding.
//!
//! Rule enforced here: a store never runs against a schema newer than the one it was built for, nor on records
//! of another record format (their keys were derived another way, so a retry would miss them and run again);
//! an older store that holds no records is upgraded in place, one that holds some is refused. And
//! retention only ever names states that [`State::may_expire`] allows to be forgotten. A background purge
//! that fails is counted and its cause kept ([`PurgeFailures`]): no call waits on it, so nothing else would.

use super::StoreError;
use crate::idempotency::{RECORD_FORMAT, State};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The schema version this build writes and reads. Bumped by a migration; a store refuses a newer one.
///
/// Version 2: every record carries its record format ([`RECORD_FORMAT`]: keys derived from the arguments'
/// digest). Version 1 had no format field and held records of format 1 (keys hashed from the canonical
/// arguments themselves).
pub const SCHEMA_VERSION: i64 = 2;

/// How long a settled record is kept after its last transition, unless configured otherwise: 7 days.
///
/// A retry of the same business request after this window executes again, so the window must outlast any
/// client's retries. IN_PROGRESS and UNKNOWN records are kept however old they are.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often a store that purges by itself deletes records older than its retention window: hourly.
pub const DEFAULT_PURGE_EVERY: Duration = Duration::from_secs(3600);

/// Why a durable store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The database was written by a newer build; running against it could corrupt it.
    #[error(
        "the idempotency store's schema is version {found}, newer than the version {supported} this build \
         understands; upgrade callproof or point it at another database"
    )]
    NewerSchema {
        /// The version found in the database.
        found: i64,
        /// [`SCHEMA_VERSION`].
        supported: i64,
    },
    /// The store was written by an older build whose keys are derived another way, and still holds records:
    /// a retry of one of those operations would not find its record. Nothing was changed.
    #[error(
        "the idempotency store's schema is version {found} (record format 1: keys hashed from the canonical \
         arguments) and it still holds records; this build derives keys in record format {format} and would not \
         find them, so a retry of those operations would run again. Migrate it (docs/stores.md, \"Record format\"): \
         stop every executor of the older build, let its IN_PROGRESS and UNKNOWN records settle, then delete the \
         records (an empty store is upgraded when opened) or point the executor at a new store"
    )]
    OlderRecords {
        /// The version found in the database.
        found: i64,
        /// [`RECORD_FORMAT`].
        format: i64,
    },
    /// The configuration cannot work (for example an invalid schema name or key prefix).
    #[error("invalid idempotency store configuration: {0}")]
    Config(String),
    /// The backend could not be reached or failed while opening. For operators' logs only.
    #[error("the idempotency store could not be opened: {0}")]
    Backend(String),
}

/// Checks the record format stored with a record: only [`RECORD_FORMAT`] is read.
///
/// # Errors
/// [`StoreError::Backend`] naming the record and the format found.
pub(crate) fn check_format(backend: &str, key: &str, found: i64) -> Result<(), StoreError> {
    if found == RECORD_FORMAT {
        return Ok(());
    }
    Err(StoreError::Backend(format!(
        "{backend}: record {key:?} is of record format {found}; this build reads format {RECORD_FORMAT}"
    )))
}

/// The background purges of a store that failed so far, for operators.
#[derive(Debug, Clone, Default)]
pub struct PurgeFailures {
    /// How many rounds failed (each is retried at the next round).
    pub count: u64,
    /// The cause of the last failure.
    pub last: Option<StoreError>,
}

/// Where a store's background purge reports its failures.
#[derive(Debug, Default)]
pub(crate) struct PurgeLog {
    count: AtomicU64,
    last: Mutex<Option<StoreError>>,
}

impl PurgeLog {
    /// Keeps the failure of one purge round, if it failed.
    pub(crate) fn note<T>(&self, round: Result<T, StoreError>) {
        if let Err(error) = round {
            self.count.fetch_add(1, Ordering::Relaxed);
            *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
        }
    }

    /// The failures so far.
    pub(crate) fn failures(&self) -> PurgeFailures {
        PurgeFailures {
            count: self.count.load(Ordering::Relaxed),
            last: self.last.lock().unwrap_or_else(PoisonError::into_inner).clone(),
        }
    }
}

/// The states retention may delete, in their stored form.
pub(crate) fn expiring_states() -> impl Iterator<Item = &'static str> {
    State::ALL.into_iter().filter(|state| state.may_expire()).map(State::as_str)
}

/// `'SUCCEEDED', 'FAILED_RETRYABLE', 'FAILED_FINAL'`, for an SQL `IN (...)` list. The stored forms are
/// constants without quotes, so splicing them is safe.
pub(crate) fn expiring_states_sql() -> String {
    expiring_states().map(|state| format!("'{state}'")).collect::<Vec<_>>().join(", ")
}

/// `u64` as a signed 64-bit SQL integer, bit for bit: [`from_sql`] restores it exactly. Values above
/// `i64::MAX` (a lease "forever") come out negative in SQL, so SQL only ever compares timestamps that are
/// real clock readings (`updated_ms`), and equality on the epoch.
pub(crate) const fn to_sql(value: u64) -> i64 {
    value as i64
}

/// The inverse of [`to_sql`].
pub(crate) const fn from_sql(value: i64) -> u64 {
    value as u64
}

/// A cutoff for an ordered comparison in SQL: clamped rather than wrapped.
pub(crate) fn cutoff_sql(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_round_trip_through_sql_bit_for_bit() {
        for value in [0, 1, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
            assert_eq!(from_sql(to_sql(value)), value);
        }
        assert_eq!(cutoff_sql(u64::MAX), i64::MAX);
    }

    #[test]
    fn a_failed_purge_round_is_counted_and_its_cause_kept() {
        let log = PurgeLog::default();
        log.note(Ok::<u64, StoreError>(3));
        assert_eq!(log.failures().count, 0);
        log.note(Err::<u64, _>(StoreError::Backend("disk I/O error".to_owned())));
        let failures = log.failures();
        assert_eq!(failures.count, 1);
        assert!(matches!(failures.last, Some(StoreError::Backend(cause)) if cause == "disk I/O error"));
    }

    #[test]
    fn only_the_current_record_format_is_read() {
        assert!(check_format("sqlite", "k", RECORD_FORMAT).is_ok());
        let refused = check_format("sqlite", "k", 1).expect_err("format 1").to_string();
        assert!(refused.contains("\"k\" is of record format 1"), "{refused}");
    }

    #[test]
    fn refusing_an_older_store_names_the_migration() {
        let message = OpenError::OlderRecords { found: 1, format: RECORD_FORMAT }.to_string();
        assert!(message.contains("docs/stores.md, \"Record format\""), "{message}");
        assert!(message.contains("record format 2"), "{message}");
    }

    #[test]
    fn retention_names_only_settled_states() {
        assert_eq!(expiring_states_sql(), "'SUCCEEDED', 'FAILED_RETRYABLE', 'FAILED_FINAL'");
    }
}
