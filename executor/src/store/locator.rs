//! Where idempotency records live, written as one string: `memory`, `sqlite:PATH`, `postgres:URL` or
//! `redis:URL`, and how to open the store it names.
//!
//! Rule enforced here: the locator format is defined once, here: the executor binary's `--store`, the store
//! tests (which hand a locator to a child process) and the benchmarks all parse it with [`Locator::from_str`]
//! and open it with [`Locator::open`]. Printing a locator never prints a password; only
//! [`Locator::unredacted`] does, for handing it to another process.

use super::{
    MemoryStore, OpenError, PostgresOptions, PostgresStore, PurgeFailures, RedisOptions, RedisStore, SqliteOptions,
    SqliteStore, Store, url_without_password,
};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

/// A store's location. `Display` and `Debug` leave out a password.
#[derive(Clone, PartialEq, Eq)]
pub enum Locator {
    /// In this process only: lost when it ends.
    Memory,
    /// One SQLite file, durable, shared by the processes of one machine.
    Sqlite(PathBuf),
    /// A PostgreSQL database (a `postgres://` URL or a key=value string), shared by replicas.
    Postgres(String),
    /// A Redis server (a `redis://` URL), shared by replicas.
    Redis(String),
}

/// A string that is not a [`Locator`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{shown:?} is not a store: use memory, sqlite:PATH, postgres:URL or redis:URL")]
pub struct ParseLocatorError {
    /// The string, without a password it may hold.
    shown: String,
}

/// How [`Locator::open`] opens each kind of store. The namespace given to `open` replaces the PostgreSQL
/// schema and the Redis key prefix.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// For a SQLite store.
    pub sqlite: SqliteOptions,
    /// For a PostgreSQL store.
    pub postgres: PostgresOptions,
    /// For a Redis store.
    pub redis: RedisOptions,
}

/// An open store with its concrete type, for what only one backend offers (closing SQLite and waiting for
/// it, purge failures, ...). [`Opened::store`] is the port.
#[derive(Debug, Clone)]
pub enum Opened {
    /// In memory.
    Memory(Arc<MemoryStore>),
    /// SQLite.
    Sqlite(Arc<SqliteStore>),
    /// PostgreSQL.
    Postgres(Arc<PostgresStore>),
    /// Redis.
    Redis(Arc<RedisStore>),
}

impl Locator {
    /// Whether the records outlive the process.
    pub fn is_durable(&self) -> bool {
        !matches!(self, Locator::Memory)
    }

    /// The full locator, password included, for handing to another process; [`Locator::from_str`] reads it back.
    /// Never log it: `Display` is the form to print.
    pub fn unredacted(&self) -> String {
        match self {
            Locator::Memory => "memory".to_owned(),
            Locator::Sqlite(path) => format!("sqlite:{}", path.display()),
            Locator::Postgres(url) => format!("postgres:{url}"),
            Locator::Redis(url) => format!("redis:{url}"),
        }
    }

