//! The human report, the one every command that runs the suite prints (`run` and `conform`): a line per
//! scenario as it finishes, the evidence under each failure, a tally per check, then the counts and the verdict.
//!
//! Rule enforced here: the text is a pure function of the [`Report`], in its order, so two runs of the same
//! suite print the same text apart from timings.

use super::report::{Report, ScenarioResult, Status};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The line printed when a scenario finishes: its status, id and time, the checks that failed, and why it
/// failed as a whole, was skipped or excused.
pub fn scenario_line(result: &ScenarioResult) -> String {
    let mut line = format!("{:<5} {:<48} {:>6.2}s", result.status.label(), result.id, result.seconds);
    let failed: Vec<&str> = result
        .checks
        .iter()
        .filter(|check| matches!(check.status, Status::Fail | Status::ExpectedFail | Status::Warn))
        .map(|check| check.id.as_str())
        .collect();
    if !failed.is_empty() {
        let _ = write!(line, "  {}", failed.join(", "));
    }
    if let Some(reason) = &result.reason {
        let _ = write!(line, "  ({})", reason.lines().next().unwrap_or_default());
    }
    line
}

/// The violations of one scenario, indented, with evidence; and the full reason when it broke. Only failures
/// unless `all`, which adds warnings and expected failures.
pub fn scenario_details(result: &ScenarioResult, all: bool) -> String {
    let mut text = String::new();
    if result.protocol_break
        && let Some(reason) = &result.reason
    {
        for line in reason.lines() {
            let _ = writeln!(text, "      {line}");
        }
    }
    let shown = |status: Status| status == Status::Fail || all && matches!(status, Status::Warn | Status::ExpectedFail);
    for check in result.checks.iter().filter(|check| shown(check.status)) {
        for violation in &check.violations {
            let _ = writeln!(text, "      {} [{}] {}", check.id, check.level, violation.message);
            for line in &violation.evidence {
                let _ = writeln!(text, "          {line}");
            }
        }
    }
    text
}

/// Whether a finished scenario's details are printed under its line.
pub fn shows_details(result: &ScenarioResult, verbose: bool) -> bool {
    result.status == Status::Fail || verbose
}

/// The whole human report: a header, a line per scenario (details under failures), then the [`footer`].
pub fn human(report: &Report) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "callproof conform: {} (profile {})", report.executor.subject, report.profile.as_str());
    if let Some(capabilities) = &report.executor.capabilities {
        let features =
            if capabilities.features.is_empty() { "none".to_owned() } else { capabilities.features.join(", ") };
        let _ = writeln!(text, "executor: {} {} (features: {features})", capabilities.name, capabilities.version);
    }
    for scenario in &report.scenarios {
        let _ = writeln!(text, "{}", scenario_line(scenario));
        if shows_details(scenario, false) {
            text.push_str(&scenario_details(scenario, false));
        }
    }
    text.push_str(&footer(report));
    text
}

/// Per check judged, in registry order, how many scenarios it passed, failed (warnings included), failed as
/// expected and skipped. The expected-failure column shows only when there is one.
pub fn tally(report: &Report) -> String {
    #[derive(Default)]
    struct Counts<'a> {
        level: &'a str,
        pass: usize,
        fail: usize,
        expected: usize,
        skip: usize,
    }
    let mut by_id: BTreeMap<&str, Counts> = BTreeMap::new();
    for check in report.scenarios.iter().flat_map(|scenario| &scenario.checks) {
        let counts = by_id.entry(check.id.as_str()).or_default();
        counts.level = check.level;
        match check.status {
            Status::Pass => counts.pass += 1,
            Status::Fail | Status::Warn => counts.fail += 1,
            Status::ExpectedFail => counts.expected += 1,
            Status::Skip => counts.skip += 1,
        }
    }
    let xfail = by_id.values().any(|counts| counts.expected > 0);
    let column = |text: String| if xfail { text } else { String::new() };
    let mut text = String::new();
    let _ = writeln!(text, "\nchecks against {}:", report.executor.subject);
    let _ = writeln!(
        text,
        "  {:<34} {:<6} {:>5} {:>5}{} {:>5}",
        "check",
        "level",
        "pass",
        "fail",
        column(format!(" {:>5}", "xfail")),
        "skip"
    );
    for id in &report.checks {
        let Some(counts) = by_id.get(id.as_str()) else { continue };
        let _ = writeln!(
            text,
            "  {:<34} {:<6} {:>5} {:>5}{} {:>5}",
            id,
            counts.level,
            counts.pass,
            counts.fail,
            column(format!(" {:>5}", counts.expected)),
            counts.skip
        );
    }
    text
}

/// The end of the human report: the tally, stale baseline entries, counts and the verdict.
pub fn footer(report: &Report) -> String {
    let mut text = tally(report);
    for entry in &report.stale_baseline {
        let _ = writeln!(
            text,
            "STALE baseline line {}: {}{} no longer fails; remove it",
            entry.line,
            entry.scenario,
            entry.check.as_deref().map(|check| format!(" {check}")).unwrap_or_default()
        );
    }
    let summary = &report.summary;
    let warned = if summary.warn > 0 { format!(", {} warn", summary.warn) } else { String::new() };
    let _ = writeln!(
        text,
        "\n{} scenarios: {} pass, {} fail, {} expected-fail, {} skip{warned}{}",
        summary.scenarios,
        summary.pass,
        summary.fail,
        summary.expected_fail,
        summary.skip,
        report.partition.as_deref().map(|partition| format!(" (partition {partition})")).unwrap_or_default()
    );
    let _ = writeln!(text, "{}: {}", if report.passed() { "PASS" } else { "FAIL" }, report.verdict.message);
    text
}
