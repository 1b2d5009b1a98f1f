//! Shared fixtures: the catalog tools with scripted behaviour, a seeded system of record, and an `execute`
//! wrapper that checks every envelope the suite produces against docs/envelope.schema.json.
//!
//! Each integration-test binary uses a different part of this module, hence the `dead_code` allowance.
#![allow(dead_code)]

use async_trait::async_trait;
use callproof_executor::audit::{AuditRecord, MemoryAudit};
use callproof_executor::canonical::{canonical_json, sha256_hex};
use callproof_executor::clock::Clock;
use callproof_executor::idempotency::{NewRecord, Record, Update, Version};
use callproof_executor::resource::{MemoryResources, Resource, ResourceRef, Resources};
use callproof_executor::store::{Claim, Store, StoreError};
use callproof_executor::tool::{Failure, Output, Rejection, Status, StatusQuery, ToolContext, ToolFailure};
use callproof_executor::{
    Approval, AuthContext, Config, Envelope, Executor, Request, Stages, Tool, ToolCall, ToolSpec, Tools,
};
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};

/// The caller's tenant.
pub(crate) const TENANT: &str = "t_acme";
/// Another tenant.
pub(crate) const OTHER_TENANT: &str = "t_globex";
/// The usual caller.
pub(crate) const ALICE: &str = "u_alice";
/// Another subject in the caller's tenant.
pub(crate) const BOB: &str = "u_bob";
/// A subject of the other tenant.
pub(crate) const CAROL: &str = "u_carol";

/// Every catalog tool, in file order.
pub(crate) const CATALOG: [&str; 6] =
    ["delete_account", "get_order", "get_weather", "refund_order", "send_email", "set_preference"];

/// Scopes that cover every catalog tool.
pub(crate) const ALL_SCOPES: [&str; 5] =
    ["refunds:write", "orders:read", "accounts:delete", "email:send", "preferences:write"];

/// Text that must never reach an envelope or an audit record.
pub(crate) const CANARIES: [&str; 5] = [
    "sk_live_CANARY_7f3a9c",
    "at com.acme.payments.RefundService.apply(RefundService.java:217)",
    "SELECT card_number FROM payments WHERE",
    "db-primary-03.internal.acme.example",
    "/var/lib/acme/secrets.env",
];

/// A downstream diagnostic carrying every canary.
pub(crate) fn poisoned_diagnostic() -> String {
    CANARIES.join("\n")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

// ---------------------------------------------------------------------------------------------------------
// The catalog.

/// The folder of catalog tool files.
pub(crate) fn catalog_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/catalog")
}

