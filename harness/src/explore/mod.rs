//! Exploration: generated schedules over the conformance app, checked after every step, shrunk to a minimal
//! scenario file when a check fails.
//!
//! Rule enforced here: exploration is reproducible. Case `i` of seed `S` is generated from its own RNG seeded
//! from `(S, i)`, so the same seed gives the same schedules whatever `--cases` or `--partition` say, and runs
//! in simulation (the world reached without sockets, tokio time paused), so the same schedule gives the same
//! transcript. What it finds is written as an ordinary scenario that `callproof run` replays over wiremock.

mod schedule;

pub use schedule::{Call, Mangle, Move, WORLD, schedule, to_scenario, to_toml};

use crate::Error;
use crate::checks::{self, Check, Context, Outcome, Violation};
use crate::corpus::Corpus;
use crate::partition::Partition;
use crate::runner::Runner;
use crate::scenario::{LoadErrors, Scenario};
use crate::subject::SubjectFactory;
use crate::transcript::Transcript;
use callproof_executor::app::catalog;
use callproof_executor::canonical::sha256_hex;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to explore.
#[derive(Clone)]
pub struct Options {
    /// The executor under test.
    pub subject: Arc<dyn SubjectFactory>,
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
    /// Steps run (across all cases, shrinking excluded).
    pub steps: u64,
    /// The first failure, shrunk.
    pub found: Option<Found>,
}

/// Explores; `progress` is told after each case.
pub fn explore(options: &Options, corpus: Arc<Corpus>, progress: impl Fn(u32)) -> Summary {
    explore_checking(options, checks::all(), corpus, progress)
}

/// [`explore`], judging only `checks` after every step (`callproof explore --filter`).
pub fn explore_checking(options: &Options, checks: Vec<Check>, corpus: Arc<Corpus>, progress: impl Fn(u32)) -> Summary {
    let explorer =
        Explorer { runner: Runner::new(options.subject.clone(), corpus.clone()).simulated(), corpus, checks };
    let mut summary = Summary { cases: 0, steps: 0, found: None };
    for case in (0..options.cases).filter(|case| options.partition.contains(*case as usize)) {
        let mut tree = case_tree(options.seed, case, options.max_moves);
        let first = explorer.run(&tree.current());
        summary.cases += 1;
        summary.steps += first.steps;
        progress(summary.cases);
        let Some((check, _)) = first.failure else { continue };
        let (moves, violations) = explorer.shrink(&mut tree, check);
        let original = first.moves;
        let description = format!(
            "Found by callproof explore: `{check}` fails for {} (seed {}, case {case}). Shrunk from {original} to {} moves.",
            options.subject.name(),
            options.seed,
            moves.len()
        );
        let scenario = to_toml(&moves, &description);
        let path = options.out.as_deref().and_then(|out| write_found(out, check, &scenario).ok());
        let shrunk = moves.len();
        summary.found =
            Some(Found { case, check, violations, moves: (original, shrunk), schedule: moves, scenario, path });
        break;
    }
    summary
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
    /// The transcript (up to the failure).
    pub transcript: Option<Transcript>,
}

struct Explorer {
    runner: Runner,
    corpus: Arc<Corpus>,
    checks: Vec<Check>,
}

impl Explorer {
    /// Runs one schedule in simulation, judging after every step; stops at the first failure. A fault that
    /// never fired is not a finding: a generated fault may wait for a request the executor never sends.
    fn run(&self, moves: &[Move]) -> CaseRun {
        let mut result =
            CaseRun { failure: None, violations: Vec::new(), steps: 0, moves: moves.len(), transcript: None };
        let Some(scenario) = to_scenario(moves, "exploration") else { return result };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime with paused time builds");
        let catalog = catalog();
        let judge = |transcript: &Transcript, result: &mut CaseRun, after: usize| {
            let fired_only;
            let transcript = if transcript.faults.iter().all(|log| log.fired > 0) {
                transcript
            } else {
                let faults = transcript.faults.iter().filter(|log| log.fired > 0).cloned().collect();
                fired_only = Transcript { faults, ..transcript.clone() };
                &fired_only
            };
            let context = Context { transcript, scenario: &scenario, corpus: &self.corpus, catalog: &catalog };
            let failed = self.checks.iter().find_map(|check| match (check.run)(&context) {
                Outcome::Fail { violations } => Some((check.id.as_str(), violations)),
                _ => None,
            });
            if let Some((check, violations)) = failed {
                result.failure = Some((check, after));
                result.violations = violations;
            }
        };
        runtime.block_on(async {
            let mut session = self.runner.start(&scenario).await.expect("an in-process subject starts");
            for step in 0..scenario.steps.len() {
                if session.step(step).await.is_err() {
                    break;
                }
                result.steps += 1;
                let transcript = session.transcript().await;
                judge(&transcript, &mut result, step);
                if result.failure.is_some() {
                    result.transcript = Some(transcript);
                    break;
                }
            }
            let transcript = session.finish().await;
            if result.failure.is_none() {
                judge(&transcript, &mut result, scenario.steps.len());
            }
            result.transcript.get_or_insert(transcript);
        });
        result
    }

