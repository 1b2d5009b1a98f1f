//! Replaying one scenario: a fresh world, a fresh subject, the steps in order, the transcript.
//!
//! Rule enforced here: the runner only drives and records; it never judges (that is the checks' job). Faults
//! a step arms are disarmed when the step ends, and what each did (how many requests it applied to) goes into
//! the transcript. After the last step the runner waits until every delayed
//! answer and slow commit is over, so the ledger it hands to the checks is final. The world is reached over
//! loopback HTTP (wiremock) or, for fast exploration under paused time, directly in-process; the world, its
//! faults and its ledger are the same either way. Corpus cases for tools the subject does not declare are left
//! out, and said so ([`declared`]).

mod declared;

pub(crate) use declared::left_out_note;

use crate::backlog::{self, Answers};
use crate::corpus::Corpus;
use crate::mock::MockDownstream;
use crate::scenario::{Alongside, AuthFixture, CallSpec, ChangedDuring, IdentityState, Scenario, Step, StepKind};
use crate::subject::{Subject, SubjectCall, SubjectError, SubjectFactory, SubjectFault};
use crate::transcript::{
    Answer, BetweenCalls, CallRecord, Calls, HelloAnswer, LeftOut, Operation, Refusal, Transcript,
};
use crate::world::{FaultGuard, FaultLog, World};
use callproof_executor::app::{CatalogEntry, catalog};
use callproof_executor::canonical::{canonical_json, sha256_hex};
use callproof_executor::clock::{Clock, SystemClock, TokioWallClock};
use callproof_executor::{Approval, Arguments, AuthContext, Identity, ToolCall};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long past its budget the harness waits for an answer before recording "no answer" (counted from when the
/// call was sent or, queued behind other calls of its step, from the latest answer to one of them).
pub const HARD_MARGIN: Duration = Duration::from_secs(10);
/// The longest the runner waits for delayed answers and slow commits after the last step.
const MAX_SETTLE: Duration = Duration::from_secs(60);
/// The wall clock a simulated run starts at (2027-01-15), so simulated runs are reproducible to the millisecond.
const SIMULATED_EPOCH_MS: u64 = 1_800_000_000_000;

/// How the subject reaches the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Real HTTP on loopback, served by wiremock; real time.
    Loopback,
    /// Direct calls into the world (no sockets); time may be paused. In-process subjects only.
    Simulated,
}

/// Replays scenarios against subjects from one factory.
#[derive(Clone)]
pub struct Runner {
    factory: Arc<dyn SubjectFactory>,
    corpus: Arc<Corpus>,
    catalog: Arc<Vec<CatalogEntry>>,
    transport: Transport,
}

/// A business operation being built up by the steps.
#[derive(Debug, Clone)]
struct Op {
    /// The business operation (index into the transcript's operations) this call template belongs to.
    business: usize,
    call: ToolCall,
    auth: String,
    business_request_id: Option<String>,
    attempt: u32,
    budget_ms: u64,
}

/// One call ready to submit.
struct Planned {
    step: usize,
    action: StepKind,
    op: usize,
    call: ToolCall,
    auth_name: String,
    business_request_id: Option<String>,
    attempt: u32,
    budget_ms: u64,
    corpus_case: Option<String>,
    /// For a staggered burst, the ms from one call's start to the next's; 0 otherwise.
    stagger_ms: u64,
}

/// One scenario being replayed, step by step.
pub struct Session<'a> {
    runner: &'a Runner,
    scenario: &'a Scenario,
    world: Arc<World>,
    mock: Option<MockDownstream>,
    subject: Arc<dyn Subject>,
    clock: Arc<dyn Clock>,
    auths: BTreeMap<String, AuthContext>,
    calls: Calls,
    ops: Vec<Op>,
    operations: Vec<Operation>,
    op_ids: BTreeMap<String, usize>,
    /// The business identity of each operation, parallel to `operations`.
    identities: Vec<String>,
    /// What each fault armed so far did.
    faults: Vec<FaultLog>,
    /// The catalog tools the subject does not declare: corpus cases calling one are left out.
    lacking: Vec<String>,
    /// The corpus cases left out so far.
    left_out: Vec<LeftOut>,
    /// The annotations of the subject's tools, by name (an MCP server's `tools/list`).
    tool_annotations: Arc<BTreeMap<String, serde_json::Value>>,
    /// What the processes of `hello` steps answered, by step.
    hello_answers: BTreeMap<usize, HelloAnswer>,
}

