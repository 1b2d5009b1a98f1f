//! The fault kinds: one file each, listed once here.
//!
//! Rule enforced here: the list below is the only place a kind is named; its scenario name (the serde tag),
//! its rule, what it needs of the subject, how exploration arms it and its JSON Schema all come from its file.
//! Order matters twice: exploration draws [`FaultKind::generated`] in this order (and shrinks towards the
//! first), so a kind added with generated forms goes last to keep earlier seeds' schedules.

use super::{Fault, Generated, Needs, Rule};
use crate::subject::SubjectFault;
use serde::{Deserialize, Serialize};

macro_rules! kinds {
    ($($module:ident => $Kind:ident,)*) => {
        $(mod $module; pub use $module::$Kind;)*

        /// What goes wrong. Each variant's parameters are a struct in its own file under `world/fault/kinds/`.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        #[allow(missing_docs)]
        pub enum FaultKind {
            $($Kind($Kind),)*
        }

        impl FaultKind {
            /// Every kind's name, in registry order.
            pub const NAMES: &[&str] = &[$(stringify!($module)),*];

            /// The kind's name, as written in scenario files (its serde tag).
            pub fn name(&self) -> &'static str {
                match self {
                    $(FaultKind::$Kind(_) => stringify!($module),)*
                }
            }

            /// What the subject must offer for this fault to run.
            pub fn needs(&self) -> Needs {
                match self {
                    $(FaultKind::$Kind(kind) => kind.needs(),)*
                }
            }

            /// The subject-level fault it switches on for its whole step, if it acts on the subject itself.
            pub fn on_subject(&self) -> Option<SubjectFault> {
                match self {
                    $(FaultKind::$Kind(kind) => kind.on_subject(),)*
                }
            }

            /// Whether it closes the downstream's listener for its whole step (see [`super::Fault`]).
            pub fn refuses_connections(&self) -> bool {
                match self {
                    $(FaultKind::$Kind(kind) => kind.refuses_connections(),)*
                }
            }

            /// Whether an answer it shapes is written in parts (see [`super::Fault`]).
            pub fn writes_body_in_parts(&self) -> bool {
                match self {
                    $(FaultKind::$Kind(kind) => kind.writes_body_in_parts(),)*
                }
            }

            /// Whether it acts for its whole step rather than on requests: on the subject, or on the listener.
            pub fn acts_on_whole_step(&self) -> bool {
                self.on_subject().is_some() || self.refuses_connections()
            }

            /// Whether the request it applies to gets no answer a read could use (see [`super::Fault`]).
            pub fn leaves_nothing_to_read(&self) -> bool {
                match self {
                    $(FaultKind::$Kind(kind) => kind.leaves_nothing_to_read(),)*
                }
            }

            /// A fresh rule for one arming.
            pub(crate) fn rule(&self) -> Box<dyn Rule> {
                match self {
                    $(FaultKind::$Kind(kind) => kind.rule(),)*
                }
            }

            /// Every form exploration may arm, in registry order.
            pub fn generated() -> Vec<Generated> {
                [$($Kind::generated()),*].concat()
            }

            /// Each kind's name and the JSON Schema of its parameters.
            pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {
                vec![$((stringify!($module), schemars::schema_for!($Kind))),*]
            }
        }
    };
}

kinds! {
    commit_then_drop => CommitThenDrop,
    commit_then_delay => CommitThenDelay,
    fail_before_commit => FailBeforeCommit,
    rate_limit => RateLimit,
    slow_before_commit => SlowBeforeCommit,
    bad_output => BadOutput,
    inject_text => InjectText,
    leak_bait => LeakBait,
    kill_after_commit => KillAfterCommit,
    kill_after_claim => KillAfterClaim,
    kill_before_answer => KillBeforeAnswer,
    store_outage => StoreOutage,
    hold_until => HoldUntil,
    commit_then_truncate => CommitThenTruncate,
    redirect => Redirect,
    drop_then_land => DropThenLand,
    pause => Pause,
    store_outage_after_commit => StoreOutageAfterCommit,
    drop_then_pending => DropThenPending,
    input_ends_after_commit => InputEndsAfterCommit,
    connection_refused => ConnectionRefused,
    body_in_two_parts => BodyInTwoParts,
    drop_before_commit => DropBeforeCommit,
    oversized_body => OversizedBody,
    invalid_utf8 => InvalidUtf8,
}

pub use inject_text::INJECTION;
pub use leak_bait::LEAK_MARKERS;
pub use redirect::Target as RedirectTarget;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_written_in_scenario_files_under_its_registry_name() {
        assert_eq!(FaultKind::NAMES.len(), FaultKind::schemas().len());
        for name in FaultKind::NAMES {
            match toml::from_str::<FaultKind>(&format!("kind = \"{name}\"")) {
                Ok(kind) => assert_eq!(kind.name(), *name),
                Err(error) => assert!(error.message().contains("missing field"), "{name}: {error}"),
            }
        }
    }

    #[test]
    fn a_parameterless_kind_refuses_any_field() {
        let error = toml::from_str::<FaultKind>("kind = \"commit_then_drop\"\nnht = 2").expect_err("unknown field");
        assert!(error.message().contains("nht"), "{error}");
    }
}
