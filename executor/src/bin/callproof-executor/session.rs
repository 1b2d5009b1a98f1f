//! Sessions in a shared store: the records of one harness session are invisible to every other session.
//!
//! Rule enforced here: a durable store outlives the process and is shared by every scenario the harness
//! runs against it, and scenarios reuse business request ids; so every key is stored under the session the
//! harness named in `hello` (docs/protocol.md), and the executor above never sees the prefix.

use async_trait::async_trait;
use callproof_executor::idempotency::{NewRecord, Record, Update, Version};
use callproof_executor::store::{Claim, Forward, Store, StoreError};
use std::sync::Arc;

/// Stores every key as `<session>/<key>`.
pub(crate) struct SessionStore {
    prefix: String,
    inner: Arc<dyn Store>,
}

impl SessionStore {
    pub(crate) fn new(session: &str, inner: Arc<dyn Store>) -> SessionStore {
        SessionStore { prefix: format!("{session}/"), inner }
    }

    fn outer(&self, mut record: Record) -> Record {
        if let Some(key) = record.key.strip_prefix(&self.prefix) {
            record.key = key.into();
        }
        record
    }
}

#[async_trait]
impl Forward for SessionStore {
    fn inner(&self) -> &dyn Store {
        &*self.inner
    }

    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        let inner = NewRecord { key: format!("{}{}", self.prefix, new.key).into(), ..new.clone() };
        Ok(match self.inner.claim(&inner).await? {
            Claim::Existing(record) => Claim::Existing(self.outer(record)),
            Claim::Acquired => Claim::Acquired,
        })
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        self.inner.compare_and_set(&format!("{}{key}", self.prefix), expected, update).await
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        Ok(self.inner.load(&format!("{}{key}", self.prefix)).await?.map(|record| self.outer(record)))
    }
}
