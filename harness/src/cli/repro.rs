//! `callproof repro`: one scenario against one executor (in process, or a process speaking the protocol), its
//! timeline with every failed check marked, as text, Mermaid or JSON.
//!
//! Rule enforced here: a scenario is named by file or by id (shipped, or added with `--scenarios`), and `--subject` and
//! `--executor` cannot both be given: the run is against exactly the executor the command line names.

use super::Error;
use super::output;
use super::reports::Output;
use callproof_harness::corpus::Corpus;
use callproof_harness::error;
use callproof_harness::process::ProcessFactory;
use callproof_harness::repro;
use callproof_harness::scenario::Scenario;
use callproof_harness::shipped;
use callproof_harness::subject::{InProcess, SubjectFactory};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 no MUST check failed; 1 one did; 2 usage error; 3 the executor \
                                     could not be started, broke the protocol, or cannot be judged on the scenario \
                                     (the message says why).";

/// How the run is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// The timeline as text, failed checks marked.
    Text,
    /// A Mermaid `sequenceDiagram` (it renders on GitHub).
    Mermaid,
    /// The failures, verdicts and transcript as JSON.
    Json,
}

/// `callproof repro SCENARIO [--executor COMMAND | --subject reference|mutant:NAME] [--format FORMAT]`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A scenario file, or a scenario id (e.g. idempotency/duplicate_refund_after_lost_response).
    scenario: String,
    /// An executor command speaking the adapter protocol (default: the in-process `--subject`).
    #[arg(long, value_name = "COMMAND")]
    executor: Option<String>,
    /// Without --executor: `reference`, or `mutant:NAME` for a known-bad one.
    #[arg(long, default_value = "reference", value_parser = super::in_process, conflicts_with = "executor")]
    subject: InProcess,
    /// How the run is printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Add the scenarios under DIR to the shipped ones, to look SCENARIO up among (repeatable).
    #[arg(long = "scenarios", value_name = "DIR")]
    added: Vec<PathBuf>,
    /// Also write the run as a self-contained HTML page to FILE: its timeline as a sequence diagram, failed
    /// checks marked where they failed, the ledger and the JSON.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Runs the scenario once and prints it.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let scenario = scenario(&args.scenario, &args.added)?;
    let html = args.html.as_deref().map(|path| Output::open(path, "the HTML report")).transpose()?;
    let factory: Arc<dyn SubjectFactory> = match &args.executor {
        Some(command) => Arc::new(ProcessFactory::new(command)?),
        None => Arc::new(args.subject),
    };
    let repro = super::runtime()?.block_on(repro::reproduce(factory, &scenario, Corpus::shipped()))?;
    if let Some(file) = html {
        file.write(&callproof_harness::report::html::repro(&repro))?;
    }
    match args.format {
        Format::Text => output::print(&repro::text(&repro)),
        Format::Mermaid => output::print(&repro::mermaid(&repro)),
        Format::Json => {
            let text = serde_json::to_string_pretty(&repro::json(&repro))
                .map_err(|error| Error::Output { what: "the JSON output".to_owned(), why: error.to_string() })?;
            output::line(&text);
        }
    }
    Ok(ExitCode::from(if repro.broke() {
        error::EXIT_EXECUTOR
    } else if repro.must_failed() {
        error::EXIT_FAIL
    } else {
        error::EXIT_PASS
    }))
}

/// The one scenario a file or an id of the suite names.
fn scenario(name: &str, added: &[PathBuf]) -> Result<Scenario, Error> {
    let mut found = shipped::select(&[PathBuf::from(name)], added)?;
    match found.len() {
        1 => found.pop().ok_or_else(|| Error::Usage(format!("no scenario `{name}`"))),
        count => Err(Error::Usage(format!(
            "`{name}` names {count} scenarios; name one (see `callproof list scenarios --filter path:{name}`)"
        ))),
    }
}
