//! The `callproof` command line. Kept thin: clap parses, then the subcommand's module in `cli/` runs.
//!
//! Rule enforced here: the exit code comes from one place per outcome: clap's own code for a command line it
//! refuses, the report's verdict for a run, and [`callproof_harness::Error::exit_code`] for anything that
//! stopped a run. Nothing here prints but through `cli::output`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::Cli::try_parse() {
        Ok(cli) => cli.command.run(),
        Err(error) => cli::refused(&error),
    }
}
