//! Exploration: generated schedules over the conformance app, checked after every step, shrunk to a minimal
//! scenario file when a check fails.
//!
//! Rule enforced here: exploration is reproducible. Case `i` of seed `S` is generated from its own RNG seeded
//! from `(S, i)`, so the same seed gives the same schedules whatever `--cases` or `--partition` say. An
//! in-process subject runs in simulation (the world reached without sockets, tokio time paused), so the same
//! schedule gives the same transcript; an executor process cannot share a paused clock, so it runs the same
//! schedules over loopback wiremock in real time ([`Transport::Loopback`]), judged by the same checks and
//! shrunk the same way. A generated fault the subject offers no control for (a kill of an executor whose store
//! does not survive a restart) is left out of the schedule, never judged. What exploration finds is written as
//! an ordinary scenario that `callproof run` and `callproof conform` replay with no explorer involved.

mod schedule;
mod shrink;

pub use crate::runner::Transport;
pub use schedule::{Call, Mangle, Move, WORLD, schedule, to_scenario, to_toml};
pub use shrink::neighbours;

use crate::Error;
use crate::checks::{self, Check, Context, Outcome, Violation};
use crate::corpus::Corpus;
use crate::partition::Partition;
use crate::runner::Runner;
use crate::scenario::{LoadErrors, Scenario};
use crate::subject::{SubjectError, SubjectFactory, Support};
use crate::transcript::Transcript;
use crate::world::fault::{FaultKind, Shape};
use callproof_executor::app::catalog_entries;
use callproof_executor::canonical::sha256_hex;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What to explore.
#[derive(Clone)]
pub struct Options {
    /// The executor under test.
    pub subject: Arc<dyn SubjectFactory>,
    /// How it reaches the world: [`Transport::Simulated`] (in-process subjects, paused time) or
    /// [`Transport::Loopback`] (any subject, executor processes included: wiremock, real time).
    pub transport: Transport,
    /// The seed; printed at the start so any run can be replayed.
    pub seed: u64,
    /// How many cases.
    pub cases: u32,
    /// Run only this slice of the cases (case `i` belongs to slice `i mod n + 1`).
    pub partition: Partition,
    /// Longest schedule, in moves.
    pub max_moves: usize,
    /// Where found scenarios are written (`None`: not written).
    pub out: Option<PathBuf>,
    /// Schedules run at once (at least 1). A real-time schedule mostly waits, so several at once go faster;
    /// the failure reported is still the first in case order, and shrinking tries candidates in the same order.
    pub jobs: usize,
}

impl Options {
    /// `cases` cases of `seed` against `subject` in simulation: the whole partition, schedules of up to 8
    /// moves, nothing written.
    pub fn simulated(subject: Arc<dyn SubjectFactory>, seed: u64, cases: u32) -> Options {
        Options {
            subject,
            transport: Transport::Simulated,
            seed,
            cases,
            partition: Partition::WHOLE,
            max_moves: 8,
            out: None,
            jobs: 1,
        }
    }
}

/// A failure, shrunk.
#[derive(Debug, Clone)]
pub struct Found {
    /// The case that first failed.
    pub case: u32,
    /// The check that failed.
    pub check: &'static str,
    /// Its violations on the minimal schedule.
    pub violations: Vec<Violation>,
    /// Moves in the original and in the minimal schedule.
    pub moves: (usize, usize),
    /// The minimal schedule.
    pub schedule: Vec<Move>,
    /// The minimal schedule as scenario TOML.
    pub scenario: String,
    /// Where it was written.
    pub path: Option<PathBuf>,
}

/// How an exploration went.
#[derive(Debug, Clone)]
pub struct Summary {
    /// Cases run.
    pub cases: u32,
    /// Cases not judged because the subject cannot run them (a tool missing from its capabilities).
    pub skipped: u32,
    /// Steps run (across all cases, shrinking excluded).
    pub steps: u64,
    /// Wall time of the search (the cases), shrinking excluded.
    pub searched: Duration,
    /// Schedules run while shrinking.
    pub shrink_runs: u32,
    /// Wall time of shrinking.
    pub shrunk: Duration,
    /// The first failure, shrunk.
    pub found: Option<Found>,
}

/// Explores with every check; `progress` is told after each case.
///
/// # Errors
/// [`SubjectError`] when the subject cannot be started (a process that does not start or answer `hello`).
pub fn explore(options: &Options, corpus: Arc<Corpus>, progress: impl Fn(u32)) -> Result<Summary, SubjectError> {
    explore_checking(options, checks::all(), corpus, progress)
}

