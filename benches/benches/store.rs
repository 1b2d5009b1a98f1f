//! Idempotency stores: claim + complete per backend, beside the raw single-statement write of the same
//! database in the same run (an upsert on SQLite with the same pragmas and on PostgreSQL, `SET NX` on Redis).
//!
//! Every measured iteration uses a fresh key, so each claim inserts. Criterion gives the absolute numbers;
//! the ratios BENCHMARKS.md reports ("Idempotency stores") come from a paired run at the end, which
//! alternates the store and its baseline operation by operation and compares medians, so that the noise of a
//! shared machine (other builds, checkpoints) hits both sides alike. PostgreSQL and Redis come from
//! `CALLPROOF_POSTGRES_URL` and `CALLPROOF_REDIS_URL` (the machine's services by default); an unreachable one
//! is skipped with a line.
//!
//! `cargo bench -p callproof-benches --bench store -- --quick` is the quick mode. `CALLPROOF_BENCH_RATIOS=0`
//! skips the paired run (to profile one bench with `--profile-time`).

use callproof_executor::idempotency::{NewRecord, State, Update};
use callproof_executor::store::{
    Claim, Locator, MemoryStore, OpenOptions, PostgresOptions, RedisOptions, SqliteOptions, Store, StoreExt,
    Synchronous,
};
use criterion::{Criterion, Throughput};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::runtime::Runtime;
use tokio::task::JoinSet;

/// Operations in flight in the concurrent benches.
const IN_FLIGHT: u64 = 64;

static KEYS: AtomicU64 = AtomicU64::new(0);

fn fresh_key(prefix: &str) -> String {
    format!("{prefix}-{}", KEYS.fetch_add(1, Ordering::Relaxed))
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

/// What the executor does for one business operation: claim the key, then record the success.
async fn claim_and_complete(store: &dyn Store, key: String) {
    let now = wall_ms();
    let new = NewRecord {
        key: key.into(),
        fingerprint: "sha256:bench".into(),
        lease_expires_ms: now + 10_000,
        deadline_ms: now + 8_000,
        now_ms: now,
    };
    let claim = store.claim(&new).await.expect("claim");
    assert_eq!(claim, Claim::Acquired, "every bench key is fresh");
    let record = new.into_record();
    let answer = json!({"ok": true, "result": {"refund_id": "rf_1", "amount": 100}, "meta": {"replayed": false}});
    let update = Update::settle(&record, State::Succeeded, Some(answer), now + 1);
    assert!(store.advance(&record.key, record.version(), update).await.expect("complete"));
}

async fn claim_only(store: &dyn Store, key: String) {
    let now = wall_ms();
    let new = NewRecord {
        key: key.into(),
        fingerprint: "sha256:bench".into(),
        lease_expires_ms: now + 10_000,
        deadline_ms: now + 8_000,
        now_ms: now,
    };
    assert_eq!(store.claim(&new).await.expect("claim"), Claim::Acquired);
}

/// The raw single-statement write a store is compared with.
enum Raw {
    /// An upsert on a connection with the store's pragmas, in autocommit.
    Sqlite(rusqlite::Connection),
    /// A prepared upsert on one connection.
    Postgres(tokio_postgres::Client, tokio_postgres::Statement),
    /// `SET key value NX` on one connection.
    Redis(redis::aio::MultiplexedConnection, String),
}

impl Raw {
    async fn write(&mut self, key: String) {
        match self {
            Raw::Sqlite(connection) => {
                connection
                    .prepare_cached(
                        "INSERT INTO raw (key, fingerprint, state, epoch, outcome, updated_ms)
                         VALUES (?1, 'sha256:bench', 'SUCCEEDED', 1, '{\"ok\":true}', ?2)
                         ON CONFLICT (key) DO UPDATE SET state = excluded.state, outcome = excluded.outcome,
                         updated_ms = excluded.updated_ms",
                    )
                    .and_then(|mut statement| statement.execute(rusqlite::params![key, wall_ms() as i64]))
                    .expect("raw upsert");
            }
            Raw::Postgres(client, upsert) => {
                client.execute(upsert, &[&key, &(wall_ms() as i64)]).await.expect("raw upsert");
            }
            Raw::Redis(connection, prefix) => {
                let set: Option<String> = redis::cmd("SET")
                    .arg(format!("{prefix}raw:{key}"))
                    .arg("{\"ok\":true}")
                    .arg("NX")
                    .query_async(connection)
                    .await
                    .expect("SET NX");
                assert!(set.is_some(), "every bench key is fresh");
            }
        }
    }
}

/// One store and its baseline.
struct Subject {
    /// Criterion group, e.g. `store/sqlite_full`.
    group: String,
    /// What the table calls it.
    label: String,
    store: Arc<dyn Store>,
    raw: Option<Raw>,
}

/// [`IN_FLIGHT`] concurrent claims + completes (or claims only).
async fn batch(store: &Arc<dyn Store>, group: &str, complete: bool) {
    let mut set = JoinSet::new();
    for _ in 0..IN_FLIGHT {
        let store = Arc::clone(store);
        let key = fresh_key(group);
        set.spawn(async move {
            if complete {
                claim_and_complete(&*store, key).await;
            } else {
                claim_only(&*store, key).await;
            }
        });
    }
    while let Some(done) = set.join_next().await {
        done.expect("an operation");
    }
}

/// Runs `operation` `iters` times, one after another, and returns how long that took.
fn one_after_another(runtime: &Runtime, iters: u64, mut operation: impl AsyncFnMut()) -> Duration {
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            operation().await;
        }
        start.elapsed()
    })
}