    /// The same store reached through `address` (`host:port`, e.g. a proxy on loopback) instead of the host and
    /// port its URL names; user, password, database and parameters stay. Only network stores given as a URL
    /// have an address to replace.
    ///
    /// # Errors
    /// A sentence saying why, for memory and SQLite stores and for a PostgreSQL key=value string.
    pub fn through(&self, address: &str) -> Result<Locator, String> {
        let swap = |url: &str| -> Result<String, String> {
            let (scheme, rest) = url.split_once("://").ok_or("a key=value string has no address to replace")?;
            let end = rest.find(['/', '?']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(end);
            let user = authority.rsplit_once('@').map(|(user, _)| format!("{user}@")).unwrap_or_default();
            Ok(format!("{scheme}://{user}{address}{tail}"))
        };
        match self {
            Locator::Postgres(url) => Ok(Locator::Postgres(swap(url)?)),
            Locator::Redis(url) => Ok(Locator::Redis(swap(url)?)),
            Locator::Memory | Locator::Sqlite(_) => Err(format!("{self} is not reached over the network")),
        }
    }

    /// Opens the store, under `namespace` (the PostgreSQL schema, or the Redis key prefix `namespace:`).
    ///
    /// # Errors
    /// [`OpenError`] when the store cannot be reached, is misconfigured, or has a newer schema.
    pub async fn open(&self, namespace: &str, options: &OpenOptions) -> Result<Arc<dyn Store>, OpenError> {
        Ok(self.open_typed(namespace, options).await?.store())
    }

    /// [`Locator::open`], keeping the store's concrete type.
    ///
    /// # Errors
    /// As [`Locator::open`].
    pub async fn open_typed(&self, namespace: &str, options: &OpenOptions) -> Result<Opened, OpenError> {
        Ok(match self {
            Locator::Memory => Opened::Memory(Arc::new(MemoryStore::new())),
            Locator::Sqlite(path) => Opened::Sqlite(Arc::new(SqliteStore::open(path, options.sqlite.clone()).await?)),
            Locator::Postgres(url) => {
                let options = PostgresOptions { schema: namespace.to_owned(), ..options.postgres.clone() };
                Opened::Postgres(Arc::new(PostgresStore::connect(url, options).await?))
            }
            Locator::Redis(url) => {
                let options = RedisOptions { prefix: format!("{namespace}:"), ..options.redis.clone() };
                Opened::Redis(Arc::new(RedisStore::connect(url, options).await?))
            }
        })
    }
}

impl FromStr for Locator {
    type Err = ParseLocatorError;

    fn from_str(text: &str) -> Result<Locator, ParseLocatorError> {
        if text == "memory" {
            return Ok(Locator::Memory);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Locator::Postgres(text.to_owned()));
        }
        if text.starts_with("redis://") {
            return Ok(Locator::Redis(text.to_owned()));
        }
        match text.split_once(':') {
            Some(("sqlite", path)) if !path.is_empty() => Ok(Locator::Sqlite(PathBuf::from(path))),
            Some(("postgres", url)) if !url.is_empty() => Ok(Locator::Postgres(url.to_owned())),
            Some(("redis", url)) if !url.is_empty() => Ok(Locator::Redis(url.to_owned())),
            _ => Err(ParseLocatorError { shown: url_without_password(text) }),
        }
    }
}

impl fmt::Display for Locator {
    /// The locator without a password: `postgres:postgres://app@db/test` for `postgres://app:secret@db/test`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Locator::Memory | Locator::Sqlite(_) => f.write_str(&self.unredacted()),
            Locator::Postgres(url) => write!(f, "postgres:{}", url_without_password(url)),
            Locator::Redis(url) => write!(f, "redis:{}", url_without_password(url)),
        }
    }
}

impl fmt::Debug for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Locator({self})")
    }
}

impl Opened {
    /// The store behind the port.
    pub fn store(&self) -> Arc<dyn Store> {
        match self {
            Opened::Memory(store) => Arc::clone(store) as _,
            Opened::Sqlite(store) => Arc::clone(store) as _,
            Opened::Postgres(store) => Arc::clone(store) as _,
            Opened::Redis(store) => Arc::clone(store) as _,
        }
    }

    /// The background purge rounds that failed so far (none for stores that do not purge by themselves).
    pub fn purge_failures(&self) -> PurgeFailures {
        match self {
            Opened::Sqlite(store) => store.purge_failures(),
            Opened::Postgres(store) => store.purge_failures(),
            Opened::Memory(_) | Opened::Redis(_) => PurgeFailures::default(),
        }
    }

