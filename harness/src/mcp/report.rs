//! The MCP profile's report: one status per check, every failure with the request that shows it.
//!
//! Rule enforced here: a check that judged nothing is `SKIP`, never `PASS`; a failed MUST check is `FAIL` and
//! makes the exit code 1, a failed SHOULD check is `WARN` and does not; every failure carries the exact line
//! sent and the exact answer, so it can be replayed by hand.

use super::checks::{self, Check};
use crate::checks::Level;
use crate::error::{EXIT_FAIL, EXIT_PASS};
use serde::Serialize;
use std::fmt::Write as _;

/// Longest request or answer text a report shows; longer ones are cut in the middle.
const SHOWN: usize = 400;

/// What one observation says about one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The check's id.
    pub check: &'static str,
    /// Whether this observation passes the check.
    pub passed: bool,
    /// A pass that proves little: the invalid input was refused, but so was the valid base it was made from.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inconclusive: bool,
    /// The tool, when the observation is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// What was observed, for people.
    pub why: String,
    /// The line sent, when a request shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// The answer received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// A check's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// Judged, and nothing failed.
    Pass,
    /// A MUST check failed.
    Fail,
    /// A SHOULD check failed.
    Warn,
    /// Nothing judged it (no tool to call, no schema to check).
    Skip,
}

impl Status {
    /// `PASS`, `FAIL`, `WARN` or `SKIP`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Warn => "WARN",
            Status::Skip => "SKIP",
        }
    }
}

/// One check in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// The check's id.
    pub id: &'static str,
    /// `MUST` or `SHOULD`.
    pub level: &'static str,
    /// The specification section it cites.
    pub cites: &'static str,
    /// The status.
    pub status: Status,
    /// How many observations passed it.
    pub passed: usize,
    /// How many of those passes are inconclusive (see [`Finding::inconclusive`]).
    pub inconclusive: usize,
    /// The observations that failed it.
    pub failures: Vec<Finding>,
    /// Why nothing judged it, when the profile knows (`SKIP` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A tool the profile did not call, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The tool's name.
    pub tool: String,
    /// Why it was not called.
    pub why: String,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The server command, or its URL.
    pub server: String,
    /// `stdio` or `streamable-http`.
    pub transport: &'static str,
    /// The MCP revision spoken: `2025-11-25` or `2026-07-28`.
    pub revision: &'static str,
    /// The protocol version the server answered `initialize` with.
    pub protocol_version: Option<String>,
    /// The server's `serverInfo`.
    pub server_info: Option<serde_json::Value>,
    /// The tools called, in list order.
    pub called: Vec<String>,
    /// The tools not called, with the reason.
    pub skipped: Vec<Skipped>,
    /// Every check of the revision, in the order of [`checks::of`].
    pub checks: Vec<CheckResult>,
    /// The server's last stderr lines, when it died.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr_tail: Vec<String>,
}

impl Report {
    /// The report of `findings`, one [`CheckResult`] per check of 2025-11-25.
    pub fn new(server: String, findings: &[Finding]) -> Report {
        Report::with_checks(server, findings, checks::ALL.to_vec())
    }

    /// The report of `findings`, one [`CheckResult`] per check of `checks` ([`checks::of`] the revision).
    pub fn with_checks(server: String, findings: &[Finding], checks: Vec<Check>) -> Report {
        let checks = checks.iter().map(|check| judge(check, findings)).collect();
        Report {
            server,
            transport: "stdio",
            revision: super::revision::LEGACY,
            protocol_version: None,
            server_info: None,
            called: Vec::new(),
            skipped: Vec::new(),
            checks,
            stderr_tail: Vec::new(),
        }
    }

    /// Says why `check` judged nothing; a check that did judge something keeps its status and no reason.
    pub fn not_judged(&mut self, check: &str, why: &str) {
        let skipped = self.checks.iter_mut().find(|result| result.id == check && result.status == Status::Skip);
        if let Some(result) = skipped {
            result.reason = Some(why.to_owned());
        }
    }