/// A catalog file as JSON (with the fields `ToolSpec` ignores, such as `resource` and `downstream`).
pub(crate) fn catalog_json(name: &str) -> Value {
    let path = catalog_dir().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A catalog tool's spec.
pub(crate) fn catalog_spec(name: &str) -> ToolSpec {
    serde_json::from_value(catalog_json(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

// ---------------------------------------------------------------------------------------------------------
// Scripted tools.

/// One scripted answer of a tool's `invoke`.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Answer with the tool's default (valid) output for the arguments.
    Default,
    /// Answer with exactly this value.
    Answer(Value),
    /// Answer with the default output and a downstream request id.
    AnswerWithId(String),
    /// Fail with this failure.
    Fail(ToolFailure),
    /// Mark the request sent, then take the next step.
    Send(Box<Step>),
    /// Sleep on tokio's clock, then take the next step.
    Sleep(Duration, Box<Step>),
    /// Mark the request sent and never answer.
    HangAfterSend,
    /// Never answer, without marking the request sent.
    HangBeforeSend,
    /// Panic, after marking the request sent when `after_send`.
    Panic {
        /// Whether the request was marked sent first.
        after_send: bool,
    },
    /// Tell the gate the tool entered, wait until the gate opens, then take the next step.
    Gate(Gate, Box<Step>),
    /// SIGKILL this whole process before marking the request sent: the crash between the claim and the send.
    /// Only for a test binary running as a child process.
    KillProcess,
}

impl Step {
    /// A failure without a diagnostic.
    pub(crate) fn fail(failure: Failure) -> Step {
        Step::Fail(failure.into())
    }

    /// A failure whose diagnostic carries every canary, with a downstream status.
    pub(crate) fn poisoned(failure: Failure, status: Option<u16>) -> Step {
        Step::Fail(ToolFailure {
            failure,
            status,
            diagnostic: Some(poisoned_diagnostic()),
            downstream_request_id: Some("dsr_42".to_owned()),
        })
    }
}

/// A two-way rendezvous between a test and a scripted tool.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    entered: Arc<Semaphore>,
    open: Arc<watch::Sender<bool>>,
}

impl Gate {
    /// A closed gate.
    pub(crate) fn new() -> Gate {
        Gate { entered: Arc::new(Semaphore::new(0)), open: Arc::new(watch::channel(false).0) }
    }

    /// Waits until `count` tool calls entered the gate.
    pub(crate) async fn entered(&self, count: u32) {
        self.entered.acquire_many(count).await.expect("the gate's semaphore is never closed").forget();
    }

    /// Lets every waiting and future call through.
    pub(crate) fn open(&self) {
        self.open.send_replace(true);
    }

    async fn pass(&self) {
        self.entered.add_permits(1);
        let mut open = self.open.subscribe();
        // The sender lives as long as the gate; an error would mean it was dropped, which also frees us.
        let _ = open.wait_for(|open| *open).await;
    }
}

/// What a tool was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// `Tool::invoke`.
    Invoke,
    /// `Tool::status`.
    Status,
}

/// One call the executor made to a tool.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// Which method.
    pub(crate) kind: CallKind,
    /// The idempotency key the tool received.
    pub(crate) key: Option<String>,
    /// The arguments it received.
    pub(crate) arguments: Value,
    /// The executor's request id.
    pub(crate) request_id: String,
    /// The subject the tool acted for.
    pub(crate) subject_id: String,
    /// Time left until the deadline when the call started.
    pub(crate) remaining: Duration,
}

/// An ordered log of `start`/`end` events across all tools of a world, for ordering proofs.
#[derive(Debug, Default)]
pub(crate) struct Events {
    lines: Mutex<Vec<String>>,
}

impl Events {
    fn push(&self, line: String) {
        lock(&self.lines).push(line);
    }

    /// Every event so far.
    pub(crate) fn lines(&self) -> Vec<String> {
        lock(&self.lines).clone()
    }

    /// The position of `line`, panicking with the whole log when it is missing.
    pub(crate) fn position(&self, line: &str) -> usize {
        let lines = self.lines();
        lines.iter().position(|seen| seen == line).unwrap_or_else(|| panic!("no event `{line}` in {lines:#?}"))
    }
}

type Rule = fn(&Value, Option<&Resource>) -> Result<(), Rejection>;

/// A catalog tool whose answers are scripted per test, and which logs every call it gets.
pub(crate) struct ScriptedTool {
    spec: ToolSpec,
    resource: Option<(String, String)>,
    rule: Option<Rule>,
    status_query: AtomicBool,
    steps: Mutex<VecDeque<Step>>,
    statuses: Mutex<VecDeque<Result<Status, ToolFailure>>>,
    calls: Mutex<Vec<Call>>,
    serial: AtomicU64,
    events: Arc<Events>,
}

impl ScriptedTool {
    fn new(spec: ToolSpec, catalog: &Value, events: Arc<Events>) -> ScriptedTool {
        let resource = catalog.get("resource").map(|resource| {
            let field = |name: &str| resource[name].as_str().expect("catalog resource fields are strings").to_owned();
            (field("kind"), field("argument"))
        });
        let status_query = catalog.pointer("/downstream/status").is_some();
        let rule: Option<Rule> = (spec.name == "refund_order").then_some(refund_rule as Rule);
        ScriptedTool {
            spec,
            resource,
            rule,
            status_query: AtomicBool::new(status_query),
            steps: Mutex::new(VecDeque::new()),
            statuses: Mutex::new(VecDeque::new()),
            calls: Mutex::new(Vec::new()),
            serial: AtomicU64::new(0),
            events,
        }
    }

