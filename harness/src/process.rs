//! Executors as processes: a [`ProcessFactory`] starts the executor command once per scenario and speaks the
//! adapter protocol (docs/protocol.md) with it over stdio.
//!
//! Rule enforced here: a process that breaks the protocol never hangs the harness. Every wait is bounded
//! (capabilities within the start timeout, each answer within its budget plus a margin of when it was sent or,
//! queued behind other calls, of the latest answer to one of them), and a break (a line
//! that is not a protocol message, an answer to an unknown id, an `error` message, silence, an exit) fails
//! every call in flight and every later call of that process with a [`SubjectError`] that says what happened
//! and carries the tail of the process's stderr. Kill faults SIGKILL the process; it is restarted with the
//! same command and the same session, so a durable store carries its records over. A pause stops it with
//! SIGSTOP and always resumes it with SIGCONT; a store outage cuts the [`StoreProxy`] its store goes through.
//! A `hello` step starts one more process with another protocol version and kills it after its first answer
//! (or, if that was `capabilities`, after a short wait for it to take the version back).

use crate::backlog::{self, Answers};
use crate::protocol::{self, Capabilities, FromExecutor, Hello, ToExecutor, VERSION, excerpt};
use crate::scenario::Scenario;
use crate::shell;
use crate::store_proxy::StoreProxy;
use crate::subject::{Awaited, Reply, Subject, SubjectCall, SubjectError, SubjectFactory, SubjectFault, Support};
use crate::transcript::HelloAnswer;
use crate::world::FaultSpec;
use crate::world::fault::Needs;
use async_trait::async_trait;
use callproof_executor::app::catalog;
use callproof_executor::lines::{self, LineError};
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{OnceCell, oneshot};

/// Longest line read from an executor; a longer one is a protocol break, never an unbounded allocation.
pub use callproof_executor::lines::MAX_LINE_BYTES;
/// Lines of stderr kept for error messages.
const STDERR_LINES: usize = 20;
/// Longest stderr line kept.
const STDERR_LINE_CHARS: usize = 400;

/// How the harness runs executor processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessOptions {
    /// How long past a call's budget an answer may come before the process is declared silent. Default 5 s.
    pub answer_margin: Duration,
    /// How long a started process may take to answer `hello` with its capabilities. Default 20 s.
    pub start_timeout: Duration,
    /// How long a stopped process (stdin closed) may take to exit before it is killed. Default 2 s.
    pub stop_grace: Duration,
    /// Extra environment variables for the process.
    pub env: Vec<(String, String)>,
    /// The address (`host:port`) of the executor's idempotency store: when set, every executor process gets a
    /// [`StoreProxy`] to it, named in `CALLPROOF_STORE_PROXY`, so that `store_outage` can cut its store off.
    pub store_upstream: Option<String>,
}

impl Default for ProcessOptions {
    fn default() -> ProcessOptions {
        ProcessOptions {
            answer_margin: Duration::from_secs(5),
            start_timeout: Duration::from_secs(20),
            stop_grace: Duration::from_secs(2),
            env: Vec::new(),
            store_upstream: None,
        }
    }
}

/// Starts one executor process per scenario.
pub struct ProcessFactory {
    argv: Vec<String>,
    options: ProcessOptions,
    probed: OnceCell<Result<Capabilities, SubjectError>>,
    sessions: AtomicU64,
    run: String,
}

impl ProcessFactory {
    /// A factory for `command`, split into words like a POSIX shell would ([`shell::split`]: quotes and
    /// backslashes, no expansions). The program is run directly, not through a shell.
    ///
    /// # Errors
    /// When the command is empty or its quotes do not close.
    pub fn new(command: &str) -> Result<ProcessFactory, shell::Error> {
        ProcessFactory::from_argv(shell::split(command)?)
    }

    /// A factory for a program and its arguments.
    ///
    /// # Errors
    /// [`shell::Error::Empty`] when `argv` is empty or its program is.
    pub fn from_argv(argv: Vec<String>) -> Result<ProcessFactory, shell::Error> {
        if argv.first().is_none_or(String::is_empty) {
            return Err(shell::Error::Empty);
        }
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
        Ok(ProcessFactory {
            argv,
            options: ProcessOptions::default(),
            probed: OnceCell::new(),
            sessions: AtomicU64::new(1),
            run: format!("{:x}{:x}", std::process::id(), nanos % 0xffff_ffff),
        })
    }

    /// Replaces the options.
    #[must_use]
    pub fn with_options(mut self, options: ProcessOptions) -> ProcessFactory {
        self.options = options;
        self
    }

