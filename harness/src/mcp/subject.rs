//! The conformance app over MCP: an [`McpFactory`] starts an MCP server over stdio once per scenario and turns
//! each call into one `tools/call` (docs/mcp.md, Part 1).
//!
//! Rule enforced here: the server's own parser meets the model's argument text byte for byte (spliced into
//! the line, never re-encoded), the trusted context travels only in `_meta["io.callproof/context"]`, and every
//! answer is read back as docs/mcp.md's table says: the envelope from `structuredContent`, a JSON-RPC error as
//! the refusal it stands for, anything else as no envelope at all. As for `callproof/1` processes, every wait
//! is bounded and a break fails every call in flight with the tail of the server's stderr.

use super::revision::{self, Revision};
use super::stream::NoticeLog;
use super::task_calls::{self, Mapped};
use super::wire::{Era, call_line_in, dropped, read_answer};
use crate::backlog;
use crate::process::{
    self, Break, Handles, Piped, ProcessFactory, ProcessOptions, Restartable, Running, Shared, fail, lock,
};
use crate::protocol::{Capabilities, excerpt};
use crate::scenario::Scenario;
use crate::shell;
use crate::subject::{Reply, Subject, SubjectCall, SubjectError, SubjectFactory, Support, listed_annotations};
use async_trait::async_trait;
use callproof_executor::app::catalog;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncWriteExt};
use tokio::sync::{OnceCell, RwLock, oneshot};

/// The legacy MCP revision (`initialize`, `notifications/initialized`); 2026-07-28 is [`revision::MODERN`].
pub const REVISION: &str = "2025-11-25";

/// Where a server declares the conformance app's features (`durable_store`) in its `initialize` result.
pub(super) const FEATURES_KEY: &str = "io.callproof/conformance-app";

