//! Scenario files: one behaviour per TOML file, as data.
//!
//! Rule enforced here: every table refuses unknown fields, and every error names the file, the line and the
//! field (toml reports the span; steps and faults are parsed in two passes so their errors keep the span of
//! their own table). References between steps are checked before anything runs.

mod discover;
mod step;

pub use discover::LoadErrors;
pub use step::{CallSpec, ChangedSpec, CorpusSpec, Expect, FollowUp, Step};

use crate::world::Fixtures;
use callproof_executor::tool::Risk;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What behaviour this scenario pins, in one or two sentences.
    pub description: String,
    /// Where the behaviour comes from (e.g. `seed §10 case 4`).
    #[serde(default)]
    pub seed_ref: Option<String>,
    /// The downstream's behaviour.
    #[serde(default)]
    pub downstream: DownstreamSetup,
    /// Orders and accounts.
    #[serde(default)]
    pub fixtures: Fixtures,
    /// Named auth contexts (the caller's trusted side).
    #[serde(default)]
    pub auth: BTreeMap<String, AuthFixture>,
    /// The steps, in order.
    #[serde(rename = "step", default)]
    pub steps: Vec<Step>,
    /// Exact counts of distinct committed effects at the end (`refunds`, `emails`, `deletions`, `preferences`).
    #[serde(default)]
    pub expect_ledger: BTreeMap<String, usize>,
    /// Where it was loaded from.
    #[serde(skip)]
    pub path: PathBuf,
    /// Its name: the path below the scenarios folder, without `.toml` (e.g. `idempotency/duplicate_refund`).
    #[serde(skip)]
    pub name: String,
}

/// The downstream's behaviour.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownstreamSetup {
    /// Deduplicate side effects by `Idempotency-Key`. Default false, so executor bugs show.
    #[serde(default)]
    pub honours_idempotency_key: bool,
}

/// The state of the caller's identity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityState {
    /// Valid, not expiring.
    #[default]
    Valid,
    /// Rejected by the authentication layer.
    Invalid,
    /// Expired a second ago.
    Expired,
}

/// A trusted auth context.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthFixture {
    /// The subject.
    pub subject_id: String,
    /// The tenant.
    pub tenant_id: String,
    /// Scopes.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Roles.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Identity state.
    #[serde(default)]
    pub identity: IdentityState,
    /// Tool allow-list, if the token carries one.
    #[serde(default)]
    pub allowed_tools: Option<Vec<String>>,
    /// An approval the user gave.
    #[serde(default)]
    pub approval: Option<ApprovalFixture>,
}

/// An approval, bound to exact arguments; fields default to the auth context's own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalFixture {
    /// Approval id.
    #[serde(default = "default_approval_id")]
    pub id: String,
    /// The approved tool.
    pub tool: String,
    /// The approved arguments (JSON text; the harness hashes its canonical form).
    pub arguments: String,
    /// The approved risk (default: the tool's risk in the catalog).
    #[serde(default)]
    pub risk: Option<Risk>,
    /// The approved subject (default: the context's).
    #[serde(default)]
    pub subject_id: Option<String>,
    /// The approved tenant (default: the context's).
    #[serde(default)]
    pub tenant_id: Option<String>,
    /// Milliseconds from the start of the scenario until it expires; negative means already expired.
    #[serde(default = "default_approval_ttl")]
    pub expires_in_ms: i64,
}

fn default_approval_id() -> String {
    "appr_1".to_owned()
}

fn default_approval_ttl() -> i64 {
    600_000
}

/// A scenario that cannot be used, and why.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The TOML does not fit the format (the message names the line and the field).
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: String,
        /// toml's report, with line, column and field.
        message: String,
    },
    /// A reference or value is wrong.
    #[error("{path}: step {step}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The 1-based step number.
        step: usize,
        /// What is wrong.
        message: String,
    },
}

