//! The command line of `callproof-executor`.
//!
//! Rule enforced here: a wrong option is an error with the usage text, never a silent default.

use callproof_executor::app::Variant;
use callproof_executor::store::Locator;
use std::path::PathBuf;
use tokio::sync::Semaphore;

pub(crate) const USAGE: &str = "\
usage: callproof-executor --stdio|--mcp [--store STORE] [--namespace NAME] [--max-in-flight N] [--mutant NAME]

Serves the callproof conformance app as the reference executor, speaking the adapter protocol callproof/1
(docs/protocol.md), or MCP, as JSON lines on stdin and stdout. Logs go to stderr.

  --stdio           serve the adapter protocol callproof/1 on stdin/stdout
  --mcp             serve MCP (2025-11-25) on stdin/stdout: the app's tools, each result's structuredContent
                    an envelope; the downstream from CALLPROOF_DOWNSTREAM_URL, the trusted context from each
                    call's _meta member io.callproof/context or a fixed stdio context (docs/mcp.md)
  --store STORE     the idempotency store (default: sqlite:callproof-executor.v2.sqlite3 in the system's
                    temporary folder, so the working folder stays clean):
                      memory                 in this process only; lost when the process dies
                      sqlite:PATH            one SQLite file, durable
                      postgres:URL           PostgreSQL, shared by replicas (URL: postgres://user@host:port/db)
                      redis:URL              Redis, shared by replicas (URL: redis://host:port/db)
  --namespace NAME  PostgreSQL schema or Redis key prefix (default callproof)
  --max-in-flight N calls run at once (default 64, at least 1); past that the next line waits to be read
                    until one finishes, so memory and downstream connections stay bounded
  --mutant NAME     run a known-bad variant of the reference executor (see `callproof mutants`); needs a
                    build with the `mutants` feature (cargo build -p callproof-executor --features mutants)
  --help, --version
";

pub(crate) struct Options {
    pub(crate) store: Locator,
    pub(crate) namespace: String,
    /// The reference, or the variant of `--mutant`.
    pub(crate) variant: Variant,
    /// The name of the mutant, when one was chosen.
    pub(crate) mutant: Option<&'static str>,
    /// How many calls may run at once before stdin is left unread.
    pub(crate) max_in_flight: usize,
    /// Serve MCP instead of callproof/1.
    pub(crate) mcp: bool,
}

/// The default of `--max-in-flight`: far above what the harness sends at once, far below what would exhaust
/// memory with large arguments.
const DEFAULT_MAX_IN_FLIGHT: usize = 64;

pub(crate) enum Parsed {
    Run(Options),
    Help,
    Version,
}

/// The default SQLite file: durable across restarts of the executor (the crash scenarios need that), and in the
/// temporary folder, never in the folder the user runs from (a file and its `-wal`/`-shm` would litter it). Named
/// by record format: the default file of builds before format 2 (`callproof-executor.sqlite3`) holds records
/// keyed another way, which this build would refuse to open (docs/stores.md, "Record format").
fn default_store_path() -> PathBuf {
    std::env::temp_dir().join("callproof-executor.v2.sqlite3")
}

pub(crate) fn parse(mut args: impl Iterator<Item = String>) -> Result<Parsed, String> {
    let mut stdio = false;
    let mut mcp = false;
    let mut store = Locator::Sqlite(default_store_path());
    let mut namespace = "callproof".to_owned();
    let mut variant = Variant::REFERENCE;
    let mut mutant = None;
    let mut max_in_flight = DEFAULT_MAX_IN_FLIGHT;
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| inline.clone().or_else(|| args.next()).ok_or(format!("{name} needs a value"));
        match name.as_str() {
            "--stdio" => stdio = true,
            "--mcp" => mcp = true,
            "--store" => store = value("--store")?.parse().map_err(|error| format!("--store {error}"))?,
            "--namespace" => namespace = value("--namespace")?,
            "--max-in-flight" => {
                let given = value("--max-in-flight")?;
                max_in_flight = match given.parse::<usize>() {
                    Ok(count) if (1..=Semaphore::MAX_PERMITS).contains(&count) => count,
                    _ => {
                        return Err(format!("--max-in-flight {given:?}: expected a whole number of calls, at least 1"));
                    }
                };
            }
            "--mutant" => {
                let (name, chosen) = known_bad(&value("--mutant")?)?;
                (mutant, variant) = (Some(name), chosen);
            }
            "--help" | "-h" => return Ok(Parsed::Help),
            "--version" | "-V" => return Ok(Parsed::Version),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if stdio == mcp {
        return Err("say --stdio (the adapter protocol) or --mcp (MCP), one of them, both over stdin/stdout".to_owned());
    }
    Ok(Parsed::Run(Options { store, namespace, variant, mutant, max_in_flight, mcp }))
}

/// The mutant called `name`.
#[cfg(feature = "mutants")]
fn known_bad(name: &str) -> Result<(&'static str, Variant), String> {
    use callproof_executor::mutants;
    let names: Vec<&str> = mutants::ALL.iter().map(|mutant| mutant.name).collect();
    let mutant =
        mutants::by_name(name).ok_or_else(|| format!("unknown mutant {name:?}; known: {}", names.join(", ")))?;
    Ok((mutant.name, mutant.variant))
}

/// Without the `mutants` feature there are none to choose.
#[cfg(not(feature = "mutants"))]
fn known_bad(name: &str) -> Result<(&'static str, Variant), String> {
    Err(format!(
        "--mutant {name:?}: this build has no known-bad executors; build it with the `mutants` feature \
         (cargo build -p callproof-executor --features mutants)"
    ))
}