/// The faults one step armed: on the world (until their guards disarm them), on the subject, and on the
/// downstream's listener (`connection_refused`).
struct StepFaults {
    world: Vec<FaultGuard>,
    subject: Vec<(SubjectFault, FaultLog)>,
    refusing: Option<FaultLog>,
    /// Whether the harness's own server answers this step (an answer written in parts).
    in_parts: bool,
}

impl Runner {
    /// A runner for subjects of `factory` over loopback HTTP, with the malformed corpus.
    pub fn new(factory: Arc<dyn SubjectFactory>, corpus: Arc<Corpus>) -> Runner {
        Runner { factory, corpus, catalog: Arc::new(catalog()), transport: Transport::Loopback }
    }

    /// The same runner, reaching the world directly (in-process subjects; for paused-time exploration).
    #[must_use]
    pub fn simulated(mut self) -> Runner {
        self.transport = Transport::Simulated;
        self
    }

    /// The subject's name.
    pub fn subject_name(&self) -> String {
        self.factory.name()
    }

    /// Replays `scenario`.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be started or restarted.
    pub async fn run(&self, scenario: &Scenario) -> Result<Transcript, SubjectError> {
        let mut session = self.start(scenario).await?;
        for step in 0..scenario.steps.len() {
            session.step(step).await?;
        }
        Ok(session.finish().await)
    }

    /// Starts a session: a fresh world and a fresh subject.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be started.
    pub async fn start<'a>(&'a self, scenario: &'a Scenario) -> Result<Session<'a>, SubjectError> {
        let world = Arc::new(World::new(&scenario.fixtures, scenario.downstream));
        let (mock, subject, clock): (Option<MockDownstream>, Arc<dyn Subject>, Arc<dyn Clock>) = match self.transport {
            Transport::Loopback => {
                let mock = MockDownstream::start(world.clone()).await;
                match self.factory.start(&mock.uri()).await {
                    Ok(subject) => (Some(mock), subject, Arc::new(SystemClock)),
                    Err(error) => {
                        mock.stop().await;
                        return Err(error);
                    }
                }
            }
            Transport::Simulated => {
                let clock: Arc<dyn Clock> = Arc::new(TokioWallClock::starting_at(SIMULATED_EPOCH_MS));
                let subject = self.factory.start_direct(world.clone(), clock.clone()).await.unwrap_or_else(|| {
                    Err(SubjectError::Unsupported(format!("{} cannot run without sockets", self.factory.name())))
                })?;
                (None, subject, clock)
            }
        };
        let wall_origin = clock.wall_ms();
        let auths = scenario
            .auth
            .iter()
            .map(|(name, fixture)| (name.clone(), self.auth_context(fixture, wall_origin)))
            .collect();
        Ok(Session {
            runner: self,
            scenario,
            world,
            mock,
            subject,
            clock,
            auths,
            calls: Calls::default(),
            ops: Vec::new(),
            operations: Vec::new(),
            op_ids: BTreeMap::new(),
            identities: Vec::new(),
            faults: Vec::new(),
            lacking: self.lacking().await,
            left_out: Vec::new(),
            tool_annotations: self.factory.tool_annotations().await,
            hello_answers: BTreeMap::new(),
        })
    }

