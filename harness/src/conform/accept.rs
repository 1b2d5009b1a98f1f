//! `--write-baseline FILE`: today's failures accepted, insta style. Every failed check becomes a baseline
//! line, and the report is judged again as if that file had been given with `--baseline`.
//!
//! Rule enforced here: only check failures are accepted. A protocol break is never a known failure (it stops
//! the run), and a failure the executor's declared limits already excuse is not written (it needs no
//! baseline); entries of the old baseline that still fail are kept and stale ones dropped, so the file lists
//! exactly what fails today.

use super::baseline::Baseline;
use super::report::{self, Report, Status};

/// Accepts `report`'s failures into a baseline written at `path`: returns the file's text and re-judges the
/// report against it (its failed checks become expected failures listed there).
pub fn accept(report: &mut Report, old: &Baseline, path: &str) -> String {
    let mut lines = vec![
        "# callproof baseline: known failures, one `SCENARIO CHECK` per line (docs/conform.md).".to_owned(),
        format!("# Written by --write-baseline against {}; remove a line once it passes.", report.executor.subject),
    ];
    for scenario in &mut report.scenarios {
        for check in &mut scenario.checks {
            let listed = check.status == Status::ExpectedFail && old.covering(&scenario.id, &check.id).is_some();
            if check.status == Status::Fail || listed {
                lines.push(format!("{} {}", scenario.id, check.id));
                check.status = Status::ExpectedFail;
                check.reason = Some(format!("listed in the baseline {path}, line {}", lines.len()));
            }
        }
        let broken = if scenario.protocol_break { scenario.reason.clone() } else { None };
        let (status, reason) = report::scenario_status(&scenario.checks, broken.as_deref());
        scenario.status = status;
        scenario.reason = reason.or_else(|| scenario.reason.take().filter(|_| status == Status::Skip));
    }
    report.stale_baseline.clear();
    report.baseline = Some(path.to_owned());
    report.verdict = report::verdict(&report.scenarios, &[]);
    report.summary = report::summary(&report.scenarios, &[]);
    lines.join("\n") + "\n"
}
