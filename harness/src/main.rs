//! The `callproof` command line. Kept thin: parsing, then calls into the library.

use callproof_harness::checks::{self, Check};
use callproof_harness::corpus::Corpus;
use callproof_harness::runner::Runner;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::InProcess;
use callproof_harness::suite::{self, Suite};
use callproof_harness::{conform, explore, mutation, report, repro};
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
        #[arg(long, default_value_t = 8)]
        jobs: usize,
        /// The malformed corpus (default: the one shipped with callproof).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Print every violation's evidence for every scenario, not only for failing ones.
        #[arg(long, short)]
        verbose: bool,
        /// The executor under test: `reference`, or `mutant:NAME` for a known-bad one (see `callproof mutants`).
        #[arg(long, default_value = "reference")]
        subject: String,
    },
    /// Run the suite against every known-bad executor and print which checks caught which bug.
    Mutants {
        /// Scenario files or folders (default: scenarios/).
        paths: Vec<PathBuf>,
        /// Only these mutants (by name); default: all.
        #[arg(long = "mutant")]
        mutants: Vec<String>,
        /// Scenarios run at once.
        #[arg(long, default_value_t = 8)]
        jobs: usize,
    },
    /// Generate schedules, run them in simulation, check after every step; shrink and write what fails.
    Explore {
        /// The executor under test: `reference` or `mutant:NAME`.
        #[arg(long, default_value = "reference")]
        subject: String,
        /// The seed (default: from the clock; always printed).
        #[arg(long)]
        seed: Option<u64>,
        /// How many schedules.
        #[arg(long, default_value_t = 500)]
        cases: u32,
        /// Run only the k-th of n slices of the cases: `k/n`.
        #[arg(long, default_value = "1/1")]
        partition: String,
        /// Longest schedule, in moves.
        #[arg(long, default_value_t = 8)]
        moves: usize,
        /// Where to write the minimal scenario of a failure.
        #[arg(long, default_value = "scenarios/found")]
        out: PathBuf,
    },
    /// Run one scenario and print its timeline, each failed check marked where it failed.
    ///
    /// Exit codes: 0 no MUST check failed; 1 one did; 2 usage error; 3 the executor broke.
    Repro {
        /// A scenario file, or an id under scenarios/ (e.g. idempotency/duplicate_refund_after_lost_response).
        scenario: String,
        /// An executor command speaking the adapter protocol (default: the in-process `--subject`).
        #[arg(long)]
        executor: Option<String>,
        /// Without --executor: `reference`, or `mutant:NAME` for a known-bad one.
        #[arg(long, default_value = "reference")]
        subject: String,
        /// `text`, `mermaid` (a sequenceDiagram that renders on GitHub) or `json`.
        #[arg(long, default_value = "text")]
        format: String,
    },
    /// Run the suite against an executor process speaking the adapter protocol (docs/protocol.md).
    ///
    /// Exit codes: 0 every required check passed; 1 check failures or a stale baseline; 2 usage or
    /// configuration error; 3 the executor could not be started or broke the protocol.
    Conform {
        /// Scenario files or folders (default: scenarios/).
        paths: Vec<PathBuf>,
        /// The executor command, e.g. "target/debug/callproof-executor --stdio --store memory".
        #[arg(long)]
        executor: String,
        /// Which checks are required: `must` (MUST checks only) or `all`.
        #[arg(long, default_value = "must")]
        profile: String,
        /// `human` or `json` (the report schema is docs/report.schema.json).
        #[arg(long, default_value = "human")]
        format: String,
        /// Also write the report as JUnit XML to this file.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Expected failures, one `SCENARIO [CHECK]` per line (see docs/conform.md).
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Only these checks (repeat, or separate with commas).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Run only the k-th of n slices of the suite: `k/n`.
        #[arg(long)]
        partition: Option<String>,
        /// Scenarios run at once.
        #[arg(long, default_value_t = 4)]
        jobs: usize,
    },
    /// List the checks with their level, rule and seed reference.
    Checks,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = error.exit_code();
            let _ = error.print();
            if code != 0 {
                let first = error.to_string().lines().next().unwrap_or_default().to_owned();
                eprintln!("{}", conform::command::usage_line(&first));
            }
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    let result = match cli.command {
        Command::Repro { scenario, executor, subject, format } => {
            Ok(ExitCode::from(repro::main(repro::Args { scenario, executor, subject, format })))
        }
        Command::Conform { paths, executor, profile, format, junit, baseline, only, partition, jobs } => {
            let args =
                conform::command::Args { paths, executor, profile, format, junit, baseline, only, partition, jobs };
            Ok(ExitCode::from(conform::command::main(args)))
        }
        Command::Checks => {
            for check in checks::all() {
                println!("{:<34} {:<6} {}  ({})", check.id, check.level.as_str(), check.rule, check.seed_ref);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Run { paths, checks, jobs, corpus, verbose, subject } => {
            run(paths, &checks, jobs, corpus, verbose, &subject)
        }
        Command::Mutants { paths, mutants, jobs } => run_mutants(paths, &mutants, jobs),
        Command::Explore { subject, seed, cases, partition, moves, out } => {
            run_explore(&subject, seed, cases, &partition, moves, out)
        }
    };
    result.unwrap_or_else(|message| {
        eprintln!("callproof: {message}");
        ExitCode::from(2)
    })
}

fn run(
    paths: Vec<PathBuf>,
    only: &[String],
    jobs: usize,
    corpus: Option<PathBuf>,
    verbose: bool,
    subject: &str,
) -> Result<ExitCode, String> {
    let factory = in_process(subject)?;
    let selected: Vec<Check> = if only.is_empty() {
        checks::all()
    } else {
        only.iter()
            .map(|id| checks::by_id(id).ok_or_else(|| format!("unknown check `{id}` (see `callproof checks`)")))
            .collect::<Result<_, _>>()?
    };
    let corpus = match corpus {
        Some(path) => Corpus::load(&path).map(Arc::new)?,
        None => embedded_corpus()?,
    };
    let scenarios = load_scenarios(paths)?;
    let runner = Runner::new(Arc::new(factory), corpus.clone());
    let suite = Suite::new(runner, corpus, selected, jobs);
    let report = runtime()?.block_on(suite.run(&scenarios, |scenario| {
        println!("{}", report::scenario_line(scenario));
        if verbose || scenario.must_failed() {
            print!("{}", report::scenario_details(scenario));
        }
    }));
    print!("{}", report::summary(&report));
    Ok(if report.must_failed() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn run_mutants(paths: Vec<PathBuf>, names: &[String], jobs: usize) -> Result<ExitCode, String> {
    let selected = names
        .iter()
        .map(|name| callproof_executor::mutants::by_name(name).ok_or_else(|| format!("unknown mutant `{name}`")))
        .collect::<Result<Vec<_>, _>>()?;
    let scenarios = load_scenarios(paths)?;
    let corpus = embedded_corpus()?;
    let report =
        runtime()?.block_on(mutation::run(&scenarios, corpus, jobs, &selected, |name| eprintln!("  ran {name}")));
    print!("{}", mutation::render(&report));
    Ok(if report.holds() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn run_explore(
    subject: &str,
    seed: Option<u64>,
    cases: u32,
    partition: &str,
    moves: usize,
    out: PathBuf,
) -> Result<ExitCode, String> {
    let factory = in_process(subject)?;
    let partition = parse_partition(partition)?;
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64)
    });
    println!(
        "callproof explore: subject {subject}, seed {seed}, {cases} cases, partition {}/{}",
        partition.0, partition.1
    );
    let options =
        explore::Options { subject: Arc::new(factory), seed, cases, partition, max_moves: moves, out: Some(out) };
    let progress = indicatif::ProgressBar::new(u64::from(cases.div_ceil(partition.1.max(1))));
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} schedules {per_sec} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let summary = explore::explore(&options, embedded_corpus()?, |done| progress.set_position(u64::from(done)));
    progress.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} schedules, {} steps in {seconds:.1}s ({:.0} schedules/s)",
        summary.cases,
        summary.steps,
        f64::from(summary.cases) / seconds.max(1e-9)
    );
    let Some(found) = summary.found else {
        println!("no check failed");
        return Ok(ExitCode::SUCCESS);
    };
    println!(
        "FAIL  `{}` after case {} (shrunk from {} to {} moves)",
        found.check, found.case, found.moves.0, found.moves.1
    );
    for violation in &found.violations {
        println!("      {}", violation.message);
        for line in &violation.evidence {
            println!("          {line}");
        }
    }
    match &found.path {
        Some(path) => {
            println!("wrote {}", path.display());
            let confirmed = runtime()?.block_on(explore::replays_over_loopback(
                options.subject.clone(),
                embedded_corpus()?,
                path,
                found.check,
            ));
            println!(
                "over loopback HTTP (wiremock) the file {}",
                match confirmed {
                    Ok(true) => "fails the same check: confirmed".to_owned(),
                    Ok(false) => "does NOT fail the same check (the failure depends on simulated timing)".to_owned(),
                    Err(error) => format!("could not be replayed: {error}"),
                }
            );
            println!("replay: callproof run --subject {subject} {}", path.display());
        }
        None => print!("{}", found.scenario),
    }
    println!("explore again: callproof explore --subject {subject} --seed {seed} --cases {cases}");
    Ok(ExitCode::FAILURE)
}

