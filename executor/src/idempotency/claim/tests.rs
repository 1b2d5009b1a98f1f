//! The claim protocol state by state, against a memory store, a settable wall clock and a tool whose status
//! query answers from a script.

use super::*;
use crate::auth::AuthContext;
use crate::decode::{self, Limits};
use crate::envelope::Meta;
use crate::idempotency::Version;
use crate::registry::Tools;
use crate::request::{Request, ToolCall};
use crate::store::{Forward, MemoryStore, StoreError};
use crate::tool::{Failure, Output, Rejection, Risk, StatusQuery, Tool, ToolContext, ToolFailure, ToolSpec};
use crate::{outcome, reconcile};
use async_trait::async_trait;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::time::Instant;

/// The key every call of these tests gets.
fn the_key() -> Sha256Hex {
    Sha256Hex::of(b"k_1")
}
const NOW: u64 = 1_000_000;

/// Wall time the test sets; monotonic time is tokio's.
struct Wall(AtomicU64);

impl Clock for Wall {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn wall_ms(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A tool whose status query answers from a script (and fails once the script is empty).
struct Scripted {
    spec: ToolSpec,
    statuses: Mutex<Vec<Result<Status, ToolFailure>>>,
}

#[async_trait]
impl Tool for Scripted {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn invoke(&self, _ctx: &ToolContext<'_>, _arguments: &Value) -> Result<Output, ToolFailure> {
        Err(Failure::NotSent.into())
    }

    fn status_query(&self) -> Option<&dyn StatusQuery> {
        Some(self)
    }
}

#[async_trait]
impl StatusQuery for Scripted {
    async fn status(&self, _ctx: &ToolContext<'_>, _arguments: &Value) -> Result<Status, ToolFailure> {
        let mut statuses = self.statuses.lock().unwrap_or_else(PoisonError::into_inner);
        if statuses.is_empty() { Err(Failure::Unavailable.into()) } else { statuses.remove(0) }
    }
}

/// One business operation of the scripted tool, its record, and the protocol's policies.
struct Fixture {
    store: Arc<dyn Store>,
    clock: Wall,
    tool: Arc<Scripted>,
    decoded: Decoded<'static>,
    request: Request,
    plan: fn(&Registered) -> Plan,
    max_attempts: u32,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::over(Arc::new(MemoryStore::new()))
    }

    fn over(store: Arc<dyn Store>) -> Fixture {
        let spec = ToolSpec {
            name: "pay".to_owned(),
            version: "1".to_owned(),
            description: "pays".to_owned(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            output_schema: json!({"type": "object", "required": ["paid"]}),
            risk: Risk::Financial,
            required_scopes: Vec::new(),
            requires_approval: false,
            repeatable: false,
        };
        let tool = Arc::new(Scripted { spec, statuses: Mutex::new(Vec::new()) });
        let mut tools = Tools::new();
        tools.register(tool.clone()).expect("the tool registers");
        let call = ToolCall::value("call_1", "pay", json!({"n": 1}));
        // A decoded call borrows its registry; the fixture's lives as long as the test process.
        let tools: &'static Tools = Box::leak(Box::new(tools));
        let decoded = decode::decode(&call, tools, &Limits::default()).expect("the call decodes");
        let request = Request::new(call, AuthContext::new("u_1", "t_1", &[]));
        Fixture {
            store,
            clock: Wall(AtomicU64::new(NOW)),
            tool,
            decoded,
            request,
            plan: reconcile::plan_reconciliation,
            max_attempts: 5,
        }
    }

    fn protocol(&self) -> Protocol<'_> {
        Protocol {
            store: &*self.store,
            clock: &self.clock,
            derive_key: |_| the_key(),
            plan: self.plan,
            replay: super::replayed,
            validate_output: output::validate_output,
            max_attempts: self.max_attempts,
            lease_margin: Duration::from_secs(2),
        }
    }

    fn script(&self, statuses: Vec<Result<Status, ToolFailure>>) {
        *self.tool.statuses.lock().unwrap_or_else(PoisonError::into_inner) = statuses;
    }

    /// Claims once; the decision, the meta it answered with and the audit notes.
    async fn claim(&self) -> (Claimed, Meta, Vec<AuditNote>) {
        let mut run = Run::start(&self.request, "req_1".to_owned(), &self.clock);
        let claimed = self.protocol().claim(&mut run, &self.decoded).await;
        (claimed, run.meta, run.trail.notes)
    }

    async fn record(&self) -> Record {
        self.store.load(&the_key()).await.expect("the store answers").expect("a record")
    }

    /// A record of this operation in `state`, after `attempts` attempts, storing `outcome`, whose last attempt's
    /// lease ended at `lease_expires_ms` and deadline at `deadline_ms`.
    async fn seed(&self, state: State, attempts: u32, outcome: Option<Value>, lease_expires_ms: u64, deadline_ms: u64) {
        let new = NewRecord {
            key: the_key().into(),
            fingerprint: self.decoded.arguments_hash.into(),
            lease_expires_ms,
            deadline_ms,
            now_ms: NOW - 10_000,
        };
        assert_eq!(self.store.claim(&new).await.expect("claim"), Claim::Acquired);
        let mut record = new.into_record();
        for _ in 1..attempts {
            let failed = Update::settle(&record, State::FailedRetryable, None, NOW - 9_000);
            self.moved(&mut record, failed).await;
            let retake = Update::retake(&record, lease_expires_ms, deadline_ms, NOW - 9_000);
            self.moved(&mut record, retake).await;
        }
        if state != State::InProgress {
            let settled = Update::settle(&record, state, outcome, NOW - 8_000);
            self.moved(&mut record, settled).await;
        }
    }

    async fn moved(&self, record: &mut Record, update: Update) {
        assert!(self.store.advance(&the_key(), record.version(), update.clone()).await.expect("advance"));
        update.apply_to(record);
    }
}

fn answer(claimed: Claimed) -> Envelope {
    match claimed {
        Claimed::Answer(envelope) => envelope,
        Claimed::Execute(record) => panic!("expected an answer, the attempt may execute: {record:?}"),
    }
}

fn held(claimed: Claimed) -> Record {
    match claimed {
        Claimed::Execute(record) => record,
        Claimed::Answer(envelope) => panic!("expected to execute, got {:#}", envelope.to_json()),
    }
}

fn code(envelope: &Envelope) -> &'static str {
    envelope.code().map_or("ok", ErrorCode::as_str)
}

