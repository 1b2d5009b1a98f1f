//! Idempotency store benches: claim + complete through the in-memory store's synchronous entry points
//! (`MemoryStore::claim_now` / `compare_and_set_now`, the same code the async `Store` methods run), on one
//! thread, on two threads with disjoint keys and on two threads racing for the same keys; and the same work in the
//! same run on a `Mutex<HashMap<Arc<str>, Record>>` (the baseline) and on the two concurrent maps a Rust user
//! would pick instead, `dashmap::DashMap` and `scc::HashMap` (the peers).
//!
//! One element is one business operation: a claim of a fresh key and the completion of that claim (a
//! compare-and-set IN_PROGRESS → SUCCEEDED with a stored answer). Keys, records and answers are built untimed, a
//! chunk at a time just before they are used; a store fills up to 10 000 records, then the bench moves to a fresh
//! one (built untimed; every store is dropped after the measurement, so each record lands on memory never
//! touched before, and the kernel's page faults are part of what is timed: BENCHMARKS.md, "Two threads, run 12").
//! With two threads, the time of a chunk runs from the first thread's start to the last one's finish.

use callproof_executor::canonical::sha256_hex;
use callproof_executor::idempotency::{NewRecord, Record, State, Update, Version};
use callproof_executor::store::{Claim, MemoryStore};
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Barrier, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A store as these benches drive it: claim a key, then settle a claim this thread won.
trait Claims: Default + Sync {
    /// Whether the claim was acquired.
    fn claim(&self, new: &NewRecord) -> bool;
    /// Whether the compare-and-set applied.
    fn complete(&self, key: &str, expected: Version, update: Update) -> bool;
}

impl Claims for MemoryStore {
    fn claim(&self, new: &NewRecord) -> bool {
        matches!(self.claim_now(new), Claim::Acquired)
    }

    fn complete(&self, key: &str, expected: Version, update: Update) -> bool {
        self.compare_and_set_now(key, expected, update)
    }
}

/// The baseline: one lock around one std `HashMap`, doing what `MemoryStore` does per operation.
#[derive(Default)]
struct MutexHashMap(Mutex<HashMap<Arc<str>, Record>>);

impl Claims for MutexHashMap {
    fn claim(&self, new: &NewRecord) -> bool {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if map.contains_key(&*new.key) {
            // What a real claim returns to the loser: a copy of the record.
            std::hint::black_box(map.get(&*new.key).cloned());
            return false;
        }
        map.insert(new.key.clone(), new.clone().into_record());
        true
    }

    fn complete(&self, key: &str, expected: Version, update: Update) -> bool {
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        settle(map.get_mut(key), expected, update)
    }
}

/// A peer: `dashmap::DashMap`, a sharded map of `RwLock`ed tables.
#[derive(Default)]
struct Dash(dashmap::DashMap<Arc<str>, Record>);

impl Claims for Dash {
    fn claim(&self, new: &NewRecord) -> bool {
        match self.0.entry(new.key.clone()) {
            dashmap::Entry::Occupied(existing) => {
                std::hint::black_box(existing.get().clone());
                false
            }
            dashmap::Entry::Vacant(vacant) => {
                vacant.insert(new.clone().into_record());
                true
            }
        }
    }

    fn complete(&self, key: &str, expected: Version, update: Update) -> bool {
        settle(self.0.get_mut(key).as_deref_mut(), expected, update)
    }
}

/// A peer: `scc::HashMap`, one array of buckets, each with its own lock, resized without blocking.
#[derive(Default)]
struct Scc(scc::HashMap<Arc<str>, Record>);

impl Claims for Scc {
    fn claim(&self, new: &NewRecord) -> bool {
        match self.0.entry_sync(new.key.clone()) {
            scc::hash_map::Entry::Occupied(existing) => {
                std::hint::black_box(existing.get().clone());
                false
            }
            scc::hash_map::Entry::Vacant(vacant) => {
                vacant.insert_entry(new.clone().into_record());
                true
            }
        }
    }

    fn complete(&self, key: &str, expected: Version, update: Update) -> bool {
        settle(self.0.get_sync(key).as_deref_mut(), expected, update)
    }
}

/// The compare-and-set every store here does on completion.
fn settle(record: Option<&mut Record>, expected: Version, update: Update) -> bool {
    match record {
        Some(record) if record.version() == expected => {
            update.apply_to(record);
            true
        }
        _ => false,
    }
}

/// Operations are prepared in chunks this long, right before they run, so their inputs are in cache as the
/// executor's would be (it derives a key just before it claims it).
const CHUNK: u64 = 5_000;
/// Records one store holds before the bench moves on to a fresh one (dropped untimed).
const RECORDS_PER_STORE: u64 = 10_000;

/// One business operation, prepared before timing.
struct Operation {
    new: NewRecord,
    done: Update,
}

/// The operations of one chunk; `lane` keeps threads' keys apart (the same lane gives the same keys).
fn operations(lane: usize, chunk: u64) -> Vec<Operation> {
    let answer = stored_answer();
    (chunk * CHUNK..(chunk + 1) * CHUNK)
        .map(|index| {
            let new = NewRecord {
                key: sha256_hex(format!("bench:{lane}:{index}").as_bytes()).into(),
                fingerprint: sha256_hex(format!("arguments:{index}").as_bytes()).into(),
                lease_expires_ms: 2_000,
                deadline_ms: 1_000,
                now_ms: 0,
            };
            let record = new.clone().into_record();
            let done = Update::settle(&record, State::Succeeded, Some(answer.clone()), 10);
            Operation { new, done }
        })
        .collect()
}

