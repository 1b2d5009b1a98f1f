//! The `Store` port: where idempotency records live.
//!
//! Rule enforced here: a store offers exactly two writes, an insert-if-absent claim and a compare-and-set on
//! `(state, epoch)`, both atomic in the backend itself; every state change goes through [`StoreExt::advance`],
//! which refuses arrows the state machine does not have before the backend is touched. `advance` lives on a
//! blanket extension trait (tower's `ServiceExt` shape), so no store or decorator can override it; a decorator
//! builds on [`Forward`] and states only what it changes.

mod durable;
mod locator;
mod memory;
mod postgres;
mod redis;
mod sqlite;

pub use durable::{DEFAULT_PURGE_EVERY, DEFAULT_RETENTION, OpenError, PurgeFailures, SCHEMA_VERSION};
pub use locator::{Locator, OpenOptions, Opened, ParseLocatorError};
pub use memory::MemoryStore;
pub use postgres::{PostgresOptions, PostgresStore};
pub use redis::{RedisOptions, RedisStore};
pub use sqlite::{SqliteOptions, SqliteStore, Synchronous};

use crate::idempotency::{IllegalTransition, NewRecord, Record, Update, Version, check_transition};
use async_trait::async_trait;

/// A database URL fit to print: the password of `scheme://user:password@host/...` dropped, the rest kept.
pub fn url_without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let user = url[scheme + 3..at].split(':').next().unwrap_or_default();
            format!("{}{user}{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_owned(),
    }
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key was ABSENT; the caller now holds IN_PROGRESS with epoch 1.
    Acquired,
    /// A record exists; nothing was changed.
    Existing(Record),
}

/// A store failure.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The transition is not an arrow of the state machine.
    #[error(transparent)]
    Illegal(#[from] IllegalTransition),
    /// The backend failed. The text is for operators' logs only, never for envelopes.
    #[error("idempotency store backend failed: {0}")]
    Backend(String),
}

/// Durable or in-memory storage of idempotency records.
#[async_trait]
pub trait Store: Send + Sync {
    /// Inserts `new` as IN_PROGRESS (epoch 1, one attempt) if no record has its key; otherwise returns the
    /// existing record untouched. Atomic: of many concurrent claims of one key, exactly one acquires. A store
    /// that keeps records in memory keeps clones of `new`'s shared key and fingerprint, not copies.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError>;

    /// Applies `update` if the record is still at `expected`. `Ok(false)` when it moved on or is gone.
    /// Callers use [`StoreExt::advance`], which checks the arrow first.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError>;

    /// The record of `key`, if any.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError>;

    /// Retention: deletes records last updated before `updated_before_ms` whose state may expire (never
    /// IN_PROGRESS or UNKNOWN). Returns how many were deleted.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError>;
}

/// The state machine's checked write, for every [`Store`]. Implemented for all stores by a blanket impl, so
/// the transition check cannot be skipped by overriding it.
#[async_trait]
pub trait StoreExt: Store {
    /// A legal transition as a compare-and-set.
    ///
    /// # Errors
    /// [`StoreError::Illegal`] for an arrow the state machine does not have, or [`StoreError::Backend`].
    async fn advance(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        check_transition(expected, &update)?;
        self.compare_and_set(key, expected, update).await
    }
}

impl<S: Store + ?Sized> StoreExt for S {}

/// The base of a store decorator: each method forwards to [`Forward::inner`] unless the decorator overrides
/// it, and [`Forward::before`] runs first on every call. Every `Forward` is a [`Store`].
#[async_trait]
pub trait Forward: Send + Sync {
    /// The decorated store.
    fn inner(&self) -> &dyn Store;

    /// Runs before every operation; an error fails the operation without touching the inner store.
    ///
    /// # Errors
    /// Whatever the decorator injects (default: none).
    fn before(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// See [`Store::claim`].
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        self.inner().claim(new).await
    }

    /// See [`Store::compare_and_set`].
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        self.inner().compare_and_set(key, expected, update).await
    }

    /// See [`Store::load`].
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        self.inner().load(key).await
    }

    /// See [`Store::purge_expired`].
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        self.inner().purge_expired(updated_before_ms).await
    }
}

#[async_trait]
impl<F: Forward> Store for F {
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        self.before()?;
        Forward::claim(self, new).await
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        self.before()?;
        Forward::compare_and_set(self, key, expected, update).await
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        self.before()?;
        Forward::load(self, key).await
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        self.before()?;
        Forward::purge_expired(self, updated_before_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::url_without_password;

    #[test]
    fn a_printed_url_keeps_the_user_and_host_and_loses_the_password() {
        assert_eq!(url_without_password("postgres://app:s3cret@db:5432/test"), "postgres://app@db:5432/test");
        assert_eq!(url_without_password("redis://:s3cret@127.0.0.1:6379"), "redis://@127.0.0.1:6379");
        assert_eq!(url_without_password("postgres://postgres@127.0.0.1/test"), "postgres://postgres@127.0.0.1/test");
        assert_eq!(url_without_password("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        assert_eq!(url_without_password("not a url @ all"), "not a url @ all");
    }
}