    /// Closes the store: SQLite finishes every request already made and closes the file; the others drop
    /// their clients. `false` when other handles of a SQLite store keep it open (the last one to drop closes
    /// it, without waiting).
    pub async fn close(self) -> bool {
        match self {
            Opened::Sqlite(store) => match Arc::try_unwrap(store) {
                Ok(store) => {
                    store.close().await;
                    true
                }
                Err(_) => false,
            },
            Opened::Memory(_) | Opened::Postgres(_) | Opened::Redis(_) => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back_the_same_locator() {
        let cases = [
            ("memory", Locator::Memory),
            ("sqlite:/tmp/a b.sqlite3", Locator::Sqlite(PathBuf::from("/tmp/a b.sqlite3"))),
            ("postgres:postgres://app@db:5432/test", Locator::Postgres("postgres://app@db:5432/test".into())),
            ("postgres:host=db user=app", Locator::Postgres("host=db user=app".into())),
            ("redis:redis://127.0.0.1:6379/0", Locator::Redis("redis://127.0.0.1:6379/0".into())),
        ];
        for (text, locator) in cases {
            let parsed: Locator = text.parse().expect("a locator");
            assert_eq!(parsed, locator, "{text}");
            assert_eq!(parsed.to_string(), text);
            assert_eq!(parsed.unredacted().parse::<Locator>(), Ok(locator));
        }
    }

    #[test]
    fn a_bare_database_url_is_a_locator_too() {
        let postgres: Locator = "postgresql://app@db/test".parse().expect("a locator");
        assert_eq!(postgres, Locator::Postgres("postgresql://app@db/test".into()));
        let redis: Locator = "redis://127.0.0.1:6379".parse().expect("a locator");
        assert_eq!(redis, Locator::Redis("redis://127.0.0.1:6379".into()));
    }

    #[test]
    fn a_network_store_is_reached_through_another_address_with_everything_else_kept() {
        let locator: Locator = "postgres:postgres://app:s3cret@db/test".parse().expect("a locator");
        assert_eq!(
            locator.through("127.0.0.1:4100").map(|through| through.unredacted()),
            Ok("postgres:postgres://app:s3cret@127.0.0.1:4100/test".to_owned())
        );
        let redis: Locator = "redis://cache:6379/2".parse().expect("a locator");
        assert_eq!(
            redis.through("127.0.0.1:1").map(|through| through.unredacted()),
            Ok("redis:redis://127.0.0.1:1/2".into())
        );
        assert!(Locator::Postgres("host=db user=app".into()).through("127.0.0.1:1").is_err());
        assert!(Locator::Memory.through("127.0.0.1:1").is_err());
    }

    #[test]
    fn a_printed_locator_hides_the_password_and_the_unredacted_one_keeps_it() {
        let locator: Locator = "postgres:postgres://app:s3cret@db/test".parse().expect("a locator");
        assert_eq!(locator.to_string(), "postgres:postgres://app@db/test");
        assert!(!format!("{locator:?}").contains("s3cret"), "Debug output ends up in logs and panics too");
        assert_eq!(locator.unredacted(), "postgres:postgres://app:s3cret@db/test");
        let redis: Locator = "redis://:s3cret@127.0.0.1:6379".parse().expect("a locator");
        assert!(!redis.to_string().contains("s3cret"));
    }

    #[test]
    fn anything_else_is_refused_without_echoing_a_password() {
        for text in ["", "sqlite:", "postgres:", "mysql://root:pw@db/x", "Memory", "file.sqlite3"] {
            let error = text.parse::<Locator>().expect_err(text);
            assert!(!error.to_string().contains(":pw@"), "{error}");
            assert!(error.to_string().contains("use memory, sqlite:PATH"), "{error}");
        }
    }

    #[tokio::test]
    async fn a_memory_locator_opens_a_store_that_does_not_outlive_the_process() {
        let locator = Locator::Memory;
        assert!(!locator.is_durable());
        let opened = locator.open_typed("ns", &OpenOptions::default()).await.expect("opens");
        assert!(matches!(opened, Opened::Memory(_)));
        assert_eq!(opened.purge_failures().count, 0);
        assert!(Locator::Sqlite(PathBuf::from("x")).is_durable());
    }
}