fn stored(ok: bool) -> Value {
    let meta = Meta {
        request_id: "req_0".into(),
        call_id: "call_0".into(),
        attempt: 1,
        idempotency_key: Some(the_key().into()),
        replayed: false,
        reconciled: false,
    };
    let envelope = if ok {
        Envelope::success(json!({"paid": true}), meta)
    } else {
        Envelope::failure(ErrorBody::new(ErrorCode::BusinessRejected, "no").with("reason", "closed"), meta)
    };
    envelope.to_json()
}

#[tokio::test]
async fn an_absent_key_is_acquired_in_progress_at_epoch_one() {
    let fixture = Fixture::new();
    let (claimed, meta, _) = fixture.claim().await;
    let record = held(claimed);
    assert_eq!((record.state, record.epoch, record.attempts), (State::InProgress, 1, 1));
    assert_eq!(record.lease_expires_ms, NOW + 10_000 + 2_000, "deadline plus the lease margin");
    assert_eq!(fixture.record().await, record);
    assert_eq!(meta.idempotency_key.as_deref(), Some(the_key().as_str()));
}

#[tokio::test]
async fn a_live_lease_answers_in_progress_until_it_ends() {
    let fixture = Fixture::new();
    fixture.seed(State::InProgress, 1, None, NOW + 1_500, NOW + 1_000).await;
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "operation_in_progress");
    assert_eq!(envelope.error.as_ref().expect("error").details()["retry_after_ms"], 1_500);
    assert_eq!(fixture.record().await.state, State::InProgress);
}

#[tokio::test]
async fn an_expired_lease_becomes_unknown_and_is_reconciled_never_reacquired() {
    let fixture = Fixture::new();
    fixture.seed(State::InProgress, 1, None, NOW - 1, NOW - 2_001).await;
    fixture.script(vec![Ok(Status::Completed(json!({"paid": true})))]);
    let (claimed, meta, _) = fixture.claim().await;
    let envelope = answer(claimed);
    assert!(envelope.ok && meta.reconciled, "{:#}", envelope.to_json());
    let record = fixture.record().await;
    assert_eq!((record.state, record.epoch), (State::Succeeded, 1));
}

#[tokio::test]
async fn a_settled_record_replays_its_stored_answer() {
    for (state, ok) in [(State::Succeeded, true), (State::FailedFinal, false)] {
        let fixture = Fixture::new();
        fixture.seed(state, 1, Some(stored(ok)), NOW - 1, NOW - 1).await;
        let (claimed, meta, _) = fixture.claim().await;
        let envelope = answer(claimed);
        assert_eq!(envelope.ok, ok);
        assert!(envelope.meta.replayed && meta.replayed);
        assert_eq!(envelope.meta.request_id, "req_1", "the replay carries this call's meta");
        assert_eq!(fixture.record().await.state, state, "a replay changes nothing");
    }
}