impl Scenario {
    /// Loads and checks a scenario file. `root` is the scenarios folder the name is taken relative to.
    ///
    /// # Errors
    /// [`ScenarioError`] naming the file and, for format errors, the line and the field.
    pub fn load(path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Io { path: shown.clone(), source })?;
        let mut scenario =
            Scenario::parse(&text).map_err(|message| ScenarioError::Format { path: shown.clone(), message })?;
        scenario.path = path.to_owned();
        scenario.name = path.strip_prefix(root).unwrap_or(path).with_extension("").to_string_lossy().replace('\\', "/");
        scenario.validate().map_err(|(step, message)| ScenarioError::Invalid { path: shown, step, message })?;
        Ok(scenario)
    }

    /// Parses scenario text.
    ///
    /// # Errors
    /// toml's report, naming line, column and field.
    pub fn parse(text: &str) -> Result<Scenario, String> {
        toml::from_str(text).map_err(|error| {
            let message = error.message();
            let located = message.find(step::AT.0).and_then(|start| {
                let rest = &message[start + step::AT.0.len()..];
                let (offset, rest) = rest.split_once(step::AT.1)?;
                let offset: usize = offset.parse().ok()?;
                let line = text.get(..offset)?.matches('\n').count() + 1;
                Some(format!("line {line} (the [[step]] starting there): {rest}"))
            });
            located.unwrap_or_else(|| error.to_string().trim_end().to_owned())
        })
    }

    /// Checks references between steps, auth names, codes and ledger names. Returns (step number, message).
    pub(crate) fn validate(&self) -> Result<(), (usize, String)> {
        if self.steps.is_empty() {
            return Err((0, "a scenario needs at least one [[step]]".to_owned()));
        }
        for (name, count) in &self.expect_ledger {
            if !["refunds", "emails", "deletions", "preferences"].contains(&name.as_str()) {
                return Err((
                    0,
                    format!(
                        "expect_ledger: unknown effect `{name}` (refunds, emails, deletions, preferences); count {count}"
                    ),
                ));
            }
        }
        let mut ids: Vec<&str> = Vec::new();
        for (index, step) in self.steps.iter().enumerate() {
            let number = index + 1;
            let fail = |message: String| Err((number, message));
            if let Some(auth) = step.auth_name()
                && !self.auth.contains_key(auth)
            {
                return fail(format!("auth `{auth}` is not defined in [auth]"));
            }
            if let Some(of) = step.of()
                && !ids.contains(&of)
            {
                return fail(format!("`of = \"{of}\"` names no earlier step id (known: {})", ids.join(", ")));
            }
            if let Some(expect) = step.expect() {
                expect.validate().map_err(|message| (number, message))?;
            }
            if let Step::Submit(call) | Step::Burst { call, .. } = step {
                let sources = [call.arguments.is_some(), call.arguments_json.is_some(), call.corpus.is_some()];
                if sources.iter().filter(|given| **given).count() != 1 {
                    return fail("give exactly one of `arguments`, `arguments_json` or `corpus`".to_owned());
                }
                if let Some(id) = &call.id {
                    if ids.contains(&id.as_str()) {
                        return fail(format!("step id `{id}` is used twice"));
                    }
                    ids.push(id);
                }
            }
            if let Step::Changed(changed) = step
                && changed.arguments.is_none() == changed.arguments_json.is_none()
            {
                return fail("`changed` needs exactly one of `arguments` or `arguments_json`".to_owned());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
description = "d"
[auth.alice]
subject_id = "u1"
tenant_id = "t1"
[[step]]
action = "submit"
id = "first"
tool = "get_weather"
auth = "alice"
arguments = '{"location":"Paris","units":null}'
"#;

    #[test]
    fn a_minimal_scenario_parses() {
        let scenario = Scenario::parse(MINIMAL).expect("parse");
        assert_eq!(scenario.steps.len(), 1);
        assert!(scenario.validate().is_ok());
    }

    #[test]
    fn an_unknown_field_names_the_field_and_the_line() {
        let text = MINIMAL.replace("auth = \"alice\"\n", "auth = \"alice\"\nbudget = 5\n");
        let error = Scenario::parse(&text).expect_err("unknown field");
        assert!(error.contains("budget"), "{error}");
        assert!(error.starts_with("line 6 "), "{error}");
    }

    #[test]
    fn a_top_level_typo_is_refused() {
        let error = Scenario::parse(&format!("descripton = \"x\"\n{MINIMAL}")).expect_err("typo");
        assert!(error.contains("descripton"), "{error}");
    }

    #[test]
    fn references_must_point_backwards() {
        let text = format!("{MINIMAL}\n[[step]]\naction = \"retry\"\nof = \"frist\"\n");
        let scenario = Scenario::parse(&text).expect("parse");
        let (step, message) = scenario.validate().expect_err("bad reference");
        assert_eq!(step, 2);
        assert!(message.contains("frist"), "{message}");
    }

    #[test]
    fn undefined_auth_is_refused() {
        let scenario = Scenario::parse(&MINIMAL.replace("auth = \"alice\"\narguments", "auth = \"bob\"\narguments"))
            .expect("parse");
        assert!(scenario.validate().expect_err("auth").1.contains("bob"));
    }
}
