//! One fixture for every store backend: open a fresh, isolated store, reopen it, share it with another
//! process, and clean up after the test.
//!
//! PostgreSQL and Redis come from the machine's services (`CALLPROOF_POSTGRES_URL`, default
//! `postgres://postgres@127.0.0.1:5432/test`; `CALLPROOF_REDIS_URL`, default `redis://127.0.0.1:6379/`). Each
//! fixture gets a fresh PostgreSQL schema or Redis key prefix, removed when the fixture drops. When a service
//! cannot be reached, the test prints a SKIPPED line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1`.
#![allow(dead_code)]

use callproof_executor::idempotency::{NewRecord, Record, State, Update};
use callproof_executor::store::{
    Claim, Locator, OpenError, OpenOptions, Opened, PostgresOptions, RedisOptions, SqliteOptions, Store, StoreExt,
    url_without_password,
};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::io::AsyncBufReadExt;

/// The variable naming the PostgreSQL database.
pub(crate) const POSTGRES_URL_VAR: &str = "CALLPROOF_POSTGRES_URL";
/// The variable naming the Redis server.
pub(crate) const REDIS_URL_VAR: &str = "CALLPROOF_REDIS_URL";
/// Set to 1 to fail instead of skipping when a service is unreachable.
pub(crate) const REQUIRE_VAR: &str = "CALLPROOF_REQUIRE_SERVICES";

/// The PostgreSQL URL in use.
pub(crate) fn postgres_url() -> String {
    std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// The Redis URL in use.
pub(crate) fn redis_url() -> String {
    std::env::var(REDIS_URL_VAR).unwrap_or_else(|_| "redis://127.0.0.1:6379/".to_owned())
}

fn services_required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|value| value == "1")
}

/// A store implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    /// [`MemoryStore`].
    Memory,
    /// [`SqliteStore`] in a temporary file.
    Sqlite,
    /// [`PostgresStore`] in a fresh schema.
    Postgres,
    /// [`RedisStore`] under a fresh prefix.
    Redis,
}

/// Where a store's records live, enough to open it again (here or in another process): a locator and the
/// namespace (PostgreSQL schema, Redis key prefix) inside it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The store.
    pub(crate) locator: Locator,
    /// The fixture's own namespace.
    pub(crate) namespace: String,
}

impl Target {
    /// Opens a store on this target, with the test options (no automatic purge unless `auto_purge`).
    pub(crate) async fn open(&self, auto_purge: bool) -> Result<Opened, OpenError> {
        let purge_every = auto_purge.then_some(Duration::from_secs(3600));
        let timeout = Duration::from_secs(5);
        let options = OpenOptions {
            sqlite: SqliteOptions { purge_every, ..SqliteOptions::default() },
            postgres: PostgresOptions { connections: 2, purge_every, timeout, ..PostgresOptions::default() },
            redis: RedisOptions { timeout, ..RedisOptions::default() },
        };
        self.locator.open_typed(&self.namespace, &options).await
    }

    /// The Redis key prefix of this namespace, as [`Locator::open`] derives it.
    pub(crate) fn prefix(&self) -> String {
        format!("{}:", self.namespace)
    }
}

