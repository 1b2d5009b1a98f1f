//! The in-memory store: sharded maps behind short mutexes.
//!
//! Rule enforced here: each claim and compare-and-set happens under one shard lock, so it is atomic; no
//! lock is held across an `.await`. It cannot span processes and loses everything on exit: use it for tests,
//! single-process tools and benchmarks, and a durable store otherwise.
//!
//! A claim allocates nothing of its own: the record it inserts shares the caller's key and fingerprint
//! (`Arc<str>`, see `idempotency::state`), and a completion moves the caller's update in. Sharing was chosen
//! over a port that takes the `NewRecord` by value because the strings have two owners either way (the store's
//! table and the caller, who keeps the record of its attempt and, in the claim loop, the `NewRecord` itself
//! for the next round): by value, one of them would still copy them, or the port would have to hand them back
//! from every store and decorator.

use super::{Claim, Store, StoreError};
use crate::idempotency::{NewRecord, Record, Update, Version};
use async_trait::async_trait;
use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;
use std::sync::{Mutex, MutexGuard, PoisonError};

const SHARDS: usize = 64;

/// An in-memory [`Store`].
///
/// Each key is hashed once per operation (a seeded foldhash, as hashbrown's maps use): bits 32..38 pick the shard,
/// and the same hash finds the record inside the shard's table, which holds each record once, key included.
#[derive(Debug)]
pub struct MemoryStore {
    hasher: DefaultHashBuilder,
    shards: Box<[Mutex<HashTable<Slot>>]>,
}

/// A record and its key's hash, kept so that a growing table moves its slots without reading (and hashing) every
/// key again: 8 bytes a record for a rehash that touches only the table.
#[derive(Debug)]
struct Slot {
    hash: u64,
    record: Record,
}

impl Slot {
    fn holds(&self, hash: u64, key: &str) -> bool {
        self.hash == hash && *self.record.key == *key
    }
}