    /// proptest's shrinking loop: simplify while the same check still fails, complicate back when it stops.
    fn shrink(
        &self,
        tree: &mut Box<dyn ValueTree<Value = Vec<Move>>>,
        check: &'static str,
    ) -> (Vec<Move>, Vec<Violation>) {
        let mut best = tree.current();
        let mut violations = self.run(&best).violations;
        let mut failing = true;
        for _ in 0..2000 {
            let moved = if failing { tree.simplify() } else { tree.complicate() };
            if !moved {
                break;
            }
            let candidate = tree.current();
            let run = self.run(&candidate);
            failing = run.failure.is_some_and(|(failed, _)| failed == check);
            if failing {
                best = candidate;
                violations = run.violations;
            }
        }
        // proptest's value tree stops at *a* simpler schedule; go on to a local minimum: no single move or fault
        // can be removed or simplified while the same check still fails.
        'smaller: loop {
            for candidate in neighbours(&best) {
                let run = self.run(&candidate);
                if run.failure.is_some_and(|(failed, _)| failed == check) {
                    best = candidate;
                    violations = run.violations;
                    continue 'smaller;
                }
            }
            break;
        }
        (best, violations)
    }
}

/// Every schedule one step simpler than `moves`: one move removed, one fault removed, or one move simplified
/// (arguments not mangled, a burst one call smaller, a shorter wait, no business request id).
pub fn neighbours(moves: &[Move]) -> Vec<Vec<Move>> {
    let mut simpler = Vec::new();
    for index in 0..moves.len() {
        let mut without = moves.to_vec();
        without.remove(index);
        simpler.push(without);
    }
    for (index, one) in moves.iter().enumerate() {
        for candidate in simplified(one) {
            let mut changed = moves.to_vec();
            changed[index] = candidate;
            simpler.push(changed);
        }
    }
    simpler
}

/// The ways one move can be made one step simpler.
fn simplified(one: &Move) -> Vec<Move> {
    let mut simpler = Vec::new();
    match one {
        Move::Submit { call, mangle, auth, business, budget_ms, fault } => {
            let submit = |mangle: Mangle, business: Option<u8>, fault: Option<crate::world::fault::Generated>| {
                Move::Submit { call: call.clone(), mangle, auth: *auth, business, budget_ms: *budget_ms, fault }
            };
            if fault.is_some() {
                simpler.push(submit(*mangle, *business, None));
            }
            if *mangle != Mangle::None {
                simpler.push(submit(Mangle::None, *business, *fault));
            }
            if business.is_some() {
                simpler.push(submit(*mangle, None, *fault));
            }
        }
        Move::Burst { call, auth, business, count, fault } => {
            let burst =
                |count: u32, fault| Move::Burst { call: call.clone(), auth: *auth, business: *business, count, fault };
            if fault.is_some() {
                simpler.push(burst(*count, None));
            }
            if *count > 2 {
                simpler.push(burst(count - 1, *fault));
            }
        }
        Move::Retry { op, fault: Some(_) } => simpler.push(Move::Retry { op: *op, fault: None }),
        Move::Wait { ms } if *ms > 100 => simpler.push(Move::Wait { ms: 100 }),
        _ => {}
    }
    simpler
}

/// Whether `check` fails on `moves`, run in simulation against `subject` (exploration's own judgement).
pub fn fails(subject: Arc<dyn SubjectFactory>, corpus: Arc<Corpus>, moves: &[Move], check: &str) -> bool {
    let explorer = Explorer { runner: Runner::new(subject, corpus.clone()).simulated(), corpus, checks: checks::all() };
    explorer.run(moves).failure.is_some_and(|(failed, _)| failed == check)
}

/// The transcript of `moves` run in simulation against `subject`.
pub fn transcript_of(subject: Arc<dyn SubjectFactory>, corpus: Arc<Corpus>, moves: &[Move]) -> Option<Transcript> {
    let explorer = Explorer { runner: Runner::new(subject, corpus.clone()).simulated(), corpus, checks: Vec::new() };
    explorer.run(moves).transcript
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
    let catalog = catalog();
    let context = Context { transcript: &transcript, scenario: &scenario, corpus: &corpus, catalog: &catalog };
    Ok(checks::all().iter().any(|known| known.id == check && matches!((known.run)(&context), Outcome::Fail { .. })))
}

/// Runs schedule case `case` of `seed` and returns its timeline text (for determinism tests and `--show`).
pub fn timeline_of_case(
    subject: Arc<dyn SubjectFactory>,
    corpus: Arc<Corpus>,
    seed: u64,
    case: u32,
    max_moves: usize,
) -> String {
    let explorer = Explorer { runner: Runner::new(subject, corpus.clone()).simulated(), corpus, checks: checks::all() };
    let moves = case_schedule(seed, case, max_moves);
    explorer.run(&moves).transcript.map(|transcript| crate::timeline::text(&transcript)).unwrap_or_default()
}