/// [`explore`], judging only `checks` after every step (`callproof explore --filter`).
///
/// # Errors
/// [`SubjectError`] when the subject cannot be started.
pub fn explore_checking(
    options: &Options,
    checks: Vec<Check>,
    corpus: Arc<Corpus>,
    progress: impl Fn(u32),
) -> Result<Summary, SubjectError> {
    let mut explorer = Explorer::new(options.subject.clone(), options.transport, corpus, checks);
    explorer.jobs = options.jobs.max(1);
    let mut summary = Summary {
        cases: 0,
        skipped: 0,
        steps: 0,
        searched: Duration::ZERO,
        shrink_runs: 0,
        shrunk: Duration::ZERO,
        found: None,
    };
    let started = Instant::now();
    let cases: Vec<u32> = (0..options.cases).filter(|case| options.partition.contains(*case as usize)).collect();
    let schedule = |index: usize| explorer.adapt(case_schedule(options.seed, cases[index], options.max_moves));
    let mut failed = None;
    // In case order, whatever finishes first: the first failing case is the one reported.
    explorer.run_ordered(cases.len(), &schedule, |index, first| {
        summary.cases += 1;
        summary.skipped += u32::from(first.skipped.is_some());
        summary.steps += first.steps;
        progress(summary.cases);
        failed = first.failure.map(|(check, _)| (cases[index], check, first.moves));
        failed.is_some()
    })?;
    summary.searched = started.elapsed();
    if let Some((case, check, original)) = failed {
        let started = Instant::now();
        let before = explorer.runs();
        let mut tree = case_tree(options.seed, case, options.max_moves);
        let (moves, violations) = explorer.shrink(&mut tree, check)?;
        summary.shrink_runs = explorer.runs() - before;
        summary.shrunk = started.elapsed();
        summary.found = Some(explorer.found(options, case, check, original, moves, violations));
    }
    Ok(summary)
}

/// The schedule of case `case` of `seed`.
pub fn case_schedule(seed: u64, case: u32, max_moves: usize) -> Vec<Move> {
    case_tree(seed, case, max_moves).current()
}

/// The value tree of case `case` of `seed`.
pub fn case_tree(seed: u64, case: u32, max_moves: usize) -> Box<dyn ValueTree<Value = Vec<Move>>> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..12].copy_from_slice(&case.to_le_bytes());
    bytes[12..].copy_from_slice(b"callproof-explore-\x01\x02");
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    Box::new(schedule(max_moves).new_tree(&mut runner).expect("schedule strategies never reject"))
}

/// The result of running one schedule.
pub struct CaseRun {
    /// The first failing check and the step after which it failed.
    pub failure: Option<(&'static str, usize)>,
    /// Its violations.
    pub violations: Vec<Violation>,
    /// Steps run.
    pub steps: u64,
    /// Moves in the schedule.
    pub moves: usize,
    /// Why the schedule was not run, when the subject cannot run it.
    pub skipped: Option<String>,
    /// The transcript (up to the failure).
    pub transcript: Option<Transcript>,
}

impl CaseRun {
    /// Whether `check` failed.
    fn fails(&self, check: &str) -> bool {
        self.failure.is_some_and(|(failed, _)| failed == check)
    }
}

/// Runs schedules against one subject and judges them; the one loop for simulated and real-time subjects.
struct Explorer {
    subject: Arc<dyn SubjectFactory>,
    runner: Runner,
    transport: Transport,
    corpus: Arc<Corpus>,
    checks: Vec<Check>,
    /// The generated fault forms the subject cannot run; they are left out of every schedule.
    refused: Vec<&'static str>,
    /// Schedules run so far.
    runs: AtomicU32,
    /// Schedules run at once.
    jobs: usize,
}

impl Explorer {
    fn new(
        subject: Arc<dyn SubjectFactory>,
        transport: Transport,
        corpus: Arc<Corpus>,
        checks: Vec<Check>,
    ) -> Explorer {
        let runner = match transport {
            Transport::Simulated => Runner::new(subject.clone(), corpus.clone()).simulated(),
            Transport::Loopback => Runner::new(subject.clone(), corpus.clone()),
        };
        let mut explorer = Explorer {
            subject,
            runner,
            transport,
            corpus,
            checks,
            refused: Vec::new(),
            runs: AtomicU32::new(0),
            jobs: 1,
        };
        explorer.refused = explorer.refused_faults();
        explorer
    }

    /// A fresh runtime for one schedule: paused time in simulation, real time and I/O over loopback.
    fn runtime(&self) -> tokio::runtime::Runtime {
        let mut builder = tokio::runtime::Builder::new_current_thread();
        match self.transport {
            Transport::Simulated => builder.enable_time().start_paused(true),
            Transport::Loopback => builder.enable_all(),
        };
        builder.build().expect("a current-thread runtime builds")
    }

