//! Checks: invariants judged over a transcript, with Jepsen's outcome semantics.
//!
//! Rule enforced here: a check reads only the transcript (what the calls answered, what reached the
//! downstream, what the ledger holds) and the scenario; it has a stable id (append-only), a level (MUST from
//! the seed, SHOULD beyond it), a one-line rule and a seed reference, all listed in docs/checks.md. Outcome
//! semantics: `ok` ⇒ exactly one committed effect; a definite failure ⇒ none from that call; an unknown
//! outcome ⇒ zero or one, and reconciliation must end at the ledger's truth.
//!
//! To add a check: write `checks/<name>.rs` with its [`CheckId`] constant, its `CHECK` and its unit tests on
//! literal transcripts (`testing`), add one line to the registry below, and one row plus one section to
//! docs/checks.md.

mod id;
mod json_values;
mod judgement;
mod noise;
pub(crate) mod oracle;
#[cfg(test)]
pub(crate) mod testing;

pub use id::{CheckId, UnknownCheck};
pub(crate) use judgement::Judgement;

use crate::corpus::{Case, Corpus};
use crate::scenario::Scenario;
use crate::transcript::{CallRecord, Exchange, Operation, Transcript};
use crate::world::{FaultKind, ForeignRequest};
use callproof_executor::ErrorCode;
use callproof_executor::app::CatalogEntry;
use callproof_executor::error::Category;
use serde::Serialize;

/// Declares each check's module, re-exports its id, and lists the checks in report order.
macro_rules! registry {
    ($($module:ident::$id:ident),* $(,)?) => {
        $(mod $module; pub use $module::$id;)*
        /// Every check, in report order.
        pub const ALL: &[Check] = &[$($module::CHECK),*];
    };
}

registry! {
    envelope_schema::ENVELOPE_SCHEMA,
    code_table::CODE_TABLE,
    no_secret_leak::NO_SECRET_LEAK,
    expectations::EXPECTATIONS,
    malformed_input_refused::MALFORMED_INPUT_REFUSED,
    corpus_codes::CORPUS_CODES,
    corpus_details::CORPUS_DETAILS,
    rejection_has_no_effect::REJECTION_HAS_NO_EFFECT,
    single_effect::SINGLE_EFFECT,
    ok_means_applied::OK_MEANS_APPLIED,
    failure_means_not_applied::FAILURE_MEANS_NOT_APPLIED,
    not_sent_means_unseen::NOT_SENT_MEANS_UNSEEN,
    burst_single_execution::BURST_SINGLE_EXECUTION,
    conflict_on_changed_arguments::CONFLICT_ON_CHANGED_ARGUMENTS,
    injected_text_inert::INJECTED_TEXT_INERT,
    unknown_outcome_not_retryable::UNKNOWN_OUTCOME_NOT_RETRYABLE,
    reconcile_before_resend::RECONCILE_BEFORE_RESEND,
    same_key::SAME_KEY,
    replay_same_result::REPLAY_SAME_RESULT,
    approval_bound::APPROVAL_BOUND,
    tenant_isolation::TENANT_ISOLATION,
    answer_within_deadline::ANSWER_WITHIN_DEADLINE,
    lease_honoured::LEASE_HONOURED,
    rate_limit_retry_after::RATE_LIMIT_RETRY_AFTER,
    output_invalid_withheld::OUTPUT_INVALID_WITHHELD,
    deadline_propagated::DEADLINE_PROPAGATED,
    request_id_propagated::REQUEST_ID_PROPAGATED,
    task_final_stable::TASK_FINAL_STABLE,
    task_status_truthful::TASK_STATUS_TRUTHFUL,
    task_refusal_uniform::TASK_REFUSAL_UNIFORM,
    configured_origin_only::CONFIGURED_ORIGIN_ONLY,
    identity_stays_home::IDENTITY_STAYS_HOME,
    resource_refusal_uniform::RESOURCE_REFUSAL_UNIFORM,
    meta_echoes_call::META_ECHOES_CALL,
    identity_propagated::IDENTITY_PROPAGATED,
    replayed_means_recorded::REPLAYED_MEANS_RECORDED,
    unknown_version_refused::UNKNOWN_VERSION_REFUSED,
    annotations_match_risk::ANNOTATIONS_MATCH_RISK,
    body_is_arguments::BODY_IS_ARGUMENTS,
    result_matches_downstream::RESULT_MATCHES_DOWNSTREAM,
}

