//! The in-memory store: sharded maps behind short mutexes.
//!
//! Rule enforced here: each claim and compare-and-set happens under one shard lock, so it is atomic; no
//! lock is held across an `.await`. It cannot span processes and loses everything on exit: use it for tests,
//! single-process tools and benchmarks, and a durable store otherwise.

use super::{Claim, Store, StoreError};
use crate::idempotency::{NewRecord, Record, Update, Version};
use async_trait::async_trait;
use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Mutex, MutexGuard, PoisonError};

const SHARDS: usize = 64;

/// An in-memory [`Store`].
#[derive(Debug)]
pub struct MemoryStore {
    hasher: RandomState,
    shards: Box<[Mutex<HashMap<String, Record>>]>,
}

impl Default for MemoryStore {
    fn default() -> MemoryStore {
        MemoryStore { hasher: RandomState::new(), shards: (0..SHARDS).map(|_| Mutex::default()).collect() }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn shard(&self, key: &str) -> MutexGuard<'_, HashMap<String, Record>> {
        let index = (self.hasher.hash_one(key) as usize) % SHARDS;
        // A panic while holding the lock cannot leave a record half-written: every write is one assignment.
        self.shards[index].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Synchronous claim, for benchmarks and embedded callers.
    pub fn claim_now(&self, new: &NewRecord) -> Claim {
        let mut shard = self.shard(&new.key);
        match shard.get(&new.key) {
            Some(existing) => Claim::Existing(existing.clone()),
            None => {
                shard.insert(new.key.clone(), new.clone().into_record());
                Claim::Acquired
            }
        }
    }

    /// Synchronous compare-and-set, for benchmarks and embedded callers. Does not check the arrow.
    pub fn compare_and_set_now(&self, key: &str, expected: Version, update: Update) -> bool {
        let mut shard = self.shard(key);
        match shard.get_mut(key) {
            Some(record) if record.version() == expected => {
                update.apply_to(record);
                true
            }
            _ => false,
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len()).sum()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every record, sorted by key.
    pub fn records(&self) -> Vec<Record> {
        let mut all: Vec<Record> = self
            .shards
            .iter()
            .flat_map(|shard| {
                shard.lock().unwrap_or_else(PoisonError::into_inner).values().cloned().collect::<Vec<_>>()
            })
            .collect();
        all.sort_by(|a, b| a.key.cmp(&b.key));
        all
    }
}

#[async_trait]
impl Store for MemoryStore {
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        Ok(self.claim_now(new))
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        Ok(self.compare_and_set_now(key, expected, update))
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        Ok(self.shard(key).get(key).cloned())
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        let mut purged = 0;
        for shard in self.shards.iter() {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            let before = shard.len();
            shard.retain(|_, record| !(record.state.may_expire() && record.updated_ms < updated_before_ms));
            purged += (before - shard.len()) as u64;
        }
        Ok(purged)
    }
}
