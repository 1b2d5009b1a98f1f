//! A raw MCP client over stdio (newline-delimited JSON-RPC lines to a server process) or Streamable HTTP (a
//! POST per message), any bytes allowed: the two transports are implementations of one [`Transport`].
//!
//! Rule enforced here: every wait is bounded by the per-request timeout, and a line is sent exactly as the
//! caller wrote it (a malformed line stays malformed, a duplicate key stays duplicated), because the checks
//! are about what the server's own parser meets. Messages the server sends that answer nothing are kept, so
//! an error with `id: null` can be tied to the garbage that caused it.

use super::bearer::Bearer;
use super::http::{Http, PostError};
use super::revision::{self, Route};
use crate::shell;
use crate::subject::SubjectError;
use async_trait::async_trait;
use callproof_executor::lines;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How many of the server's last stderr lines are kept for the report.
const STDERR_TAIL: usize = 20;

/// How long an answer with `id: null` may trail the liveness answer that follows a malformed line.
const NULL_ID_GRACE: Duration = Duration::from_millis(200);

/// How many times the slowest answer of the run an answer with a readable id may trail the liveness answer
/// (a server that handles requests concurrently answers `ping` before a call that waits on a rate limiter).
const SLOWEST_FACTOR: u32 = 3;

/// What came back for one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The response with the request's id: the whole message.
    Response(Value),
    /// Nothing within the timeout.
    Silent,
    /// The server closed stdout (or exited) first.
    Closed,
    /// Nothing answered the line, though the server answered the `ping` sent after it.
    Dropped,
    /// HTTP: a status whose body held no JSON-RPC response (the body as text, cut).
    Http {
        /// The HTTP status.
        status: u16,
        /// The body, cut to 2 000 characters.
        body: String,
    },
    /// The message could not be sent, or the connection broke (why).
    Failed(String),
}

impl Answer {
    /// The JSON-RPC error code, when the answer is an error response.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            Answer::Response(message) => message.get("error")?.get("code")?.as_i64(),
            _ => None,
        }
    }

    /// The `result` member, when the answer is a result response.
    pub fn result(&self) -> Option<&Value> {
        match self {
            Answer::Response(message) => message.get("result"),
            _ => None,
        }
    }

    /// The answer as one line for a report.
    pub fn text(&self) -> String {
        match self {
            Answer::Response(message) => message.to_string(),
            Answer::Silent => "(no answer within the timeout)".to_owned(),
            Answer::Closed => "(the server closed stdout)".to_owned(),
            Answer::Dropped => "(nothing; the ping sent after it was answered)".to_owned(),
            Answer::Http { status, body } if body.is_empty() => format!("(HTTP {status}, an empty body)"),
            Answer::Http { status, body } => format!("(HTTP {status}) {body}"),
            Answer::Failed(why) => format!("({why})"),
        }
    }
}

/// One request and what came back: the evidence a finding names.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// The line as sent, without its newline.
    pub sent: String,
    /// The answer.
    pub answer: Answer,
    /// HTTP: the status of the POST that carried it.
    pub status: Option<u16>,
}

/// The `tools/call` line for `name` with `arguments` spliced in as text, byte for byte, last; before it the
/// `_meta`: in 2026-07-28 (`modern`) its fields, and `extra` (`--meta`) in either revision.
pub fn call_line(id: i64, name: &str, arguments: &str, modern: bool, extra: &Map<String, Value>) -> String {
    let meta = if modern { revision::meta(revision::MODERN) } else { Map::new() };
    call_line_with(id, name, arguments, meta, extra)
}