/// A small success envelope, as the executor stores it.
fn stored_answer() -> Value {
    json!({"ok": true, "result": {"refund_id": "rf_1", "status": "completed"}, "meta": {"replayed": false}})
}

const CLAIMED: Version = Version { state: State::InProgress, epoch: 1 };

/// Claim + complete each operation in order; returns how many this thread completed.
fn run<S: Claims>(store: &S, work: Vec<Operation>) -> u64 {
    let mut completed = 0;
    for Operation { new, done } in work {
        if store.claim(&new) && store.complete(&new.key, CLAIMED, done) {
            completed += 1;
        }
    }
    completed
}

/// `threads` threads run `iters` operations each (`same_keys`: all threads race for one set of `iters` keys).
/// Chunk by chunk, every thread prepares its inputs, all are released together by a barrier, and the chunk's
/// time is from the first start to the last finish. Returns the sum over chunks.
/// How the threads of a run share the stores.
#[derive(Clone, Copy, PartialEq)]
enum Sharing {
    /// One store set, each thread its own keys.
    Disjoint,
    /// One store set, every thread the same keys (they race; one completes each).
    SameKeys,
    /// Each thread its own store set: nothing shared but the machine, the allocator and the barrier. The
    /// scaling of this run is the ceiling a shared store can reach here.
    Private,
}

fn timed<S: Claims>(threads: usize, iters: u64, sharing: Sharing) -> Duration {
    let same_keys = sharing == Sharing::SameKeys;
    let chunks = iters.div_ceil(CHUNK);
    let records_per_chunk = match sharing {
        Sharing::Disjoint => CHUNK * threads as u64,
        Sharing::SameKeys | Sharing::Private => CHUNK,
    };
    let chunks_per_store = (RECORDS_PER_STORE / records_per_chunk).max(1);
    let sets = if sharing == Sharing::Private { threads } else { 1 };
    let stores: Vec<Vec<S>> =
        (0..sets).map(|_| (0..chunks.div_ceil(chunks_per_store)).map(|_| S::default()).collect()).collect();
    let start_line = Barrier::new(threads);
    let (spans, completed): (Vec<Vec<(Instant, Instant)>>, Vec<u64>) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let (stores, start_line) = (&stores[thread % sets], &start_line);
                scope.spawn(move || {
                    let lane = if same_keys { 0 } else { thread };
                    let mut spans = Vec::with_capacity(chunks as usize);
                    let mut completed = 0;
                    for chunk in 0..chunks {
                        let work = operations(lane, chunk);
                        let store = &stores[(chunk / chunks_per_store) as usize];
                        start_line.wait();
                        let start = Instant::now();
                        completed += run(store, work);
                        spans.push((start, Instant::now()));
                    }
                    (spans, completed)
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("bench thread")).unzip()
    });
    let expected = chunks * CHUNK * if same_keys { 1 } else { threads as u64 };
    assert_eq!(completed.iter().sum::<u64>(), expected, "every operation completes exactly once");
    let mut total = Duration::ZERO;
    for chunk in 0..chunks as usize {
        let start = spans.iter().map(|thread| thread[chunk].0).min().expect("a thread");
        let end = spans.iter().map(|thread| thread[chunk].1).max().expect("a thread");
        total += end - start;
    }
    drop(stores);
    // Criterion divides by `iters`; we ran whole chunks.
    total.mul_f64(iters as f64 / (chunks * CHUNK) as f64)
}

fn bench_store<S: Claims>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str) {
    group.throughput(Throughput::Elements(1));
    group
        .bench_function(format!("{name}_1_thread"), |b| b.iter_custom(|iters| timed::<S>(1, iters, Sharing::Disjoint)));
    group.throughput(Throughput::Elements(2));
    group.bench_function(format!("{name}_2_threads_disjoint"), |b| {
        b.iter_custom(|iters| timed::<S>(2, iters, Sharing::Disjoint))
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function(format!("{name}_2_threads_same_keys"), |b| {
        b.iter_custom(|iters| timed::<S>(2, iters, Sharing::SameKeys))
    });
}

/// Two threads, each with stores of its own: the scaling ceiling of this machine for this work.
fn bench_ceiling<S: Claims>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str) {
    group.throughput(Throughput::Elements(2));
    group.bench_function(format!("{name}_2_threads_private"), |b| {
        b.iter_custom(|iters| timed::<S>(2, iters, Sharing::Private))
    });
}

fn claim_complete(c: &mut Criterion) {
    let mut group = c.benchmark_group("claim_complete");
    bench_store::<MemoryStore>(&mut group, "memory_store");
    bench_store::<MutexHashMap>(&mut group, "mutex_hashmap");
    bench_store::<Dash>(&mut group, "dashmap");
    bench_store::<Scc>(&mut group, "scc");
    bench_ceiling::<MemoryStore>(&mut group, "memory_store");
    group.finish();
}

criterion_group!(benches, claim_complete);
criterion_main!(benches);
