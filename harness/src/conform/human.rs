//! The human report, the one every command that runs the suite prints (`run` and `conform`): a line per
//! scenario as it finishes, the evidence under each failure, a tally per check, then the counts and the verdict.
//!
//! Rule enforced here: the text is a pure function of the [`Report`], in its order, so two runs of the same
//! suite print the same text apart from timings.

use super::report::{CheckResult, Report, ScenarioResult, Status, plural};
use crate::checks::Violation;
use crate::timeline;
use crate::transcript::{Exchange, Transcript};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The line printed when a scenario finishes: its status, id and time, the checks behind its status (the
/// failed ones of a failure, the excused ones of an expected failure, the advisory ones of a warning), and why
/// it failed as a whole, was skipped or excused.
pub fn scenario_line(result: &ScenarioResult) -> String {
    let mut line = format!("{:<5} {:<48} {:>6.2}s", result.status.label(), result.id, result.seconds);
    let behind = match result.status {
        Status::Fail => Status::Fail,
        Status::ExpectedFail => Status::ExpectedFail,
        Status::Warn => Status::Warn,
        Status::Pass | Status::Skip => Status::Pass,
    };
    let named: Vec<&str> = result
        .checks
        .iter()
        .filter(|check| behind != Status::Pass && check.status == behind)
        .map(|check| check.id.as_str())
        .collect();
    if !named.is_empty() {
        let _ = write!(line, "  {}", named.join(", "));
    }
    if let Some(reason) = &result.reason {
        let _ = write!(line, "  ({})", reason.lines().next().unwrap_or_default());
    }
    line
}

/// [`scenario_line`] as printed while a run goes: the count of finished scenarios after the status, as
/// nextest does (`PASS  [17/60] auth/missing_scope  0.13s`).
pub fn progress_line(result: &ScenarioResult, done: usize, total: usize) -> String {
    let line = scenario_line(result);
    let (status, rest) = line.split_at(line.find(' ').unwrap_or(line.len()));
    let width = total.to_string().len();
    format!("{status:<5} [{done:>width$}/{total}] {}", rest.trim_start())
}

/// The violations of one scenario, indented, each message once (repeats counted), then the evidence of all of them once, in the order
/// it happened (a burst judged by five checks prints its eight calls once, not five times); and the full
/// reason when it broke. Only failures unless `all`, which adds warnings and expected failures.
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
    let checks: Vec<&CheckResult> = result.checks.iter().filter(|check| shown(check.status)).collect();
    for check in &checks {
        let mut messages: Vec<(&str, usize)> = Vec::new();
        for violation in &check.violations {
            match messages.iter_mut().find(|(message, _)| *message == violation.message) {
                Some((_, count)) => *count += 1,
                None => messages.push((&violation.message, 1)),
            }
        }
        for (message, count) in messages {
            let times = if count > 1 { format!(" (×{count})") } else { String::new() };
            let _ = writeln!(text, "      ✗ {} [{}] {message}{times}", check.id, check.level);
        }
    }
    let violations = checks.iter().flat_map(|check| &check.violations);
    let lines = evidence(result.transcript.as_ref(), violations);
    if !lines.is_empty() {
        let _ = writeln!(text, "      evidence:");
        for line in lines {
            let _ = writeln!(text, "          {line}");
        }
    }
    text
}

/// The evidence lines of `checks`' violations, each once. With the run's transcript they come in the order
/// things happened, every request under its call, keys labelled `#1`, `#2` and commits named by effect as in
/// `callproof repro`; lines the transcript does not hold follow in the order first given.
pub fn evidence<'a>(transcript: Option<&Transcript>, violations: impl Iterator<Item = &'a Violation>) -> Vec<String> {
    let mut wanted: Vec<&str> = Vec::new();
    for line in violations.flat_map(|violation| &violation.evidence) {
        if !wanted.contains(&line.as_str()) {
            wanted.push(line);
        }
    }
    let Some(transcript) = transcript else {
        return wanted.into_iter().map(str::to_owned).collect();
    };
    let mut keys = timeline::labelled_keys(transcript);
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut lines = Vec::new();
    let mut request = |exchange: &Exchange, lines: &mut Vec<String>, used: &mut BTreeSet<String>| {
        let raw = exchange.line();
        if wanted.contains(&raw.as_str()) {
            let shown = timeline::exchange_text(exchange, transcript, &mut keys);
            lines.push(format!("  ↳ request #{} {shown}", exchange.record.index));
            used.insert(raw);
        }
    };
    for call in &transcript.calls {
        let own: Vec<&Exchange> = transcript.exchanges_of_call(call.index).collect();
        let named = wanted.contains(&call.line().as_str());
        if !named && !own.iter().any(|exchange| wanted.contains(&exchange.line().as_str())) {
            continue;
        }
        lines.push(call.line());
        used.insert(call.line());
        for exchange in own {
            request(exchange, &mut lines, &mut used);
        }
    }
    for exchange in transcript.exchanges.iter().filter(|exchange| exchange.call.is_none()) {
        request(exchange, &mut lines, &mut used);
    }
    lines.extend(wanted.into_iter().filter(|line| !used.contains(*line)).map(str::to_owned));
    lines
}

