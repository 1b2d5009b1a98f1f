//! The conform report as JUnit XML, for CI dashboards.
//!
//! Rule enforced here: one test suite per scenario, one test case per check that had something to judge
//! (checks with nothing to judge are left out, so dashboards are not flooded with skips); a failure carries
//! the violations and their evidence; an expected failure is a skipped case that says why; a scenario that
//! was not run is one skipped case; a protocol break is an error case; a warning (a failed check the profile
//! does not require) is a passing case whose output says what failed. Every case carries the time of its
//! scenario's run (the checks of a scenario all judge that one run), every suite too, and the report the
//! wall time of the whole run.

use super::Error;
use super::report::{CheckResult, Report, Status};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// The JUnit XML text of `report`.
///
/// # Errors
/// [`Error::Output`] when quick-junit cannot serialize it.
pub fn render(report: &Report) -> Result<String, Error> {
    let mut junit = quick_junit::Report::new(format!("callproof conform {}", report.executor.subject));
    junit.set_time(Duration::from_secs_f64(report.seconds.max(0.0)));
    for scenario in &report.scenarios {
        let mut suite = TestSuite::new(scenario.id.as_str());
        let time = Duration::from_secs_f64(scenario.seconds.max(0.0));
        suite.set_time(time);
        if scenario.protocol_break {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message("the executor broke the protocol").set_type("protocol_break");
            status.set_description(scenario.reason.clone().unwrap_or_default());
            let mut case = TestCase::new("protocol", status);
            case.set_classname(scenario.id.as_str()).set_time(time);
            suite.add_test_case(case);
        }
        if scenario.status == Status::Skip && scenario.transcript.is_none() {
            let mut status = TestCaseStatus::skipped();
            status.set_message(scenario.reason.clone().unwrap_or_else(|| "not run".to_owned()));
            let mut case = TestCase::new("scenario", status);
            case.set_classname(scenario.id.as_str()).set_time(time);
            suite.add_test_case(case);
        }
        for check in scenario.checks.iter().filter(|check| check.status != Status::Skip) {
            let status = match check.status {
                Status::Pass | Status::Warn => TestCaseStatus::success(),
                Status::Fail => {
                    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let first = check.violations.first().map_or_else(|| check.rule.to_owned(), |v| v.message.clone());
                    status.set_message(first).set_type(check.level);
                    status.set_description(violations(check));
                    status
                }
                Status::ExpectedFail | Status::Skip => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(format!("expected failure: {}", check.reason.clone().unwrap_or_default()));
                    status
                }
            };
            let mut case = TestCase::new(check.id.as_str(), status);
            case.set_classname(scenario.id.as_str()).set_time(time);
            if check.status == Status::Warn {
                case.set_system_out(format!("warning (not required by the profile): {}", violations(check)));
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string().map_err(|error| Error::Output { what: "the JUnit report".to_owned(), why: error.to_string() })
}

/// A failed check's rule, then each violation with its evidence.
fn violations(check: &CheckResult) -> String {
    let mut description = format!("{} [{}] {} ({})\n", check.id, check.level, check.rule, check.seed_ref);
    for violation in &check.violations {
        description.push_str(&format!("\n{}\n", violation.message));
        for line in &violation.evidence {
            description.push_str(&format!("    {line}\n"));
        }
    }
    description
}
