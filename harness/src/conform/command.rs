//! The `callproof conform` command: options in, report out, an exit code back. `main.rs` only parses.
//!
//! Rule enforced here: stdout carries the report (human or JSON) and nothing else; progress and the one JSON
//! line that explains a non-zero exit go to stderr; the progress bar shows only on a terminal.

use super::{Baseline, Options, Partition, Profile, Report, ScenarioResult, junit, report};
use crate::process::ProcessFactory;
use crate::scenario::Scenario;
use crate::suite;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Exit code: every required check passed.
pub const EXIT_PASS: u8 = 0;
/// Exit code: a required check failed, or a baseline entry is stale.
pub const EXIT_FAIL: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the executor could not be started or broke the protocol.
pub const EXIT_EXECUTOR: u8 = 3;

/// What the command line asked for.
#[derive(Debug, Clone, Default)]
pub struct Args {
    /// Scenario files or folders (default `scenarios/`).
    pub paths: Vec<PathBuf>,
    /// The executor command.
    pub executor: String,
    /// `must` or `all`.
    pub profile: String,
    /// `human` or `json`.
    pub format: String,
    /// Where to write JUnit XML.
    pub junit: Option<PathBuf>,
    /// The expected-failure baseline.
    pub baseline: Option<PathBuf>,
    /// Only these checks.
    pub only: Vec<String>,
    /// `k/n`.
    pub partition: Option<String>,
    /// Scenarios at once.
    pub jobs: usize,
}

/// The JSON line explaining a usage or configuration error (exit code 2).
pub fn usage_line(message: &str) -> String {
    reason_line(EXIT_USAGE, "usage", message)
}

fn reason_line(code: u8, reason: &str, message: &str) -> String {
    serde_json::json!({"callproof": "conform", "exit_code": code, "reason": reason, "message": message}).to_string()
}

/// Runs the command; the exit code.
pub fn main(args: Args) -> u8 {
    match prepare(&args) {
        Ok((factory, scenarios, options, json)) => execute(&args, factory, scenarios, &options, json),
        Err(message) => {
            eprintln!("callproof conform: {message}");
            eprintln!("{}", usage_line(&message));
            EXIT_USAGE
        }
    }
}

type Prepared = (ProcessFactory, Vec<Scenario>, Options, bool);

fn prepare(args: &Args) -> Result<Prepared, String> {
    let json = match args.format.as_str() {
        "human" | "" => false,
        "json" => true,
        other => return Err(format!("unknown format `{other}`: use human or json")),
    };
    let profile: Profile = if args.profile.is_empty() { Profile::Must } else { args.profile.parse()? };
    let partition = args.partition.as_deref().map(str::parse::<Partition>).transpose()?;
    let baseline = match &args.baseline {
        Some(path) => Baseline::load(path)?,
        None => Baseline::default(),
    };
    let options = Options { profile, only: args.only.clone(), partition, baseline, jobs: args.jobs };
    options.checks()?;
    let factory = ProcessFactory::new(&args.executor)?;
    let paths = if args.paths.is_empty() { vec![PathBuf::from("scenarios")] } else { args.paths.clone() };
    if let Some(missing) = paths.iter().find(|path| !path.exists()) {
        return Err(format!(
            "{} does not exist (run from the repository root, or name scenario files)",
            missing.display()
        ));
    }
    let scenarios = suite::discover(&paths)
        .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))?;
    if scenarios.is_empty() {
        return Err("no scenario files found".to_owned());
    }
    Ok((factory, scenarios, options, json))
}

fn execute(args: &Args, factory: ProcessFactory, scenarios: Vec<Scenario>, options: &Options, json: bool) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            let message = format!("cannot start the async runtime: {error}");
            eprintln!("{}", usage_line(&message));
            return EXIT_USAGE;
        }
    };
    let capabilities = match runtime.block_on(factory.probe()) {
        Ok(capabilities) => capabilities,
        Err(error) => {
            eprintln!("callproof conform: {error}");
            eprintln!("{}", reason_line(EXIT_EXECUTOR, "executor_not_started", &error.0));
            return EXIT_EXECUTOR;
        }
    };
    let total = options.partition.map_or(scenarios.len(), |partition| partition.select(scenarios.clone()).len());
    let bar = progress_bar(total as u64);
    let printer = |result: &ScenarioResult| {
        if let Some(bar) = &bar {
            bar.set_message(result.id.clone());
            bar.inc(1);
        }
        if !json {
            let mut text = report::scenario_line(result);
            text.push('\n');
            if result.status == super::Status::Fail {
                text.push_str(&report::scenario_details(result));
            }
            match &bar {
                Some(bar) => bar.suspend(|| print!("{text}")),
                None => print!("{text}"),
            }
        }
    };
    let factory = Arc::new(factory);
    let report = runtime.block_on(super::run(
        factory,
        scenarios,
        super::shipped_corpus().unwrap_or_default(),
        options,
        Some(capabilities),
        &printer,
    ));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = match report {
        Ok(report) => report,
        Err(message) => {
            eprintln!("callproof conform: {message}");
            eprintln!("{}", usage_line(&message));
            return EXIT_USAGE;
        }
    };
    write_outputs(args, &report, json)
}

fn write_outputs(args: &Args, report: &Report, json: bool) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let written = if json {
        serde_json::to_string_pretty(report)
            .map_err(|error| error.to_string())
            .and_then(|text| writeln!(stdout, "{text}").map_err(|error| error.to_string()))
    } else {
        write!(stdout, "{}", report::footer(report)).map_err(|error| error.to_string())
    };
    if let Err(error) = written {
        eprintln!("{}", usage_line(&format!("cannot write the report: {error}")));
        return EXIT_USAGE;
    }
    if let Some(path) = &args.junit {
        let written = junit::render(report)
            .and_then(|xml| std::fs::write(path, xml).map_err(|error| format!("{}: {error}", path.display())));
        if let Err(message) = written {
            eprintln!("{}", usage_line(&format!("cannot write the JUnit report: {message}")));
            return EXIT_USAGE;
        }
    }
    if !report.passed() {
        eprintln!("{}", report.reason_line());
    }
    report.verdict.exit_code
}

/// A progress bar on stderr, or `None` when stderr is not a terminal.
fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} scenarios {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    Some(bar)
}
