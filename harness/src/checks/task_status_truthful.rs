//! `task-status-truthful`: a final status a task poll or a cancel answers is the job's real fate, reached by
//! the time of the answer.
//!
//! Rule enforced here: judged on successful answers of task polls and cancels (catalog `task: poll | cancel`)
//! that name a job the downstream started, against the downstream's own record of that job (its final status
//! and when it reached it). `working` is always true enough (a poll may lag); `completed` before the job ended,
//! or `cancelled` for a job that completed anyway (cooperative cancellation lost the race), fails.

use super::task_final_stable::task_answers;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
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
