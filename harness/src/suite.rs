//! The suite: replay scenarios against one subject and judge each with the checks. Finding the files is
//! [`Scenario::discover`]; reporting is [`crate::conform`]'s.
//!
//! Rule enforced here: reports come back in the order the scenarios were given and verdicts in the order of
//! the checks, so two runs judge alike; a subject that cannot run a scenario is recorded, never skipped silently.

use crate::checks::{self, Check, Context, Level, Outcome, Verdict};
use crate::corpus::Corpus;
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::SubjectError;
use crate::transcript::Transcript;
use callproof_executor::app::{CatalogEntry, catalog};
use futures::StreamExt;
use serde::Serialize;
use std::time::Instant;

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

    /// The subject's name.
    pub fn subject_name(&self) -> String {
        self.runner.subject_name()
    }

    /// Whether the subject can be judged on `scenario` ([`Runner::support`]).
    pub async fn support(&self, scenario: &Scenario) -> crate::subject::Support {
        self.runner.support(scenario).await
    }

    /// Runs one scenario and judges it: what happened and every check's verdict.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be started or restarted for it.
    pub async fn judge(&self, scenario: &Scenario) -> Result<(Transcript, Vec<Verdict>), SubjectError> {
        let transcript = self.runner.run(scenario).await?;
        let context = Context { transcript: &transcript, scenario, corpus: &self.corpus, catalog: &self.catalog };
        let verdicts = checks::judge(&context, &self.checks);
        Ok((transcript, verdicts))
    }

    /// Runs one scenario and judges it, timed; a subject that cannot run it is recorded in the report.
    pub async fn run_one(&self, scenario: &Scenario) -> ScenarioReport {
        let started = Instant::now();
        let (verdicts, error, transcript) = match self.judge(scenario).await {
            Ok((transcript, verdicts)) => (verdicts, None, Some(transcript)),
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