/// The `initialize` request's params: this revision, no client capabilities, the harness's name.
pub(super) fn initialize_params() -> Value {
    json!({
        "protocolVersion": REVISION,
        "capabilities": {},
        "clientInfo": {"name": "callproof", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The server's name, version and conformance-app features from its `initialize` answer, or why that answer
/// cannot start a run (an error, or no tools capability).
pub(super) fn read_initialized(answer: &Value) -> Result<(String, String, Vec<String>), String> {
    let result = answer
        .get("result")
        .ok_or_else(|| format!("it answered initialize with an error: {}", excerpt(&answer.to_string(), 300)))?;
    if result.pointer("/capabilities/tools").is_none() {
        return Err(format!(
            "its initialize result declares no tools capability: {}",
            excerpt(&result.to_string(), 300)
        ));
    }
    let server = |field: &str| result.pointer(&format!("/serverInfo/{field}")).and_then(Value::as_str).unwrap_or("");
    let features = result
        .pointer(&format!("/capabilities/experimental/{}/features", FEATURES_KEY.replace('/', "~1")))
        .and_then(Value::as_array)
        .map(|features| features.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    Ok((server("name").to_owned(), server("version").to_owned(), features))
}

/// Whether an `initialize` answer declares `capabilities.logging`: such a 2025-11-25 server is asked for every
/// level (`logging/setLevel` `debug`) right after the handshake, so that a server that logs only what a client
/// asks for sends its log messages, which `no-secret-leak` judges (server/utilities/logging). 2026-07-28 asks
/// for them on each request instead (`META_LOG_LEVEL`).
pub(super) fn declares_logging(answer: &Value) -> bool {
    answer.pointer("/result/capabilities/logging").is_some()
}

/// The params of `logging/setLevel` asking for every level.
pub(super) fn set_level_params() -> Value {
    json!({"level": "debug"})
}

/// How long the answer to `logging/setLevel` is waited for before the run goes on without it.
pub(super) const SET_LEVEL_WAIT: Duration = Duration::from_secs(2);

/// How long an error with `id: null` may trail the liveness answer that follows a line that is not JSON.
const NULL_ID_GRACE: Duration = Duration::from_millis(200);

/// Most `tools/list` pages followed.
pub(super) const MAX_PAGES: usize = 100;

/// Under `--mcp-revision auto`, how long `server/discover` may go unanswered before the server is taken for a
/// legacy one (silence means legacy: 2026-07-28 versioning §Backward Compatibility); as long as rmcp waits, since
/// the wait includes the server's start.
const PROBE_WAIT: Duration = Duration::from_secs(10);

/// Starts one MCP server process per scenario (`callproof conform --mcp CMD`).
pub struct McpFactory {
    process: ProcessFactory,
    features: Vec<String>,
    revision: Revision,
    catalog: OnceCell<Result<CatalogFile, SubjectError>>,
    probed: OnceCell<Result<Capabilities, SubjectError>>,
    /// The annotations its `tools/list` gave, by tool name, from the probe.
    annotations: std::sync::OnceLock<Arc<BTreeMap<String, Value>>>,
}

impl McpFactory {
    /// A factory for `command`, split into words like a POSIX shell would and run without one.
    ///
    /// # Errors
    /// When the command is empty or its quotes do not close.
    pub fn new(command: &str) -> Result<McpFactory, shell::Error> {
        Ok(McpFactory {
            process: ProcessFactory::new(command)?,
            features: Vec::new(),
            revision: Revision::Auto,
            catalog: OnceCell::new(),
            probed: OnceCell::new(),
            annotations: std::sync::OnceLock::new(),
        })
    }

    /// Replaces the process options (timeouts, extra environment).
    #[must_use]
    pub fn with_options(mut self, options: ProcessOptions) -> McpFactory {
        self.process = self.process.with_options(options);
        self
    }

    /// Features the server has but cannot declare (`--mcp-features`), added to those it declares.
    #[must_use]
    pub fn with_features(mut self, features: Vec<String>) -> McpFactory {
        self.features = features;
        self
    }

    /// The MCP revision to speak (`--mcp-revision`; `auto` asks each server process).
    #[must_use]
    pub fn with_revision(mut self, revision: Revision) -> McpFactory {
        self.revision = revision;
        self
    }

    /// Starts the server once against no downstream, reads its capabilities (`serverInfo`, the tools of
    /// `tools/list`, the declared features) and stops it. Cached.
    ///
    /// # Errors
    /// [`SubjectError`] when the server cannot be started or its handshake fails.
    pub async fn probe(&self) -> Result<Capabilities, SubjectError> {
        self.probed
            .get_or_init(|| async {
                let env = self.env(self.options(), "http://127.0.0.1:9", &self.process.new_session()).await?;
                let start = Launch { env, revision: self.revision, notices: NoticeLog::default() };
                let (connection, capabilities) = Connection::start(self.process.argv(), self.options(), &start).await?;
                let listed = connection.annotations.lock().unwrap_or_else(PoisonError::into_inner).clone();
                let _ = self.annotations.set(Arc::new(listed));
                connection.handles.stop(self.options().stop_grace).await;
                Ok(self.with_declared(capabilities))
            })
            .await
            .clone()
    }

    fn options(&self) -> &ProcessOptions {
        self.process.options()
    }

    fn with_declared(&self, mut capabilities: Capabilities) -> Capabilities {
        for feature in &self.features {
            if !capabilities.has(feature) {
                capabilities.features.push(feature.clone());
            }
        }
        capabilities
    }

    /// The server's environment for one scenario: docs/mcp.md's table, after the variables of `options`.
    async fn env(
        &self,
        options: &ProcessOptions,
        downstream_url: &str,
        session: &str,
    ) -> Result<Vec<(String, String)>, SubjectError> {
        let catalog = match self.catalog.get_or_init(|| async { CatalogFile::write() }).await {
            Ok(CatalogFile(path)) => path,
            Err(error) => return Err(error.clone()),
        };
        let mut env = options.env.clone();
        env.push(("CALLPROOF_DOWNSTREAM_URL".to_owned(), downstream_url.to_owned()));
        env.push(("CALLPROOF_CATALOG".to_owned(), catalog.display().to_string()));
        env.push(("CALLPROOF_SESSION".to_owned(), session.to_owned()));
        Ok(env)
    }
}

/// The catalog array (`hello.catalog` of `callproof/1`) in a file of its own for `CALLPROOF_CATALOG`, removed
/// with the factory.
pub(super) struct CatalogFile(pub(super) PathBuf);

impl Drop for CatalogFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl CatalogFile {
    pub(super) fn write() -> Result<CatalogFile, SubjectError> {
        let entries: Vec<Value> = catalog().iter().filter_map(|entry| serde_json::to_value(entry).ok()).collect();
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.subsec_nanos());
        let path = std::env::temp_dir().join(format!("callproof-catalog-{}-{nanos:x}.json", std::process::id()));
        std::fs::write(&path, Value::Array(entries).to_string()).map_err(|error| {
            SubjectError::Assembly(format!(
                "cannot write the catalog for CALLPROOF_CATALOG to {}: {error}",
                path.display()
            ))
        })?;
        Ok(CatalogFile(path))
    }
}

#[async_trait]
impl SubjectFactory for McpFactory {
    fn name(&self) -> String {
        format!("mcp: {}", shell::join(self.process.argv()))
    }

    async fn support(&self, scenario: &Scenario) -> Support {
        let proxied = self.options().store_upstream.is_some();
        process::support(scenario, self.probe().await.ok().as_ref(), "not in its tools/list", proxied, false)
    }

    async fn tools(&self) -> Option<Vec<String>> {
        self.probe().await.ok().map(|capabilities| capabilities.tools)
    }

    async fn tool_annotations(&self) -> Arc<BTreeMap<String, Value>> {
        let _ = self.probe().await;
        self.annotations.get().cloned().unwrap_or_default()
    }

    /// With a store address in the options, the server reaches its store through a relay of its own (named in
    /// its environment, as for `callproof/1`), which a `store_outage` fault cuts.
    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        let (options, store) = process::with_store_proxy(self.options()).await?;
        let env = self.env(&options, downstream_url, &self.process.new_session()).await?;
        let start = Launch { env, revision: self.revision, notices: NoticeLog::default() };
        let (connection, _) = Connection::start(self.process.argv(), &options, &start).await?;
        Ok(Arc::new(Restartable {
            argv: self.process.argv().to_vec(),
            options,
            start,
            current: tokio::sync::Mutex::new(Arc::new(connection)),
            store,
        }))
    }
}

#[async_trait]
impl Running for Connection {
    type Start = Launch;

    async fn start(argv: &[String], options: &ProcessOptions, launch: &Launch) -> Result<Connection, SubjectError> {
        Ok(Connection::start(argv, options, launch).await?.0)
    }

    fn notices(launch: &Launch) -> Vec<Value> {
        launch.notices.kept()
    }

    async fn execute(&self, call: SubjectCall, margin: Duration) -> Result<Reply, SubjectError> {
        self.call(call, margin).await
    }

    fn handles(&self) -> &Handles {
        &self.handles
    }
}

/// What starting a server of one scenario needs, the same on a restart: its environment (so the same session),
/// the revision to speak, and the log every process of the scenario adds its notifications to.
pub(crate) struct Launch {
    env: Vec<(String, String)>,
    revision: Revision,
    notices: NoticeLog,
}

/// One running server and the JSON-RPC connection over its stdio.
struct Connection {
    handles: Handles,
    shared: Arc<Mutex<Shared>>,
    /// Errors with `id: null` read since the last line that was not JSON.
    strays: Arc<Mutex<Vec<Value>>>,
    next_id: AtomicI64,
    /// Calls whose line is JSON share it; a line that is not JSON takes it alone, so that an error with
    /// `id: null` can only be its answer.
    gate: RwLock<()>,
    tools: BTreeSet<String>,
    /// The annotations `tools/list` gave, by tool name.
    annotations: Mutex<BTreeMap<String, Value>>,
    /// Speaking 2026-07-28: every request carries the `_meta` fields, and the liveness request is
    /// `server/discover`.
    modern: AtomicBool,
    /// The server declared the Tasks extension in `server/discover`: the task tools go through
    /// [`task_calls`].
    tasks: AtomicBool,
}

impl Connection {
    /// Starts the server and does the handshake: `initialize`, `notifications/initialized`, `tools/list`.
    async fn start(
        argv: &[String],
        options: &ProcessOptions,
        Launch { env, revision, notices }: &Launch,
    ) -> Result<(Connection, Capabilities), SubjectError> {
        let Piped { command, child, stdin, stdout, stderr } = Piped::spawn(argv, env)?;
        let shared = Arc::new(Mutex::new(Shared::default()));
        let strays = Arc::new(Mutex::new(Vec::new()));
        let reader = tokio::spawn(read_messages(stdout, shared.clone(), strays.clone(), notices.clone()));
        let handles = Handles::new(command, child, stdin, stderr, reader);
        let mut connection = Connection {
            handles,
            shared,
            strays,
            next_id: AtomicI64::new(1),
            gate: RwLock::new(()),
            tools: BTreeSet::new(),
            annotations: Mutex::new(BTreeMap::new()),
            modern: AtomicBool::new(false),
            tasks: AtomicBool::new(false),
        };
        let handshake = tokio::time::timeout(options.start_timeout, connection.handshake(*revision)).await;
        let why = match handshake {
            Ok(Ok(capabilities)) => {
                connection.tools = capabilities.tools.iter().cloned().collect();
                return Ok((connection, capabilities));
            }
            Ok(Err(why)) => why,
            Err(_) => format!("the handshake was not done within {} ms", options.start_timeout.as_millis()),
        };
        let error = connection.failed_start(why).await;
        Err(error)
    }

    async fn failed_start(&self, why: String) -> SubjectError {
        let (exited, stderr_tail) = match self.handles.error(Break::Closed).await {
            SubjectError::Exited { status, stderr_tail } => (status, stderr_tail),
            _ => (None, self.handles.stderr.lines()),
        };
        SubjectError::Handshake { command: self.handles.command.clone(), why, exited, stderr_tail }
    }

    async fn handshake(&self, revision: Revision) -> Result<Capabilities, String> {
        if revision != Revision::Legacy
            && let Some(capabilities) = self.discover(revision).await?
        {
            return Ok(capabilities);
        }
        let answer = self.request("initialize", initialize_params()).await?;
        let refused = answer.pointer("/error/code").and_then(Value::as_i64).is_some_and(revision::is_modern_error);
        if refused && revision == Revision::Auto {
            // A modern server that answered the probe too late refuses initialize with a modern error: ask again.
            if let Some(capabilities) = self.discover(Revision::Modern).await? {
                return Ok(capabilities);
            }
        }
        let (name, version, features) = read_initialized(&answer)?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await?;
        if declares_logging(&answer) {
            // Whatever it answers, or if it never does, the run goes on: the level only widens what is judged.
            let _ = tokio::time::timeout(SET_LEVEL_WAIT, self.request("logging/setLevel", set_level_params())).await;
        }
        let tools = self.list_tools().await?;
        let protocol = format!("mcp {REVISION}");
        Ok(Capabilities { protocol, name, version, tools, features })
    }

    /// 2026-07-28: `server/discover`, then `tools/list`; `None` when, under `auto`, the answer is neither a
    /// `DiscoverResult` nor a modern error (the legacy handshake follows).
    async fn discover(&self, revision: Revision) -> Result<Option<Capabilities>, String> {
        let asked = self.request("server/discover", revision::with_meta(None));
        let answer = match revision {
            Revision::Auto => match tokio::time::timeout(PROBE_WAIT, asked).await {
                Ok(answer) => answer?,
                Err(_) => return Ok(None),
            },
            _ => asked.await?,
        };
        let result = answer.get("result").filter(|result| revision::is_discover_result(result));
        let modern_error = answer.pointer("/error/code").and_then(Value::as_i64).is_some_and(revision::is_modern_error);
        let Some(result) = result else {
            if revision == Revision::Auto && !modern_error {
                return Ok(None);
            }
            return Err(format!(
                "it answered server/discover without a DiscoverResult: {}",
                excerpt(&answer.to_string(), 300)
            ));
        };
        let (name, version, features) = revision::read_discovered(result)?;
        self.modern.store(true, Ordering::Relaxed);
        let tasks = result.get("capabilities").is_some_and(revision::declares_tasks);
        self.tasks.store(tasks, Ordering::Relaxed);
        let tools = self.list_tools().await?;
        let protocol = format!("mcp {}", revision::MODERN);
        Ok(Some(Capabilities { protocol, name, version, tools, features }))
    }

    fn modern(&self) -> bool {
        self.modern.load(Ordering::Relaxed)
    }

    /// The era of this connection's requests.
    fn era(&self) -> Era {
        if self.modern() { Era::Modern } else { Era::Legacy }
    }

    /// The names of `tools/list`, every page; the annotations of those that have some are kept.
    async fn list_tools(&self) -> Result<Vec<String>, String> {
        let mut names = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.take().map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
            let answer = self.request("tools/list", params).await?;
            let Some(tools) = answer.pointer("/result/tools").and_then(Value::as_array) else {
                return Err(format!("its tools/list answer has no tools array: {}", excerpt(&answer.to_string(), 300)));
            };
            names.extend(tools.iter().filter_map(|tool| tool.get("name")?.as_str()).map(str::to_owned));
            self.annotations.lock().unwrap_or_else(PoisonError::into_inner).extend(listed_annotations(tools));
            match answer.pointer("/result/nextCursor") {
                Some(next @ Value::String(_)) => cursor = Some(next.clone()),
                _ => return Ok(names),
            }
        }
        Ok(names)
    }

    /// A request of the handshake and its whole answer; the caller bounds the wait.
    async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let answered = self.expect(id).map_err(|why| describe(&why))?.answered;
        let params = if self.modern() { revision::with_meta(Some(params)) } else { params };
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()).await?;
        match answered.await {
            Ok(Ok(message)) => Ok(message),
            Ok(Err(why)) => Err(describe(&why)),
            Err(_) => Err("the answer channel closed".to_owned()),
        }
    }

    /// Registers request `id` before it is sent, so its answer cannot be missed.
    fn expect(&self, id: i64) -> Result<Expected, Break> {
        let (answer, answered) = oneshot::channel();
        let mut shared = lock(&self.shared);
        if let Some(why) = &shared.broken {
            return Err(why.clone());
        }
        shared.pending.insert(id.to_string(), answer);
        Ok(Expected { answered, others: shared.answers.watch() })
    }

    async fn send(&self, line: &str) -> Result<(), String> {
        let mut stdin = self.handles.stdin.lock().await;
        let Some(stdin) = stdin.as_mut() else { return Err("its stdin is closed".to_owned()) };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let written = match stdin.write_all(&bytes).await {
            Ok(()) => stdin.flush().await,
            Err(error) => Err(error),
        };
        written.map_err(|error| format!("cannot write to its stdin ({error})"))
    }

    /// One call: its `tools/call` line, sent alone when it is not JSON, and the answer read as an envelope.
    async fn call(&self, call: SubjectCall, margin: Duration) -> Result<Reply, SubjectError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (line, reader): (String, super::wire::Reader) =
            match task_calls::map(&call, self.era(), self.tasks.load(Ordering::Relaxed)) {
                Mapped::Call(era) => (call_line_in(id, &call, era), read_answer),
                Mapped::Task { method, task_id } => {
                    (task_calls::task_line(id, &call, method, &task_id, true), task_calls::read_task)
                }
            };
        let json = serde_json::from_str::<Value>(&line).is_ok();
        let bound = (call.budget, margin);
        let answer = if json { self.exchange(id, &line, bound).await } else { self.garbage(id, &line, bound).await };
        match answer {
            Ok(Heard::Message(message)) => match reader(&message, &call, id, &self.tools) {
                Ok(reply) => Ok(reply),
                Err(why) => Err(self.error(fail(&self.shared, Break::Wrote(why))).await),
            },
            Ok(Heard::Dropped) => Ok(dropped(&line).into()),
            Err(why) => Err(self.error(why).await),
        }
    }

    async fn exchange(&self, id: i64, line: &str, bound: (Duration, Duration)) -> Result<Heard, Break> {
        let _shared = self.gate.read().await;
        let expected = self.expect(id)?;
        if let Err(why) = self.send(line).await {
            return Err(fail(&self.shared, Break::Wrote(why)));
        }
        self.wait(id, expected, bound).await.map(Heard::Message)
    }

    /// The answer to `id` within its budget plus the margin of when it was sent or, queued behind other calls,
    /// of the latest answer to one of them ([`crate::backlog`]).
    async fn wait(&self, id: i64, expected: Expected, (budget, margin): (Duration, Duration)) -> Result<Value, Break> {
        match backlog::within(budget + margin, expected.others, expected.answered).await {
            Some(Ok(answer)) => answer,
            Some(Err(_)) => Err(Break::Wrote("the answer channel closed".to_owned())),
            None => Err(fail(&self.shared, Break::Silent { request: id.to_string(), budget, margin })),
        }
    }

    /// A line that is not JSON, alone on the connection, then a `ping`: the answer is the response with the
    /// call's id or the first error with `id: null`, before the ping's answer or within [`NULL_ID_GRACE`] after
    /// it; none means the server dropped the line.
    async fn garbage(&self, id: i64, line: &str, bound: (Duration, Duration)) -> Result<Heard, Break> {
        let _alone = self.gate.write().await;
        lock_strays(&self.strays).clear();
        let mut answered = self.expect(id)?.answered;
        if let Err(why) = self.send(line).await {
            return Err(fail(&self.shared, Break::Wrote(why)));
        }
        let ping = self.next_id.fetch_add(1, Ordering::Relaxed);
        let pinged = self.expect(ping)?;
        let liveness = if self.modern() {
            json!({"jsonrpc": "2.0", "id": ping, "method": "server/discover", "params": revision::with_meta(None)})
        } else {
            json!({"jsonrpc": "2.0", "id": ping, "method": "ping"})
        };
        if let Err(why) = self.send(&liveness.to_string()).await {
            return Err(fail(&self.shared, Break::Wrote(why)));
        }
        self.wait(ping, pinged, bound).await?;
        let mut answer = self.claim(id, &mut answered);
        if answer.is_none() {
            tokio::time::sleep(NULL_ID_GRACE).await;
            answer = self.claim(id, &mut answered);
        }
        Ok(answer.map_or(Heard::Dropped, Heard::Message))
    }

    /// The answer to the call `id`: its response, else the first stray error with `id: null`. Unclaimed, the
    /// call's id is forgotten.
    fn claim(&self, id: i64, answered: &mut oneshot::Receiver<Result<Value, Break>>) -> Option<Value> {
        if let Ok(Ok(message)) = answered.try_recv() {
            return Some(message);
        }
        let stray = lock_strays(&self.strays).first().cloned();
        if stray.is_some() {
            lock(&self.shared).pending.remove(&id.to_string());
        }
        stray
    }

    async fn error(&self, why: Break) -> SubjectError {
        self.handles.error(why).await
    }
}

