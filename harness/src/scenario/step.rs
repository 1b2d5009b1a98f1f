//! Scenario steps: submit, retry, duplicate, burst, changed, wait, corpus.
//!
//! Rule enforced here: a step's `action` picks its shape, and each shape refuses unknown fields. Steps are
//! parsed in two passes (table, then shape) so that an error keeps the line of the step's own table.

use crate::world::FaultSpec;
use callproof_executor::ErrorCode;
use serde::Deserialize;

/// Brackets the byte offset of a step inside an error message (see `Scenario::parse`).
pub(crate) const AT: (&str, &str) = ("\u{1}step@", "\u{1}");

/// A call the model makes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    /// Names the business operation, for later `retry`/`duplicate`/`changed` steps.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool name exactly as the model emits it (it may be wrong on purpose).
    #[serde(default)]
    pub tool: Option<String>,
    /// Raw argument text, OpenAI style.
    #[serde(default)]
    pub arguments: Option<String>,
    /// Parsed arguments, MCP style.
    #[serde(default)]
    pub arguments_json: Option<toml::Value>,
    /// Take tool and raw arguments from this case of the malformed corpus.
    #[serde(default)]
    pub corpus: Option<String>,
    /// The auth context (a key of `[auth]`).
    pub auth: String,
    /// The caller's business request id.
    #[serde(default)]
    pub business_request_id: Option<String>,
    /// The model's call id (default `call_<step>`).
    #[serde(default)]
    pub call_id: Option<String>,
    /// Time budget (default 3000 ms).
    #[serde(default = "default_budget")]
    pub budget_ms: u64,
    /// Faults armed when the step starts.
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins.
    #[serde(default)]
    pub expect: Option<Expect>,
}

fn default_budget() -> u64 {
    3000
}

/// A later attempt of an earlier business operation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowUp {
    /// The step id of the operation.
    pub of: String,
    /// A new call id (retry only; default `call_<step>`).
    #[serde(default)]
    pub call_id: Option<String>,
    /// Time budget (default: the operation's).
    #[serde(default)]
    pub budget_ms: Option<u64>,
    /// Faults armed when the step starts.
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// The same business request with different arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangedSpec {
    /// The step id of the operation.
    pub of: String,
    /// The new raw arguments.
    #[serde(default)]
    pub arguments: Option<String>,
    /// The new parsed arguments.
    #[serde(default)]
    pub arguments_json: Option<toml::Value>,
    /// Faults armed when the step starts.
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// Every case of the malformed corpus, one call each.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusSpec {
    /// The auth context.
    pub auth: String,
    /// Only these cases (default: all).
    #[serde(default)]
    pub only: Vec<String>,
}

/// One step.
#[derive(Debug, Clone)]
pub enum Step {
    /// A new business operation.
    Submit(CallSpec),
    /// The same business operation again, with a new call id and the next attempt number.
    Retry(FollowUp),
    /// An identical resubmission (same call id, same attempt).
    Duplicate(FollowUp),
    /// `count` identical calls at once.
    Burst {
        /// The call.
        call: CallSpec,
        /// How many.
        count: u32,
    },
    /// The same business request id with changed arguments.
    Changed(ChangedSpec),
    /// Let time pass.
    Wait {
        /// Milliseconds.
        ms: u64,
    },
    /// Every case of the malformed corpus.
    Corpus(CorpusSpec),
}

