//! GitHub Actions workflow annotations for a suite report (`--format github`): one `::error` per violation
//! of a required check, one `::warning` per advisory one, each pointing at the scenario file and the line of
//! the `[[step]]` where it failed, so the failure shows on the pull request's diff.
//!
//! Rule enforced here: every value is escaped as the runner's command parser expects (`%`, CR and LF in the
//! message; also `:` and `,` in properties), so no evidence text can end an annotation early or start another.

use crate::conform::report::{Report, ScenarioResult, Status};
use crate::timeline;
use std::fmt::Write;
use std::path::Path;

/// Every annotation of `report`, one per line.
pub fn annotations(report: &Report) -> String {
    let mut out = String::new();
    for scenario in &report.scenarios {
        let steps = step_lines(&scenario_text(scenario));
        if scenario.protocol_break {
            let why = scenario.reason.as_deref().unwrap_or("the executor broke the protocol");
            annotate(&mut out, "error", &scenario.path, 1, "protocol break", &format!("{}: {why}", scenario.id));
        }
        for check in scenario.checks.iter().filter(|check| matches!(check.status, Status::Fail | Status::Warn)) {
            let command = if check.status == Status::Fail { "error" } else { "warning" };
            for violation in &check.violations {
                let step = scenario.transcript.as_ref().and_then(|transcript| {
                    let call = timeline::place(transcript, &violation.evidence)?;
                    transcript.calls.get(call).map(|call| call.step)
                });
                let line = step.and_then(|step| steps.get(step).copied()).unwrap_or(1);
                let title = format!("{} [{}]", check.id, check.level);
                annotate(
                    &mut out,
                    command,
                    &scenario.path,
                    line,
                    &title,
                    &format!("{}: {}", scenario.id, violation.message),
                );
            }
        }
    }
    if let Some(baseline) = &report.baseline {
        for entry in &report.stale_baseline {
            let named =
                format!("{}{}", entry.scenario, entry.check.as_deref().map(|c| format!(" {c}")).unwrap_or_default());
            annotate(
                &mut out,
                "error",
                baseline,
                entry.line,
                "stale baseline entry",
                &format!("{named} no longer fails; remove it"),
            );
        }
    }
    out
}

fn annotate(out: &mut String, command: &str, file: &str, line: usize, title: &str, message: &str) {
    let _ = writeln!(
        out,
        "::{command} file={},line={line},title={}::{}",
        property(file),
        property(title),
        escape_data(message)
    );
}

/// The scenario's text: the file on disk, else the shipped copy of its id.
fn scenario_text(scenario: &ScenarioResult) -> String {
    std::fs::read_to_string(Path::new(&scenario.path))
        .ok()
        .or_else(|| crate::shipped::text(&scenario.id).map(str::to_owned))
        .unwrap_or_default()
}

/// The 1-based line of each `[[step]]` header, in order: step `i` of the scenario is at `step_lines[i]`.
pub fn step_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with("[[step]]"))
        .map(|(index, _)| index + 1)
        .collect()
}

/// A message, escaped for a workflow command.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property value, escaped.
fn property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_properties_are_escaped_so_nothing_can_start_another_command() {
        assert_eq!(escape_data("50% done\n::error::x"), "50%25 done%0A::error::x");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
        let mut out = String::new();
        annotate(&mut out, "error", "scenarios/a.toml", 7, "single-effect [MUST]", "a/b: two\nlines");
        assert_eq!(out, "::error file=scenarios/a.toml,line=7,title=single-effect [MUST]::a/b: two%0Alines\n");
    }

    #[test]
    fn each_step_header_is_found_on_its_line() {
        let text = "description = \"d\"\n\n[[step]]\naction = \"wait\"\n  [[step]]\n";
        assert_eq!(step_lines(text), [3, 5]);
    }
}