    /// Queues the answers of the next `invoke` calls; when the queue is empty, the tool answers [`Step::Default`].
    pub(crate) fn script(&self, steps: impl IntoIterator<Item = Step>) -> &ScriptedTool {
        lock(&self.steps).extend(steps);
        self
    }

    /// Queues the answers of the next status queries; unscripted queries fail with `Unavailable`.
    pub(crate) fn script_status(&self, statuses: impl IntoIterator<Item = Result<Status, ToolFailure>>) {
        lock(&self.statuses).extend(statuses);
    }

    /// Turns the status query on or off (the catalog's `downstream.status` decides the default).
    pub(crate) fn set_status_query(&self, on: bool) {
        self.status_query.store(on, Ordering::SeqCst);
    }

    /// Every call so far.
    pub(crate) fn calls(&self) -> Vec<Call> {
        lock(&self.calls).clone()
    }

    /// The `invoke` calls so far.
    pub(crate) fn invocations(&self) -> Vec<Call> {
        self.calls().into_iter().filter(|call| call.kind == CallKind::Invoke).collect()
    }

    /// The status queries so far.
    pub(crate) fn status_queries(&self) -> Vec<Call> {
        self.calls().into_iter().filter(|call| call.kind == CallKind::Status).collect()
    }

    fn log(&self, kind: CallKind, ctx: &ToolContext<'_>, arguments: &Value) {
        lock(&self.calls).push(Call {
            kind,
            key: ctx.idempotency_key.map(str::to_owned),
            arguments: arguments.clone(),
            request_id: ctx.request_id.to_owned(),
            subject_id: ctx.auth.subject_id.clone(),
            remaining: ctx.deadline.instant().saturating_duration_since(tokio::time::Instant::now()),
        });
    }

    fn default_output(&self, arguments: &Value) -> Value {
        let serial = self.serial.fetch_add(1, Ordering::SeqCst) + 1;
        default_output(&self.spec.name, arguments, serial)
    }

    async fn run(&self, step: Step, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Output, ToolFailure> {
        let mut step = step;
        loop {
            step = match step {
                Step::Default => return Ok(self.default_output(arguments).into()),
                Step::Answer(value) => return Ok(value.into()),
                Step::AnswerWithId(id) => {
                    return Ok(Output { value: self.default_output(arguments), downstream_request_id: Some(id) });
                }
                Step::Fail(failure) => return Err(failure),
                Step::Send(next) => {
                    ctx.mark_sent();
                    *next
                }
                Step::Sleep(duration, next) => {
                    tokio::time::sleep(duration).await;
                    *next
                }
                Step::HangAfterSend => {
                    ctx.mark_sent();
                    std::future::pending::<()>().await;
                    unreachable!("a pending future never completes")
                }
                Step::HangBeforeSend => {
                    std::future::pending::<()>().await;
                    unreachable!("a pending future never completes")
                }
                Step::Panic { after_send } => {
                    if after_send {
                        ctx.mark_sent();
                    }
                    panic!("scripted panic in {}", self.spec.name);
                }
                Step::Gate(gate, next) => {
                    gate.pass().await;
                    *next
                }
                Step::KillProcess => kill_this_process(),
            };
        }
    }
}

#[async_trait]
impl Tool for ScriptedTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn resource(&self, arguments: &Value) -> Option<ResourceRef> {
        let (kind, argument) = self.resource.as_ref()?;
        Some(ResourceRef::new(kind, arguments.get(argument)?.as_str()?))
    }

    fn check_business_rules(&self, arguments: &Value, resource: Option<&Resource>) -> Result<(), Rejection> {
        self.rule.map_or(Ok(()), |rule| rule(arguments, resource))
    }

