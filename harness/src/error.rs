//! The harness's one error type at its public boundary: what went wrong before or around a run, and the exit
//! code it means. Check failures are not errors: they are the report.
//!
//! Rule enforced here: the exit code follows from the type, never from which code path wrote a message: 3
//! when the executor could not be started, 2 for everything else (the command line, the scenarios, the
//! corpus, the baseline, the output).

use crate::conform::baseline;
use crate::scenario::LoadErrors;
use crate::subject::SubjectError;
use crate::{corpus, filter, partition, shell};

/// Exit code: every required check passed.
pub const EXIT_PASS: u8 = 0;
/// Exit code: a required check failed, or a baseline entry is stale.
pub const EXIT_FAIL: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the executor could not be started or broke the protocol.
pub const EXIT_EXECUTOR: u8 = 3;

/// What stopped a command from running or reporting.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line asks for something that cannot be.
    #[error("{0}")]
    Usage(String),
    /// The scenarios do not load.
    #[error(transparent)]
    Scenarios(#[from] LoadErrors),
    /// The corpus does not load.
    #[error(transparent)]
    Corpus(#[from] corpus::Error),
    /// The baseline does not parse or names what does not exist.
    #[error(transparent)]
    Baseline(#[from] baseline::Error),
    /// A check id that names no check.
    #[error("unknown check `{0}` (see `callproof checks`)")]
    UnknownCheck(String),
    /// A SHOULD check asked for under a profile that does not judge it.
    #[error("check `{0}` is a SHOULD check; judge it with --profile all")]
    NotInProfile(String),
    /// A `--filter` that does not parse or names what does not exist.
    #[error(transparent)]
    Filter(#[from] filter::Error),
    /// A `--partition` that is not `k/n`.
    #[error(transparent)]
    Partition(#[from] partition::Error),
    /// The executor command does not split into words.
    #[error(transparent)]
    Command(#[from] shell::Error),
    /// The executor could not be started, or cannot do what the command needs of it.
    #[error(transparent)]
    Executor(#[from] SubjectError),
    /// The async runtime could not be started.
    #[error("cannot start the async runtime: {0}")]
    Runtime(String),
    /// A report or file could not be written.
    #[error("cannot write {what}: {why}")]
    Output {
        /// What was being written.
        what: String,
        /// The reason.
        why: String,
    },
}

impl Error {
    /// The process's exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Executor(_) => EXIT_EXECUTOR,
            _ => EXIT_USAGE,
        }
    }

    /// The `reason` of `callproof conform`'s JSON line: `executor_not_started` or `usage`.
    pub fn reason(&self) -> &'static str {
        match self {
            Error::Executor(_) => "executor_not_started",
            _ => "usage",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_executor_that_cannot_start_exits_3_and_every_other_error_exits_2() {
        let executor = Error::from(SubjectError::Spawn { command: "nope".into(), why: "not found".into() });
        assert_eq!((executor.exit_code(), executor.reason()), (3, "executor_not_started"));
        assert_eq!(executor.to_string(), "cannot start the executor `nope`: not found");
        let others = [
            Error::Usage("--jobs 0".into()),
            Error::UnknownCheck("bogus".into()),
            Error::NotInProfile("corpus-details".into()),
            Error::Command(shell::Error::Empty),
            Error::Partition(partition::Error("3/2".into())),
            Error::Output { what: "the JUnit report".into(), why: "no such folder".into() },
        ];
        for error in others {
            assert_eq!((error.exit_code(), error.reason()), (2, "usage"), "{error}");
        }
    }
}
