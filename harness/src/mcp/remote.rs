//! The conformance app over Streamable HTTP (docs/mcp.md, Part 1): `conform --mcp-http CMD` starts the server
//! once per scenario on a free loopback port, `--mcp-url URL` talks to one already running.
//!
//! Rule enforced here: every call is one POST carrying a fresh bearer token with the caller's identity
//! ([`super::token`]) and its `_meta` context without `auth`; the answer is read from that POST's response as
//! docs/mcp.md's table says (a JSON-RPC message, else the status: 401 `unauthorized`, 403 `insufficient_scope`
//! `forbidden`, 400/413 to a text that is not JSON a refusal, any other status a protocol break); every POST is
//! bounded by the call's budget plus the margin. A server the harness started is restarted on crash faults
//! like a stdio one; a server it did not start is never asked to survive one.

use super::http::{Http, PostError, Posted};
use super::revision::{self, Revision, Route};
use super::stream::NoticeLog;
use super::subject::{
    CatalogFile, MAX_PAGES, REVISION, SET_LEVEL_WAIT, declares_logging, initialize_params, read_initialized,
    set_level_params,
};
use super::task_calls::{self, Mapped};
use super::token::{Audience, Given, Key, Minter};
use super::wire::{Era, Reader, http_call_line_in, now_s, read_answer, read_posted};
use crate::backlog::{self, Answers};
use crate::process::{self, Break, Handles, Piped, ProcessFactory, ProcessOptions, Restartable, Running};
use crate::protocol::{Capabilities, excerpt};
use crate::scenario::Scenario;
use crate::subject::{Reply, Subject, SubjectCall, SubjectError, SubjectFactory, SubjectFault, Support};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::OnceCell;

/// Where a started server listens: `CALLPROOF_MCP_URL` is `http://127.0.0.1:PORT` plus this path.
const PATH: &str = "/mcp";

/// The bound an HTTP client puts on a request; each call's own bound (budget plus margin) is shorter.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(600);

/// Which server: one the harness starts per scenario, or one already running.
enum Mode {
    /// `--mcp-http CMD`.
    Command(Box<ProcessFactory>),
    /// `--mcp-url URL`.
    Url(String),
}

/// The conformance app over Streamable HTTP: a [`SubjectFactory`] for `--mcp-http` and `--mcp-url`.
pub struct McpHttpFactory {
    mode: Mode,
    minter: Arc<Minter>,
    features: Vec<String>,
    revision: Revision,
    catalog: OnceCell<Result<CatalogFile, SubjectError>>,
    probed: OnceCell<Result<Capabilities, SubjectError>>,
    sessions: AtomicU64,
    run: String,
}

impl McpHttpFactory {
    /// `--mcp-http CMD`: the command, split like a POSIX shell would, started per scenario with a fresh key.
    ///
    /// # Errors
    /// When the command does not split, or no random key can be made.
    pub fn command(command: &str) -> Result<McpHttpFactory, String> {
        let process = ProcessFactory::new(command).map_err(|error| error.to_string())?;
        Ok(McpHttpFactory::of(Mode::Command(Box::new(process)), Key::generate()?))
    }

    /// `--mcp-url URL --mcp-token-key-file FILE`: a running server that verifies tokens signed with `key`.
    ///
    /// # Errors
    /// When `url` is not an `http://` URL.
    pub fn url(url: &str, key: Key) -> Result<McpHttpFactory, String> {
        Http::new(url, CLIENT_TIMEOUT)?;
        Ok(McpHttpFactory::of(Mode::Url(url.to_owned()), key))
    }

