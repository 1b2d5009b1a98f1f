//! `callproof run`: `conform` run in process. The subject is the reference executor (or a known-bad one)
//! built into callproof; the options and reports are `conform`'s.
//!
//! Rule enforced here: `run` judges every check but fails only on what the profile requires: under the
//! default profile a SHOULD check that fails is a warning (`WARN`), under `--profile all` a failure.

use super::Error;
use super::reports::{self, Reports};
use super::select::Selection;
use callproof_harness::corpus::Corpus;
use callproof_harness::subject::{InProcess, SubjectFactory};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 every required check passed; 1 a required check failed, or a \
                                     baseline entry is stale; 2 usage or configuration error (nothing is run); \
                                     3 the executor could not run a scenario.";

/// `callproof run [PATH|ID...] [--subject reference|mutant:NAME] ...`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which scenarios and checks.
    #[command(flatten)]
    selection: Selection,
    /// The executor under test: `reference`, or `mutant:NAME` for a known-bad one (see `callproof list mutants`).
    #[arg(long, default_value = "reference", value_parser = super::in_process)]
    subject: InProcess,
    /// The malformed corpus (default: the one shipped with callproof).
    #[arg(long, value_name = "FILE")]
    corpus: Option<PathBuf>,
    /// The reports.
    #[command(flatten)]
    reports: Reports,
    /// Scenarios run at once, each with its own downstream (default: four per core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Print the evidence of every failed check, warnings and expected failures included, not only of failures.
    #[arg(long, short)]
    verbose: bool,
}

/// Runs the scenarios in process and prints the report.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let mut options = args.selection.options(args.jobs.map_or(0, usize::from))?;
    options.advisory = true;
    let corpus = match &args.corpus {
        Some(path) => Arc::new(Corpus::load(path)?),
        None => Corpus::shipped(),
    };
    let scenarios = args.selection.scenarios()?;
    let prepared = args.reports.prepare()?.verbose(args.verbose);
    let factory: Arc<dyn SubjectFactory> = Arc::new(args.subject);
    let runtime = super::runtime()?;
    let report = reports::judge(&runtime, factory, None, scenarios, corpus, &options, prepared)?;
    Ok(ExitCode::from(report.verdict.exit_code))
}
