//! The PostgreSQL store: records shared by every executor replica that points at one database schema.
//!
//! Rule enforced here: every transition is one conditional statement run by PostgreSQL (a claim is an
//! `INSERT ... ON CONFLICT DO NOTHING`, followed only when the key is taken by a read of the record that holds
//! it; a compare-and-set is an `UPDATE ... WHERE key = $1 AND state = $2 AND epoch = $3`), never a
//! read-then-write in Rust. Statements are prepared once per connection; a few pipelined connections serve
//! all callers.

use super::durable::{
    DEFAULT_PURGE_EVERY, DEFAULT_RETENTION, OpenError, PurgeFailures, PurgeLog, SCHEMA_VERSION, check_format,
    cutoff_sql, expiring_states_sql, from_sql, to_sql,
};
use super::{Claim, Store, StoreError};
use crate::idempotency::{NewRecord, RECORD_FORMAT, Record, State, Update, Version};
use async_trait::async_trait;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;
use tokio_postgres::{Client, NoTls, Row, Statement};

/// How a [`PostgresStore`] behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    /// The database schema holding the tables; created if absent. Lowercase letters, digits and `_`,
    /// starting with a letter or `_`, at most 63 bytes. Default `callproof`.
    pub schema: String,
    /// Connections kept open. Each one pipelines concurrent statements. Default 4.
    pub connections: usize,
    /// How long settled records are kept. Default [`DEFAULT_RETENTION`] (7 days).
    pub retention: Duration,
    /// How often this store purges records older than `retention` by itself, starting right after
    /// connecting; `None` leaves purging to [`Store::purge_expired`]. Default hourly.
    pub purge_every: Option<Duration>,
    /// How long one statement may take, connecting included, before the call fails. Default 10 s.
    pub timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> PostgresOptions {
        PostgresOptions {
            schema: "callproof".to_owned(),
            connections: 4,
            retention: DEFAULT_RETENTION,
            purge_every: Some(DEFAULT_PURGE_EVERY),
            timeout: Duration::from_secs(10),
        }
    }
}

/// A [`Store`] in PostgreSQL, shared by executor replicas.
pub struct PostgresStore {
    inner: Arc<Inner>,
    purger: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("schema", &self.inner.schema).finish_non_exhaustive()
    }
}

struct Inner {
    config: tokio_postgres::Config,
    schema: String,
    sql: Sql,
    timeout: Duration,
    sessions: Vec<Slot>,
    next: AtomicUsize,
    purges: PurgeLog,
}

/// One connection's place: read without waiting; replaced by one caller at a time when it closed.
#[derive(Default)]
struct Slot {
    session: std::sync::Mutex<Option<Arc<Session>>>,
    reconnecting: Mutex<()>,
}

impl Slot {
    fn live(&self) -> Option<Arc<Session>> {
        let session = self.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        session.as_ref().filter(|session| !session.client.is_closed()).cloned()
    }
}

/// One connection and its prepared statements.
struct Session {
    client: Client,
    claim: Statement,
    compare_and_set: Statement,
    load: Statement,
    purge: Statement,
}

/// The statements, with the schema spliced in (it was validated as a plain identifier).
struct Sql {
    claim: String,
    compare_and_set: String,
    load: String,
    purge: String,
}

const COLUMNS: &str =
    "key, fingerprint, state, epoch, attempts, lease_expires_ms, deadline_ms, outcome, created_ms, updated_ms, format";
/// Rows deleted per purge statement, so that a large purge holds few locks at a time.
const PURGE_CHUNK: u64 = 1000;
/// How often a claim retries when the conflicting record vanished before it could be read.
const CLAIM_TRIES: usize = 16;