fn parse_partition(text: &str) -> Result<(u32, u32), String> {
    let parsed = text.split_once('/').and_then(|(k, n)| Some((k.parse::<u32>().ok()?, n.parse::<u32>().ok()?)));
    match parsed {
        Some((k, n)) if n >= 1 && (1..=n).contains(&k) => Ok((k, n)),
        _ => Err(format!("--partition wants k/n with 1 ≤ k ≤ n, got `{text}`")),
    }
}

/// `reference` or `mutant:NAME`.
fn in_process(subject: &str) -> Result<InProcess, String> {
    match subject.split_once(':') {
        None if subject == "reference" => Ok(InProcess::reference()),
        Some(("mutant", name)) => callproof_executor::mutants::by_name(name)
            .map(|mutant| InProcess::mutant(&mutant))
            .ok_or_else(|| format!("unknown mutant `{name}` (see `callproof mutants --help`)")),
        _ => Err(format!("unknown subject `{subject}`: use `reference` or `mutant:NAME`")),
    }
}

fn embedded_corpus() -> Result<Arc<Corpus>, String> {
    toml::from_str(callproof_harness::EMBEDDED_CORPUS).map(Arc::new).map_err(|error| error.to_string())
}

fn load_scenarios(paths: Vec<PathBuf>) -> Result<Vec<Scenario>, String> {
    let paths = if paths.is_empty() { vec![PathBuf::from("scenarios")] } else { paths };
    if let Some(missing) = paths.iter().find(|path| !path.exists()) {
        return Err(format!(
            "{} does not exist (run from the repository root, or name scenario files)",
            missing.display()
        ));
    }
    match suite::discover(&paths) {
        Ok(scenarios) if scenarios.is_empty() => Err("no scenario files found".to_owned()),
        Ok(scenarios) => Ok(scenarios),
        Err(errors) => Err(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\ncallproof: ")),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))
}
