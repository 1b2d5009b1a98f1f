//! The executor: the stages in specification order, wired to their ports.
//!
//! Rule enforced here: [`Executor::execute`] reads top to bottom as the pipeline: decode → authorize →
//! claim idempotency → business rules → deadline → call the tool → validate output → record → envelope.
//! Pure stages are plain functions held in [`Stages`]; effects go through ports (clock, store, resources,
//! audit, and the tools themselves). A broken variant of the executor is a one-line swap of either.

use crate::audit::{AuditRecord, AuditSink, Decision, NoAudit, redact};
use crate::authorize::{AccessInput, OwnershipInput};
use crate::clock::{Clock, SystemClock};
use crate::deadline::Deadline;
use crate::decode::{Decoded, Limits};
use crate::envelope::{Envelope, Meta};
use crate::error::{Category, ErrorBody, ErrorCode};
use crate::idempotency::{KeyInput, NewRecord, Record, State, Update};
use crate::outcome::{Attempt, Settled};
use crate::reconcile::Plan;
use crate::registry::{Registered, Tools};
use crate::request::{Request, ToolCall};
use crate::resource::{Resource, ResourceRef, Resources};
use crate::store::{Claim, MemoryStore, Store};
use crate::tool::{Status, ToolContext};
use crate::{authorize, business, decode, idempotency, outcome, output, reconcile};
use futures::FutureExt;
use serde_json::Value;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The pure stages, as swappable function pointers. [`Stages::REFERENCE`] is the correct executor.
#[derive(Clone, Copy)]
pub struct Stages {
    /// Stage 1.
    pub decode: fn(&ToolCall, &Tools, &Limits) -> Result<Decoded, ErrorBody>,
    /// Stage 2a: identity, tool, scope, approval.
    pub check_access: fn(&AccessInput<'_>) -> Result<(), ErrorBody>,
    /// Stage 2b: resource ownership.
    pub check_ownership: fn(&OwnershipInput<'_>) -> Result<(), ErrorBody>,
    /// Stage 3: the idempotency key of the business operation.
    pub derive_key: fn(&KeyInput<'_>) -> String,
    /// Stage 3: how to resolve an UNKNOWN record.
    pub plan_reconciliation: fn(&Registered) -> Plan,
    /// Stage 6: what a tool's answer means.
    pub settle: fn(Attempt) -> Settled,
    /// Stage 7.
    pub validate_output: fn(&Registered, &Value) -> Result<(), ErrorBody>,
}

impl Stages {
    /// The reference stages.
    pub const REFERENCE: Stages = Stages {
        decode: decode::decode,
        check_access: authorize::check_access,
        check_ownership: authorize::check_ownership,
        derive_key: idempotency::derive_key,
        plan_reconciliation: reconcile::plan_reconciliation,
        settle: outcome::settle,
        validate_output: output::validate_output,
    };
}

impl Default for Stages {
    fn default() -> Stages {
        Stages::REFERENCE
    }
}

/// Tunables. The defaults are the documented behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Bounds on untrusted input.
    pub limits: Limits,
    /// The role that may act on other owners' resources in its own tenant. Default `support_admin`.
    pub support_role: Option<String>,
    /// How long an IN_PROGRESS lease outlives the attempt's deadline. Default 2 s.
    pub lease_margin: Duration,
    /// Executions one business operation may start, counting retries. Default 5.
    pub max_attempts: u32,
    /// Whether audit records carry the (redacted) arguments. Default false.
    pub audit_arguments: bool,
    /// Extra JSON pointers to redact from audited arguments, beyond fields marked `x-sensitive`.
    pub audit_redact: Vec<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            limits: Limits::default(),
            support_role: Some("support_admin".to_owned()),
            lease_margin: Duration::from_secs(2),
            max_attempts: 5,
            audit_arguments: false,
            audit_redact: Vec::new(),
        }
    }
}