impl Sql {
    fn new(schema: &str) -> Sql {
        let table = format!("\"{schema}\".idempotency_records");
        let expiring = expiring_states_sql();
        Sql {
            // The common case, a new key, costs exactly one insert round trip.
            claim: format!(
                "INSERT INTO {table} ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                 ON CONFLICT (key) DO NOTHING
                 RETURNING 1"
            ),
            compare_and_set: format!(
                "UPDATE {table} SET state = $4, epoch = $5, attempts = $6, lease_expires_ms = $7, deadline_ms = $8,
                    outcome = $9, updated_ms = $10
                 WHERE key = $1 AND state = $2 AND epoch = $3"
            ),
            load: format!("SELECT {COLUMNS} FROM {table} WHERE key = $1"),
            // The state and age are checked again on the row being deleted (READ COMMITTED re-evaluates the
            // WHERE clause on a row a concurrent retry just moved back to IN_PROGRESS).
            purge: format!(
                "DELETE FROM {table} WHERE key IN (SELECT key FROM {table}
                    WHERE state IN ({expiring}) AND updated_ms < $1 LIMIT {PURGE_CHUNK})
                 AND state IN ({expiring}) AND updated_ms < $1"
            ),
        }
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (a `postgres://` URL or a key=value string), and creates or checks
    /// the schema.
    ///
    /// # Errors
    /// [`OpenError::Config`] for an invalid URL or schema name, [`OpenError::NewerSchema`] when a newer build
    /// wrote the schema, [`OpenError::Backend`] when the database cannot be reached.
    pub async fn connect(url: &str, options: PostgresOptions) -> Result<PostgresStore, OpenError> {
        if !valid_schema_name(&options.schema) {
            return Err(OpenError::Config(format!(
                "schema {:?} must be 1 to 63 lowercase letters, digits or '_', not starting with a digit",
                options.schema
            )));
        }
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|error| OpenError::Config(format!("invalid PostgreSQL URL: {error}")))?;
        config.connect_timeout(options.timeout);
        let failed = |error: tokio_postgres::Error| OpenError::Backend(format!("postgres: {error}"));

        let (mut client, connection) = config.connect(NoTls).await.map_err(failed)?;
        tokio::spawn(connection);
        migrate(&mut client, &options.schema).await?;
        let sql = Sql::new(&options.schema);
        let first = Session::prepare(client, &sql).await.map_err(failed)?;
        let sessions: Vec<Slot> = (0..options.connections.max(1)).map(|_| Slot::default()).collect();
        *sessions[0].session.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(first);
        let inner = Arc::new(Inner {
            config,
            schema: options.schema.clone(),
            sql,
            timeout: options.timeout,
            sessions,
            next: AtomicUsize::new(0),
            purges: PurgeLog::default(),
        });
        let retention = options.retention.as_millis() as u64;
        if options.purge_every.is_some() {
            // Automatic retention, once now and then in the background; a failure waits for the next round.
            inner.purges.note(inner.purge(wall_ms().saturating_sub(retention)).await);
        }
        let purger = options.purge_every.map(|every| {
            let inner = Arc::downgrade(&inner);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(every).await;
                    let Some(store) = inner.upgrade() else { return };
                    store.purges.note(store.purge(wall_ms().saturating_sub(retention)).await);
                }
            })
        });
        Ok(PostgresStore { inner, purger })
    }

    /// The database schema holding the tables.
    pub fn schema(&self) -> &str {
        &self.inner.schema
    }

    /// The automatic purge rounds that failed so far, with the last cause.
    pub fn purge_failures(&self) -> PurgeFailures {
        self.inner.purges.failures()
    }
}

impl Drop for PostgresStore {
    fn drop(&mut self) {
        if let Some(purger) = self.purger.take() {
            purger.abort();
        }
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        let record = new.clone().into_record();
        let outcome = outcome_text(record.outcome.as_ref())?;
        for _ in 0..CLAIM_TRIES {
            let session = self.inner.session().await?;
            let inserted = self
                .inner
                .bounded(session.client.query_opt(
                    &session.claim,
                    &[
                        &&*record.key,
                        &&*record.fingerprint,
                        &record.state.as_str(),
                        &to_sql(record.epoch),
                        &i64::from(record.attempts),
                        &to_sql(record.lease_expires_ms),
                        &to_sql(record.deadline_ms),
                        &outcome,
                        &to_sql(record.created_ms),
                        &to_sql(record.updated_ms),
                        &RECORD_FORMAT,
                    ],
                ))
                .await?;
            if inserted.is_some() {
                return Ok(Claim::Acquired);
            }
            // The key is taken. A new statement sees the conflicting record, unless retention deleted it in
            // between (only a settled one can be): then the key is ABSENT again and the insert is retried.
            let existing = self.inner.bounded(session.client.query_opt(&session.load, &[&&*record.key])).await?;
            if let Some(row) = existing {
                return record_from_row(&row).map(Claim::Existing);
            }
        }
        Err(StoreError::Backend("postgres: a key kept appearing and disappearing during a claim".to_owned()))
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        let session = self.inner.session().await?;
        let outcome = outcome_text(update.outcome.as_ref())?;
        let changed = self
            .inner
            .bounded(session.client.execute(
                &session.compare_and_set,
                &[
                    &key,
                    &expected.state.as_str(),
                    &to_sql(expected.epoch),
                    &update.state.as_str(),
                    &to_sql(update.epoch),
                    &i64::from(update.attempts),
                    &to_sql(update.lease_expires_ms),
                    &to_sql(update.deadline_ms),
                    &outcome,
                    &to_sql(update.now_ms),
                ],
            ))
            .await?;
        Ok(changed == 1)
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        let session = self.inner.session().await?;
        let row = self.inner.bounded(session.client.query_opt(&session.load, &[&key])).await?;
        row.map(|row| record_from_row(&row)).transpose()
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        self.inner.purge(updated_before_ms).await
    }
}

