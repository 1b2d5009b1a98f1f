//! The suite: discover scenario files, replay them against one subject, judge them, summarise.
//!
//! Rule enforced here: scenarios are found and reported in sorted path order, checks in registry order, so
//! two runs print the same report; only MUST failures fail a run.

use crate::checks::{self, Check, Context, Level, Outcome, Verdict};
use crate::corpus::Corpus;
use crate::runner::Runner;
use crate::scenario::{Scenario, ScenarioError};
use crate::transcript::Transcript;
use callproof_executor::app::{CatalogEntry, catalog};
use futures::StreamExt;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Folders under a scenario root that hold data, not scenarios.
const NOT_SCENARIOS: [&str; 2] = ["corpus", "catalog"];

/// Finds scenario files under `paths` (files or folders), sorted. Names are relative to the nearest
/// ancestor folder called `scenarios` (or to the folder given).
///
/// # Errors
/// Every file that does not load, each naming file, line and field.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Scenario>, Vec<ScenarioError>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let root =
                if path.file_name().is_some_and(|name| name == "scenarios") { path.clone() } else { root_of(path) };
            walk(&root, path, &mut files);
        } else {
            files.push((root_of(path), path.clone()));
        }
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files.dedup_by(|a, b| a.1 == b.1);
    let (loaded, errors): (Vec<_>, Vec<_>) =
        files.iter().map(|(root, file)| Scenario::load(file, root)).partition(Result::is_ok);
    if errors.is_empty() {
        Ok(loaded.into_iter().filter_map(Result::ok).collect())
    } else {
        Err(errors.into_iter().filter_map(Result::err).collect())
    }
}

fn walk(root: &Path, folder: &Path, files: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(folder == root && NOT_SCENARIOS.contains(&name.as_str())) {
                walk(root, &path, files);
            }
        } else if path.extension().is_some_and(|extension| extension == "toml") {
            files.push((root.to_owned(), path));
        }
    }
}

fn root_of(file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .find(|folder| folder.file_name().is_some_and(|name| name == "scenarios"))
        .or_else(|| file.parent())
        .map(Path::to_owned)
        .unwrap_or_default()
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    /// Its name.
    pub name: String,
    /// Its file.
    pub path: String,
    /// What it pins.
    pub description: String,
    /// Each check's verdict.
    pub verdicts: Vec<Verdict>,
    /// Set when the subject could not be started for it.
    pub error: Option<String>,
    /// Wall time it took.
    pub seconds: f64,
    /// What happened.
    #[serde(skip)]
    pub transcript: Option<Transcript>,
}

impl ScenarioReport {
    /// Whether a MUST check failed (or the scenario could not run).
    pub fn must_failed(&self) -> bool {
        self.error.is_some() || self.failed(Level::Must).next().is_some()
    }

    /// The failed verdicts of `level`.
    pub fn failed(&self, level: Level) -> impl Iterator<Item = &Verdict> {
        self.verdicts
            .iter()
            .filter(move |verdict| verdict.level == level && matches!(verdict.outcome, Outcome::Fail { .. }))
    }
}

/// Pass/fail/skip counts of one check over the suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Scenarios where it held.
    pub pass: usize,
    /// Scenarios where it broke.
    pub fail: usize,
    /// Scenarios with nothing for it to judge.
    pub skip: usize,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// The subject's name.
    pub subject: String,
    /// Per scenario, in name order.
    pub scenarios: Vec<ScenarioReport>,
}

impl SuiteReport {
    /// Whether any MUST check failed anywhere.
    pub fn must_failed(&self) -> bool {
        self.scenarios.iter().any(ScenarioReport::must_failed)
    }

    /// Per check (registry order), how it fared.
    pub fn tallies(&self) -> Vec<(Check, Tally)> {
        let mut by_id: BTreeMap<&str, Tally> = BTreeMap::new();
        for verdict in self.scenarios.iter().flat_map(|scenario| &scenario.verdicts) {
            let tally = by_id.entry(verdict.check.as_str()).or_default();
            match verdict.outcome {
                Outcome::Pass => tally.pass += 1,
                Outcome::Fail { .. } => tally.fail += 1,
                Outcome::Skip => tally.skip += 1,
            }
        }
        checks::all().into_iter().filter_map(|check| Some((check, *by_id.get(check.id.as_str())?))).collect()
    }
}

/// Runs scenarios, `jobs` at a time, and judges each with `checks`.
pub struct Suite {
    runner: Runner,
    corpus: std::sync::Arc<Corpus>,
    catalog: Vec<CatalogEntry>,
    checks: Vec<Check>,
    jobs: usize,
}

impl Suite {
    /// A suite over `runner`'s subject.
    pub fn new(runner: Runner, corpus: std::sync::Arc<Corpus>, checks: Vec<Check>, jobs: usize) -> Suite {
        Suite { runner, corpus, catalog: catalog(), checks, jobs: jobs.max(1) }
    }

    /// Runs one scenario and judges it.
    pub async fn run_one(&self, scenario: &Scenario) -> ScenarioReport {
        let started = Instant::now();
        let (verdicts, error, transcript) = match self.runner.run(scenario).await {
            Ok(transcript) => {
                let context =
                    Context { transcript: &transcript, scenario, corpus: &self.corpus, catalog: &self.catalog };
                (checks::judge(&context, &self.checks), None, Some(transcript))
            }
            Err(error) => (Vec::new(), Some(error.to_string()), None),
        };
        ScenarioReport {
            name: scenario.name.clone(),
            path: scenario.path.display().to_string(),
            description: scenario.description.clone(),
            verdicts,
            error,
            seconds: started.elapsed().as_secs_f64(),
            transcript,
        }
    }

    /// Runs every scenario; `progress` is told each name as it finishes. Reports come back in input order.
    pub async fn run(&self, scenarios: &[Scenario], progress: impl Fn(&ScenarioReport)) -> SuiteReport {
        let reports = futures::stream::iter(scenarios)
            .map(|scenario| self.run_one(scenario))
            .buffered(self.jobs)
            .inspect(|report| progress(report))
            .collect()
            .await;
        SuiteReport { subject: self.runner.subject_name(), scenarios: reports }
    }
}