    fn runs(&self) -> u32 {
        self.runs.load(Ordering::Relaxed)
    }

    /// The generated fault forms the subject does not support: each is asked about on a one-call schedule
    /// (an executor process has no store control, and loses records on a kill without a durable store).
    fn refused_faults(&self) -> Vec<&'static str> {
        let runtime = self.runtime();
        FaultKind::generated()
            .into_iter()
            .filter(|generated| {
                let needs = generated.build(&Shape { budget_ms: 3000, count: 1 }).kind.needs();
                needs != crate::world::fault::Needs::Downstream && {
                    let probe = [Move::Submit {
                        call: Call::Refund { order: 0, amount: None },
                        mangle: Mangle::None,
                        auth: 0,
                        business: None,
                        budget_ms: 3000,
                        fault: Some(*generated),
                    }];
                    to_scenario(&probe, "probe")
                        .is_some_and(|scenario| runtime.block_on(self.subject.support(&scenario)) != Support::Full)
                }
            })
            .map(|generated| generated.label)
            .collect()
    }

    /// `moves` without the faults the subject refuses.
    fn adapt(&self, mut moves: Vec<Move>) -> Vec<Move> {
        for one in &mut moves {
            if let Move::Submit { fault, .. } | Move::Burst { fault, .. } | Move::Retry { fault, .. } = one
                && fault.is_some_and(|generated| self.refused.contains(&generated.label))
            {
                *fault = None;
            }
        }
        moves
    }

    /// The failure of case `case`, shrunk to `moves`, written under `options.out`.
    fn found(
        &self,
        options: &Options,
        case: u32,
        check: &'static str,
        original: usize,
        moves: Vec<Move>,
        violations: Vec<Violation>,
    ) -> Found {
        let description = format!(
            "Found by callproof explore: `{check}` fails for {} (seed {}, case {case}). Shrunk from {original} to {} moves.",
            self.subject.name(),
            options.seed,
            moves.len()
        );
        let scenario = to_toml(&moves, &description);
        let path = options.out.as_deref().and_then(|out| write_found(out, check, &scenario).ok());
        let shrunk = moves.len();
        Found { case, check, violations, moves: (original, shrunk), schedule: moves, scenario, path }
    }