    /// The command, as words.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The options processes are run with.
    pub fn options(&self) -> &ProcessOptions {
        &self.options
    }

    /// Starts the executor once against no downstream, reads its capabilities and stops it. Cached: later
    /// calls answer the first result.
    ///
    /// # Errors
    /// [`SubjectError`] when the process cannot be started or does not answer `hello` properly.
    pub async fn probe(&self) -> Result<Capabilities, SubjectError> {
        self.probed
            .get_or_init(|| async {
                let hello = self.hello("http://127.0.0.1:9", &format!("cp_{}_probe", self.run));
                let (instance, capabilities) = Instance::spawn(&self.argv, &self.options, &hello).await?;
                instance.handles.stop(self.options.stop_grace).await;
                Ok(capabilities)
            })
            .await
            .clone()
    }

    /// A session id no other scenario run of this factory uses.
    pub fn new_session(&self) -> String {
        format!("cp_{}_{}", self.run, self.sessions.fetch_add(1, Ordering::Relaxed))
    }

    /// Starts a process in `session`. Two processes started in one session share the records of a durable
    /// store: replicas of one executor (the race tests use this).
    ///
    /// # Errors
    /// [`SubjectError`] when the process cannot be started or does not answer `hello` properly.
    pub async fn start_session(&self, downstream_url: &str, session: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        let hello = self.hello(downstream_url, session);
        let (options, store) = with_store_proxy(&self.options).await?;
        let (instance, _) = Instance::spawn(&self.argv, &options, &hello).await?;
        Ok(Arc::new(Restartable {
            argv: self.argv.clone(),
            options,
            start: hello,
            current: tokio::sync::Mutex::new(Arc::new(instance)),
            store,
        }))
    }

    fn hello(&self, downstream_url: &str, session: &str) -> Hello {
        Hello {
            protocol: VERSION.to_owned(),
            session: session.to_owned(),
            downstream_url: downstream_url.to_owned(),
            catalog: catalog().iter().filter_map(|entry| serde_json::to_value(entry).ok()).collect(),
        }
    }
}

#[async_trait]
impl SubjectFactory for ProcessFactory {
    fn name(&self) -> String {
        shell::join(&self.argv)
    }

    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        self.start_session(downstream_url, &self.new_session()).await
    }

    async fn support(&self, scenario: &Scenario) -> Support {
        let proxied = self.options.store_upstream.is_some();
        support(scenario, self.probe().await.ok().as_ref(), "see its capabilities", proxied, true)
    }

    async fn tools(&self) -> Option<Vec<String>> {
        self.probe().await.ok().map(|capabilities| capabilities.tools)
    }
}

/// `options` with a fresh [`StoreProxy`] named in the environment, when they name the store's address.
pub(crate) async fn with_store_proxy(
    options: &ProcessOptions,
) -> Result<(ProcessOptions, Option<Arc<StoreProxy>>), SubjectError> {
    let Some(upstream) = &options.store_upstream else { return Ok((options.clone(), None)) };
    let proxy = StoreProxy::start(upstream)
        .await
        .map_err(|error| SubjectError::Unsupported(format!("cannot start the store proxy: {error}")))?;
    let mut options = options.clone();
    options.env.push((protocol::STORE_PROXY_ENV.to_owned(), proxy.address().to_string()));
    Ok((options, Some(Arc::new(proxy))))
}

