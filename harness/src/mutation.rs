//! Mutation testing of the harness itself: run the suite against every known-bad executor and see which
//! checks catch which bug.
//!
//! Rule enforced here: every mutant names the checks it is meant to trip (in its row of
//! `callproof_executor::mutants::ALL`); a mutant that slips past one of them, or a reference executor that
//! trips anything, is a failure of the harness, reported as such.

use crate::checks::Outcome;
use crate::corpus::Corpus;
use crate::filter::{Filter, Pair};
use crate::partition::Partition;
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::InProcess;
use crate::suite::{ScenarioReport, Suite, SuiteReport};
use callproof_executor::mutants::{self, Mutant};
use futures::StreamExt;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tokio::sync::Semaphore;

/// Scenarios in flight at once, per core, across every executor of a run. They mostly wait on the downstream's
/// timers, but all share one runtime, and the scenarios with short budgets (300 ms) need it to answer on time:
/// on a 2-core machine under load 8, 32 in flight failed `expectations` in two to three timing scenarios on
/// every try, 16 in none of six.
pub const SCENARIO_SLOTS_PER_CORE: usize = 8;

/// One mutant's result.
#[derive(Debug, Clone, Serialize)]
pub struct MutantRow {
    /// The mutant.
    pub name: &'static str,
    /// Its bug.
    pub bug: &'static str,
    /// The checks it is meant to trip.
    pub meant: Vec<&'static str>,
    /// Every check that failed on it, with the scenarios where it did.
    pub caught_by: Vec<(String, Vec<String>)>,
    /// Checks it is meant to trip that did not.
    pub missed: Vec<&'static str>,
    /// Wall time of its suite.
    pub seconds: f64,
    /// The first scenario where a check it is meant to trip failed, as run (for the HTML report).
    #[serde(skip)]
    pub example: Option<ScenarioReport>,
}

impl MutantRow {
    /// Whether any check caught it.
    pub fn caught(&self) -> bool {
        !self.caught_by.is_empty()
    }
}

/// The whole table.
#[derive(Debug, Clone, Serialize)]
pub struct MutationReport {
    /// Checks the reference executor failed (must be empty), with the scenarios where each did.
    pub reference_failures: Vec<(String, Vec<String>)>,
    /// One row per mutant, in the order of the mutant table.
    pub rows: Vec<MutantRow>,
    /// `k/n` when the mutants were partitioned.
    pub partition: Option<String>,
    /// Wall time of the whole run.
    pub seconds: f64,
}

impl MutationReport {
    /// Caught mutants / all mutants.
    pub fn score(&self) -> f64 {
        if self.rows.is_empty() {
            return 0.0;
        }
        self.rows.iter().filter(|row| row.caught()).count() as f64 / self.rows.len() as f64
    }

    /// Whether the harness did its job: the reference is clean and every mutant tripped what it should.
    pub fn holds(&self) -> bool {
        self.reference_failures.is_empty() && self.rows.iter().all(|row| row.caught() && row.missed.is_empty())
    }
}

/// Every check that failed anywhere in a suite report where `filter` selects it, with the scenarios.
/// `scenarios` are the report's, in its order.
pub fn failed_checks(report: &SuiteReport, scenarios: &[Scenario], filter: &Filter) -> Vec<(String, Vec<String>)> {
    let mut failed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let all = crate::checks::all();
    for (scenario, own) in report.scenarios.iter().zip(scenarios) {
        if let Some(error) = &scenario.error {
            failed.entry("could-not-run".to_owned()).or_default().push(format!("{}: {error}", scenario.name));
        }
        let tags = crate::filter::tags(own);
        for verdict in &scenario.verdicts {
            let Some(check) = all.iter().find(|check| check.id == verdict.check) else { continue };
            let chosen = filter.selects(Pair { scenario: Some((&scenario.name, &tags)), check });
            if chosen && matches!(verdict.outcome, Outcome::Fail { .. }) {
                failed.entry(verdict.check.to_string()).or_default().push(scenario.name.clone());
            }
        }
    }
    failed.into_iter().collect()
}

