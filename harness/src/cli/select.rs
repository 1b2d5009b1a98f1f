//! The options that choose what a command runs, spelled one way on every command: which scenarios (the
//! shipped suite, `--scenarios DIR` added to it, paths or ids named), `--filter`, and for the suite commands
//! which checks are required (`--profile`, `--only`) and which failures are expected (`--baseline`).
//!
//! Rule enforced here: everything these options name is checked before anything runs: a path or id that
//! names nothing, a filter that does not parse, an unknown check, a baseline line that does not parse.

use super::Error;
use callproof_harness::conform::{Baseline, Options, Partition, Profile};
use callproof_harness::filter::Filter;
use callproof_harness::scenario::Scenario;
use callproof_harness::shipped;
use std::path::PathBuf;

/// Which scenarios, and which (scenario, check) pairs of them.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct Scenarios {
    /// Scenario files or folders on disk, or scenario ids and folders of ids (`auth`,
    /// `idempotency/crash_after_commit`; see `callproof list scenarios`). Default: the whole suite.
    #[arg(value_name = "PATH|ID")]
    pub(crate) paths: Vec<PathBuf>,
    /// Add the scenarios under DIR to the shipped ones (repeatable); a scenario with the id of a shipped one
    /// replaces it. Ids are paths below the nearest folder called `scenarios`, else below DIR's parent.
    #[arg(long = "scenarios", value_name = "DIR")]
    pub(crate) added: Vec<PathBuf>,
    /// Run only what EXPR selects: `path:GLOB`, `tag:NAME`, `check:ID`, `level:must|should`, joined with `&`,
    /// `|`, `!` and parentheses, e.g. `tag:idempotency & !check:same-key` (repeat: either selects).
    #[arg(long, short = 'E', value_name = "EXPR")]
    pub(crate) filter: Vec<String>,
}

impl Scenarios {
    /// The scenarios named (or the suite), loaded.
    pub(crate) fn load(&self) -> Result<Vec<Scenario>, Error> {
        shipped::select(&self.paths, &self.added)
    }

    /// The filter, parsed.
    pub(crate) fn filter(&self) -> Result<Filter, Error> {
        Ok(Filter::parse(&self.filter)?)
    }
}

/// Which scenarios and checks, and what is required of them: the options `run` and `conform` share.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Selection {
    /// Which scenarios.
    #[command(flatten)]
    pub(crate) scenarios: Scenarios,
    /// Run only the k-th of n slices of the suite (scenarios sorted by id, dealt round robin).
    #[arg(long, value_name = "k/n")]
    partition: Option<Partition>,
    /// Which checks are required: `must` (the MUST checks) or `all` (every check, SHOULD included).
    #[arg(long, value_enum, default_value_t = Profile::Must)]
    profile: Profile,
    /// Judge only these checks (repeat, or separate with commas; see `callproof list checks`).
    #[arg(long, alias = "check", value_name = "CHECK", value_delimiter = ',')]
    only: Vec<String>,
    /// Expected failures, one `SCENARIO [CHECK]` per line (see docs/conform.md).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
}

impl Selection {
    /// The run's options, checked: every check named exists and is judged, the filter and the baseline parse.
    /// `jobs` 0 means the default.
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
            filter: self.scenarios.filter()?,
        };
        options.checks()?;
        Ok(options)
    }

    /// The scenarios named (or the suite).
    pub(crate) fn scenarios(&self) -> Result<Vec<Scenario>, Error> {
        self.scenarios.load()
    }
}