#[test]
fn the_replay_stage_keeps_the_stored_answer_under_this_calls_ids() {
    let mut stored: Envelope = serde_json::from_value(stored(true)).expect("an envelope");
    let this = Meta { request_id: "req_9".into(), call_id: "call_9".into(), attempt: 3, ..stored.meta.clone() };
    stored.meta.reconciled = true;
    let replayed = replayed(stored.clone(), &this);
    assert_eq!((replayed.ok, &replayed.result), (stored.ok, &stored.result));
    assert_eq!(replayed.meta, Meta { replayed: true, reconciled: true, ..this });
}

#[tokio::test]
async fn a_settled_record_without_a_readable_answer_is_a_store_failure_with_its_cause() {
    let fixture = Fixture::new();
    fixture.seed(State::Succeeded, 1, Some(json!({"not": "an envelope"})), NOW - 1, NOW - 1).await;
    let (claimed, _, notes) = fixture.claim().await;
    assert_eq!(answer(claimed).error.expect("error").details()["reason"], "store_failed");
    assert!(
        matches!(&notes[..], [AuditNote::StoreFailed { step: StoreStep::Claim, cause }] if cause.contains("unreadable")),
        "{notes:?}"
    );
}

#[tokio::test]
async fn a_retryable_failure_is_retaken_at_the_next_epoch() {
    let fixture = Fixture::new();
    fixture.seed(State::FailedRetryable, 2, None, NOW - 1, NOW - 1).await;
    let record = held(fixture.claim().await.0);
    assert_eq!((record.state, record.epoch, record.attempts), (State::InProgress, 3, 3));
    assert_eq!(record.outcome, None);
    assert_eq!(record.updated_ms, NOW);
    assert_eq!(fixture.record().await, record, "what the attempt holds is what the store has");
}

#[tokio::test]
async fn a_retryable_failure_past_the_budget_answers_retry_budget_exhausted_for_good() {
    let mut fixture = Fixture::new();
    fixture.max_attempts = 2;
    fixture.seed(State::FailedRetryable, 2, None, NOW - 1, NOW - 1).await;
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "retry_budget_exhausted");
    assert_eq!(envelope.error.as_ref().expect("error").details()["attempts"], 2);
    let record = fixture.record().await;
    assert_eq!(record.state, State::FailedFinal);
    assert_eq!(record.outcome, Some(envelope.to_json()), "later attempts replay this answer");
}

#[tokio::test]
async fn an_unknown_outcome_nothing_can_resolve_answers_timeout_unknown_or_replays_it() {
    let mut fixture = Fixture::new();
    fixture.plan = |_| Plan::Unresolvable;
    fixture.seed(State::Unknown, 1, None, NOW - 1, NOW - 1).await;
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "timeout_unknown");
    assert_eq!(envelope.error.as_ref().expect("error").details()["reason"], "unreconcilable");

    let mut fixture = Fixture::new();
    fixture.plan = |_| Plan::Unresolvable;
    fixture.seed(State::Unknown, 1, Some(stored(false)), NOW - 1, NOW - 1).await;
    let envelope = answer(fixture.claim().await.0);
    assert!(envelope.meta.replayed);
    assert_eq!(fixture.record().await.state, State::Unknown, "only a person settles it");
}

#[tokio::test]
async fn an_unknown_outcome_of_a_repeatable_request_is_executed_again_at_the_next_epoch() {
    let mut fixture = Fixture::new();
    fixture.plan = |_| Plan::ReExecute;
    fixture.seed(State::Unknown, 1, None, NOW - 1, NOW - 1).await;
    let record = held(fixture.claim().await.0);
    assert_eq!((record.state, record.epoch, record.attempts), (State::InProgress, 2, 2));
}

#[tokio::test]
async fn an_unknown_outcome_is_settled_by_what_the_status_query_says() {
    let rejected = Status::Rejected(Rejection { reason: "closed".into(), field: None });
    let cases = [
        (Ok(Status::Completed(json!({"paid": true}))), "ok", State::Succeeded),
        (Ok(Status::Completed(json!({"wrong": 1}))), "output_invalid", State::FailedFinal),
        (Ok(rejected), "business_rejected", State::FailedFinal),
        (Ok(Status::Pending), "operation_in_progress", State::Unknown),
        (
            Err(ToolFailure { status: Some(503), ..Failure::Unavailable.into() }),
            "dependency_unavailable",
            State::Unknown,
        ),
    ];
    for (status, expected, state) in cases {
        let fixture = Fixture::new();
        fixture.seed(State::Unknown, 1, None, NOW - 1, NOW - 1).await;
        fixture.script(vec![status]);
        let (claimed, meta, notes) = fixture.claim().await;
        let envelope = answer(claimed);
        assert_eq!(code(&envelope), expected, "{:#}", envelope.to_json());
        assert_eq!(fixture.record().await.state, state, "{expected}");
        let settled = state != State::Unknown;
        assert_eq!(meta.reconciled, settled, "{expected}");
        if settled {
            assert_eq!(fixture.record().await.outcome, Some(envelope.to_json()), "{expected}");
        }
        if expected == "dependency_unavailable" {
            let cause = Cause::Failed { failure: "unavailable".into(), downstream_status: Some(503) };
            assert_eq!(notes, vec![AuditNote::ReconciliationFailed { cause }]);
        }
    }
}

