//! `callproof explore`: generated schedules, checked after every step, against the in-process reference (or a
//! known-bad one) in simulation or against any executor process (`--executor`) in real time; what fails is
//! shrunk, written as a scenario file and replayed from that file to confirm it.
//!
//! Rule enforced here: the seed is always printed, with the command that explores again and the one that
//! replays what was found, so every run can be repeated.

use super::Error;
use super::output;
use super::reports::progress_bar;
use callproof_harness::checks;
use callproof_harness::conform::human;
use callproof_harness::corpus::Corpus;
use callproof_harness::explore::{self, Found, Transport};
use callproof_harness::filter::Filter;
use callproof_harness::partition::Partition;
use callproof_harness::process::ProcessFactory;
use callproof_harness::shell;
use callproof_harness::subject::{InProcess, SubjectFactory};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 no check failed; 1 a check failed (the shrunk scenario is printed \
                                     and written); 2 usage error; 3 the --executor could not be started.";

/// `callproof explore [--subject reference|mutant:NAME | --executor COMMAND] [--seed N] ...`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The executor under test in process, run in simulation: `reference`, or `mutant:NAME` for a known-bad
    /// one.
    #[arg(long, default_value = "reference", value_parser = super::in_process, conflicts_with = "executor")]
    subject: InProcess,
    /// An executor process speaking the adapter protocol (docs/protocol.md), as for `conform`, e.g.
    /// "callproof-executor --stdio --store memory". It runs over loopback HTTP in real time: slower than a
    /// subject in process.
    #[arg(long, value_name = "COMMAND")]
    executor: Option<String>,
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
    #[arg(long, default_value_t = DEFAULT_MOVES, value_parser = clap::value_parser!(u16).range(1..))]
    moves: u16,
    /// Where to write the minimal scenario of a failure (created if missing). The default is a folder of
    /// the current one, never the shipped `scenarios/found/`: pass `--out scenarios/found` to add to those.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Schedules run at once (default: 1 in simulation; four per core with --executor, whose schedules mostly
    /// wait in real time). The failure reported is the first in case order whatever the number.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Judge only the checks EXPR selects after every step: `check:ID`, `level:must|should`, joined with
    /// `&`, `|`, `!` (generated schedules have no path or tag).
    #[arg(long, short = 'E', value_name = "EXPR")]
    filter: Vec<String>,
}

/// Where found scenarios go by default: a folder of the current one, outside the tracked `scenarios/`.
pub(crate) const DEFAULT_OUT: &str = "callproof-found";
/// The longest schedule by default, in moves.
const DEFAULT_MOVES: u16 = 8;

/// What is explored: an in-process subject in simulation, or an executor process in real time.
enum Target {
    /// `--subject`.
    InProcess(InProcess),
    /// `--executor`: the command as given, and its factory.
    Process(String, Arc<ProcessFactory>),
}

impl Target {
    fn of(args: &Args) -> Result<Target, Error> {
        let Some(command) = &args.executor else { return Ok(Target::InProcess(args.subject.clone())) };
        let factory = ProcessFactory::new(command)?;
        super::conform::started(&super::runtime()?, &factory)?;
        Ok(Target::Process(command.clone(), Arc::new(factory)))
    }

    fn factory(&self) -> Arc<dyn SubjectFactory> {
        match self {
            Target::InProcess(subject) => Arc::new(subject.clone()),
            Target::Process(_, factory) => factory.clone(),
        }
    }

    fn transport(&self) -> Transport {
        match self {
            Target::InProcess(_) => Transport::Simulated,
            Target::Process(..) => Transport::Loopback,
        }
    }

    /// Schedules run at once unless `--jobs` says: one in simulation (it is CPU-bound), four per core for a
    /// process (its schedules mostly sleep through waits and slow downstreams, in real time).
    fn default_jobs(&self) -> usize {
        match self {
            Target::InProcess(_) => 1,
            Target::Process(..) => 2 * callproof_harness::conform::default_process_jobs(),
        }
    }

    /// The option that names it on a command line, quoted for a POSIX shell.
    fn option(&self) -> String {
        match self {
            Target::InProcess(subject) => format!("--subject {}", subject.name()),
            Target::Process(command, _) => format!("--executor {}", shell::join(std::slice::from_ref(command))),
        }
    }

    /// The command that replays a written scenario against the same executor.
    fn replay(&self, path: &Path) -> String {
        let path = shell::join(&[path.display().to_string()]);
        match self {
            Target::InProcess(_) => format!("callproof run {} {path}", self.option()),
            Target::Process(..) => format!("callproof conform {} {path}", self.option()),
        }
    }
}