    async fn invoke(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Output, ToolFailure> {
        self.log(CallKind::Invoke, ctx, arguments);
        let label = format!("{} {}", self.spec.name, ctx.request_id);
        self.events.push(format!("start {label}"));
        let step = lock(&self.steps).pop_front().unwrap_or(Step::Default);
        let answer = self.run(step, ctx, arguments).await;
        self.events.push(format!("end {label}"));
        answer
    }

    fn status_query(&self) -> Option<&dyn StatusQuery> {
        self.status_query.load(Ordering::SeqCst).then_some(self as &dyn StatusQuery)
    }
}

#[async_trait]
impl StatusQuery for ScriptedTool {
    async fn status(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Status, ToolFailure> {
        self.log(CallKind::Status, ctx, arguments);
        lock(&self.statuses).pop_front().unwrap_or_else(|| Err(Failure::Unavailable.into()))
    }
}

/// refund_order's rule: the amount may not exceed the order's refundable amount (null refunds all of it).
fn refund_rule(arguments: &Value, resource: Option<&Resource>) -> Result<(), Rejection> {
    let refundable = resource.and_then(|resource| resource.attributes["refundable_amount"].as_u64()).unwrap_or(0);
    match arguments["amount"].as_u64() {
        Some(amount) if amount > refundable => Err(Rejection::field("amount_exceeds_refundable", "amount")),
        None if refundable == 0 => Err(Rejection::field("nothing_refundable", "amount")),
        _ => Ok(()),
    }
}

/// A result that satisfies the catalog tool's output schema.
pub(crate) fn default_output(tool: &str, arguments: &Value, serial: u64) -> Value {
    let text = |name: &str| arguments[name].clone();
    match tool {
        "refund_order" => json!({
            "refund_id": format!("rf_{serial}"),
            "order_id": text("order_id"),
            "amount": arguments["amount"].as_u64().unwrap_or(5000),
            "status": "completed",
        }),
        "get_order" => json!({
            "order_id": text("order_id"),
            "status": "paid",
            "refundable_amount": 5000,
            "note": "left at the door",
        }),
        "get_weather" => json!({
            "location": text("location"),
            "temperature": 21.5,
            "units": arguments["units"].as_str().unwrap_or("celsius"),
            "summary": "clear",
        }),
        "delete_account" => json!({"account_id": text("account_id"), "deleted": true}),
        "send_email" => json!({"message_id": format!("msg_{serial}"), "status": "sent"}),
        "set_preference" => json!({"key": text("key"), "value": text("value")}),
        _ => json!({"ok": serial}),
    }
}

// ---------------------------------------------------------------------------------------------------------
// Ports with faults.

/// A store whose backend always fails.
#[derive(Debug, Default)]
pub(crate) struct FailingStore;

#[async_trait]
impl Store for FailingStore {
    async fn claim(&self, _new: &NewRecord) -> Result<Claim, StoreError> {
        Err(StoreError::Backend("connection refused by db-primary-03.internal.acme.example".to_owned()))
    }

    async fn compare_and_set(&self, _key: &str, _expected: Version, _update: Update) -> Result<bool, StoreError> {
        Err(StoreError::Backend("connection refused".to_owned()))
    }

    async fn load(&self, _key: &str) -> Result<Option<Record>, StoreError> {
        Err(StoreError::Backend("connection refused".to_owned()))
    }

    async fn purge_expired(&self, _updated_before_ms: u64) -> Result<u64, StoreError> {
        Err(StoreError::Backend("connection refused".to_owned()))
    }
}

/// Wall time that follows tokio's (pausable) clock and can also jump ahead on its own, as another machine's
/// clock or a long GC pause would make it.
#[derive(Debug)]
pub(crate) struct ManualClock {
    origin: tokio::time::Instant,
    origin_wall_ms: u64,
    skew_ms: AtomicU64,
}

impl ManualClock {
    /// Starts at a fixed wall time, so records and snapshots are reproducible.
    pub(crate) fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock {
            origin: tokio::time::Instant::now(),
            origin_wall_ms: 1_800_000_000_000,
            skew_ms: AtomicU64::new(0),
        })
    }

