//! Scenario steps: submit, retry, duplicate, burst, changed, wait, corpus.
//!
//! Rule enforced here: a step's `action` picks its shape ([`StepKind`] is the one list of actions), and each
//! shape refuses unknown fields. A step is read from its own table, so its errors are reported at the line
//! of that table, and written back as the same table.

use super::expect::Expect;
use crate::world::FaultSpec;
use serde::{Deserialize, Serialize};

macro_rules! step_kinds {
    ($($name:ident => $Kind:ident: $doc:literal,)*) => {
        /// What a step does: its `action`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum StepKind {
            $(#[doc = $doc] $Kind,)*
        }

        impl StepKind {
            /// Every action, in the order docs/scenarios.md lists them.
            pub const ALL: &[StepKind] = &[$(StepKind::$Kind),*];

            /// The action's name, as written in scenario files (its serde name).
            pub fn name(self) -> &'static str {
                match self {
                    $(StepKind::$Kind => stringify!($name),)*
                }
            }
        }
    };
}

step_kinds! {
    submit => Submit: "A new business operation.",
    retry => Retry: "The same business operation again, with a new call id and the next attempt number.",
    duplicate => Duplicate: "An identical resubmission (same call id, same attempt).",
    burst => Burst: "`count` identical calls at once (or `stagger_ms` apart).",
    changed => Changed: "The same business request id with changed arguments.",
    wait => Wait: "Let time pass.",
    restart => Restart: "The executor is killed and started again, between calls.",
    hello => Hello: "Another executor process is started and told another protocol version; the running one is untouched.",
    corpus => Corpus: "Every case of the malformed corpus, one call each.",
}

impl std::fmt::Display for StepKind {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.name())
    }
}

/// A call the model makes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    /// Names the business operation, for later `retry`/`duplicate`/`changed` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool name exactly as the model emits it (it may be wrong on purpose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The auth context (a key of `[auth]`).
    pub auth: String,
    /// The caller's business request id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub business_request_id: Option<String>,
    /// The model's call id (default `call_<step>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Time budget (default 3000 ms).
    #[serde(default = "default_budget")]
    pub budget_ms: u64,
    /// Raw argument text, OpenAI style.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// Parsed arguments, MCP style.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_json: Option<toml::Value>,
    /// Take tool and raw arguments from this case of the malformed corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<String>,
    /// Faults armed when the step starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins (not on a burst).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// One more call of the same business request with other arguments, sent while this one may still run
    /// (`submit` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_during: Option<ChangedDuring>,
    /// One call of another caller, sent while this one may still run (`submit` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alongside: Option<Alongside>,
}

fn default_budget() -> u64 {
    3000
}

/// A call of the same business request with other arguments, sent `after_ms` after the submit's call and
/// without waiting for its answer: what a `changed` step cannot do, since steps run one after the other.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangedDuring {
    /// Milliseconds from the submit's call to this one (1 to 30 000).
    pub after_ms: u64,
    /// The other raw arguments.
    pub arguments: String,
}

/// A call of another caller (a key of `[auth]` other than the submit's), with no business request id, sent
/// `after_ms` after the submit's call and without waiting for its answer: calls of different callers in flight
/// together, which steps that run one after the other cannot make.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alongside {
    /// Milliseconds from the submit's call to this one (1 to 30 000).
    pub after_ms: u64,
    /// The tool this call names.
    pub tool: String,
    /// The other caller (a key of `[auth]`).
    pub auth: String,
    /// Its raw arguments.
    pub arguments: String,
}

/// A later attempt of an earlier business operation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FollowUp {
    /// The step id of the operation.
    pub of: String,
    /// A new call id (retry only; default `call_<step>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Time budget (default: the operation's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_ms: Option<u64>,
    /// Faults armed when the step starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// The same business request with different arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangedSpec {
    /// The step id of the operation.
    pub of: String,
    /// The new raw arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// The new parsed arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_json: Option<toml::Value>,
    /// Faults armed when the step starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FaultSpec>,
    /// The envelope fields this step pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}

/// Every case of the malformed corpus, one call each.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusSpec {
    /// The auth context.
    pub auth: String,
    /// Only these cases (default: all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
}

