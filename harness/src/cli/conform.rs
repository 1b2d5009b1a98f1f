//! `callproof conform`: the suite against an executor process (`callproof/1`, or MCP over stdio or Streamable
//! HTTP), judged for CI.
//!
//! Rule enforced here: stdout carries the report (human, JSON, JUnit or GitHub annotations) and nothing else;
//! progress and the one JSON line that explains a non-zero exit go to stderr; the progress bar shows only on
//! a terminal. Everything the options name (checks, filter, baseline, report files, scenarios, the executor's
//! capabilities) is checked before the first scenario runs.

use super::Error;
use super::output;
use super::reports::{self, Reports};
use super::select::Selection;
use callproof_harness::conform;
use callproof_harness::corpus::Corpus;
use callproof_harness::mcp::revision::Revision;
use callproof_harness::mcp::token::Key;
use callproof_harness::mcp::{McpFactory, McpHttpFactory};
use callproof_harness::process::{ProcessFactory, ProcessOptions};
use callproof_harness::protocol::Capabilities;
use callproof_harness::subject::SubjectFactory;
use std::process::ExitCode;
use std::sync::Arc;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 every required check passed; 1 a required check failed, or a \
                                     baseline entry is stale; 2 usage or configuration error (nothing is run, no \
                                     report is printed); 3 the executor could not be started or broke the \
                                     protocol. On a non-zero exit the last line on stderr is one JSON object \
                                     saying why (docs/conform.md).";

/// `callproof conform [PATH|ID...] --executor COMMAND | --mcp COMMAND | --mcp-http COMMAND | --mcp-url URL ...`.
#[derive(clap::Args)]
#[group(id = "subject", required = true, multiple = false, args = ["executor", "mcp", "mcp_http", "mcp_url"])]
pub(crate) struct Args {
    /// Which scenarios and checks.
    #[command(flatten)]
    selection: Selection,
    /// The executor command, e.g. "callproof-executor --stdio --store memory".
    #[arg(long, value_name = "COMMAND")]
    executor: Option<String>,
    /// Or an MCP server command, e.g. "callproof-executor --mcp": started once per scenario with the
    /// environment of docs/mcp.md, spoken to as MCP (--mcp-revision) over its stdin and stdout.
    #[arg(long, value_name = "COMMAND")]
    mcp: Option<String>,
    /// Or an MCP server command speaking Streamable HTTP: started once per scenario with CALLPROOF_MCP_URL
    /// (where to listen, a free loopback port) and CALLPROOF_TOKEN_KEY (the HS256 key of the bearer token each
    /// call carries) besides the environment of docs/mcp.md.
    #[arg(long, value_name = "COMMAND")]
    mcp_http: Option<String>,
    /// Or the Streamable HTTP endpoint of an MCP server already running (crash scenarios are skipped); needs
    /// --mcp-token-key-file.
    #[arg(long, value_name = "URL", requires = "mcp_token_key_file")]
    mcp_url: Option<String>,
    /// The file holding the HS256 key text the --mcp-url server verifies tokens with (its CALLPROOF_TOKEN_KEY).
    #[arg(long, value_name = "FILE", requires = "mcp_url")]
    mcp_token_key_file: Option<std::path::PathBuf>,
    /// Features the MCP server has but cannot declare in its capabilities (e.g. durable_store).
    #[arg(long, value_name = "FEATURE", value_delimiter = ',')]
    mcp_features: Vec<String>,
    /// The MCP revision to speak with --mcp, --mcp-http or --mcp-url: auto asks the server (server/discover
    /// first) and falls back to 2025-11-25.
    #[arg(long, value_enum, value_name = "REVISION", default_value = "auto")]
    mcp_revision: Revision,
    /// With --executor, --mcp or --mcp-http: the address (HOST:PORT) of the executor's idempotency store. Each
    /// executor process then reaches it through a relay the harness can cut (`store_outage` scenarios; the
    /// executor must declare the store_outage feature), named in its environment as CALLPROOF_STORE_PROXY.
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "mcp_url")]
    store_address: Option<String>,
    /// With --executor, --mcp or --mcp-http: how long each started process may take to be ready (answer `hello`;
    /// for MCP, listen and finish the handshake). A busy machine can take longer than the default to import a
    /// Python server's SDK.
    #[arg(long, value_name = "SECONDS", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=600))]
    start_timeout: u64,
    /// The reports.
    #[command(flatten)]
    reports: Reports,
    /// Scenarios run at once, each with its own executor process and downstream (default: two per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
}

