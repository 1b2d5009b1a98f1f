//! Every known-bad executor, run as a process through `callproof-executor --stdio --mutant NAME`, trips the
//! checks `callproof_harness::mutation::MEANT_TO_TRIP` names for it, and the reference binary trips none.
//!
//! To keep the suite fast, each mutant runs only the scenarios that exercise its checks (the table below,
//! taken from `callproof mutants`), not all of them; all 25 mutants run, four at a time. The crash scenario
//! runs over SQLite, so it is required (over a memory store it would be an expected failure for everyone).
//! `lease-honoured` reads the executor's idempotency records, which only in-process subjects expose: through
//! a process, `completion-not-recorded` is caught by `expectations` instead.

mod process_support;

use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::mutation::meant_to_trip;
use callproof_harness::process::ProcessFactory;
use callproof_harness::scenario::Scenario;
use futures::StreamExt;
use process_support::{TempDir, reference_command, repo};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The scenarios that exercise each mutant's checks.
const SCENARIOS: [(&str, &[&str]); 25] = [
    ("check-then-act", &["idempotency/burst_of_identical_calls"]),
    ("key-from-call-id", &["idempotency/duplicate_refund_after_lost_response"]),
    ("key-per-attempt", &["idempotency/duplicate_refund_after_lost_response"]),
    ("timeout-as-not-started", &["idempotency/timeout_after_commit_reconciles"]),
    ("lost-as-unavailable", &["idempotency/duplicate_refund_after_lost_response"]),
    ("coercing-decoder", &["decode/malformed_corpus", "decode/string_for_integer"]),
    ("unknown-fields-ignored", &["decode/malformed_corpus"]),
    ("duplicate-keys-last-wins", &["decode/malformed_corpus"]),
    ("trusts-argument-identity", &["auth/identity_in_arguments"]),
    ("approval-ignores-arguments", &["auth/approval_bound_to_arguments"]),
    ("output-unvalidated", &["downstream/bad_output_withheld"]),
    ("leaky-errors", &["downstream/leak_bait"]),
    ("lease-expiry-to-absent", &["idempotency/crash_after_commit"]),
    ("unknown-reexecuted", &["idempotency/duplicate_refund_after_lost_response"]),
    ("key-hashes-arguments", &["idempotency/changed_arguments_conflict"]),
    ("ownership-unchecked", &["auth/foreign_order_forbidden"]),
    ("scope-after-lookup", &["auth/missing_scope"]),
    ("lying-retry-flags", &["idempotency/duplicate_refund_after_lost_response"]),
    ("drops-retry-after", &["downstream/rate_limited"]),
    ("errors-without-details", &["decode/malformed_corpus"]),
    ("deadline-ignored", &["deadline/read_timeout_is_retryable"]),
    ("completion-not-recorded", &["idempotency/duplicate_refund_after_lost_response"]),
    ("no-deadline-header", &["idempotency/timeout_before_commit_reexecutes"]),
    ("no-request-id", &["idempotency/duplicate_while_in_progress"]),
    ("follows-output-instructions", &["downstream/injected_text_is_data"]),
];

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

async fn run(command: String, names: &[&str]) -> conform::Report {
    let factory = Arc::new(ProcessFactory::new(&command).expect("a command"));
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
    for (name, _) in SCENARIOS {
        assert!(callproof_executor::mutants::by_name(name).is_some(), "{name} is not a mutant");
    }
    assert_eq!(SCENARIOS.len(), callproof_executor::mutants::ALL.len(), "every mutant has scenarios");

    let all: BTreeSet<&str> = SCENARIOS.iter().flat_map(|(_, names)| names.iter().copied()).collect();
    let reference = run(reference_command(&store), &all.into_iter().collect::<Vec<_>>()).await;
    let failed = tripped(&reference.scenarios);
    assert!(
        reference.passed() && failed.is_empty(),
        "the reference binary failed: {failed:?}\n{}",
        reference.verdict.message
    );

    let missed: Vec<String> = futures::stream::iter(SCENARIOS)
        .map(|(name, names)| {
            // Only the crash scenario needs records that survive a restart; the memory store is quicker.
            let store = if name == "lease-expiry-to-absent" { store.as_str() } else { "--store memory" };
            let command = reference_command(&format!("{store} --mutant {name}"));
            async move {
                let mut last = String::new();
                // Some bugs show only when calls overlap (check-then-act needs two claims inside its read-write
                // gap), and the scheduler decides that: a mutant counts as slipping through only if it slips
                // through three runs in a row.
                for _ in 0..3 {
                    let report = run(command.clone(), names).await;
                    let caught = tripped(&report.scenarios);
                    let meant = meant_to_trip(name)
                        .iter()
                        .map(|check| if *check == "lease-honoured" { "expectations" } else { *check })
                        .filter(|check| !caught.contains(*check))
                        .collect::<Vec<_>>();
                    if meant.is_empty() {
                        return None;
                    }
                    last = format!("{name}: missed {meant:?}, caught {caught:?}");
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