    /// Passes every text a server's answer can reach (each failure's why, request and answer, each reason)
    /// through `redact`: `--bearer`'s token never reaches stdout, however a server echoes it.
    pub fn redact(&mut self, redact: impl Fn(&str) -> String) {
        for check in &mut self.checks {
            for failure in &mut check.failures {
                failure.why = redact(&failure.why);
                for text in [&mut failure.request, &mut failure.answer].into_iter().flatten() {
                    *text = redact(text);
                }
            }
            if let Some(reason) = &mut check.reason {
                *reason = redact(reason);
            }
        }
    }

    /// Whether no MUST check failed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|check| check.status != Status::Fail)
    }

    /// The exit code: 0 when no MUST check failed, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.passed() { EXIT_PASS } else { EXIT_FAIL }
    }

    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The report for people: the server, a line per check, the evidence under each failure, skipped tools,
    /// the tally and the verdict.
    pub fn human(&self) -> String {
        let mut out = String::new();
        let version = self.protocol_version.as_deref().unwrap_or("none");
        let _ = writeln!(
            out,
            "MCP server: {}  (revision {}, protocol {version}, {})",
            self.server, self.revision, self.transport
        );
        if let Some(info) = &self.server_info {
            let _ = writeln!(out, "serverInfo: {info}");
        }
        let called = if self.called.is_empty() { "none".to_owned() } else { self.called.join(", ") };
        let _ = writeln!(out, "tools called: {called}");
        for skipped in &self.skipped {
            let _ = writeln!(out, "tool skipped: {}: {}", skipped.tool, skipped.why);
        }
        out.push('\n');
        for check in &self.checks {
            let _ = writeln!(out, "{:<4}  {:<30} {:<6} {}", check.status.as_str(), check.id, check.level, check.cites);
            if let Some(reason) = &check.reason {
                let _ = writeln!(out, "      (not judged: {reason})");
            }
            if check.inconclusive > 0 {
                let _ = writeln!(
                    out,
                    "      ({} of {} refusals inconclusive: the generated valid input was refused too)",
                    check.inconclusive, check.passed
                );
            }
            for failure in &check.failures {
                let tool = failure.tool.as_deref().map(|tool| format!("{tool}: ")).unwrap_or_default();
                let _ = writeln!(out, "      - {tool}{}", failure.why);
                if let Some(request) = &failure.request {
                    let _ = writeln!(out, "        sent:     {}", shown(request));
                }
                if let Some(answer) = &failure.answer {
                    let _ = writeln!(out, "        answered: {}", shown(answer));
                }
            }
        }
        if !self.stderr_tail.is_empty() {
            let _ = writeln!(out, "\nthe server's last stderr lines:");
            for line in &self.stderr_tail {
                let _ = writeln!(out, "  {line}");
            }
        }
        let count = |status| self.checks.iter().filter(|check| check.status == status).count();
        let _ = writeln!(
            out,
            "\n{} passed, {} failed, {} warnings, {} skipped",
            count(Status::Pass),
            count(Status::Fail),
            count(Status::Warn),
            count(Status::Skip)
        );
        let verdict = if self.passed() { "PASS: no MUST check failed" } else { "FAIL: a MUST check failed" };
        let _ = writeln!(out, "{verdict}");
        out
    }
}

fn judge(check: &Check, findings: &[Finding]) -> CheckResult {
    let mine: Vec<&Finding> = findings.iter().filter(|finding| finding.check == check.id).collect();
    let failures: Vec<Finding> =
        mine.iter().filter(|finding| !finding.passed).map(|&finding| finding.clone()).collect();
    let passed = mine.len() - failures.len();
    let inconclusive = mine.iter().filter(|finding| finding.passed && finding.inconclusive).count();
    let status = match (failures.is_empty(), mine.is_empty(), check.level) {
        (_, true, _) => Status::Skip,
        (true, false, _) => Status::Pass,
        (false, _, Level::Must) => Status::Fail,
        (false, _, Level::Should) => Status::Warn,
    };
    CheckResult {
        id: check.id,
        level: check.level.as_str(),
        cites: check.cites,
        status,
        passed,
        inconclusive,
        failures,
        reason: None,
    }
}