    /// Moves wall time (only) forward.
    pub(crate) fn jump_wall(&self, by: Duration) {
        self.skew_ms.fetch_add(by.as_millis() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> tokio::time::Instant {
        tokio::time::Instant::now()
    }

    fn wall_ms(&self) -> u64 {
        self.origin_wall_ms + self.origin.elapsed().as_millis() as u64 + self.skew_ms.load(Ordering::SeqCst)
    }
}

// ---------------------------------------------------------------------------------------------------------
// The world: an executor over the catalog tools, a seeded system of record, an audit trail.

/// Builds a [`World`].
pub(crate) struct WorldBuilder {
    config: Config,
    store: Option<Arc<dyn Store>>,
    clock: Option<Arc<dyn Clock>>,
    stages: Stages,
    specs: Vec<(ToolSpec, Value)>,
    resources: Option<Arc<dyn Resources>>,
}

impl WorldBuilder {
    /// Sets the executor's configuration.
    pub(crate) fn config(mut self, config: Config) -> WorldBuilder {
        self.config = config;
        self
    }

    /// Sets the idempotency store.
    pub(crate) fn store(mut self, store: Arc<dyn Store>) -> WorldBuilder {
        self.store = Some(store);
        self
    }

    /// Sets the clock.
    pub(crate) fn clock(mut self, clock: Arc<dyn Clock>) -> WorldBuilder {
        self.clock = Some(clock);
        self
    }

    /// Replaces the system of record the executor reads (the seeded one stays in `World::resources`).
    pub(crate) fn resources(mut self, resources: Arc<dyn Resources>) -> WorldBuilder {
        self.resources = Some(resources);
        self
    }

    /// Replaces the stages.
    pub(crate) fn stages(mut self, stages: Stages) -> WorldBuilder {
        self.stages = stages;
        self
    }

    /// Changes a catalog tool's spec before registration.
    pub(crate) fn spec(mut self, name: &str, change: impl FnOnce(&mut ToolSpec)) -> WorldBuilder {
        let (spec, _) = self.specs.iter_mut().find(|(spec, _)| spec.name == name).expect("a catalog tool");
        change(spec);
        self
    }

    /// Registers one more tool, described like a catalog file.
    pub(crate) fn extra(mut self, description: Value) -> WorldBuilder {
        let spec = serde_json::from_value(description.clone()).expect("a tool spec");
        self.specs.push((spec, description));
        self
    }

    /// Builds the world.
    pub(crate) fn build(self) -> World {
        let events = Arc::new(Events::default());
        let mut registry = Tools::new();
        let mut tools = BTreeMap::new();
        for (spec, catalog) in self.specs {
            let tool = Arc::new(ScriptedTool::new(spec, &catalog, Arc::clone(&events)));
            registry.register(Arc::clone(&tool) as Arc<dyn Tool>).expect("catalog schemas compile");
            tools.insert(tool.spec.name.clone(), tool);
        }
        let resources = Arc::new(seeded_resources());
        let audit = Arc::new(MemoryAudit::new());
        let mut builder = Executor::builder(registry)
            .config(self.config)
            .stages(self.stages)
            .resources(self.resources.unwrap_or_else(|| Arc::clone(&resources) as _))
            .audit(Arc::clone(&audit) as _);
        if let Some(store) = self.store {
            builder = builder.store(store);
        }
        if let Some(clock) = self.clock {
            builder = builder.clock(clock);
        }
        let executor = Arc::new(builder.build().expect("a valid configuration"));
        World { executor, tools, resources, audit, events }
    }
}

/// An executor over the catalog tools, with its ports kept at hand.
pub(crate) struct World {
    /// The executor under test.
    pub(crate) executor: Arc<Executor>,
    tools: BTreeMap<String, Arc<ScriptedTool>>,
    /// The system of record.
    pub(crate) resources: Arc<MemoryResources>,
    /// The audit trail.
    pub(crate) audit: Arc<MemoryAudit>,
    /// Start/end events of every tool call.
    pub(crate) events: Arc<Events>,
}

impl World {
    /// The default world.
    pub(crate) fn new() -> World {
        World::builder().build()
    }

    /// A builder with the default configuration and every catalog tool.
    pub(crate) fn builder() -> WorldBuilder {
        WorldBuilder {
            config: Config::default(),
            store: None,
            clock: None,
            stages: Stages::REFERENCE,
            specs: CATALOG.iter().map(|name| (catalog_spec(name), catalog_json(name))).collect(),
            resources: None,
        }
    }

    /// The scripted tool with this name.
    pub(crate) fn tool(&self, name: &str) -> &ScriptedTool {
        self.tools.get(name).unwrap_or_else(|| panic!("no tool {name}"))
    }

    /// Executes one request and checks the envelope against the published schema.
    pub(crate) async fn execute(&self, request: Request) -> Envelope {
        let envelope = self.executor.execute(request).await;
        check_envelope(&envelope);
        envelope
    }

    /// Executes one model turn and checks every envelope.
    pub(crate) async fn batch(&self, requests: Vec<Request>) -> Vec<Envelope> {
        let envelopes = self.executor.execute_batch(requests).await;
        envelopes.iter().for_each(check_envelope);
        envelopes
    }

    /// Every call any tool got (invocations and status queries).
    pub(crate) fn tool_calls(&self) -> usize {
        self.tools.values().map(|tool| tool.calls().len()).sum()
    }

    /// Every audit record so far.
    pub(crate) fn audit_records(&self) -> Vec<AuditRecord> {
        self.audit.records()
    }

    /// The idempotency record of `key`.
    pub(crate) async fn record(&self, key: &str) -> Record {
        self.executor.store().load(key).await.expect("the store answers").expect("a record for the key")
    }

    /// The idempotency record behind an envelope.
    pub(crate) async fn record_of(&self, envelope: &Envelope) -> Record {
        let key = envelope.meta.idempotency_key.as_deref().expect("the envelope names an idempotency key");
        self.record(key).await
    }
}

/// Orders and accounts: alice and bob in [`TENANT`], carol (and another alice) in [`OTHER_TENANT`].
pub(crate) fn seeded_resources() -> MemoryResources {
    let resources = MemoryResources::new();
    let order = |id: &str, tenant: &str, owner: &str, refundable: u64| {
        resources.insert(
            ResourceRef::new("order", id),
            Resource {
                tenant_id: tenant.to_owned(),
                owner_id: owner.to_owned(),
                attributes: json!({"refundable_amount": refundable}),
            },
        );
    };
    order("ord_123", TENANT, ALICE, 5000);
    order("ord_456", TENANT, ALICE, 300);
    order("ord_bob", TENANT, BOB, 5000);
    order("ord_globex", OTHER_TENANT, CAROL, 5000);
    // Subject ids are only unique within a tenant: the other tenant has its own `u_alice`.
    order("ord_twin", OTHER_TENANT, ALICE, 5000);
    let account = |id: &str, tenant: &str, owner: &str| {
        resources.insert(
            ResourceRef::new("account", id),
            Resource { tenant_id: tenant.to_owned(), owner_id: owner.to_owned(), attributes: json!({}) },
        );
    };
    account("acct_alice", TENANT, ALICE);
    account("acct_bob", TENANT, BOB);
    resources
}

// ---------------------------------------------------------------------------------------------------------
// Requests.

/// A valid caller of `tenant` holding every catalog scope.
pub(crate) fn caller(subject: &str, tenant: &str) -> AuthContext {
    AuthContext::new(subject, tenant, &ALL_SCOPES)
}

/// Alice, the usual caller.
pub(crate) fn alice() -> AuthContext {
    caller(ALICE, TENANT)
}

/// Alice calls `tool` with raw argument text (call id `call_1`, 10 s budget).
pub(crate) fn call(tool: &str, arguments: &str) -> Request {
    Request::new(ToolCall::raw("call_1", tool, arguments), alice())
}

/// Alice calls `tool` with already-parsed arguments.
pub(crate) fn call_value(tool: &str, arguments: Value) -> Request {
    Request::new(ToolCall::value("call_1", tool, arguments), alice())
}

/// Raw refund_order arguments.
pub(crate) fn refund_args(order_id: &str, amount: u64) -> String {
    json!({"order_id": order_id, "amount": amount, "reason": "duplicate"}).to_string()
}

/// Alice refunds `amount` of `order_id`.
pub(crate) fn refund(order_id: &str, amount: u64) -> Request {
    call("refund_order", &refund_args(order_id, amount))
}

/// Changes to a request, so tests read as one expression.
pub(crate) trait RequestExt {
    /// Sets the model's call id.
    fn call_id(self, call_id: &str) -> Request;
    /// Sets the executor's request id.
    fn request_id(self, request_id: &str) -> Request;
    /// Sets the caller.
    fn by(self, auth: AuthContext) -> Request;
}

impl RequestExt for Request {
    fn call_id(mut self, call_id: &str) -> Request {
        self.call.call_id = call_id.to_owned();
        self
    }

    fn request_id(mut self, request_id: &str) -> Request {
        self.request_id = Some(request_id.to_owned());
        self
    }

    fn by(mut self, auth: AuthContext) -> Request {
        self.auth = auth;
        self
    }
}

/// SHA-256 of the canonical form of `arguments`, as the executor computes `arguments_hash`.
pub(crate) fn arguments_hash(arguments: &Value) -> String {
    sha256_hex(canonical_json(arguments).as_bytes())
}

/// An approval of `tool` with `arguments` for alice, valid for an hour from `now_ms`.
pub(crate) fn approval_for(tool: &str, arguments: &Value, now_ms: u64) -> Approval {
    Approval {
        approval_id: "apr_1".to_owned(),
        subject_id: ALICE.to_owned(),
        tenant_id: TENANT.to_owned(),
        tool: tool.to_owned(),
        arguments_hash: arguments_hash(arguments),
        risk: callproof_executor::Risk::Destructive,
        expires_at_ms: now_ms + 3_600_000,
    }
}

/// Wall-clock now in Unix ms.
pub(crate) fn wall_now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970").as_millis() as u64
}

// ---------------------------------------------------------------------------------------------------------
// Envelope checks.

/// docs/envelope.schema.json, parsed.
pub(crate) fn envelope_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/envelope.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn envelope_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&envelope_schema())
            .unwrap_or_else(|error| panic!("docs/envelope.schema.json does not compile: {error}"))
    })
}

