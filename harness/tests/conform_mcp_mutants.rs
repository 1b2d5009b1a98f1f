//! Every known-bad executor whose bug MCP can show (`AsProcess::over_mcp`: all but the one in the `callproof/1`
//! handshake), run as an MCP server over stdio (`callproof-executor --mcp --mutant NAME`) through
//! the scenarios its row of `callproof_executor::mutants::ALL` names, trips the checks its row names for a
//! process (`Mutant::trips_as_process`), as over `callproof/1` (harness/tests/conform_mutants.rs); over
//! Streamable HTTP (`--mcp-http --mutant NAME`, the trusted context in a bearer token per call) so does every
//! mutant whose bug is about identity or authorization. The reference server fails nothing, under `--profile
//! all`, over either transport.
//!
//! Rule enforced here: a mutant counts as caught only by a violation the reference does not also show over the
//! same transport (and the reference shows none). Each mutant runs only its row's
//! scenarios, over a memory store unless its row needs a durable one (SQLite) or a store that fails
//! (PostgreSQL through the harness's store relay, skipped with a SKIPPED line when PostgreSQL is unreachable),
//! four runs at once, three tries for a racy bug.

mod process_support;

use callproof_executor::mutants::{self, Mutant};
use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::mcp::{McpFactory, McpHttpFactory};
use callproof_harness::process::ProcessOptions;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::SubjectFactory;
use futures::future::{BoxFuture, Shared};
use futures::{FutureExt, StreamExt};
use process_support::{Postgres, TempDir, executor_binary, repo, run_callproof};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The two MCP transports of the reference server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Transport {
    /// `--mcp`: stdio, the trusted context in `_meta`.
    Stdio,
    /// `--mcp-http`: Streamable HTTP, the trusted context in a bearer JWT per call.
    Http,
}

/// The mutants run over HTTP too: those whose bug is about who the caller is or what they may do, which over
/// HTTP the server learns from the token alone (and a foreign origin that would receive the identity).
const OVER_HTTP: &[&str] = &[
    "trusts-argument-identity",
    "approval-ignores-arguments",
    "ownership-unchecked",
    "scope-after-lookup",
    "missing-told-apart",
    "follows-redirects",
];

/// One failed check's violation: scenario, check, message.
type Seen = (String, String, String);

fn scenarios(names: &[&str]) -> Vec<Scenario> {
    let paths: Vec<_> = names.iter().map(|name| repo().join("scenarios").join(format!("{name}.toml"))).collect();
    Scenario::discover(&paths).expect("the scenarios load")
}

/// Every violation of a failed check; a failed check without one is reported with an empty message.
fn violations(report: &conform::Report) -> BTreeSet<Seen> {
    let mut seen = BTreeSet::new();
    for scenario in &report.scenarios {
        for check in scenario.checks.iter().filter(|check| check.status == Status::Fail) {
            let messages: Vec<&str> = check.violations.iter().map(|violation| violation.message.as_str()).collect();
            for message in if messages.is_empty() { vec![""] } else { messages } {
                seen.insert((scenario.id.clone(), check.id.clone(), message.to_owned()));
            }
        }
    }
    seen
}