/// [`call_line`] whose `_meta` is `meta` (e.g. one declaring the Tasks extension) and `extra` beside it.
pub fn call_line_with(
    id: i64,
    name: &str,
    arguments: &str,
    mut meta: Map<String, Value>,
    extra: &Map<String, Value>,
) -> String {
    let name = Value::String(name.to_owned());
    meta.extend(extra.iter().map(|(key, value)| (key.clone(), value.clone())));
    let meta = if meta.is_empty() { String::new() } else { format!(r#","_meta":{}"#, Value::Object(meta)) };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{name}{meta},"arguments":{arguments}}}}}"#
    )
}

/// The client's view of a transport: send one message as it is, read the server's messages back. Stdio and
/// Streamable HTTP are its two implementations, so the profile's requests and their judging are written once.
#[async_trait]
pub(crate) trait Transport: Send {
    /// Sends one message, byte for byte, with the headers of its route (HTTP only; stdio has none).
    async fn send(&mut self, line: &str, route: &Route) -> Sent;
    /// The next message from the server before `until`; `None` when none came (HTTP: none left of the
    /// responses already read, since every answer rides on its POST).
    async fn next(&mut self, until: Instant) -> Option<Value>;
    /// Whether nothing more can come (stdio: stdout closed).
    fn ended(&self) -> bool;
    /// Whether the server is still there (stdio: the process runs; HTTP: the last POST reached it).
    fn alive(&mut self) -> bool;
    /// The server's last lines on stderr, when the harness started it.
    fn stderr_tail(&self) -> Vec<String>;
    /// Ends the connection (stdio: closes stdin, waits up to `grace`, kills).
    async fn close(self: Box<Self>, grace: Duration);
    /// HTTP: the status of a `GET` on the endpoint; stdio: `None`.
    async fn get(&mut self) -> Option<Result<u16, String>> {
        None
    }
    /// Stdio: what the server wrote to stdout that is not an MCP message ([`super::stream::Stray`]); HTTP:
    /// `None` (a body that is not a message is an answer there, judged with its request).
    fn stray(&self) -> Option<super::stream::Stray> {
        None
    }
}

/// What sending one message did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sent {
    /// Written (stdio): the answer comes on the stream.
    Written,
    /// POSTed (HTTP): the response's messages are queued; its status and its body when it held none.
    Posted { status: u16, body: String },
    /// Nothing can be sent or came back: the pipe is closed, the connection failed.
    Failed(String),
    /// The POST was not answered within the timeout.
    Timeout,
}

/// A running MCP server over stdio: the process and the pipes to it.
struct Pipes {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The lines read from stdout that were not MCP messages.
    stray: super::stream::Stray,
}

/// A Streamable HTTP endpoint: the messages of the responses read so far, not yet claimed.
struct Posting {
    http: Http,
    /// `Authorization: Bearer` on every POST (`--bearer`).
    bearer: Option<Bearer>,
    queue: VecDeque<Value>,
    reached: bool,
}

#[async_trait]
impl Transport for Pipes {
    async fn send(&mut self, line: &str, _route: &Route) -> Sent {
        let Some(stdin) = self.stdin.as_mut() else { return Sent::Failed("stdin is closed".to_owned()) };
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        match stdin.write_all(&bytes).await.and(stdin.flush().await) {
            Ok(()) => Sent::Written,
            Err(error) => Sent::Failed(format!("cannot write to its stdin ({error})")),
        }
    }

    async fn next(&mut self, until: Instant) -> Option<Value> {
        loop {
            let line = tokio::time::timeout_at(until, self.lines.recv()).await.ok()??;
            // A lone surrogate escape (`"\ud83c"`) is JSON too (RFC 8259 §8.2); serde_json alone would drop it.
            // Every JSON value is passed on as before (an answer without `"jsonrpc"` still answers its
            // request); what is not an MCP message is also noted for `mcp-stdout-clean`.
            let message = super::surrogate::parse(&line);
            if !message.as_ref().is_some_and(super::stream::is_message) {
                self.stray.push(&line);
            }
            if let Some(message) = message {
                return Some(message);
            }
        }
    }

    fn ended(&self) -> bool {
        self.lines.is_closed() && self.lines.is_empty()
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn stray(&self) -> Option<super::stream::Stray> {
        Some(self.stray.clone())
    }

    fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lock().map(|tail| tail.iter().cloned().collect()).unwrap_or_default()
    }

    async fn close(mut self: Box<Self>, grace: Duration) {
        drop(self.stdin.take());
        if tokio::time::timeout(grace, self.child.wait()).await.is_err() {
            let _ = self.child.kill().await;
        }
    }
}

#[async_trait]
impl Transport for Posting {
    async fn send(&mut self, line: &str, route: &Route) -> Sent {
        match self.http.post_with(line, self.bearer.as_ref().map(Bearer::text), &route.headers()).await {
            Ok(posted) => {
                self.reached = true;
                self.queue.extend(posted.messages);
                Sent::Posted { status: posted.status, body: posted.body }
            }
            Err(PostError::Timeout(_)) => Sent::Timeout,
            Err(error) => {
                self.reached = !matches!(error, PostError::Connection { .. });
                Sent::Failed(error.to_string())
            }
        }
    }

    async fn next(&mut self, _until: Instant) -> Option<Value> {
        self.queue.pop_front()
    }