/// One step.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A new business operation.
    Submit(CallSpec),
    /// The same business operation again, with a new call id and the next attempt number.
    Retry(FollowUp),
    /// An identical resubmission (same call id, same attempt).
    Duplicate(FollowUp),
    /// `count` identical calls at once, or each `stagger_ms` after the one before, none waiting for an answer.
    Burst {
        /// The call.
        call: CallSpec,
        /// How many.
        count: u32,
        /// Milliseconds between one call's send and the next one's (0: all at once).
        stagger_ms: u64,
    },
    /// The same business request id with changed arguments.
    Changed(ChangedSpec),
    /// Let time pass.
    Wait {
        /// Milliseconds.
        ms: u64,
    },
    /// The executor is killed and started again (a process: SIGKILL, then the same command with the same `hello`)
    /// with no call in flight; an in-process executor keeps running (its store survives either way).
    Restart,
    /// Another executor process is started with a `hello` in `protocol`, a version the harness does not speak,
    /// and stopped after its first answer; the executor the other steps talk to is untouched.
    Hello {
        /// The protocol version the `hello` names (never [`crate::protocol::VERSION`]).
        protocol: String,
    },
    /// Every case of the malformed corpus.
    Corpus(CorpusSpec),
}

impl Step {
    /// What the step does.
    pub fn kind(&self) -> StepKind {
        match self {
            Step::Submit(_) => StepKind::Submit,
            Step::Retry(_) => StepKind::Retry,
            Step::Duplicate(_) => StepKind::Duplicate,
            Step::Burst { .. } => StepKind::Burst,
            Step::Changed(_) => StepKind::Changed,
            Step::Wait { .. } => StepKind::Wait,
            Step::Restart => StepKind::Restart,
            Step::Hello { .. } => StepKind::Hello,
            Step::Corpus(_) => StepKind::Corpus,
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

    /// The tool a new operation names, if the step starts one with an explicit tool.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Step::Submit(call) | Step::Burst { call, .. } => call.tool.as_deref(),
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

    /// The step's expectation, judged against each of its calls.
    pub fn expect(&self) -> Option<&Expect> {
        match self {
            Step::Submit(call) | Step::Burst { call, .. } => call.expect.as_ref(),
            Step::Retry(follow) | Step::Duplicate(follow) => follow.expect.as_ref(),
            Step::Changed(changed) => changed.expect.as_ref(),
            Step::Wait { .. } | Step::Restart | Step::Hello { .. } | Step::Corpus(_) => None,
        }
    }

    /// Faults armed by the step.
    pub fn faults(&self) -> &[FaultSpec] {
        match self {
            Step::Submit(call) | Step::Burst { call, .. } => &call.faults,
            Step::Retry(follow) | Step::Duplicate(follow) => &follow.faults,
            Step::Changed(changed) => &changed.faults,
            Step::Wait { .. } | Step::Restart | Step::Hello { .. } | Step::Corpus(_) => &[],
        }
    }

    /// Reads a step from its table.
    ///
    /// # Errors
    /// What does not fit, without a location (the caller knows where the table starts).
    pub fn from_table(mut table: toml::Table) -> Result<Step, String> {
        let Some(action) = table.remove("action") else {
            return Err(format!("a step needs `action` = {}", names(" | ")));
        };
        let kind = StepKind::deserialize(action).map_err(|_| format!("unknown action (one of: {})", names(", ")))?;
        let (count, stagger) =
            if kind == StepKind::Burst { (table.remove("count"), table.remove("stagger_ms")) } else { (None, None) };
        let rest = toml::Value::Table(table);
        let shape = |error: toml::de::Error| format!("{kind} step: {}", error.message());
        Ok(match kind {
            StepKind::Submit => Step::Submit(CallSpec::deserialize(rest).map_err(shape)?),
            StepKind::Retry => Step::Retry(FollowUp::deserialize(rest).map_err(shape)?),
            StepKind::Duplicate => {
                let follow = FollowUp::deserialize(rest).map_err(shape)?;
                if follow.call_id.is_some() {
                    return Err("a duplicate is identical to its operation's last call: no `call_id`".to_owned());
                }
                Step::Duplicate(follow)
            }
            StepKind::Burst => {
                let count = match count {
                    Some(toml::Value::Integer(count)) if (2..=1000).contains(&count) => count as u32,
                    _ => return Err("a burst needs `count` between 2 and 1000".to_owned()),
                };
                let stagger_ms = match stagger {
                    None => 0,
                    Some(toml::Value::Integer(ms)) if (0..=MAX_STAGGER_MS as i64).contains(&ms) => ms as u64,
                    Some(_) => {
                        return Err(format!("a burst's `stagger_ms` is whole milliseconds from 0 to {MAX_STAGGER_MS}"));
                    }
                };
                if stagger_ms.saturating_mul(u64::from(count - 1)) > MAX_STAGGER_MS {
                    return Err(format!(
                        "a burst's last call would start {} ms after its first; at most {MAX_STAGGER_MS}",
                        stagger_ms.saturating_mul(u64::from(count - 1))
                    ));
                }
                Step::Burst { call: CallSpec::deserialize(rest).map_err(shape)?, count, stagger_ms }
            }
            StepKind::Changed => Step::Changed(ChangedSpec::deserialize(rest).map_err(shape)?),
            StepKind::Wait => {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Wait {
                    ms: u64,
                }
                Step::Wait { ms: Wait::deserialize(rest).map_err(shape)?.ms }
            }
            StepKind::Restart => {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Restart {}
                Restart::deserialize(rest).map_err(shape)?;
                Step::Restart
            }
            StepKind::Hello => {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Hello {
                    protocol: String,
                }
                let protocol = Hello::deserialize(rest).map_err(shape)?.protocol;
                if protocol == crate::protocol::VERSION {
                    return Err(format!(
                        "a hello step names a version the harness does not speak; {protocol} is the one it does"
                    ));
                }
                Step::Hello { protocol }
            }
            StepKind::Corpus => Step::Corpus(CorpusSpec::deserialize(rest).map_err(shape)?),
        })
    }
}

/// The longest a burst may spread its calls over (`stagger_ms` × (`count` − 1)): a scenario stays short.
pub(crate) const MAX_STAGGER_MS: u64 = 30_000;

fn names(separator: &str) -> String {
    StepKind::ALL.iter().map(|kind| kind.name()).collect::<Vec<_>>().join(separator)
}

impl Serialize for Step {
    /// The table [`Step::from_table`] reads: `action`, then the shape's fields.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Tagged<'a, T: Serialize> {
            action: StepKind,
            #[serde(skip_serializing_if = "Option::is_none")]
            count: Option<u32>,
            #[serde(skip_serializing_if = "Option::is_none")]
            stagger_ms: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            ms: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            protocol: Option<&'a str>,
            #[serde(flatten)]
            fields: Option<&'a T>,
        }
        fn tagged<'a, T: Serialize>(kind: StepKind, fields: &'a T) -> Tagged<'a, T> {
            Tagged { action: kind, count: None, stagger_ms: None, ms: None, protocol: None, fields: Some(fields) }
        }
        let bare = |kind: StepKind| Tagged::<CorpusSpec> {
            action: kind,
            count: None,
            stagger_ms: None,
            ms: None,
            protocol: None,
            fields: None,
        };
        let kind = self.kind();
        match self {
            Step::Submit(call) => tagged(kind, call).serialize(serializer),
            Step::Burst { call, count, stagger_ms } => {
                let stagger_ms = (*stagger_ms > 0).then_some(*stagger_ms);
                Tagged { count: Some(*count), stagger_ms, ..tagged(kind, call) }.serialize(serializer)
            }
            Step::Retry(follow) | Step::Duplicate(follow) => tagged(kind, follow).serialize(serializer),
            Step::Changed(changed) => tagged(kind, changed).serialize(serializer),
            Step::Corpus(corpus) => tagged(kind, corpus).serialize(serializer),
            Step::Wait { ms } => Tagged { ms: Some(*ms), ..bare(kind) }.serialize(serializer),
            Step::Restart => bare(kind).serialize(serializer),
            Step::Hello { protocol } => Tagged { protocol: Some(protocol), ..bare(kind) }.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str) -> Result<Step, String> {
        Step::from_table(toml::from_str(text).expect("a table"))
    }

    #[test]
    fn every_action_is_named_once_and_read_by_its_name() {
        for kind in StepKind::ALL {
            let written = serde_json::to_value(kind).expect("json");
            assert_eq!(written, serde_json::Value::String(kind.name().to_owned()));
            assert_eq!(kind.to_string(), kind.name());
        }
        let error = step("action = \"sbumit\"").expect_err("unknown action");
        assert!(error.contains("submit, retry, duplicate, burst, changed, wait, restart, hello, corpus"), "{error}");
    }

    #[test]
    fn a_hello_step_names_another_version_and_nothing_else() {
        assert_eq!(
            step("action = \"hello\"\nprotocol = \"callproof/2\"\n"),
            Ok(Step::Hello { protocol: "callproof/2".to_owned() })
        );
        let error = step("action = \"hello\"\nprotocol = \"callproof/1\"\n").expect_err("the spoken version");
        assert!(error.contains("callproof/1 is the one it does"), "{error}");
        let error = step("action = \"hello\"\n").expect_err("no version");
        assert!(error.contains("hello step") && error.contains("protocol"), "{error}");
        let error = step("action = \"hello\"\nprotocol = \"callproof/2\"\nms = 5\n").expect_err("a typo");
        assert!(error.contains("ms"), "{error}");
    }

    #[test]
    fn a_burst_needs_a_count() {
        let error = step("action = \"burst\"\ntool = \"x\"\nauth = \"a\"\narguments = '{}'\n").expect_err("error");
        assert!(error.contains("count"), "{error}");
    }

    #[test]
    fn a_burst_staggers_its_calls_within_bounds_and_only_a_burst_takes_stagger_ms() {
        let burst =
            |rest: &str| step(&format!("action = \"burst\"\ntool = \"x\"\nauth = \"a\"\narguments = '{{}}'\n{rest}"));
        match burst("count = 2\nstagger_ms = 2500\n") {
            Ok(Step::Burst { count: 2, stagger_ms: 2500, .. }) => {}
            other => panic!("a staggered burst: {other:?}"),
        }
        match burst("count = 3\n") {
            Ok(Step::Burst { stagger_ms: 0, .. }) => {}
            other => panic!("at once by default: {other:?}"),
        }
        let error = burst("count = 2\nstagger_ms = -1\n").expect_err("negative");
        assert!(error.contains("whole milliseconds from 0 to 30000"), "{error}");
        let error = burst("count = 2\nstagger_ms = 1.5\n").expect_err("not whole");
        assert!(error.contains("whole milliseconds"), "{error}");
        let error = burst("count = 1000\nstagger_ms = 100\n").expect_err("too long in all");
        assert!(error.contains("would start 99900 ms after its first; at most 30000"), "{error}");
        let error = step("action = \"submit\"\ntool = \"x\"\nauth = \"a\"\narguments = '{}'\nstagger_ms = 5\n")
            .expect_err("a submit has no stagger");
        assert!(error.contains("stagger_ms"), "{error}");
        let written = serde_json::to_value(burst("count = 2\nstagger_ms = 2500\n").expect("a burst")).expect("json");
        assert_eq!(written["stagger_ms"], 2500);
        let written = serde_json::to_value(burst("count = 2\n").expect("a burst")).expect("json");
        assert!(written.get("stagger_ms").is_none(), "{written}");
    }

    #[test]
    fn a_step_is_written_back_as_the_table_it_was_read_from() {
        for text in [
            "action = \"burst\"\ncount = 3\ntool = \"x\"\nauth = \"a\"\narguments = '{\"a\":1}'\nfaults = [{ kind = \"hold_until\", count = 3 }]\n",
            "action = \"wait\"\nms = 5\n",
            "action = \"hello\"\nprotocol = \"callproof/10\"\n",
            "action = \"submit\"\ntool = \"x\"\nauth = \"a\"\nbusiness_request_id = \"b\"\narguments = '{}'\nchanged_during = { after_ms = 5, arguments = '{\"a\":1}' }\n",
            "action = \"restart\"\n",
            "action = \"retry\"\nof = \"a\"\nexpect = { ok = false, code = \"timeout_unknown\", resolution = \"reconcile\" }\n",
            "action = \"corpus\"\nauth = \"a\"\nonly = [\"x\"]\n",
        ] {
            let read = step(text).expect("parse");
            let written = toml::to_string(&read).expect("write");
            assert_eq!(step(&written).expect("reparse"), read, "{written}");
        }
    }
}