/// Whether an executor process with `capabilities` (unknown: `None`) can be judged on `scenario`: a fault that
/// needs store control is skipped unless the executor declares `store_outage` and the harness relays its store
/// (`proxied`), a pause is skipped unless it declares `pause`, a scenario calling a catalog tool the executor
/// lacks is skipped, a crash scenario (a kill fault, a restart step) is an expected failure when the store is not declared durable, and a
/// scenario that ends the input with a call in flight is skipped unless the subject speaks `callproof/1`
/// (`line_protocol`). Shared by every process subject (`callproof/1`, MCP).
pub(crate) fn support(
    scenario: &Scenario,
    capabilities: Option<&Capabilities>,
    where_listed: &str,
    proxied: bool,
    line_protocol: bool,
) -> Support {
    let faults: Vec<&FaultSpec> = scenario.steps.iter().flat_map(|step| step.faults()).collect();
    let declares = |feature: &str| capabilities.is_some_and(|capabilities| capabilities.has(feature));
    if let Some(fault) = faults.iter().find(|fault| fault.kind.needs() == Needs::StoreControl) {
        let why = match (declares(protocol::STORE_OUTAGE), proxied) {
            (true, true) => None,
            (false, _) => Some("the executor does not declare store_outage (its store cannot be cut off)"),
            (true, false) => Some("the harness was given no store address to relay (conform --store-address)"),
        };
        if let Some(why) = why {
            return Support::Skip(format!(
                "{} needs control over the executor's idempotency store: {why}",
                fault.kind.name()
            ));
        }
    }
    if let Some(fault) = faults.iter().find(|fault| fault.kind.needs() == Needs::LineProtocol)
        && !line_protocol
    {
        return Support::Skip(format!(
            "{} closes the server's input with a call in flight, and an MCP server may end its session at once",
            fault.kind.name()
        ));
    }
    if scenario.says_hello() && !line_protocol {
        return Support::Skip(
            "a hello step starts a callproof/1 process, and an MCP server is not started with a hello".to_owned(),
        );
    }
    if let Some(fault) = faults.iter().find(|fault| fault.kind.needs() == Needs::Pause)
        && !declares(protocol::PAUSE)
    {
        return Support::Skip(format!(
            "{} stops the executor's process, and the executor does not declare pause (SIGSTOP may not reach it)",
            fault.kind.name()
        ));
    }
    let Some(capabilities) = capabilities else { return Support::Full };
    let missing: Vec<&str> = scenario
        .steps
        .iter()
        .filter_map(|step| step.tool())
        .filter(|tool| catalog().iter().any(|entry| entry.spec.name == *tool))
        .filter(|tool| !capabilities.tools.iter().any(|known| known == tool))
        .collect();
    if let Some(tool) = missing.first() {
        return Support::Skip(format!("the executor does not implement `{tool}` ({where_listed})"));
    }
    if scenario.kills_subject() && !capabilities.has(crate::protocol::DURABLE_STORE) {
        return Support::ExpectFailure(
            "the executor's idempotency store does not survive a restart (its capabilities declare no \
             durable_store), so a crash can lose a record"
                .to_owned(),
        );
    }
    Support::Full
}

/// A running executor process of one kind (`callproof/1`, MCP): started with what `Start` holds, killed, stopped.
#[async_trait]
pub(crate) trait Running: Send + Sync + Sized + 'static {
    /// What starting one needs besides the command and the options (the `hello`, the environment).
    type Start: Send + Sync;

    /// Starts the process and does its handshake.
    async fn start(argv: &[String], options: &ProcessOptions, start: &Self::Start) -> Result<Self, SubjectError>;

    /// One call, answered within its budget plus `margin`.
    async fn execute(&self, call: SubjectCall, margin: Duration) -> Result<Reply, SubjectError>;

    /// Its process handles (to kill, stop or signal it).
    fn handles(&self) -> &Handles;

    /// Ends it at the end of a scenario: by closing its stdin, waiting up to `grace`, then killing it.
    async fn stop(&self, grace: Duration) {
        self.handles().stop(grace).await;
    }

    /// The notifications the processes started with `start` sent beside their answers (MCP), oldest first.
    fn notices(_start: &Self::Start) -> Vec<Value> {
        Vec::new()
    }

    /// The credentials the harness gave the processes started with `start` (MCP over HTTP: bearer tokens).
    fn credentials(_start: &Self::Start) -> Vec<String> {
        Vec::new()
    }

    /// Starts another process as `start` would, but with a `hello` naming `protocol`, and reads what it answers
    /// before killing it. `None` for a kind started without a `hello` (MCP).
    async fn answer_hello(
        _argv: &[String],
        _options: &ProcessOptions,
        _start: &Self::Start,
        _protocol: &str,
    ) -> Option<Result<HelloAnswer, SubjectError>> {
        None
    }
}

/// One scenario's executor: the current process, replaced on restart with the same command and start (so the
/// same session, and a durable store carries its records over).
pub(crate) struct Restartable<R: Running> {
    pub(crate) argv: Vec<String>,
    pub(crate) options: ProcessOptions,
    pub(crate) start: R::Start,
    pub(crate) current: tokio::sync::Mutex<Arc<R>>,
    /// The relay its store goes through, when the harness can cut it off.
    pub(crate) store: Option<Arc<StoreProxy>>,
}

#[async_trait]
impl<R: Running> Subject for Restartable<R> {
    async fn execute(&self, call: SubjectCall) -> Result<Value, SubjectError> {
        self.answer(call).await.map(|reply| reply.value)
    }

    async fn answer(&self, call: SubjectCall) -> Result<Reply, SubjectError> {
        let current = self.current.lock().await.clone();
        current.execute(call, self.options.answer_margin).await
    }

