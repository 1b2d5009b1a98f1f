//! `unknown-version-refused`: an executor process refuses a `hello` in a protocol version it cannot know.
//!
//! Rule enforced here: docs/protocol.md asks an executor to answer a `hello` in another version with an `error`
//! line and to exit. A process that answers `capabilities` instead goes on as if it spoke the version, whatever
//! version its capabilities name, and a harness of that version would take its answers for ones it can read.
//! Only that fails: any other first line, an exit without one, or silence until the start timeout (the harness
//! gives up on it, as on any executor that does not answer `hello`) is a refusal. Judged on the runs whose
//! scenario has a `hello` step.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::BetweenCalls;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const UNKNOWN_VERSION_REFUSED: CheckId = CheckId::new("unknown-version-refused");

pub(super) const CHECK: Check = Check {
    id: UNKNOWN_VERSION_REFUSED,
    level: Level::Must,
    rule: "an executor process told a protocol version it does not speak refuses it: it never answers capabilities",
    seed_ref: "protocol",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for between in &context.transcript.between_calls {
        let BetweenCalls::Hello { protocol, answer, .. } = between else { continue };
        judgement.judged();
        if !answer.refused() {
            judgement.fail(
                format!(
                    "a hello in {protocol}, a version the harness does not speak, was not refused ({answer}); \
                     docs/protocol.md: answer an error line and exit"
                ),
                vec![between.line()],
            );
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn an_error_line_or_an_exit_is_a_refusal() {
        history("hello callproof/2 -> refused; hello callproof/10 -> ended").passes(&CHECK);
        history(r#"hello callproof/10 -> refused line={"type":"log"}"#).passes(&CHECK);
    }

    #[test]
    fn capabilities_fail_whatever_version_they_name() {
        history("hello callproof/2 -> refused; hello callproof/10 -> accepted protocol=callproof/1")
            .fails(&CHECK, "a hello in callproof/10, a version the harness does not speak, was not refused");
        let violations = history("hello callproof/2 -> accepted protocol=callproof/2")
            .fails(&CHECK, "it answered capabilities (protocol \"callproof/2\"), and no error line or exit followed");
        assert_eq!(violations.len(), 1);
        assert!(violations[0].evidence[0].contains("hello callproof/2"), "{violations:?}");
    }

    #[test]
    fn silence_until_the_start_timeout_is_a_refusal() {
        history("hello callproof/2 -> silent; hello callproof/10 -> silent").passes(&CHECK);
        history("hello callproof/2 -> silent; hello callproof/10 -> accepted").fails(&CHECK, "callproof/10");
    }

    #[test]
    fn a_run_without_hello_skips() {
        history("submit refund_order -> ok; request POST /refunds -> committed").skips(&CHECK);
    }
}