/// A fresh, isolated store of one backend, removed on drop.
pub(crate) struct Env {
    /// The backend.
    pub(crate) backend: Backend,
    /// Where its records live.
    pub(crate) target: Target,
    opened: Option<Opened>,
    _dir: Option<TempDir>,
}

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A name no other fixture of any process on this machine uses.
pub(crate) fn unique_name(prefix: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    format!("{prefix}_{}_{}_{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed), nanos % 1_000_000_000)
}

impl Env {
    /// A fresh store, or `None` (after a SKIPPED line) when its service cannot be reached.
    ///
    /// # Panics
    /// When the service cannot be reached and `CALLPROOF_REQUIRE_SERVICES=1`.
    pub(crate) async fn open(backend: Backend) -> Option<Env> {
        let (locator, dir) = match backend {
            Backend::Memory => (Locator::Memory, None),
            Backend::Sqlite => {
                let dir = TempDir::new();
                (Locator::Sqlite(dir.path.join("idempotency.sqlite3")), Some(dir))
            }
            Backend::Postgres => (Locator::Postgres(postgres_url()), None),
            Backend::Redis => (Locator::Redis(redis_url()), None),
        };
        let target = Target { locator, namespace: unique_name("cp_test") };
        match target.open(false).await {
            Ok(opened) => Some(Env { backend, target, opened: Some(opened), _dir: dir }),
            Err(OpenError::Backend(error)) if matches!(backend, Backend::Postgres | Backend::Redis) => {
                let (service, url) = match backend {
                    Backend::Postgres => ("PostgreSQL", postgres_url()),
                    _ => ("Redis", redis_url()),
                };
                let url = url_without_password(&url);
                assert!(!services_required(), "{service} not reachable at {url} ({error}) and {REQUIRE_VAR}=1");
                let line = format!(
                    "SKIPPED: {service} not reachable at {url} ({error}) (set {REQUIRE_VAR}=1 to fail instead)"
                );
                // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
                let _ = writeln!(std::io::stderr(), "{line}");
                None
            }
            Err(error) => panic!("cannot open the {backend:?} store: {error}"),
        }
    }

    /// The store.
    pub(crate) fn store(&self) -> Arc<dyn Store> {
        self.opened().store()
    }

    /// The store with its concrete type.
    pub(crate) fn opened(&self) -> &Opened {
        self.opened.as_ref().expect("the store is open")
    }

    /// Whether a second instance (another client, or another process) sees the same records.
    pub(crate) fn is_shared(&self) -> bool {
        self.backend != Backend::Memory
    }

    /// Closes the store and opens the same records again through a new instance.
    pub(crate) async fn reopen(&mut self, auto_purge: bool) {
        self.close().await;
        self.opened = Some(self.target.open(auto_purge).await.expect("the store opens again"));
    }

    /// Closes the store, leaving its records to be changed behind its back.
    pub(crate) async fn close(&mut self) {
        if let Some(opened) = self.opened.take() {
            assert!(opened.close().await, "the test dropped every other handle of the store");
        }
    }

    /// Another instance on the same records (a new client or connection), beside the current one.
    pub(crate) async fn another(&self) -> Opened {
        self.target.open(false).await.expect("a second instance opens")
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        drop(self.opened.take());
        let target = self.target.clone();
        if !matches!(target.locator, Locator::Postgres(_) | Locator::Redis(_)) {
            return;
        }
        // Drop runs inside the test's runtime, which cannot block on async work: clean up on a thread of its own.
        let cleanup = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(remove(&target));
        });
        let _ = cleanup.join();
    }
}

/// Removes everything a target holds.
async fn remove(target: &Target) {
    match &target.locator {
        Locator::Postgres(url) => {
            let client = postgres_client(url).await;
            let drop = format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", target.namespace);
            client.batch_execute(&drop).await.expect("drop schema");
        }
        Locator::Redis(url) => {
            let mut connection = redis_connection(url).await;
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{}*", target.prefix()))
                .query_async(&mut connection)
                .await
                .expect("keys");
            if !keys.is_empty() {
                let _: () = redis::cmd("DEL").arg(keys).query_async(&mut connection).await.expect("del");
            }
        }
        Locator::Memory | Locator::Sqlite(_) => {}
    }
}

/// A plain PostgreSQL client, for checks behind the store's back.
pub(crate) async fn postgres_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.expect("postgres connects");
    tokio::spawn(connection);
    client
}

/// A plain Redis connection, for checks behind the store's back.
pub(crate) async fn redis_connection(url: &str) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(url).expect("a redis url");
    client.get_multiplexed_async_connection().await.expect("redis connects")
}