/// `text` cut in the middle when it is longer than [`SHOWN`] characters.
fn shown(text: &str) -> String {
    cut(text, SHOWN)
}

/// `text` cut in the middle when it is longer than `keep` characters, saying how many were cut.
pub fn cut(text: &str, keep: usize) -> String {
    let count = text.chars().count();
    if count <= keep {
        return text.to_owned();
    }
    let head: String = text.chars().take(keep / 2).collect();
    let tail: String = text.chars().skip(count - keep / 2).collect();
    format!("{head} …({} characters cut)… {tail}", count - keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(check: Check, passed: bool) -> Finding {
        Finding {
            check: check.id,
            passed,
            inconclusive: false,
            tool: None,
            why: "w".into(),
            request: None,
            answer: None,
        }
    }

    #[test]
    fn unjudged_checks_skip_must_failures_fail_and_should_failures_warn() {
        let findings = [
            finding(checks::HANDSHAKE, true),
            finding(checks::UNKNOWN_TOOL, false),
            finding(checks::PARSE_ERROR, false),
            finding(checks::PARSE_ERROR, true),
        ];
        let report = Report::new("server".into(), &findings);
        let status = |id: &str| report.checks.iter().find(|check| check.id == id).expect("check").status;
        assert_eq!(status("mcp-handshake"), Status::Pass);
        assert_eq!(status("mcp-unknown-tool"), Status::Fail);
        assert_eq!(status("mcp-parse-error"), Status::Warn);
        assert_eq!(status("mcp-tool-name"), Status::Skip);
        assert_eq!(report.exit_code(), 1);
        assert!(report.human().ends_with("FAIL: a MUST check failed\n"));
    }

    #[test]
    fn a_skipped_check_says_why_and_a_judged_one_ignores_a_reason() {
        let mut report = Report::new("server".into(), &[finding(checks::HANDSHAKE, true)]);
        report.not_judged("mcp-handshake", "ignored");
        report.not_judged("mcp-auth-required", "no --bearer");
        let reason = |id: &str| report.checks.iter().find(|check| check.id == id).expect("check").reason.clone();
        assert_eq!((reason("mcp-handshake"), reason("mcp-auth-required").as_deref()), (None, Some("no --bearer")));
        assert!(report.human().contains("(not judged: no --bearer)"));
        assert!(report.to_json().contains(r#""reason": "no --bearer""#));
    }

    #[test]
    fn redaction_reaches_every_failure_text_and_every_reason() {
        let mut failed = finding(checks::UNKNOWN_TOOL, false);
        (failed.why, failed.request, failed.answer) =
            ("w s3cr3t".into(), Some("r s3cr3t".into()), Some("s3cr3t".into()));
        let mut report = Report::new("server".into(), &[failed]);
        report.not_judged("mcp-auth-required", "answered 401: bad s3cr3t");
        report.redact(|text| text.replace("s3cr3t", "<bearer>"));
        let json = report.to_json();
        assert!(!json.contains("s3cr3t") && json.matches("<bearer>").count() == 4, "{json}");
    }

    #[test]
    fn should_failures_alone_pass_the_run() {
        let report = Report::new("server".into(), &[finding(checks::DUPLICATE_KEY, false)]);
        assert_eq!(report.exit_code(), 0);
    }

    #[test]
    fn long_texts_are_cut_in_the_middle() {
        let long = "a".repeat(1000);
        let cut = shown(&long);
        assert!(cut.contains("(600 characters cut)") && cut.len() < 500, "{cut}");
    }
}
