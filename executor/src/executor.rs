//! The executor: the stages in specification order, wired to their ports.
//!
//! Rule enforced here: [`Executor::execute`] reads top to bottom as the pipeline: decode → authorize →
//! claim idempotency → business rules → deadline → call the tool → validate output → record → envelope.
//! Pure stages are plain functions held in [`Stages`]; effects go through ports (clock, store, resources,
//! audit, and the tools themselves). A broken variant of the executor is a one-line swap of either.

use crate::audit::{AuditNote, AuditSink, Cause, Decision, NoAudit};
use crate::authorize::{AccessInput, OwnershipInput};
use crate::canonical::Sha256Hex;
use crate::clock::{Clock, SystemClock};
use crate::deadline::{self, Elapsed};
use crate::decode::{Decoded, Limits};
use crate::envelope::{Envelope, Meta};
use crate::error::{Category, ErrorBody, ErrorCode};
use crate::idempotency::claim::{Claimed, Protocol};
use crate::idempotency::{KeyInput, Record, State};
use crate::outcome::{Attempt, Settled};
use crate::reconcile::Plan;
use crate::registry::{Registered, Tools};
use crate::request::{Request, ToolCall};
use crate::resource::{Resource, ResourceRef, Resources};
use crate::run::Run;
use crate::store::{MemoryStore, Store};
use crate::task::{self, TaskRole};
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
    pub decode: for<'t> fn(&ToolCall, &'t Tools, &Limits) -> Result<Decoded<'t>, ErrorBody>,
    /// Stage 2a: identity, tool, scope, approval.
    pub check_access: fn(&AccessInput<'_>) -> Result<(), ErrorBody>,
    /// Stage 2b: resource ownership.
    pub check_ownership: fn(&OwnershipInput<'_>) -> Result<(), ErrorBody>,
    /// Stage 3: the idempotency key of the business operation.
    pub derive_key: fn(&KeyInput<'_>) -> Sha256Hex,
    /// Stage 3: how to resolve an UNKNOWN record.
    pub plan_reconciliation: fn(&Registered) -> Plan,
    /// Stage 3: a settled record's stored answer as this call's answer, under this call's meta.
    pub replay: fn(Envelope, &Meta) -> Envelope,
    /// Stage 6: what a tool's answer means.
    pub settle: fn(Attempt) -> Settled,
    /// Stage 7.
    pub validate_output: fn(&Registered, &Value) -> Result<(), ErrorBody>,
    /// Stage 8 of a task poll: whether its (valid) answer is final, to be recorded once and answered ever after.
    pub task_final: fn(&Value) -> bool,
}

impl Stages {
    /// The reference stages.
    pub const REFERENCE: Stages = Stages {
        decode: decode::decode,
        check_access: authorize::check_access,
        check_ownership: authorize::check_ownership,
        derive_key: idempotency::derive_key,
        plan_reconciliation: reconcile::plan_reconciliation,
        replay: idempotency::replayed,
        settle: outcome::settle,
        validate_output: output::validate_output,
        task_final: task::is_final,
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
    pub(crate) async fn execute_decoded(&self, request: &Request, decoded: Result<Decoded<'_>, ErrorBody>) -> Envelope {
        let request_id = request.request_id.clone().unwrap_or_else(|| self.ids.next());
        let mut run = Run::start(request, request_id, &*self.clock);
        let envelope = self.pipeline(&mut run, decoded).await;
        self.audit.record(run.finish(&envelope, &*self.clock));
        envelope
    }

    async fn pipeline(&self, run: &mut Run<'_>, decoded: Result<Decoded<'_>, ErrorBody>) -> Envelope {
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
                if error.category() == Category::Authorization {
                    run.trail.authorization = Decision::Deny;
                }
                return run.fail(error);
            }
        };
        run.trail.authorization = Decision::Allow;

        // 3. Claim idempotency (side-effecting tools only). A task poll claims nothing; once its task is final,
        // it answers the recorded final answer.
        let task_key = self.task_final_key(run, &decoded);
        if let Some(key) = &task_key
            && let Some(recorded) = task::recall(&*self.store, key).await
        {
            return run.envelope(Ok(recorded));
        }
        let spec = decoded.tool.spec();
        let held = if spec.risk.has_side_effect() {
            match self.protocol().claim(run, &decoded).await {
                Claimed::Execute(record) => Some(record),
                Claimed::Answer(envelope) => return envelope,
            }
        } else {
            None
        };

        // 4. Business rules.
        let settled = match business::check_business_rules(decoded.tool, &decoded.arguments, resource.as_ref()) {
            Err(error) => Settled { state: State::FailedFinal, result: Err(error), downstream_request_id: None },
            // 5. Bound by deadline, and 6. call the tool.
            Ok(()) => self.call_tool(run, &decoded, held.as_ref()).await,
        };

        // 7. Validate output.
        let mut settled = output::check_settled(self.stages.validate_output, decoded.tool, settled);
        run.trail.downstream_request_id.clone_from(&settled.downstream_request_id);
        if let (Some(key), Ok(answer)) = (&task_key, &settled.result)
            && (self.stages.task_final)(answer)
            && let Some(recorded) = task::remember(&*self.store, &*self.clock, key, answer).await
        {
            settled.result = Ok(recorded);
        }

        // 8. Record, and 9. answer.
        let envelope = run.envelope(settled.result);
        if let Some(record) = held {
            self.protocol().record(run, &record, settled.state, &envelope).await;
        }
        envelope
    }

    /// Stage 2: the access check, the resource lookup through its port, the ownership check.
    async fn authorize(&self, run: &mut Run<'_>, decoded: &Decoded<'_>) -> Result<Option<Resource>, ErrorBody> {
        let now_ms = self.clock.wall_ms();
        let request = run.request;
        let auth = &request.auth;
        (self.stages.check_access)(&AccessInput { auth, decoded, call: &request.call, now_ms })?;
        let reference: Option<ResourceRef> = decoded.tool.implementation.resource(&decoded.arguments);
        let resource = match &reference {
            None => None,
            Some(reference) => self.load_resource(run, reference).await?,
        };
        (self.stages.check_ownership)(&OwnershipInput {
            auth,
            reference: reference.as_ref(),
            resource: resource.as_ref(),
            decoded,
            call: &request.call,
            support_role: self.config.support_role.as_deref(),
        })?;
        Ok(resource)
    }

    async fn load_resource(&self, run: &mut Run<'_>, reference: &ResourceRef) -> Result<Option<Resource>, ErrorBody> {
        let sent = AtomicBool::new(false);
        let context = run.context(None, &sent);
        let message =
            match deadline::bounded(&run.deadline, &*self.clock, self.resources.load(reference, &context)).await {
                Ok(Ok(resource)) => return Ok(resource),
                Ok(Err(failure)) => {
                    run.note(AuditNote::ResourceLookupFailed { cause: Cause::of(&failure) });
                    return Err(ErrorBody::new(
                        ErrorCode::DependencyUnavailable,
                        "the system of record could not be reached",
                    )
                    .with("reason", "resource_lookup_failed"));
                }
                Err(Elapsed::BeforeStart) => "the deadline passed before access could be checked",
                Err(Elapsed::WhileRunning) => "the deadline passed while checking access",
            };
        Err(ErrorBody::new(ErrorCode::TimeoutNotStarted, message).with("reason", "deadline_elapsed"))
    }

    /// Stages 5 and 6: call the tool within the deadline (not at all once it has passed).
    async fn call_tool(&self, run: &mut Run<'_>, decoded: &Decoded<'_>, held: Option<&Record>) -> Settled {
        let sent = AtomicBool::new(false);
        let context = run.context(held.map(|record| &*record.key), &sent);
        let invoke = AssertUnwindSafe(decoded.tool.implementation.invoke(&context, &decoded.arguments)).catch_unwind();
        let attempt = match deadline::bounded(&run.deadline, &*self.clock, invoke).await {
            Ok(Ok(answer)) => Attempt::Finished(answer),
            Ok(Err(_panic)) => Attempt::Panicked { sent: sent.load(Ordering::Acquire) },
            Err(_elapsed) => Attempt::TimedOut { sent: sent.load(Ordering::Acquire) },
        };
        if let Attempt::Panicked { sent } = attempt {
            run.note(AuditNote::ToolPanicked { sent });
        }
        let settled = (self.stages.settle)(attempt);
        if decoded.tool.spec().risk.has_side_effect() { settled } else { outcome::for_read(settled) }
    }

    /// The store key of a task poll's final answer; `None` for every other tool.
    fn task_final_key(&self, run: &Run<'_>, decoded: &Decoded<'_>) -> Option<String> {
        if decoded.tool.implementation.task_role() != Some(TaskRole::Poll) {
            return None;
        }
        let task_id = decoded.arguments.get("task_id")?.as_str()?;
        Some(task::final_answer_key(&run.request.auth.tenant_id, task_id))
    }

    /// The claim protocol over this executor's store and policies.
    fn protocol(&self) -> Protocol<'_> {
        Protocol {
            store: &*self.store,
            clock: &*self.clock,
            derive_key: self.stages.derive_key,
            plan: self.stages.plan_reconciliation,
            replay: self.stages.replay,
            validate_output: self.stages.validate_output,
            max_attempts: self.config.max_attempts,
            lease_margin: self.config.lease_margin,
        }
    }
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
