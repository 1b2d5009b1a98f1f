//! What a server sends beside its answers: lines on stdout that are not MCP messages (`mcp-stdout-clean`),
//! progress notifications (`mcp-progress-token`), and for `conform --mcp` every notification, kept for the
//! transcript ([`NoticeLog`]: `no-secret-leak` reads a log message as it reads an answer).
//!
//! Rule enforced here: over stdio a server writes nothing to stdout but MCP messages (transports §stdio: it
//! MUST NOT write anything that is not a valid MCP message), and a progress notification names only a token
//! that a request of the client gave and that request is still unanswered (over stdio, where the order is the
//! server's), with a progress that increases per token (utilities/progress: MUST).
//! A blank line is not held against a server: it breaks no framing. A check with nothing to judge (HTTP, no
//! progress notification) says why instead of passing.

use super::checks;
use super::profile::Run;
use super::report::{self, Finding, Report};
use serde_json::Value;
use std::sync::{Arc, Mutex, PoisonError};

/// How many stray lines, and how much of each, a finding keeps as evidence.
const KEPT_LINES: usize = 3;
const KEPT_CHARS: usize = 300;

/// How many bad progress notifications are reported (the last one says how many more there were).
const KEPT_PROBLEMS: usize = 10;

/// How many progress notifications are kept (a server that floods them is judged on the first ones).
const KEPT_NOTIFICATIONS: usize = 1000;

/// How many notifications one scenario keeps for its transcript, and how many bytes of them in all: a server
/// that floods them is judged on the first ones, and never costs more memory than this.
const KEPT_NOTICES: usize = 256;
const KEPT_NOTICE_BYTES: usize = 1 << 20;

/// The notifications a server sent during one scenario, across its restarts, in the order they came: the first
/// [`KEPT_NOTICES`] (at most [`KEPT_NOTICE_BYTES`] of their text). Cloning shares the log.
#[derive(Debug, Clone, Default)]
pub struct NoticeLog(Arc<Mutex<Notices>>);

#[derive(Debug, Default)]
struct Notices {
    kept: Vec<Value>,
    bytes: usize,
}

impl NoticeLog {
    /// Keeps `message`, whose text is `bytes()` bytes long, when it is a notification (a `method` and no `id`)
    /// and the log has room.
    pub fn note(&self, message: &Value, bytes: impl FnOnce() -> usize) {
        if message.get("method").is_none() || message.get("id").is_some() {
            return;
        }
        let bytes = bytes();
        let mut notices = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if notices.kept.len() < KEPT_NOTICES && notices.bytes + bytes <= KEPT_NOTICE_BYTES {
            notices.bytes += bytes;
            notices.kept.push(message.clone());
        }
    }

    /// The notifications kept so far.
    pub fn kept(&self) -> Vec<Value> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).kept.clone()
    }
}

/// Whether `value` is a JSON-RPC 2.0 message: an object with `"jsonrpc": "2.0"`.
pub fn is_message(value: &Value) -> bool {
    value.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
}

/// The lines a stdio server wrote to stdout that are not MCP messages: how many, and the first few.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stray {
    /// How many there were.
    pub count: usize,
    /// The first [`KEPT_LINES`] of them, each cut.
    pub first: Vec<String>,
}

impl Stray {
    /// Notes `line`, unless it is blank.
    pub fn push(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        self.count += 1;
        if self.first.len() < KEPT_LINES {
            self.first.push(report::cut(line, KEPT_CHARS));
        }
    }

    /// What is wrong, when anything is.
    pub fn problem(&self) -> Option<String> {
        let plural = if self.count == 1 { "line" } else { "lines" };
        (self.count > 0).then(|| {
            format!(
                "the server wrote {} {plural} to stdout that are not MCP messages, the first: {:?}",
                self.count, self.first[0]
            )
        })
    }
}

/// The progress notifications a server sent, and the progress tokens the client's requests gave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    given: Vec<Given>,
    /// Each notification, and whether it came after every request that gave its token was answered.
    notifications: Vec<(Value, bool)>,
}

/// A progress token the client gave, and the ids of its requests not yet answered.
#[derive(Debug, Clone, PartialEq)]
struct Given {
    token: Value,
    open: Vec<Value>,
    /// A request of this token was answered with a task, whose progress may go on until the task ends
    /// (basic/utilities/tasks: the token stays valid for the task's lifetime), so nothing of it is late.
    lasting: bool,
}

impl Progress {
    /// Notes the `_meta.progressToken` of a request line the client sends, when it has one, with the request's id.
    pub fn sent(&mut self, line: &str) {
        if !line.contains("progressToken") {
            return;
        }
        let Ok(message) = serde_json::from_str::<Value>(line) else { return };
        let Some(token) = message.pointer("/params/_meta/progressToken") else { return };
        let index = match self.given.iter().position(|given| given.token == *token) {
            Some(index) => index,
            None => {
                self.given.push(Given { token: token.clone(), open: Vec::new(), lasting: false });
                self.given.len() - 1
            }
        };
        self.given[index].open.extend(message.get("id").cloned());
    }

