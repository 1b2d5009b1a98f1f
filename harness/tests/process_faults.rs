//! Faults on the executor's own store and process, without in-process hooks (issue 11, item 3): the reference
//! binary over PostgreSQL, its store reached through the harness's store proxy, answers a `store_outage` with
//! `internal_error` and executes once when the store is back; a binary that ignores store errors is caught;
//! without the feature or the store address the scenario is skipped with the reason. A store cut off after the
//! commit leaves the claim unfinished: after the lease the retry reconciles to the one refund, and a binary that
//! takes an expired lease for absence executes twice. A `pause` stops the binary (SIGSTOP) past its lease and
//! resumes it: it answers truthfully and the retry finds the one refund.

mod process_support;

use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::process::{ProcessFactory, ProcessOptions};
use callproof_harness::scenario::Scenario;
use process_support::{Postgres, TempDir, python_with_jsonschema, reference_command, repo};
use std::collections::BTreeSet;
use std::sync::Arc;

fn scenario(name: &str) -> Vec<Scenario> {
    Scenario::discover(&[repo().join("scenarios").join(format!("{name}.toml"))]).expect("the scenario loads")
}

async fn conform(command: &str, store_address: Option<String>, scenarios: Vec<Scenario>) -> conform::Report {
    let factory = ProcessFactory::new(command).expect("a command");
    let options = ProcessOptions { store_upstream: store_address, ..factory.options().clone() };
    let factory = Arc::new(factory.with_options(options));
    let capabilities = factory.probe().await.expect("the executor starts");
    let options = Options { profile: Profile::All, ..Options::default() };
    conform::run(factory, scenarios, Corpus::shipped(), &options, Some(capabilities), &|_: &ScenarioResult| {})
        .await
        .expect("valid options")
}

fn failed_checks(report: &conform::Report) -> BTreeSet<String> {
    let checks = report.scenarios.iter().flat_map(|scenario| &scenario.checks);
    checks.filter(|check| check.status == Status::Fail).map(|check| check.id.clone()).collect()
}

fn only(report: &conform::Report) -> &ScenarioResult {
    assert_eq!(report.scenarios.len(), 1);
    &report.scenarios[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_postgres_cut_off_the_reference_binary_answers_internal_error_and_executes_once_when_back() {
    let Some(postgres) = Postgres::open("process_faults store outage").await else { return };
    let command = reference_command(&postgres.store_args());
    let report = conform(&command, Some(postgres.address()), scenario("internal/store_outage")).await;
    let result = only(&report);
    assert_eq!(result.status, Status::Pass, "{:?} {:?}", result.reason, failed_checks(&report));
    let transcript = result.transcript.as_ref().expect("it ran");
    assert_eq!(transcript.ledger.len(), 1, "one refund: {:?}", transcript.ledger);
    assert_eq!(transcript.calls[0].code(), Some(callproof_executor::ErrorCode::InternalError));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_that_takes_a_failing_store_for_an_empty_one_is_caught_through_the_store_proxy() {
    let Some(postgres) = Postgres::open("process_faults store outage mutant").await else { return };
    let command = reference_command(&format!("{} --mutant store-errors-ignored", postgres.store_args()));
    let report = conform(&command, Some(postgres.address()), scenario("internal/store_outage")).await;
    assert_eq!(only(&report).status, Status::Fail);
    let failed = failed_checks(&report);
    for check in ["expectations", "single-effect"] {
        assert!(failed.contains(check), "{check} not tripped: {failed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_outage_is_skipped_with_the_reason_without_the_feature_or_the_store_address() {
    let dir = TempDir::new();
    let sqlite = reference_command(&format!("--store sqlite:{}", dir.join("outage.sqlite3").display()));
    let report = conform(&sqlite, Some("127.0.0.1:5432".to_owned()), scenario("internal/store_outage")).await;
    let result = only(&report);
    assert_eq!(result.status, Status::Skip);
    assert!(result.reason.as_deref().is_some_and(|why| why.contains("does not declare store_outage")), "{result:?}");

    let Some(postgres) = Postgres::open("process_faults store outage without address").await else { return };
    let report = conform(&reference_command(&postgres.store_args()), None, scenario("internal/store_outage")).await;
    let result = only(&report);
    assert_eq!(result.status, Status::Skip);
    assert!(result.reason.as_deref().is_some_and(|why| why.contains("--store-address")), "{result:?}");
}

/// The paused call was held at least as long as the pause, so the process really was stopped; the scenario
/// passed with one refund.
fn assert_paused_and_truthful(report: &conform::Report) {
    let result = only(report);
    assert_eq!(result.status, Status::Pass, "{:?} {:?}", result.reason, failed_checks(report));
    let transcript = result.transcript.as_ref().expect("it ran");
    assert_eq!(transcript.ledger.len(), 1, "one refund: {:?}", transcript.ledger);
    let paused = &transcript.calls[0];
    assert!(paused.answered_ms - paused.started_ms >= 5500, "the process was not stopped: {paused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_binary_stopped_past_its_lease_answers_truthfully_and_refunds_once() {
    let dir = TempDir::new();
    for store in ["--store memory".to_owned(), format!("--store sqlite:{}", dir.join("pause.sqlite3").display())] {
        let report = conform(&reference_command(&store), None, scenario("idempotency/paused_past_lease")).await;
        assert_paused_and_truthful(&report);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_example_stopped_past_its_lease_answers_truthfully_and_refunds_once() {
    if !python_with_jsonschema("process_faults python pause") {
        return;
    }
    let command = format!("python3 '{}'", repo().join("examples/python/callproof_executor.py").display());
    let report = conform(&command, None, scenario("idempotency/paused_past_lease")).await;
    assert_paused_and_truthful(&report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_postgres_cut_off_after_the_commit_the_reference_binary_keeps_one_refund_and_reconciles() {
    let Some(postgres) = Postgres::open("process_faults store outage after commit").await else { return };
    let command = reference_command(&postgres.store_args());
    let report = conform(&command, Some(postgres.address()), scenario("internal/store_outage_after_commit")).await;
    let result = only(&report);
    let transcript = result.transcript.as_ref().expect("it ran");
    assert_eq!(
        result.status,
        Status::Pass,
        "{:?} {:?}\n{:#?}",
        result.reason,
        failed_checks(&report),
        transcript.calls
    );
    assert_eq!(transcript.ledger.len(), 1, "one refund: {:?}", transcript.ledger);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_that_takes_an_expired_lease_for_absence_is_caught_by_a_store_cut_off_after_the_commit() {
    let Some(postgres) = Postgres::open("process_faults lease expiry mutant").await else { return };
    let command = reference_command(&format!("{} --mutant lease-expiry-to-absent", postgres.store_args()));
    let report = conform(&command, Some(postgres.address()), scenario("internal/store_outage_after_commit")).await;
    assert_eq!(only(&report).status, Status::Fail);
    let failed = failed_checks(&report);
    assert!(failed.contains("single-effect"), "single-effect not tripped: {failed:?}");
}