    /// Runs schedule `schedule(i)` for `i` in `0..count`, up to [`Explorer::jobs`] at once, each on its own
    /// thread and runtime as a thread is free, and hands each result to `take` in the order of `i`. Once `take`
    /// answers `true`, no further schedule is started; its `i` is returned.
    ///
    /// # Errors
    /// The first [`SubjectError`] in that order.
    fn run_ordered(
        &self,
        count: usize,
        schedule: &(dyn Fn(usize) -> Vec<Move> + Sync),
        mut take: impl FnMut(usize, CaseRun) -> bool,
    ) -> Result<Option<usize>, SubjectError> {
        if self.jobs <= 1 {
            for index in 0..count {
                if take(index, self.run(&schedule(index))?) {
                    return Ok(Some(index));
                }
            }
            return Ok(None);
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (done, results) = std::sync::mpsc::channel();
            for _ in 0..self.jobs.min(count) {
                let done = done.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Acquire) {
                        let index = next.fetch_add(1, Ordering::AcqRel);
                        if index >= count || done.send((index, self.run(&schedule(index)))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(done);
            let mut waiting = BTreeMap::new();
            let mut expected = 0;
            let stopping = |result| {
                stop.store(true, Ordering::Release);
                result
            };
            for (index, run) in results {
                waiting.insert(index, run);
                while let Some(run) = waiting.remove(&expected) {
                    let taken = match run {
                        Ok(run) => take(expected, run),
                        Err(error) => return stopping(Err(error)),
                    };
                    if taken {
                        return stopping(Ok(Some(expected)));
                    }
                    expected += 1;
                }
            }
            Ok(None)
        })
    }

    /// Runs one schedule, judging after every step; stops at the first failure. A fault that never fired is
    /// not a finding: a generated fault may wait for a request the executor never sends.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be started.
    fn run(&self, moves: &[Move]) -> Result<CaseRun, SubjectError> {
        let mut result = CaseRun {
            failure: None,
            violations: Vec::new(),
            steps: 0,
            moves: moves.len(),
            skipped: None,
            transcript: None,
        };
        let Some(scenario) = to_scenario(moves, "exploration") else { return Ok(result) };
        self.runs.fetch_add(1, Ordering::Relaxed);
        let runtime = self.runtime();
        if let Support::Skip(why) | Support::ExpectFailure(why) = runtime.block_on(self.subject.support(&scenario)) {
            result.skipped = Some(why);
            return Ok(result);
        }
        let catalog = catalog_entries();
        // Judged with only the faults that fired; the transcript kept keeps them all. The faults are swapped
        // out and back rather than the transcript copied, which judging after every step would do each time.
        let judge = |transcript: &mut Transcript, result: &mut CaseRun, after: usize| {
            let armed = transcript.faults.iter().any(|log| log.fired == 0).then(|| {
                let fired = transcript.faults.iter().filter(|log| log.fired > 0).cloned().collect();
                std::mem::replace(&mut transcript.faults, fired)
            });
            let context = Context { transcript: &*transcript, scenario: &scenario, corpus: &self.corpus, catalog };
            let failed = self.checks.iter().find_map(|check| match (check.run)(&context) {
                Outcome::Fail { violations } => Some((check.id.as_str(), violations)),
                _ => None,
            });
            if let Some(armed) = armed {
                transcript.faults = armed;
            }
            if let Some((check, violations)) = failed {
                result.failure = Some((check, after));
                result.violations = violations;
            }
        };
        runtime.block_on(async {
            let mut session = self.runner.start(&scenario).await?;
            for step in 0..scenario.steps.len() {
                if session.step(step).await.is_err() {
                    break;
                }
                result.steps += 1;
                let mut transcript = session.transcript().await;
                judge(&mut transcript, &mut result, step);
                if result.failure.is_some() {
                    result.transcript = Some(transcript);
                    break;
                }
            }
            let mut transcript = session.finish().await;
            if result.failure.is_none() {
                judge(&mut transcript, &mut result, scenario.steps.len());
            }
            result.transcript.get_or_insert(transcript);
            Ok::<(), SubjectError>(())
        })?;
        Ok(result)
    }
}

/// Whether `check` fails on `moves`, run in simulation against `subject` (exploration's own judgement).
///
/// # Panics
/// When `subject` cannot be started in simulation (it is not in process).
pub fn fails(subject: Arc<dyn SubjectFactory>, corpus: Arc<Corpus>, moves: &[Move], check: &str) -> bool {
    let explorer = Explorer::new(subject, Transport::Simulated, corpus, checks::all());
    explorer.run(&explorer.adapt(moves.to_vec())).expect("an in-process subject starts").fails(check)
}

/// The transcript of `moves` run in simulation against `subject`.
///
/// # Panics
/// When `subject` cannot be started in simulation (it is not in process).
pub fn transcript_of(subject: Arc<dyn SubjectFactory>, corpus: Arc<Corpus>, moves: &[Move]) -> Option<Transcript> {
    let explorer = Explorer::new(subject, Transport::Simulated, corpus, Vec::new());
    explorer.run(&explorer.adapt(moves.to_vec())).expect("an in-process subject starts").transcript
}

/// Writes a found scenario as `<out>/<check>-<short hash>.toml`.
///
/// # Errors
/// The I/O error.
pub fn write_found(out: &Path, check: &str, scenario: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(out)?;
    let path = out.join(format!("{check}-{}.toml", &sha256_hex(scenario.as_bytes())[..8]));
    std::fs::write(&path, scenario)?;
    Ok(path)
}

/// Replays a found scenario over loopback HTTP (wiremock, real time): whether `check` fails there too.
///
/// # Errors
/// [`Error::Scenarios`] when the scenario does not load, [`Error::Executor`] when the subject cannot start.
pub async fn replays_over_loopback(
    subject: Arc<dyn SubjectFactory>,
    corpus: Arc<Corpus>,
    path: &Path,
    check: &str,
) -> Result<bool, Error> {
    let scenario = Scenario::load(path, path.parent().unwrap_or(path))
        .map_err(|error| Error::Scenarios(LoadErrors::Invalid(vec![error])))?;
    let transcript = Runner::new(subject, corpus.clone()).run(&scenario).await?;
    let context = Context { transcript: &transcript, scenario: &scenario, corpus: &corpus, catalog: catalog_entries() };
    Ok(checks::all().iter().any(|known| known.id == check && matches!((known.run)(&context), Outcome::Fail { .. })))
}

/// Runs schedule case `case` of `seed` in simulation and returns its timeline text (for determinism tests).
///
/// # Panics
/// When `subject` cannot be started in simulation (it is not in process).
pub fn timeline_of_case(
    subject: Arc<dyn SubjectFactory>,
    corpus: Arc<Corpus>,
    seed: u64,
    case: u32,
    max_moves: usize,
) -> String {
    let explorer = Explorer::new(subject, Transport::Simulated, corpus, checks::all());
    let moves = explorer.adapt(case_schedule(seed, case, max_moves));
    let run = explorer.run(&moves).expect("an in-process subject starts");
    run.transcript.map(|transcript| crate::timeline::text(&transcript)).unwrap_or_default()
}

#[cfg(test)]
mod tests;