    async fn inject(&self, fault: SubjectFault, on: bool) -> Result<(), SubjectError> {
        match (fault, on) {
            (SubjectFault::Kill, true) => self.current.lock().await.handles().kill().await,
            (SubjectFault::Kill, false) => {
                let mut current = self.current.lock().await;
                *current = Arc::new(R::start(&self.argv, &self.options, &self.start).await?);
            }
            (SubjectFault::StoreOutage, on) => match &self.store {
                Some(store) => store.set_cut(on),
                None if !on => {}
                None => {
                    let why = format!("an executor process whose store is not relayed offers no control for a {fault}");
                    return Err(SubjectError::Unsupported(why));
                }
            },
            (SubjectFault::EndInput, true) => drop(self.current.lock().await.handles().stdin.lock().await.take()),
            (SubjectFault::EndInput, false) => {
                let mut current = self.current.lock().await;
                current.stop(self.options.stop_grace).await;
                *current = Arc::new(R::start(&self.argv, &self.options, &self.start).await?);
            }
            (SubjectFault::Pause(_), false) => {}
            (SubjectFault::Pause(pause), true) => {
                let current = self.current.lock().await.clone();
                if current.handles().signal("STOP").await {
                    // Resumed by a task of its own, so that nothing the harness drops can leave it stopped.
                    tokio::spawn(async move {
                        tokio::time::sleep(pause).await;
                        current.handles().signal("CONT").await;
                    });
                }
            }
        }
        Ok(())
    }

    async fn stop(&self) {
        let current = self.current.lock().await.clone();
        current.stop(self.options.stop_grace).await;
    }

    async fn notices(&self) -> Vec<Value> {
        R::notices(&self.start)
    }

    async fn credentials(&self) -> Vec<String> {
        R::credentials(&self.start)
    }

    async fn hello(&self, protocol: &str) -> Option<Result<HelloAnswer, SubjectError>> {
        R::answer_hello(&self.argv, &self.options, &self.start, protocol).await
    }
}

#[async_trait]
impl Running for Instance {
    type Start = Hello;

    async fn start(argv: &[String], options: &ProcessOptions, hello: &Hello) -> Result<Instance, SubjectError> {
        Ok(Instance::spawn(argv, options, hello).await?.0)
    }

    async fn answer_hello(
        argv: &[String],
        options: &ProcessOptions,
        hello: &Hello,
        protocol: &str,
    ) -> Option<Result<HelloAnswer, SubjectError>> {
        let hello = Hello { protocol: protocol.to_owned(), ..hello.clone() };
        Some(answer_to_hello(argv, options, &hello).await)
    }

    async fn execute(&self, call: SubjectCall, margin: Duration) -> Result<Reply, SubjectError> {
        Instance::execute(self, call, margin).await.map(Reply::from)
    }

    fn handles(&self) -> &Handles {
        &self.handles
    }
}

/// How a process broke; the first break is kept and every later call fails with it.
#[derive(Debug, Clone)]
pub(crate) enum Break {
    /// It wrote something the protocol does not allow.
    Wrote(String),
    /// Its stdout ended.
    Closed,
    /// It did not answer a request in time.
    Silent { request: String, budget: Duration, margin: Duration },
}

pub(crate) type Pending = BTreeMap<String, oneshot::Sender<Result<Value, Break>>>;

/// What the reader and the callers share about one process.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) pending: Pending,
    /// Set once, by the first break; every later call fails with it.
    pub(crate) broken: Option<Break>,
    /// The answers read so far: a call's wait starts again at each one ([`backlog`]).
    pub(crate) answers: Answers,
}

impl Shared {
    /// The request `id` waits on, removed from the waiting ones, its answer counted; `None` when no request
    /// waits on `id`.
    pub(crate) fn answered(&mut self, id: &str) -> Option<oneshot::Sender<Result<Value, Break>>> {
        let waiting = self.pending.remove(id)?;
        self.answers.answered();
        Some(waiting)
    }
}

/// One running process.
struct Instance {
    handles: Handles,
    shared: Arc<Mutex<Shared>>,
    next_id: AtomicU64,
}

/// What every running process subject holds: the child, its stdin, its stderr's tail, and the task reading
/// its stdout (aborted when the handles go).
pub(crate) struct Handles {
    /// The command, its words quoted where they need it.
    pub(crate) command: String,
    pub(crate) child: tokio::sync::Mutex<Child>,
    pub(crate) stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pub(crate) stderr: Tail,
    pub(crate) reader: tokio::task::JoinHandle<()>,
}

