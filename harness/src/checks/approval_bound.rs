//! `approval-bound`: a tool that needs approval acts only with an unexpired approval of this subject, tenant,
//! tool, risk and exact arguments.
//!
//! Rule enforced here: the harness computes the binding itself, from the approval the caller presented (as the
//! runner recorded it) and the catalog, never from what the executor says. A side-effecting request tied to its
//! operation but to none of the calls in flight acted without approval only if none of them had one.

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::CallRecord;
use callproof_executor::Arguments;
use callproof_executor::canonical::{canonical_json, sha256_hex};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const APPROVAL_BOUND: CheckId = CheckId::new("approval-bound");

pub(super) const CHECK: Check = Check {
    id: APPROVAL_BOUND,
    level: Level::Must,
    rule: "a tool that needs approval acts only with an unexpired approval of this subject, tenant, tool, risk and exact arguments",
    seed_ref: "§3.4",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(gap) = unapproved(context, call) else { continue };
        judgement.judged();
        let acted = context.transcript.exchanges_of_call(call.index).any(|exchange| exchange.record.side_effect);
        if call.ok() || acted {
            judgement.fail(format!("the call acted without an approval covering it: {gap}"), context.evidence(call));
        }
    }
    for (exchange, senders) in context.shared_requests().filter(|(exchange, _)| exchange.record.side_effect) {
        if senders.iter().all(|call| unapproved(context, call).is_some()) {
            judgement.judged();
            judgement.fail(
                format!(
                    "request #{} acted, and no call that may have sent it had an approval covering it",
                    exchange.record.index
                ),
                context.shared_evidence(exchange),
            );
        }
    }
    judgement.outcome()
}

/// What a call that needs an approval lacks, if anything: no approval, or the first binding of the one it
/// presented that does not hold.
fn unapproved(context: &Context<'_>, call: &CallRecord) -> Option<&'static str> {
    let entry = context.tool(&call.tool).filter(|entry| entry.spec.requires_approval)?;
    let Some(approval) = &call.approval else { return Some("it presented none") };
    let hash = match &call.arguments {
        Arguments::Raw(text) => crate::runner::arguments_hash(text),
        Arguments::Value(value) => Some(sha256_hex(canonical_json(value).as_bytes())),
    };
    // The approval covers exactly this call: its tool, subject, tenant, the tool's risk, the SHA-256 of the
    // canonical arguments, and it had not expired when the call was made.
    [
        (approval.tool == call.tool, "its approval is for another tool"),
        (approval.subject_id == call.subject_id, "its approval is for another subject"),
        (approval.tenant_id == call.tenant_id, "its approval is for another tenant"),
        (approval.risk == entry.spec.risk, "its approval is for another risk"),
        (Some(approval.arguments_hash.as_str()) == hash.as_deref(), "its approval is for other arguments"),
        (approval.expires_at_ms > call.wall_ms, "its approval had expired"),
    ]
    .into_iter()
    .find_map(|(holds, gap)| (!holds).then_some(gap))
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;
    use callproof_executor::{Approval, Risk};

    /// An approval of alice's deletion of `acct_1`, valid for a minute after `wall_ms`.
    fn approval(call: &CallRecord) -> Approval {
        Approval {
            approval_id: "appr_1".to_owned(),
            subject_id: call.subject_id.clone(),
            tenant_id: call.tenant_id.clone(),
            tool: "delete_account".to_owned(),
            arguments_hash: sha256_hex(canonical_json(&serde_json::json!({"account_id": "acct_1"})).as_bytes()),
            risk: Risk::Destructive,
            expires_at_ms: call.wall_ms + 60_000,
        }
    }

    const DELETION: &str = "submit delete_account -> ok; request DELETE /accounts/acct_1 -> committed";

    #[test]
    fn a_deletion_under_a_matching_approval_is_not_judged_and_a_refused_one_passes() {
        history(DELETION).with_call(0, |call| call.approval = Some(approval(call))).skips(&CHECK);
        history("submit delete_account -> approval_required").passes(&CHECK);
    }

    #[test]
    fn an_approval_of_other_arguments_does_not_cover_the_deletion() {
        history(DELETION)
            .with_call(0, |call| {
                call.approval = Some(approval(call));
                call.arguments = Arguments::Raw(r#"{"account_id":"acct_2"}"#.to_owned());
            })
            .fails(&CHECK, "the call acted without an approval covering it: its approval is for other arguments");
    }

    const SHARED_DELETION: &str = "burst delete_account -> ok; and -> operation_in_progress
                                   request DELETE /accounts/acct_1 -> committed op";

    #[test]
    fn the_failure_names_the_first_binding_that_does_not_hold() {
        history(DELETION).fails(&CHECK, "covering it: it presented none");
        let other_tool = |call: &mut CallRecord| {
            call.approval = Some(Approval { tool: "export_account_data".to_owned(), ..approval(call) });
        };
        history(DELETION).with_call(0, other_tool).fails(&CHECK, "covering it: its approval is for another tool");
        let other_tenant = |call: &mut CallRecord| {
            call.approval = Some(Approval { tenant_id: "t_globex".to_owned(), ..approval(call) });
        };
        history(DELETION).with_call(0, other_tenant).fails(&CHECK, "covering it: its approval is for another tenant");
    }

    #[test]
    fn a_deletion_no_id_ties_to_a_call_passes_when_a_call_in_flight_was_approved() {
        history(SHARED_DELETION).with_call(0, |call| call.approval = Some(approval(call))).passes(&CHECK);
    }

    #[test]
    fn a_deletion_no_id_ties_to_a_call_fails_when_no_call_in_flight_was_approved() {
        history(SHARED_DELETION)
            .with_call(1, |call| call.approval = None)
            .fails(&CHECK, "request #0 acted, and no call that may have sent it had an approval");
    }

    #[test]
    fn an_expired_approval_does_not_cover_the_deletion() {
        history(DELETION)
            .with_call(0, |call| {
                let mut expired = approval(call);
                expired.expires_at_ms = call.wall_ms;
                call.approval = Some(expired);
            })
            .fails(&CHECK, "without an approval");
    }
}