/// A request registered before it is sent: its answer, and the answers to the others ([`crate::backlog`]).
struct Expected {
    answered: oneshot::Receiver<Result<Value, Break>>,
    others: tokio::sync::watch::Receiver<u64>,
}

/// What came back for one call.
enum Heard {
    /// The response (or the error with `id: null`) that answers it.
    Message(Value),
    /// Nothing answered a line that is not JSON, though the server answered the `ping` after it.
    Dropped,
}

fn lock_strays(strays: &Mutex<Vec<Value>>) -> std::sync::MutexGuard<'_, Vec<Value>> {
    strays.lock().unwrap_or_else(PoisonError::into_inner)
}

fn describe(why: &Break) -> String {
    match why {
        Break::Wrote(why) => why.clone(),
        Break::Closed => "it closed its stdout".to_owned(),
        Break::Silent { request, .. } => format!("it did not answer request {request}"),
    }
}

/// Reads the server's stdout: each response to its waiting request, errors with `id: null` kept as strays,
/// notifications kept in `notices` (for the transcript), requests of the server ignored; anything else breaks
/// the connection.
async fn read_messages(
    mut stdout: impl AsyncBufRead + Unpin,
    shared: Arc<Mutex<Shared>>,
    strays: Arc<Mutex<Vec<Value>>>,
    notices: NoticeLog,
) {
    loop {
        let line = match process::read_line(&mut stdout).await {
            Ok(Some(line)) => line,
            Ok(None) => return drop(fail(&shared, Break::Closed)),
            Err(why) => return drop(fail(&shared, Break::Wrote(why))),
        };
        let message = match serde_json::from_str::<Value>(&line) {
            Ok(message @ Value::Object(_)) => message,
            _ => {
                let why = format!("it wrote a line that is not a JSON-RPC message: {}", excerpt(&line, 200));
                return drop(fail(&shared, Break::Wrote(why)));
            }
        };
        if message.get("result").is_none() && message.get("error").is_none() {
            notices.note(&message, || line.len());
            continue;
        }
        let key = match message.get("id") {
            None | Some(Value::Null) => {
                lock_strays(&strays).push(message);
                continue;
            }
            Some(Value::String(id)) => id.clone(),
            Some(id) => id.to_string(),
        };
        let waiting = lock(&shared).answered(&key);
        match waiting {
            Some(answer) => {
                let _ = answer.send(Ok(message));
            }
            None => {
                let why = format!("it answered id {key}, which no open request has: {}", excerpt(&line, 200));
                return drop(fail(&shared, Break::Wrote(why)));
            }
        }
    }
}