impl Handles {
    /// The handles of a started process whose stdout `reader` reads.
    pub(crate) fn new(
        command: String,
        child: Child,
        stdin: ChildStdin,
        stderr: Tail,
        reader: tokio::task::JoinHandle<()>,
    ) -> Handles {
        let (child, stdin) = (tokio::sync::Mutex::new(child), tokio::sync::Mutex::new(Some(stdin)));
        Handles { command, child, stdin, stderr, reader }
    }

    /// The [`SubjectError`] for a break ([`broken`]).
    pub(crate) async fn error(&self, why: Break) -> SubjectError {
        broken(&self.command, &self.child, &self.stderr, why).await
    }

    /// SIGKILL, then reap.
    pub(crate) async fn kill(&self) {
        let mut child = self.child.lock().await;
        let _ = child.kill().await;
        self.reader.abort();
    }

    /// Sends `signal` (`STOP`, `CONT`) with the system's `kill` while the process runs; whether it was sent. The
    /// process is reaped only through this handle, which is locked meanwhile, so its pid cannot name another.
    pub(crate) async fn signal(&self, signal: &str) -> bool {
        let mut child = self.child.lock().await;
        let (Ok(None), Some(pid)) = (child.try_wait(), child.id()) else { return false };
        let sent = Command::new("kill").args(["-s", signal, &pid.to_string()]).stdin(Stdio::null()).status().await;
        sent.is_ok_and(|status| status.success())
    }

    /// Closes stdin and sends SIGTERM (for a server that does not read its stdin: a process spoken to over
    /// HTTP), waits up to `grace` for the exit, then kills.
    pub(crate) async fn terminate(&self, grace: Duration) {
        drop(self.stdin.lock().await.take());
        self.signal("TERM").await;
        self.stop(grace).await;
    }

    /// Closes stdin, waits up to `grace` for the exit, then kills.
    pub(crate) async fn stop(&self, grace: Duration) {
        drop(self.stdin.lock().await.take());
        let mut child = self.child.lock().await;
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = child.kill().await;
        }
        self.reader.abort();
    }
}

impl Drop for Handles {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Why `program` did not start; when it names a file of the current folder but has no `/`, the operating
/// system looked it up on `PATH` instead, so say how to run the file.
fn spawn_error(program: &str, error: &std::io::Error) -> String {
    let local = !program.contains('/') && std::path::Path::new(program).is_file();
    if error.kind() == std::io::ErrorKind::NotFound && local {
        format!(
            "{error}; `{program}` is a file here, but a command without a `/` is looked up on PATH: write `./{program}`"
        )
    } else {
        error.to_string()
    }
}

/// A started process with its three pipes: the start every process subject shares.
pub(crate) struct Piped {
    /// The command, its words quoted where they need it.
    pub(crate) command: String,
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: BufReader<ChildStdout>,
    pub(crate) stderr: Tail,
}

impl Piped {
    /// Starts `argv` directly (no shell) with `env` added to the environment, every pipe captured, killed on
    /// drop.
    pub(crate) fn spawn(argv: &[String], env: &[(String, String)]) -> Result<Piped, SubjectError> {
        let command = shell::join(argv);
        let spawn_failed = |why: String| SubjectError::Spawn { command: command.clone(), why };
        let (program, arguments) = argv.split_first().ok_or_else(|| spawn_failed("the command is empty".into()))?;
        let mut child = Command::new(program)
            .args(arguments)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| spawn_failed(spawn_error(program, &error)))?;
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_failed("its stdio could not be captured".into()));
        };
        Ok(Piped { command, child, stdin, stdout: BufReader::new(stdout), stderr: Tail::follow(stderr) })
    }
}

/// The [`SubjectError`] for a break, with the exit status if the process is gone, and the stderr tail.
pub(crate) async fn broken(
    command: &str,
    child: &tokio::sync::Mutex<Child>,
    stderr: &Tail,
    why: Break,
) -> SubjectError {
    // A process that broke the protocol is of no further use: kill it, so that its stderr ends and the tail
    // below is complete.
    let exited = {
        let mut child = child.lock().await;
        let exited = exit_status(&mut child, Duration::from_millis(300)).await;
        let _ = child.start_kill();
        let _ = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
        exited
    };
    stderr.settle(true).await;
    let stderr_tail = stderr.lines();
    match why {
        Break::Wrote(why) => SubjectError::ProtocolBreak { why, exited, stderr_tail },
        Break::Closed => SubjectError::Exited { status: exited, stderr_tail },
        Break::Silent { request, budget, margin } => SubjectError::Silent {
            command: command.to_owned(),
            awaited: Awaited::Answer { request, budget, margin },
            stderr_tail,
        },
    }
}

