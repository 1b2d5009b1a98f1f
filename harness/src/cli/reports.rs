//! The reports of the suite commands (`run`, `conform`): the format on stdout, the files written beside it
//! (`--junit`, `--html`, `--write-baseline`), and the run itself with a counted line per scenario.
//!
//! Rule enforced here: a report file that cannot be written is refused before the first scenario runs (its
//! folder is created first), and every file is written before stdout's report is printed, so a report on
//! stdout never claims an exit code the process does not return.

use super::Error;
use super::busy;
use super::output;
use callproof_harness::conform::{self, Options, Report, ScenarioResult, accept, human, junit};
use callproof_harness::corpus::Corpus;
use callproof_harness::protocol::Capabilities;
use callproof_harness::report::{github, html};
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::SubjectFactory;
use std::fs::File;
use std::io::{IsTerminal, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How the report is printed on stdout (`run`, `conform`, `mutants`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// For people: a counted line per scenario (or executor) as it finishes, the evidence under failures, the
    /// tally and the verdict.
    Human,
    /// The report as one JSON object, at the end (for `run` and `conform`: docs/report.schema.json).
    Json,
    /// The report as JUnit XML, at the end, with a time on every test case.
    Junit,
    /// The human report, then one GitHub Actions annotation per failure (for a scenario: on its file, at the
    /// line of the step where the check failed).
    Github,
}

/// The report options of every command that runs many things (`run`, `conform`, `mutants`).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Formats {
    /// How the report is printed on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// Also write the report as JUnit XML to FILE (its folder is created).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE: a summary table, and timelines drawn as sequence
    /// diagrams with each failed check marked where it failed.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

impl Formats {
    /// Opens the JUnit and HTML files the options name; call before running anything.
    pub(crate) fn open(&self) -> Result<(Option<Output>, Option<Output>), Error> {
        let junit = self.junit.as_deref().map(|path| Output::open(path, "the JUnit report")).transpose()?;
        let html = self.html.as_deref().map(|path| Output::open(path, "the HTML report")).transpose()?;
        Ok((junit, html))
    }
}

/// The report options `run` and `conform` share.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Reports {
    /// Format and report files.
    #[command(flatten)]
    formats: Formats,
    /// Accept today's failures: write each failed check as a baseline line to FILE, and judge the run with
    /// that baseline (it passes unless the executor broke). Use FILE with --baseline from then on.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
}

/// A report file, opened before the run so that a path that cannot be written is refused first.
pub(crate) struct Output {
    path: PathBuf,
    file: File,
}

impl Output {
    /// Creates the folder of `path` and opens it for writing (its old content stays until [`Output::write`]).
    pub(crate) fn open(path: &Path, what: &str) -> Result<Output, Error> {
        let failed =
            |why: std::io::Error| Error::Output { what: format!("{what} {}", path.display()), why: why.to_string() };
        if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(failed)?;
        }
        let file = std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(path).map_err(failed)?;
        Ok(Output { path: path.to_owned(), file })
    }

    /// Replaces the file's content with `text`.
    pub(crate) fn write(mut self, text: &str) -> Result<(), Error> {
        let failed =
            |why: std::io::Error| Error::Output { what: self.path.display().to_string(), why: why.to_string() };
        self.file.set_len(0).map_err(failed)?;
        self.file.rewind().map_err(failed)?;
        self.file.write_all(text.as_bytes()).map_err(failed)?;
        self.file.flush().map_err(failed)
    }
}

/// The files a run writes, opened.
pub(crate) struct Prepared {
    format: Format,
    verbose: bool,
    junit: Option<Output>,
    html: Option<Output>,
    baseline: Option<Output>,
}

impl Reports {
    /// Opens every file the options name; call before running anything.
    pub(crate) fn prepare(&self) -> Result<Prepared, Error> {
        let (junit, html) = self.formats.open()?;
        let baseline = self.write_baseline.as_deref().map(|path| Output::open(path, "the baseline")).transpose()?;
        Ok(Prepared { format: self.formats.format, verbose: false, junit, html, baseline })
    }
}

impl Prepared {
    /// Prints the evidence of warnings and expected failures too, not only of failures.
    pub(crate) fn verbose(self, verbose: bool) -> Prepared {
        Prepared { verbose, ..self }
    }
}

/// Runs `scenarios` against `factory`'s subjects, printing a counted line per scenario as it finishes (human
/// and github formats), then writes the files and prints the report. Returns the report as judged (after
/// `--write-baseline` accepted its failures).
pub(crate) fn judge(
    runtime: &tokio::runtime::Runtime,
    factory: Arc<dyn SubjectFactory>,
    capabilities: Option<Capabilities>,
    scenarios: Vec<Scenario>,
    corpus: Arc<Corpus>,
    options: &Options,
    prepared: Prepared,
) -> Result<Report, Error> {
    let verbose = prepared.verbose;
    let streaming = matches!(prepared.format, Format::Human | Format::Github);
    let total = options.partition.unwrap_or_default().size_of(scenarios.len());
    let bar = progress_bar(total as u64, "scenarios");
    let done = AtomicUsize::new(0);
    let printer = |result: &ScenarioResult| {
        let done = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &bar {
            bar.set_message(result.id.clone());
            bar.inc(1);
        }
        if streaming {
            let mut text = output::paint_status(&human::progress_line(result, done, total), result.status);
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
    let load_before = busy::load();
    let report = runtime.block_on(conform::run(factory, scenarios, corpus, options, capabilities, &printer));
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if let Some(warning) = busy::warning(&[load_before, busy::load()], cores) {
        output::error_line(&warning);
    }
    finish(report?, options, prepared)
}

/// Accepts failures into the new baseline, writes the files, then prints the report on stdout.
fn finish(mut report: Report, options: &Options, prepared: Prepared) -> Result<Report, Error> {
    if let Some(file) = prepared.baseline {
        let shown = file.path.display().to_string();
        let text = accept::accept(&mut report, &options.baseline, &shown);
        let entries = text.lines().filter(|line| !line.starts_with('#') && !line.is_empty()).count();
        file.write(&text)?;
        output::error_line(&format!("callproof: wrote {entries} baseline entries to {shown}; pass it with --baseline"));
    }
    if let Some(file) = prepared.junit {
        file.write(&junit::render(&report)?)?;
    }
    if let Some(file) = prepared.html {
        file.write(&html::conform(&report))?;
    }
    match prepared.format {
        Format::Human => output::print(&output::paint_footer(&human::footer(&report))),
        Format::Github => {
            output::print(&output::paint_footer(&human::footer(&report)));
            output::print(&github::annotations(&report));
        }
        Format::Json => {
            let text = serde_json::to_string_pretty(&report)
                .map_err(|error| Error::Output { what: "the JSON report".to_owned(), why: error.to_string() })?;
            output::line(&text);
        }
        Format::Junit => output::print(&junit::render(&report)?),
    }
    Ok(report)
}

/// A progress bar on stderr counting `what`, or `None` when stderr is not a terminal.
pub(crate) fn progress_bar(total: u64, what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    let template = format!("{{bar:30}} [{{pos}}/{{len}}] {what} {{elapsed}} {{wide_msg}}");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    Some(bar)
}