    fn of(mode: Mode, key: Key) -> McpHttpFactory {
        McpHttpFactory {
            mode,
            minter: Arc::new(Minter::new(key)),
            features: Vec::new(),
            revision: Revision::Auto,
            catalog: OnceCell::new(),
            probed: OnceCell::new(),
            sessions: AtomicU64::new(1),
            run: {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_nanos());
                format!("{:x}{:x}", std::process::id(), nanos % 0xffff_ffff)
            },
        }
    }

    /// Replaces the process options (timeouts, extra environment) of a started server.
    #[must_use]
    pub fn with_options(mut self, options: ProcessOptions) -> McpHttpFactory {
        if let Mode::Command(process) = self.mode {
            self.mode = Mode::Command(Box::new(process.with_options(options)));
        }
        self
    }

    /// The MCP revision to speak (`--mcp-revision`; `auto` asks the server).
    #[must_use]
    pub fn with_revision(mut self, revision: Revision) -> McpHttpFactory {
        self.revision = revision;
        self
    }

    /// Features the server has but cannot declare (`--mcp-features`).
    #[must_use]
    pub fn with_features(mut self, features: Vec<String>) -> McpHttpFactory {
        self.features = features;
        self
    }

    fn options(&self) -> ProcessOptions {
        match &self.mode {
            Mode::Command(process) => process.options().clone(),
            Mode::Url(_) => ProcessOptions::default(),
        }
    }

    fn session(&self) -> String {
        match &self.mode {
            Mode::Command(process) => process.new_session(),
            // Unique across runs too: a server that keeps running keeps the records of earlier runs.
            Mode::Url(_) => format!("cp_url_{}_{}", self.run, self.sessions.fetch_add(1, Ordering::Relaxed)),
        }
    }

    /// Starts the server once against no downstream (or reaches the running one), reads its capabilities and
    /// stops it. Cached.
    ///
    /// # Errors
    /// [`SubjectError`] when the server cannot be started, does not listen, or its handshake fails.
    pub async fn probe(&self) -> Result<Capabilities, SubjectError> {
        self.probed
            .get_or_init(|| async {
                let (subject, mut capabilities) = self.open("http://127.0.0.1:9").await?;
                subject.stop().await;
                for feature in &self.features {
                    if !capabilities.has(feature) {
                        capabilities.features.push(feature.clone());
                    }
                }
                Ok(capabilities)
            })
            .await
            .clone()
    }

    async fn open(&self, downstream_url: &str) -> Result<(Arc<dyn Subject>, Capabilities), SubjectError> {
        let session = self.session();
        match &self.mode {
            Mode::Command(process) => {
                let port = free_port().map_err(SubjectError::Assembly)?;
                let url = format!("http://127.0.0.1:{port}{PATH}");
                // With a store address, its store goes through a relay of its own that `store_outage` cuts.
                let (options, store) = process::with_store_proxy(&self.options()).await?;
                let mut env = options.env.clone();
                let catalog = self.catalog_path().await?;
                env.push(("CALLPROOF_DOWNSTREAM_URL".to_owned(), downstream_url.to_owned()));
                env.push(("CALLPROOF_CATALOG".to_owned(), catalog));
                env.push(("CALLPROOF_SESSION".to_owned(), session));
                env.push(("CALLPROOF_MCP_URL".to_owned(), url.clone()));
                env.push(("CALLPROOF_TOKEN_KEY".to_owned(), self.minter.key().text().to_owned()));
                let audience = Audience { url, fixture: None };
                let (minter, revision) = (self.minter.clone(), self.revision);
                let (notices, given) = (NoticeLog::default(), Given::default());
                let start = Start { env, port, audience, minter, revision, notices, given };
                let (served, capabilities) = Served::launch(process.argv(), &options, &start).await?;
                let current = tokio::sync::Mutex::new(Arc::new(served));
                let argv = process.argv().to_vec();
                Ok((Arc::new(Restartable { argv, options, start, current, store }), capabilities))
            }
            Mode::Url(url) => {
                let audience = Audience { url: url.clone(), fixture: Some((downstream_url.to_owned(), session)) };
                let kept = (NoticeLog::default(), Given::default());
                let endpoint = Endpoint::new(url, audience, self.minter.clone(), self.revision, kept)
                    .map_err(SubjectError::Assembly)?;
                let timeout = self.options().start_timeout;
                let (endpoint, capabilities) = endpoint.opened(timeout).await.map_err(|why| {
                    SubjectError::Handshake { command: url.clone(), why, exited: None, stderr_tail: Vec::new() }
                })?;
                let remote = Remote { endpoint, margin: self.options().answer_margin };
                Ok((Arc::new(remote), capabilities))
            }
        }
    }

    async fn catalog_path(&self) -> Result<String, SubjectError> {
        match self.catalog.get_or_init(|| async { CatalogFile::write() }).await {
            Ok(CatalogFile(path)) => Ok(path.display().to_string()),
            Err(error) => Err(error.clone()),
        }
    }
}