impl Instance {
    /// Starts the process, sends `hello` and waits for the capabilities.
    async fn spawn(
        argv: &[String],
        options: &ProcessOptions,
        hello: &Hello,
    ) -> Result<(Instance, Capabilities), SubjectError> {
        let Piped { command, mut child, mut stdin, mut stdout, stderr } = Piped::spawn(argv, &options.env)?;
        let first = async {
            send_hello(&mut stdin, hello)
                .await
                .map_err(|error| format!("cannot write hello to its stdin ({error})"))?;
            match read_line(&mut stdout).await? {
                Some(line) => capabilities_of(&line),
                None => Err("it closed its stdout before answering hello".to_owned()),
            }
        };
        let capabilities = match tokio::time::timeout(options.start_timeout, first).await {
            Ok(Ok(capabilities)) => capabilities,
            Ok(Err(why)) => {
                let exited = exit_status(&mut child, Duration::from_millis(500)).await;
                stderr.settle(exited.is_some()).await;
                let _ = child.start_kill();
                return Err(SubjectError::Handshake { command, why, exited, stderr_tail: stderr.lines() });
            }
            Err(_) => {
                let _ = child.start_kill();
                let awaited = Awaited::Capabilities { timeout: options.start_timeout };
                return Err(SubjectError::Silent { command, awaited, stderr_tail: stderr.lines() });
            }
        };

        let shared = Arc::new(Mutex::new(Shared::default()));
        let reader = tokio::spawn(read_answers(stdout, shared.clone()));
        let handles = Handles::new(command, child, stdin, stderr, reader);
        let instance = Instance { handles, shared, next_id: AtomicU64::new(1) };
        Ok((instance, capabilities))
    }

    async fn execute(&self, call: SubjectCall, margin: Duration) -> Result<Value, SubjectError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).to_string();
        let budget = call.budget;
        let (answer, answered) = oneshot::channel();
        let (broken, others) = {
            let mut shared = lock(&self.shared);
            if shared.broken.is_none() {
                shared.pending.insert(id.clone(), answer);
            }
            (shared.broken.clone(), shared.answers.watch())
        };
        if let Some(why) = broken {
            return Err(self.error(why).await);
        }
        let line = protocol::execute(id.clone(), call).to_line();
        let written = {
            let mut stdin = self.handles.stdin.lock().await;
            match stdin.as_mut() {
                Some(stdin) => match stdin.write_all(line.as_bytes()).await {
                    Ok(()) => stdin.flush().await,
                    Err(error) => Err(error),
                },
                None => Err(std::io::Error::other("stdin is closed")),
            }
        };
        if let Err(error) = written {
            let why = fail(&self.shared, Break::Wrote(format!("cannot write request {id} to its stdin ({error})")));
            return Err(self.error(why).await);
        }
        // Within its budget plus the margin of when it was written or, queued behind other calls, of the latest
        // answer to one of them: an executor that reads one line at a time has only then read it.
        match backlog::within(budget + margin, others, answered).await {
            Some(Ok(Ok(envelope))) => Ok(envelope),
            Some(Ok(Err(why))) => Err(self.error(why).await),
            Some(Err(_)) => Err(self.error(Break::Wrote("the answer channel closed".to_owned())).await),
            None => {
                let why = fail(&self.shared, Break::Silent { request: id, budget, margin });
                Err(self.error(why).await)
            }
        }
    }

    /// The [`SubjectError`] for a break, with the exit status if the process is gone, and the stderr tail.
    async fn error(&self, why: Break) -> SubjectError {
        self.handles.error(why).await
    }
}

pub(crate) fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records the first break and fails every call in flight with it; the break that counts.
pub(crate) fn fail(shared: &Mutex<Shared>, why: Break) -> Break {
    let mut shared = lock(shared);
    let why = shared.broken.get_or_insert(why).clone();
    for (_, answer) in std::mem::take(&mut shared.pending) {
        let _ = answer.send(Err(why.clone()));
    }
    why
}

