//! `task-refusal-uniform`: another tenant's task handle and a handle that does not exist get the same
//! refusal, byte for byte apart from the handle and the call's own ids, and neither is ever answered.
//!
//! Rule enforced here: judged on calls of task polls and cancels (catalog `task: poll | cancel`) whose
//! `task_id` argument names a job of another tenant or no job at all (by the downstream's record of its jobs).
//! Their authorization refusals, per tool and caller, must carry identical `error` members once the handle and
//! the call's own ids, and per-answer noise (a time, a trace id: `checks::noise`), are blanked out (a refusal for
//! another reason, such as an unreachable system of record, is not about the handle and is not compared); a
//! success for another tenant's job is a leak.

use super::{Check, CheckId, Context, Judgement, Level, Outcome, error_without_ids, table_category};
use crate::transcript::CallRecord;
use callproof_executor::error::Category;
use callproof_executor::task::TaskRole;
use serde_json::Value;
use std::collections::BTreeMap;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const TASK_REFUSAL_UNIFORM: CheckId = CheckId::new("task-refusal-uniform");

pub(super) const CHECK: Check = Check {
    id: TASK_REFUSAL_UNIFORM,
    level: Level::Must,
    rule: "an unknown task handle and another tenant's get the same refusal, and neither an answer",
    seed_ref: "§3.2, tasks",
    run,
};

/// The `task_id` argument of a call, when its arguments are an object that has one.
fn task_id(call: &CallRecord) -> Option<String> {
    call.arguments_json()?.get("task_id")?.as_str().map(str::to_owned)
}

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    // Per (tool, caller): the first authorization refusal seen and the call that gave it.
    let mut first: BTreeMap<(&str, &str), (&CallRecord, Value)> = BTreeMap::new();
    for call in &context.transcript.calls {
        let is_task_call = context
            .tool(&call.tool)
            .and_then(|entry| entry.task)
            .is_some_and(|role| matches!(role, TaskRole::Poll | TaskRole::Cancel));
        let Some(task_id) = task_id(call).filter(|_| is_task_call) else { continue };
        let owner = context.transcript.tasks.iter().find(|truth| truth.task_id == task_id);
        if owner.is_some_and(|truth| truth.tenant_id == call.tenant_id) {
            continue;
        }
        let Some(envelope) = call.envelope() else { continue };
        judgement.judged();
        if envelope.ok() {
            if owner.is_some() {
                judgement.fail(
                    format!("call {} answered another tenant's task `{task_id}`", call.call_id),
                    context.evidence(call),
                );
            }
            continue;
        }
        let about_access = envelope.code().is_some_and(|code| table_category(code) == Category::Authorization);
        let Some(error) = error_without_ids(call, &task_id, context.scenario).filter(|_| about_access) else { continue };
        let group = (call.tool.as_str(), call.auth.as_str());
        match first.get(&group) {
            None => {
                first.insert(group, (call, error));
            }
            Some((earlier, refusal)) if *refusal != error => {
                let mut evidence = context.evidence(earlier);
                evidence.extend(context.evidence(call));
                judgement.fail(
                    format!(
                        "calls {} and {} refused inaccessible task handles differently: {refusal} vs {error}",
                        earlier.call_id, call.call_id
                    ),
                    evidence,
                );
            }
            Some(_) => {}
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const FOREIGN: &str = r#"args={"task_id":"exp_1"}"#;
    const UNKNOWN: &str = r#"args={"task_id":"exp_9"}"#;

    fn script(second: &str) -> String {
        format!("submit task_status as=mallory {FOREIGN} -> forbidden reason=resource_not_accessible; submit task_status as=mallory {UNKNOWN} -> {second}")
    }

    #[test]
    fn the_same_refusal_for_a_foreign_and_an_unknown_handle_passes() {
        history(&script("forbidden reason=resource_not_accessible")).with_task("exp_1", "completed", 0, 10).passes(&CHECK);
    }

    #[test]
    fn refusals_that_name_the_handle_they_were_given_pass() {
        history(&format!(
            r#"submit task_status as=mallory {FOREIGN} -> forbidden message="task_exp_1_is_not_accessible"; submit task_status as=mallory {UNKNOWN} -> forbidden message="task_exp_9_is_not_accessible""#
        ))
        .with_task("exp_1", "completed", 0, 10)
        .passes(&CHECK);
    }

    #[test]
    fn refusals_stamped_with_the_time_or_a_fresh_trace_id_pass() {
        history(&format!(
            r#"submit task_status as=mallory {FOREIGN} -> forbidden message="refused_at_2026-12-04T02:41:07Z" trace_id=4bf92f3577b34da6a3ce929d0e0e4736; submit task_status as=mallory {UNKNOWN} -> forbidden message="refused_at_2026-12-04T02:41:09Z" trace_id=0af7651916cd43dd8448eb211c80319c"#
        ))
        .with_task("exp_1", "completed", 0, 10)
        .passes(&CHECK);
    }

    #[test]
    fn a_refusal_that_tells_a_missing_handle_apart_fails() {
        history(&script("forbidden reason=not_found"))
            .with_task("exp_1", "completed", 0, 10)
            .fails(&CHECK, "refused inaccessible task handles differently");
    }

    #[test]
    fn refusals_for_other_reasons_or_other_callers_are_not_compared() {
        history(&script("dependency_unavailable reason=resource_lookup_failed"))
            .with_task("exp_1", "completed", 0, 10)
            .passes(&CHECK);
        history(&format!(
            "submit task_status as=mallory {FOREIGN} -> forbidden reason=resource_not_accessible; submit task_status as=bob {UNKNOWN} -> forbidden reason=missing_scope"
        ))
        .with_task("exp_1", "completed", 0, 10)
        .passes(&CHECK);
    }

    #[test]
    fn an_answer_about_another_tenants_task_fails() {
        history(&format!("submit task_status as=mallory {FOREIGN} -> ok"))
            .with_task("exp_1", "completed", 0, 10)
            .fails(&CHECK, "answered another tenant's task `exp_1`");
    }

    #[test]
    fn polls_of_ones_own_task_skip() {
        history(&format!("submit task_status {FOREIGN} -> ok")).with_task("exp_1", "completed", 0, 10).skips(&CHECK);
    }
}
