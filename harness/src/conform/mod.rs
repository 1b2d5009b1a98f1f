//! The whole scenario suite against one executor, judged: what `callproof conform` does for a process and
//! `callproof run` for the executor in process, and what [`conform_subject`] does from a Rust test.
//!
//! Rule enforced here: a run never hangs and never hides a break. Scenarios run a few at a time; the first
//! protocol break stops new scenarios from starting (they are reported as skipped, naming the break), and the
//! exit code says what happened: 0 every required check passed, 1 check failures or a stale baseline, 2 usage
//! or configuration, 3 the executor could not be started or broke the protocol. The selection of scenarios
//! (`--partition k/n`) and of checks (`--profile`, `--only`) is deterministic.

pub mod accept;
pub mod baseline;
pub mod human;
pub mod junit;
pub mod order;
pub mod report;

pub use crate::error::Error;
pub use crate::partition::Partition;
pub use baseline::Baseline;
pub use report::{Report, ScenarioResult, Status};

use crate::checks::{self, Check, Level};
use crate::corpus::Corpus;
use crate::filter::Filter;
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::{SubjectFactory, Support};
use crate::suite::Suite;
use futures::StreamExt;
use report::Judging;
use serde::Serialize;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Which checks are required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The MUST checks only (the default): SHOULD checks are not judged, or judged only as advice.
    #[default]
    Must,
    /// Every check, MUST and SHOULD, and every one is required.
    All,
}

impl Profile {
    /// `must` or `all`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Must => "must",
            Profile::All => "all",
        }
    }

    /// Whether a failure of `check` fails the run under this profile.
    pub fn requires(self, check: &Check) -> bool {
        self == Profile::All || check.level == Level::Must
    }
}

/// How to run and judge.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Which checks are required.
    pub profile: Profile,
    /// Only these checks (ids); empty means every check of the profile.
    pub only: Vec<String>,
    /// One slice of the suite.
    pub partition: Option<Partition>,
    /// Expected failures.
    pub baseline: Baseline,
    /// Scenarios run at once (0 means the default, [`default_jobs`]).
    pub jobs: usize,
    /// Which (scenario, check) pairs run: `--filter` (the default selects everything).
    pub filter: Filter,
    /// Also judge the checks the profile does not require, as advice: their failures are warnings that do not
    /// fail the run (`callproof run` does this; `conform` judges exactly what it requires).
    pub advisory: bool,
}

impl Options {
    /// The checks judged: the profile's (every check when `advisory`), narrowed by `only`.
    ///
    /// # Errors
    /// [`Error::UnknownCheck`], or [`Error::NotInProfile`] for a SHOULD check the profile does not judge.
    pub fn checks(&self) -> Result<Vec<Check>, Error> {
        let judged = |check: &Check| self.advisory || self.profile.requires(check);
        if self.only.is_empty() {
            return Ok(checks::all().into_iter().filter(judged).collect());
        }
        self.only
            .iter()
            .map(|id| {
                let check = checks::by_id(id).ok_or_else(|| Error::UnknownCheck(id.clone()))?;
                if judged(&check) { Ok(check) } else { Err(Error::NotInProfile(id.clone())) }
            })
            .collect()
    }
}

/// What a run reports while it goes.
pub trait Progress: Send + Sync {
    /// A scenario finished (or was skipped).
    fn finished(&self, result: &ScenarioResult);
}

impl<F: Fn(&ScenarioResult) + Send + Sync> Progress for F {
    fn finished(&self, result: &ScenarioResult) {
        self(result)
    }
}