async fn read_answers(mut stdout: impl AsyncBufRead + Unpin, shared: Arc<Mutex<Shared>>) {
    loop {
        let line = match read_line(&mut stdout).await {
            Ok(Some(line)) => line,
            Ok(None) => return drop(fail(&shared, Break::Closed)),
            Err(why) => return drop(fail(&shared, Break::Wrote(why))),
        };
        let wrote = match FromExecutor::parse(&line) {
            Ok(FromExecutor::Result { id, envelope }) => {
                let waiting = lock(&shared).answered(&id);
                match waiting {
                    Some(answer) => {
                        let _ = answer.send(Ok(envelope));
                        continue;
                    }
                    None => format!("it answered id {id:?}, which no open request has"),
                }
            }
            Ok(FromExecutor::Error { id, message }) => {
                let about = id.map(|id| format!(" about request {id}")).unwrap_or_default();
                let message = if message.is_empty() { "(no message)".to_owned() } else { excerpt(&message, 300) };
                format!("it reported a protocol error{about}: {message}")
            }
            Ok(FromExecutor::Capabilities(_)) => {
                "it sent a message of type \"capabilities\" where only results may come".to_owned()
            }
            Err(why) => format!("it wrote {why}: {}", excerpt(&line, 200)),
        };
        return drop(fail(&shared, Break::Wrote(wrote)));
    }
}

/// Writes `hello` as one line and flushes it.
async fn send_hello(stdin: &mut ChildStdin, hello: &Hello) -> std::io::Result<()> {
    stdin.write_all(ToExecutor::Hello(hello.clone()).to_line().as_bytes()).await?;
    stdin.flush().await
}

/// Starts `argv`, sends it `hello` and reads its first line within the start timeout, then kills it: what it
/// made of the version `hello` names.
///
/// # Errors
/// [`SubjectError::Spawn`] when the command cannot be started at all.
async fn answer_to_hello(
    argv: &[String],
    options: &ProcessOptions,
    hello: &Hello,
) -> Result<HelloAnswer, SubjectError> {
    let Piped { mut child, mut stdin, mut stdout, .. } = Piped::spawn(argv, &options.env)?;
    // A process that refuses at once may have closed its stdin before the whole line is written: its answer,
    // not this write, tells what it did.
    let _ = send_hello(&mut stdin, hello).await;
    let answer = match tokio::time::timeout(options.start_timeout, read_line(&mut stdout)).await {
        Err(_) => {
            HelloAnswer::Silent { waited_ms: u64::try_from(options.start_timeout.as_millis()).unwrap_or(u64::MAX) }
        }
        Ok(Ok(None)) => HelloAnswer::Ended,
        Ok(Err(why)) => HelloAnswer::Refused { line: format!("({why})") },
        Ok(Ok(Some(line))) => match FromExecutor::parse(&line) {
            Ok(FromExecutor::Capabilities(capabilities)) => {
                after_capabilities(&mut stdout, capabilities.protocol).await
            }
            _ => HelloAnswer::Refused { line: excerpt(&line, 200) },
        },
    };
    drop(stdin);
    let _ = child.start_kill();
    let _ = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
    Ok(answer)
}

/// How long a process that wrote `capabilities` first has to take the version back: an executor may announce
/// itself before it reads `hello` (nothing in docs/protocol.md asks it to wait), and then refuses the version it
/// reads with an `error` line or an exit, at once.
const TAKE_BACK: Duration = Duration::from_secs(5);

/// What a process that answered `capabilities` did next: an `error` line or the end of its output within
/// [`TAKE_BACK`] is a refusal; anything else (silence, waiting for calls) is taking the version for its own.
async fn after_capabilities(stdout: &mut BufReader<ChildStdout>, protocol: String) -> HelloAnswer {
    match tokio::time::timeout(TAKE_BACK, read_line(stdout)).await {
        Ok(Ok(None) | Err(_)) => HelloAnswer::Refused { line: "capabilities, then the end of its output".to_owned() },
        Ok(Ok(Some(line))) if matches!(FromExecutor::parse(&line), Ok(FromExecutor::Error { .. })) => {
            HelloAnswer::Refused { line: format!("capabilities, then {}", excerpt(&line, 200)) }
        }
        _ => HelloAnswer::Accepted { protocol },
    }
}

fn capabilities_of(line: &str) -> Result<Capabilities, String> {
    let capabilities = match FromExecutor::parse(line) {
        Ok(FromExecutor::Capabilities(capabilities)) => capabilities,
        Ok(_) => return Err(format!("its first line is not a capabilities message: {}", excerpt(line, 200))),
        Err(why) => return Err(format!("its first line is {why}: {}", excerpt(line, 200))),
    };
    if capabilities.protocol != VERSION {
        return Err(format!("it speaks protocol {:?}, the harness speaks {VERSION:?}", capabilities.protocol));
    }
    Ok(capabilities)
}