/// Whether a finished scenario's details are printed under its line.
pub fn shows_details(result: &ScenarioResult, verbose: bool) -> bool {
    result.status == Status::Fail || verbose
}

/// An MCP server's revision (`mcp 2026-07-28`), which the report names; callproof/1's version is the harness's
/// own and is not shown.
fn spoken(report: &Report) -> Option<&str> {
    let protocol = report.executor.capabilities.as_ref()?.protocol.as_str();
    protocol.starts_with("mcp ").then_some(protocol)
}

/// The whole human report: a header, a line per scenario (details under failures), then the [`footer`].
pub fn human(report: &Report) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "callproof conform: {} (profile {})", report.executor.subject, report.profile.as_str());
    if let Some(capabilities) = &report.executor.capabilities {
        let features =
            if capabilities.features.is_empty() { "none".to_owned() } else { capabilities.features.join(", ") };
        let spoken = spoken(report).map(|protocol| format!(", {protocol}")).unwrap_or_default();
        let (name, version) = (&capabilities.name, &capabilities.version);
        let _ = writeln!(text, "executor: {name} {version} (features: {features}{spoken})");
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
    let spoken = spoken(report).map(|protocol| format!(" ({protocol})")).unwrap_or_default();
    let _ = writeln!(text, "\nchecks against {}{spoken}:", report.executor.subject);
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
        "\n{}: {} pass, {} fail, {} expected-fail, {} skip{warned}{}",
        plural(summary.scenarios, "scenario", "scenarios"),
        summary.pass,
        summary.fail,
        summary.expected_fail,
        summary.skip,
        report.partition.as_deref().map(|partition| format!(" (partition {partition})")).unwrap_or_default()
    );
    let _ = writeln!(text, "{}: {}", if report.passed() { "PASS" } else { "FAIL" }, report.verdict.message);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conform::report::CheckResult;

    fn check(id: &str, status: Status) -> CheckResult {
        CheckResult {
            id: id.to_owned(),
            level: "MUST",
            rule: "",
            seed_ref: "",
            status,
            reason: None,
            violations: Vec::new(),
        }
    }

    fn scenario(status: Status, checks: Vec<CheckResult>) -> ScenarioResult {
        ScenarioResult {
            id: "a/b".to_owned(),
            path: "scenarios/a/b.toml".to_owned(),
            description: String::new(),
            seed_ref: None,
            status,
            reason: None,
            protocol_break: false,
            seconds: 0.25,
            checks,
            transcript: None,
        }
    }

    #[test]
    fn a_failed_scenario_names_only_its_failed_checks_not_the_excused_ones() {
        let checks = vec![
            check("single-effect", Status::ExpectedFail),
            check("same-key", Status::Fail),
            check("tenant-isolation", Status::Pass),
        ];
        let line = scenario_line(&scenario(Status::Fail, checks));
        assert!(line.starts_with("FAIL  a/b") && line.ends_with("0.25s  same-key"), "{line}");
        let excused =
            scenario_line(&scenario(Status::ExpectedFail, vec![check("single-effect", Status::ExpectedFail)]));
        assert!(excused.ends_with("single-effect"), "{excused}");
        assert!(scenario_line(&scenario(Status::Pass, vec![check("same-key", Status::Pass)])).ends_with("0.25s"));
    }

    #[test]
    fn the_progress_line_counts_after_the_status() {
        let line = progress_line(&scenario(Status::Pass, Vec::new()), 7, 61);
        assert!(line.starts_with("PASS  [ 7/61] a/b "), "{line}");
    }
}