/// Runs `scenarios` against `factory`'s subjects and judges them.
///
/// # Errors
/// A configuration error (exit code 2): an unknown check, a baseline entry that names no scenario or check, a
/// filter that selects nothing.
pub async fn run(
    factory: Arc<dyn SubjectFactory>,
    scenarios: Vec<Scenario>,
    corpus: Arc<Corpus>,
    options: &Options,
    capabilities: Option<crate::protocol::Capabilities>,
    progress: &dyn Progress,
) -> Result<Report, Error> {
    let checks = options.checks()?;
    let names: Vec<&str> = scenarios.iter().map(|scenario| scenario.name.as_str()).collect();
    let ids: Vec<&str> = checks::all().iter().map(|check| check.id.as_str()).collect();
    options.baseline.validate(&names, &ids)?;
    let planned = plan(scenarios, &checks, options)?;
    let judged: Vec<Check> = checks
        .iter()
        .filter(|check| planned.iter().any(|(_, own)| own.iter().any(|mine| mine.id == check.id)))
        .cloned()
        .collect();
    let started = Instant::now();
    let subject = factory.name();
    let suite = Suite::new(Runner::new(factory, corpus.clone()), corpus, judged.clone(), 1);
    let judging = Judging { profile: options.profile, baseline: &options.baseline };
    let jobs = if options.jobs == 0 { default_jobs() } else { options.jobs };
    let results = run_all(&suite, &planned, judging, jobs, progress).await;
    let stale = report::stale(&options.baseline, &results);
    Ok(Report {
        report_version: report::REPORT_VERSION,
        protocol: crate::protocol::VERSION,
        harness_version: env!("CARGO_PKG_VERSION"),
        executor: report::Executor { subject, capabilities },
        profile: options.profile,
        checks: judged.iter().map(|check| check.id.to_string()).collect(),
        partition: options.partition.map(|partition| partition.to_string()),
        filter: (!options.filter.is_everything()).then(|| options.filter.to_string()),
        baseline: options.baseline.path.clone(),
        verdict: report::verdict(&results, &stale),
        summary: report::summary(&results, &stale),
        seconds: started.elapsed().as_secs_f64(),
        scenarios: results,
        stale_baseline: stale,
    })
}

/// Scenarios at once when the options do not say: four per core, since a scenario against an in-process
/// executor mostly waits on the downstream's timers, not on the CPU.
pub fn default_jobs() -> usize {
    4 * cores()
}

