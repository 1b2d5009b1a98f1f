//! `callproof mutants`: the suite against every known-bad executor (or the named ones), and which checks
//! caught which bug.
//!
//! Rule enforced here: the report goes to stdout, progress to stderr (a counted line per executor as it
//! finishes, with its time); the run fails unless the reference executor trips nothing and every mutant
//! trips every check it is meant to.

use super::Error;
use super::output;
use super::reports::{Format, Formats, progress_bar};
use super::select::Scenarios;
use callproof_executor::mutants::Mutant;
use callproof_harness::conform::Partition;
use callproof_harness::corpus::Corpus;
use callproof_harness::mutation::{self, Finished};
use callproof_harness::report::mutants as report;
use std::process::ExitCode;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 the reference executor failed no check and every mutant tripped \
                                     the checks it is meant to; 1 one did not; 2 usage or configuration error.";

/// `callproof mutants [PATH|ID...] [--mutant NAME...] [--jobs N] ...`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which scenarios (and, with --filter, which checks count).
    #[command(flatten)]
    scenarios: Scenarios,
    /// Only these mutants (repeat, or separate with commas; see `callproof list mutants`); default: all.
    #[arg(long = "mutant", value_name = "NAME", value_delimiter = ',', value_parser = super::mutant)]
    mutants: Vec<Mutant>,
    /// Run only the k-th of n slices of the mutants (in table order; the reference always runs).
    #[arg(long, value_name = "k/n")]
    partition: Option<Partition>,
    /// Executors (the reference and the mutants) run at once, each scenario with its own world (default: four
    /// per core); at most 8 scenarios per core are in flight in all, so timing scenarios keep their bounds.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Format and report files (the HTML page: the table, and per mutant the timeline of a scenario that
    /// caught it).
    #[command(flatten)]
    formats: Formats,
}

/// Runs the suite against the reference and the mutants, and prints the report.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let filter = args.scenarios.filter()?;
    let scenarios = args.scenarios.load()?;
    let (junit, html) = args.formats.open()?;
    let options = mutation::Options {
        jobs: args.jobs.map_or(0, usize::from),
        mutants: args.mutants,
        partition: args.partition,
        filter,
    };
    let total = 1 + args.partition.unwrap_or_default().size_of(if options.mutants.is_empty() {
        callproof_executor::mutants::ALL.len()
    } else {
        options.mutants.len()
    });
    let bar = progress_bar(total as u64, "executors");
    let progress = |finished: &Finished<'_>| {
        let line = progress_line(finished);
        match &bar {
            Some(bar) => {
                bar.inc(1);
                bar.suspend(|| output::error_line(&line));
            }
            None => output::error_line(&line),
        }
    };
    let report = super::runtime()?.block_on(mutation::run(&scenarios, Corpus::shipped(), &options, progress));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(file) = junit {
        file.write(&report::junit(&report)?)?;
    }
    if let Some(file) = html {
        file.write(&report::html(&report))?;
    }
    match args.formats.format {
        Format::Human => output::print(&report::text(&report)),
        Format::Github => output::print(&(report::text(&report) + &report::annotations(&report))),
        Format::Junit => output::print(&report::junit(&report)?),
        Format::Json => output::line(
            &serde_json::to_string_pretty(&report)
                .map_err(|error| Error::Output { what: "the JSON report".to_owned(), why: error.to_string() })?,
        ),
    }
    Ok(if report.holds() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `[ 3/26] check-then-act  4.1s  caught by single-effect*, ...` on stderr as each executor finishes.
fn progress_line(finished: &Finished<'_>) -> String {
    let width = finished.total.to_string().len();
    let head =
        format!("[{:>width$}/{}] {:<28} {:>5.1}s", finished.done, finished.total, finished.name, finished.seconds);
    match finished.row {
        None => format!("{head}  reference"),
        Some(row) if !row.missed.is_empty() => format!("{head}  MISSED {}", row.missed.join(", ")),
        Some(row) if row.caught() => format!("{head}  caught"),
        Some(_) => format!("{head}  NOT caught"),
    }
}