/// Writes a schema version into a target behind the store's back (to test that a newer one is refused).
pub(crate) async fn set_schema_version(target: &Target, version: i64) {
    match &target.locator {
        Locator::Sqlite(path) => {
            let connection = rusqlite::Connection::open(path).expect("sqlite opens");
            connection.execute("UPDATE schema_version SET version = ?1", [version]).expect("update version");
        }
        Locator::Postgres(url) => {
            let client = postgres_client(url).await;
            let sql = format!("UPDATE \"{}\".schema_version SET version = $1", target.namespace);
            client.execute(&sql, &[&version]).await.expect("update version");
        }
        Locator::Redis(url) => {
            let mut connection = redis_connection(url).await;
            let _: () = redis::cmd("SET")
                .arg(format!("{}schema_version", target.prefix()))
                .arg(version)
                .query_async(&mut connection)
                .await
                .expect("set version");
        }
        Locator::Memory => panic!("a memory store has no schema"),
    }
}

/// The records table as schema version 1 made it: no `format` column.
const FORMAT_ONE_TABLE: &str = "idempotency_records (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, \
     state TEXT NOT NULL, epoch BIGINT NOT NULL, attempts BIGINT NOT NULL, lease_expires_ms BIGINT NOT NULL, \
     deadline_ms BIGINT NOT NULL, outcome TEXT, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL)";

/// Turns a target into a store as a build of schema version 1 left it (records of format 1, no format field),
/// behind the store's back: with one settled record if `with_record`, else empty.
pub(crate) async fn make_format_one(target: &Target, with_record: bool) {
    let row = "('k1', 'fp', 'SUCCEEDED', 2, 1, 0, 0, NULL, 1, 2)";
    match &target.locator {
        Locator::Sqlite(path) => {
            let connection = rusqlite::Connection::open(path).expect("sqlite opens");
            let mut sql = format!(
                "DROP TABLE idempotency_records; CREATE TABLE {FORMAT_ONE_TABLE}; UPDATE schema_version SET version = 1;"
            );
            if with_record {
                sql.push_str(&format!("INSERT INTO idempotency_records VALUES {row};"));
            }
            connection.execute_batch(&sql).expect("write a format-1 store");
        }
        Locator::Postgres(url) => {
            let client = postgres_client(url).await;
            let schema = &target.namespace;
            let mut sql = format!(
                "SET search_path TO \"{schema}\"; DROP TABLE idempotency_records; CREATE TABLE {FORMAT_ONE_TABLE}; \
                 UPDATE schema_version SET version = 1;"
            );
            if with_record {
                sql.push_str(&format!("INSERT INTO idempotency_records VALUES {row};"));
            }
            client.batch_execute(&sql).await.expect("write a format-1 store");
        }
        Locator::Redis(url) => {
            let mut connection = redis_connection(url).await;
            let prefix = target.prefix();
            let keys: Vec<String> =
                redis::cmd("KEYS").arg(format!("{prefix}*")).query_async(&mut connection).await.expect("keys");
            if !keys.is_empty() {
                let _: () = redis::cmd("DEL").arg(keys).query_async(&mut connection).await.expect("del");
            }
            let version = format!("{prefix}schema_version");
            let _: () = redis::cmd("SET").arg(version).arg(1).query_async(&mut connection).await.expect("set");
            if with_record {
                let _: () = redis::cmd("HSET")
                    .arg(format!("{prefix}record:k1"))
                    .arg(&["fingerprint", "fp", "state", "SUCCEEDED", "epoch", "2", "attempts", "1"])
                    .arg(&["lease_expires_ms", "0", "deadline_ms", "0", "created_ms", "1", "updated_ms", "2"])
                    .query_async(&mut connection)
                    .await
                    .expect("hset");
            }
        }
        Locator::Memory => panic!("a memory store has no schema"),
    }
}

/// A temporary directory, removed on drop.
pub(crate) struct TempDir {
    /// Its path.
    pub(crate) path: PathBuf,
}

