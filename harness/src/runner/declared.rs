//! What the subject declares: a corpus case calling a catalog tool the subject does not declare is left out.
//!
//! Rule enforced here: such a case is never sent and never judged, since `tool_not_found` is the right answer
//! to it (docs/protocol.md), and it is recorded in the transcript so the report says which cases were left
//! out; a scenario with a step left with no call (every case of a `corpus` step, or a call taking its tool from
//! such a case) is skipped, never passed with nothing judged.

use super::{Op, Planned, Runner, Session, planned};
use crate::corpus::Case;
use crate::scenario::{Scenario, Step, StepKind};
use crate::subject::Support;
use crate::transcript::LeftOut;
use callproof_executor::{Arguments, ToolCall};

impl Runner {
    /// Whether the subject can be judged on `scenario`: what its factory says, or a skip when a step would
    /// make no call because every corpus case it takes calls a tool the subject does not declare.
    pub async fn support(&self, scenario: &Scenario) -> Support {
        let support = self.factory.support(scenario).await;
        if matches!(support, Support::Skip(_)) {
            return support;
        }
        let lacking = self.lacking().await;
        if lacking.is_empty() {
            return support;
        }
        for (index, step) in scenario.steps.iter().enumerate() {
            let cases = self.cases_of(step);
            if !cases.is_empty() && cases.iter().all(|case| lacking.contains(&case.tool)) {
                let mut tools: Vec<&str> = cases.iter().map(|case| case.tool.as_str()).collect();
                tools.sort_unstable();
                tools.dedup();
                return Support::Skip(format!(
                    "step {} takes every call from corpus cases for {}, which the executor does not declare",
                    index + 1,
                    quoted(&tools)
                ));
            }
        }
        support
    }

    /// The catalog tools the subject does not declare (none when it declares no list).
    pub(super) async fn lacking(&self) -> Vec<String> {
        let Some(declared) = self.factory.tools().await else { return Vec::new() };
        let names = self.catalog.iter().map(|entry| &entry.spec.name);
        names.filter(|tool| !declared.contains(tool)).cloned().collect()
    }

    /// The corpus cases `step` takes its calls from: every case (or those of `only`) of a `corpus` step, the
    /// case of a call that names one and no tool of its own.
    fn cases_of<'a>(&'a self, step: &'a Step) -> Vec<&'a Case> {
        match step {
            Step::Corpus(spec) => self.corpus.selected(&spec.only).collect(),
            Step::Submit(call) | Step::Burst { call, .. } if call.tool.is_none() => {
                call.corpus.as_deref().and_then(|name| self.corpus.case(name)).into_iter().collect()
            }
            _ => Vec::new(),
        }
    }
}

impl Session<'_> {
    /// One call per corpus case (or per case of `only`), each its own operation; a case calling a tool the
    /// subject does not declare is left out.
    pub(super) fn plan_corpus(&mut self, step_index: usize, auth: &str, only: &[String]) -> Vec<Planned> {
        let runner = self.runner;
        let mut planned_cases = Vec::new();
        for case in runner.corpus.selected(only) {
            if self.lacking.contains(&case.tool) {
                let left_out = LeftOut { step: step_index, case: case.name.clone(), tool: case.tool.clone() };
                self.left_out.push(left_out);
                continue;
            }
            let call = ToolCall {
                call_id: format!("call_{}_{}", step_index + 1, case.name),
                name: case.tool.clone(),
                arguments: Arguments::Raw(case.text()),
            };
            let op =
                Op { business: 0, call, auth: auth.to_owned(), business_request_id: None, attempt: 1, budget_ms: 3000 };
            let op_index = self.new_op(op, Some(format!("corpus:{}", case.name)));
            planned_cases.push(planned(step_index, StepKind::Corpus, &self.ops[op_index], Some(case.name.clone())));
        }
        planned_cases
    }
}

/// The left-out cases of a run for people: how many, for which tools, and which, e.g. "left out 1 corpus case
/// calling `delete_account`, which the executor does not declare: delete_account_id_of_the_wrong_kind".
pub(crate) fn left_out_note(left_out: &[LeftOut]) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let mut tools: Vec<&str> = left_out.iter().map(|left| left.tool.as_str()).collect();
    tools.sort_unstable();
    tools.dedup();
    let cases: Vec<&str> = left_out.iter().map(|left| left.case.as_str()).collect();
    let plural = if cases.len() == 1 { "" } else { "s" };
    Some(format!(
        "left out {} corpus case{plural} calling {}, which the executor does not declare: {}",
        cases.len(),
        quoted(&tools),
        cases.join(", ")
    ))
}

/// `a`, `a` and `b`, `a`, `b` and `c`.
fn quoted(tools: &[&str]) -> String {
    let quoted: Vec<String> = tools.iter().map(|tool| format!("`{tool}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn left(case: &str, tool: &str) -> LeftOut {
        LeftOut { step: 0, case: case.to_owned(), tool: tool.to_owned() }
    }

    #[test]
    fn the_note_counts_the_cases_and_names_each_tool_once() {
        assert_eq!(left_out_note(&[]), None);
        assert_eq!(
            left_out_note(&[left("a", "delete_account")]).as_deref(),
            Some("left out 1 corpus case calling `delete_account`, which the executor does not declare: a")
        );
        let many = [left("a", "send_email"), left("b", "delete_account"), left("c", "send_email")];
        assert_eq!(
            left_out_note(&many).as_deref(),
            Some(
                "left out 3 corpus cases calling `delete_account` and `send_email`, which the executor does not \
                 declare: a, b, c"
            )
        );
    }
}