    /// The tool and arguments of a call. A scenario names a tool or a corpus case (checked at load); a case
    /// can still be missing from a corpus other than the shipped one.
    fn arguments_of(&self, spec: &CallSpec) -> Result<(String, Arguments), SubjectError> {
        if let Some(name) = &spec.corpus {
            let case = self.corpus.case(name).ok_or_else(|| {
                SubjectError::Unsupported(format!("the corpus in use has no case `{name}` (the scenario names it)"))
            })?;
            return Ok((spec.tool.clone().unwrap_or_else(|| case.tool.clone()), Arguments::Raw(case.text())));
        }
        let tool = spec.tool.clone().unwrap_or_default();
        Ok(match (&spec.arguments, &spec.arguments_json) {
            (Some(text), _) => (tool, Arguments::Raw(text.clone())),
            (None, json) => (tool, Arguments::Value(serde_json::to_value(json).unwrap_or_default())),
        })
    }

    /// The endpoint a tool's main request goes to, e.g. `POST /refunds`.
    pub fn main_endpoint(&self, tool: &str) -> String {
        crate::world::main_endpoint(&self.catalog, tool).unwrap_or_else(|| "GET /unknown".to_owned())
    }

    fn auth_context(&self, fixture: &AuthFixture, wall_origin: u64) -> AuthContext {
        let approval = fixture.approval.as_ref().map(|approval| {
            let risk = approval.risk.unwrap_or_else(|| {
                self.catalog
                    .iter()
                    .find(|entry| entry.spec.name == approval.tool)
                    .map_or(callproof_executor::Risk::Destructive, |entry| entry.spec.risk)
            });
            Approval {
                approval_id: approval.id.clone(),
                subject_id: approval.subject_id.clone().unwrap_or_else(|| fixture.subject_id.clone()),
                tenant_id: approval.tenant_id.clone().unwrap_or_else(|| fixture.tenant_id.clone()),
                tool: approval.tool.clone(),
                arguments_hash: arguments_hash(&approval.arguments).unwrap_or_default(),
                risk,
                expires_at_ms: wall_origin.saturating_add_signed(approval.expires_in_ms),
            }
        });
        AuthContext {
            subject_id: fixture.subject_id.clone(),
            tenant_id: fixture.tenant_id.clone(),
            scopes: fixture.scopes.iter().cloned().collect(),
            roles: fixture.roles.iter().cloned().collect(),
            identity: Identity {
                valid: fixture.identity != IdentityState::Invalid,
                expires_at_ms: match fixture.identity {
                    IdentityState::Expired => Some(wall_origin.saturating_sub(1000)),
                    IdentityState::ExpiredAtEpoch => Some(0),
                    IdentityState::Valid | IdentityState::Invalid => None,
                },
            },
            allowed_tools: fixture.allowed_tools.as_ref().map(|tools| tools.iter().cloned().collect()),
            approval,
        }
    }
}

/// The error of a step whose downstream listener could not be closed, handed over or reopened at `address`.
fn listener_lost(address: String) -> impl FnOnce(std::io::Error) -> SubjectError {
    move |error| SubjectError::DownstreamLost { address, why: error.to_string() }
}

