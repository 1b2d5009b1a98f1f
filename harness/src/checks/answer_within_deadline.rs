//! `answer-within-deadline`: every call is answered within its budget plus 1.5 s.
//!
//! Rule enforced here: the margin is wide on purpose (loaded 2-core CI machines; the check is about not
//! hanging); a call killed by a crash fault is exempt, a call whose process the harness stopped (`pause`) has
//! the stop added to its allowance, and a subject that broke or never answered fails.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::Answer;
use crate::world::FaultKind;

/// How far past its budget an answer may arrive and still count as on time.
const DEADLINE_MARGIN_MS: u64 = 1500;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const ANSWER_WITHIN_DEADLINE: CheckId = CheckId::new("answer-within-deadline");

pub(super) const CHECK: Check = Check {
    id: ANSWER_WITHIN_DEADLINE,
    level: Level::Must,
    rule: "every call is answered within its budget plus 1.5 s",
    seed_ref: "§4.2",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.calls.is_empty());
    for call in context.transcript.calls.iter().filter(|call| call.answer != Answer::Killed) {
        let took = call.answered_ms.saturating_sub(call.started_ms);
        if !call.answer.came_back() || took > call.budget_ms + DEADLINE_MARGIN_MS + paused_ms(context, call.step) {
            judgement.fail(format!("answered after {took} ms with a budget of {} ms", call.budget_ms), context.evidence(call));
        }
    }
    judgement.outcome()
}

/// How long the harness kept the subject's process stopped during step `step` (its `pause` faults that fired):
/// time the subject could not use, so not its lateness.
fn paused_ms(context: &Context<'_>, step: usize) -> u64 {
    let pauses = context.transcript.faults.iter().filter(|log| log.step == step);
    pauses
        .map(|log| match &log.spec.kind {
            FaultKind::Pause(pause) => pause.ms.saturating_mul(u64::from(log.fired)),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn answers_inside_the_margin_and_killed_calls_pass() {
        history("submit refund_order budget=1000 took=2500 -> timeout_unknown; retry -> killed").passes(&CHECK);
    }

    #[test]
    fn a_late_answer_fails() {
        history("submit refund_order budget=1000 took=2501 -> timeout_unknown")
            .fails(&CHECK, "answered after 2501 ms with a budget of 1000 ms");
    }

    #[test]
    fn no_answer_at_all_fails() {
        history("submit refund_order budget=1000 took=11000 -> no-answer").fails(&CHECK, "answered after 11000 ms");
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
