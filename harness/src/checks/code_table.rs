//! `code-table`: an error's category, retryable flag and resolution are the ones the code table gives its code.
//!
//! Rule enforced here: the table in the executor crate (docs/errors.md) is the truth; an unknown code fails.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::envelope::wire;
use callproof_executor::ErrorCode;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const CODE_TABLE: CheckId = CheckId::new("code-table");

pub(super) const CHECK: Check = Check {
    id: CODE_TABLE,
    level: Level::Must,
    rule: "an error's category, retryable flag and resolution are the ones the code table gives its code",
    seed_ref: "§6.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(error) = call.error() else { continue };
        judgement.judged();
        let code = &error.wire_code;
        let Some(info) = ErrorCode::from_wire(code).map(ErrorCode::info) else {
            judgement.fail(format!("`{code}` is not a code of the table"), context.evidence(call));
            continue;
        };
        let mismatches = [
            ("category", error.category != Some(info.category), wire(error.category), wire(Some(info.category))),
            (
                "retryable",
                error.retryable != Some(info.retryable),
                error.retryable.map_or("null".to_owned(), |flag| flag.to_string()),
                info.retryable.to_string(),
            ),
            ("resolution", error.resolution != Some(info.resolution), wire(error.resolution), wire(Some(info.resolution))),
        ];
        for (field, differs, got, want) in mismatches {
            if differs {
                judgement.fail(format!("{code}: {field} is {got} but the table says {want}"), context.evidence(call));
            }
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn errors_with_the_tables_flags_pass() {
        history("submit refund_order -> timeout_unknown; retry -> ok").passes(&CHECK);
    }

    #[test]
    fn a_final_code_flagged_retryable_fails() {
        history("submit refund_order -> timeout_unknown retryable=true resolution=retry_same_key")
            .fails(&CHECK, "timeout_unknown: retryable is true but the table says false");
    }

    #[test]
    fn a_code_outside_the_table_fails() {
        history("submit refund_order -> try_later").fails(&CHECK, "`try_later` is not a code of the table");
    }

    #[test]
    fn only_successes_skip() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