/// How binding a check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Required by the seed: a failure fails the run.
    Must,
    /// Best practice beyond the seed: reported, does not fail the run.
    Should,
}

impl Level {
    /// `MUST` or `SHOULD`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
        }
    }
}

/// One violation with the transcript lines that show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// What is wrong.
    pub message: String,
    /// Transcript lines that show it.
    pub evidence: Vec<String>,
}

/// The verdict of one check on one transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Nothing in this scenario for the check to judge.
    Skip,
    /// Judged and holds.
    Pass,
    /// Judged and broken.
    Fail {
        /// The violations.
        violations: Vec<Violation>,
    },
}

/// What a check may look at.
pub struct Context<'a> {
    /// The run.
    pub transcript: &'a Transcript,
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The malformed corpus.
    pub corpus: &'a Corpus,
    /// The conformance app's catalog.
    pub catalog: &'a [CatalogEntry],
}

impl Context<'_> {
    /// The catalog entry of a tool name (exact).
    pub fn tool(&self, name: &str) -> Option<&CatalogEntry> {
        self.catalog.iter().find(|entry| entry.spec.name == name)
    }

    /// Whether `name` is a known tool with side effects.
    pub fn has_side_effect(&self, name: &str) -> bool {
        self.tool(name).is_some_and(|entry| entry.spec.risk.has_side_effect())
    }

    /// Evidence for one call: its line and its requests.
    pub fn evidence(&self, call: &CallRecord) -> Vec<String> {
        let mut lines = vec![call.line()];
        lines.extend(self.transcript.exchanges_of_call(call.index).map(Exchange::line));
        lines
    }

    /// Evidence for one operation: every call and request of it (a request no id tied to one of its calls
    /// under the last call that may have sent it).
    pub fn op_evidence(&self, op: usize) -> Vec<String> {
        let operation = &self.transcript.operations[op];
        let mut lines = Vec::new();
        for call in operation.calls.iter().map(|call| &self.transcript.calls[*call]) {
            lines.extend(self.evidence(call));
            lines.extend(self.transcript.shared_under(call.index).map(Exchange::line));
        }
        lines
    }

    /// Evidence for a request tied to its operation only: every call that may have sent it, then the request.
    pub fn shared_evidence(&self, exchange: &Exchange) -> Vec<String> {
        let mut lines: Vec<String> = self.transcript.senders(exchange).into_iter().map(CallRecord::line).collect();
        lines.push(exchange.line());
        lines
    }

    /// The requests tied to an operation but to none of its calls, with the calls that may have sent each.
    ///
    /// A check about calls charges such a request only when its verdict is the same whichever of those calls
    /// sent it (for a failure: every one of them would fail), so that no verdict depends on scheduling.
    pub(crate) fn shared_requests(&self) -> impl Iterator<Item = (&Exchange, Vec<&CallRecord>)> {
        self.transcript
            .exchanges
            .iter()
            .filter(|exchange| exchange.operation_only())
            .map(|exchange| (exchange, self.transcript.senders(exchange)))
            .filter(|(_, senders)| !senders.is_empty())
    }

    /// Whether the run had anything to do with redirects: a `redirect` fault answered a request, or something
    /// arrived at the foreign origin.
    pub(crate) fn redirected(&self) -> bool {
        !self.transcript.foreign.is_empty()
            || self
                .transcript
                .exchanges
                .iter()
                .any(|exchange| matches!(exchange.fault_kind(), Some(FaultKind::Redirect(_))))
    }

    /// Evidence for a request at the foreign origin: the call whose request id it carries (with its requests),
    /// or else every redirect the downstream answered, then the request itself.
    pub(crate) fn foreign_evidence(&self, request: &ForeignRequest) -> Vec<String> {
        let call =
            request.request_id().and_then(|id| self.transcript.calls.iter().find(|call| call.request_id() == Some(id)));
        let mut lines = match call {
            Some(call) => self.evidence(call),
            None => self
                .transcript
                .exchanges
                .iter()
                .filter(|exchange| matches!(exchange.fault_kind(), Some(FaultKind::Redirect(_))))
                .map(Exchange::line)
                .collect(),
        };
        lines.push(format!("  ↳ {}", request.line()));
        lines
    }

    /// The calls of one operation, in order.
    pub(crate) fn calls_of<'c>(&'c self, operation: &'c Operation) -> impl Iterator<Item = &'c CallRecord> + 'c {
        operation.calls.iter().map(|index| &self.transcript.calls[*index])
    }

    /// The operations of tools with side effects, with their indices.
    pub(crate) fn side_effecting_operations(&self) -> impl Iterator<Item = (usize, &Operation)> {
        self.transcript.operations.iter().enumerate().filter(|(_, operation)| self.has_side_effect(&operation.tool))
    }

    /// The calls made from malformed-corpus cases, with their case.
    pub(crate) fn corpus_calls(&self) -> impl Iterator<Item = (&CallRecord, &Case)> {
        self.transcript.calls.iter().filter_map(|call| {
            let case = call.corpus_case.as_deref().and_then(|name| self.corpus.case(name))?;
            Some((call, case))
        })
    }

    /// The endpoint of a tool's invoke request, e.g. `POST /refunds`.
    pub(crate) fn main_endpoint(&self, tool: &str) -> String {
        let invoke = self.tool(tool).map_or("", |entry| entry.downstream.invoke.as_str());
        crate::world::endpoint_of_template(invoke).unwrap_or_else(|| crate::world::endpoint_of("GET", invoke))
    }
}

