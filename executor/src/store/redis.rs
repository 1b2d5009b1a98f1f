//! The Redis store: records shared by executor replicas through one Redis server, under a key prefix.
//!
//! Rule enforced here: a claim and a compare-and-set are each one Lua script, which Redis runs atomically;
//! nothing is read in Rust and written back. Redis's own expiry is retention: a record gets a TTL only when
//! it enters a state that may expire, and loses it when it goes back to IN_PROGRESS, so Redis never forgets
//! an IN_PROGRESS or UNKNOWN record.
//!
//! Keys: `{prefix}record:{key}` (a hash per record), `{prefix}settled` (a sorted set of settled records by
//! `updated_ms`, for [`Store::purge_expired`]), `{prefix}schema_version`. Each record hash carries its record
//! format (`format`); a prefix of schema version 1 is upgraded only when it holds no record (a `SCAN` at
//! connect). The scripts touch the record and
//! the sorted set together, so the store needs a standalone Redis (or Sentinel), not Redis Cluster.

use super::durable::{DEFAULT_RETENTION, OpenError, SCHEMA_VERSION, check_format};
use super::{Claim, Store, StoreError};
use crate::idempotency::{NewRecord, RECORD_FORMAT, Record, State, Update, Version};
use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};
use std::collections::HashMap;
use std::time::Duration;

/// How a [`RedisStore`] behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// Prepended to every key this store touches; one prefix per independent store. Default `callproof:`.
    pub prefix: String,
    /// How long settled records are kept (their TTL). Default [`DEFAULT_RETENTION`] (7 days).
    pub retention: Duration,
    /// How long connecting or one command may take before the call fails. Default 10 s.
    pub timeout: Duration,
}

impl Default for RedisOptions {
    fn default() -> RedisOptions {
        RedisOptions { prefix: "callproof:".to_owned(), retention: DEFAULT_RETENTION, timeout: Duration::from_secs(10) }
    }
}

/// A [`Store`] in Redis, shared by executor replicas. Durability is the server's: with the default snapshot
/// persistence a Redis crash loses recent records; run it with `appendonly yes` (and `appendfsync always` to
/// survive power loss) when it holds idempotency records.
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: String,
    retention_ms: u64,
    claim: Script,
    compare_and_set: Script,
    purge: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

/// KEYS: record. ARGV: fingerprint, state, epoch, attempts, lease, deadline, created, updated, record format.
/// Returns an empty array when it inserted the record, else the existing record's fields.
const CLAIM: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'state', ARGV[2], 'epoch', ARGV[3], 'attempts', ARGV[4],
  'lease_expires_ms', ARGV[5], 'deadline_ms', ARGV[6], 'created_ms', ARGV[7], 'updated_ms', ARGV[8],
  'format', ARGV[9])
return {}
";

/// KEYS: record, settled set. ARGV: expected state, expected epoch, state, epoch, attempts, lease, deadline,
/// updated, has outcome ('1'/'0'), outcome, expires ('1'/'0'), ttl ms, forget settled entries before (ms).
/// Returns 1 when it applied the update, 0 when the record is absent or at another version.
const COMPARE_AND_SET: &str = r"
local current = redis.call('HMGET', KEYS[1], 'state', 'epoch')
if current[1] ~= ARGV[1] or current[2] ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'epoch', ARGV[4], 'attempts', ARGV[5], 'lease_expires_ms', ARGV[6],
  'deadline_ms', ARGV[7], 'updated_ms', ARGV[8])
if ARGV[9] == '1' then
  redis.call('HSET', KEYS[1], 'outcome', ARGV[10])
else
  redis.call('HDEL', KEYS[1], 'outcome')
end
if ARGV[11] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[12])
  redis.call('ZADD', KEYS[2], ARGV[8], KEYS[1])
  if tonumber(ARGV[13]) > 0 then
    -- Entries this old belong to records whose TTL has run out: keep the set from growing.
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[13])
  end