/// Criterion: the baseline, a claim, claim + complete with one operation in flight, and with [`IN_FLIGHT`].
fn bench_subject(c: &mut Criterion, runtime: &Runtime, subject: &mut Subject) {
    let Subject { group, store, raw, .. } = subject;
    let group = group.as_str();
    let mut bench = c.benchmark_group(group);
    bench.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    if let Some(raw) = raw.as_mut() {
        let name = if matches!(raw, Raw::Redis(..)) { "raw_set_nx" } else { "raw_upsert" };
        bench.bench_function(name, |b| {
            b.iter_custom(|iters| one_after_another(runtime, iters, async || raw.write(fresh_key(group)).await));
        });
    }
    bench.bench_function("claim", |b| {
        b.iter_custom(|iters| one_after_another(runtime, iters, async || claim_only(&**store, fresh_key(group)).await));
    });
    bench.bench_function("claim_complete", |b| {
        b.iter_custom(|iters| {
            one_after_another(runtime, iters, async || claim_and_complete(&**store, fresh_key(group)).await)
        });
    });
    bench.throughput(Throughput::Elements(IN_FLIGHT));
    bench.bench_function(format!("claim_complete_x{IN_FLIGHT}"), |b| {
        b.iter_custom(|iters| one_after_another(runtime, iters, async || batch(store, group, true).await));
    });
    bench.finish();
}

/// Medians per operation from the paired run.
struct Paired {
    raw: Duration,
    claim: Duration,
    claim_complete: Duration,
    /// One claim + complete of a batch of [`IN_FLIGHT`] concurrent ones: the batch's time / [`IN_FLIGHT`].
    batched: Duration,
    /// One claim of a batch of [`IN_FLIGHT`] concurrent claims.
    batched_claims: Duration,
}

/// Runs the baseline and each store operation `rounds` times, interleaved, alternating which goes first.
fn paired(runtime: &Runtime, subject: &mut Subject, rounds: usize) -> Option<Paired> {
    let Subject { group, store, raw, .. } = subject;
    let raw = raw.as_mut()?;
    let group = group.as_str();
    runtime.block_on(async {
        let mut times: [Vec<Duration>; 5] = Default::default();
        for round in 0..rounds {
            let mut order = [0, 1, 2, 3, 4];
            order.rotate_left(round % 5);
            for which in order {
                let start = Instant::now();
                match which {
                    0 => raw.write(fresh_key(group)).await,
                    1 => claim_only(&**store, fresh_key(group)).await,
                    2 => claim_and_complete(&**store, fresh_key(group)).await,
                    3 => batch(store, group, true).await,
                    _ => batch(store, group, false).await,
                }
                let elapsed = start.elapsed();
                times[which].push(if which >= 3 { elapsed / IN_FLIGHT as u32 } else { elapsed });
            }
        }
        let [raw, claim, claim_complete, batched, batched_claims] = times.map(median);
        Some(Paired { raw, claim, claim_complete, batched, batched_claims })
    })
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

// ---- the subjects -----------------------------------------------------------------------------------------

fn sqlite(runtime: &Runtime, dir: &Path, synchronous: Synchronous) -> Subject {
    let name = match synchronous {
        Synchronous::Full => "full",
        Synchronous::Normal => "normal",
    };
    let raw = rusqlite::Connection::open(dir.join(format!("raw_{name}.sqlite3"))).expect("open the raw database");
    let mode: String = raw.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).expect("WAL");
    assert_eq!(mode, "wal");
    raw.pragma_update(None, "synchronous", name.to_uppercase()).expect("synchronous");
    raw.busy_timeout(Duration::from_secs(5)).expect("busy timeout");
    raw.execute_batch(
        "CREATE TABLE raw (key TEXT PRIMARY KEY NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
            epoch INTEGER NOT NULL, outcome TEXT, updated_ms INTEGER NOT NULL) WITHOUT ROWID",
    )
    .expect("raw table");
    let sqlite = SqliteOptions { synchronous, purge_every: None, ..SqliteOptions::default() };
    let locator = Locator::Sqlite(dir.join(format!("store_{name}.sqlite3")));
    let store = runtime
        .block_on(locator.open("", &OpenOptions { sqlite, ..OpenOptions::default() }))
        .expect("open the SQLite store");
    Subject {
        group: format!("store/sqlite_{name}"),
        label: format!("SQLite, synchronous={}", name.to_uppercase()),
        store,
        raw: Some(Raw::Sqlite(raw)),
    }
}

