//! Every known-bad executor, run as a process through `callproof-executor --stdio --mutant NAME`, trips the
//! checks its row of `callproof_executor::mutants::ALL` names for a process (`Mutant::trips_as_process`), and
//! the reference binary trips none.
//!
//! To keep the suite fast, each mutant runs only the scenarios its row names (`AsProcess::scenarios`), not
//! all of them; every mutant runs, four at a time. A mutant that needs a durable store (a crash scenario)
//! runs over SQLite, so its failure is required (over a memory store it would be an expected failure for
//! everyone). A mutant whose bug shows only when its store fails runs over PostgreSQL through the harness's
//! store proxy (skipped, with a SKIPPED line, when PostgreSQL is unreachable).

mod process_support;

use callproof_executor::mutants;
use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::process::{ProcessFactory, ProcessOptions};
use callproof_harness::scenario::Scenario;
use futures::StreamExt;
use process_support::{Postgres, TempDir, reference_command, repo};
use std::collections::BTreeSet;
use std::sync::Arc;

fn scenarios(names: &[&str]) -> Vec<Scenario> {
    let paths: Vec<_> = names.iter().map(|name| repo().join("scenarios").join(format!("{name}.toml"))).collect();
    Scenario::discover(&paths).expect("the scenarios load")
}

/// The checks that failed (as required failures) anywhere in `results`.
fn tripped(results: &[ScenarioResult]) -> BTreeSet<String> {
    results
        .iter()
        .flat_map(|scenario| &scenario.checks)
        .filter(|check| check.status == Status::Fail)
        .map(|check| check.id.clone())
        .collect()
}

async fn run(command: String, names: &[&str], store_address: Option<String>) -> conform::Report {
    let factory = ProcessFactory::new(&command).expect("a command");
    let options = ProcessOptions { store_upstream: store_address, ..factory.options().clone() };
    let factory = Arc::new(factory.with_options(options));
    let capabilities = factory.probe().await.expect("the executor starts");
    let options = Options { profile: Profile::All, jobs: 4, ..Options::default() };
    conform::run(factory, scenarios(names), Corpus::shipped(), &options, Some(capabilities), &|_: &ScenarioResult| {})
        .await
        .expect("the options are valid")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mutant_binary_trips_its_checks_and_the_reference_binary_trips_none() {
    let dir = TempDir::new();
    let store = format!("--store sqlite:{}", dir.join("mutants.sqlite3").display());
    let all: BTreeSet<&str> = mutants::ALL.iter().flat_map(|mutant| mutant.process.scenarios.iter().copied()).collect();
    let reference = run(reference_command(&store), &all.into_iter().collect::<Vec<_>>(), None).await;
    let failed = tripped(&reference.scenarios);
    assert!(
        reference.passed() && failed.is_empty(),
        "the reference binary failed: {failed:?}\n{}",
        reference.verdict.message
    );

    let postgres = Postgres::open("conform_mutants store_outage mutants").await;
    let outage = postgres.as_ref().map(|postgres| (postgres.store_args(), postgres.address()));
    let missed: Vec<String> = futures::stream::iter(mutants::ALL)
        .filter(|mutant| std::future::ready(!mutant.process.store_outage || outage.is_some()))
        .map(|mutant| {
            // Only a crash scenario needs records that survive a restart; the memory store is quicker.
            let (store, address) = match &outage {
                Some((store, address)) if mutant.process.store_outage => (store.as_str(), Some(address.clone())),
                _ if mutant.process.durable_store => (store.as_str(), None),
                _ => ("--store memory", None),
            };
            let command = reference_command(&format!("{store} --mutant {}", mutant.name));
            async move {
                let mut last = String::new();
                // Some bugs show only when calls overlap (check-then-act needs two claims inside its read-write
                // gap), and the scheduler decides that: a mutant counts as slipping through only if it slips
                // through three runs in a row.
                for _ in 0..3 {
                    let report = run(command.clone(), mutant.process.scenarios, address.clone()).await;
                    let caught = tripped(&report.scenarios);
                    let meant: Vec<&str> =
                        mutant.trips_as_process().iter().copied().filter(|check| !caught.contains(*check)).collect();
                    if meant.is_empty() {
                        return None;
                    }
                    last = format!("{}: missed {meant:?}, caught {caught:?}", mutant.name);
                }
                Some(last)
            }
        })
        .buffer_unordered(4)
        .filter_map(|missed| async move { missed })
        .collect()
        .await;
    assert!(missed.is_empty(), "mutants that slipped through as processes:\n{}", missed.join("\n"));
}