/// The published schema's complaints about `json`, one line each.
pub(crate) fn schema_errors(json: &Value) -> Vec<String> {
    envelope_validator().iter_errors(json).map(|error| format!("{}: {error}", error.instance_path().as_str())).collect()
}

/// Panics unless `envelope` matches docs/envelope.schema.json.
pub(crate) fn check_envelope(envelope: &Envelope) {
    let json = envelope.to_json();
    let errors = schema_errors(&json);
    assert!(errors.is_empty(), "envelope breaks docs/envelope.schema.json: {errors:#?}\n{json:#}");
}

/// The envelope's error code as a wire string, or `ok`.
pub(crate) fn code(envelope: &Envelope) -> &'static str {
    envelope.code().map_or("ok", |code| code.as_str())
}

/// The error details of a failed envelope.
pub(crate) fn details(envelope: &Envelope) -> &serde_json::Map<String, Value> {
    envelope.error.as_ref().unwrap_or_else(|| panic!("expected a failure, got {:#}", envelope.to_json())).details()
}

/// Asserts the envelope failed with `expected`, showing the whole envelope otherwise.
#[track_caller]
pub(crate) fn assert_code(envelope: &Envelope, expected: &str) {
    assert_eq!(code(envelope), expected, "{:#}", envelope.to_json());
}

/// SIGKILLs this process (a real crash: no destructor, no flush), by `kill -KILL`; aborts if that fails.
fn kill_this_process() -> ! {
    let _ = std::process::Command::new("kill").args(["-KILL", &std::process::id().to_string()]).status();
    std::process::abort()
}
