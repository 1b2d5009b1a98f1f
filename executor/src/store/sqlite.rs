//! The SQLite store: one database file in WAL mode, owned by one dedicated thread.
//!
//! Rule enforced here: every transition is one conditional statement run by SQLite (`INSERT ... ON CONFLICT
//! DO NOTHING` for a claim, `UPDATE ... WHERE key = ? AND state = ? AND epoch = ?` for a compare-and-set),
//! never a read-then-write in Rust; requests that arrive together share one transaction (group commit), and
//! no caller hears an answer before the transaction holding it has committed. The async runtime never
//! blocks: callers hand requests to the thread and await a reply.

use super::durable::{
    DEFAULT_PURGE_EVERY, DEFAULT_RETENTION, OpenError, PurgeFailures, PurgeLog, SCHEMA_VERSION, check_format,
    cutoff_sql, expiring_states_sql, from_sql, to_sql,
};
use super::{Claim, Store, StoreError};
use crate::idempotency::{NewRecord, RECORD_FORMAT, Record, State, Update, Version};
use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::oneshot;

/// When a commit waits for the disk (SQLite's `synchronous` pragma, in WAL mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// `synchronous=NORMAL`: a committed record survives the process dying (SIGKILL, panic, OOM kill), but
    /// the last commits before a power loss or kernel crash may be lost, and with them the knowledge that a
    /// side effect was started.
    Normal,
    /// `synchronous=FULL`, the default: every commit is on disk before the caller hears of it, so a record
    /// also survives a power loss. Group commit shares the cost between concurrent requests.
    #[default]
    Full,
}

impl Synchronous {
    const fn pragma(self) -> &'static str {
        match self {
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        }
    }
}

/// How a [`SqliteStore`] behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqliteOptions {
    /// Durability of a commit. Default [`Synchronous::Full`].
    pub synchronous: Synchronous,
    /// How long settled records are kept. Default [`DEFAULT_RETENTION`] (7 days).
    pub retention: Duration,
    /// How often the store purges records older than `retention` by itself, starting right after opening;
    /// `None` leaves purging to [`Store::purge_expired`]. Default hourly.
    pub purge_every: Option<Duration>,
    /// How long to wait for another process holding the write lock. Default 5 s.
    pub busy_timeout: Duration,
    /// Most requests grouped into one transaction. Default 256.
    pub max_batch: usize,
}

impl Default for SqliteOptions {
    fn default() -> SqliteOptions {
        SqliteOptions {
            synchronous: Synchronous::Full,
            retention: DEFAULT_RETENTION,
            purge_every: Some(DEFAULT_PURGE_EVERY),
            busy_timeout: Duration::from_secs(5),
            max_batch: 256,
        }
    }
}

/// A [`Store`] in one SQLite file, durable across restarts and shareable by processes on one machine.
#[derive(Debug)]
pub struct SqliteStore {
    jobs: mpsc::Sender<Job>,
    thread: Option<JoinHandle<()>>,
    path: PathBuf,
    retention: Duration,
    purges: Arc<PurgeLog>,
}