impl Inner {
    /// A live session, round robin; a closed (or not yet opened) connection is replaced on the way.
    async fn session(&self) -> Result<Arc<Session>, StoreError> {
        let slot = &self.sessions[self.next.fetch_add(1, Ordering::Relaxed) % self.sessions.len()];
        if let Some(session) = slot.live() {
            return Ok(session);
        }
        let _reconnecting = slot.reconnecting.lock().await;
        if let Some(session) = slot.live() {
            return Ok(session);
        }
        let connect = async {
            let (client, connection) = self.config.connect(NoTls).await?;
            tokio::spawn(connection);
            Session::prepare(client, &self.sql).await
        };
        let session = self.bounded(connect).await?;
        *slot.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::clone(&session));
        Ok(session)
    }

    async fn bounded<T>(&self, work: impl Future<Output = Result<T, tokio_postgres::Error>>) -> Result<T, StoreError> {
        match tokio::time::timeout(self.timeout, work).await {
            Ok(result) => result.map_err(backend),
            Err(_) => Err(StoreError::Backend(format!("postgres: no answer within {:?}", self.timeout))),
        }
    }

    async fn purge(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        let mut purged = 0;
        loop {
            let session = self.session().await?;
            let deleted =
                self.bounded(session.client.execute(&session.purge, &[&cutoff_sql(updated_before_ms)])).await?;
            purged += deleted;
            if deleted < PURGE_CHUNK {
                return Ok(purged);
            }
        }
    }
}

impl Session {
    async fn prepare(client: Client, sql: &Sql) -> Result<Arc<Session>, tokio_postgres::Error> {
        let (claim, compare_and_set, load, purge) = futures::try_join!(
            client.prepare(&sql.claim),
            client.prepare(&sql.compare_and_set),
            client.prepare(&sql.load),
            client.prepare(&sql.purge),
        )?;
        Ok(Arc::new(Session { client, claim, compare_and_set, load, purge }))
    }
}

/// Creates the schema and tables in an empty schema, accepts the current version, upgrades an older one that
/// holds no records, refuses an older one with records and a newer one. Serialized between concurrent openers
/// by a transaction-scoped advisory lock.
async fn migrate(client: &mut Client, schema: &str) -> Result<(), OpenError> {
    let failed = |error: tokio_postgres::Error| OpenError::Backend(format!("postgres: {error}"));
    let transaction = client.transaction().await.map_err(failed)?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&advisory_lock_id(schema)]).await.map_err(failed)?;
    transaction
        .batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS \"{schema}\";
             CREATE TABLE IF NOT EXISTS \"{schema}\".schema_version (
                 id INTEGER PRIMARY KEY CHECK (id = 1),
                 version BIGINT NOT NULL
             );"
        ))
        .await
        .map_err(failed)?;
    let found = transaction
        .query_opt(&format!("SELECT version FROM \"{schema}\".schema_version WHERE id = 1"), &[])
        .await
        .map_err(failed)?
        .map(|row| row.try_get::<_, i64>(0))
        .transpose()
        .map_err(failed)?;
    match found {
        Some(found) if found > SCHEMA_VERSION => {
            return Err(OpenError::NewerSchema { found, supported: SCHEMA_VERSION });
        }
        Some(SCHEMA_VERSION) => {}
        Some(found) => {
            // Locked first, so that a running executor of the older build cannot add a record in between.
            let table = format!("\"{schema}\".idempotency_records");
            transaction.batch_execute(&format!("LOCK TABLE {table} IN EXCLUSIVE MODE")).await.map_err(failed)?;
            let held =
                transaction.query_opt(&format!("SELECT 1 FROM {table} LIMIT 1"), &[]).await.map_err(failed)?.is_some();
            if held {
                return Err(OpenError::OlderRecords { found, format: RECORD_FORMAT });
            }
            transaction
                .batch_execute(&format!("DROP TABLE {table}; DELETE FROM \"{schema}\".schema_version;"))
                .await
                .map_err(failed)?;
            create_schema(&transaction, schema).await?;
        }
        None => create_schema(&transaction, schema).await?,
    }
    transaction.commit().await.map_err(failed)
}

