//! The reports of `callproof mutants`: the table as text (each catching check marked `*` when the mutant is
//! meant to trip it), JUnit (a suite per executor, a case per check it is meant to trip), GitHub annotations
//! for what was missed, and the HTML page with, per mutant, the timeline of a scenario that caught it.
//!
//! Rule enforced here: every format says the same three things: the reference tripped nothing, each mutant
//! was caught, and by the checks it is meant to trip; a miss is a failure in every one of them.

use super::html::{page, slug};
use super::svg::{self, escape};
use super::{github, sequence};
use crate::conform::Error;
use crate::mutation::{MutantRow, MutationReport};
use crate::timeline;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write;
use std::time::Duration;

/// The checks that caught `row`, a `*` after each it is meant to trip.
fn caught_list(row: &MutantRow) -> String {
    let checks: Vec<String> = row
        .caught_by
        .iter()
        .map(|(check, _)| if row.meant.contains(&check.as_str()) { format!("{check}*") } else { check.clone() })
        .collect();
    checks.join(", ")
}

/// `check (scenario, ...)` for each check the reference failed.
fn reference_failures(report: &MutationReport) -> String {
    let failed: Vec<String> = report
        .reference_failures
        .iter()
        .map(|(check, scenarios)| format!("{check} ({})", scenarios.join(", ")))
        .collect();
    failed.join("; ")
}

/// The table as text.
pub fn text(report: &MutationReport) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "{:<28} {:<7} {:>6}  checks that caught it (* = meant to trip)", "mutant", "caught", "time");
    for row in &report.rows {
        let caught = if row.caught() { "yes" } else { "NO" };
        let _ = writeln!(text, "{:<28} {caught:<7} {:>5.1}s  {}", row.name, row.seconds, caught_list(row));
        if !row.missed.is_empty() {
            let _ = writeln!(text, "{:<28} {:<7} {:>6}  MISSED (meant to trip): {}", "", "", "", row.missed.join(", "));
        }
    }
    let caught = report.rows.iter().filter(|row| row.caught()).count();
    let exact = report.rows.iter().filter(|row| row.caught() && row.missed.is_empty()).count();
    let _ = writeln!(
        text,
        "\nmutation score: {caught}/{} = {:.0}%; {exact} of {} tripped every check they are meant to{}",
        report.rows.len(),
        report.score() * 100.0,
        report.rows.len(),
        report.partition.as_deref().map(|partition| format!(" (partition {partition})")).unwrap_or_default()
    );
    if report.reference_failures.is_empty() {
        let _ = writeln!(text, "reference executor: no check failed");
    } else {
        let _ = writeln!(text, "reference executor FAILED: {}", reference_failures(report));
    }
    text
}

/// JUnit XML: a suite for the reference (a failing case per check it failed) and one per mutant (a case per
/// check it is meant to trip, failing when missed), each with its suite's time on every case.
///
/// # Errors
/// [`Error::Output`] when quick-junit cannot serialize it.
pub fn junit(report: &MutationReport) -> Result<String, Error> {
    let mut junit = quick_junit::Report::new("callproof mutants");
    junit.set_time(Duration::from_secs_f64(report.seconds.max(0.0)));
    let mut reference = TestSuite::new("reference");
    let mut case = TestCase::new("no check fails", TestCaseStatus::success());
    if !report.reference_failures.is_empty() {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(format!("the reference executor failed: {}", reference_failures(report)));
        case = TestCase::new("no check fails", status);
    }
    case.set_classname("reference");
    reference.add_test_case(case);
    junit.add_test_suite(reference);
    for row in &report.rows {
        let mut suite = TestSuite::new(row.name);
        let time = Duration::from_secs_f64(row.seconds.max(0.0));
        suite.set_time(time);
        for check in &row.meant {
            let status = if row.missed.contains(check) {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status.set_message(format!("`{}` ({}) slipped past `{check}`", row.name, row.bug));
                status
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(*check, status);
            case.set_classname(row.name).set_time(time);
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().map_err(|error| Error::Output { what: "the JUnit report".to_owned(), why: error.to_string() })
}

/// GitHub annotations: one error per check the reference failed and per check a mutant slipped past.
pub fn annotations(report: &MutationReport) -> String {
    let mut out = String::new();
    for (check, scenarios) in &report.reference_failures {
        let message = format!("the reference executor failed `{check}` in {}", scenarios.join(", "));
        let _ = writeln!(out, "::error title=reference executor::{}", github::escape_data(&message));
    }
    for row in report.rows.iter().filter(|row| !row.missed.is_empty()) {
        let message = format!("{} ({}) slipped past {}", row.name, row.bug, row.missed.join(", "));
        let _ = writeln!(out, "::error title=mutant missed::{}", github::escape_data(&message));
    }
    out
}

/// The HTML page: the table, then per mutant the timeline of a scenario that caught it.
pub fn html(report: &MutationReport) -> String {
    let holds = report.holds();
    let mut body = format!(
        "<header><h1>callproof mutants</h1><p class=\"verdict {}\">{}</p><p class=\"meta\">\
         <span class=\"t\">{:.1}s</span></p></header><section id=\"summary\"><h2>Summary</h2>",
        if holds { "pass" } else { "fail" },
        escape(text(report).lines().rev().take(2).collect::<Vec<_>>().join("; ").as_str()),
        report.seconds
    );
    body.push_str(
        "<table class=\"mutants\"><thead><tr><th>mutant</th><th>bug</th><th>caught</th>\
         <th>checks that caught it (* = meant to trip)</th><th>missed</th></tr></thead><tbody>",
    );
    for row in &report.rows {
        let (class, word) = if row.caught() && row.missed.is_empty() { ("caught", "yes") } else { ("missed", "NO") };
        let _ = write!(
            body,
            "<tr><td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td><td class=\"{class}\">{word}</td>\
             <td>{}</td><td class=\"missed\">{}</td></tr>",
            slug(row.name),
            row.name,
            escape(row.bug),
            escape(&caught_list(row)),
            row.missed.join(", ")
        );
    }
    body.push_str("</tbody></table></section><section id=\"scenarios\"><h2>How each was caught</h2>");
    for row in &report.rows {
        body.push_str(&example(row));
    }
    body.push_str("</section>");
    page("callproof mutants", &body)
}

fn example(row: &MutantRow) -> String {
    let anchor = slug(row.name);
    let mut text = format!(
        "<details class=\"scenario {}\" id=\"{anchor}\"><summary><code>{}</code>: {}</summary>",
        if row.missed.is_empty() { "pass" } else { "fail" },
        row.name,
        escape(row.bug)
    );
    match row.example.as_ref().and_then(|example| Some((example, example.transcript.as_ref()?))) {
        Some((example, transcript)) => {
            let marks = timeline::marks(transcript, &example.verdicts);
            let title = format!("{} against mutant:{}", example.name, row.name);
            let rows = sequence::rows(&title, transcript, &marks);
            let _ = write!(
                text,
                "<p class=\"description\">{}</p><div class=\"diagram\">{}</div>",
                escape(example.description.trim()),
                svg::diagram(&rows, &anchor, &title)
            );
        }
        None => text.push_str("<p class=\"reason\">no scenario tripped a check it is meant to trip</p>"),
    }
    text.push_str("</details>");
    text
}
