//! `callproof checks`: the checks, one per line, with level, rule and seed reference.
//!
//! Rule enforced here: the list is the registry, in its order; nothing else is printed.

use super::Error;
use super::output;
use callproof_harness::checks;
use std::process::ExitCode;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 the list was printed; 2 usage error.";

/// `callproof checks` takes no arguments.
#[derive(clap::Args)]
pub(crate) struct Args {}

/// Prints the list.
pub(crate) fn run(_: Args) -> Result<ExitCode, Error> {
    for check in checks::all() {
        output::line(&format!("{:<34} {:<6} {}  ({})", check.id, check.level.as_str(), check.rule, check.seed_ref));
    }
    Ok(ExitCode::SUCCESS)
}
