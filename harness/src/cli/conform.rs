//! `callproof conform`: the suite against an executor process, judged for CI; and the suite runner `run`
//! shares: select, run with a progress line per scenario, report.
//!
//! Rule enforced here: stdout carries the report (human or JSON) and nothing else; progress and the one JSON
//! line that explains a non-zero exit go to stderr; the progress bar shows only on a terminal. Everything the
//! options name (checks, baseline, scenarios, the executor's capabilities) is checked before the first
//! scenario runs.

use super::Error;
use super::output;
use callproof_harness::conform::{self, Baseline, Options, Partition, Profile, Report, ScenarioResult, human, junit};
use callproof_harness::corpus::Corpus;
use callproof_harness::process::ProcessFactory;
use callproof_harness::protocol::Capabilities;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::SubjectFactory;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 every required check passed; 1 a required check failed, or a \
                                     baseline entry is stale; 2 usage or configuration error; 3 the executor could \
                                     not be started or broke the protocol. On a non-zero exit the last line on \
                                     stderr is one JSON object saying why (docs/conform.md).";

/// Which scenarios and checks, and what is required of them: the options `run` and `conform` share.
#[derive(clap::Args)]
pub(crate) struct Selection {
    /// Scenario files or folders (default: scenarios/).
    paths: Vec<PathBuf>,
    /// Which checks are required: `must` (the MUST checks) or `all` (every check, SHOULD included).
    #[arg(long, value_enum, default_value_t = Profile::Must)]
    profile: Profile,
    /// Judge only these checks (repeat, or separate with commas; see `callproof checks`).
    #[arg(long, alias = "check", value_name = "CHECK", value_delimiter = ',')]
    only: Vec<String>,
    /// Run only the k-th of n slices of the suite (scenarios sorted by id, dealt round robin).
    #[arg(long, value_name = "k/n")]
    partition: Option<Partition>,
    /// Expected failures, one `SCENARIO [CHECK]` per line (see docs/conform.md).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
}

impl Selection {
    /// The run's options, checked: every check named exists and is judged, the baseline parses.
    pub(crate) fn options(&self, jobs: usize) -> Result<Options, Error> {
        let baseline = match &self.baseline {
            Some(path) => Baseline::load(path)?,
            None => Baseline::default(),
        };
        let options = Options {
            profile: self.profile,
            only: self.only.clone(),
            partition: self.partition,
            baseline,
            jobs,
            advisory: false,
        };
        options.checks()?;
        Ok(options)
    }

    /// The scenarios the paths name.
    pub(crate) fn scenarios(&self) -> Result<Vec<Scenario>, Error> {
        Ok(Scenario::discover(&self.paths)?)
    }
}

/// How the report is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// A line per scenario as it finishes, the evidence under failures, a tally per check, the verdict.
    Human,
    /// The report as one JSON object (docs/report.schema.json), at the end.
    Json,
}

/// `callproof conform [PATH...] --executor COMMAND ...`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which scenarios and checks.
    #[command(flatten)]
    selection: Selection,
    /// The executor command, e.g. "target/debug/callproof-executor --stdio --store memory".
    #[arg(long, value_name = "COMMAND")]
    executor: String,
    /// How the report is printed.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write the report as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
}

/// Runs the suite against the executor process and reports.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let options = args.selection.options(usize::from(args.jobs))?;
    let factory = ProcessFactory::new(&args.executor)?;
    let scenarios = args.selection.scenarios()?;
    let runtime = super::runtime()?;
    let capabilities = runtime.block_on(factory.probe())?;
    let printed = match args.format {
        Format::Human => Printed::Human { verbose: false },
        Format::Json => Printed::Json,
    };
    let report =
        judge(&runtime, Arc::new(factory), Some(capabilities), scenarios, Corpus::shipped(), &options, printed)?;
    if let Some(path) = &args.junit {
        let xml = junit::render(&report)?;
        std::fs::write(path, xml).map_err(|error| Error::Output {
            what: format!("the JUnit report {}", path.display()),
            why: error.to_string(),
        })?;
    }
    if !report.passed() {
        output::error_line(&report.reason_line());
    }
    Ok(ExitCode::from(report.verdict.exit_code))
}

/// What is printed while and after the suite runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Printed {
    /// The human report; `verbose` prints the evidence of every failed check, not only of failures.
    Human {
        /// Evidence for warnings and expected failures too.
        verbose: bool,
    },
    /// The JSON report, at the end.
    Json,
}

/// Runs `scenarios` against `factory`'s subjects, printing as `printed` says; the report.
pub(crate) fn judge(
    runtime: &tokio::runtime::Runtime,
    factory: Arc<dyn SubjectFactory>,
    capabilities: Option<Capabilities>,
    scenarios: Vec<Scenario>,
    corpus: Arc<Corpus>,
    options: &Options,
    printed: Printed,
) -> Result<Report, Error> {
    let total = options.partition.unwrap_or_default().size_of(scenarios.len());
    let bar = progress_bar(total as u64);
    let printer = |result: &ScenarioResult| {
        if let Some(bar) = &bar {
            bar.set_message(result.id.clone());
            bar.inc(1);
        }
        if let Printed::Human { verbose } = printed {
            let mut text = human::scenario_line(result);
            text.push('\n');
            if human::shows_details(result, verbose) {
                text.push_str(&human::scenario_details(result, verbose));
            }
            match &bar {
                Some(bar) => bar.suspend(|| output::print(&text)),
                None => output::print(&text),
            }
        }
    };
    let report = runtime.block_on(conform::run(factory, scenarios, corpus, options, capabilities, &printer));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let report = report?;
    match printed {
        Printed::Human { .. } => output::print(&human::footer(&report)),
        Printed::Json => {
            let text = serde_json::to_string_pretty(&report)
                .map_err(|error| Error::Output { what: "the JSON report".to_owned(), why: error.to_string() })?;
            output::line(&text);
        }
    }
    Ok(report)
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
