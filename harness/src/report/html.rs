//! The HTML report (`--html FILE`): one self-contained page per run of `run`, `conform`, `repro` or
//! `mutants`: a summary table (scenarios × checks), then per scenario its timeline as an SVG sequence
//! diagram with each failed check marked where it failed, its ledger, and the JSON evidence folded away.
//!
//! Rule enforced here: the page loads nothing (no script, no stylesheet, no font, no image from anywhere:
//! everything is inline), every text from a run is escaped, and every time it shows sits in an element of
//! class `t`, so a snapshot can blank the times and keep the rest.

use super::sequence;
use super::svg::{self, escape};
use crate::conform::report::{CheckResult, Report, ScenarioResult, Status, plural};
use crate::repro::{self, Repro};
use crate::timeline::{self, Mark};
use crate::transcript::Transcript;
use std::fmt::Write;

const STYLE: &str = include_str!("html.css");

/// The page around `body`.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n\
         <style>\n{STYLE}</style>\n</head>\n<body>\n{}\n{body}\n</body>\n</html>\n",
        escape(title),
        svg::defs()
    )
}

/// The `id` of a scenario's section in the page: `s-` and its id, every character outside `[a-z0-9-]` as `-`.
pub fn slug(id: &str) -> String {
    let slug: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c.to_ascii_lowercase() } else { '-' }).collect();
    format!("s-{slug}")
}

/// The CSS class and the symbol of a status in the table.
fn cell(status: Status) -> (&'static str, &'static str) {
    match status {
        Status::Pass => ("pass", "✓"),
        Status::Fail => ("fail", "✗"),
        Status::ExpectedFail => ("xfail", "✗"),
        Status::Warn => ("warn", "!"),
        Status::Skip => ("skip", "·"),
    }
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::ExpectedFail => "expected failure",
        Status::Warn => "warning",
        Status::Skip => "skip",
    }
}

/// The page of a suite run (`run`, `conform`).
pub fn conform(report: &Report) -> String {
    let mut body = String::new();
    let verdict = if report.passed() { "pass" } else { "fail" };
    let _ = write!(
        body,
        "<header><h1>callproof: {}</h1><p class=\"verdict {verdict}\">{}: {}</p><p class=\"meta\">profile {} · \
         {} judged · <span class=\"t\">{:.1}s</span>{}</p></header>",
        escape(&report.executor.subject),
        if report.passed() { "PASS" } else { "FAIL" },
        escape(headline(report)),
        report.profile.as_str(),
        plural(report.checks.len(), "check", "checks"),
        report.seconds,
        report.partition.as_deref().map(|partition| format!(" · partition {partition}")).unwrap_or_default()
    );
    body.push_str(&counts(report));
    body.push_str(&matrix(report));
    body.push_str("<section id=\"scenarios\"><h2>Scenarios</h2>\n");
    for scenario in &report.scenarios {
        body.push_str(&scenario_section(scenario));
    }
    body.push_str("</section>");
    page(&format!("callproof: {}", report.executor.subject), &body)
}

/// The verdict's message without the list of failed scenarios the table below shows anyway.
fn headline(report: &Report) -> &str {
    match report.verdict.reason {
        "check_failures" => report.verdict.message.split(": ").next().unwrap_or(&report.verdict.message),
        _ => &report.verdict.message,
    }
}

fn counts(report: &Report) -> String {
    let summary = &report.summary;
    let mut text = String::from("<section id=\"summary\"><h2>Summary</h2><p class=\"counts\">");
    for (class, count, word) in [
        ("pass", summary.pass, "pass"),
        ("fail", summary.fail, "fail"),
        ("xfail", summary.expected_fail, "expected-fail"),
        ("warn", summary.warn, "warn"),
        ("skip", summary.skip, "skip"),
    ] {
        let class = if count == 0 { "zero" } else { class };
        let _ = write!(text, "<span class=\"badge {class}\">{count} {word}</span> ");
    }
    let _ = write!(text, "of {}</p>", plural(summary.scenarios, "scenario", "scenarios"));
    for entry in &report.stale_baseline {
        let check = entry.check.as_deref().map(|check| format!(" {check}")).unwrap_or_default();
        let _ = write!(
            text,
            "<p class=\"stale\">stale baseline line {}: {}{} no longer fails; remove it</p>",
            entry.line,
            escape(&entry.scenario),
            escape(&check)
        );
    }
    text
}