impl Session<'_> {
    /// Plays step `step_index` (0-based): arms its faults, makes its calls, records them, disarms.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be restarted after a kill, or refuses a subject fault.
    pub async fn step(&mut self, step_index: usize) -> Result<(), SubjectError> {
        let scenario = self.scenario;
        let step = &scenario.steps[step_index];
        let planned = self.plan(step_index).await?;
        let tool = planned.first().map_or("", |planned| planned.call.name.as_str());
        let armed = self.arm(step_index, step, tool).await?;
        let first = self.calls.len();
        let answers = Arc::new(Answers::default());
        let stagger_ms = match step {
            Step::Burst { stagger_ms, .. } => *stagger_ms,
            Step::Submit(CallSpec { changed_during: Some(during), .. }) => during.after_ms,
            Step::Submit(CallSpec { alongside: Some(alongside), .. }) => alongside.after_ms,
            _ => 0,
        };
        let stagger = Duration::from_millis(stagger_ms);
        let calls = futures::future::join_all(planned.into_iter().enumerate().map(|(offset, planned)| {
            let call = self.call(Planned { stagger_ms, ..planned }, first + offset, &answers);
            async move {
                if offset > 0 && !stagger.is_zero() {
                    tokio::time::sleep(stagger.saturating_mul(u32::try_from(offset).unwrap_or(u32::MAX))).await;
                }
                call.await
            }
        }));
        let (answered, acted) = self.acting_on_subject(calls).await?;
        let killed = answered.iter().any(|record| record.answer == Answer::Killed);
        for record in answered {
            self.operations[record.op].calls.push(record.index);
            self.calls.push(record);
        }
        self.disarm(armed).await?;
        for undone in acted {
            self.subject.inject(undone, false).await?;
        }
        if killed {
            self.subject.inject(SubjectFault::Kill, true).await?;
            self.subject.inject(SubjectFault::Kill, false).await?;
        }
        Ok(())
    }

    /// Runs `calls`, acting on the subject whenever a fault asks the world to (a `pause` stops its process, a
    /// `store_outage_after_commit` cuts its store off, `input_ends_after_commit` closes its input); what must be
    /// undone after the step (a store to restore, a process to start again), each once.
    async fn acting_on_subject<T>(
        &self,
        calls: impl Future<Output = T>,
    ) -> Result<(T, Vec<SubjectFault>), SubjectError> {
        let mut asked = self.world.on_subject();
        asked.mark_unchanged();
        let mut acted = Vec::new();
        tokio::pin!(calls);
        loop {
            tokio::select! {
                answered = &mut calls => return Ok((answered, acted)),
                Ok(()) = asked.changed() => {
                    let Some(fault) = asked.borrow_and_update().last else { continue };
                    if fault.undone_after_step() && !acted.contains(&fault) {
                        acted.push(fault);
                    }
                    self.subject.inject(fault, true).await?;
                }
            }
        }
    }

    /// Arms the step's faults: the downstream's listener for the whole step (handed to the harness's own server for
    /// an answer in parts, or closed for a refused connection), subject faults on the subject, the others on the
    /// world (on `tool`'s main request unless they name an endpoint).
    async fn arm(&mut self, step_index: usize, step: &Step, tool: &str) -> Result<StepFaults, SubjectError> {
        let in_parts = step.faults().iter().any(|fault| fault.kind.writes_body_in_parts());
        let mut armed = StepFaults { world: Vec::new(), subject: Vec::new(), refusing: None, in_parts };
        if let Some(mock) = self.mock.as_mut().filter(|_| in_parts) {
            mock.serve_in_parts().await.map_err(listener_lost(mock.uri()))?;
        }
        if let Some(fault) = step.faults().iter().find(|fault| fault.kind.refuses_connections()) {
            self.world.refuse_connections(true);
            if let Some(mock) = &mut self.mock {
                mock.refuse_connections().await.map_err(listener_lost(mock.uri()))?;
            }
            let endpoint = "downstream".to_owned();
            armed.refusing = Some(FaultLog { step: step_index, spec: fault.clone(), endpoint, fired: 1 });
        }
        for fault in step.faults().iter().filter(|fault| fault.kind.on_subject().is_some()) {
            let Some(on_subject) = fault.kind.on_subject() else { continue };
            self.subject.inject(on_subject, true).await?;
            let log = FaultLog { step: step_index, spec: fault.clone(), endpoint: "subject".to_owned(), fired: 1 };
            armed.subject.push((on_subject, log));
        }
        for fault in step.faults().iter().filter(|fault| !fault.kind.acts_on_whole_step()) {
            let endpoint = fault.on.clone().unwrap_or_else(|| self.runner.main_endpoint(tool));
            armed.world.push(self.world.arm(fault.clone(), endpoint, step_index));
        }
        Ok(armed)
    }

    /// Disarms what [`Session::arm`] armed and keeps what each fault did.
    async fn disarm(&mut self, armed: StepFaults) -> Result<(), SubjectError> {
        let world: Vec<FaultLog> = armed.world.into_iter().map(FaultGuard::disarm).collect();
        for (on_subject, _) in &armed.subject {
            self.subject.inject(*on_subject, false).await?;
        }
        if let Some(mock) = self.mock.as_mut().filter(|_| armed.in_parts) {
            mock.serve_with_wiremock().await.map_err(listener_lost(mock.uri()))?;
        }
        if armed.refusing.is_some() {
            self.world.refuse_connections(false);
            if let Some(mock) = &mut self.mock {
                mock.accept_connections().await.map_err(listener_lost(mock.uri()))?;
            }
        }
        // In arming order: the listener first, then subject faults, then the world's.
        self.faults
            .extend(armed.refusing.into_iter().chain(armed.subject.into_iter().map(|(_, log)| log)).chain(world));
        Ok(())
    }

    /// The calls step `step_index` makes, with the operations they belong to.
    async fn plan(&mut self, step_index: usize) -> Result<Vec<Planned>, SubjectError> {
        let step = &self.scenario.steps[step_index];
        let (action, default_call_id) = (step.kind(), format!("call_{}", step_index + 1));
        Ok(match step {
            Step::Submit(spec) | Step::Burst { call: spec, .. } => {
                let count = if let Step::Burst { count, .. } = step { *count } else { 1 };
                self.plan_new_operation(step_index, action, spec, count, default_call_id)?
            }
            Step::Retry(follow) => {
                let op = &mut self.ops[self.op_ids[&follow.of]];
                op.attempt += 1;
                op.call.call_id = follow.call_id.clone().unwrap_or(default_call_id);
                if let Some(budget) = follow.budget_ms {
                    op.budget_ms = budget;
                }
                vec![planned(step_index, action, op, None)]
            }
            Step::Duplicate(follow) => vec![planned(step_index, action, &self.ops[self.op_ids[&follow.of]], None)],
            Step::Changed(changed) => {
                let op_index = self.op_ids[&changed.of];
                let op = &mut self.ops[op_index];
                op.attempt += 1;
                op.call.call_id = default_call_id;
                op.call.arguments = match (&changed.arguments, &changed.arguments_json) {
                    (Some(text), _) => Arguments::Raw(text.clone()),
                    (None, json) => Arguments::Value(serde_json::to_value(json).unwrap_or_default()),
                };
                // Without a business request id, other arguments are another business operation.
                let changed_op = op.clone();
                self.ops[op_index].business = self.business_of(&changed_op, None);
                vec![planned(step_index, action, &self.ops[op_index], None)]
            }
            Step::Wait { ms } => {
                tokio::time::sleep(Duration::from_millis(*ms)).await;
                Vec::new()
            }
            Step::Restart => {
                self.subject.inject(SubjectFault::Kill, true).await?;
                self.subject.inject(SubjectFault::Kill, false).await?;
                Vec::new()
            }
            Step::Hello { protocol } => {
                let Some(answer) = self.subject.hello(protocol).await else {
                    let why = "this subject is not started with a hello, so a hello step cannot run".to_owned();
                    return Err(SubjectError::Unsupported(why));
                };
                self.hello_answers.insert(step_index, answer?);
                Vec::new()
            }
            Step::Corpus(spec) => self.plan_corpus(step_index, &spec.auth, &spec.only),
        })
    }

    /// A submit's or burst's calls: `count` calls of a new operation, then the submit's changed call or the other
    /// caller's call alongside it, if it has one.
    fn plan_new_operation(
        &mut self,
        step_index: usize,
        action: StepKind,
        spec: &CallSpec,
        count: u32,
        call_id: String,
    ) -> Result<Vec<Planned>, SubjectError> {
        let (tool, arguments) = self.runner.arguments_of(spec)?;
        let op = Op {
            business: 0,
            call: ToolCall { call_id, name: tool, arguments },
            auth: spec.auth.clone(),
            business_request_id: spec.business_request_id.clone(),
            attempt: 1,
            budget_ms: spec.budget_ms,
        };
        let op_index = self.new_op(op, spec.id.clone());
        if let Some(id) = &spec.id {
            self.op_ids.insert(id.clone(), op_index);
        }
        let mut calls: Vec<Planned> =
            (0..count).map(|_| planned(step_index, action, &self.ops[op_index], None)).collect();
        if let Some(during) = &spec.changed_during {
            calls.push(self.changed_during(step_index, op_index, during));
        }
        if let Some(alongside) = &spec.alongside {
            calls.push(self.alongside(step_index, action, op_index, spec.budget_ms, alongside));
        }
        Ok(calls)
    }

    /// The changed call sent while operation `op_index`'s submit runs: the same business request (validation
    /// requires its id), so the same operation, one attempt later.
    fn changed_during(&mut self, step_index: usize, op_index: usize, during: &ChangedDuring) -> Planned {
        let mut changed = self.ops[op_index].clone();
        changed.attempt += 1;
        changed.call.call_id = format!("{}_changed", changed.call.call_id);
        changed.call.arguments = Arguments::Raw(during.arguments.clone());
        // A later retry of the operation is the attempt after this one, with the submit's arguments.
        self.ops[op_index].attempt = changed.attempt;
        planned(step_index, StepKind::Changed, &changed, None)
    }

    /// The other caller's call sent while operation `op_index`'s submit runs: its own business operation
    /// (validation requires another caller), with no business request id.
    fn alongside(
        &mut self,
        step_index: usize,
        action: StepKind,
        op_index: usize,
        budget_ms: u64,
        alongside: &Alongside,
    ) -> Planned {
        let call_id = format!("{}_alongside", self.ops[op_index].call.call_id);
        let arguments = Arguments::Raw(alongside.arguments.clone());
        let other = Op {
            business: 0,
            call: ToolCall { call_id, name: alongside.tool.clone(), arguments },
            auth: alongside.auth.clone(),
            business_request_id: None,
            attempt: 1,
            budget_ms,
        };
        let other = self.new_op(other, None);
        planned(step_index, action, &self.ops[other], None)
    }

    /// Adds a call template and returns its index; its business operation is found or created by identity.
    fn new_op(&mut self, op: Op, name: Option<String>) -> usize {
        let business = self.business_of(&op, name);
        self.ops.push(Op { business, ..op });
        self.ops.len() - 1
    }

    /// The business operation of a call: the caller's tenant and subject, the tool, and the business request id
    /// or, without one, the canonical arguments (the identity the idempotency key is made of).
    fn business_of(&mut self, op: &Op, name: Option<String>) -> usize {
        let fixture = &self.scenario.auth[&op.auth];
        let what = match &op.business_request_id {
            Some(id) => format!("request:{id}"),
            None => match &op.call.arguments {
                Arguments::Raw(text) => serde_json::from_str::<serde_json::Value>(text)
                    .map_or_else(|_| format!("raw:{text}"), |value| format!("arguments:{}", canonical_json(&value))),
                Arguments::Value(value) => format!("arguments:{}", canonical_json(value)),
            },
        };
        let identity = format!("{}|{}|{}|{what}", fixture.tenant_id, fixture.subject_id, op.call.name);
        if let Some(existing) = self.identities.iter().position(|known| *known == identity) {
            return existing;
        }
        self.identities.push(identity);
        self.operations.push(Operation {
            name: name.unwrap_or_else(|| format!("op{}", self.operations.len() + 1)),
            tool: op.call.name.clone(),
            calls: Vec::new(),
        });
        self.operations.len() - 1
    }

    /// What happened so far (no waiting for delayed answers).
    pub async fn transcript(&self) -> Transcript {
        let mut keys: Vec<String> =
            self.calls.iter().filter_map(|call| call.envelope()?.meta().idempotency_key.clone()).collect();
        keys.sort();
        keys.dedup();
        let records = self.subject.records(&keys).await;
        Transcript {
            scenario: self.scenario.name.clone(),
            subject: self.runner.factory.name(),
            calls: self.calls.clone(),
            operations: self.operations.clone(),
            exchanges: Transcript::attribute(&self.calls, self.world.requests()),
            foreign: self.world.foreign_requests(),
            ledger: self.world.ledger(),
            faults: self.faults.clone(),
            records,
            records_read_at_ms: self.clock.wall_ms(),
            tasks: self.world.tasks(),
            left_out: self.left_out.clone(),
            tool_annotations: self.tool_annotations.clone(),
            notices: self.subject.notices().await,
            credentials: self.subject.credentials().await,
            downstream_address: self.mock.as_ref().map(|mock| address_of(&mock.uri())),
            between_calls: self
                .scenario
                .steps
                .iter()
                .enumerate()
                .filter_map(|(step, action)| match action {
                    Step::Restart => Some(BetweenCalls::Restart { step }),
                    Step::Wait { ms } => Some(BetweenCalls::Wait { step, ms: *ms }),
                    Step::Hello { protocol } => self.hello_answers.get(&step).map(|answer| BetweenCalls::Hello {
                        step,
                        protocol: protocol.clone(),
                        answer: answer.clone(),
                    }),
                    _ => None,
                })
                .collect(),
            index: Default::default(),
        }
    }

    /// Waits out delayed answers and slow commits, takes the final transcript and stops everything.
    pub async fn finish(self) -> Transcript {
        let settle = self.world.busy_until().saturating_duration_since(tokio::time::Instant::now()).min(MAX_SETTLE);
        tokio::time::sleep(settle + Duration::from_millis(50)).await;
        let transcript = self.transcript().await;
        self.subject.stop().await;
        if let Some(mock) = self.mock {
            mock.stop().await;
        }
        transcript
    }

    async fn call(&self, planned: Planned, index: usize, answers: &Arc<Answers>) -> CallRecord {
        let world = &self.world;
        let auth = self.auths[&planned.auth_name].clone();
        let wall_ms = self.clock.wall_ms();
        let budget = Duration::from_millis(planned.budget_ms);
        let submitted = SubjectCall {
            call: planned.call.clone(),
            auth: auth.clone(),
            business_request_id: planned.business_request_id.clone(),
            attempt: planned.attempt,
            budget,
        };
        let started_ms = world.now_ms();
        let first_request = world.request_count();
        let ((answer, refusal, meta_by_harness), answered_ms) = self.answer(submitted, budget, answers.clone()).await;
        CallRecord {
            index,
            step: planned.step,
            action: planned.action,
            op: planned.op,
            call_id: planned.call.call_id,
            tool: planned.call.name,
            arguments: planned.call.arguments,
            auth: planned.auth_name,
            tenant_id: auth.tenant_id,
            subject_id: auth.subject_id,
            roles: auth.roles,
            approval: auth.approval,
            wall_ms,
            business_request_id: planned.business_request_id,
            attempt: planned.attempt,
            budget_ms: planned.budget_ms,
            started_ms,
            answered_ms,
            first_request,
            requests_until: world.request_count(),
            answer,
            corpus_case: planned.corpus_case,
            stagger_ms: planned.stagger_ms,
            refusal,
            meta_by_harness,
        }
    }

    /// The subject's answer to `call` (or its death, or none within the budget and [`HARD_MARGIN`]), and when
    /// it came. Over loopback the wait is a task of its own, so the answer's time is taken as it arrives: the
    /// scenarios of one run share a task, and one busy judging its checks or starting a process must not make
    /// another's answer look late. Simulated runs keep the wait in the scenario's task, so their polling order,
    /// and with it a seed's schedule, stays what it was.
    async fn answer(&self, call: SubjectCall, budget: Duration, answers: Arc<Answers>) -> (Heard, u64) {
        let waiting = answer_of(self.subject.clone(), self.world.clone(), call, (budget, answers));
        match self.runner.transport {
            Transport::Simulated => waiting.await,
            Transport::Loopback => {
                let mut task = AbortOnDrop(tokio::spawn(waiting));
                match (&mut task.0).await {
                    Ok(answered) => answered,
                    Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                    Err(error) => {
                        let broken = Answer::Broken(format!("the call's task ended: {error}"));
                        ((broken, None, false), self.world.now_ms())
                    }
                }
            }
        }
    }
}