impl TempDir {
    /// A new empty directory.
    pub(crate) fn new() -> TempDir {
        let path = std::env::temp_dir().join(unique_name("callproof_store"));
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir { path }
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

// ---------------------------------------------------------------------------------------------------------
// Records.

/// The wall-clock time the suite pretends it is; records are far older than any real retention cutoff.
pub(crate) const NOW: u64 = 1_000_000;

/// A claim of `key` at `now_ms`, with a 10 s lease and an 8 s deadline.
pub(crate) fn new_record(key: &str, fingerprint: &str, now_ms: u64) -> NewRecord {
    NewRecord {
        key: key.into(),
        fingerprint: fingerprint.into(),
        lease_expires_ms: now_ms + 10_000,
        deadline_ms: now_ms + 8_000,
        now_ms,
    }
}

/// Claims `key` and returns the record, which must be new.
pub(crate) async fn claimed(store: &dyn Store, key: &str, now_ms: u64) -> Record {
    let claim = store.claim(&new_record(key, "fp", now_ms)).await.expect("claim");
    assert_eq!(claim, Claim::Acquired, "{key} was absent");
    store.load(key).await.expect("load").expect("the claimed record")
}

/// A stored answer that names its state.
pub(crate) fn outcome_for(state: State) -> Option<serde_json::Value> {
    match state {
        State::InProgress | State::Unknown => None,
        settled => Some(json!({"ok": settled == State::Succeeded, "state": settled.as_str(), "note": "é ✓ \"q\""})),
    }
}

/// A record of `key` in `state`, reached along legal arrows from a claim at `now_ms`; updated at `now_ms`.
pub(crate) async fn record_in(store: &dyn Store, key: &str, state: State, now_ms: u64) -> Record {
    let record = claimed(store, key, now_ms).await;
    if state == State::InProgress {
        return record;
    }
    let update = Update::settle(&record, state, outcome_for(state), now_ms);
    assert!(store.advance(key, record.version(), update).await.expect("advance"), "settle {key}");
    let settled = store.load(key).await.expect("load").expect("the settled record");
    assert_eq!(settled.state, state);
    settled
}

/// The record `update` makes of `record`.
pub(crate) fn applied(record: &Record, update: Update) -> Record {
    let mut expected = record.clone();
    update.apply_to(&mut expected);
    expected
}

// ---------------------------------------------------------------------------------------------------------
// Child processes: this test binary again, running one `#[test]` that does nothing without its variables.

/// The variable holding a child's namespace (its locator goes in a variable of the child's own).
pub(crate) const CHILD_NAMESPACE: &str = "CALLPROOF_STORE_CHILD_NAMESPACE";
/// The variable holding a child's name.
pub(crate) const CHILD_NAME: &str = "CALLPROOF_STORE_CHILD_NAME";

/// The runtime a child runs its work on.
pub(crate) fn child_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime")
}

/// A child's stdout, by line.
pub(crate) type ChildLines = tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>;

/// The store a child opens: from its variables, `None` when `locator_var` is unset (a normal test run).
pub(crate) fn child_target(locator_var: &str) -> Option<Target> {
    let locator: Locator = std::env::var(locator_var).ok()?.parse().expect("a locator");
    Some(Target { locator, namespace: std::env::var(CHILD_NAMESPACE).expect("a namespace") })
}

/// Starts this test binary as a child running `test` on `env`'s store (its locator in `locator_var`) and
/// waits until it prints `ready`.
pub(crate) async fn spawn_child(
    env: &Env,
    test: &str,
    locator_var: &str,
    name: &str,
    ready: &str,
) -> (tokio::process::Child, ChildLines) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = tokio::process::Command::new(&exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(locator_var, env.target.locator.unredacted())
        .env(CHILD_NAMESPACE, &env.target.namespace)
        .env(CHILD_NAME, name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn a child");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    while let Some(line) = lines.next_line().await.expect("read") {
        // The harness prints the test's name without a line break just before.
        if line.ends_with(ready) {
            return (child, lines);
        }
    }
    panic!("child {name} ended before it printed {ready}");
}
