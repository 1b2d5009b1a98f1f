//! `callproof mutants`: the suite against every known-bad executor (or the named ones), and which checks
//! caught which bug.
//!
//! Rule enforced here: the table goes to stdout, progress to stderr; the run fails unless the reference
//! executor trips nothing and every mutant trips every check it is meant to.

use super::Error;
use super::output;
use callproof_executor::mutants::Mutant;
use callproof_harness::corpus::Corpus;
use callproof_harness::mutation;
use callproof_harness::scenario::Scenario;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 the reference executor failed no check and every mutant tripped \
                                     the checks it is meant to; 1 one did not; 2 usage or configuration error.";

/// `callproof mutants [PATH...] [--mutant NAME...] [--jobs N]`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Scenario files or folders (default: scenarios/).
    paths: Vec<PathBuf>,
    /// Only these mutants (repeat, or separate with commas); default: all.
    #[arg(long = "mutant", value_name = "NAME", value_delimiter = ',', value_parser = super::mutant)]
    mutants: Vec<Mutant>,
    /// Scenarios run at once, per executor.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
}

/// Runs the suite against the reference and the mutants, and prints the table.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let scenarios = Scenario::discover(&args.paths)?;
    let progress = |name: &str| output::error_line(&format!("  ran {name}"));
    let report = super::runtime()?.block_on(mutation::run(
        &scenarios,
        Corpus::shipped(),
        usize::from(args.jobs),
        &args.mutants,
        progress,
    ));
    output::print(&mutation::render(&report));
    Ok(if report.holds() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