/// Scenarios at once against an executor process when the command line does not say: two per core. Starting
/// a process costs CPU (a Python executor: ~0.1 s of imports), and an executor starved of CPU answers late:
/// at four per core on a loaded 2-core machine the Python example once answered a 500 ms budget after 2.3 s.
pub fn default_process_jobs() -> usize {
    2 * cores()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The scenarios the filter and the partition select, each with the checks that judge it, sorted by id.
fn plan(scenarios: Vec<Scenario>, checks: &[Check], options: &Options) -> Result<Vec<(Scenario, Vec<Check>)>, Error> {
    let selected: Vec<Scenario> =
        scenarios.into_iter().filter(|scenario| !options.filter.checks_for(scenario, checks).is_empty()).collect();
    if selected.is_empty() {
        return Err(Error::Usage(format!("the filter {} selects no scenario and check", options.filter)));
    }
    let planned = options.partition.unwrap_or_default().select(selected);
    Ok(planned
        .into_iter()
        .map(|scenario| {
            let own = options.filter.checks_for(&scenario, checks);
            (scenario, own)
        })
        .collect())
}

/// Runs every planned scenario, `jobs` at once, the longest waiting first ([`order`]) and the next as soon
/// as one finishes (a slow scenario never holds up the others); `progress` hears of each as it finishes.
/// Results come back in plan order.
async fn run_all(
    suite: &Suite,
    planned: &[(Scenario, Vec<Check>)],
    judging: Judging<'_>,
    jobs: usize,
    progress: &dyn Progress,
) -> Vec<ScenarioResult> {
    let broken: Mutex<Option<String>> = Mutex::new(None);
    let started = order::longest_first(planned.iter().map(|(scenario, _)| scenario));
    let mut results: Vec<(usize, ScenarioResult)> = futures::stream::iter(started)
        .map(|index| {
            let (scenario, checks) = &planned[index];
            let broken = &broken;
            async move {
                let earlier = broken.lock().unwrap_or_else(PoisonError::into_inner).clone();
                if let Some(earlier) = earlier {
                    let why = format!("not run: the executor broke the protocol in {earlier}");
                    return (index, ScenarioResult::skipped(scenario, checks, why));
                }
                let support = suite.support(scenario).await;
                if let Support::Skip(reason) = support {
                    return (index, ScenarioResult::skipped(scenario, checks, reason));
                }
                let run = suite.run_one(scenario).await;
                let result = ScenarioResult::judged(scenario, run, checks, &support, judging);
                if result.protocol_break {
                    broken.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert_with(|| result.id.clone());
                }
                (index, result)
            }
        })
        .buffer_unordered(jobs.max(1))
        .inspect(|(_, result)| progress.finished(result))
        .collect()
        .await;
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// The scenarios shipped with callproof, embedded in the harness ([`crate::shipped`]).
///
/// # Errors
/// [`Error::Scenarios`]: an embedded scenario that does not load.
pub fn shipped_scenarios() -> Result<Vec<Scenario>, Error> {
    Ok(crate::shipped::scenarios()?)
}

/// Runs the shipped suite against an executor of yours, from Rust, and returns the report.
///
/// Implement [`SubjectFactory`] for your executor (or use [`crate::subject::InProcess`] or
/// [`crate::process::ProcessFactory`]), then judge it in your own `cargo test`:
///
/// ```no_run
/// use callproof_harness::conform::{Options, Profile};
/// use callproof_harness::subject::InProcess;
/// use std::sync::Arc;
///
/// #[tokio::test(flavor = "multi_thread")]
/// async fn my_executor_conforms() {
///     let options = Options { profile: Profile::Must, ..Options::default() };
///     let report = callproof_harness::conform_subject(Arc::new(InProcess::reference()), &options)
///         .await
///         .expect("the suite loads");
///     assert!(report.passed(), "{}", callproof_harness::conform::human::human(&report));
///     // or, in one line with a readable failure list:
///     callproof_harness::assert_conforms(Arc::new(InProcess::reference()), &options).await;
/// }
/// ```
///
/// # Errors
/// A configuration error: the shipped scenarios do not load, an unknown check, a bad baseline entry.
pub async fn conform_subject(factory: Arc<dyn SubjectFactory>, options: &Options) -> Result<Report, Error> {
    let scenarios = shipped_scenarios()?;
    run(factory, scenarios, Corpus::shipped(), options, None, &|_: &ScenarioResult| {}).await
}

/// [`conform_subject`], panicking with a readable list of every failure unless the run passes.
///
/// # Panics
/// When a required check fails, a baseline entry is stale, the subject breaks, or the options are wrong.
pub async fn assert_conforms(factory: Arc<dyn SubjectFactory>, options: &Options) {
    let report = match conform_subject(factory, options).await {
        Ok(report) => report,
        Err(error) => panic!("callproof conform could not run: {error}"),
    };
    if !report.passed() {
        let mut text = String::new();
        for scenario in report.scenarios.iter().filter(|scenario| scenario.status == Status::Fail) {
            text.push_str(&human::scenario_line(scenario));
            text.push('\n');
            text.push_str(&human::scenario_details(scenario, false));
        }
        panic!("callproof conform: {}\n{text}", report.verdict.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_must_profile_judges_only_must_checks_unless_asked_for_advice() {
        let must = Options::default().checks().expect("checks");
        assert!(must.iter().all(|check| check.level == Level::Must));
        let all = Options { profile: Profile::All, ..Options::default() }.checks().expect("checks");
        assert_eq!(all.len(), checks::all().len());
        let advised = Options { advisory: true, ..Options::default() }.checks().expect("checks");
        assert_eq!(advised.len(), checks::all().len());
        let should = Options { only: vec!["corpus-details".into()], ..Options::default() };
        assert!(matches!(should.checks(), Err(Error::NotInProfile(id)) if id == "corpus-details"));
        assert_eq!(Options { advisory: true, ..should }.checks().expect("advice").len(), 1);
        let unknown = Options { only: vec!["nope".into()], ..Options::default() };
        assert!(matches!(unknown.checks(), Err(Error::UnknownCheck(id)) if id == "nope"));
    }

    #[test]
    fn only_the_all_profile_requires_should_checks() {
        let should = checks::by_id("corpus-details").expect("a SHOULD check");
        let must = checks::by_id("single-effect").expect("a MUST check");
        assert!(!Profile::Must.requires(&should) && Profile::Must.requires(&must));
        assert!(Profile::All.requires(&should) && Profile::All.requires(&must));
    }
}