    /// Notes `message`: a progress notification is kept, with whether its token's requests were all answered;
    /// a response closes the request it answers.
    pub fn received(&mut self, message: &Value) {
        match (message.get("method").and_then(Value::as_str), message.get("id")) {
            (Some("notifications/progress"), None) if self.notifications.len() < KEPT_NOTIFICATIONS => {
                let token = message.pointer("/params/progressToken");
                let given = self.given.iter().find(|given| Some(&given.token) == token);
                let late = given.is_some_and(|given| given.open.is_empty() && !given.lasting);
                self.notifications.push((message.clone(), late));
            }
            (None, Some(id)) => {
                let task = message.get("result").is_some_and(|result| {
                    result.get("task").is_some() || result.get("resultType").and_then(Value::as_str) == Some("task")
                });
                for given in &mut self.given {
                    let before = given.open.len();
                    given.open.retain(|open| open != id);
                    given.lasting |= task && given.open.len() < before;
                }
            }
            _ => {}
        }
    }

    /// Each progress notification judged: `None` when there was none, else one problem per bad notification
    /// (none when all were right), each with the notification. `ordered`: the notifications and responses came
    /// on one stream in the order the server wrote them (stdio), so one read after its request's answer was
    /// sent after it; over HTTP they ride on several streams, and lateness is not judged.
    pub fn problems(&self, ordered: bool) -> Option<Vec<(String, &Value)>> {
        if self.notifications.is_empty() {
            return None;
        }
        let mut last: Vec<(&Value, f64)> = Vec::new();
        let mut problems = Vec::new();
        for (notification, late) in &self.notifications {
            let params = notification.get("params");
            let token = params.and_then(|params| params.get("progressToken"));
            let progress = params.and_then(|params| params.get("progress")).and_then(Value::as_f64);
            let problem = match (token, progress) {
                (None, _) => Some("a notifications/progress without a progressToken".to_owned()),
                (Some(token), _) if !self.given.iter().any(|given| given.token == *token) => {
                    Some(format!("a notifications/progress for progressToken {token}, which no request gave"))
                }
                (Some(token), _) if *late && ordered => Some(format!(
                    "a notifications/progress for progressToken {token} after its request was answered (a token \
                     is active only while its request is)"
                )),
                (Some(_), None) => Some("a notifications/progress whose progress is not a number".to_owned()),
                (Some(token), Some(progress)) => match last.iter_mut().find(|(seen, _)| *seen == token) {
                    Some((_, before)) if progress <= *before => {
                        Some(format!("progress for progressToken {token} went from {before} to {progress}, not up"))
                    }
                    Some((_, before)) => {
                        *before = progress;
                        None
                    }
                    None => {
                        last.push((token, progress));
                        None
                    }
                },
            };
            problems.extend(problem.map(|problem| (problem, notification)));
        }
        Some(problems)
    }
}

impl Run {
    /// Judges what the server sent beside its answers during the run.
    pub(super) fn stream_checks(&mut self) {
        if let Some(stray) = self.client.stray() {
            let problem = stray.problem();
            let why = problem.clone().unwrap_or_else(|| "nothing but MCP messages on stdout".to_owned());
            self.findings.push(Finding {
                check: checks::STDOUT_CLEAN.id,
                passed: problem.is_none(),
                inconclusive: false,
                tool: None,
                why,
                request: None,
                answer: (!stray.first.is_empty()).then(|| stray.first.join(" | ")),
            });
        }
        let judged = self.client.progress().problems(!self.http).map(|problems| {
            problems.into_iter().map(|(why, notification)| (why, notification.to_string())).collect::<Vec<_>>()
        });
        match judged {
            None => {}
            Some(problems) if problems.is_empty() => {
                let why = "every progress notification names the token of a request still unanswered, its progress \
                           increasing";
                self.found(checks::PROGRESS_TOKEN, true, None, why.to_owned(), None);
            }
            Some(problems) => {
                let more = problems.len().saturating_sub(KEPT_PROBLEMS);
                for (index, (mut why, notification)) in problems.into_iter().take(KEPT_PROBLEMS).enumerate() {
                    if more > 0 && index + 1 == KEPT_PROBLEMS {
                        why = format!("{why} (and {more} more notifications like these)");
                    }
                    self.findings.push(Finding {
                        check: checks::PROGRESS_TOKEN.id,
                        passed: false,
                        inconclusive: false,
                        tool: None,
                        why,
                        request: None,
                        answer: Some(notification),
                    });
                }
            }
        }
    }
}

