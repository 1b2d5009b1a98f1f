//! `callproof explore`: generated schedules in simulation, checked after every step; what fails is shrunk,
//! written as a scenario file and replayed over loopback HTTP to confirm it.
//!
//! Rule enforced here: the seed is always printed, with the command that explores again and the one that
//! replays what was found, so every run can be repeated.

use super::Error;
use super::output;
use super::reports::progress_bar;
use callproof_harness::checks;
use callproof_harness::conform::human;
use callproof_harness::corpus::Corpus;
use callproof_harness::explore::{self, Found};
use callproof_harness::filter::Filter;
use callproof_harness::partition::Partition;
use callproof_harness::subject::{InProcess, SubjectFactory};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str =
    "Exit codes: 0 no check failed; 1 a check failed (the shrunk scenario is printed and written); 2 usage error.";

/// `callproof explore [--subject reference|mutant:NAME] [--seed N] ...`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The executor under test: `reference`, or `mutant:NAME` for a known-bad one.
    #[arg(long, default_value = "reference", value_parser = super::in_process)]
    subject: InProcess,
    /// The seed (default: from the clock; always printed).
    #[arg(long)]
    seed: Option<u64>,
    /// How many schedules.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
    cases: u32,
    /// Run only the k-th of n slices of the cases (case i belongs to slice i mod n + 1).
    #[arg(long, value_name = "k/n", default_value_t = Partition::WHOLE)]
    partition: Partition,
    /// Longest schedule, in moves.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    moves: u16,
    /// Where to write the minimal scenario of a failure (created if missing). The default is a folder of
    /// the current one, never the shipped `scenarios/found/`: pass `--out scenarios/found` to add to those.
    #[arg(long, value_name = "DIR", default_value = "callproof-found")]
    out: PathBuf,
    /// Judge only the checks EXPR selects after every step: `check:ID`, `level:must|should`, joined with
    /// `&`, `|`, `!` (generated schedules have no path or tag).
    #[arg(long, short = 'E', value_name = "EXPR")]
    filter: Vec<String>,
}

/// Explores, prints what it found, and confirms it over loopback.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let checks = Filter::parse(&args.filter)?.checks_without_scenarios(&checks::all())?;
    if checks.is_empty() {
        return Err(Error::Usage("the filter selects no check".to_owned()));
    }
    let subject = args.subject.name();
    let seed = args
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64));
    let cases = args.cases;
    output::line(&format!(
        "callproof explore: subject {subject}, seed {seed}, {cases} cases, partition {}",
        args.partition
    ));
    let options = explore::Options {
        subject: Arc::new(args.subject),
        seed,
        cases,
        partition: args.partition,
        max_moves: usize::from(args.moves),
        out: Some(args.out),
    };
    let bar = progress_bar(args.partition.size_of(cases as usize) as u64, "schedules");
    let started = Instant::now();
    let summary = explore::explore_checking(&options, checks, Corpus::shipped(), |done| {
        if let Some(bar) = &bar {
            bar.set_position(u64::from(done));
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let seconds = started.elapsed().as_secs_f64();
    output::line(&format!(
        "{} schedules, {} steps in {seconds:.1}s ({:.0} schedules/s)",
        summary.cases,
        summary.steps,
        f64::from(summary.cases) / seconds.max(1e-9)
    ));
    let Some(found) = summary.found else {
        output::line("no check failed");
        return Ok(ExitCode::SUCCESS);
    };
    print_found(&found);
    match &found.path {
        Some(path) => confirm(&options, path, &found, &subject)?,
        None => output::print(&found.scenario),
    }
    output::line(&format!("explore again: callproof explore --subject {subject} --seed {seed} --cases {cases}"));
    Ok(ExitCode::FAILURE)
}

/// The failure: each violation once, then their evidence once.
fn print_found(found: &Found) {
    output::line(&format!(
        "FAIL  `{}` after case {} (shrunk from {} to {} moves)",
        found.check, found.case, found.moves.0, found.moves.1
    ));
    for violation in &found.violations {
        output::line(&format!("      ✗ {}", violation.message));
    }
    output::line("      evidence:");
    for line in human::evidence(None, found.violations.iter()) {
        output::line(&format!("          {line}"));
    }
}

/// Replays the written scenario over loopback HTTP and says whether it fails the same check there.
fn confirm(options: &explore::Options, path: &Path, found: &Found, subject: &str) -> Result<(), Error> {
    output::line(&format!("wrote {}", path.display()));
    let replayed = super::runtime()?.block_on(explore::replays_over_loopback(
        options.subject.clone(),
        Corpus::shipped(),
        path,
        found.check,
    ));
    let verdict = match replayed {
        Ok(true) => "fails the same check: confirmed".to_owned(),
        Ok(false) => "does NOT fail the same check (the failure depends on simulated timing)".to_owned(),
        Err(error) => format!("could not be replayed: {error}"),
    };
    output::line(&format!("over loopback HTTP (wiremock) the file {verdict}"));
    output::line(&format!("replay: callproof run --subject {subject} {}", path.display()));
    Ok(())
}
