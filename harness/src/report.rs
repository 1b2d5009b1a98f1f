//! Human-readable reports: one line per scenario, the violations under it, then a tally per check.
//!
//! Rule enforced here: the report is a pure function of the suite report, in its order, so two runs of the
//! same suite print the same text apart from timings.

use crate::checks::{Level, Outcome};
use crate::suite::{ScenarioReport, SuiteReport};
use std::fmt::Write;

/// The line printed when a scenario finishes.
pub fn scenario_line(report: &ScenarioReport) -> String {
    let status = if report.must_failed() {
        "FAIL"
    } else if report.failed(Level::Should).next().is_some() {
        "WARN"
    } else {
        "PASS"
    };
    let failed: Vec<&str> = report
        .verdicts
        .iter()
        .filter(|verdict| matches!(verdict.outcome, Outcome::Fail { .. }))
        .map(|verdict| verdict.check.as_str())
        .collect();
    let mut line = format!("{status}  {:<48} {:>6.2}s", report.name, report.seconds);
    if let Some(error) = &report.error {
        let _ = write!(line, "  could not run: {error}");
    } else if !failed.is_empty() {
        let _ = write!(line, "  {}", failed.join(", "));
    }
    line
}

/// The violations of one scenario, indented, with evidence.
pub fn scenario_details(report: &ScenarioReport) -> String {
    let mut text = String::new();
    for verdict in &report.verdicts {
        let Outcome::Fail { violations } = &verdict.outcome else { continue };
        for violation in violations {
            let _ = writeln!(text, "      {} [{}] {}", verdict.check, verdict.level.as_str(), violation.message);
            for line in &violation.evidence {
                let _ = writeln!(text, "          {line}");
            }
        }
    }
    text
}

/// The closing summary: a tally per check and the verdict of the run.
pub fn summary(report: &SuiteReport) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "\nchecks against {}:", report.subject);
    let _ = writeln!(text, "  {:<34} {:<6} {:>5} {:>5} {:>5}", "check", "level", "pass", "fail", "skip");
    for (check, tally) in report.tallies() {
        let _ = writeln!(
            text,
            "  {:<34} {:<6} {:>5} {:>5} {:>5}",
            check.id,
            check.level.as_str(),
            tally.pass,
            tally.fail,
            tally.skip
        );
    }
    let failed = report.scenarios.iter().filter(|scenario| scenario.must_failed()).count();
    let _ = writeln!(
        text,
        "\n{} scenarios, {} failed a MUST check: {}",
        report.scenarios.len(),
        failed,
        if failed == 0 { "PASS" } else { "FAIL" }
    );
    text
}
