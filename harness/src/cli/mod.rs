//! The subcommands of `callproof`, one module each: its clap `Args` and `run(args) -> Result<ExitCode, Error>`.
//!
//! Rule enforced here: a command line clap refuses prints clap's message and nothing else, except under
//! `conform`, whose contract (docs/conform.md) is that every non-zero exit ends stderr with one JSON line; an
//! error after parsing prints `callproof <command>: <why>` (and, under `conform`, the JSON line) and exits
//! with the code its type decides.

mod busy;
mod checks;
mod conform;
mod explore;
mod list;
mod mcp;
mod mutants;
pub(crate) mod output;
mod reports;
mod repro;
mod run;
mod select;

use callproof_executor::mutants::Mutant;
pub(crate) use callproof_harness::Error;
use callproof_harness::conform::report::reason_line;
use callproof_harness::subject::InProcess;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// callproof: conformance and fault injection for AI-agent tool executors.
#[derive(Parser)]
#[command(name = "callproof", version, about)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub(crate) enum Command {
    /// Run scenarios against the in-process reference executor (or a known-bad one) and judge them.
    #[command(after_help = run::EXIT_CODES)]
    Run(run::Args),
    /// Run the suite against every known-bad executor and print which checks caught which bug.
    #[command(after_help = mutants::EXIT_CODES)]
    Mutants(mutants::Args),
    /// Generate schedules, run them in simulation (or against an executor process with --executor), check
    /// after every step; shrink and write what fails.
    #[command(after_help = explore::EXIT_CODES)]
    Explore(explore::Args),
    /// Run one scenario and print its timeline, each failed check marked where it failed.
    #[command(after_help = repro::EXIT_CODES)]
    Repro(repro::Args),
    /// Run the suite against an executor process speaking the adapter protocol (docs/protocol.md) or MCP (docs/mcp.md).
    #[command(after_help = conform::EXIT_CODES)]
    Conform(conform::Args),
    /// Test any MCP server over stdio or Streamable HTTP: handshake, tool list, protocol errors, input validation generated
    /// from each tool's inputSchema (docs/mcp.md).
    #[command(after_help = mcp::EXIT_CODES)]
    Mcp(mcp::Args),
    /// List the checks with their level, rule and seed reference (`callproof list checks` does too).
    #[command(after_help = checks::EXIT_CODES)]
    Checks(checks::Args),
    /// List the scenarios (with tags), checks (with levels), known-bad executors (with the checks each is
    /// meant to trip) and fault kinds; `--filter` narrows them as it narrows a run.
    #[command(after_help = list::EXIT_CODES)]
    List(list::Args),
}

impl Command {
    /// Runs the subcommand; an error is printed here, once, and decides the exit code.
    pub(crate) fn run(self) -> ExitCode {
        let name = self.name();
        let result = match self {
            Command::Run(args) => run::run(args),
            Command::Mutants(args) => mutants::run(args),
            Command::Explore(args) => explore::run(args),
            Command::Repro(args) => repro::run(args),
            Command::Conform(args) => conform::run(args),
            Command::Mcp(args) => mcp::run(args),
            Command::Checks(args) => checks::run(args),
            Command::List(args) => list::run(args),
        };
        result.unwrap_or_else(|error| {
            output::error_line(&format!("callproof {name}: {error}"));
            if name == "conform" {
                output::error_line(&reason_line(error.exit_code(), error.reason(), &error.to_string()));
            }
            ExitCode::from(error.exit_code())
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Command::Run(_) => "run",
            Command::Mutants(_) => "mutants",
            Command::Explore(_) => "explore",
            Command::Repro(_) => "repro",
            Command::Conform(_) => "conform",
            Command::Mcp(_) => "mcp",
            Command::Checks(_) => "checks",
            Command::List(_) => "list",
        }
    }
}

/// A command line clap refused (or `--help`/`--version`, which clap prints and exits 0 for).
pub(crate) fn refused(error: &clap::Error) -> ExitCode {
    let code = u8::try_from(error.exit_code()).unwrap_or(2);
    let _ = error.print();
    let args = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned());
    if code != 0 && subcommand_of(args).as_deref() == Some("conform") {
        let first = error.to_string().lines().next().unwrap_or_default().to_owned();
        output::error_line(&reason_line(code, "usage", &first));
    }
    ExitCode::from(code)
}

/// The subcommand a command line names: its first argument, since `callproof` itself takes only `--help` and
/// `--version` before it.
fn subcommand_of(mut args: impl Iterator<Item = String>) -> Option<String> {
    args.nth(1).filter(|first| !first.starts_with('-'))
}

/// The async runtime the commands run on.
fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|error| Error::Runtime(error.to_string()))
}

/// `--subject`: `reference`, or `mutant:NAME` for one of the known-bad executors.
fn in_process(text: &str) -> Result<InProcess, String> {
    match text.split_once(':') {
        None if text == "reference" => Ok(InProcess::reference()),
        Some(("mutant", name)) => mutant(name).map(|mutant| InProcess::mutant(&mutant)),
        _ => Err(format!("`{text}` is not `reference` or `mutant:NAME`")),
    }
}

/// A known-bad executor by name; the error lists every name.
fn mutant(name: &str) -> Result<Mutant, String> {
    callproof_executor::mutants::by_name(name).ok_or_else(|| {
        let known: Vec<&str> = callproof_executor::mutants::ALL.iter().map(|mutant| mutant.name).collect();
        format!(
            "unknown mutant `{name}`; the known-bad executors are: {} (see `callproof list mutants`)",
            known.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn args(line: &str) -> impl Iterator<Item = String> {
        line.split_whitespace().map(str::to_owned).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_subcommand_is_the_first_argument_when_it_is_not_an_option() {
        assert_eq!(subcommand_of(args("callproof conform --bogus")), Some("conform".to_owned()));
        assert_eq!(subcommand_of(args("callproof --bogus conform")), None);
        assert_eq!(subcommand_of(args("callproof")), None);
    }

    #[test]
    fn subjects_are_the_reference_or_a_named_mutant_and_a_wrong_name_lists_the_right_ones() {
        assert!(in_process("reference").is_ok());
        assert!(in_process("mutant:check-then-act").is_ok());
        let error = in_process("mutant:nope").err().expect("unknown");
        assert!(error.contains("unknown mutant `nope`") && error.contains("check-then-act"), "{error}");
        assert!(in_process("python").err().expect("not a subject").contains("`python` is not"));
    }

    #[test]
    fn every_subcommand_documents_its_exit_codes_in_its_help() {
        let mut command = Cli::command();
        for sub in command.get_subcommands_mut() {
            let help = sub.render_help().to_string();
            assert!(help.contains("Exit codes:"), "`callproof {} --help` does not say its exit codes", sub.get_name());
        }
    }
}
