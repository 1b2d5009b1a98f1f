//! The conform report: per scenario and per check, a status (pass, fail, skip, expected-fail), the evidence,
//! and the verdict of the run with its exit code. Serialized, it is the JSON report (docs/report.schema.json).
//!
//! Rule enforced here: the report is a pure function of the suite's verdicts, the baseline and what the
//! subject declared it supports; the exit code follows from it alone: 3 when the executor broke the protocol,
//! else 1 when a required check failed or a baseline entry went stale, else 0.

use super::Profile;
use super::baseline::{Baseline, Entry};
use crate::checks::{self, Outcome, Violation};
use crate::protocol::{Capabilities, FromExecutor};
use crate::scenario::Scenario;
use crate::subject::Support;
use crate::suite::ScenarioReport;
use crate::transcript::{Answer, Transcript};
use serde::Serialize;

/// The version of the report's JSON form.
pub const REPORT_VERSION: u32 = 1;

/// A status, of a check on a scenario or of a whole scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Status {
    /// Judged and holds.
    #[serde(rename = "pass")]
    Pass,
    /// Judged and broken (or, for a scenario, the executor broke).
    #[serde(rename = "fail")]
    Fail,
    /// Not judged: nothing to judge, or the scenario was not run.
    #[serde(rename = "skip")]
    Skip,
    /// Broken, as the baseline or the executor's declared limits say it would be.
    #[serde(rename = "expected-fail")]
    ExpectedFail,
    /// Broken, but the profile does not require it: judged only as advice ([`super::Options::advisory`]), so
    /// it does not fail the run.
    #[serde(rename = "warn")]
    Warn,
}

impl Status {
    /// The word used in human output.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
            Status::ExpectedFail => "XFAIL",
            Status::Warn => "WARN",
        }
    }
}

/// One check's result on one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct CheckResult {
    /// The check id.
    pub id: String,
    /// `MUST` or `SHOULD`.
    pub level: &'static str,
    /// The rule in one line.
    pub rule: &'static str,
    /// Where the rule comes from in the seed.
    pub seed_ref: &'static str,
    /// The status.
    pub status: Status,
    /// Why it was skipped or expected to fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What is wrong, each with the transcript lines that show it (empty unless it failed).
    pub violations: Vec<Violation>,
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// The scenario id: its path below scenarios/ without `.toml`.
    pub id: String,
    /// Its file.
    pub path: String,
    /// What it pins.
    pub description: String,
    /// Where its behaviour comes from in the seed.
    pub seed_ref: Option<String>,
    /// The status.
    pub status: Status,
    /// Why it failed as a whole, was skipped, or is expected to fail; otherwise what the run left out (corpus
    /// cases for tools the executor does not declare).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether the executor broke the protocol (or could not be started) in it; `reason` says how.
    pub protocol_break: bool,
    /// Wall time.
    pub seconds: f64,
    /// Per check, in registry order.
    pub checks: Vec<CheckResult>,
    /// The run itself (for timelines).
    #[serde(skip)]
    pub transcript: Option<Transcript>,
}

/// The verdict of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// 0: every required check passed; 1: check failures or a stale baseline; 3: the executor broke.
    pub exit_code: u8,
    /// `passed`, `check_failures`, `stale_baseline` or `protocol_break`.
    pub reason: &'static str,
    /// One sentence for people.
    pub message: String,
}

/// Counts of scenario statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Scenarios in the run (after partitioning).
    pub scenarios: usize,
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Skipped.
    pub skip: usize,
    /// Failed as expected.
    pub expected_fail: usize,
    /// Failed only checks the profile does not require (absent from JSON when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub warn: usize,
    /// Baseline entries that no longer fail.
    pub stale_baseline: usize,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// The executor as the report names it.
#[derive(Debug, Clone, Serialize)]
pub struct Executor {
    /// The subject's name (for a process, its command).
    pub subject: String,
    /// What the process declared in answer to hello, when it is a process (serialized as the message, with
    /// its `type`).
    #[serde(serialize_with = "as_message")]
    pub capabilities: Option<Capabilities>,
}

fn as_message<S: serde::Serializer>(capabilities: &Option<Capabilities>, to: S) -> Result<S::Ok, S::Error> {
    capabilities.clone().map(FromExecutor::Capabilities).serialize(to)
}

/// A whole conform run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// [`REPORT_VERSION`].
    pub report_version: u32,
    /// The protocol version the harness speaks.
    pub protocol: &'static str,
    /// callproof's version.
    pub harness_version: &'static str,
    /// The executor.
    pub executor: Executor,
    /// The profile: which checks are required.
    pub profile: Profile,
    /// The checks judged, by id.
    pub checks: Vec<String>,
    /// `k/n` when the suite was partitioned.
    pub partition: Option<String>,
    /// The `--filter` expressions, when any were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The baseline file, if one was given.
    pub baseline: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// Counts.
    pub summary: Summary,
    /// Wall time of the whole run.
    pub seconds: f64,
    /// Per scenario, in name order.
    pub scenarios: Vec<ScenarioResult>,
    /// Baseline entries that no longer fail (each fails the run).
    pub stale_baseline: Vec<Entry>,
}