impl Step {
    /// The action name.
    pub fn action(&self) -> &'static str {
        match self {
            Step::Submit(_) => "submit",
            Step::Retry(_) => "retry",
            Step::Duplicate(_) => "duplicate",
            Step::Burst { .. } => "burst",
            Step::Changed(_) => "changed",
            Step::Wait { .. } => "wait",
            Step::Corpus(_) => "corpus",
        }
    }

    /// The auth context named by the step, if it names one.
    pub fn auth_name(&self) -> Option<&str> {
        match self {
            Step::Submit(call) | Step::Burst { call, .. } => Some(&call.auth),
            Step::Corpus(corpus) => Some(&corpus.auth),
            _ => None,
        }
    }

    /// The operation a follow-up refers to.
    pub fn of(&self) -> Option<&str> {
        match self {
            Step::Retry(follow) | Step::Duplicate(follow) => Some(&follow.of),
            Step::Changed(changed) => Some(&changed.of),
            _ => None,
        }
    }

    /// The step's expectation.
    pub fn expect(&self) -> Option<&Expect> {
        match self {
            Step::Submit(call) => call.expect.as_ref(),
            Step::Retry(follow) | Step::Duplicate(follow) => follow.expect.as_ref(),
            Step::Changed(changed) => changed.expect.as_ref(),
            _ => None,
        }
    }

    /// Faults armed by the step.
    pub fn faults(&self) -> &[FaultSpec] {
        match self {
            Step::Submit(call) | Step::Burst { call, .. } => &call.faults,
            Step::Retry(follow) | Step::Duplicate(follow) => &follow.faults,
            Step::Changed(changed) => &changed.faults,
            Step::Wait { .. } | Step::Corpus(_) => &[],
        }
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Step, D::Error> {
        use serde::de::Error;
        // toml reports errors inside an array of tables at the array's first header; keep this step's own
        // offset in the message so `Scenario::parse` can name the right line.
        let spanned = toml::Spanned::<toml::Table>::deserialize(deserializer)?;
        let at = spanned.span().start;
        let mut table = spanned.into_inner();
        let located = |message: String| D::Error::custom(format!("{}{at}{}{message}", AT.0, AT.1));
        let action = match table.remove("action") {
            Some(toml::Value::String(action)) => action,
            _ => {
                return Err(located(
                    "a step needs `action` = submit | retry | duplicate | burst | changed | wait | corpus".to_owned(),
                ));
            }
        };
        let shape = |error: toml::de::Error| located(format!("{action} step: {}", error.message()));
        let count = if action == "burst" { table.remove("count") } else { None };
        let rest = toml::Value::Table(table);
        Ok(match action.as_str() {
            "submit" => Step::Submit(CallSpec::deserialize(rest).map_err(shape)?),
            "retry" => Step::Retry(FollowUp::deserialize(rest).map_err(shape)?),
            "duplicate" => {
                let follow = FollowUp::deserialize(rest).map_err(shape)?;
                if follow.call_id.is_some() {
                    return Err(D::Error::custom(
                        "a duplicate is identical to its operation's last call: no `call_id`",
                    ));
                }
                Step::Duplicate(follow)
            }
            "burst" => {
                let count = match count {
                    Some(toml::Value::Integer(count)) if (2..=1000).contains(&count) => count as u32,
                    _ => return Err(located("a burst needs `count` between 2 and 1000".to_owned())),
                };
                Step::Burst { call: CallSpec::deserialize(rest).map_err(shape)?, count }
            }
            "changed" => Step::Changed(ChangedSpec::deserialize(rest).map_err(shape)?),
            "wait" => {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Wait {
                    ms: u64,
                }
                Step::Wait { ms: Wait::deserialize(rest).map_err(shape)?.ms }
            }
            "corpus" => Step::Corpus(CorpusSpec::deserialize(rest).map_err(shape)?),
            other => {
                return Err(located(format!(
                    "unknown action `{other}` (submit, retry, duplicate, burst, changed, wait, corpus)"
                )));
            }
        })
    }
}

/// Envelope fields a step pins. Absent fields are not checked.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `ok`.
    #[serde(default)]
    pub ok: Option<bool>,
    /// `error.code`.
    #[serde(default)]
    pub code: Option<String>,
    /// `error.retryable`.
    #[serde(default)]
    pub retryable: Option<bool>,
    /// `error.resolution`.
    #[serde(default)]
    pub resolution: Option<String>,
    /// `meta.replayed`.
    #[serde(default)]
    pub replayed: Option<bool>,
    /// `meta.reconciled` (absent counts as false).
    #[serde(default)]
    pub reconciled: Option<bool>,
    /// A subset of `error.details` that must match exactly.
    #[serde(default)]
    pub details: Option<toml::Table>,
}

impl Expect {
    pub(crate) fn validate(&self) -> Result<(), String> {
        if let Some(code) = &self.code
            && ErrorCode::from_wire(code).is_none()
        {
            return Err(format!("expect.code `{code}` is not an error code"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Steps {
        #[serde(rename = "step")]
        _steps: Vec<Step>,
    }

    #[test]
    fn a_step_error_keeps_the_steps_own_offset() {
        let text = "[[step]]\naction = \"wait\"\nms = 5\n\n[[step]]\naction = \"retry\"\nof = \"a\"\nbudget = 9\n";
        let error = toml::from_str::<Steps>(text).err().expect("error").message().to_owned();
        assert!(error.contains("budget"), "{error}");
        assert!(error.contains(&format!("{}33{}", AT.0, AT.1)), "{error:?}");
    }

    #[test]
    fn a_burst_needs_a_count() {
        let text = "[[step]]\naction = \"burst\"\ntool = \"x\"\nauth = \"a\"\narguments = '{}'\n";
        let error = toml::from_str::<Steps>(text).err().expect("error").to_string();
        assert!(error.contains("count"), "{error}");
    }
}
