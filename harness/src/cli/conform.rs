//! `callproof conform`: the suite against an executor process (`callproof/1`, or MCP over stdio), judged for CI.
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
use callproof_harness::mcp::McpFactory;
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

/// `callproof conform [PATH|ID...] --executor COMMAND | --mcp COMMAND ...`.
#[derive(clap::Args)]
#[group(id = "subject", required = true, multiple = false, args = ["executor", "mcp"])]
pub(crate) struct Args {
    /// Which scenarios and checks.
    #[command(flatten)]
    selection: Selection,
    /// The executor command, e.g. "callproof-executor --stdio --store memory".
    #[arg(long, value_name = "COMMAND")]
    executor: Option<String>,
    /// Or an MCP server command, e.g. "callproof-executor --mcp": started once per scenario with the
    /// environment of docs/mcp.md, spoken to as MCP 2025-11-25 over its stdin and stdout.
    #[arg(long, value_name = "COMMAND")]
    mcp: Option<String>,
    /// Features the MCP server has but cannot declare in its capabilities (e.g. durable_store).
    #[arg(long, value_name = "FEATURE", value_delimiter = ',', requires = "mcp")]
    mcp_features: Vec<String>,
    /// With --executor: the address (HOST:PORT) of the executor's idempotency store. Each executor process then
    /// reaches it through a relay the harness can cut (`store_outage` scenarios; the executor must declare
    /// the store_outage feature), named in its environment as CALLPROOF_STORE_PROXY.
    #[arg(long, value_name = "HOST:PORT", requires = "executor")]
    store_address: Option<String>,
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
    let subject = Subject::new(args.executor.as_deref(), args.mcp.as_deref(), args.mcp_features, args.store_address)?;
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
}

impl Subject {
    fn new(
        executor: Option<&str>,
        mcp: Option<&str>,
        features: Vec<String>,
        store_address: Option<String>,
    ) -> Result<Subject, Error> {
        match (executor, mcp) {
            (_, Some(command)) => Ok(Subject::Mcp(Box::new(McpFactory::new(command)?.with_features(features)))),
            (Some(command), None) => {
                let factory = ProcessFactory::new(command)?;
                let options = ProcessOptions { store_upstream: store_address, ..factory.options().clone() };
                Ok(Subject::Process(Box::new(factory.with_options(options))))
            }
            // clap's group requires one of them.
            (None, None) => Err(Error::Usage("give --executor COMMAND or --mcp COMMAND".to_owned())),
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
        })
    }
}
