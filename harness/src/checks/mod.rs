//! Checks: invariants judged over a transcript, with Jepsen's outcome semantics.
//!
//! Rule enforced here: a check reads only the transcript (what the calls answered, what reached the
//! downstream, what the ledger holds) and the scenario; it has a stable id (append-only), a level (MUST from
//! the seed, SHOULD beyond it), a one-line rule and a seed reference, all listed in docs/checks.md. Outcome
//! semantics: `ok` ⇒ exactly one committed effect; a definite failure ⇒ none from that call; an unknown
//! outcome ⇒ zero or one, and reconciliation must end at the ledger's truth.

mod access;
mod answers;
mod effects;
mod oracle;
mod outcomes;
mod timing;

use crate::corpus::Corpus;
use crate::scenario::Scenario;
use crate::transcript::{CallRecord, Exchange, Transcript};
use callproof_executor::app::CatalogEntry;
use serde::Serialize;

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

impl Outcome {
    fn from_violations(applicable: bool, violations: Vec<Violation>) -> Outcome {
        match (applicable, violations.is_empty()) {
            (_, false) => Outcome::Fail { violations },
            (true, true) => Outcome::Pass,
            (false, true) => Outcome::Skip,
        }
    }
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

    /// Evidence for one operation: every call and request of it.
    pub fn op_evidence(&self, op: usize) -> Vec<String> {
        let operation = &self.transcript.operations[op];
        operation.calls.iter().flat_map(|call| self.evidence(&self.transcript.calls[*call])).collect()
    }
}

/// A check.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// Stable id.
    pub id: &'static str,
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
    let mut checks = Vec::new();
    checks.extend(answers::CHECKS);
    checks.extend(effects::CHECKS);
    checks.extend(outcomes::CHECKS);
    checks.extend(access::CHECKS);
    checks.extend(timing::CHECKS);
    checks
}

/// The check with this id.
pub fn by_id(id: &str) -> Option<Check> {
    all().into_iter().find(|check| check.id == id)
}

/// One check's verdict on one scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// The check id.
    pub check: &'static str,
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
        let checks = all();
        let ids: std::collections::BTreeSet<&str> = checks.iter().map(|check| check.id).collect();
        assert_eq!(ids.len(), checks.len());
        for id in ids {
            assert!(id.bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'-'), "{id}");
        }
    }
}