/// One line of the executor's stdout without its newline; `None` at the end of the stream.
pub(crate) async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> Result<Option<String>, String> {
    lines::read_line(reader).await.map_err(|error| match error {
        LineError::Read(error) => format!("reading its stdout failed ({error})"),
        LineError::Cut => "its output ended in the middle of a line".to_owned(),
        LineError::TooLong => format!("it wrote a line longer than {MAX_LINE_BYTES} bytes"),
        LineError::NotUtf8 => "it wrote a line that is not UTF-8".to_owned(),
    })
}

/// The last lines of a process's stderr, read as it writes them.
pub(crate) struct Tail {
    lines: Arc<Mutex<VecDeque<String>>>,
    closed: tokio::sync::watch::Receiver<bool>,
}

impl Tail {
    fn follow(stderr: tokio::process::ChildStderr) -> Tail {
        let lines = Arc::new(Mutex::new(VecDeque::new()));
        let (closed, watch) = tokio::sync::watch::channel(false);
        let kept = lines.clone();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                if kept.len() == STDERR_LINES {
                    kept.pop_front();
                }
                kept.push_back(line.chars().take(STDERR_LINE_CHARS).collect());
            }
            closed.send_replace(true);
        });
        Tail { lines, closed: watch }
    }

    /// When the process has exited, waits (briefly) until its stderr is read to the end, so the tail is
    /// complete.
    pub(crate) async fn settle(&self, exited: bool) {
        if exited {
            let mut closed = self.closed.clone();
            let _ = tokio::time::timeout(Duration::from_millis(500), closed.wait_for(|closed| *closed)).await;
        }
    }

    pub(crate) fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect()
    }
}

/// The exit status, when the process is gone within `wait`.
pub(crate) async fn exit_status(child: &mut Child, wait: Duration) -> Option<ExitStatus> {
    tokio::time::timeout(wait, child.wait()).await.ok()?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded_and_end_cleanly() {
        let mut reader = BufReader::new(&b"one\r\ntwo\nthree"[..]);
        assert_eq!(read_line(&mut reader).await, Ok(Some("one".to_owned())));
        assert_eq!(read_line(&mut reader).await, Ok(Some("two".to_owned())));
        assert!(read_line(&mut reader).await.is_err(), "a cut line is a break");
        let mut empty = BufReader::new(&b""[..]);
        assert_eq!(read_line(&mut empty).await, Ok(None));
    }

    #[test]
    fn a_first_line_must_be_capabilities_of_this_version() {
        let good = r#"{"type":"capabilities","protocol":"callproof/1","name":"x","version":"1","tools":[]}"#;
        assert_eq!(capabilities_of(good).map(|capabilities| capabilities.name), Ok("x".to_owned()));
        let old = good.replace("callproof/1", "callproof/0");
        assert!(capabilities_of(&old).expect_err("version").contains("speaks protocol \"callproof/0\""));
        let error = capabilities_of(r#"{"type":"error","message":"no"}"#).expect_err("an error");
        assert!(error.starts_with("its first line is not a capabilities message"), "{error}");
        let error = capabilities_of("Traceback").expect_err("garbage");
        assert!(error.starts_with("its first line is a line that is not JSON"), "{error}");
    }

    #[test]
    fn a_scenario_calling_a_tool_the_executor_does_not_list_is_skipped_with_where_it_looked() {
        let scenarios = crate::shipped::scenarios().expect("the shipped scenarios load");
        let scenario =
            scenarios.iter().find(|scenario| scenario.name == "auth/missing_scope").expect("auth/missing_scope");
        let all: Vec<String> = catalog().into_iter().map(|entry| entry.spec.name).collect();
        let capabilities = |tools: Vec<String>| Capabilities {
            protocol: VERSION.to_owned(),
            name: "x".to_owned(),
            version: "1".to_owned(),
            tools,
            features: Vec::new(),
        };
        assert_eq!(
            support(scenario, Some(&capabilities(all.clone())), "not in its tools/list", false, true),
            Support::Full
        );
        let fewer: Vec<String> = all.into_iter().filter(|tool| tool != "refund_order").collect();
        match support(scenario, Some(&capabilities(fewer)), "not in its tools/list", false, true) {
            Support::Skip(why) => assert!(why.contains("`refund_order` (not in its tools/list)"), "{why}"),
            other => panic!("expected a skip, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_first_break_is_kept_and_fails_every_call_in_flight() {
        let shared = Mutex::new(Shared::default());
        let (answer, answered) = oneshot::channel();
        lock(&shared).pending.insert("1".into(), answer);
        let first = fail(&shared, Break::Closed);
        let second = fail(&shared, Break::Wrote("later".into()));
        assert!(matches!((first, second), (Break::Closed, Break::Closed)));
        assert!(matches!(answered.await, Ok(Err(Break::Closed))));
    }
}