/// How to run the mutants.
#[derive(Clone, Default)]
pub struct Options {
    /// Executors (the reference and the mutants) whose suites run at once, each scenario with its own world
    /// (0: four per core); all share [`SCENARIO_SLOTS_PER_CORE`] per core.
    pub jobs: usize,
    /// Only these mutants (empty: all).
    pub mutants: Vec<Mutant>,
    /// One slice of the mutants (in table order; the reference always runs).
    pub partition: Option<Partition>,
    /// Which (scenario, check) pairs count.
    pub filter: Filter,
}

/// An executor's suite finished: the reference (`row` is `None`) or a mutant.
#[derive(Debug, Clone, Copy)]
pub struct Finished<'a> {
    /// The executor's name (`reference` or the mutant's).
    pub name: &'a str,
    /// How many executors have finished, this one included.
    pub done: usize,
    /// How many run in all.
    pub total: usize,
    /// Its suite's wall time.
    pub seconds: f64,
    /// The mutant's row.
    pub row: Option<&'a MutantRow>,
}

/// Runs the suite against the reference and the chosen mutants, `options.jobs` executors at once; `progress`
/// hears of each as it finishes.
pub async fn run(
    scenarios: &[Scenario],
    corpus: Arc<Corpus>,
    options: &Options,
    progress: impl Fn(&Finished<'_>),
) -> MutationReport {
    let started = Instant::now();
    let chosen: Vec<Mutant> = if options.mutants.is_empty() { mutants::ALL.to_vec() } else { options.mutants.clone() };
    let chosen = chosen_slice(chosen, options.partition);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let jobs = if options.jobs == 0 { 4 * cores } else { options.jobs };
    let executors: Vec<Option<Mutant>> = std::iter::once(None).chain(chosen.into_iter().map(Some)).collect();
    let total = executors.len();
    let all = crate::checks::all();
    let selected: BTreeSet<String> = scenarios
        .iter()
        .flat_map(|scenario| options.filter.checks_for(scenario, &all))
        .map(|check| check.id.to_string())
        .collect();
    let order = crate::conform::order::longest_first(scenarios.iter());
    let slots = Semaphore::new(SCENARIO_SLOTS_PER_CORE * cores);
    let run = Run { scenarios, corpus, filter: &options.filter, selected, slots, order };
    let done = AtomicUsize::new(0);
    let mut finished: Vec<(usize, Finish)> = futures::stream::iter(executors.into_iter().enumerate())
        .map(|(index, mutant)| {
            let run = &run;
            async move { (index, run.executor(mutant).await) }
        })
        .buffer_unordered(jobs.max(1))
        .map(|(index, finish)| {
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            let name = finish.row.as_ref().map_or("reference", |row| row.name);
            progress(&Finished { name, done, total, seconds: finish.seconds, row: finish.row.as_ref() });
            (index, finish)
        })
        .collect()
        .await;
    finished.sort_by_key(|(index, _)| *index);
    let mut reference_failures = Vec::new();
    let mut rows = Vec::new();
    for (_, finish) in finished {
        match finish.row {
            Some(row) => rows.push(row),
            None => reference_failures = finish.failed,
        }
    }
    let partition = options.partition.map(|partition| partition.to_string());
    MutationReport { reference_failures, rows, partition, seconds: started.elapsed().as_secs_f64() }
}

/// What every executor of a run shares: the scenarios, the filter and the scenario slots.
struct Run<'a> {
    scenarios: &'a [Scenario],
    corpus: Arc<Corpus>,
    filter: &'a Filter,
    selected: BTreeSet<String>,
    slots: Semaphore,
    /// The order the scenarios start in, longest wait first.
    order: Vec<usize>,
}

/// One executor's suite, finished: its row (none for the reference), what failed, how long it took.
struct Finish {
    row: Option<MutantRow>,
    failed: Vec<(String, Vec<String>)>,
    seconds: f64,
}