#[async_trait]
impl SubjectFactory for McpHttpFactory {
    fn name(&self) -> String {
        match &self.mode {
            Mode::Command(process) => format!("mcp-http: {}", crate::shell::join(process.argv())),
            Mode::Url(url) => format!("mcp-url: {url}"),
        }
    }

    async fn support(&self, scenario: &Scenario) -> Support {
        if matches!(self.mode, Mode::Url(_)) && scenario.kills_subject() {
            return Support::Skip("the harness cannot restart a server it did not start (--mcp-url)".to_owned());
        }
        let proxied = self.options().store_upstream.is_some();
        process::support(scenario, self.probe().await.ok().as_ref(), "not in its tools/list", proxied, false)
    }

    async fn tools(&self) -> Option<Vec<String>> {
        self.probe().await.ok().map(|capabilities| capabilities.tools)
    }

    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        Ok(self.open(downstream_url).await?.0)
    }
}

/// Ports handed to started servers: below Linux's ephemeral range (32768 and up), so a port the operating system
/// hands out for `:0` (the mocked downstreams of scenarios running at the same time) is never one of them.
const PORTS: std::ops::Range<u16> = 20_000..32_000;

/// The next port of [`PORTS`], in turn from a random start, that can be bound now. Two scenarios of a run never
/// get the same one while fewer than 12 000 servers run at once.
fn free_port() -> Result<u16, String> {
    static NEXT: std::sync::OnceLock<std::sync::atomic::AtomicU32> = std::sync::OnceLock::new();
    let span = u32::from(PORTS.end - PORTS.start);
    let next = NEXT.get_or_init(|| {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.subsec_nanos());
        std::sync::atomic::AtomicU32::new((seed ^ std::process::id()) % span)
    });
    for _ in 0..256 {
        let offset = next.fetch_add(1, Ordering::Relaxed) % span;
        let port = PORTS.start + u16::try_from(offset).unwrap_or(0);
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(format!("no free loopback port in {}..{}", PORTS.start, PORTS.end))
}

/// What starting (and restarting) a server needs: the same environment, port and audience each time.
struct Start {
    env: Vec<(String, String)>,
    port: u16,
    audience: Audience,
    minter: Arc<Minter>,
    revision: Revision,
    /// The notifications of every process of the scenario, across restarts.
    notices: NoticeLog,
    /// The tokens given to every process of the scenario, across restarts.
    given: Given,
}

/// One endpoint and what a client of it keeps: the tokens, the tools it listed, and a session per caller and
/// attempt.
/// SDKs bind a session to the credential that opened it (the Python SDK answers 404 "Session not found" to
/// another subject's token), so each subject a scenario calls as gets its own, opened with its own token.
struct Endpoint {
    http: Http,
    audience: Audience,
    minter: Arc<Minter>,
    next_id: AtomicI64,
    tools: BTreeSet<String>,
    sessions: tokio::sync::Mutex<std::collections::BTreeMap<String, Arc<Http>>>,
    /// The revision asked for; `auto` asks the server (`server/discover` first).
    revision: Revision,
    /// Speaking 2026-07-28: no session, the `_meta` fields and the headers on every request.
    modern: AtomicBool,
    /// The server declared the Tasks extension in `server/discover` (see [`super::task_calls`]).
    tasks: AtomicBool,
    /// The answers so far: a call's wait starts again at each one ([`crate::backlog`]).
    answers: Answers,
    /// The notifications that came on the calls' streams, for the transcript.
    notices: NoticeLog,
    /// The tokens sent, for the transcript.
    given: Given,
}

