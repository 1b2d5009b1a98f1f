//! `task-final-stable`: once a task poll answered a final status, every poll of that task answers the same
//! final answer, result and all.
//!
//! Rule enforced here: compared per (tenant, handle) over the successful answers of task polls (catalog
//! `task: poll`) whose status is final (completed, cancelled, failed); answers while the task works are not
//! compared. A result that changes between polls (a re-read download link, a second validation) fails; answers are
//! compared as JSON values, numbers by value (a kept answer read back from a store may write `42` as `42.0`).

use super::json_values::same_value;
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::task::{FINAL_STATUSES, TaskRole};
use serde_json::Value;
use std::collections::BTreeMap;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const TASK_FINAL_STABLE: CheckId = CheckId::new("task-final-stable");

pub(super) const CHECK: Check = Check {
    id: TASK_FINAL_STABLE,
    level: Level::Must,
    rule: "every poll of a finished task answers the same final status and result",
    seed_ref: "tasks",
    run,
};

/// The successful answers of calls to tools playing `roles` in a task, with the handle and status they name.
pub(super) fn task_answers<'c>(
    context: &'c Context<'_>,
    roles: &'c [TaskRole],
) -> impl Iterator<Item = (&'c CallRecord, &'c str, &'c str, &'c Value)> + 'c {
    context.transcript.calls.iter().filter_map(move |call| {
        let role = context.tool(&call.tool)?.task?;
        let result = call.envelope().filter(|envelope| envelope.ok())?.result()?;
        let task_id = result.get("task_id")?.as_str()?;
        let status = result.get("status")?.as_str()?;
        roles.contains(&role).then_some((call, task_id, status, result))
    })
}

fn run(context: &Context<'_>) -> Outcome {
    let mut finals: BTreeMap<(&str, &str), Vec<(&CallRecord, &Value)>> = BTreeMap::new();
    for (call, task_id, status, result) in task_answers(context, &[TaskRole::Poll]) {
        if FINAL_STATUSES.contains(&status) {
            finals.entry((call.tenant_id.as_str(), task_id)).or_default().push((call, result));
        }
    }
    let mut judgement = Judgement::new();
    for ((_, task_id), answers) in finals {
        if answers.len() < 2 {
            continue;
        }
        judgement.judged();
        let (first_call, first) = answers[0];
        if let Some((call, _)) = answers.iter().find(|(_, answer)| !same_value(answer, first)) {
            let mut evidence = context.evidence(first_call);
            evidence.extend(context.evidence(call));
            judgement.fail(
                format!("task `{task_id}` answered a final status, then another final answer (call {})", call.call_id),
                evidence,
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const DONE_A: &str = r#"{"task_id":"exp_1","status":"completed","result":{"download_url":"https://x/a"}}"#;
    const DONE_B: &str = r#"{"task_id":"exp_1","status":"completed","result":{"download_url":"https://x/b"}}"#;
    const WORKING: &str = r#"{"task_id":"exp_1","status":"working","result":null}"#;

    #[test]
    fn the_same_final_answer_on_every_poll_passes() {
        history(&format!("submit task_status -> ok result={WORKING}; submit task_status -> ok result={DONE_A}; retry -> ok result={DONE_A}"))
            .passes(&CHECK);
    }

    #[test]
    fn a_kept_answer_that_writes_its_numbers_another_way_passes() {
        history(
            r#"submit task_status -> ok result={"task_id":"exp_1","status":"completed","result":{"records":42}}
               retry -> ok result={"task_id":"exp_1","status":"completed","result":{"records":42.0}}"#,
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_final_result_that_changes_between_polls_fails() {
        history(&format!("submit task_status -> ok result={DONE_A}; submit task_status -> ok result={DONE_B}"))
            .fails(&CHECK, "task `exp_1` answered a final status, then another final answer");
    }

    #[test]
    fn one_final_answer_or_polls_of_other_tools_skip() {
        history(&format!("submit task_status -> ok result={WORKING}; submit task_status -> ok result={DONE_A}"))
            .skips(&CHECK);
        history(&format!("submit get_order -> ok result={DONE_A}; submit get_order -> ok result={DONE_B}"))
            .skips(&CHECK);
    }
}