impl Report {
    /// Whether the run passed.
    pub fn passed(&self) -> bool {
        self.verdict.exit_code == 0
    }

    /// The one JSON line printed on stderr when the exit code is not 0.
    pub fn reason_line(&self) -> String {
        reason_line(self.verdict.exit_code, self.verdict.reason, &self.verdict.message)
    }
}

/// The JSON line `callproof conform` ends stderr with on a non-zero exit: `{"callproof":"conform",
/// "exit_code":N,"reason":R,"message":M}` (docs/conform.md).
pub fn reason_line(exit_code: u8, reason: &str, message: &str) -> String {
    serde_json::json!({"callproof": "conform", "exit_code": exit_code, "reason": reason, "message": message})
        .to_string()
}

impl ScenarioResult {
    /// A scenario that was not run.
    pub fn skipped(scenario: &Scenario, checks: &[checks::Check], reason: String) -> ScenarioResult {
        ScenarioResult {
            id: scenario.name.clone(),
            path: scenario.path.display().to_string(),
            description: scenario.description.trim().to_owned(),
            seed_ref: scenario.seed_ref.clone(),
            status: Status::Skip,
            checks: checks
                .iter()
                .map(|check| check_result(check, Status::Skip, Some(reason.clone()), Vec::new()))
                .collect(),
            reason: Some(reason),
            seconds: 0.0,
            transcript: None,
            protocol_break: false,
        }
    }

    /// Judges a run scenario against the baseline and the subject's declared support. A failed check that
    /// `profile` does not require is a warning.
    pub fn judged(
        scenario: &Scenario,
        run: ScenarioReport,
        checks: &[checks::Check],
        support: &Support,
        judging: Judging<'_>,
    ) -> ScenarioResult {
        let broken = run.error.clone().or_else(|| run.transcript.as_ref().and_then(first_break));
        let results: Vec<CheckResult> = checks
            .iter()
            .map(|check| {
                let outcome =
                    run.verdicts.iter().find(|verdict| verdict.check == check.id).map(|verdict| &verdict.outcome);
                match outcome {
                    Some(Outcome::Pass) => check_result(check, Status::Pass, None, Vec::new()),
                    Some(Outcome::Skip) => {
                        check_result(check, Status::Skip, Some("nothing to judge".to_owned()), Vec::new())
                    }
                    Some(Outcome::Fail { violations }) => match judging.excuse(&scenario.name, check, support) {
                        Some(reason) => check_result(check, Status::ExpectedFail, Some(reason), violations.clone()),
                        None if judging.profile.requires(check) => {
                            check_result(check, Status::Fail, None, violations.clone())
                        }
                        None => check_result(check, Status::Warn, None, violations.clone()),
                    },
                    None => check_result(check, Status::Skip, Some("not run".to_owned()), Vec::new()),
                }
            })
            .collect();
        let (status, reason) = scenario_status(&results, broken.as_deref());
        // Corpus cases left out are said on any scenario that has no other reason to give.
        let left_out =
            run.transcript.as_ref().and_then(|transcript| crate::runner::left_out_note(&transcript.left_out));
        let reason = reason.or(left_out);
        ScenarioResult {
            id: scenario.name.clone(),
            path: scenario.path.display().to_string(),
            description: scenario.description.trim().to_owned(),
            seed_ref: scenario.seed_ref.clone(),
            status,
            reason,
            seconds: run.seconds,
            checks: results,
            transcript: run.transcript,
            protocol_break: broken.is_some(),
        }
    }
}

/// A scenario's status and reason from its checks': broken when the executor broke (`broken` says how),
/// else failed when a check failed, else expected to fail (with the first excuse), else warned, else passed.
pub fn scenario_status(checks: &[CheckResult], broken: Option<&str>) -> (Status, Option<String>) {
    if let Some(why) = broken {
        (Status::Fail, Some(why.to_owned()))
    } else if checks.iter().any(|result| result.status == Status::Fail) {
        (Status::Fail, None)
    } else if let Some(excused) = checks.iter().find(|result| result.status == Status::ExpectedFail) {
        (Status::ExpectedFail, excused.reason.clone())
    } else if checks.iter().any(|result| result.status == Status::Warn) {
        (Status::Warn, None)
    } else {
        (Status::Pass, None)
    }
}

/// What a failure is judged against: the checks the profile requires, and the baseline's excuses.
#[derive(Debug, Clone, Copy)]
pub struct Judging<'a> {
    /// Which checks are required.
    pub profile: Profile,
    /// The expected failures.
    pub baseline: &'a Baseline,
}