impl Endpoint {
    fn new(
        url: &str,
        audience: Audience,
        minter: Arc<Minter>,
        revision: Revision,
        (notices, given): (NoticeLog, Given),
    ) -> Result<Endpoint, String> {
        let http = Http::new(url, CLIENT_TIMEOUT)?;
        let sessions = tokio::sync::Mutex::new(std::collections::BTreeMap::new());
        let next_id = AtomicI64::new(1);
        let (modern, tasks) = (AtomicBool::new(false), AtomicBool::new(false));
        let answers = Answers::default();
        Ok(Endpoint {
            http,
            audience,
            minter,
            next_id,
            tools: BTreeSet::new(),
            sessions,
            revision,
            modern,
            tasks,
            answers,
            notices,
            given,
        })
    }

    /// A token for `call`, kept as one the server was given.
    fn token(&self, call: &SubjectCall) -> Result<String, String> {
        let token = self.minter.token(call, &self.audience, now_s())?;
        self.given.keep(&token);
        Ok(token)
    }

    fn modern(&self) -> bool {
        self.modern.load(Ordering::Relaxed)
    }

    /// 2026-07-28: `server/discover`; the server's name, version and features, or `None` when, under `auto`,
    /// the answer is neither a `DiscoverResult` nor a modern error (the legacy handshake follows: a 4xx without
    /// a modern error body means a legacy server).
    async fn discover(&self) -> Result<Option<(String, String, Vec<String>)>, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let params = revision::with_meta(None);
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params}).to_string();
        let posted = self.post_routed(&line, &Route::modern("server/discover", None)).await?;
        let answer = posted.messages.iter().find(|message| message.get("id") == Some(&json!(id)));
        let result =
            answer.and_then(|answer| answer.get("result")).filter(|result| revision::is_discover_result(result));
        let modern_error = posted.messages.iter().any(|message| {
            message.pointer("/error/code").and_then(Value::as_i64).is_some_and(revision::is_modern_error)
        });
        let Some(result) = result else {
            if self.revision == Revision::Auto && !modern_error {
                return Ok(None);
            }
            let why =
                format!("HTTP {} {}", posted.status, excerpt(&format!("{:?} {}", posted.messages, posted.body), 300));
            return Err(format!("it answered server/discover without a DiscoverResult: {why}"));
        };
        let discovered = revision::read_discovered(result)?;
        self.modern.store(true, Ordering::Relaxed);
        let tasks = result.get("capabilities").is_some_and(revision::declares_tasks);
        self.tasks.store(tasks, Ordering::Relaxed);
        Ok(Some(discovered))
    }

    /// The session of `call`'s subject and attempt, opened (`initialize`, `notifications/initialized`) with a
    /// valid token of that subject the first time. Each attempt number has a session of its own, as a client
    /// that reconnects before it retries: a retry must find the operation's record whatever session it comes
    /// on (errors.md: records belong to the business operation), and a server that keeps them per session
    /// executes the retry again.
    async fn session_of(&self, call: &SubjectCall) -> Result<Arc<Http>, String> {
        let mut sessions = self.sessions.lock().await;
        if let Some(http) = sessions.get(&client_of(call)) {
            return Ok(http.clone());
        }
        let mut opener = call.clone();
        opener.auth.identity = callproof_executor::auth::Identity { valid: true, expires_at_ms: None };
        let token = self.token(&opener)?;
        let http = self.open_session(&token).await?.map_err(|refused| {
            let why = format!("HTTP {} {}", refused.status, excerpt(&refused.body, 200));
            format!("it refused to open a session for {}: {why}", call.auth.subject_id)
        })?;
        sessions.insert(client_of(call), http.clone());
        Ok(http)
    }

    /// A new session for `call`'s subject and attempt, opened with the call's own `token`, after the server
    /// answered 404 to the call on the old one: the spec's client then starts a new session (2025-11-25
    /// transports §Session Management). SDKs bind a session to the principal whose token opened it, so a token
    /// that verifies but names another principal (another issuer) finds no session. `Err` holds the server's
    /// refusal of the `initialize` (a 401 to that token), which is then the call's answer.
    async fn reopened(&self, call: &SubjectCall, token: &str) -> Result<Result<Arc<Http>, Posted>, String> {
        let mut sessions = self.sessions.lock().await;
        let opened = self.open_session(token).await?;
        if let Ok(http) = &opened {
            sessions.insert(client_of(call), http.clone());
        }
        Ok(opened)
    }

    /// `initialize`, `notifications/initialized` and (when the server declares logging) `logging/setLevel` on a
    /// new connection, with `token`; `Err` inside is the answer to an `initialize` that opened nothing.
    async fn open_session(&self, token: &str) -> Result<Result<Arc<Http>, Posted>, String> {
        let http = Arc::new(Http::new(self.http.url(), CLIENT_TIMEOUT)?);
        let token = token.to_owned();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let params = json!({
            "protocolVersion": REVISION,
            "capabilities": {},
            "clientInfo": {"name": "callproof", "version": env!("CARGO_PKG_VERSION")},
        });
        let initialize = json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params}).to_string();
        let posted = http.post(&initialize, Some(&token)).await.map_err(|error| error.to_string())?;
        if !posted.messages.iter().any(|message| message.get("result").is_some()) {
            return Ok(Err(posted));
        }
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
        http.post(&initialized, Some(&token)).await.map_err(|error| error.to_string())?;
        if posted.messages.iter().any(declares_logging) {
            // The level is the session's: each session asks for every level; its answer does not matter.
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let set_level =
                json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel", "params": set_level_params()});
            let _ = tokio::time::timeout(SET_LEVEL_WAIT, http.post(&set_level.to_string(), Some(&token))).await;
        }
        Ok(Ok(http))
    }

    /// The handshake within `timeout`: `initialize`, `notifications/initialized`, `tools/list`.
    async fn opened(mut self, timeout: Duration) -> Result<(Endpoint, Capabilities), String> {
        let capabilities = tokio::time::timeout(timeout, self.handshake())
            .await
            .map_err(|_| format!("the handshake was not done within {} ms", timeout.as_millis()))??;
        self.tools = capabilities.tools.iter().cloned().collect();
        Ok((self, capabilities))
    }

    async fn handshake(&self) -> Result<Capabilities, String> {
        let discovered = if self.revision == Revision::Legacy { None } else { self.discover().await? };
        let (name, version, features) = match discovered {
            Some(discovered) => discovered,
            None => self.initialize().await?,
        };
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.take().map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
            let answer = self.request("tools/list", params).await?;
            let Some(page) = answer.pointer("/result/tools").and_then(Value::as_array) else {
                return Err(format!("its tools/list answer has no tools array: {}", excerpt(&answer.to_string(), 300)));
            };
            tools.extend(page.iter().filter_map(|tool| tool.get("name")?.as_str()).map(str::to_owned));
            match answer.pointer("/result/nextCursor") {
                Some(next @ Value::String(_)) => cursor = Some(next.clone()),
                _ => break,
            }
        }
        // The MCP revision spoken, which the report shows (not callproof/1's version: no `hello` here).
        let protocol = format!("mcp {}", if self.modern() { revision::MODERN } else { REVISION });
        Ok(Capabilities { protocol, name, version, tools, features })
    }

    /// The legacy handshake: `initialize` and `notifications/initialized`.
    async fn initialize(&self) -> Result<(String, String, Vec<String>), String> {
        let answer = self.request("initialize", initialize_params()).await?;
        let identity = read_initialized(&answer)?;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
        let posted = self.post(&initialized).await?;
        if !posted.success() {
            return Err(format!("it answered notifications/initialized with HTTP {}", posted.status));
        }
        Ok(identity)
    }

    /// A request outside any call, with a token for the harness itself, and the response with its id.
    async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let modern = self.modern();
        let params = if modern { revision::with_meta(Some(params)) } else { params };
        let route = if modern { Route::modern(method, None) } else { Route::default() };
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
        let posted = self.post_routed(&line, &route).await?;
        posted.messages.into_iter().find(|message| message.get("id") == Some(&json!(id))).ok_or_else(|| {
            format!("it answered {method} with HTTP {} and no response: {}", posted.status, excerpt(&posted.body, 300))
        })
    }

    async fn post(&self, line: &str) -> Result<Posted, String> {
        self.post_routed(line, &Route::default()).await
    }

    /// A POST with a token for the harness itself and the headers of `route`.
    async fn post_routed(&self, line: &str, route: &Route) -> Result<Posted, String> {
        let harness = SubjectCall {
            call: callproof_executor::ToolCall::raw("callproof", "callproof", "{}"),
            auth: callproof_executor::AuthContext::new("callproof", "callproof", &[]),
            business_request_id: None,
            attempt: 1,
            budget: Duration::ZERO,
        };
        let token = self.token(&harness)?;
        self.http.post_with(line, Some(&token), &route.headers()).await.map_err(|error| error.to_string())
    }

    /// One call: its POST with its token, bounded by the budget plus `margin` of when it was sent or, queued
    /// behind other calls, of the latest answer to one of them, and the answer read. A 404 to it on a session
    /// (the server keeps that session for another principal) opens a new one with the call's token, as
    /// [`Endpoint::reopened`] says, and sends the call there once.
    async fn call(&self, call: &SubjectCall, margin: Duration) -> Result<Reply, Break> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let modern = self.modern();
        let era = if modern { Era::Modern } else { Era::Legacy };
        let (line, route, reader): (String, Route, Reader) =
            match task_calls::map(call, era, self.tasks.load(Ordering::Relaxed)) {
                Mapped::Call(era) => {
                    (http_call_line_in(id, call, era), Route::modern("tools/call", Some(&call.call.name)), read_answer)
                }
                Mapped::Task { method, task_id } => {
                    let line = task_calls::task_line(id, call, method, &task_id, false);
                    (line, Route::modern(method, Some(&task_id)), task_calls::read_task)
                }
            };
        let token = self.token(call).map_err(Break::Wrote)?;
        let silent = || Break::Silent { request: id.to_string(), budget: call.budget, margin };
        // 2026-07-28 has no sessions: every call is one POST with the headers mirroring its body.
        let (http, route) = if modern {
            (None, route)
        } else {
            (Some(self.session_of(call).await.map_err(Break::Wrote)?), Route::default())
        };
        let headers = route.headers();
        let (mut session, mut reopened) = (http, false);
        let posted = loop {
            let posted = session.as_deref().unwrap_or(&self.http).post_with(&line, Some(&token), &headers);
            let posted = match backlog::within(call.budget + margin, self.answers.watch(), posted).await {
                None | Some(Err(PostError::Timeout(_))) => return Err(silent()),
                Some(Err(PostError::Connection { why, .. })) => {
                    return Err(Break::Wrote(format!("the POST of request {id} failed: {why}")));
                }
                Some(Err(error)) => return Err(Break::Wrote(error.to_string())),
                Some(Ok(posted)) => posted,
            };
            // Once: a session the server does not know for this token is opened again with it.
            if posted.status == 404 && session.is_some() && !reopened {
                reopened = true;
                match self.reopened(call, &token).await.map_err(Break::Wrote)? {
                    Ok(fresh) => session = Some(fresh),
                    Err(refused) => break refused,
                }
                continue;
            }
            break posted;
        };
        self.answers.answered();
        for message in &posted.messages {
            self.notices.note(message, || message.to_string().len());
        }
        read_posted(&posted, call, id, (&self.tools, reader), &line).map_err(Break::Wrote)
    }
}

