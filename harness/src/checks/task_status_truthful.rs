//! `task-status-truthful`: a final status a task poll or a cancel answers is the job's real fate, reached by
//! the time of the answer.
//!
//! Rule enforced here: judged on successful answers of task polls and cancels (catalog `task: poll | cancel`)
//! that name a job the downstream started, against the downstream's own record of that job (its final status
//! and when it reached it). `working` is true enough (a poll may lag), unless the poll itself read the job after
//! it ended: a poll whose own read of the job (its catalog `invoke` request, e.g. `GET /exports/{task_id}`)
//! arrived [`READ_MARGIN_MS`] or more after the job's end saw the final status, and answering `working` then is a
//! stale answer (a kept non-final answer, a cache), not lag.
//! `completed` before the job ended, or `cancelled` for a job that completed anyway (cooperative cancellation
//! lost the race), fails.

use super::task_final_stable::task_answers;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use callproof_executor::app::CatalogEntry;
use callproof_executor::task::{FINAL_STATUSES, TaskRole};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const TASK_STATUS_TRUTHFUL: CheckId = CheckId::new("task-status-truthful");

pub(super) const CHECK: Check = Check {
    id: TASK_STATUS_TRUTHFUL,
    level: Level::Must,
    rule: "a task's final status is what the job really did, and only once it did",
    seed_ref: "tasks",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (call, task_id, status, _) in task_answers(context, &[TaskRole::Poll, TaskRole::Cancel]) {
        let Some(truth) = context.transcript.tasks.iter().find(|truth| truth.task_id == task_id) else {
            continue;
        };
        judgement.judged();
        if !FINAL_STATUSES.contains(&status) {
            if let Some(poll) = context.tool(&call.tool).filter(|tool| tool.task == Some(TaskRole::Poll))
                && let Some(read) = read_after_the_end(context, poll, call, task_id, truth.ended_ms)
            {
                judgement.fail(
                    format!(
                        "call {} answered task `{task_id}` {status}, but its own read of the job (request #{}) \
                         came at {} ms, after the job ended {} at {} ms",
                        call.call_id, read.record.index, read.record.at_ms, truth.final_status, truth.ended_ms
                    ),
                    context.evidence(call),
                );
            }
            continue;
        }
        let problem = if status != truth.final_status {
            Some(format!("the job ended {} at {} ms", truth.final_status, truth.ended_ms))
        } else if call.answered_ms < truth.ended_ms {
            Some(format!("the job was still working until {} ms", truth.ended_ms))
        } else {
            None
        };
        if let Some(problem) = problem {
            judgement.fail(
                format!("call {} answered task `{task_id}` {status} at {} ms, but {problem}", call.call_id, call.answered_ms),
                context.evidence(call),
            );
        }
    }
    judgement.outcome()
}

/// How long after a job's end a read of it must arrive to count as having seen the end: the downstream reads
/// the job's state a moment after it logs the request's arrival.
const READ_MARGIN_MS: u64 = 50;

/// The first of `call`'s own reads of job `task_id` (the `poll` tool's `invoke` request, its task argument
/// filled in) that arrived after the job ended.
fn read_after_the_end<'t>(
    context: &'t Context<'_>,
    poll: &CatalogEntry,
    call: &CallRecord,
    task_id: &str,
    ended_ms: u64,
) -> Option<&'t Exchange> {
    let (method, template) = poll.downstream.invoke.split_once(' ')?;
    let argument = poll.resource.as_ref()?.argument.as_str();
    let path = template.split('?').next()?.replace(&format!("{{{argument}}}"), task_id);
    context.transcript.exchanges_of_call(call.index).find(|exchange| {
        exchange.record.method == method
            && exchange.record.path == path
            && exchange.record.at_ms >= ended_ms.saturating_add(READ_MARGIN_MS)
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const DONE: &str = r#"{"task_id":"exp_1","status":"completed","result":{"records":42}}"#;
    const WORKING: &str = r#"{"task_id":"exp_1","status":"working","result":null}"#;
    const CANCELLED: &str = r#"{"task_id":"exp_1","status":"cancelled"}"#;

    #[test]
    fn working_while_it_works_and_completed_once_it_completed_pass() {
        // The script's calls answer at 20 ms and 120 ms.
        history(&format!("submit task_status -> ok result={WORKING}; submit task_status -> ok result={DONE}"))
            .with_task("exp_1", "completed", 0, 100)
            .passes(&CHECK);
    }

    #[test]
    fn working_from_a_poll_that_read_the_job_after_it_ended_fails() {
        // The second poll is sent at 100 ms; its read arrives at 101 ms, the job ended at 40 ms.
        history(&format!(
            "submit task_status -> ok result={WORKING}; submit task_status -> ok result={WORKING}; \
             request GET /exports/exp_1 -> 200"
        ))
        .with_task("exp_1", "completed", 0, 40)
        .fails(&CHECK, "answered task `exp_1` working, but its own read of the job (request #0) came at 101 ms");
    }

    #[test]
    fn working_from_a_poll_whose_read_came_before_the_end_or_that_did_not_read_passes() {
        history(&format!(
            "submit task_status -> ok result={WORKING}; request GET /exports/exp_1 -> 200; \
             submit task_status -> ok result={WORKING}"
        ))
        .with_task("exp_1", "completed", 0, 60)
        .passes(&CHECK);
    }

    #[test]
    fn completed_before_the_job_ended_fails() {
        history(&format!("submit task_status -> ok result={DONE}"))
            .with_task("exp_1", "completed", 0, 100)
            .fails(&CHECK, "answered task `exp_1` completed at 20 ms, but the job was still working until 100 ms");
    }

    #[test]
    fn cancelled_for_a_job_that_completed_anyway_fails() {
        history(&format!("submit task_cancel -> ok result={CANCELLED}"))
            .with_task("exp_1", "completed", 0, 10)
            .fails(&CHECK, "answered task `exp_1` cancelled at 20 ms, but the job ended completed at 10 ms");
    }

    #[test]
    fn an_answer_about_no_known_job_skips() {
        history(&format!("submit task_status -> ok result={DONE}")).skips(&CHECK);
    }
}