/// `options` is PostgreSQL's connection `options` parameter (empty for the server's defaults).
fn postgres(runtime: &Runtime, url: &str, schema: &str, label: &str, options: &str) -> Option<Subject> {
    let url = if options.is_empty() {
        url.to_owned()
    } else {
        let separator = if url.contains('?') { '&' } else { '?' };
        format!("{url}{separator}options={}", options.replace(' ', "%20").replace('=', "%3D"))
    };
    let postgres = PostgresOptions { purge_every: None, timeout: Duration::from_secs(5), ..PostgresOptions::default() };
    let (locator, opening) = (Locator::Postgres(url.clone()), OpenOptions { postgres, ..OpenOptions::default() });
    let store = match runtime.block_on(locator.open(schema, &opening)) {
        Ok(store) => store,
        Err(error) => {
            println!("SKIPPED: PostgreSQL not reachable: {error}");
            return None;
        }
    };
    let (client, upsert) = runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("connect");
        tokio::spawn(connection);
        client
            .batch_execute(&format!(
                "CREATE TABLE IF NOT EXISTS \"{schema}\".raw (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,
                    state TEXT NOT NULL, epoch BIGINT NOT NULL, outcome TEXT, updated_ms BIGINT NOT NULL)"
            ))
            .await
            .expect("raw table");
        let upsert = client
            .prepare(&format!(
                "INSERT INTO \"{schema}\".raw (key, fingerprint, state, epoch, outcome, updated_ms)
                 VALUES ($1, 'sha256:bench', 'SUCCEEDED', 1, '{{\"ok\":true}}', $2)
                 ON CONFLICT (key) DO UPDATE SET state = excluded.state, outcome = excluded.outcome,
                 updated_ms = excluded.updated_ms"
            ))
            .await
            .expect("prepare the raw upsert");
        (client, upsert)
    });
    let group = if options.is_empty() { "store/postgres".to_owned() } else { "store/postgres_async_commit".to_owned() };
    Some(Subject { group, label: label.to_owned(), store, raw: Some(Raw::Postgres(client, upsert)) })
}

/// The store's keys start with `namespace:`, the baseline's too.
fn redis(runtime: &Runtime, url: &str, namespace: &str) -> Option<Subject> {
    let redis = RedisOptions { timeout: Duration::from_secs(5), ..RedisOptions::default() };
    let (locator, options) = (Locator::Redis(url.to_owned()), OpenOptions { redis, ..OpenOptions::default() });
    let store = match runtime.block_on(locator.open(namespace, &options)) {
        Ok(store) => store,
        Err(error) => {
            println!("SKIPPED: Redis not reachable: {error}");
            return None;
        }
    };
    let connection = runtime
        .block_on(redis::Client::open(url).expect("a Redis URL").get_multiplexed_async_connection())
        .expect("connect");
    Some(Subject {
        group: "store/redis".to_owned(),
        label: "Redis".to_owned(),
        store,
        raw: Some(Raw::Redis(connection, format!("{namespace}:"))),
    })
}

/// Removes what the bench wrote to the services.
fn clean_up(runtime: &Runtime, postgres_url: &str, schema: &str, redis_url: &str, prefix: &str) {
    runtime.block_on(async {
        if let Ok((client, connection)) = tokio_postgres::connect(postgres_url, tokio_postgres::NoTls).await {
            tokio::spawn(connection);
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE")).await;
        }
        let Ok(client) = redis::Client::open(redis_url) else { return };
        let Ok(mut connection) = client.get_multiplexed_async_connection().await else { return };
        let mut cursor = 0u64;
        loop {
            let Ok((next, keys)): redis::RedisResult<(u64, Vec<String>)> = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(format!("{prefix}*"))
                .arg("COUNT")
                .arg(1000)
                .query_async(&mut connection)
                .await
            else {
                return;
            };
            if !keys.is_empty() {
                let _: redis::RedisResult<()> = redis::cmd("UNLINK").arg(keys).query_async(&mut connection).await;
            }
            if next == 0 {
                return;
            }
            cursor = next;
        }
    });
}