impl Judging<'_> {
    /// Why `check` failing in `scenario` is expected, if it is: the baseline lists it, or the subject
    /// declared a limit that explains it.
    fn excuse(&self, scenario: &str, check: &checks::Check, support: &Support) -> Option<String> {
        let listed = self.baseline.covering(scenario, check.id.as_str()).map(|entry| {
            let path = self.baseline.path.as_deref().map(|path| format!(" {path}")).unwrap_or_default();
            format!("listed in the baseline{path}, line {}", entry.line)
        });
        listed.or_else(|| match support {
            Support::ExpectFailure(reason) => Some(reason.clone()),
            _ => None,
        })
    }
}

fn check_result(
    check: &checks::Check,
    status: Status,
    reason: Option<String>,
    violations: Vec<Violation>,
) -> CheckResult {
    CheckResult {
        id: check.id.to_string(),
        level: check.level.as_str(),
        rule: check.rule,
        seed_ref: check.seed_ref,
        status,
        reason,
        violations,
    }
}

/// The first call the subject broke on (a protocol break, or no answer at all).
fn first_break(transcript: &Transcript) -> Option<String> {
    transcript.calls.iter().find_map(|call| match &call.answer {
        Answer::Broken(why) => Some(why.clone()),
        Answer::NoAnswer => Some(format!(
            "no answer to call #{} ({}) within its budget plus the harness's margin",
            call.index, call.call_id
        )),
        Answer::Envelope(_) | Answer::Malformed(_) | Answer::Killed => None,
    })
}

/// Baseline entries that name a scenario of this run and no longer fail.
pub fn stale(baseline: &Baseline, scenarios: &[ScenarioResult]) -> Vec<Entry> {
    baseline
        .entries
        .iter()
        .filter(|entry| {
            let Some(scenario) = scenarios.iter().find(|scenario| scenario.id == entry.scenario) else { return false };
            if scenario.status == Status::Skip && scenario.transcript.is_none() {
                return false;
            }
            match &entry.check {
                None => !scenario.checks.iter().any(|check| check.status == Status::ExpectedFail),
                Some(id) => scenario.checks.iter().find(|check| &check.id == id).is_some_and(|check| {
                    check.status != Status::ExpectedFail && check.reason.as_deref() != Some("not run")
                }),
            }
        })
        .cloned()
        .collect()
}

/// The verdict for these results.
pub fn verdict(scenarios: &[ScenarioResult], stale: &[Entry]) -> Verdict {
    if let Some(broken) = scenarios.iter().find(|scenario| scenario.protocol_break) {
        return Verdict {
            exit_code: 3,
            reason: "protocol_break",
            message: format!("in {}: {}", broken.id, broken.reason.as_deref().unwrap_or("the executor broke")),
        };
    }
    let failed: Vec<String> = scenarios
        .iter()
        .filter(|scenario| scenario.status == Status::Fail)
        .map(|scenario| {
            let checks: Vec<&str> = scenario
                .checks
                .iter()
                .filter(|check| check.status == Status::Fail)
                .map(|check| check.id.as_str())
                .collect();
            format!("{} ({})", scenario.id, checks.join(", "))
        })
        .collect();
    if !failed.is_empty() {
        return Verdict {
            exit_code: 1,
            reason: "check_failures",
            message: format!(
                "{} failed required checks: {}",
                plural(failed.len(), "scenario", "scenarios"),
                failed.join("; ")
            ),
        };
    }
    if !stale.is_empty() {
        let entries: Vec<String> = stale
            .iter()
            .map(|entry| {
                format!(
                    "line {}: {}{}",
                    entry.line,
                    entry.scenario,
                    entry.check.as_deref().map(|check| format!(" {check}")).unwrap_or_default()
                )
            })
            .collect();
        return Verdict {
            exit_code: 1,
            reason: "stale_baseline",
            message: format!(
                "{} no longer {}; remove {}: {}",
                plural(stale.len(), "baseline entry", "baseline entries"),
                if stale.len() == 1 { "fails" } else { "fail" },
                if stale.len() == 1 { "it" } else { "them" },
                entries.join("; ")
            ),
        };
    }
    let count = |status: Status| scenarios.iter().filter(|scenario| scenario.status == status).count();
    let (expected, skipped, warned) = (count(Status::ExpectedFail), count(Status::Skip), count(Status::Warn));
    let warned = if warned > 0 { format!(", {warned} with warnings") } else { String::new() };
    Verdict {
        exit_code: 0,
        reason: "passed",
        message: format!(
            "every required check passed in {} ({expected} failed as expected, {skipped} skipped{warned})",
            plural(scenarios.len(), "scenario", "scenarios")
        ),
    }
}

/// `1 scenario`, `2 scenarios`: a count with its noun in the right number.
pub fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// Counts.
pub fn summary(scenarios: &[ScenarioResult], stale: &[Entry]) -> Summary {
    let count = |status: Status| scenarios.iter().filter(|scenario| scenario.status == status).count();
    Summary {
        scenarios: scenarios.len(),
        pass: count(Status::Pass),
        fail: count(Status::Fail),
        skip: count(Status::Skip),
        expected_fail: count(Status::ExpectedFail),
        warn: count(Status::Warn),
        stale_baseline: stale.len(),
    }
}