/// The scenarios × checks table; a failed cell links to its mark on the timeline.
fn matrix(report: &Report) -> String {
    let mut text = String::from("<table class=\"matrix\"><thead><tr><th class=\"name\">scenario</th>");
    for id in &report.checks {
        let _ = write!(text, "<th class=\"check\"><span>{}</span></th>", escape(id));
    }
    text.push_str("</tr></thead><tbody>");
    for scenario in &report.scenarios {
        let (class, _) = cell(scenario.status);
        let _ = write!(
            text,
            "<tr class=\"{class}\"><th class=\"name\"><a href=\"#{}\">{}</a></th>",
            slug(&scenario.id),
            escape(&scenario.id)
        );
        let marks = marks_of(scenario);
        for id in &report.checks {
            let Some(check) = scenario.checks.iter().find(|check| &check.id == id) else {
                text.push_str("<td></td>");
                continue;
            };
            let (class, symbol) = cell(check.status);
            let title = format!("{} · {}: {}", scenario.id, check.id, status_word(check.status));
            let symbol = match marks.iter().position(|mark| mark.check.as_str() == id) {
                Some(index) if check.status != Status::Pass => {
                    format!("<a href=\"#{}-{index}\">{symbol}</a>", slug(&scenario.id))
                }
                _ => symbol.to_owned(),
            };
            let _ = write!(text, "<td class=\"{class}\" title=\"{}\">{symbol}</td>", escape(&title));
        }
        text.push_str("</tr>\n");
    }
    text.push_str(
        "</tbody></table>\n<p class=\"legend\"><span class=\"pass\">✓ pass</span> <span class=\"fail\">✗ fail</span> \
         <span class=\"xfail\">✗ expected failure</span> <span class=\"warn\">! warning</span> \
         <span class=\"skip\">· nothing to judge or not run</span> (empty: not judged here)</p></section>\n",
    );
    text
}

/// Every violation of a scenario's failed, warned and excused checks, placed on its timeline.
fn marks_of(scenario: &ScenarioResult) -> Vec<Mark> {
    let failed = |check: &&CheckResult| matches!(check.status, Status::Fail | Status::Warn | Status::ExpectedFail);
    let mut marks = Vec::new();
    for check in scenario.checks.iter().filter(failed) {
        let Ok(id) = crate::checks::CheckId::parse(&check.id) else { continue };
        for violation in &check.violations {
            let call =
                scenario.transcript.as_ref().and_then(|transcript| timeline::place(transcript, &violation.evidence));
            marks.push(Mark { check: id, level: check.level, message: violation.message.clone(), call });
        }
    }
    marks
}

