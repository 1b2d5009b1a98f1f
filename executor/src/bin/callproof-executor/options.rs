//! The command line of `callproof-executor`.
//!
//! Rule enforced here: a wrong option is an error with the usage text, never a silent default.

use callproof_executor::app::Variant;
use callproof_executor::store::Locator;
use std::path::PathBuf;
use tokio::sync::Semaphore;

pub(crate) const USAGE: &str = "\
usage: callproof-executor --stdio|--mcp|--mcp-http [ADDR] [--store STORE] [--namespace NAME] [--max-in-flight N]
                          [--mutant NAME]

Serves the callproof conformance app as the reference executor, speaking the adapter protocol callproof/1
(docs/protocol.md) or MCP as JSON lines on stdin and stdout, or MCP over Streamable HTTP. Logs go to stderr.

  --stdio           serve the adapter protocol callproof/1 on stdin/stdout
  --mcp             serve MCP (2025-11-25 and 2026-07-28) on stdin/stdout: the app's tools, each result's
                    structuredContent an envelope; the downstream from CALLPROOF_DOWNSTREAM_URL, the trusted
                    context from each call's _meta member io.callproof/context or a fixed stdio context
                    (docs/mcp.md)
  --mcp-http [ADDR] serve MCP (2025-11-25 and 2026-07-28) over Streamable HTTP on loopback at ADDR (HOST:PORT,
                    path /mcp, or http://HOST:PORT/PATH; default CALLPROOF_MCP_URL; port 0 picks one, printed
                    on stderr); every request needs a bearer JWT signed HS256 with CALLPROOF_TOKEN_KEY, for that
                    URL, and the call's identity comes from its claims only (docs/mcp.md)
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
    /// What to speak, and where.
    pub(crate) mode: Mode,
}

/// The protocol and transport.
pub(crate) enum Mode {
    /// callproof/1 on stdin/stdout.
    Stdio,
    /// MCP on stdin/stdout.
    Mcp,
    /// MCP over Streamable HTTP at this address (else `CALLPROOF_MCP_URL`).
    McpHttp(Option<String>),
}

/// The default of `--max-in-flight`: far above what the harness sends at once, far below what would exhaust
/// memory with large arguments.
const DEFAULT_MAX_IN_FLIGHT: usize = 64;

pub(crate) enum Parsed {
    /// Boxed: the options hold a whole `Variant` (every stage and port), many times the other variants' size.
    Run(Box<Options>),
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

pub(crate) fn parse(args: impl Iterator<Item = String>) -> Result<Parsed, String> {
    let mut args = args.peekable();
    let mut modes = Vec::new();
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
            "--stdio" => modes.push(Mode::Stdio),
            "--mcp" => modes.push(Mode::Mcp),
            "--mcp-http" => {
                // The address is optional: the harness starts `--mcp-http` with CALLPROOF_MCP_URL set.
                let next_is_value = args.peek().is_some_and(|next| !next.starts_with("--"));
                let address = inline.clone().or_else(|| if next_is_value { args.next() } else { None });
                modes.push(Mode::McpHttp(address));
            }
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
    if modes.len() != 1 {
        return Err("say one of --stdio (the adapter protocol on stdin/stdout), --mcp (MCP on stdin/stdout) and \
                    --mcp-http [ADDR] (MCP over Streamable HTTP)"
            .to_owned());
    }
    let mode = modes.remove(0);
    Ok(Parsed::Run(Box::new(Options { store, namespace, variant, mutant, max_in_flight, mode })))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(args: &[&str]) -> Result<Option<String>, String> {
        match parse(args.iter().map(|arg| (*arg).to_owned()))? {
            Parsed::Run(options) => match options.mode {
                Mode::McpHttp(address) => Ok(address),
                _ => Err("not --mcp-http".to_owned()),
            },
            _ => Err("not --mcp-http".to_owned()),
        }
    }

    #[test]
    fn mcp_http_takes_an_optional_address_and_excludes_the_other_modes() {
        assert_eq!(mode(&["--mcp-http", "127.0.0.1:0"]), Ok(Some("127.0.0.1:0".to_owned())));
        assert_eq!(mode(&["--mcp-http=127.0.0.1:1"]), Ok(Some("127.0.0.1:1".to_owned())));
        assert_eq!(mode(&["--mcp-http", "--store", "memory"]), Ok(None), "CALLPROOF_MCP_URL then");
        assert_eq!(mode(&["--store", "memory", "--mcp-http"]), Ok(None));
        assert!(mode(&["--mcp-http", "--mcp"]).is_err());
        assert!(mode(&["--store", "memory"]).is_err());
    }
}