/// Says why the stream checks judged nothing, where they did not.
pub(super) fn explain(report: &mut Report, http: bool) {
    if http {
        report.not_judged(checks::STDOUT_CLEAN.id, "a stdio check: over HTTP every body is judged with its request");
    }
    let why = "the server sent no progress notification (the profile gives a progressToken on each tool's first \
               valid call, and on every call when --meta gives one)";
    report.not_judged(checks::PROGRESS_TOKEN.id, why);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_notice_log_keeps_notifications_only_and_stops_at_its_bounds() {
        let log = NoticeLog::default();
        let notice = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}});
        log.note(&notice, || 80);
        log.note(&json!({"jsonrpc": "2.0", "id": 4, "result": {}}), || 40);
        log.note(&json!({"jsonrpc": "2.0", "id": 5, "method": "roots/list"}), || 40);
        assert_eq!(log.kept(), std::slice::from_ref(&notice), "a response and a server request are no notifications");
        let shared = log.clone();
        for _ in 0..KEPT_NOTICES * 2 {
            shared.note(&notice, || 80);
        }
        assert_eq!(log.kept().len(), KEPT_NOTICES, "a clone shares the log, which keeps the first ones");
        let big = NoticeLog::default();
        big.note(&notice, || KEPT_NOTICE_BYTES - 10);
        big.note(&notice, || 11);
        big.note(&notice, || 10);
        assert_eq!(big.kept().len(), 2, "no more than the byte bound");
    }

    #[test]
    fn a_debug_print_on_stdout_is_stray_and_blank_lines_and_messages_are_not_counted() {
        let mut stray = Stray::default();
        assert_eq!(stray.problem(), None);
        stray.push("   ");
        assert_eq!(stray.problem(), None);
        stray.push("DEBUG call_tool get_item {'sku': 'SKU-0001'}");
        stray.push("{\"level\":\"info\"}");
        let problem = stray.problem().expect("two stray lines");
        assert!(problem.contains("2 lines") && problem.contains("DEBUG call_tool"), "{problem}");
        assert!(is_message(&json!({"jsonrpc": "2.0", "id": 1, "result": {}})));
        assert!(!is_message(&json!({"level": "info"})) && !is_message(&json!([1])));
    }

    #[test]
    fn progress_for_a_token_no_request_gave_fails_and_a_given_increasing_token_passes() {
        let note = |token: Value, progress: f64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": progress}});
        let mut given = Progress::default();
        assert_eq!(given.problems(true), None, "nothing to judge without notifications");
        given.sent(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p1"},"arguments":{}}}"#);
        given.received(&note(json!("p1"), 0.5));
        given.received(&note(json!("p1"), 1.0));
        given.received(&json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
        assert_eq!(given.problems(true).map(|problems| problems.len()), Some(0));

        let mut invented = Progress::default();
        invented.sent(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}"#);
        invented.received(&note(json!(2), 0.5));
        let problems = invented.problems(true).expect("judged");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].0.contains("progressToken 2, which no request gave"), "{}", problems[0].0);
    }

    #[test]
    fn progress_after_its_request_was_answered_fails_over_stdio_unless_the_answer_was_a_task() {
        let note = |token: &str, progress: f64| json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": progress}});
        let call = |id: u32, token: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t","_meta":{{"progressToken":"{token}"}},"arguments":{{}}}}}}"#
            )
        };
        let mut ticker = Progress::default();
        ticker.sent(&call(3, "p3"));
        ticker.received(&note("p3", 1.0));
        ticker.received(&json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
        ticker.received(&note("p3", 2.0));
        let problems = ticker.problems(true).expect("judged");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].0.contains("p3\" after its request was answered"), "{}", problems[0].0);
        assert_eq!(problems[0].1["params"]["progress"], 2.0, "the late one, not the one before the answer");
        assert_eq!(ticker.problems(false).map(|problems| problems.len()), Some(0), "over HTTP lateness is not judged");

        // One token on two requests (`--meta`): active while either is open; an error answer closes its request.
        let mut shared = Progress::default();
        shared.sent(&call(5, "m"));
        shared.sent(&call(6, "m"));
        shared.received(&json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "no"}}));
        shared.received(&note("m", 1.0));
        shared.received(&json!({"jsonrpc": "2.0", "id": 6, "result": {}}));
        shared.received(&note("m", 2.0));
        let problems = shared.problems(true).expect("judged");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].1["params"]["progress"], 2.0);

        // A request answered with a task: its progress may go on while the task runs.
        for task in
            [json!({"task": {"taskId": "t1", "status": "working"}}), json!({"resultType": "task", "taskId": "t1"})]
        {
            let mut tasked = Progress::default();
            tasked.sent(&call(8, "t"));
            tasked.received(&json!({"jsonrpc": "2.0", "id": 8, "result": task}));
            tasked.received(&note("t", 1.0));
            assert_eq!(tasked.problems(true).map(|problems| problems.len()), Some(0), "{task}");
        }
    }

    #[test]
    fn progress_that_does_not_increase_for_its_token_fails() {
        let mut progress = Progress::default();
        progress.sent(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":7}}}"#);
        for value in [0.5, 0.5] {
            progress.received(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 7, "progress": value}}));
        }
        let problems = progress.problems(true).expect("judged");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].0.contains("went from 0.5 to 0.5, not up"), "{}", problems[0].0);
    }
}