/// A configuration the executor refuses to start with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `limits.max_depth` is 0 or above [`Limits::MAX_DEPTH`].
    #[error("limits.max_depth must be between 1 and {max}, got {got}", max = Limits::MAX_DEPTH)]
    MaxDepth {
        /// The configured value.
        got: usize,
    },
    /// `max_attempts` is 0.
    #[error("max_attempts must be at least 1")]
    MaxAttempts,
}

/// Builds an [`Executor`].
pub struct Builder {
    tools: Tools,
    stages: Stages,
    config: Config,
    clock: Arc<dyn Clock>,
    store: Arc<dyn Store>,
    resources: Option<Arc<dyn Resources>>,
    audit: Arc<dyn AuditSink>,
}

impl Builder {
    /// Replaces the stages (for broken variants under test).
    #[must_use]
    pub fn stages(mut self, stages: Stages) -> Builder {
        self.stages = stages;
        self
    }

    /// Sets the configuration.
    #[must_use]
    pub fn config(mut self, config: Config) -> Builder {
        self.config = config;
        self
    }

    /// Sets the clock port.
    #[must_use]
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Builder {
        self.clock = clock;
        self
    }

    /// Sets the idempotency store port (default: a fresh [`MemoryStore`]).
    #[must_use]
    pub fn store(mut self, store: Arc<dyn Store>) -> Builder {
        self.store = store;
        self
    }

    /// Sets the resource port (default: no resources exist, so every ownership check refuses).
    #[must_use]
    pub fn resources(mut self, resources: Arc<dyn Resources>) -> Builder {
        self.resources = Some(resources);
        self
    }

    /// Sets the audit port (default: discard).
    #[must_use]
    pub fn audit(mut self, audit: Arc<dyn AuditSink>) -> Builder {
        self.audit = audit;
        self
    }

    /// Builds the executor.
    ///
    /// # Errors
    /// [`ConfigError`] for a configuration outside its documented range.
    pub fn build(self) -> Result<Executor, ConfigError> {
        let depth = self.config.limits.max_depth;
        if depth == 0 || depth > Limits::MAX_DEPTH {
            return Err(ConfigError::MaxDepth { got: depth });
        }
        if self.config.max_attempts == 0 {
            return Err(ConfigError::MaxAttempts);
        }
        Ok(Executor {
            tools: self.tools,
            stages: self.stages,
            config: self.config,
            clock: self.clock,
            store: self.store,
            resources: self.resources.unwrap_or_else(|| Arc::new(crate::resource::MemoryResources::new())),
            audit: self.audit,
            ids: RequestIds::new(),
        })
    }
}

/// The reference tool executor.
pub struct Executor {
    tools: Tools,
    stages: Stages,
    config: Config,
    clock: Arc<dyn Clock>,
    store: Arc<dyn Store>,
    resources: Arc<dyn Resources>,
    audit: Arc<dyn AuditSink>,
    ids: RequestIds,
}

/// Everything one execution carries between stages.
struct Run<'r> {
    request: &'r Request,
    request_id: String,
    deadline: Deadline,
    meta: Meta,
    trail: AuditRecord,
}

/// What the claim stage decided.
enum Claimed {
    /// This attempt holds the record (IN_PROGRESS, this version) and goes on to execute.
    Execute(Record),
    /// Answer now (replay, conflict, in progress, reconciled, ...).
    Answer(Envelope),
}

/// What reconciling an UNKNOWN record decided.
enum Reconciled {
    /// The record moved (to FAILED_RETRYABLE, or someone else moved it): claim again.
    ClaimAgain,
    /// Answer now.
    Answer(Envelope),
}

/// How many times a claim re-reads a record that others keep moving before it answers "in progress".
const CLAIM_ROUNDS: usize = 4;

impl Executor {
    /// Starts building an executor over these tools.
    pub fn builder(tools: Tools) -> Builder {
        Builder {
            tools,
            stages: Stages::REFERENCE,
            config: Config::default(),
            clock: Arc::new(SystemClock),
            store: Arc::new(MemoryStore::new()),
            resources: None,
            audit: Arc::new(NoAudit),
        }
    }