/// Which session a call goes on: one per subject and attempt.
fn client_of(call: &SubjectCall) -> String {
    format!("{} attempt {}", call.auth.subject_id, call.attempt)
}

/// A server the harness started: the process and its endpoint.
struct Served {
    handles: Handles,
    endpoint: Endpoint,
}

impl Served {
    /// Starts the server, waits until its port accepts connections (within the start timeout, while it runs),
    /// and does the handshake.
    async fn launch(
        argv: &[String],
        options: &ProcessOptions,
        start: &Start,
    ) -> Result<(Served, Capabilities), SubjectError> {
        let Piped { command, mut child, stdin, stdout, stderr } = Piped::spawn(argv, &start.env)?;
        // Nothing is spoken over stdio; stdout is read to the end so that a chatty server never blocks on it.
        let reader = tokio::spawn(async move {
            let mut stdout = stdout;
            let _ = tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await;
        });
        let listening = async {
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(format!("it exited ({status}) before listening on port {}", start.port));
                }
                if tokio::net::TcpStream::connect(("127.0.0.1", start.port)).await.is_ok() {
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        let waited = tokio::time::timeout(options.start_timeout, listening).await;
        let handles = Handles::new(command.clone(), child, stdin, stderr, reader);
        let failed = |why: String, handles: Handles| async move {
            let stderr_tail = handles.stderr.lines();
            handles.kill().await;
            handles.stderr.settle(true).await;
            let stderr_tail = if stderr_tail.is_empty() { handles.stderr.lines() } else { stderr_tail };
            SubjectError::Handshake { command, why, exited: None, stderr_tail }
        };
        match waited {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return Err(failed(why, handles).await),
            Err(_) => {
                let why =
                    format!("it did not listen on port {} within {} ms", start.port, options.start_timeout.as_millis());
                return Err(failed(why, handles).await);
            }
        }
        let endpoint = Endpoint::new(
            &start.audience.url,
            start.audience.clone(),
            start.minter.clone(),
            start.revision,
            (start.notices.clone(), start.given.clone()),
        );
        let endpoint = match endpoint {
            Ok(endpoint) => endpoint,
            Err(why) => return Err(failed(why, handles).await),
        };
        match endpoint.opened(options.start_timeout).await {
            Ok((endpoint, capabilities)) => Ok((Served { handles, endpoint }, capabilities)),
            Err(why) => Err(failed(why, handles).await),
        }
    }
}

#[async_trait]
impl Running for Served {
    type Start = Start;