/// Runs the suite against the executor process and reports.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let options = args.selection.options(args.jobs.map_or_else(conform::default_process_jobs, usize::from))?;
    let subject = Subject::new(&args)?;
    let scenarios = args.selection.scenarios()?;
    let prepared = args.reports.prepare()?;
    let runtime = super::runtime()?;
    let (factory, capabilities) = runtime.block_on(subject.probe())?;
    let corpus = Corpus::shipped();
    let report = reports::judge(&runtime, factory, capabilities, scenarios, corpus, &options, prepared)?;
    if !report.passed() {
        output::error_line(&report.reason_line());
    }
    Ok(ExitCode::from(report.verdict.exit_code))
}

/// The executor started once and asked for its capabilities (`--executor` of `explore`).
///
/// # Errors
/// [`Error::Executor`] when it does not start or does not answer `hello` (exit 3).
pub(crate) fn started(runtime: &tokio::runtime::Runtime, factory: &ProcessFactory) -> Result<Capabilities, Error> {
    Ok(runtime.block_on(factory.probe())?)
}

/// The subject kind the options name: the one place a new kind is added.
enum Subject {
    Process(Box<ProcessFactory>),
    Mcp(Box<McpFactory>),
    McpHttp(Box<McpHttpFactory>),
}

impl Subject {
    fn new(args: &Args) -> Result<Subject, Error> {
        let features = args.mcp_features.clone();
        if args.mcp_token_key_file.is_some() && args.mcp_url.is_none() {
            return Err(Error::Usage("--mcp-token-key-file is for --mcp-url".to_owned()));
        }
        if !features.is_empty() && args.executor.is_some() {
            return Err(Error::Usage("--mcp-features is for an MCP server, not --executor".to_owned()));
        }
        if args.mcp_revision != Revision::Auto && args.executor.is_some() {
            return Err(Error::Usage("--mcp-revision is for an MCP server, not --executor".to_owned()));
        }
        let store = |options: &ProcessOptions| ProcessOptions {
            store_upstream: args.store_address.clone(),
            start_timeout: std::time::Duration::from_secs(args.start_timeout),
            ..options.clone()
        };
        if let Some(command) = &args.mcp {
            let factory = McpFactory::new(command)?
                .with_revision(args.mcp_revision)
                .with_options(store(&ProcessOptions::default()));
            return Ok(Subject::Mcp(Box::new(factory.with_features(features))));
        }
        if let Some(command) = &args.mcp_http {
            let factory = McpHttpFactory::command(command).map_err(Error::Usage)?;
            let factory = factory.with_options(store(&ProcessOptions::default())).with_revision(args.mcp_revision);
            return Ok(Subject::McpHttp(Box::new(factory.with_features(features))));
        }
        if let (Some(url), Some(file)) = (&args.mcp_url, &args.mcp_token_key_file) {
            let text = std::fs::read_to_string(file).map_err(|error| {
                Error::Usage(format!("cannot read --mcp-token-key-file {}: {error}", file.display()))
            })?;
            let key = Key::from_text(&text).map_err(|why| Error::Usage(format!("{}: {why}", file.display())))?;
            let factory = McpHttpFactory::url(url, key).map_err(Error::Usage)?;
            return Ok(Subject::McpHttp(Box::new(factory.with_revision(args.mcp_revision).with_features(features))));
        }
        match &args.executor {
            Some(command) => {
                let factory = ProcessFactory::new(command)?;
                let options = store(factory.options());
                Ok(Subject::Process(Box::new(factory.with_options(options))))
            }
            // clap's group requires one of them.
            None => Err(Error::Usage("give --executor, --mcp, --mcp-http or --mcp-url".to_owned())),
        }
    }

    /// Starts the subject once for its capabilities (a failure is exit 3 before any scenario runs).
    async fn probe(self) -> Result<(Arc<dyn SubjectFactory>, Option<Capabilities>), Error> {
        Ok(match self {
            Subject::Process(factory) => {
                let capabilities = factory.probe().await?;
                (Arc::new(*factory), Some(capabilities))
            }
            Subject::Mcp(factory) => {
                let capabilities = factory.probe().await?;
                (Arc::new(*factory), Some(capabilities))
            }
            Subject::McpHttp(factory) => {
                let capabilities = factory.probe().await?;
                (Arc::new(*factory), Some(capabilities))
            }
        })
    }
}