else
  redis.call('PERSIST', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
end
return 1
";

/// KEYS: settled set. ARGV: cutoff (exclusive), most entries to look at, the expiring states.
/// Returns {deleted, looked at}.
const PURGE: &str = r"
local expiring = {}
for i = 3, #ARGV do expiring[ARGV[i]] = true end
local cutoff = tonumber(ARGV[1])
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local deleted = 0
for _, record in ipairs(entries) do
  local fields = redis.call('HMGET', record, 'state', 'updated_ms')
  local settled = fields[1] and expiring[fields[1]]
  if settled and tonumber(fields[2]) < cutoff then
    redis.call('DEL', record)
    redis.call('ZREM', KEYS[1], record)
    deleted = deleted + 1
  elseif settled then
    -- Out of step with its record: file it under its real age.
    redis.call('ZADD', KEYS[1], fields[2], record)
  else
    -- Gone (expired by its TTL) or no longer settled.
    redis.call('ZREM', KEYS[1], record)
  end
end
return {deleted, #entries}
";

/// Sorted-set entries one purge script looks at, so that one script never blocks Redis for long.
const PURGE_CHUNK: i64 = 1000;

impl RedisStore {
    /// Connects to the Redis server at `url` (`redis://host:port/db`) and checks the key prefix's schema
    /// version.
    ///
    /// # Errors
    /// [`OpenError::Config`] for an invalid URL or an empty prefix, [`OpenError::NewerSchema`] when a newer
    /// build wrote under the prefix, [`OpenError::Backend`] when the server cannot be reached.
    pub async fn connect(url: &str, options: RedisOptions) -> Result<RedisStore, OpenError> {
        if options.prefix.is_empty() {
            return Err(OpenError::Config("the Redis key prefix must not be empty".to_owned()));
        }
        let client =
            redis::Client::open(url).map_err(|error| OpenError::Config(format!("invalid Redis URL: {error}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(2);
        let failed = |error: redis::RedisError| OpenError::Backend(format!("redis: {error}"));
        let connect = ConnectionManager::new_with_config(client, config);
        let mut connection = match tokio::time::timeout(options.timeout, connect).await {
            Ok(connection) => connection.map_err(failed)?,
            Err(_) => return Err(OpenError::Backend(format!("redis: no connection within {:?}", options.timeout))),
        };

        migrate(&mut connection, &options.prefix).await?;
        Ok(RedisStore {
            connection,
            prefix: options.prefix,
            retention_ms: options.retention.as_millis() as u64,
            claim: Script::new(CLAIM),
            compare_and_set: Script::new(COMPARE_AND_SET),
            purge: Script::new(PURGE),
        })
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The time left before Redis expires the record of `key`; `None` when it never expires or is absent.
    ///
    /// # Errors
    /// [`StoreError::Backend`].
    pub async fn expiry(&self, key: &str) -> Result<Option<Duration>, StoreError> {
        let ttl: i64 = self.connection.clone().pttl(self.record_key(key)).await.map_err(backend)?;
        Ok(u64::try_from(ttl).ok().map(Duration::from_millis))
    }

    fn record_key(&self, key: &str) -> String {
        format!("{}record:{key}", self.prefix)
    }

    fn settled_key(&self) -> String {
        format!("{}settled", self.prefix)
    }
}

#[async_trait]
impl Store for RedisStore {
    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        let record = new.clone().into_record();
        let fields: Vec<String> = self
            .claim
            .key(self.record_key(&record.key))
            .arg(&*record.fingerprint)
            .arg(record.state.as_str())
            .arg(record.epoch)
            .arg(record.attempts)
            .arg(record.lease_expires_ms)
            .arg(record.deadline_ms)
            .arg(record.created_ms)
            .arg(record.updated_ms)
            .arg(RECORD_FORMAT)
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(backend)?;
        if fields.is_empty() { Ok(Claim::Acquired) } else { record_from_fields(&new.key, fields).map(Claim::Existing) }
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        let outcome = update
            .outcome
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(|error| StoreError::Backend(format!("redis: outcome not serializable: {error}")))?;
        let expires = update.state.may_expire();
        let applied: i64 = self
            .compare_and_set
            .key(self.record_key(key))
            .key(self.settled_key())
            .arg(expected.state.as_str())
            .arg(expected.epoch)
            .arg(update.state.as_str())
            .arg(update.epoch)
            .arg(update.attempts)
            .arg(update.lease_expires_ms)
            .arg(update.deadline_ms)
            .arg(update.now_ms)
            .arg(if outcome.is_some() { "1" } else { "0" })
            .arg(outcome.unwrap_or_default())
            .arg(if expires { "1" } else { "0" })
            .arg(self.retention_ms.max(1))
            .arg(update.now_ms.saturating_sub(self.retention_ms))
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(backend)?;
        Ok(applied == 1)
    }

    async fn load(&self, key: &str) -> Result<Option<Record>, StoreError> {
        let fields: Vec<String> = self.connection.clone().hgetall(self.record_key(key)).await.map_err(backend)?;
        if fields.is_empty() { Ok(None) } else { record_from_fields(key, fields).map(Some) }
    }

    async fn purge_expired(&self, updated_before_ms: u64) -> Result<u64, StoreError> {
        let mut purged = 0;
        loop {
            let mut invocation = self.purge.key(self.settled_key());
            invocation.arg(updated_before_ms).arg(PURGE_CHUNK);
            for state in super::durable::expiring_states() {
                invocation.arg(state);
            }
            let (deleted, looked_at): (u64, i64) =
                invocation.invoke_async(&mut self.connection.clone()).await.map_err(backend)?;
            purged += deleted;
            if looked_at < PURGE_CHUNK {
                return Ok(purged);
            }
        }
    }
}

/// Sets the prefix's schema version if it has none, accepts the current one, upgrades an older one under which no
/// record is left, refuses an older one with records and a newer one.
async fn migrate(connection: &mut ConnectionManager, prefix: &str) -> Result<(), OpenError> {
    let failed = |error: redis::RedisError| OpenError::Backend(format!("redis: {error}"));
    let version_key = format!("{prefix}schema_version");
    let _: bool = connection.set_nx(&version_key, SCHEMA_VERSION).await.map_err(failed)?;
    let found: String = connection.get(&version_key).await.map_err(failed)?;
    let found: i64 = found
        .parse()
        .map_err(|_| OpenError::Backend(format!("redis: {version_key} holds {found:?}, not a schema version")))?;
    if found > SCHEMA_VERSION {
        return Err(OpenError::NewerSchema { found, supported: SCHEMA_VERSION });
    }
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    // An older prefix: upgraded only if no record is left under it. Executors of the older build must be
    // stopped first (docs/stores.md): one still running could write a record after this scan.
    let pattern = format!("{prefix}record:*");
    let mut cursor = 0u64;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(&pattern)
            .arg("COUNT")
            .arg(1000)
            .query_async(connection)
            .await
            .map_err(failed)?;
        if !keys.is_empty() {
            return Err(OpenError::OlderRecords { found, format: RECORD_FORMAT });
        }
        if next == 0 {
            break;
        }
        cursor = next;
    }
    let upgraded: i64 = Script::new(UPGRADE)
        .key(&version_key)
        .arg(found)
        .arg(SCHEMA_VERSION)
        .invoke_async(connection)
        .await
        .map_err(failed)?;
    if upgraded == 1 {
        Ok(())
    } else {
        Err(OpenError::Backend(format!("redis: {version_key} changed while it was being upgraded")))
    }
}

/// KEYS: schema version. ARGV: the version found, the new one. Returns 1 when it set the new one.
const UPGRADE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
";

fn record_from_fields(key: &str, fields: Vec<String>) -> Result<Record, StoreError> {
    let mut map = HashMap::with_capacity(fields.len() / 2);
    let mut fields = fields.into_iter();
    while let (Some(name), Some(value)) = (fields.next(), fields.next()) {
        map.insert(name, value);
    }
    let text = |name: &str| {
        map.get(name).ok_or_else(|| StoreError::Backend(format!("redis: record {key:?} has no field {name}")))
    };
    let number = |name: &str| {
        text(name)?
            .parse::<u64>()
            .map_err(|_| StoreError::Backend(format!("redis: record {key:?} has a malformed {name}")))
    };
    let format = text("format")?
        .parse::<i64>()
        .map_err(|_| StoreError::Backend(format!("redis: record {key:?} has a malformed format")))?;
    check_format("redis", key, format)?;
    let state = State::parse(text("state")?)
        .ok_or_else(|| StoreError::Backend(format!("redis: record {key:?} has an unknown state")))?;
    let attempts = u32::try_from(number("attempts")?)
        .map_err(|_| StoreError::Backend(format!("redis: record {key:?} has attempts out of range")))?;
    let outcome = map
        .get("outcome")
        .map(|text| serde_json::from_str(text))
        .transpose()
        .map_err(|error| StoreError::Backend(format!("redis: stored outcome is not JSON: {error}")))?;
    Ok(Record {
        key: key.into(),
        fingerprint: text("fingerprint")?.as_str().into(),
        state,
        epoch: number("epoch")?,
        attempts,
        lease_expires_ms: number("lease_expires_ms")?,
        deadline_ms: number("deadline_ms")?,
        outcome,
        created_ms: number("created_ms")?,
        updated_ms: number("updated_ms")?,
    })
}

fn backend(error: redis::RedisError) -> StoreError {
    StoreError::Backend(format!("redis: {error}"))
}
