//! Mutation testing of the harness itself: run the suite against every known-bad executor and see which
//! checks catch which bug.
//!
//! Rule enforced here: every mutant names the checks it is meant to trip (in its row of
//! `callproof_executor::mutants::ALL`); a mutant that slips past one of them, or a reference executor that
//! trips anything, is a failure of the harness, reported as such.

use crate::checks::Outcome;
use crate::corpus::Corpus;
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::InProcess;
use crate::suite::{Suite, SuiteReport};
use callproof_executor::mutants::{self, Mutant};
use futures::StreamExt;
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::Arc;

/// How many mutants run at once.
const MUTANTS_AT_ONCE: usize = 4;

/// One mutant's result.
#[derive(Debug, Clone, Serialize)]
pub struct MutantRow {
    /// The mutant.
    pub name: &'static str,
    /// Its bug.
    pub bug: &'static str,
    /// Every check that failed on it, with the scenarios where it did.
    pub caught_by: Vec<(String, Vec<String>)>,
    /// Checks it is meant to trip that did not.
    pub missed: Vec<&'static str>,
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
    /// Checks the reference executor failed (must be empty).
    pub reference_failures: Vec<String>,
    /// One row per mutant.
    pub rows: Vec<MutantRow>,
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

/// Every check that failed anywhere in a suite report, with the scenarios.
pub fn failed_checks(report: &SuiteReport) -> Vec<(String, Vec<String>)> {
    let mut failed: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for scenario in &report.scenarios {
        if let Some(error) = &scenario.error {
            failed.entry("could-not-run".to_owned()).or_default().push(format!("{}: {error}", scenario.name));
        }
        for verdict in &scenario.verdicts {
            if matches!(verdict.outcome, Outcome::Fail { .. }) {
                failed.entry(verdict.check.to_string()).or_default().push(scenario.name.clone());
            }
        }
    }
    failed.into_iter().collect()
}

/// Runs the suite against the reference and against each of `selected` (all mutants when empty).
pub async fn run(
    scenarios: &[Scenario],
    corpus: Arc<Corpus>,
    jobs: usize,
    selected: &[Mutant],
    progress: impl Fn(&str),
) -> MutationReport {
    let suite = |factory: InProcess| {
        Suite::new(Runner::new(Arc::new(factory), corpus.clone()), corpus.clone(), crate::checks::all(), jobs)
    };
    let reference = suite(InProcess::reference()).run(scenarios, |_| {}).await;
    progress("reference");
    let reference_failures = failed_checks(&reference).into_iter().map(|(check, _)| check).collect();
    let chosen: Vec<Mutant> = if selected.is_empty() { mutants::ALL.to_vec() } else { selected.to_vec() };
    // Mutants run a few at a time: scenarios mostly wait on timers, so the machine has room.
    let rows = futures::stream::iter(chosen)
        .map(|mutant| {
            let suite = suite(InProcess::mutant(&mutant));
            async move {
                let report = suite.run(scenarios, |_| {}).await;
                let caught_by = failed_checks(&report);
                let tripped: BTreeSet<&str> = caught_by.iter().map(|(check, _)| check.as_str()).collect();
                let missed = mutant.trips.iter().copied().filter(|check| !tripped.contains(check)).collect();
                MutantRow { name: mutant.name, bug: mutant.bug, caught_by, missed }
            }
        })
        .buffered(MUTANTS_AT_ONCE)
        .inspect(|row| progress(row.name))
        .collect()
        .await;
    MutationReport { reference_failures, rows }
}

/// The table as text.
pub fn render(report: &MutationReport) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let _ = writeln!(text, "{:<28} {:<7} checks that caught it", "mutant", "caught");
    for row in &report.rows {
        let checks: Vec<&str> = row.caught_by.iter().map(|(check, _)| check.as_str()).collect();
        let _ = writeln!(text, "{:<28} {:<7} {}", row.name, if row.caught() { "yes" } else { "NO" }, checks.join(", "));
        if !row.missed.is_empty() {
            let _ = writeln!(text, "{:<28} {:<7} MISSED (meant to trip): {}", "", "", row.missed.join(", "));
        }
    }
    let caught = report.rows.iter().filter(|row| row.caught()).count();
    let _ = writeln!(text, "\nmutation score: {caught}/{} = {:.0}%", report.rows.len(), report.score() * 100.0);
    if report.reference_failures.is_empty() {
        let _ = writeln!(text, "reference executor: no check failed");
    } else {
        let _ = writeln!(text, "reference executor FAILED: {}", report.reference_failures.join(", "));
    }
    text
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

    #[test]
    fn every_check_is_meant_to_be_tripped_by_some_mutant() {
        let meant: BTreeSet<&str> = mutants::ALL.iter().flat_map(|mutant| mutant.trips.iter().copied()).collect();
        for check in crate::checks::all() {
            assert!(meant.contains(check.id.as_str()), "no known-bad executor is meant to trip `{}`", check.id);
        }
    }
}