    /// The registered tools.
    pub fn tools(&self) -> &Tools {
        &self.tools
    }

    /// The stages in use.
    pub fn stages(&self) -> &Stages {
        &self.stages
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The idempotency store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Executes one tool call. Never panics on untrusted input; every outcome is an envelope.
    pub async fn execute(&self, request: Request) -> Envelope {
        let decoded = (self.stages.decode)(&request.call, &self.tools, &self.config.limits);
        self.execute_decoded(&request, decoded).await
    }

    /// Executes a call whose decode stage already ran (batches decode first to plan their order).
    pub(crate) async fn execute_decoded(&self, request: &Request, decoded: Result<Decoded, ErrorBody>) -> Envelope {
        let mut run = self.start(request);
        let envelope = self.pipeline(&mut run, decoded).await;
        self.finish(run, &envelope);
        envelope
    }

    async fn pipeline(&self, run: &mut Run<'_>, decoded: Result<Decoded, ErrorBody>) -> Envelope {
        // 1. Decode.
        let decoded = match decoded {
            Ok(decoded) => decoded,
            Err(error) => return run.fail(error),
        };
        run.note_decoded(&decoded, &self.config);

        // 2. Authorize.
        let resource = match self.authorize(run, &decoded).await {
            Ok(resource) => resource,
            Err(error) => {
                // Only an authorization refusal is a decision; a lookup that failed or ran out of time made none.
                if error.category == Category::Authorization {
                    run.trail.authorization = Decision::Deny;
                }
                return run.fail(error);
            }
        };
        run.trail.authorization = Decision::Allow;

        // 3. Claim idempotency (side-effecting tools only).
        let spec = decoded.tool.spec();
        let held = if spec.risk.has_side_effect() {
            match self.claim(run, &decoded).await {
                Claimed::Execute(record) => Some(record),
                Claimed::Answer(envelope) => return envelope,
            }
        } else {
            None
        };

        // 4. Business rules.
        let settled = match business::check_business_rules(&decoded.tool, &decoded.arguments, resource.as_ref()) {
            Err(error) => Settled { state: State::FailedFinal, result: Err(error), downstream_request_id: None },
            // 5. Bound by deadline, and 6. call the tool.
            Ok(()) => self.call_tool(run, &decoded, held.as_ref()).await,
        };

        // 7. Validate output.
        let settled = self.check_output(&decoded.tool, settled);
        run.trail.downstream_request_id.clone_from(&settled.downstream_request_id);

        // 8. Record, and 9. answer.
        let envelope = run.envelope(settled.result);
        if let Some(record) = held {
            self.record(run, &record, settled.state, &envelope).await;
        }
        envelope
    }

    /// Stage 2: the access check, the resource lookup through its port, the ownership check.
    async fn authorize(&self, run: &mut Run<'_>, decoded: &Decoded) -> Result<Option<Resource>, ErrorBody> {
        let now_ms = self.clock.wall_ms();
        let auth = &run.request.auth;
        (self.stages.check_access)(&AccessInput { auth, decoded, call: &run.request.call, now_ms })?;
        let reference: Option<ResourceRef> = decoded.tool.tool.resource(&decoded.arguments);
        let resource = match &reference {
            None => None,
            Some(reference) => self.load_resource(run, reference).await?,
        };
        (self.stages.check_ownership)(&OwnershipInput {
            auth,
            reference: reference.as_ref(),
            resource: resource.as_ref(),
            decoded,
            call: &run.request.call,
            support_role: self.config.support_role.as_deref(),
        })?;
        Ok(resource)
    }

    async fn load_resource(&self, run: &Run<'_>, reference: &ResourceRef) -> Result<Option<Resource>, ErrorBody> {
        if run.deadline.is_exhausted(&*self.clock) {
            return Err(ErrorBody::new(
                ErrorCode::TimeoutNotStarted,
                "the deadline passed before access could be checked",
            )
            .with("reason", "deadline_elapsed"));
        }
        let sent = AtomicBool::new(false);
        let context = ToolContext::new(&run.request.auth, None, &run.deadline, &run.request_id, &sent);
        let load = self.resources.load(reference, &context);
        match tokio::time::timeout_at(run.deadline.instant(), load).await {
            Ok(Ok(resource)) => Ok(resource),
            Ok(Err(_)) => {
                Err(ErrorBody::new(ErrorCode::DependencyUnavailable, "the system of record could not be reached")
                    .with("reason", "resource_lookup_failed"))
            }
            Err(_) => Err(ErrorBody::new(ErrorCode::TimeoutNotStarted, "the deadline passed while checking access")
                .with("reason", "deadline_elapsed")),
        }
    }

    /// Stage 3: derive the key, then own the record or answer from it.
    async fn claim(&self, run: &mut Run<'_>, decoded: &Decoded) -> Claimed {
        let request = run.request;
        let key = (self.stages.derive_key)(&KeyInput {
            auth: &request.auth,
            tool: &decoded.tool.spec().name,
            canonical_arguments: &decoded.canonical,
            business_request_id: request.business_request_id.as_deref(),
            call_id: &request.call.call_id,
            attempt: request.attempt,
        });
        run.meta.idempotency_key = Some(key.clone());
        run.trail.idempotency_key = Some(key.clone());
        let new = NewRecord {
            key,
            fingerprint: decoded.arguments_hash.clone(),
            lease_expires_ms: self.lease_end(&run.deadline),
            deadline_ms: run.deadline.wall_ms(),
            now_ms: self.clock.wall_ms(),
        };
        for _ in 0..CLAIM_ROUNDS {
            let record = match self.store.claim(&new).await {
                Ok(Claim::Acquired) => return Claimed::Execute(new.into_record()),
                Ok(Claim::Existing(record)) => record,
                Err(_) => return Claimed::Answer(run.fail(store_failed())),
            };
            if record.fingerprint != new.fingerprint {
                return Claimed::Answer(
                    run.fail(
                        ErrorBody::new(
                            ErrorCode::IdempotencyConflict,
                            "this business request was already made with different arguments",
                        )
                        .with("reason", "arguments_changed"),
                    ),
                );
            }
            let now_ms = self.clock.wall_ms();
            match record.state {
                State::InProgress if record.lease_expires_ms > now_ms => {
                    return Claimed::Answer(run.fail(in_progress(record.lease_expires_ms.saturating_sub(now_ms))));
                }
                State::InProgress => {
                    // The holder's lease ran out: it may still have acted, so the record becomes UNKNOWN.
                    let update = Update::settle(&record, State::Unknown, record.outcome.clone(), now_ms);
                    if self.store.advance(&record.key, record.version(), update).await.is_err() {
                        return Claimed::Answer(run.fail(store_failed()));
                    }
                }
                State::Succeeded | State::FailedFinal => {
                    return Claimed::Answer(self.replay(run, &record));
                }
                State::FailedRetryable if record.attempts >= self.config.max_attempts => {
                    let error = ErrorBody::new(
                        ErrorCode::RetryBudgetExhausted,
                        "this business request failed too often; retries stop here",
                    )
                    .with("attempts", record.attempts);
                    let envelope = run.fail(error);
                    let update = Update::settle(&record, State::FailedFinal, Some(envelope.to_json()), now_ms);
                    match self.store.advance(&record.key, record.version(), update).await {
                        Ok(true) => return Claimed::Answer(envelope),
                        Ok(false) => {}
                        Err(_) => return Claimed::Answer(run.fail(store_failed())),
                    }
                }
                State::FailedRetryable => {
                    let update = Update::retake(&record, new.lease_expires_ms, new.deadline_ms, now_ms);
                    let taken = Record {
                        state: State::InProgress,
                        epoch: update.epoch,
                        attempts: update.attempts,
                        lease_expires_ms: update.lease_expires_ms,
                        deadline_ms: update.deadline_ms,
                        outcome: None,
                        updated_ms: now_ms,
                        ..record.clone()
                    };
                    match self.store.advance(&record.key, record.version(), update).await {
                        Ok(true) => return Claimed::Execute(taken),
                        Ok(false) => {}
                        Err(_) => return Claimed::Answer(run.fail(store_failed())),
                    }
                }
                State::Unknown => match self.reconcile(run, decoded, &record).await {
                    Reconciled::Answer(envelope) => return Claimed::Answer(envelope),
                    Reconciled::ClaimAgain => {}
                },
            }
        }
        Claimed::Answer(run.fail(in_progress(0)))
    }

    /// Resolves an UNKNOWN record before anything is sent again.
    async fn reconcile(&self, run: &mut Run<'_>, decoded: &Decoded, record: &Record) -> Reconciled {
        let now_ms = self.clock.wall_ms();
        match (self.stages.plan_reconciliation)(&decoded.tool) {
            Plan::Unresolvable => Reconciled::Answer(match record.outcome {
                Some(_) => self.replay(run, record),
                None => run.fail(
                    ErrorBody::new(
                        ErrorCode::TimeoutUnknown,
                        "an earlier attempt's outcome is unknown and this tool cannot be reconciled automatically",
                    )
                    .with("reason", "unreconcilable"),
                ),
            }),
            Plan::ReExecute => self.settle_unknown(run, record, State::FailedRetryable, None).await,
            Plan::QueryStatus => {
                let sent = AtomicBool::new(false);
                let auth = &run.request.auth;
                let context = ToolContext::new(auth, Some(&record.key), &run.deadline, &run.request_id, &sent);
                let query = decoded.tool.tool.status(&context, &decoded.arguments);
                let status =
                    tokio::time::timeout_at(run.deadline.instant(), AssertUnwindSafe(query).catch_unwind()).await;
                match status {
                    Ok(Ok(Ok(Status::Completed(result)))) => {
                        let settled = self.check_output(
                            &decoded.tool,
                            Settled { state: State::Succeeded, result: Ok(result), downstream_request_id: None },
                        );
                        run.meta.reconciled = true;
                        let envelope = run.envelope(settled.result);
                        self.settle_unknown(run, record, settled.state, Some(envelope)).await
                    }
                    Ok(Ok(Ok(Status::Rejected(rejection)))) => {
                        run.meta.reconciled = true;
                        let envelope = run.fail(business::rejected(&rejection));
                        self.settle_unknown(run, record, State::FailedFinal, Some(envelope)).await
                    }
                    Ok(Ok(Ok(Status::Pending))) => {
                        Reconciled::Answer(run.fail(in_progress(0).with("reason", "downstream_pending")))
                    }
                    Ok(Ok(Ok(Status::NotFound))) if record.deadline_ms > now_ms => {
                        // The earlier attempt may still arrive downstream before its deadline: wait it out.
                        Reconciled::Answer(
                            run.fail(
                                in_progress(record.deadline_ms - now_ms).with("reason", "awaiting_earlier_deadline"),
                            ),
                        )
                    }
                    Ok(Ok(Ok(Status::NotFound))) => {
                        self.settle_unknown(run, record, State::FailedRetryable, None).await
                    }
                    Ok(Ok(Err(_))) | Ok(Err(_)) | Err(_) => Reconciled::Answer(
                        run.fail(
                            ErrorBody::new(
                                ErrorCode::DependencyUnavailable,
                                "the outcome of an earlier attempt could not be checked; retry later",
                            )
                            .with("reason", "reconciliation_failed"),
                        ),
                    ),
                }
            }
        }
    }

    /// Moves an UNKNOWN record to `state`, then either answers with `answer` (the write won) or claims again
    /// (it lost: someone else resolved the record first, and their outcome is the one to answer with). With no
    /// `answer`, the caller claims again either way (the record went back to FAILED_RETRYABLE for a retake).
    async fn settle_unknown(
        &self,
        run: &mut Run<'_>,
        record: &Record,
        state: State,
        answer: Option<Envelope>,
    ) -> Reconciled {
        let outcome = answer.as_ref().map(Envelope::to_json);
        let update = Update::settle(record, state, outcome, self.clock.wall_ms());
        match (self.store.advance(&record.key, record.version(), update).await, answer) {
            (Ok(true), Some(answer)) => Reconciled::Answer(answer),
            (Ok(_), _) => Reconciled::ClaimAgain,
            (Err(_), _) => Reconciled::Answer(run.fail(store_failed())),
        }
    }

    /// Stages 5 and 6: check the deadline, then call the tool within it.
    async fn call_tool(&self, run: &Run<'_>, decoded: &Decoded, held: Option<&Record>) -> Settled {
        if run.deadline.is_exhausted(&*self.clock) {
            return (self.stages.settle)(Attempt::TimedOut { sent: false });
        }
        let sent = AtomicBool::new(false);
        let key = held.map(|record| record.key.as_str());
        let context = ToolContext::new(&run.request.auth, key, &run.deadline, &run.request_id, &sent);
        let invoke = AssertUnwindSafe(decoded.tool.tool.invoke(&context, &decoded.arguments)).catch_unwind();
        let attempt = match tokio::time::timeout_at(run.deadline.instant(), invoke).await {
            Ok(Ok(answer)) => Attempt::Finished(answer),
            Ok(Err(_panic)) => Attempt::Panicked { sent: sent.load(Ordering::Acquire) },
            Err(_elapsed) => Attempt::TimedOut { sent: sent.load(Ordering::Acquire) },
        };
        let settled = (self.stages.settle)(attempt);
        if decoded.tool.spec().risk.has_side_effect() { settled } else { outcome::for_read(settled) }
    }

    /// Stage 7 over a settled attempt: an invalid result becomes `output_invalid`, withheld, FAILED_FINAL.
    fn check_output(&self, tool: &Registered, settled: Settled) -> Settled {
        match &settled.result {
            Ok(result) => match (self.stages.validate_output)(tool, result) {
                Ok(()) => settled,
                Err(error) => Settled { state: State::FailedFinal, result: Err(error), ..settled },
            },
            Err(_) => settled,
        }
    }

    /// Stage 8: store the final state with a compare-and-set on the version this attempt holds.
    async fn record(&self, run: &mut Run<'_>, held: &Record, state: State, envelope: &Envelope) {
        let update = Update::settle(held, state, Some(envelope.to_json()), self.clock.wall_ms());
        match self.store.advance(&held.key, held.version(), update).await {
            Ok(true) => {}
            // The lease expired and the record moved on: this attempt is fenced off. Its answer is still the
            // truth about this attempt; reconciliation will establish the record's state.
            Ok(false) => run.trail.notes.push("completion_fenced".to_owned()),
            Err(_) => run.trail.notes.push("record_failed".to_owned()),
        }
    }

    fn replay(&self, run: &mut Run<'_>, record: &Record) -> Envelope {
        let stored = record.outcome.clone().and_then(|json| serde_json::from_value::<Envelope>(json).ok());
        let Some(stored) = stored else {
            return run.fail(store_failed());
        };
        run.meta.replayed = true;
        run.meta.reconciled = stored.meta.reconciled;
        run.trail.outcome = "replayed".to_owned();
        Envelope { ok: stored.ok, result: stored.result, error: stored.error, meta: run.meta.clone() }
    }

    fn lease_end(&self, deadline: &Deadline) -> u64 {
        deadline.wall_ms().saturating_add(self.config.lease_margin.as_millis() as u64)
    }

    fn start<'r>(&self, request: &'r Request) -> Run<'r> {
        let request_id = request.request_id.clone().unwrap_or_else(|| self.ids.next());
        let deadline = Deadline::after(request.budget, &*self.clock);
        let meta = Meta {
            request_id: request_id.clone(),
            call_id: request.call.call_id.clone(),
            attempt: request.attempt,
            idempotency_key: None,
            replayed: false,
            reconciled: false,
        };
        let trail = AuditRecord {
            request_id: request_id.clone(),
            trace_id: request.trace_id.clone(),
            call_id: request.call.call_id.clone(),
            tool: request.call.name.chars().take(64).collect(),
            tool_version: None,
            schema_version: None,
            tenant_id: request.auth.tenant_id.clone(),
            subject_id: request.auth.subject_id.clone(),
            idempotency_key: None,
            authorization: Decision::NotEvaluated,
            approval_id: request.auth.approval_id().map(str::to_owned),
            attempt: request.attempt,
            started_ms: self.clock.wall_ms(),
            deadline_ms: deadline.wall_ms(),
            finished_ms: 0,
            outcome: String::new(),
            error_code: None,
            downstream_request_id: None,
            arguments_hash: None,
            arguments: None,
            notes: Vec::new(),
        };
        Run { request, request_id, deadline, meta, trail }
    }

    fn finish(&self, mut run: Run<'_>, envelope: &Envelope) {
        let trail = &mut run.trail;
        trail.finished_ms = self.clock.wall_ms();
        trail.error_code = envelope.code().map(|code| code.as_str().to_owned());
        if trail.outcome.is_empty() {
            trail.outcome = if envelope.ok { "ok" } else { "error" }.to_owned();
        }
        self.audit.record(run.trail);
    }
}

