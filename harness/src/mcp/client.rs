//! A raw MCP client over stdio: newline-delimited JSON-RPC lines to a server process, any bytes allowed.
//!
//! Rule enforced here: every wait is bounded by the per-request timeout, and a line is sent exactly as the
//! caller wrote it (a malformed line stays malformed, a duplicate key stays duplicated), because the checks
//! are about what the server's own parser meets. Messages the server sends that answer nothing are kept, so
//! an error with `id: null` can be tied to the garbage that caused it.

use crate::shell;
use crate::subject::SubjectError;
use callproof_executor::lines;
use serde_json::{Value, json};
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
}

/// A running MCP server and the pipes to it.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<String>,
    /// Messages read that answered no request yet (notifications, errors with `id: null`).
    unclaimed: Vec<Value>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: i64,
    timeout: Duration,
}

impl Client {
    /// Starts `command` (split like a POSIX shell would, run without one).
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
        let stdin = Some(stdin);
        Ok(Client { child, stdin, lines, unclaimed: Vec::new(), stderr: tail, next_id: 1, timeout })
    }

    /// A fresh request id.
    pub fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Sends `method` with `params` under a fresh id and waits for its answer.
    pub async fn request(&mut self, method: &str, params: Option<Value>) -> Exchange {
        let id = self.next_id();
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        self.exchange(message.to_string(), &json!(id)).await
    }

    /// Sends `line` as it is and waits for the response whose id is `id`.
    pub async fn exchange(&mut self, line: String, id: &Value) -> Exchange {
        if !self.send(&line).await {
            return Exchange { sent: line, answer: Answer::Closed };
        }
        let answer = self.wait_for(id).await;
        Exchange { sent: line, answer }
    }

    /// Sends a notification (no id, no answer).
    pub async fn notify(&mut self, method: &str) {
        let line = json!({"jsonrpc": "2.0", "method": method}).to_string();
        self.send(&line).await;
    }

    /// Sends `line`, which may not parse (so its id may be unusable), then a `ping`; returns the line's
    /// exchange and the ping's. The line's answer is the response with `id` (when given) or the first error
    /// with `id: null`, seen before the ping's answer or shortly after it.
    pub async fn garbage(&mut self, line: String, id: Option<Value>) -> (Exchange, Exchange) {
        self.unclaimed.clear();
        let sent = self.send(&line).await;
        let ping = self.request("ping", None).await;
        let answers = |message: &Value| {
            let is_response = message.get("result").is_some() || message.get("error").is_some();
            let null_error = message.get("id").is_none_or(Value::is_null) && message.get("error").is_some();
            null_error || (is_response && id.is_some() && message.get("id") == id.as_ref())
        };
        // A server that handles lines in order has answered by now; only a silent one is given the grace.
        if matches!(ping.answer, Answer::Response(_)) && !self.unclaimed.iter().any(answers) {
            let until = Instant::now() + NULL_ID_GRACE;
            while let Some(message) = self.read_until(until).await {
                self.unclaimed.push(message);
            }
        }
        let answering = self.unclaimed.iter().find(|message| answers(message));
        let answer = match (sent, answering) {
            (_, Some(message)) => Answer::Response(message.clone()),
            (false, None) => Answer::Closed,
            (true, None) if ping.answer == Answer::Closed => Answer::Closed,
            (true, None) if ping.answer == Answer::Silent => Answer::Silent,
            (true, None) => Answer::Dropped,
        };
        self.unclaimed.clear();
        (Exchange { sent: line, answer }, ping)
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server's last lines on stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr.lock().map(|tail| tail.iter().cloned().collect()).unwrap_or_default()
    }

    /// Closes stdin, gives the server the timeout to exit, then kills it.
    pub async fn close(mut self) {
        drop(self.stdin.take());
        if tokio::time::timeout(self.timeout, self.child.wait()).await.is_err() {
            let _ = self.child.kill().await;
        }
    }

    async fn send(&mut self, line: &str) -> bool {
        let Some(stdin) = self.stdin.as_mut() else { return false };
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        stdin.write_all(&bytes).await.is_ok() && stdin.flush().await.is_ok()
    }

    async fn wait_for(&mut self, id: &Value) -> Answer {
        let until = Instant::now() + self.timeout;
        loop {
            let Some(message) = self.read_until(until).await else {
                return if self.lines.is_closed() && self.lines.is_empty() { Answer::Closed } else { Answer::Silent };
            };
            let is_response = message.get("result").is_some() || message.get("error").is_some();
            if is_response && message.get("id") == Some(id) {
                return Answer::Response(message);
            }
            self.unclaimed.push(message);
        }
    }

    /// The next JSON message from the server before `until`; lines that are not JSON are skipped.
    async fn read_until(&mut self, until: Instant) -> Option<Value> {
        loop {
            let line = tokio::time::timeout_at(until, self.lines.recv()).await.ok()??;
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                return Some(message);
            }
        }
    }
}
