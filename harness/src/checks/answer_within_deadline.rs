//! `answer-within-deadline`: every call is answered within its budget plus 1.5 s.
//!
//! Rule enforced here: the margin is wide on purpose (loaded 2-core CI machines; the check is about not
//! hanging); a call killed by a crash fault is exempt, a call whose process the harness stopped (`pause`) has
//! the stop added to its allowance, and a subject that broke or never answered fails. The budget counts from
//! when the executor read the call (docs/protocol.md), which an executor with back-pressure does only when it
//! has answered an earlier one: a call of a step answered after other calls of that step is timed from the
//! latest of those answers that came while it waited, never from before it was sent, and the first answer
//! after a quiet moment is timed from its send, so an executor that ignores its deadlines is still caught.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{Answer, CallRecord};
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
    let calls = &context.transcript.calls;
    for call in calls.iter().filter(|call| call.answer != Answer::Killed) {
        let read_by = read_by(calls, call);
        let took = call.answered_ms.saturating_sub(read_by);
        if !call.answer.came_back() || took > call.budget_ms + DEADLINE_MARGIN_MS + paused_ms(context, call.step) {
            let budget = call.budget_ms;
            let message = match read_by.saturating_sub(call.started_ms) {
                0 => format!("answered after {took} ms with a budget of {budget} ms"),
                queued => format!(
                    "answered {took} ms after the answer before it ({} ms after it was sent, {queued} ms of them \
                     queued) with a budget of {budget} ms",
                    took + queued
                ),
            };
            judgement.fail(message, context.evidence(call));
        }
    }
    judgement.outcome()
}

/// When the subject had read `call` at the latest: when it was sent or, if other calls of its step were
/// answered while it waited (strictly before its own answer), the last of those answers, since an executor that
/// reads one line at a time reads a call only once it has answered the one before.
fn read_by(calls: &[CallRecord], call: &CallRecord) -> u64 {
    let others = calls.iter().filter(|other| other.step == call.step && other.index != call.index);
    others
        .filter(|other| other.answer.came_back() && other.answered_ms < call.answered_ms)
        .map(|other| other.answered_ms)
        .filter(|answered| *answered > call.started_ms)
        .max()
        .unwrap_or(call.started_ms)
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

    /// Three reads sent at once to an executor that reads the next line only when it has answered: each takes
    /// 2 s of a 3 s budget from when it was read, so the third is answered 6 s after it was sent.
    const SERIAL: &str = "burst get_weather budget=3000 sent=0 took=2000 -> ok; \
                          and budget=3000 sent=0 took=4000 -> ok; and budget=3000 sent=0 took=6000 -> ok";

    #[test]
    fn a_call_queued_behind_others_is_timed_from_the_answer_before_it() {
        history(SERIAL).passes(&CHECK);
        history(&SERIAL.replace("took=6000", "took=8600")).fails(
            &CHECK,
            "answered 4600 ms after the answer before it (8600 ms after it was sent, 4000 ms of them queued) with a \
             budget of 3000 ms",
        );
    }

    #[test]
    fn calls_answered_together_late_are_each_timed_from_their_send() {
        // A deadline-ignoring executor that runs the three at once answers them about together: the first two in
        // the same millisecond, neither answered before the other, so neither is excused (the first answer of a
        // step never is); the third, a millisecond later, could have been read only then by a serial executor.
        let together = "burst get_weather budget=1000 sent=0 took=6000 -> ok; \
                        and budget=1000 sent=0 took=6000 -> ok; and budget=1000 sent=0 took=6001 -> ok";
        let violations = history(together).fails(&CHECK, "answered after 6000 ms with a budget of 1000 ms");
        let messages: Vec<&str> = violations.iter().map(|violation| violation.message.as_str()).collect();
        assert_eq!(messages, ["answered after 6000 ms with a budget of 1000 ms"; 2]);
    }

    #[test]
    fn an_answer_before_the_call_was_sent_or_one_that_did_not_come_back_excuses_nothing() {
        history("burst get_weather budget=1000 sent=0 took=100 -> ok; and budget=1000 sent=200 took=2600 -> ok")
            .fails(&CHECK, "answered after 2600 ms with a budget of 1000 ms");
        history("burst get_weather budget=1000 sent=0 took=2000 -> broken; and budget=1000 sent=0 took=2600 -> ok")
            .fails(&CHECK, "answered after 2600 ms with a budget of 1000 ms");
        history("submit get_weather budget=1000 sent=0 took=2000 -> ok; submit get_weather budget=1000 sent=0 took=2600 -> ok")
            .fails(&CHECK, "answered after 2600 ms with a budget of 1000 ms");
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
