//! Crash faults through real processes (issue 6): SIGKILL the executor binary (a) after its claim reached the
//! downstream, before anything committed; (b) after the downstream committed, before the executor recorded;
//! (c) after it recorded, before its answer reached the caller. Restart it, retry the same business request:
//! exactly one committed effect, and the retry returns the real outcome. With SQLite and with PostgreSQL; with
//! the in-memory store the same scenarios are expected to fail, and the report says why. Finally two executor
//! processes sharing PostgreSQL race one business request: exactly one effect. A task (issue 15) keeps its
//! handle and its final result across two kills, with SQLite and with PostgreSQL.
//! The three crash points repeat `CALLPROOF_SOAK` rounds when it is set (docs/stores.md, Soak mode).

mod process_support;
#[path = "../../executor/tests/soak/mod.rs"]
mod soak;

use async_trait::async_trait;
use callproof_harness::conform::{self, Options, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::process::ProcessFactory;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::{Subject, SubjectCall, SubjectError, SubjectFactory, Support};
use process_support::{Postgres, TempDir, fixture, reference_command, repo};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const CRASHES: [&str; 3] = ["after_claim", "after_commit", "before_answer"];

fn crash_scenarios() -> Vec<Scenario> {
    let paths = vec![
        repo().join("scenarios/idempotency/crash_after_claim.toml"),
        repo().join("scenarios/idempotency/crash_after_commit.toml"),
        fixture("scenarios/crash/crash_before_answer.toml"),
    ];
    Scenario::discover(&paths).expect("the crash scenarios load")
}

async fn conform_with(factory: Arc<dyn SubjectFactory>, scenarios: Vec<Scenario>) -> conform::Report {
    conform::run(factory, scenarios, Corpus::shipped(), &Options::default(), None, &|_: &ScenarioResult| {})
        .await
        .expect("valid options")
}

/// Every crash scenario passed, committed exactly one refund, and its last call got the real outcome.
fn assert_crash_safe(report: &conform::Report, round: usize) {
    assert_eq!(report.scenarios.len(), CRASHES.len());
    for scenario in &report.scenarios {
        let failed: Vec<String> = scenario
            .checks
            .iter()
            .filter(|check| check.status != Status::Pass && check.status != Status::Skip)
            .map(|check| format!("{} {:?}: {:?}", check.id, check.status, check.violations))
            .collect();
        assert_eq!(scenario.status, Status::Pass, "round {round}, {}: {:?} {failed:#?}", scenario.id, scenario.reason);
        let transcript = scenario.transcript.as_ref().expect("it ran");
        assert_eq!(
            transcript.ledger.len(),
            1,
            "round {round}, {}: exactly one refund: {:?}",
            scenario.id,
            transcript.ledger
        );
        let last = transcript.calls.last().expect("calls").envelope().expect("the retry answered");
        assert!(last.ok(), "round {round}, {}: {last}", scenario.id);
        let committed: &Value = last.result().map_or(&Value::Null, |result| &result["refund_id"]);
        assert_eq!(
            committed.as_str(),
            Some(transcript.ledger[0].effect_id.as_str()),
            "round {round}, {}: the real refund",
            scenario.id
        );
        assert!(
            transcript.calls.iter().any(|call| call.answer == callproof_harness::transcript::Answer::Killed),
            "round {round}, {}: the executor was killed",
            scenario.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_sqlite_a_killed_executor_restarts_and_the_retry_returns_the_one_real_refund() {
    let mut soak = soak::Soak::start("a killed executor restarts: the three crash points", "SQLite");
    for round in 0..soak::rounds(1) {
        let dir = TempDir::new();
        let command = reference_command(&format!("--store sqlite:{}", dir.join("crash.sqlite3").display()));
        let report = conform_with(Arc::new(ProcessFactory::new(&command).expect("command")), crash_scenarios()).await;
        assert_crash_safe(&report, round);
        soak.passed();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_postgres_a_killed_executor_restarts_and_the_retry_returns_the_one_real_refund() {
    let mut soak = soak::Soak::start("a killed executor restarts: the three crash points", "Postgres");
    for round in 0..soak::rounds(1) {
        let Some(postgres) = Postgres::open("crash_durable postgres").await else { return };
        let command = reference_command(&postgres.store_args());
        let report = conform_with(Arc::new(ProcessFactory::new(&command).expect("command")), crash_scenarios()).await;
        assert_crash_safe(&report, round);
        soak.passed();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_memory_store_crashes_are_expected_failures_and_the_report_says_why() {
    let factory = Arc::new(ProcessFactory::new(&reference_command("--store memory")).expect("command"));
    let capabilities = factory.probe().await.expect("starts");
    assert!(!capabilities.has("durable_store"));
    let report = conform_with(factory, crash_scenarios()).await;
    assert!(report.passed(), "expected failures do not fail the run: {}", report.verdict.message);
    for id in ["idempotency/crash_after_commit", "crash/crash_before_answer"] {
        let scenario = report.scenarios.iter().find(|scenario| scenario.id == id).expect(id);
        assert_eq!(scenario.status, Status::ExpectedFail, "{id}");
        assert!(scenario.reason.as_deref().unwrap_or_default().contains("does not survive a restart"), "{id}");
        let transcript = scenario.transcript.as_ref().expect("it ran");
        assert_eq!(transcript.ledger.len(), 2, "{id}: the lost record let the retry refund again");
    }
}

/// Two executor processes in one session (replicas over one store); calls alternate between them.
struct Replicas {
    inner: ProcessFactory,
}

struct RoundRobin {
    replicas: Vec<Arc<dyn Subject>>,
    next: AtomicUsize,
}

#[async_trait]
impl SubjectFactory for Replicas {
    fn name(&self) -> String {
        format!("2 × {}", self.inner.name())
    }

    async fn support(&self, scenario: &Scenario) -> Support {
        self.inner.support(scenario).await
    }

    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        let session = self.inner.new_session();
        let first = self.inner.start_session(downstream_url, &session).await?;
        let second = self.inner.start_session(downstream_url, &session).await?;
        Ok(Arc::new(RoundRobin { replicas: vec![first, second], next: AtomicUsize::new(0) }))
    }
}

#[async_trait]
impl Subject for RoundRobin {
    async fn execute(&self, call: SubjectCall) -> Result<Value, SubjectError> {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.replicas.len();
        self.replicas[index].execute(call).await
    }

    async fn stop(&self) {
        for replica in &self.replicas {
            replica.stop().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_executor_processes_sharing_postgres_race_one_business_request_into_one_refund() {
    let Some(postgres) = Postgres::open("crash_durable replicas race").await else { return };
    let command = reference_command(&postgres.store_args());
    let factory = Arc::new(Replicas { inner: ProcessFactory::new(&command).expect("command") });
    let scenarios =
        Scenario::discover(&[repo().join("scenarios/idempotency/burst_of_identical_calls.toml")]).expect("loads");
    let report = conform_with(factory, scenarios).await;
    let scenario = &report.scenarios[0];
    assert_eq!(scenario.status, Status::Pass, "{:?} {:#?}", scenario.reason, scenario.checks);
    let transcript = scenario.transcript.as_ref().expect("it ran");
    assert_eq!(transcript.ledger.len(), 1, "one refund: {:?}", transcript.ledger);
    let prefixes: std::collections::BTreeSet<String> =
        transcript.calls.iter().filter_map(|call| call.request_id().map(|id| id[..id.len() - 6].to_owned())).collect();
    assert_eq!(prefixes.len(), 2, "both processes answered calls: {prefixes:?}");
}

/// The task scenario with two kills: the handle and the kept final result survive both restarts.
fn assert_task_survives(report: &conform::Report) {
    let scenario = &report.scenarios[0];
    assert_eq!(scenario.status, Status::Pass, "{:?}", scenario.checks);
    let transcript = scenario.transcript.as_ref().expect("it ran");
    assert_eq!(transcript.ledger.len(), 1, "one export job: {:?}", transcript.ledger);
    let finals: Vec<&Value> = transcript
        .calls
        .iter()
        .filter(|call| call.tool == "task_status")
        .filter_map(|call| call.envelope()?.result())
        .collect();
    assert_eq!(finals.len(), 2, "the poll before and the poll after the second kill answered");
    assert_eq!(finals[0], finals[1], "the same final result across the restart");
}

async fn conform_task_crash(store_args: &str) -> conform::Report {
    let command = reference_command(store_args);
    let scenarios = Scenario::discover(&[repo().join("scenarios/tasks/poll_after_crash.toml")]).expect("loads");
    conform_with(Arc::new(ProcessFactory::new(&command).expect("command")), scenarios).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_sqlite_a_task_keeps_its_handle_and_its_final_result_across_crashes() {
    let dir = TempDir::new();
    let report = conform_task_crash(&format!("--store sqlite:{}", dir.join("tasks.sqlite3").display())).await;
    assert_task_survives(&report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_postgres_a_task_keeps_its_handle_and_its_final_result_across_crashes() {
    let Some(postgres) = Postgres::open("crash_durable tasks postgres").await else { return };
    assert_task_survives(&conform_task_crash(&postgres.store_args()).await);
}