/// Waits for `subject`'s answer to `call`, racing the kills the world's faults make, within its budget and
/// [`HARD_MARGIN`] of when it was sent or of the latest answer to another call of its step ([`backlog`]).
async fn answer_of(
    subject: Arc<dyn Subject>,
    world: Arc<World>,
    call: SubjectCall,
    (budget, answers): (Duration, Arc<Answers>),
) -> (Heard, u64) {
    let mut kills = world.kills();
    let before = *kills.borrow();
    let others = answers.watch();
    let heard = tokio::select! {
        answered = backlog::within(budget + HARD_MARGIN, others, subject.answer(call)) => match answered {
            // A kill fault fired for the moment the answer arrives: the subject dies before it is seen.
            Some(Ok(_)) if world.kills().borrow().before_answer > before.before_answer => (Answer::Killed, None, false),
            Some(Ok(reply)) => {
                answers.answered();
                (Answer::read(reply.value), reply.refusal, reply.meta_by_harness)
            }
            Some(Err(error)) => (Answer::Broken(error.to_string()), None, false),
            None => (Answer::NoAnswer, None, false),
        },
        _ = kills.wait_for(|kills| kills.in_flight > before.in_flight) => (Answer::Killed, None, false),
    };
    (heard, world.now_ms())
}

/// An answer, the transport refusal it stands for, whether the harness wrote its `meta` (`subject::Reply`).
type Heard = (Answer, Option<Refusal>, bool);