#[tokio::test]
async fn a_status_query_that_finds_nothing_waits_out_the_earlier_deadline_then_executes_again() {
    let fixture = Fixture::new();
    fixture.seed(State::Unknown, 1, None, NOW + 2_500, NOW + 500).await;
    fixture.script(vec![Ok(Status::NotFound)]);
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "operation_in_progress");
    let details = &envelope.error.as_ref().expect("error").details();
    assert_eq!(
        (details["reason"].as_str(), details["retry_after_ms"].as_u64()),
        (Some("awaiting_earlier_deadline"), Some(500))
    );

    fixture.clock.0.store(NOW + 501, Ordering::Relaxed);
    fixture.script(vec![Ok(Status::NotFound)]);
    let record = held(fixture.claim().await.0);
    assert_eq!((record.state, record.epoch), (State::InProgress, 2));
}

/// A store where a rival retakes a FAILED_RETRYABLE record just before this attempt's compare-and-set.
struct RivalRetakesFirst(MemoryStore);

#[async_trait]
impl Forward for RivalRetakesFirst {
    fn inner(&self) -> &dyn Store {
        &self.0
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        if expected.state == State::FailedRetryable && update.state == State::InProgress {
            let record = self.0.load(key).await?.expect("the record exists");
            let rival = Update::retake(&record, NOW + 60_000, NOW + 50_000, update.now_ms);
            assert!(self.0.compare_and_set(key, expected, rival).await?);
        }
        self.0.compare_and_set(key, expected, update).await
    }
}

#[tokio::test]
async fn a_lost_compare_and_set_reads_the_record_again() {
    let fixture = Fixture::over(Arc::new(RivalRetakesFirst(MemoryStore::new())));
    fixture.seed(State::FailedRetryable, 1, None, NOW - 1, NOW - 1).await;
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "operation_in_progress", "the rival's live lease, read again");
    assert_eq!(fixture.record().await.epoch, 2, "only the rival took it");
}

/// A store that is down.
struct Down(MemoryStore);

impl Forward for Down {
    fn inner(&self) -> &dyn Store {
        &self.0
    }

    fn before(&self) -> Result<(), StoreError> {
        Err(StoreError::Backend("connection refused by db-7.internal".to_owned()))
    }
}

#[tokio::test]
async fn a_store_failure_answers_internal_error_and_keeps_its_cause_for_the_audit_record() {
    let fixture = Fixture::over(Arc::new(Down(MemoryStore::new())));
    let (claimed, _, notes) = fixture.claim().await;
    let envelope = answer(claimed);
    assert_eq!(code(&envelope), "internal_error");
    assert!(!envelope.to_json().to_string().contains("db-7"), "the cause never reaches the envelope");
    let [AuditNote::StoreFailed { step: StoreStep::Claim, cause }] = &notes[..] else { panic!("{notes:?}") };
    assert!(cause.contains("db-7.internal"), "{cause}");
}

#[tokio::test]
async fn changed_arguments_conflict_with_the_stored_fingerprint() {
    let fixture = Fixture::new();
    let new = NewRecord {
        key: the_key().into(),
        fingerprint: "other".into(),
        lease_expires_ms: 0,
        deadline_ms: 0,
        now_ms: 0,
    };
    fixture.store.claim(&new).await.expect("claim");
    let envelope = answer(fixture.claim().await.0);
    assert_eq!(code(&envelope), "idempotency_conflict");
}

#[tokio::test]
async fn recording_over_a_record_that_moved_on_is_fenced_and_noted() {
    let fixture = Fixture::new();
    let record = held(fixture.claim().await.0);
    let mut run = Run::start(&fixture.request, "req_1".to_owned(), &fixture.clock);
    let settled = outcome::settle(outcome::Attempt::TimedOut { sent: true });
    let envelope = run.envelope(settled.result);
    fixture.protocol().record(&mut run, &record, State::Unknown, &envelope).await;
    assert!(run.trail.notes.is_empty());
    assert_eq!(fixture.record().await.state, State::Unknown);

    fixture.protocol().record(&mut run, &record, State::Succeeded, &envelope).await;
    assert_eq!(run.trail.notes, vec![AuditNote::CompletionFenced]);
    assert_eq!(fixture.record().await.state, State::Unknown, "the stale epoch could not settle it");
}