impl SqliteStore {
    /// Opens (creating if needed) the store in the file at `path`, and creates or checks its schema.
    ///
    /// # Errors
    /// [`OpenError::NewerSchema`] when a newer build wrote the file, [`OpenError::Backend`] when it cannot be
    /// opened.
    pub async fn open(path: impl AsRef<Path>, options: SqliteOptions) -> Result<SqliteStore, OpenError> {
        let path = path.as_ref().to_path_buf();
        let retention = options.retention;
        let (jobs, inbox) = mpsc::channel();
        let (ready, opened) = oneshot::channel();
        let thread_path = path.clone();
        let purges = Arc::new(PurgeLog::default());
        let worker_purges = purges.clone();
        let thread = std::thread::Builder::new()
            .name("callproof-sqlite".to_owned())
            .spawn(move || match open_connection(&thread_path, &options) {
                Ok(connection) => {
                    if ready.send(Ok(())).is_ok() {
                        Worker::new(connection, inbox, &options, worker_purges).run();
                    }
                }
                Err(error) => {
                    let _ = ready.send(Err(error));
                }
            })
            .map_err(|error| OpenError::Backend(format!("cannot start the SQLite thread: {error}")))?;
        match opened.await {
            Ok(Ok(())) => Ok(SqliteStore { jobs, thread: Some(thread), path, retention, purges }),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(OpenError::Backend("the SQLite thread stopped while opening".to_owned())),
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How long settled records are kept.
    pub fn retention(&self) -> Duration {
        self.retention
    }

    /// The automatic purge rounds that failed so far, with the last cause.
    pub fn purge_failures(&self) -> PurgeFailures {
        self.purges.failures()
    }

    /// Finishes every request already made, then closes the database. Dropping the store does the same
    /// without waiting.
    pub async fn close(mut self) {
        let thread = self.thread.take();
        drop(self);
        if let Some(thread) = thread {
            let _ = tokio::task::spawn_blocking(move || thread.join()).await;
        }
    }

    async fn call(&self, op: Op) -> Result<Answer, StoreError> {
        let (reply, answer) = oneshot::channel();
        self.jobs.send(Job { op, reply }).map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        match self.call(Op::Claim(new.clone())).await? {
            Answer::Claim(claim) => Ok(claim),
            other => Err(mismatch(&other)),
        }
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        match self.call(Op::CompareAndSet { key: key.to_owned(), expected, update }).await? {
            Answer::Set(set) => Ok(set),
            other => Err(mismatch(&other)),
        }
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        match self.call(Op::Load(key.to_owned())).await? {
            Answer::Record(record) => Ok(record),
            other => Err(mismatch(&other)),
        }
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        match self.call(Op::Purge(updated_before_ms)).await? {
            Answer::Purged(purged) => Ok(purged),
            other => Err(mismatch(&other)),
        }
    }
}

fn gone() -> StoreError {
    StoreError::Backend("the SQLite thread has stopped".to_owned())
}

fn mismatch(answer: &Answer) -> StoreError {
    StoreError::Backend(format!("the SQLite thread answered the wrong request: {answer:?}"))
}

fn backend(error: rusqlite::Error) -> StoreError {
    StoreError::Backend(format!("sqlite: {error}"))
}

// ---------------------------------------------------------------------------------------------------------
// The thread.

#[derive(Debug)]
enum Op {
    Claim(NewRecord),
    CompareAndSet { key: String, expected: Version, update: Update },
    Load(String),
    Purge(u64),
}

#[derive(Debug)]
enum Answer {
    Claim(Claim),
    Set(bool),
    Record(Option<Record>),
    Purged(u64),
}

/// Why a transaction failed: taking the write lock, or a statement (or the commit) inside it.
enum Failed {
    Begin(StoreError),
    Statement(StoreError),
}

impl Failed {
    fn into_error(self) -> StoreError {
        match self {
            Failed::Begin(error) | Failed::Statement(error) => error,
        }
    }
}

struct Job {
    op: Op,
    reply: oneshot::Sender<Result<Answer, StoreError>>,
}

const COLUMNS: &str =
    "key, fingerprint, state, epoch, attempts, lease_expires_ms, deadline_ms, outcome, created_ms, updated_ms, format";
const CLAIM: &str = "INSERT INTO idempotency_records \
     (key, fingerprint, state, epoch, attempts, lease_expires_ms, deadline_ms, outcome, created_ms, updated_ms, \
     format) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (key) DO NOTHING";
const COMPARE_AND_SET: &str = "UPDATE idempotency_records SET state = ?4, epoch = ?5, attempts = ?6, \
     lease_expires_ms = ?7, deadline_ms = ?8, outcome = ?9, updated_ms = ?10 \
     WHERE key = ?1 AND state = ?2 AND epoch = ?3";
/// Rows deleted per purge transaction, so that a large purge does not hold the write lock for long.
const PURGE_CHUNK: u64 = 1000;

struct Worker {
    connection: Connection,
    inbox: mpsc::Receiver<Job>,
    max_batch: usize,
    retention: Duration,
    purge_every: Option<Duration>,
    select: String,
    purge: String,
    purges: Arc<PurgeLog>,
}

impl Worker {
    fn new(
        connection: Connection,
        inbox: mpsc::Receiver<Job>,
        options: &SqliteOptions,
        purges: Arc<PurgeLog>,
    ) -> Worker {
        let expiring = expiring_states_sql();
        Worker {
            connection,
            inbox,
            max_batch: options.max_batch.max(1),
            retention: options.retention,
            purge_every: options.purge_every,
            select: format!("SELECT {COLUMNS} FROM idempotency_records WHERE key = ?1"),
            // The state and age are checked again on the row being deleted, not only in the subquery.
            purge: format!(
                "DELETE FROM idempotency_records WHERE key IN (SELECT key FROM idempotency_records \
                 WHERE state IN ({expiring}) AND updated_ms < ?1 LIMIT {PURGE_CHUNK}) \
                 AND state IN ({expiring}) AND updated_ms < ?1"
            ),
            purges,
        }
    }

    fn run(mut self) {
        let mut next_purge = self.purge_every.map(|_| Instant::now());
        loop {
            if let (Some(at), Some(every)) = (next_purge, self.purge_every)
                && at <= Instant::now()
            {
                // Automatic retention; a failure is retried at the next round.
                let round = self.purge(wall_ms().saturating_sub(self.retention.as_millis() as u64));
                self.purges.note(round);
                next_purge = Some(Instant::now() + every);
            }
            let first = match next_purge {
                None => match self.inbox.recv() {
                    Ok(job) => job,
                    Err(_) => return,
                },
                Some(at) => match self.inbox.recv_timeout(at.saturating_duration_since(Instant::now())) {
                    Ok(job) => job,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
            };
            let mut batch = vec![first];
            while batch.len() < self.max_batch {
                match self.inbox.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            self.run_batch(batch);
        }
    }

    fn run_batch(&mut self, batch: Vec<Job>) {
        let (purges, batch): (Vec<Job>, Vec<Job>) = batch.into_iter().partition(|job| matches!(job.op, Op::Purge(_)));
        if !batch.is_empty() {
            match self.in_transaction(&batch) {
                Ok(answers) => {
                    for (job, answer) in batch.into_iter().zip(answers) {
                        let _ = job.reply.send(Ok(answer));
                    }
                }
                // One request's failure must not fail the others: run each in its own transaction.
                Err(Failed::Statement(_)) if batch.len() > 1 => {
                    for job in batch {
                        let answer = self.in_transaction(std::slice::from_ref(&job));
                        let _ = job.reply.send(answer.map(|mut answers| answers.remove(0)).map_err(Failed::into_error));
                    }
                }
                // The database could not be locked (another process held it past the busy timeout): trying
                // each request alone would only wait that long again.
                Err(failed) => {
                    let message = failed.into_error().to_string();
                    for job in batch {
                        let _ = job.reply.send(Err(StoreError::Backend(message.clone())));
                    }
                }
            }
        }
        for job in purges {
            let Op::Purge(cutoff) = job.op else { continue };
            let _ = job.reply.send(self.purge(cutoff).map(Answer::Purged));
        }
    }

    /// Runs `jobs` in one transaction and returns their answers once it has committed.
    fn in_transaction(&mut self, jobs: &[Job]) -> Result<Vec<Answer>, Failed> {
        let writes = jobs.iter().any(|job| !matches!(job.op, Op::Load(_)));
        let behavior = if writes { TransactionBehavior::Immediate } else { TransactionBehavior::Deferred };
        let transaction =
            self.connection.transaction_with_behavior(behavior).map_err(|error| Failed::Begin(backend(error)))?;
        let mut answers = Vec::with_capacity(jobs.len());
        for job in jobs {
            answers.push(execute(&transaction, &self.select, &job.op).map_err(Failed::Statement)?);
        }
        transaction.commit().map_err(|error| Failed::Statement(backend(error)))?;
        Ok(answers)
    }

    fn purge(&mut self, updated_before_ms: u64) -> Result<u64, StoreError> {
        let mut purged = 0;
        loop {
            let transaction =
                self.connection.transaction_with_behavior(TransactionBehavior::Immediate).map_err(backend)?;
            let deleted = transaction
                .prepare_cached(&self.purge)
                .and_then(|mut statement| statement.execute(params![cutoff_sql(updated_before_ms)]))
                .map_err(backend)? as u64;
            transaction.commit().map_err(backend)?;
            purged += deleted;
            if deleted < PURGE_CHUNK {
                return Ok(purged);
            }
        }
    }
}

fn execute(connection: &Connection, select: &str, op: &Op) -> Result<Answer, StoreError> {
    match op {
        Op::Claim(new) => {
            let record = new.clone().into_record();
            let inserted = connection
                .prepare_cached(CLAIM)
                .and_then(|mut statement| {
                    statement.execute(params![
                        record.key,
                        record.fingerprint,
                        record.state.as_str(),
                        to_sql(record.epoch),
                        record.attempts,
                        to_sql(record.lease_expires_ms),
                        to_sql(record.deadline_ms),
                        outcome_text(record.outcome.as_ref())?,
                        to_sql(record.created_ms),
                        to_sql(record.updated_ms),
                        RECORD_FORMAT,
                    ])
                })
                .map_err(backend)?;
            if inserted == 1 {
                return Ok(Answer::Claim(Claim::Acquired));
            }
            // Same transaction, same writer: the conflicting record is still there.
            match load(connection, select, &new.key)? {
                Some(existing) => Ok(Answer::Claim(Claim::Existing(existing))),
                None => Err(StoreError::Backend("sqlite: a conflicting record vanished".to_owned())),
            }
        }
        Op::CompareAndSet { key, expected, update } => {
            let changed = connection
                .prepare_cached(COMPARE_AND_SET)
                .and_then(|mut statement| {
                    statement.execute(params![
                        key,
                        expected.state.as_str(),
                        to_sql(expected.epoch),
                        update.state.as_str(),
                        to_sql(update.epoch),
                        update.attempts,
                        to_sql(update.lease_expires_ms),
                        to_sql(update.deadline_ms),
                        outcome_text(update.outcome.as_ref())?,
                        to_sql(update.now_ms),
                    ])
                })
                .map_err(backend)?;
            Ok(Answer::Set(changed == 1))
        }
        Op::Load(key) => load(connection, select, key).map(Answer::Record),
        Op::Purge(_) => Err(StoreError::Backend("sqlite: a purge inside a batch".to_owned())),
    }
}

fn load(connection: &Connection, select: &str, key: &str) -> Result<Option<Record>, StoreError> {
    connection
        .prepare_cached(select)
        .and_then(|mut statement| statement.query_row(params![key], record_from_row).optional())
        .map_err(backend)
}

fn record_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Record> {
    let invalid = |index: usize, message: String| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, message.into())
    };
    let key: String = row.get(0)?;
    check_format("sqlite", &key, row.get(10)?).map_err(|error| invalid(10, error.to_string()))?;
    let state: String = row.get(2)?;
    let state = State::parse(&state).ok_or_else(|| invalid(2, format!("unknown state {state:?}")))?;
    let outcome: Option<String> = row.get(7)?;
    let outcome = outcome
        .map(|text| serde_json::from_str(&text))
        .transpose()
        .map_err(|error| invalid(7, format!("stored outcome is not JSON: {error}")))?;
    Ok(Record {
        key: key.into(),
        fingerprint: row.get::<_, String>(1)?.into(),
        state,
        epoch: from_sql(row.get(3)?),
        attempts: row.get(4)?,
        lease_expires_ms: from_sql(row.get(5)?),
        deadline_ms: from_sql(row.get(6)?),
        outcome,
        created_ms: from_sql(row.get(8)?),
        updated_ms: from_sql(row.get(9)?),
    })
}

fn outcome_text(outcome: Option<&serde_json::Value>) -> rusqlite::Result<Option<String>> {
    outcome
        .map(serde_json::to_string)
        .transpose()
        .map_err(|error| rusqlite::Error::ToSqlConversionFailure(error.into()))
}

fn wall_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

// ---------------------------------------------------------------------------------------------------------
// Opening and the schema.

fn open_connection(path: &Path, options: &SqliteOptions) -> Result<Connection, OpenError> {
    let failed = |error: rusqlite::Error| OpenError::Backend(format!("sqlite: {error}"));
    let mut connection = Connection::open(path).map_err(failed)?;
    connection.busy_timeout(options.busy_timeout).map_err(failed)?;
    let mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(failed)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(OpenError::Backend(format!("sqlite: WAL mode refused (journal_mode is {mode})")));
    }
    connection.pragma_update(None, "synchronous", options.synchronous.pragma()).map_err(failed)?;
    migrate(&mut connection)?;
    Ok(connection)
}

/// Creates the schema in an empty database, accepts the current version, upgrades an older one that holds no
/// records, refuses an older one with records and a newer one.
fn migrate(connection: &mut Connection) -> Result<(), OpenError> {
    let failed = |error: rusqlite::Error| OpenError::Backend(format!("sqlite: {error}"));
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate).map_err(failed)?;
    transaction
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_version (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                version INTEGER NOT NULL
            )",
        )
        .map_err(failed)?;
    let found: Option<i64> = transaction
        .query_row("SELECT version FROM schema_version WHERE id = 1", [], |row| row.get(0))
        .optional()
        .map_err(failed)?;
    match found {
        Some(found) if found > SCHEMA_VERSION => {
            return Err(OpenError::NewerSchema { found, supported: SCHEMA_VERSION });
        }
        Some(SCHEMA_VERSION) => {}
        Some(found) => {
            // The write lock is held: no writer of the older build can add a record before the table goes.
            let held: bool = transaction
                .query_row("SELECT EXISTS (SELECT 1 FROM idempotency_records)", [], |row| row.get(0))
                .map_err(failed)?;
            if held {
                return Err(OpenError::OlderRecords { found, format: RECORD_FORMAT });
            }
            transaction.execute_batch("DROP TABLE idempotency_records; DELETE FROM schema_version;").map_err(failed)?;
            create_schema(&transaction)?;
        }
        None => create_schema(&transaction)?,
    }
    transaction.commit().map_err(failed)
}

/// The tables of [`SCHEMA_VERSION`], in a database that has none.
fn create_schema(connection: &Connection) -> Result<(), OpenError> {
    let states = State::ALL.map(|state| format!("'{state}'")).join(", ");
    let expiring = expiring_states_sql();
    connection
        .execute_batch(&format!(
            "CREATE TABLE idempotency_records (
                key TEXT PRIMARY KEY NOT NULL,
                fingerprint TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ({states})),
                epoch INTEGER NOT NULL,
                attempts INTEGER NOT NULL,
                lease_expires_ms INTEGER NOT NULL,
                deadline_ms INTEGER NOT NULL,
                outcome TEXT,
                created_ms INTEGER NOT NULL,
                updated_ms INTEGER NOT NULL,
                format INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX idempotency_records_expiry ON idempotency_records (updated_ms)
                WHERE state IN ({expiring});
            INSERT INTO schema_version (id, version) VALUES (1, {SCHEMA_VERSION});"
        ))
        .map_err(|error| OpenError::Backend(format!("sqlite: {error}")))
}