// ---- the ratio table --------------------------------------------------------------------------------------

fn ratio_table(results: &[(String, bool, Paired)]) {
    let ratio = |a: &Duration, b: &Duration| a.as_secs_f64() / b.as_secs_f64();
    println!();
    println!("Paired medians per operation (store vs baseline, interleaved):");
    println!();
    println!(
        "| store | baseline write | claim | claim+complete | claim+complete, {IN_FLIGHT} in flight | claim, {IN_FLIGHT} in flight \
         | claim latency / baseline | claim+complete rate / baseline rate: 1 in flight | {IN_FLIGHT} in flight \
         | claim rate / baseline rate, {IN_FLIGHT} in flight |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (label, _, paired) in results {
        let Paired { raw, claim, claim_complete, batched, batched_claims } = paired;
        println!(
            "| {label} | {raw:.1?} | {claim:.1?} | {claim_complete:.1?} | {batched:.1?} | {batched_claims:.1?} \
             | {:.2}× | {:.2}× | {:.2}× | {:.2}× |",
            ratio(claim, raw),
            ratio(raw, claim_complete),
            ratio(raw, batched),
            ratio(raw, batched_claims),
        );
    }
    println!();
    for (label, is_sqlite, paired) in results {
        let Paired { raw, claim, claim_complete, batched, batched_claims } = paired;
        let met = |ok: bool| if ok { "met" } else { "MISSED" };
        if *is_sqlite {
            let (sequential, concurrent, claims) =
                (ratio(raw, claim_complete), ratio(raw, batched), ratio(raw, batched_claims));
            println!(
                "target {label}: store rate ≥ 1.0× raw upsert rate: claim+complete {concurrent:.2}× with \
                 {IN_FLIGHT} in flight ({}), {sequential:.2}× with 1 in flight ({}); claims {claims:.2}× with \
                 {IN_FLIGHT} in flight ({})",
                met(concurrent >= 1.0),
                met(sequential >= 1.0),
                met(claims >= 1.0),
            );
        } else if label.starts_with("PostgreSQL") {
            let latency = ratio(claim, raw);
            println!(
                "target {label}: claim latency ≤ 1.3× raw upsert round trip: {latency:.2}× ({})",
                met(latency <= 1.3)
            );
        }
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let args: Vec<String> = std::env::args().collect();
    // The paired ratio run follows a real bench run, unless CALLPROOF_BENCH_RATIOS=0 (for profiling one bench).
    let benching = args.iter().any(|arg| arg == "--bench")
        && std::env::var("CALLPROOF_BENCH_RATIOS").map_or(true, |value| value != "0");
    let quick = args.iter().any(|arg| arg == "--quick");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let run = format!("{}_{}", std::process::id(), wall_ms() % 1_000_000_000);
    let postgres_url = std::env::var("CALLPROOF_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let redis_url = std::env::var("CALLPROOF_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned());
    let schema = format!("cp_bench_{run}");
    let prefix = format!("{schema}:");
    let dir = std::env::temp_dir().join(format!("callproof_bench_store_{run}"));
    std::fs::create_dir_all(&dir).expect("a temporary directory");

    let mut subjects = vec![Subject {
        group: "store/memory".to_owned(),
        label: "memory".to_owned(),
        store: Arc::new(MemoryStore::new()),
        raw: None,
    }];
    subjects.push(sqlite(&runtime, &dir, Synchronous::Full));
    subjects.push(sqlite(&runtime, &dir, Synchronous::Normal));
    subjects.extend(postgres(&runtime, &postgres_url, &schema, "PostgreSQL", ""));
    subjects.extend(postgres(
        &runtime,
        &postgres_url,
        &schema,
        "PostgreSQL, synchronous_commit=off",
        "-c synchronous_commit=off",
    ));
    subjects.extend(redis(&runtime, &redis_url, &schema));

    for subject in &mut subjects {
        bench_subject(&mut criterion, &runtime, subject);
    }
    criterion.final_summary();

    if benching {
        let mut results = Vec::new();
        for subject in &mut subjects {
            // Each round costs a few milliseconds (tens with synchronous=FULL): keep the paired run short.
            let rounds = match (quick, subject.group.as_str()) {
                (true, _) => 20,
                (false, "store/sqlite_full") => 60,
                (false, _) => 200,
            };
            if let Some(result) = paired(&runtime, subject, rounds) {
                results.push((subject.label.clone(), subject.group.starts_with("store/sqlite"), result));
            }
        }
        ratio_table(&results);
    }
    drop(subjects);
    let _ = std::fs::remove_dir_all(&dir);
    clean_up(&runtime, &postgres_url, &schema, &redis_url, &prefix);
}