impl Run<'_> {
    fn fail(&self, error: ErrorBody) -> Envelope {
        Envelope::failure(error, self.meta.clone())
    }

    fn envelope(&self, result: Result<Value, ErrorBody>) -> Envelope {
        match result {
            Ok(value) => Envelope::success(value, self.meta.clone()),
            Err(error) => self.fail(error),
        }
    }

    fn note_decoded(&mut self, decoded: &Decoded, config: &Config) {
        let spec = decoded.tool.spec();
        self.trail.tool_version = Some(spec.version.clone());
        self.trail.schema_version = Some(decoded.tool.schema_version.clone());
        self.trail.arguments_hash = Some(decoded.arguments_hash.clone());
        if config.audit_arguments {
            self.trail.arguments = Some(audited_arguments(config, decoded));
        }
    }
}

fn in_progress(retry_after_ms: u64) -> ErrorBody {
    ErrorBody::new(ErrorCode::OperationInProgress, "another attempt of this business request is still in progress")
        .with("retry_after_ms", retry_after_ms.max(100))
}

fn store_failed() -> ErrorBody {
    ErrorBody::new(ErrorCode::InternalError, "the idempotency store failed").with("reason", "store_failed")
}

/// Request ids unique within a process and unlikely to repeat across processes.
struct RequestIds {
    prefix: u64,
    next: AtomicU64,
}

impl RequestIds {
    fn new() -> RequestIds {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as u64);
        RequestIds { prefix: nanos ^ u64::from(std::process::id()).rotate_left(32), next: AtomicU64::new(1) }
    }

    fn next(&self) -> String {
        format!("req_{:012x}{:06x}", self.prefix & 0xffff_ffff_ffff, self.next.fetch_add(1, Ordering::Relaxed))
    }
}

/// Audit arguments with sensitive and configured fields redacted (used when `audit_arguments` is on).
fn audited_arguments(config: &Config, decoded: &Decoded) -> Value {
    let mut value = decoded.arguments.clone();
    let mut paths = decoded.tool.input.sensitive_paths();
    paths.extend(config.audit_redact.iter().cloned());
    redact(&mut value, &paths);
    value
}