/// One scenario: its line, description, failed checks, timeline, ledger and folded JSON.
fn scenario_section(scenario: &ScenarioResult) -> String {
    let (class, _) = cell(scenario.status);
    let open = if matches!(scenario.status, Status::Fail | Status::Warn) { " open" } else { "" };
    let anchor = slug(&scenario.id);
    let mut text = format!(
        "<details class=\"scenario {class}\" id=\"{anchor}\"{open}><summary><span class=\"badge {class}\">{}</span> \
         <code>{}</code> <span class=\"t\">{:.2}s</span></summary>",
        scenario.status.label(),
        escape(&scenario.id),
        scenario.seconds
    );
    let _ = write!(text, "<p class=\"description\">{}</p>", escape(&scenario.description));
    if let Some(reason) = &scenario.reason {
        let _ = write!(text, "<p class=\"reason\">{}</p>", escape(reason));
    }
    let marks = marks_of(scenario);
    if !marks.is_empty() {
        text.push_str("<ul class=\"violations\">");
        for (index, mark) in marks.iter().enumerate() {
            let _ = writeln!(
                text,
                "<li><a href=\"#{anchor}-{index}\">{} [{}]</a> {}</li>",
                mark.check,
                mark.level,
                escape(&mark.message)
            );
        }
        text.push_str("</ul>");
    }
    if let Some(transcript) = &scenario.transcript {
        let title = format!("{} against {}", scenario.id, transcript.subject);
        text.push_str(&timeline_block(&title, transcript, &marks, &anchor));
    }
    let json = serde_json::to_string_pretty(scenario).unwrap_or_default();
    let _ =
        write!(text, "<details class=\"json\"><summary>JSON evidence</summary><pre>{}</pre></details>", escape(&json));
    text.push_str("</details>\n");
    text
}

/// A run's diagram and its ledger.
fn timeline_block(title: &str, transcript: &Transcript, marks: &[Mark], anchor: &str) -> String {
    let rows = sequence::rows(title, transcript, marks);
    let mut text = format!("<div class=\"diagram\">\n{}\n</div>\n", svg::diagram(&rows, anchor, title));
    text.push_str("<h4>Ledger</h4>");
    if transcript.ledger.is_empty() {
        text.push_str("<p class=\"ledger-empty\">nothing committed</p>");
        return text;
    }
    text.push_str(
        "<table class=\"ledger\"><thead><tr><th>#</th><th>effect</th><th>id</th><th>target</th><th>tenant</th>\
         <th>amount</th><th>request</th></tr></thead><tbody>",
    );
    for (index, effect) in transcript.ledger.iter().enumerate() {
        let _ = writeln!(
            text,
            "<tr><td>{index}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>#{}</td></tr>",
            effect.kind.name(),
            escape(&effect.effect_id),
            escape(&effect.target),
            escape(&effect.tenant_id),
            effect.amount.map(|amount| amount.to_string()).unwrap_or_default(),
            effect.request
        );
    }
    text.push_str("</tbody></table>");
    text
}

/// The page of one reproduced run (`repro --html`).
pub fn repro(repro: &Repro) -> String {
    let anchor = slug(&repro.scenario.name);
    let failed = repro.marks.len();
    let verdict = if repro.must_failed() { "fail" } else { "pass" };
    let mut body = format!(
        "<header><h1>callproof repro: <code>{}</code></h1><p class=\"verdict {verdict}\">{} against {}: {}</p></header>",
        escape(&repro.scenario.name),
        if verdict == "fail" { "FAIL" } else { "PASS" },
        escape(&repro.subject),
        if failed == 0 {
            "no check failed".to_owned()
        } else {
            format!("{} failed", plural(failed, "check", "checks"))
        }
    );
    let _ = write!(
        body,
        "<section id=\"{anchor}\"><p class=\"description\">{}</p>",
        escape(repro.scenario.description.trim())
    );
    if !repro.marks.is_empty() {
        body.push_str("<ul class=\"violations\">");
        for (index, mark) in repro.marks.iter().enumerate() {
            let _ = writeln!(
                body,
                "<li><a href=\"#{anchor}-{index}\">{} [{}]</a> {}</li>",
                mark.check,
                mark.level,
                escape(&mark.message)
            );
        }
        body.push_str("</ul>");
    }
    body.push_str(&timeline_block(&repro::title(repro), &repro.transcript, &repro.marks, &anchor));
    let json = serde_json::to_string_pretty(&repro::json(repro)).unwrap_or_default();
    let _ = write!(
        body,
        "<details class=\"json\"><summary>JSON evidence</summary><pre>{}</pre></details></section>",
        escape(&json)
    );
    page(&format!("callproof repro {}", repro.scenario.name), &body)
}