/// Explores, prints what it found, and confirms it by replaying the written file.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let checks = Filter::parse(&args.filter)?.checks_without_scenarios(&checks::all())?;
    if checks.is_empty() {
        return Err(Error::Usage("the filter selects no check".to_owned()));
    }
    let target = Target::of(&args)?;
    let seed = args
        .seed
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64));
    let cases = args.cases;
    let time = match target.transport() {
        Transport::Simulated => "simulated time",
        Transport::Loopback => "real time over loopback HTTP",
    };
    output::line(&format!(
        "callproof explore: subject {}, seed {seed}, {cases} cases, partition {}, {time}",
        target.factory().name(),
        args.partition
    ));
    let options = explore::Options {
        subject: target.factory(),
        transport: target.transport(),
        seed,
        cases,
        partition: args.partition,
        max_moves: usize::from(args.moves),
        out: Some(args.out.clone()),
        jobs: args.jobs.map_or_else(|| target.default_jobs(), usize::from),
    };
    let bar = progress_bar(args.partition.size_of(cases as usize) as u64, "schedules");
    let summary = explore::explore_checking(&options, checks, Corpus::shipped(), |done| {
        if let Some(bar) = &bar {
            bar.set_position(u64::from(done));
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = summary?;
    print_rate(&summary);
    let again = again(&target, &args, seed);
    let Some(found) = summary.found else {
        output::line("no check failed");
        output::line(&again);
        return Ok(ExitCode::SUCCESS);
    };
    print_found(&found);
    match &found.path {
        Some(path) => confirm(&target, path, &found)?,
        None => output::print(&found.scenario),
    }
    output::line(&again);
    Ok(ExitCode::FAILURE)
}

/// Schedules per second: the cases over the wall time of the search; shrinking on its own line.
fn print_rate(summary: &explore::Summary) {
    let skipped = match summary.skipped {
        0 => String::new(),
        skipped => format!(" ({skipped} skipped: the executor cannot run them)"),
    };
    let seconds = summary.searched.as_secs_f64();
    output::line(&format!(
        "{} schedules{skipped}, {} steps in {seconds:.1}s ({:.1} schedules/s)",
        summary.cases,
        summary.steps,
        f64::from(summary.cases) / seconds.max(1e-9)
    ));
    if summary.shrink_runs > 0 {
        let seconds = summary.shrunk.as_secs_f64();
        output::line(&format!(
            "shrinking ran {} schedules in {seconds:.1}s ({:.1} schedules/s)",
            summary.shrink_runs,
            f64::from(summary.shrink_runs) / seconds.max(1e-9)
        ));
    }
}

/// The command that explores the same cases again.
fn again(target: &Target, args: &Args, seed: u64) -> String {
    let mut again =
        format!("explore again: callproof explore {} --seed {seed} --cases {}", target.option(), args.cases);
    if args.moves != DEFAULT_MOVES {
        again.push_str(&format!(" --moves {}", args.moves));
    }
    if args.partition != Partition::WHOLE {
        again.push_str(&format!(" --partition {}", args.partition));
    }
    if args.out != Path::new(DEFAULT_OUT) {
        again.push_str(&format!(" --out {}", shell::join(&[args.out.display().to_string()])));
    }
    for filter in &args.filter {
        again.push_str(&format!(" --filter {}", shell::join(std::slice::from_ref(filter))));
    }
    again
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

/// Replays the written file against the same executor (a fresh one, over loopback HTTP: wiremock, real time)
/// and says whether it fails the same check there.
fn confirm(target: &Target, path: &Path, found: &Found) -> Result<(), Error> {
    output::line(&format!("wrote {}", path.display()));
    let replayed = super::runtime()?.block_on(explore::replays_over_loopback(
        target.factory(),
        Corpus::shipped(),
        path,
        found.check,
    ));
    let verdict = match replayed {
        Ok(true) => "fails the same check: confirmed".to_owned(),
        Ok(false) => match target.transport() {
            Transport::Simulated => "does NOT fail the same check (the failure depends on simulated timing)",
            Transport::Loopback => "does NOT fail the same check this time (the failure depends on timing)",
        }
        .to_owned(),
        Err(error) => format!("could not be replayed: {error}"),
    };
    output::line(&format!("over loopback HTTP (wiremock) the file {verdict}"));
    output::line(&format!("replay: {}", target.replay(path)));
    Ok(())
}