/// A spawned task that is cancelled when its scenario is dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn planned(step: usize, action: StepKind, op: &Op, corpus_case: Option<String>) -> Planned {
    Planned {
        step,
        action,
        op: op.business,
        call: op.call.clone(),
        auth_name: op.auth.clone(),
        business_request_id: op.business_request_id.clone(),
        attempt: op.attempt,
        budget_ms: op.budget_ms,
        corpus_case,
        stagger_ms: 0,
    }
}

/// SHA-256 of the canonical form of JSON text (the approval binding), or `None` if it is not JSON.
pub fn arguments_hash(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    Some(sha256_hex(canonical_json(&value).as_bytes()))
}

/// `host:port` of a URL `scheme://host:port[/...]`: what an answer would name if it named the downstream.
fn address_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subject::InProcess;

    /// Over loopback an answer is timed as it arrives, not when the scenario's task next runs: once the call
    /// reached the downstream (which answers it 300 ms later), the task is held for 3 s, and the call still
    /// counts as answered well before that. (A bound on what the harness records, with the held time twice the
    /// bound, not a speed assertion.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_is_timed_as_it_arrives_while_the_scenarios_task_is_busy() {
        let scenarios = crate::shipped::scenarios().expect("the shipped scenarios load");
        let scenario = scenarios.iter().find(|scenario| scenario.name == "deadline/slow_but_in_time");
        let scenario = scenario.expect("a shipped one-call scenario with a slow downstream");
        let runner = Runner::new(Arc::new(InProcess::reference()), Corpus::shipped());
        let mut session = runner.start(scenario).await.expect("the reference starts");
        let world = session.world.clone();
        let busy = async {
            while world.request_count() == 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            std::thread::sleep(Duration::from_secs(3));
        };
        let (stepped, ()) = tokio::join!(session.step(0), busy);
        stepped.expect("the step runs");
        let transcript = session.finish().await;
        let call = &transcript.calls[0];
        assert!(call.answer.came_back(), "the call was answered: {:?}", call.answer);
        let took = call.answered_ms - call.started_ms;
        assert!(took < 1500, "the answer was timed {took} ms after the call, when the busy task let go");
    }

    #[test]
    fn the_downstream_address_is_the_urls_host_and_port() {
        assert_eq!(super::address_of("http://127.0.0.1:41234"), "127.0.0.1:41234");
        assert_eq!(super::address_of("http://127.0.0.1:41234/base"), "127.0.0.1:41234");
    }
}
