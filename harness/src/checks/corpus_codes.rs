//! `corpus-codes`: each malformed-corpus case is refused with its code.
//!
//! Rule enforced here: the codes in scenarios/corpus/malformed.toml are the contract, exactly. A refusal the
//! transport carried instead of an envelope (an MCP -32700 to a text that is not JSON) satisfies the codes it
//! stands for (`invalid_json`, `invalid_arguments`: docs/mcp.md, "Answers that are not envelopes"), no other.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const CORPUS_CODES: CheckId = CheckId::new("corpus-codes");

pub(super) const CHECK: Check = Check {
    id: CORPUS_CODES,
    level: Level::Must,
    rule: "each malformed-corpus case is refused with its code",
    seed_ref: "§2.3, §10 case 1",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for (call, case) in context.corpus_calls() {
        judgement.judged();
        if let Some(refusal) = &call.refusal {
            if !refusal.satisfies(&case.code) {
                let got = format!("{} (which stands for {})", refusal.by, refusal.codes());
                judgement.fail(format!("case `{}`: expected {}, got {got}", case.name, case.code), vec![call.line()]);
            }
            continue;
        }
        let Some(envelope) = call.envelope() else { continue };
        let got = envelope.error().map_or("(ok)", |error| error.wire_code.as_str());
        if got != case.code {
            judgement.fail(format!("case `{}`: expected {}, got {got}", case.name, case.code), vec![call.line()]);
        }
    }
    judgement.outcome()
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    #[test]
    fn each_case_answered_with_its_code_passes() {
        history("corpus refund_order case=truncated_object -> invalid_json").passes(&CHECK);
    }

    #[test]
    fn another_code_or_a_success_fails() {
        history("corpus refund_order case=truncated_object -> schema_violation")
            .fails(&CHECK, "case `truncated_object`: expected invalid_json, got schema_violation");
        history("corpus refund_order case=truncated_object -> ok").fails(&CHECK, "got (ok)");
    }

    #[test]
    fn a_parse_error_satisfies_invalid_json_and_invalid_arguments_only() {
        // deep_nesting_one_hundred_thousand expects invalid_arguments (too_deep); the harness reads -32700 as
        // invalid_json, and the refusal stands for both.
        history("corpus refund_order case=deep_nesting_one_hundred_thousand -> invalid_json -32700").passes(&CHECK);
        history("corpus refund_order case=truncated_object -> invalid_json -32700").passes(&CHECK);
        history("corpus refund_order case=deep_nesting_one_hundred_thousand -> invalid_json")
            .fails(&CHECK, "expected invalid_arguments, got invalid_json");
    }

    #[test]
    fn a_run_without_corpus_calls_skips() {
        history("submit refund_order -> ok").skips(&CHECK);
    }
}