impl Default for MemoryStore {
    fn default() -> MemoryStore {
        MemoryStore {
            hasher: DefaultHashBuilder::default(),
            shards: (0..SHARDS).map(|_| Mutex::new(HashTable::new())).collect(),
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn hash(&self, key: &str) -> u64 {
        self.hasher.hash_one(key)
    }

    /// The shard of `hash`, locked. The table uses the low bits (bucket) and the top seven (tag) of the same hash,
    /// so the shard takes bits from the middle, which neither reads for any table below 2^32 buckets.
    fn shard(&self, hash: u64) -> MutexGuard<'_, HashTable<Slot>> {
        let index = (hash >> 32) as usize % SHARDS;
        // A panic while holding the lock cannot leave a record half-written: every write is one assignment.
        self.shards[index].lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Synchronous claim, for benchmarks and embedded callers.
    pub fn claim_now(&self, new: &NewRecord) -> Claim {
        let hash = self.hash(&new.key);
        let mut shard = self.shard(hash);
        match shard.entry(hash, |slot| slot.holds(hash, &new.key), |slot| slot.hash) {
            Entry::Occupied(existing) => Claim::Existing(existing.get().record.clone()),
            Entry::Vacant(vacant) => {
                vacant.insert(Slot { hash, record: new.clone().into_record() });
                Claim::Acquired
            }
        }
    }

    /// Synchronous compare-and-set, for benchmarks and embedded callers. Does not check the arrow.
    pub fn compare_and_set_now(&self, key: &str, expected: Version, update: Update) -> bool {
        let hash = self.hash(key);
        let mut shard = self.shard(hash);
        match shard.find_mut(hash, |slot| slot.holds(hash, key)) {
            Some(Slot { record, .. }) if record.version() == expected => {
                update.apply_to(record);
                true
            }
            _ => false,
        }
    }

    /// The record of `key`, if any.
    fn load_now(&self, key: &str) -> Option<Record> {
        let hash = self.hash(key);
        self.shard(hash).find(hash, |slot| slot.holds(hash, key)).map(|slot| slot.record.clone())
    }

    fn each_shard(&self) -> impl Iterator<Item = MutexGuard<'_, HashTable<Slot>>> {
        self.shards.iter().map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.each_shard().map(|shard| shard.len()).sum()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every record, sorted by key.
    pub fn records(&self) -> Vec<Record> {
        let mut all = Vec::new();
        for shard in self.each_shard() {
            all.extend(shard.iter().map(|slot| slot.record.clone()));
        }
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
        Ok(self.load_now(key))
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        let mut purged = 0;
        for mut shard in self.each_shard() {
            let before = shard.len();
            shard.retain(|Slot { record, .. }| !(record.state.may_expire() && record.updated_ms < updated_before_ms));
            purged += (before - shard.len()) as u64;
            shrink_after_purge(&mut shard);
        }
        Ok(purged)
    }
}

/// Gives a shard that a purge left at most a quarter full a table twice its records' size: the memory of a past
/// peak goes back, and the slots the purge marked deleted (which a lookup of an absent key probes past until the
/// table is rebuilt) go with the old table. Twice, so that the next records to come need no growth at once.
fn shrink_after_purge(shard: &mut HashTable<Slot>) {
    if shard.len() <= shard.capacity() / 4 {
        shard.shrink_to(shard.len() * 2, |slot| slot.hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idempotency::State;
    use std::sync::Arc;

    fn new(key: &str) -> NewRecord {
        NewRecord {
            key: key.into(),
            fingerprint: format!("f-{key}").into(),
            lease_expires_ms: 9,
            deadline_ms: 8,
            now_ms: 1,
        }
    }

    const CLAIMED: Version = Version { state: State::InProgress, epoch: 1 };

    #[test]
    fn a_key_is_acquired_once_and_then_answers_with_its_record() {
        let store = MemoryStore::new();
        assert_eq!(store.claim_now(&new("k")), Claim::Acquired);
        match store.claim_now(&NewRecord { fingerprint: "other".into(), ..new("k") }) {
            Claim::Existing(record) => assert_eq!(record, new("k").into_record()),
            Claim::Acquired => panic!("acquired twice"),
        }
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn a_claim_keeps_the_callers_key_and_fingerprint_without_copying_them() {
        let store = MemoryStore::new();
        let first = new("k");
        assert_eq!(store.claim_now(&first), Claim::Acquired);
        let Claim::Existing(record) = store.claim_now(&new("k")) else { panic!("acquired twice") };
        assert!(Arc::ptr_eq(&record.key, &first.key), "the stored key is the caller's");
        assert!(Arc::ptr_eq(&record.fingerprint, &first.fingerprint), "the stored fingerprint is the caller's");
        assert_eq!(Arc::strong_count(&first.key), 3, "caller, table and the returned record share one string");
    }

    #[test]
    fn compare_and_set_applies_only_at_the_expected_version_of_an_existing_key() {
        let store = MemoryStore::new();
        store.claim_now(&new("k"));
        let record = new("k").into_record();
        let done = Update::settle(&record, State::Succeeded, None, 2);
        assert!(!store.compare_and_set_now("absent", CLAIMED, done.clone()));
        assert!(!store.compare_and_set_now("k", Version { state: State::InProgress, epoch: 2 }, done.clone()));
        assert!(store.compare_and_set_now("k", CLAIMED, done.clone()));
        assert!(!store.compare_and_set_now("k", CLAIMED, done), "the version moved on");
        assert_eq!(store.load_now("k").map(|record| (record.state, record.updated_ms)), Some((State::Succeeded, 2)));
        assert_eq!(store.load_now("absent"), None);
    }

    #[test]
    fn every_key_is_found_again_after_the_tables_grew() {
        let store = MemoryStore::new();
        let keys: Vec<String> = (0..20_000).map(|index| format!("key-{index}")).collect();
        for key in &keys {
            assert_eq!(store.claim_now(&new(key)), Claim::Acquired, "{key}");
        }
        for key in &keys {
            assert!(matches!(store.claim_now(&new(key)), Claim::Existing(record) if *record.key == **key));
            assert_eq!(store.load_now(key).map(|record| record.fingerprint), Some(format!("f-{key}").into()));
        }
        assert_eq!(store.len(), keys.len());
        let used = store.shards.iter().filter(|shard| !shard.lock().expect("unpoisoned").is_empty()).count();
        assert_eq!(used, SHARDS, "keys spread over every shard");
    }

    #[tokio::test]
    async fn records_come_sorted_by_key_and_purge_keeps_what_may_have_happened() {
        let store = MemoryStore::new();
        for key in ["b", "a", "c"] {
            store.claim_now(&new(key));
        }
        let done = Update::settle(&new("a").into_record(), State::Succeeded, None, 5);
        assert!(store.compare_and_set_now("a", CLAIMED, done));
        let keys: Vec<String> = store.records().into_iter().map(|record| record.key.to_string()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        let purged = store.purge_expired(6).await.expect("in memory");
        assert_eq!(purged, 1, "only the settled record may expire");
        assert_eq!(store.len(), 2);
    }

    #[tokio::test]
    async fn a_purge_of_most_records_gives_their_memory_back_and_keeps_the_rest() {
        let store = MemoryStore::new();
        let capacity = |store: &MemoryStore| store.each_shard().map(|shard| shard.capacity()).sum::<usize>();
        for index in 0..20_000 {
            let key = format!("k{index}");
            store.claim_now(&new(&key));
            if index % 100 != 0 {
                let done = Update::settle(&new(&key).into_record(), State::Succeeded, None, 5);
                assert!(store.compare_and_set_now(&key, CLAIMED, done));
            }
        }
        let peak = capacity(&store);
        assert!(peak >= 20_000, "{peak}");
        assert_eq!(store.purge_expired(6).await.expect("in memory"), 19_800);
        assert!(capacity(&store) <= peak / 10, "{} of {peak} slots kept for 200 records", capacity(&store));
        assert_eq!(store.len(), 200);
        for index in (0..20_000).step_by(100) {
            assert_eq!(store.load_now(&format!("k{index}")).map(|record| record.state), Some(State::InProgress));
        }
        assert_eq!(store.claim_now(&new("k1")), Claim::Acquired, "a purged key is absent");
    }
}