    fn ended(&self) -> bool {
        false
    }

    fn alive(&mut self) -> bool {
        self.reached
    }

    fn stderr_tail(&self) -> Vec<String> {
        Vec::new()
    }

    async fn close(self: Box<Self>, _grace: Duration) {}

    async fn get(&mut self) -> Option<Result<u16, String>> {
        Some(self.http.get(self.bearer.as_ref().map(Bearer::text)).await.map_err(|error| error.to_string()))
    }
}

/// An MCP client over one [`Transport`], every wait bounded by the timeout.
pub struct Client {
    transport: Box<dyn Transport>,
    /// Messages read that answered no request yet (notifications, errors with `id: null`).
    unclaimed: Vec<Value>,
    next_id: i64,
    timeout: Duration,
    /// Speaking 2026-07-28: every request built here carries the `_meta` fields (and over HTTP the headers).
    modern: bool,
    /// The longest a `tools/call` of this run took to be answered (not `initialize`, which waits for the
    /// process to start), so the wait for a call's answer after `ping` scales with the server's tools.
    slowest: Duration,
    /// The progress notifications the server sent, and the tokens the requests gave it.
    progress: super::stream::Progress,
}

impl Client {
    /// Starts `command` (split like a POSIX shell would, run without one) and speaks MCP over its stdio.
    ///
    /// # Errors
    /// [`SubjectError::Spawn`] when the command does not split or cannot be started.
    pub fn start(command: &str, timeout: Duration) -> Result<Client, SubjectError> {
        let spawn_error = |why: String| SubjectError::Spawn { command: command.to_owned(), why };
        let argv = shell::split(command).map_err(|error| spawn_error(error.to_string()))?;
        let (program, args) = argv.split_first().ok_or_else(|| spawn_error("the command is empty".to_owned()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| spawn_error(error.to_string()))?;
        let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(stdin), Some(stdout), Some(stderr)) => (stdin, stdout, stderr),
            _ => return Err(spawn_error("its pipes could not be opened".to_owned())),
        };
        let (sender, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut stdout = BufReader::new(stdout);
            // A line too long, cut or not UTF-8 ends the reading: the server broke the framing.
            while let Ok(Some(line)) = lines::read_line(&mut stdout).await {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        tokio::spawn(async move {
            let mut stderr = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = stderr.next_line().await {
                if let Ok(mut tail) = keep.lock() {
                    if tail.len() == STDERR_TAIL {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            }
        });
        let stdio = Pipes { child, stdin: Some(stdin), lines, stderr: tail, stray: super::stream::Stray::default() };
        Ok(Client::over(Box::new(stdio), timeout))
    }

    /// Speaks MCP over Streamable HTTP to `url` (nothing is sent until the first request), with `bearer` as
    /// `Authorization: Bearer` on every request when given.
    ///
    /// # Errors
    /// [`SubjectError::Spawn`] when `url` is not an `http://` URL.
    pub fn connect(url: &str, timeout: Duration, bearer: Option<Bearer>) -> Result<Client, SubjectError> {
        let http = Http::new(url, timeout).map_err(|why| SubjectError::Spawn { command: url.to_owned(), why })?;
        Ok(Client::over(Box::new(Posting { http, bearer, queue: VecDeque::new(), reached: true }), timeout))
    }

    fn over(transport: Box<dyn Transport>, timeout: Duration) -> Client {
        Client {
            transport,
            unclaimed: Vec::new(),
            next_id: 1,
            timeout,
            modern: false,
            slowest: Duration::ZERO,
            progress: super::stream::Progress::default(),
        }
    }

    /// Speaks 2026-07-28 from now on (or 2025-11-25 again).
    pub fn set_modern(&mut self, modern: bool) {
        self.modern = modern;
    }

    /// Whether it speaks 2026-07-28.
    pub fn modern(&self) -> bool {
        self.modern
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the per-request timeout (the era probe waits less than a request).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The route of a request for `method` built here: modern headers when modern, none otherwise.
    pub fn route(&self, method: &str, name: Option<&str>) -> Route {
        if self.modern { Route::modern(method, name) } else { Route::default() }
    }

    /// The liveness request: `ping`, or `server/discover` in 2026-07-28 (which has no `ping`).
    pub fn liveness(&self) -> &'static str {
        if self.modern { "server/discover" } else { "ping" }
    }

    /// HTTP: the status of a `GET` on the endpoint; stdio: `None`.
    pub async fn get(&mut self) -> Option<Result<u16, String>> {
        self.transport.get().await
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends `method` with `params` under a fresh id and waits for its answer; in 2026-07-28 the params carry
    /// the `_meta` fields and the POST the headers.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Exchange {
        let id = self.next_id();
        let params = if self.modern { Some(revision::with_meta(params)) } else { params };
        let name = params.as_ref().and_then(|params| params.get("name")?.as_str().map(str::to_owned));
        let route = self.route(method, name.as_deref());
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.exchange_routed(message.to_string(), &json!(id), &route).await
    }

    /// Sends `line` as it is and waits for the response whose id is `id`.
    pub async fn exchange(&mut self, line: String, id: &Value) -> Exchange {
        self.exchange_routed(line, id, &Route::default()).await
    }

    /// [`Client::exchange`] with the headers of `route` (HTTP).
    pub async fn exchange_routed(&mut self, line: String, id: &Value, route: &Route) -> Exchange {
        let started = Instant::now();
        self.progress.sent(&line);
        let sent = self.transport.send(&line, route).await;
        let (answer, status) = match sent {
            Sent::Failed(why) => (Answer::Failed(why), None),
            Sent::Timeout => (Answer::Silent, None),
            Sent::Written => (self.wait_for(id, None).await, None),
            Sent::Posted { status, body } => (self.wait_for(id, Some((status, body))).await, Some(status)),
        };
        // Every `tools/call` line built here spells its method so (`call_line`, `request`).
        if matches!(answer, Answer::Response(_)) && line.contains(r#""method":"tools/call""#) {
            self.slowest = self.slowest.max(started.elapsed());
        }
        Exchange { sent: line, answer, status }
    }

    /// Sends a notification (no id, no answer).
    pub async fn notify(&mut self, method: &str) {
        let line = json!({"jsonrpc": "2.0", "method": method}).to_string();
        self.transport.send(&line, &Route::default()).await;
    }

    /// Sends `line`, which may not parse (so its id may be unusable), then a `ping`; returns the line's
    /// exchange and the ping's. The line's answer is the response with `id` (when given) or the first error
    /// with `id: null`, seen before the ping's answer or shortly after it; over HTTP, an error status whose
    /// body held no message.
    pub async fn garbage(&mut self, line: String, id: Option<Value>) -> (Exchange, Exchange) {
        self.garbage_routed(line, id, &Route::default()).await
    }

    /// [`Client::garbage`] with the headers of `route` (HTTP); the liveness request is [`Client::liveness`].
    pub async fn garbage_routed(&mut self, line: String, id: Option<Value>, route: &Route) -> (Exchange, Exchange) {
        self.unclaimed.clear();
        self.progress.sent(&line);
        let sent = self.transport.send(&line, route).await;
        let status = match &sent {
            Sent::Posted { status, .. } => Some(*status),
            _ => None,
        };
        if status.is_some() {
            // The POST's own answer is set aside, so the liveness request after it does not take it for its own.
            while let Some(message) = self.read(Instant::now()).await {
                self.unclaimed.push(message);
            }
        }
        let ping = self.request(self.liveness(), None).await;
        let answers = |message: &Value| {
            let is_response = message.get("result").is_some() || message.get("error").is_some();
            let null_error = message.get("id").is_none_or(Value::is_null) && message.get("error").is_some();
            null_error || (is_response && id.is_some() && message.get("id") == id.as_ref())
        };
        // A server that handles lines in order has answered by now; only a silent one is given the grace. An
        // answer with a readable id may come from a request handled concurrently, which takes as long as the
        // server's requests take: up to a few times the slowest of the run, at least the grace, at most the timeout.
        if matches!(ping.answer, Answer::Response(_)) && !self.unclaimed.iter().any(answers) {
            let grace = match id {
                Some(_) => {
                    self.slowest.saturating_mul(SLOWEST_FACTOR).clamp(NULL_ID_GRACE, self.timeout.max(NULL_ID_GRACE))
                }
                None => NULL_ID_GRACE,
            };
            let until = Instant::now() + grace;
            while let Some(message) = self.read(until).await {
                let answered = answers(&message);
                self.unclaimed.push(message);
                if answered {
                    break;
                }
            }
        }
        let answering = self.unclaimed.iter().find(|message| answers(message));
        let answer = match (sent, answering) {
            (_, Some(message)) => Answer::Response(message.clone()),
            (Sent::Failed(why), None) => Answer::Failed(why),
            (Sent::Timeout, None) => Answer::Silent,
            (Sent::Posted { status, body }, None) if !(200..300).contains(&status) => Answer::Http { status, body },
            (_, None) if matches!(ping.answer, Answer::Closed | Answer::Failed(_)) => Answer::Closed,
            (_, None) if ping.answer == Answer::Silent => Answer::Silent,
            (_, None) => Answer::Dropped,
        };
        self.unclaimed.clear();
        (Exchange { sent: line, answer, status }, ping)
    }

    /// Whether the server is still there (the process runs; over HTTP, the last POST reached it).
    pub fn alive(&mut self) -> bool {
        self.transport.alive()
    }

    /// The server's last lines on stderr (none over HTTP).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.transport.stderr_tail()
    }

    /// Closes stdin, gives the server the timeout to exit, then kills it; over HTTP, nothing to do.
    pub async fn close(self) {
        self.transport.close(self.timeout).await;
    }

    /// The next message from the server before `until`, a progress notification noted on the way.
    async fn read(&mut self, until: Instant) -> Option<Value> {
        let message = self.transport.next(until).await?;
        self.progress.received(&message);
        Some(message)
    }

    /// The progress notifications received so far, and the tokens sent.
    pub fn progress(&self) -> &super::stream::Progress {
        &self.progress
    }

    /// Stdio: what the server wrote to stdout that is not an MCP message; HTTP: `None`.
    pub fn stray(&self) -> Option<super::stream::Stray> {
        self.transport.stray()
    }

    /// The response with `id`; over HTTP (`posted`), one that rode on the POST, else its status and body.
    async fn wait_for(&mut self, id: &Value, posted: Option<(u16, String)>) -> Answer {
        let until = Instant::now() + self.timeout;
        loop {
            let Some(message) = self.read(until).await else {
                return match posted {
                    Some((status, body)) => Answer::Http { status, body },
                    None if self.transport.ended() => Answer::Closed,
                    None => Answer::Silent,
                };
            };
            let is_response = message.get("result").is_some() || message.get("error").is_some();
            // Over HTTP the response to a POST answers that POST, also when the server could not read its id.
            let null_error = posted.is_some() && message.get("error").is_some() && message["id"].is_null();
            if (is_response && message.get("id") == Some(id)) || null_error {
                return Answer::Response(message);
            }
            self.unclaimed.push(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_holding_a_lone_surrogate_escape_is_read_not_dropped() {
        // A server that answers whatever it is sent with the half of an emoji JavaScript's `slice` leaves.
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"grêle \ud83c"}]}}"#;
        let command = format!(r#"sh -c 'read line; printf "%s\n" "$0"; read line' '{answer}'"#);
        let mut client = Client::start(&command, Duration::from_secs(5)).expect("sh starts");
        let exchange = client.request("tools/call", None).await;
        let text = exchange.answer.result().map(|result| result["content"][0]["text"].clone());
        assert_eq!(text, Some(json!("grêle \u{FFFD}")), "{:?}", exchange.answer);
        client.close().await;
    }

    #[tokio::test]
    async fn a_call_answered_after_the_ping_that_follows_it_counts_as_answered_not_dropped() {
        // A server that handles requests concurrently behind a 300 ms rate limit: the first call takes 300 ms;
        // the second is answered 300 ms after the ping sent behind it, as the TypeScript SDK does.
        let (call, late, ping) = (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        );
        let script = r#"read a; sleep 0.3; printf "%s\n" "$0"; read b; read c; printf "%s\n" "$2"; sleep 0.3; printf "%s\n" "$1"; read d"#;
        let command = format!("sh -c '{script}' '{call}' '{late}' '{ping}'");
        let mut client = Client::start(&command, Duration::from_secs(5)).expect("sh starts");
        let first = client.next_id();
        let first = client.exchange(call_line(first, "t", "{}", false, &Map::new()), &json!(first)).await;
        assert!(first.answer.result().is_some(), "{:?}", first.answer);
        let id = client.next_id();
        let (exchange, ping) = client.garbage(call_line(id, "t", "[[]]", false, &Map::new()), Some(json!(id))).await;
        assert!(ping.answer.result().is_some(), "{:?}", ping.answer);
        assert_eq!(
            exchange.answer.result().map(|result| result["isError"].clone()),
            Some(json!(true)),
            "{:?}",
            exchange.answer
        );
        client.close().await;
    }
}
