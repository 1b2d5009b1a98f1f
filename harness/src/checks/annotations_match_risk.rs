//! `annotations-match-risk`: a tool that moves money, leaves the system or deletes never claims to be read-only,
//! and a destructive one never claims not to be destructive.
//!
//! Rule enforced here: where the subject lists its tools with annotations (an MCP server's `tools/list`), a tool
//! the catalog gives the risk `financial`, `external` or `destructive` may not say `readOnlyHint: true` (MCP
//! schema.ts `ToolAnnotations`: "the tool does not modify its environment"), and a `destructive` one may not say
//! `destructiveHint: false`. A client auto-approves what claims to be read-only, so such a claim runs a refund or
//! a deletion without asking anyone. Judged in a run that calls such a tool, once per tool, with the call as
//! evidence. A hint left out is no claim, and the `write` tools (a preference, an export job, a cancel) are not
//! judged: whether they modify the caller's environment is a matter of reading.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use callproof_executor::Risk;
use serde_json::Value;
use std::collections::BTreeSet;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const ANNOTATIONS_MATCH_RISK: CheckId = CheckId::new("annotations-match-risk");

pub(super) const CHECK: Check = Check {
    id: ANNOTATIONS_MATCH_RISK,
    level: Level::Must,
    rule: "a financial, external or destructive tool never claims readOnlyHint: true, nor a destructive one \
           destructiveHint: false (MCP tools/list)",
    seed_ref: "§3.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    let annotations = &context.transcript.tool_annotations;
    let mut judged = BTreeSet::new();
    for call in context.transcript.calls.iter() {
        let Some(risk) = context.tool(&call.tool).map(|entry| entry.spec.risk) else { continue };
        if !matches!(risk, Risk::Financial | Risk::External | Risk::Destructive) || !judged.insert(&call.tool) {
            continue;
        }
        let Some(listed) = annotations.get(&call.tool) else { continue };
        judgement.judged_if(true);
        let hint = |name: &str| listed.get(name).and_then(Value::as_bool);
        let mut lies = Vec::new();
        if hint("readOnlyHint") == Some(true) {
            lies.push("readOnlyHint: true");
        }
        if risk == Risk::Destructive && hint("destructiveHint") == Some(false) {
            lies.push("destructiveHint: false");
        }
        if !lies.is_empty() {
            judgement.fail(
                format!(
                    "{} is a {} tool in the catalog, but its tools/list annotations say {} ({listed}): a client \
                     that trusts them runs it without asking",
                    call.tool,
                    risk.as_str(),
                    lies.join(" and ")
                ),
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
    use serde_json::json;

    const REFUND: &str = r#"submit refund_order args={"order_id":"ord_1","amount":10,"reason":"r"} -> ok"#;

    #[test]
    fn annotations_that_fit_the_catalogs_risk_pass() {
        let honest = json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true});
        history(REFUND).with_annotations(&[("refund_order", honest)]).passes(&CHECK);
        // A read tool may say read-only, and no hint at all claims nothing.
        history(REFUND)
            .with_annotations(&[("refund_order", json!({"title": "Refund"})), ("get_order", json!({"readOnlyHint": true}))])
            .passes(&CHECK);
        let delete = r#"submit delete_account args={"account_id":"acct_1"} -> ok"#;
        history(delete).with_annotations(&[("delete_account", json!({"readOnlyHint": false}))]).passes(&CHECK);
    }

    #[test]
    fn a_refund_that_claims_to_be_read_only_or_a_deletion_that_claims_no_harm_fails() {
        // Blind round 14's ts_delete_annotated_readonly: the read tools' annotations copied onto a destructive one.
        let delete = r#"submit delete_account args={"account_id":"acct_1"} -> ok"#;
        history(delete)
            .with_annotations(&[("delete_account", json!({"readOnlyHint": true, "openWorldHint": true}))])
            .fails(&CHECK, "readOnlyHint: true");
        history(delete)
            .with_annotations(&[("delete_account", json!({"readOnlyHint": false, "destructiveHint": false}))])
            .fails(&CHECK, "destructiveHint: false");
        let twice = format!("{REFUND}; {REFUND}");
        let violations =
            history(&twice).with_annotations(&[("refund_order", json!({"readOnlyHint": true}))]).fails(&CHECK, "financial");
        assert_eq!(violations.len(), 1, "once per tool");
    }

    #[test]
    fn a_subject_without_annotations_or_a_run_without_such_a_call_is_not_judged() {
        history(REFUND).skips(&CHECK);
        let read = r#"submit get_order args={"order_id":"ord_1"} -> ok"#;
        history(read).with_annotations(&[("refund_order", json!({"readOnlyHint": true}))]).skips(&CHECK);
        let write = r#"submit set_preference args={"key":"k","value":"v"} -> ok"#;
        history(write).with_annotations(&[("set_preference", json!({"readOnlyHint": true}))]).skips(&CHECK);
    }
}