    async fn start(argv: &[String], options: &ProcessOptions, start: &Start) -> Result<Served, SubjectError> {
        Ok(Served::launch(argv, options, start).await?.0)
    }

    async fn execute(&self, call: SubjectCall, margin: Duration) -> Result<Reply, SubjectError> {
        match self.endpoint.call(&call, margin).await {
            Ok(reply) => Ok(reply),
            Err(why) => Err(self.handles.error(why).await),
        }
    }

    fn handles(&self) -> &Handles {
        &self.handles
    }

    fn notices(start: &Start) -> Vec<Value> {
        start.notices.kept()
    }

    fn credentials(start: &Start) -> Vec<String> {
        start.given.kept()
    }

    /// An HTTP server does not read its stdin: it is asked to stop with SIGTERM, as a service manager would.
    async fn stop(&self, grace: Duration) {
        self.handles.terminate(grace).await;
    }
}

/// A server the harness did not start (`--mcp-url`): calls only; it is never killed or stopped.
struct Remote {
    endpoint: Endpoint,
    margin: Duration,
}

#[async_trait]
impl Subject for Remote {
    async fn execute(&self, call: SubjectCall) -> Result<Value, SubjectError> {
        self.answer(call).await.map(|reply| reply.value)
    }

    async fn answer(&self, call: SubjectCall) -> Result<Reply, SubjectError> {
        self.endpoint.call(&call, self.margin).await.map_err(|why| match why {
            Break::Silent { request, budget, margin } => SubjectError::Silent {
                command: self.endpoint.audience.url.clone(),
                awaited: crate::subject::Awaited::Answer { request, budget, margin },
                stderr_tail: Vec::new(),
            },
            Break::Wrote(why) => SubjectError::ProtocolBreak { why, exited: None, stderr_tail: Vec::new() },
            Break::Closed => SubjectError::Exited { status: None, stderr_tail: Vec::new() },
        })
    }

    async fn inject(&self, fault: SubjectFault, _on: bool) -> Result<(), SubjectError> {
        Err(SubjectError::Unsupported(format!("the harness cannot {fault} a server it did not start (--mcp-url)")))
    }

    async fn notices(&self) -> Vec<Value> {
        self.endpoint.notices.kept()
    }

    async fn credentials(&self) -> Vec<String> {
        self.endpoint.given.kept()
    }
}