/// Whether a call was refused before its tool ran: an error whose code the table puts in the input, protocol
/// or authorization layer.
pub(crate) fn refused_up_front(call: &CallRecord) -> bool {
    call.code()
        .map(table_category)
        .is_some_and(|category| matches!(category, Category::Input | Category::Protocol | Category::Authorization))
}

/// The category the code table gives a code (not the one the envelope claims).
pub(crate) fn table_category(code: ErrorCode) -> Category {
    code.info().category
}

/// A call's `error` member with its own ids blanked out of every string: `about` (the resource or handle the
/// call named), its call id, its business request id and the string ids of its envelope's `meta`; then the
/// per-answer noise (a date-time, a duration, an opaque token such as a trace id, a number under a member named
/// for a time: [`noise`]). Two refusals that must be
/// indistinguishable are compared this way, so a message that quotes an id it was given, or stamps the time, is
/// fine.
/// An id the scenario's fixtures hold is never taken for noise ([`fixture_ids`]).
pub(crate) fn error_without_ids(call: &CallRecord, about: &str, scenario: &Scenario) -> Option<serde_json::Value> {
    use serde_json::Value;
    let envelope = call.envelope()?;
    let known = fixture_ids(scenario);
    let error = envelope.raw().get("error")?;
    let mut ids = vec![about, call.call_id.as_str()];
    ids.extend(call.business_request_id.as_deref());
    if let Some(Value::Object(meta)) = envelope.raw().get("meta") {
        ids.extend(meta.values().filter_map(Value::as_str));
    }
    // A short value without a digit (`ok`, `a`) is a word, not an id. Longest first, so `call_1` never
    // half-blanks `call_10`.
    ids.retain(|id| id.len() >= SHORT_ID || id.chars().any(|c| c.is_ascii_digit()));
    ids.sort_by_key(|id| std::cmp::Reverse(id.len()));
    fn blanked(value: &Value, ids: &[&str], known: &[&str]) -> Value {
        match value {
            Value::String(text) => {
                Value::String(noise::blank_noise(&ids.iter().fold(text.clone(), |text, id| blank_id(&text, id)), known))
            }
            Value::Array(items) => Value::Array(items.iter().map(|item| blanked(item, ids, known)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(name, value)| match value {
                        Value::Number(_) if noise::names_a_time(name) => (name.clone(), Value::from("<duration>")),
                        value => (name.clone(), blanked(value, ids, known)),
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    Some(blanked(error, &ids, &known))
}

/// Every id the scenario's fixtures hold: each order's and account's own id, tenant and owner.
fn fixture_ids(scenario: &Scenario) -> Vec<&str> {
    let fixtures = &scenario.fixtures;
    let orders = fixtures.orders.iter().flat_map(|order| [&order.order_id, &order.tenant_id, &order.owner_id]);
    let accounts =
        fixtures.accounts.iter().flat_map(|account| [&account.account_id, &account.tenant_id, &account.owner_id]);
    orders.chain(accounts).map(String::as_str).collect()
}

/// Ids shorter than this are blanked only where they stand alone.
const SHORT_ID: usize = 4;

/// `text` with `id` replaced by `<id>`. An id of [`SHORT_ID`] characters or more is replaced wherever it occurs;
/// a shorter one (a request id `7`) only where it stands alone, between characters that cannot be part of an
/// id, so `7` blanks `request 7` but leaves `70 units` alone.
fn blank_id(text: &str, id: &str) -> String {
    if id.len() >= SHORT_ID {
        return text.replace(id, "<id>");
    }
    let part_of_id = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(id) {
        let end = at + id.len();
        let alone = !text[..at].chars().next_back().is_some_and(part_of_id)
            && !text[end..].chars().next().is_some_and(part_of_id);
        if alone {
            out.push_str(&text[copied..at]);
            out.push_str("<id>");
            copied = end;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// A check.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Stable id.
    pub id: CheckId,
    /// MUST or SHOULD.
    pub level: Level,
    /// The rule in one line.
    pub rule: &'static str,
    /// Where the rule comes from.
    pub seed_ref: &'static str,
    /// The judgement.
    pub run: fn(&Context<'_>) -> Outcome,
}

/// Every check, in report order.
pub fn all() -> Vec<Check> {
    ALL.to_vec()
}

/// The check with this id.
pub fn by_id(id: &str) -> Option<Check> {
    ALL.iter().copied().find(|check| check.id == id)
}

/// One check's verdict on one scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The check id.
    pub check: CheckId,
    /// Its level.
    pub level: Level,
    /// The outcome.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Runs `checks` over one transcript.
pub fn judge(context: &Context<'_>, checks: &[Check]) -> Vec<Verdict> {
    checks.iter().map(|check| Verdict { check: check.id, level: check.level, outcome: (check.run)(context) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_ids_are_unique_and_kebab_case() {
        let ids: std::collections::BTreeSet<&str> = ALL.iter().map(|check| check.id.as_str()).collect();
        assert_eq!(ids.len(), ALL.len());
        for id in ids {
            assert!(id.bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'-'), "{id}");
        }
    }

    #[test]
    fn a_short_id_is_blanked_only_where_it_stands_alone() {
        assert_eq!(blank_id("not found (request 7)", "7"), "not found (request <id>)");
        assert_eq!(blank_id("7: 70 units, 17, x7, 7", "7"), "<id>: 70 units, 17, x7, <id>");
        assert_eq!(blank_id("call_10 and call_1", "call_1"), "<id>0 and <id>");
    }
}
