//! The `callproof` command line. Kept thin: parsing, then calls into the library.

use callproof_harness::checks::{self, Check};
use callproof_harness::corpus::Corpus;
use callproof_harness::report;
use callproof_harness::runner::Runner;
use callproof_harness::subject::InProcess;
use callproof_harness::suite::{self, Suite};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// callproof: conformance and fault injection for AI-agent tool executors.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay scenarios against the reference executor and judge them.
    Run {
        /// Scenario files or folders (default: scenarios/).
        paths: Vec<PathBuf>,
        /// Only these checks (by id); default: all.
        #[arg(long = "check")]
        checks: Vec<String>,
        /// Scenarios run at once.
        #[arg(long, default_value_t = 4)]
        jobs: usize,
        /// The malformed corpus (default: the one shipped with callproof).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Print every violation's evidence, not only the failing checks' names.
        #[arg(long, short)]
        verbose: bool,
    },
    /// List the checks with their level, rule and seed reference.
    Checks,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Checks => {
            for check in checks::all() {
                println!("{:<34} {:<6} {}  ({})", check.id, check.level.as_str(), check.rule, check.seed_ref);
            }
            ExitCode::SUCCESS
        }
        Command::Run { paths, checks, jobs, corpus, verbose } => run(paths, &checks, jobs, corpus, verbose),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("callproof: {message}");
    ExitCode::from(2)
}

fn run(paths: Vec<PathBuf>, only: &[String], jobs: usize, corpus: Option<PathBuf>, verbose: bool) -> ExitCode {
    let paths = if paths.is_empty() { vec![PathBuf::from("scenarios")] } else { paths };
    if let Some(missing) = paths.iter().find(|path| !path.exists()) {
        return usage_error(&format!(
            "{} does not exist (run from the repository root, or name scenario files)",
            missing.display()
        ));
    }
    let selected: Vec<Check> = if only.is_empty() {
        checks::all()
    } else {
        let mut selected = Vec::new();
        for id in only {
            match checks::by_id(id) {
                Some(check) => selected.push(check),
                None => return usage_error(&format!("unknown check `{id}` (see `callproof checks`)")),
            }
        }
        selected
    };
    let corpus = match corpus {
        Some(path) => Corpus::load(&path),
        None => toml::from_str(callproof_harness::EMBEDDED_CORPUS).map_err(|error| error.to_string()),
    };
    let corpus = match corpus {
        Ok(corpus) => Arc::new(corpus),
        Err(error) => return usage_error(&error),
    };
    let scenarios = match suite::discover(&paths) {
        Ok(scenarios) if scenarios.is_empty() => return usage_error("no scenario files found"),
        Ok(scenarios) => scenarios,
        Err(errors) => {
            for error in errors {
                eprintln!("callproof: {error}");
            }
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return usage_error(&format!("cannot start the async runtime: {error}")),
    };
    let runner = Runner::new(Arc::new(InProcess::reference()), corpus.clone());
    let suite = Suite::new(runner, corpus, selected, jobs);
    let report = runtime.block_on(suite.run(&scenarios, |scenario| {
        println!("{}", report::scenario_line(scenario));
        if verbose || scenario.must_failed() {
            print!("{}", report::scenario_details(scenario));
        }
    }));
    print!("{}", report::summary(&report));
    if report.must_failed() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