impl Run<'_> {
    /// Runs the suite against the reference (`None`) or a mutant.
    async fn executor(&self, mutant: Option<Mutant>) -> Finish {
        let subject = mutant.as_ref().map_or_else(InProcess::reference, InProcess::mutant);
        let corpus = self.corpus.clone();
        let suite = Suite::new(Runner::new(Arc::new(subject), corpus.clone()), corpus, crate::checks::all(), 1);
        let begun = Instant::now();
        let report = self.suite(&suite).await;
        let seconds = begun.elapsed().as_secs_f64();
        let failed = failed_checks(&report, self.scenarios, self.filter);
        match mutant {
            None => Finish { row: None, failed, seconds },
            Some(mutant) => {
                Finish { row: Some(row(&mutant, failed, report, seconds, &self.selected)), failed: Vec::new(), seconds }
            }
        }
    }

    /// Runs every scenario of `suite`, the longest waiting first, each as soon as a slot is free. Reports come
    /// back in scenario order.
    async fn suite(&self, suite: &Suite) -> SuiteReport {
        let mut reports: Vec<(usize, ScenarioReport)> = futures::stream::iter(self.order.iter().copied())
            .map(|index| async move {
                let _slot = self.slots.acquire().await;
                (index, suite.run_one(&self.scenarios[index]).await)
            })
            .buffer_unordered(self.scenarios.len().max(1))
            .collect()
            .await;
        reports.sort_by_key(|(index, _)| *index);
        SuiteReport {
            subject: suite.subject_name(),
            scenarios: reports.into_iter().map(|(_, report)| report).collect(),
        }
    }
}

/// The slice of `chosen` the partition selects.
fn chosen_slice(chosen: Vec<Mutant>, partition: Option<Partition>) -> Vec<Mutant> {
    let partition = partition.unwrap_or_default();
    chosen.into_iter().enumerate().filter(|(index, _)| partition.contains(*index)).map(|(_, mutant)| mutant).collect()
}

/// A mutant's row: what caught it, what it was meant to trip and missed, and an example for the report.
fn row(
    mutant: &Mutant,
    caught_by: Vec<(String, Vec<String>)>,
    report: SuiteReport,
    seconds: f64,
    selected: &BTreeSet<String>,
) -> MutantRow {
    let tripped: BTreeSet<&str> = caught_by.iter().map(|(check, _)| check.as_str()).collect();
    let meant: Vec<&'static str> = mutant.trips.iter().copied().filter(|id| selected.contains(*id)).collect();
    let missed = meant.iter().copied().filter(|check| !tripped.contains(check)).collect();
    let example = report.scenarios.into_iter().find(|scenario| {
        scenario
            .verdicts
            .iter()
            .any(|verdict| meant.contains(&verdict.check.as_str()) && matches!(verdict.outcome, Outcome::Fail { .. }))
    });
    MutantRow { name: mutant.name, bug: mutant.bug, meant, caught_by, missed, seconds, example }
}

/// The table as text.
pub fn render(report: &MutationReport) -> String {
    crate::report::mutants::text(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::CheckId;

    #[test]
    fn every_mutant_names_the_checks_it_should_trip_and_they_exist() {
        for mutant in mutants::ALL {
            assert!(!mutant.trips.is_empty(), "{} lists no check", mutant.name);
            for check in mutant.trips.iter().chain(mutant.trips_as_process()) {
                assert!(CheckId::parse(check).is_ok(), "{}: unknown check {check}", mutant.name);
            }
        }
    }

    /// Checks that judge what only an MCP server's `tools/list` says, which no mutant of the in-process executor
    /// has: each is tripped by a buggy server of `examples/mcp-buggy/conform/` instead, in the named test.
    const TRIPPED_BY_AN_MCP_SERVER: &[(&str, &str)] = &[(
        "annotations-match-risk",
        "harness/tests/conform_mcp.rs a_deletion_that_claims_to_be_read_only_fails_annotations_match_risk_and_the_honest_server_passes_it",
    )];

    #[test]
    fn every_check_is_meant_to_be_tripped_by_some_mutant() {
        let meant: BTreeSet<&str> = mutants::ALL.iter().flat_map(|mutant| mutant.trips.iter().copied()).collect();
        for check in crate::checks::all() {
            let by_a_server = TRIPPED_BY_AN_MCP_SERVER.iter().any(|(id, _)| *id == check.id.as_str());
            assert!(
                meant.contains(check.id.as_str()) || by_a_server,
                "no known-bad executor is meant to trip `{}`",
                check.id
            );
        }
        for (id, test) in TRIPPED_BY_AN_MCP_SERVER {
            assert!(!meant.contains(id), "`{id}` has a mutant now: take it off the list");
            let (file, name) = test.split_once(' ').expect("a file and a test name");
            let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file))
                .expect("the test file");
            assert!(text.contains(&format!("fn {name}()")), "{file} has no test {name}");
        }
    }
}
