//! `no-secret-leak`: no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body.
//!
//! Rule enforced here: every answer is searched for the markers the `leak_bait` fault plants, in every
//! scenario, whether or not the fault fired (an executor may cache and leak later).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::world::LEAK_MARKERS;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const NO_SECRET_LEAK: CheckId = CheckId::new("no-secret-leak");

pub(super) const CHECK: Check = Check {
    id: NO_SECRET_LEAK,
    level: Level::Must,
    rule: "no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body",
    seed_ref: "§6.2, §11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.calls.is_empty());
    for call in &context.transcript.calls {
        let Some(raw) = call.answer.raw() else { continue };
        let text = raw.to_string();
        let leaked: Vec<&str> =
            LEAK_MARKERS.iter().copied().filter(|marker| text.contains(&marker.replace('"', "\\\""))).collect();
        if !leaked.is_empty() {
            judgement.fail(format!("the envelope carries {leaked:?}"), context.evidence(call));
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn envelopes_without_markers_pass() {
        history("submit refund_order -> dependency_unavailable reason=unavailable").passes(&CHECK);
    }

    #[test]
    fn a_marker_anywhere_in_an_envelope_fails() {
        history("submit refund_order -> dependency_unavailable body=db-primary-7.payments.internal.corp")
            .fails(&CHECK, "db-primary-7.payments.internal.corp");
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