/// The tables of [`SCHEMA_VERSION`], in a schema that has none.
async fn create_schema(transaction: &tokio_postgres::Transaction<'_>, schema: &str) -> Result<(), OpenError> {
    let states = State::ALL.map(|state| format!("'{state}'")).join(", ");
    let expiring = expiring_states_sql();
    transaction
        .batch_execute(&format!(
            "CREATE TABLE \"{schema}\".idempotency_records (
                key TEXT PRIMARY KEY,
                fingerprint TEXT NOT NULL,
                state TEXT NOT NULL CHECK (state IN ({states})),
                epoch BIGINT NOT NULL,
                attempts BIGINT NOT NULL,
                lease_expires_ms BIGINT NOT NULL,
                deadline_ms BIGINT NOT NULL,
                outcome TEXT,
                created_ms BIGINT NOT NULL,
                updated_ms BIGINT NOT NULL,
                format BIGINT NOT NULL
            );
            CREATE INDEX idempotency_records_expiry ON \"{schema}\".idempotency_records (updated_ms)
                WHERE state IN ({expiring});
            INSERT INTO \"{schema}\".schema_version (id, version) VALUES (1, {SCHEMA_VERSION});"
        ))
        .await
        .map_err(|error| OpenError::Backend(format!("postgres: {error}")))
}

fn valid_schema_name(schema: &str) -> bool {
    let mut bytes = schema.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'_'))
        && schema.len() <= 63
        && bytes.all(|byte| matches!(byte, b'a'..=b'z' | b'0'..=b'9' | b'_'))
}

/// A stable 64-bit id for the advisory lock of one schema's migration (FNV-1a).
fn advisory_lock_id(schema: &str) -> i64 {
    let hash = format!("callproof:{schema}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3));
    hash as i64
}

fn record_from_row(row: &Row) -> Result<Record, StoreError> {
    let key: String = row.try_get(0).map_err(backend)?;
    check_format("postgres", &key, row.try_get(10).map_err(backend)?)?;
    let state: String = row.try_get(2).map_err(backend)?;
    let state =
        State::parse(&state).ok_or_else(|| StoreError::Backend(format!("postgres: unknown stored state {state:?}")))?;
    let attempts: i64 = row.try_get(4).map_err(backend)?;
    let outcome: Option<String> = row.try_get(7).map_err(backend)?;
    Ok(Record {
        key: key.into(),
        fingerprint: row.try_get::<_, String>(1).map_err(backend)?.into(),
        state,
        epoch: from_sql(row.try_get(3).map_err(backend)?),
        attempts: u32::try_from(attempts)
            .map_err(|_| StoreError::Backend(format!("postgres: stored attempts {attempts} out of range")))?,
        lease_expires_ms: from_sql(row.try_get(5).map_err(backend)?),
        deadline_ms: from_sql(row.try_get(6).map_err(backend)?),
        outcome: outcome
            .map(|text| serde_json::from_str(&text))
            .transpose()
            .map_err(|error| StoreError::Backend(format!("postgres: stored outcome is not JSON: {error}")))?,
        created_ms: from_sql(row.try_get(8).map_err(backend)?),
        updated_ms: from_sql(row.try_get(9).map_err(backend)?),
    })
}

fn outcome_text(outcome: Option<&serde_json::Value>) -> Result<Option<String>, StoreError> {
    outcome
        .map(serde_json::to_string)
        .transpose()
        .map_err(|error| StoreError::Backend(format!("postgres: outcome not serializable: {error}")))
}

fn backend(error: tokio_postgres::Error) -> StoreError {
    StoreError::Backend(format!("postgres: {error}"))
}

fn wall_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_names_are_plain_identifiers() {
        for good in ["callproof", "_x", "cp_test_123", &"a".repeat(63)] {
            assert!(valid_schema_name(good), "{good}");
        }
        for bad in ["", "1abc", "Callproof", "a\"b", "a;drop", "a-b", &"a".repeat(64)] {
            assert!(!valid_schema_name(bad), "{bad}");
        }
    }
}