/// The scenarios of `names` over `transport`, the server started with `args`, its store reached through the
/// harness's relay when `store_address` names one.
async fn run(transport: Transport, args: &str, names: &[&str], store_address: Option<String>) -> conform::Report {
    let binary = executor_binary();
    let options = ProcessOptions { store_upstream: store_address, ..ProcessOptions::default() };
    let factory: Arc<dyn SubjectFactory> = match transport {
        Transport::Stdio => {
            let factory = McpFactory::new(&format!("'{}' --mcp {args}", binary.display())).expect("a command");
            Arc::new(factory.with_options(options))
        }
        Transport::Http => {
            let command = format!("'{}' --mcp-http {args}", binary.display());
            Arc::new(McpHttpFactory::command(&command).expect("a command").with_options(options))
        }
    };
    let options = Options { profile: Profile::All, jobs: 4, ..Options::default() };
    conform::run(factory, scenarios(names), Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
        .await
        .expect("the options are valid")
}

/// Where a mutant's store is: its row's needs, else memory (the quickest).
struct Stores {
    sqlite: String,
    /// The PostgreSQL store's options and address, when PostgreSQL is reachable.
    outage: Option<(String, String)>,
}

impl Stores {
    fn of(&self, mutant: &Mutant) -> (String, Option<String>) {
        match &self.outage {
            Some((store, address)) if mutant.process.store_outage => (store.clone(), Some(address.clone())),
            _ if mutant.process.durable_store => (self.sqlite.clone(), None),
            _ => ("--store memory".to_owned(), None),
        }
    }
}

/// Whether `mutant` over `transport` trips every check its row names, by a violation the reference did not
/// show; three runs in a row miss before it counts as slipping through (a bug may show only when calls
/// overlap, and the scheduler decides that). `None` when caught, else what it missed.
async fn slips(
    transport: Transport,
    mutant: &Mutant,
    stores: &Stores,
    reference: Shared<BoxFuture<'_, BTreeSet<Seen>>>,
) -> Option<String> {
    let (store, address) = stores.of(mutant);
    let args = format!("{store} --mutant {}", mutant.name);
    let mut last = String::new();
    for _ in 0..3 {
        let report = run(transport, &args, mutant.process.scenarios, address.clone()).await;
        let reference = reference.clone().await;
        let caught: BTreeSet<String> =
            violations(&report).difference(&reference).map(|(_, check, _)| check.clone()).collect();
        let meant: Vec<&str> =
            mutant.trips_as_process().iter().copied().filter(|check| !caught.contains(*check)).collect();
        if meant.is_empty() {
            return None;
        }
        last = format!("{} over {transport:?}: missed {meant:?}, caught {caught:?}", mutant.name);
    }
    Some(last)
}

/// The reference over `transport` through every scenario of the `runs` over it, each group on the store its
/// mutants use (so a store-outage scenario is judged, not skipped): its violations, asserted to be none.
async fn reference(transport: Transport, runs: &[(Transport, &Mutant)], stores: &Stores) -> BTreeSet<Seen> {
    let mut groups: std::collections::BTreeMap<(String, Option<String>), BTreeSet<&str>> = Default::default();
    for (_, mutant) in runs.iter().filter(|(over, _)| *over == transport) {
        let (store, address) = stores.of(mutant);
        // SQLite where the mutant has memory: the reference then declares a durable store, and a crash
        // scenario is judged instead of expected to fail.
        let store = if address.is_some() { store } else { stores.sqlite.clone() };
        groups.entry((store, address)).or_default().extend(mutant.process.scenarios.iter().copied());
    }
    let reports = futures::future::join_all(groups.into_iter().map(|((store, address), names)| async move {
        run(transport, &store, &names.into_iter().collect::<Vec<_>>(), address).await
    }));
    let mut seen = BTreeSet::new();
    for report in reports.await {
        let judged = |status: Status| matches!(status, Status::Pass | Status::Fail);
        let unjudged: Vec<&str> =
            report.scenarios.iter().filter(|s| !judged(s.status)).map(|s| s.id.as_str()).collect();
        assert!(unjudged.is_empty(), "the reference over {transport:?} was not judged on {unjudged:?}");
        let failed = violations(&report);
        assert!(failed.is_empty(), "the reference over {transport:?} failed: {failed:?}");
        seen.extend(failed);
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mutant_over_mcp_trips_its_checks_and_the_reference_none() {
    let dir = TempDir::new();
    let sqlite = format!("--store sqlite:{}", dir.join("mcp-mutants.sqlite3").display());
    let postgres = Postgres::open("conform_mcp_mutants store_outage mutants").await;
    let outage = postgres.as_ref().map(|postgres| (postgres.store_args(), postgres.address()));
    let stores = Stores { sqlite, outage };
    let unknown: Vec<&&str> = OVER_HTTP.iter().filter(|name| mutants::by_name(name).is_none()).collect();
    assert!(unknown.is_empty(), "OVER_HTTP names no mutant: {unknown:?}");
    let runs: Vec<(Transport, &Mutant)> = mutants::ALL
        .iter()
        .filter(|mutant| mutant.process.over_mcp && (!mutant.process.store_outage || stores.outage.is_some()))
        .flat_map(|mutant| {
            let http = OVER_HTTP.contains(&mutant.name).then_some((Transport::Http, mutant));
            std::iter::once((Transport::Stdio, mutant)).chain(http)
        })
        .collect();
    // The reference runs from the start, beside the mutants; each mutant's run is judged once it is done.
    let reference = [
        reference(Transport::Stdio, &runs, &stores).boxed().shared(),
        reference(Transport::Http, &runs, &stores).boxed().shared(),
    ];
    let mutants = futures::stream::iter(runs.iter().copied())
        .map(|(transport, mutant)| slips(transport, mutant, &stores, reference[transport as usize].clone()))
        .buffer_unordered(4)
        .filter_map(|missed| async move { missed })
        .collect::<Vec<String>>();
    let (_, _, missed) = futures::join!(reference[0].clone(), reference[1].clone(), mutants);
    assert!(missed.is_empty(), "mutants that slipped through over MCP:\n{}", missed.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conform_mcp_cuts_the_store_given_by_store_address() {
    let Some(postgres) = Postgres::open("conform --mcp --store-address").await else { return };
    let server = format!("'{}' --mcp {}", executor_binary().display(), postgres.store_args());
    let address = postgres.address();
    // The scenario passes only if the store was cut: its first call must be refused with store_failed.
    let args = ["conform", "internal/store_outage", "--mcp", &server, "--store-address", &address, "--format", "json"];
    let reference = run_callproof(&args);
    assert_eq!(reference.code, 0, "{}\n{}", reference.stdout, reference.stderr);
    assert_eq!(reference.report()["scenarios"][0]["status"], "pass", "judged, not skipped: {}", reference.stdout);
    let url = run_callproof(&[
        "conform",
        "--mcp-url",
        "http://127.0.0.1:1/mcp",
        "--mcp-token-key-file",
        "key",
        "--store-address",
        &address,
    ]);
    assert_eq!(url.code, 2, "a server the harness did not start has no relay: {}", url.stderr);
}
