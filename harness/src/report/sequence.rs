//! One run as rows of a sequence diagram between the model, the executor and the downstream: calls,
//! requests, answers, commits, faults, kills and failed checks, in the order they happened. The Mermaid
//! text of `callproof repro` and the SVG of the HTML report are both drawn from these rows.
//!
//! Rule enforced here: the rows are a pure function of the transcript and the placed failures, with the
//! stable labels of the text timeline (keys `#1`, `#2`, no request ids), so two runs give the same picture;
//! a failed check sits right after the answer of the call where it failed, or at the end for the whole run.

use crate::scenario::StepKind;
use crate::timeline::{self, Keys, Mark};
use crate::transcript::{Answer, CallRecord, Exchange, Transcript};
use crate::world::Handling;
use std::collections::BTreeMap;

/// A participant of the diagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    /// The model (the harness playing it).
    Model,
    /// The executor under test.
    Executor,
    /// The downstream services.
    Downstream,
}

/// What a row draws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A message sent: a call, or a request.
    Send,
    /// An answer that came back.
    Reply,
    /// An answer that never came back: a dropped connection, a process that broke or died.
    Lost,
    /// A note over the lanes from `from` to `to`.
    Note(Tone),
}

/// What a note says, for how it is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tone {
    /// The scenario and the subject.
    Title,
    /// The downstream committed an effect.
    Commit,
    /// The executor was killed.
    Killed,
    /// The ledger at the end.
    Ledger,
    /// A failed check (`index`: its place among the run's marks, for anchors); its text names the check and
    /// says what is wrong, and each renderer marks it its own way (Mermaid `❌`, the SVG `✗`).
    Failure {
        /// The check id.
        check: String,
        /// `MUST` or `SHOULD`.
        level: &'static str,
        /// Its index in the marks.
        index: usize,
    },
}

/// One row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// What it draws.
    pub kind: Kind,
    /// Where it starts (a note: its first lane).
    pub from: Lane,
    /// Where it ends (a note: its last lane).
    pub to: Lane,
    /// Its text, whole.
    pub text: String,
    /// How many characters of the text a one-line renderer keeps.
    pub limit: usize,
    /// The fault that fired on it, if one did.
    pub fault: Option<String>,
    /// The step it belongs to (0-based), if any.
    pub step: Option<usize>,
}

impl Row {
    fn new(kind: Kind, from: Lane, to: Lane, text: String, limit: usize) -> Row {
        Row { kind, from, to, text, limit, fault: None, step: None }
    }

    fn note(tone: Tone, from: Lane, to: Lane, text: String, limit: usize) -> Row {
        Row::new(Kind::Note(tone), from, to, text, limit)
    }
}

/// The rows of one run: a title, each step (the call, its requests and answers, its failed checks), requests
/// no call accounts for, the ledger, then the failures of the run as a whole.
pub fn rows(title: &str, transcript: &Transcript, marks: &[Mark]) -> Vec<Row> {
    let mut keys = Keys::default();
    let mut rows = vec![Row::note(Tone::Title, Lane::Model, Lane::Downstream, title.to_owned(), 150)];
    let mut steps: BTreeMap<usize, Vec<&CallRecord>> = BTreeMap::new();
    for call in &transcript.calls {
        steps.entry(call.step).or_default().push(call);
    }
    for (step, calls) in steps {
        let start = rows.len();
        step_rows(&mut rows, transcript, marks, step, &calls, &mut keys);
        for row in &mut rows[start..] {
            row.step = Some(step);
        }
    }
    for exchange in transcript.strays() {
        exchange_rows(&mut rows, exchange, transcript, &mut keys);
    }
    let ledger = timeline::ledger_counts(transcript);
    let ledger = if ledger.is_empty() { "nothing committed".to_owned() } else { ledger.join(", ") };
    rows.push(Row::note(Tone::Ledger, Lane::Model, Lane::Downstream, format!("ledger: {ledger}"), 200));
    for (index, mark) in marks.iter().enumerate().filter(|(_, mark)| mark.call.is_none()) {
        rows.push(failure(index, mark, Lane::Downstream));
    }
    rows
}

fn failure(index: usize, mark: &Mark, to: Lane) -> Row {
    let tone = Tone::Failure { check: mark.check.to_string(), level: mark.level, index };
    Row::note(tone, Lane::Model, to, format!("{} [{}]: {}", mark.check, mark.level, mark.message), 198)
}

/// One step: the model's call, the executor's requests, the answers and the failed checks.
fn step_rows(
    rows: &mut Vec<Row>,
    transcript: &Transcript,
    marks: &[Mark],
    step: usize,
    calls: &[&CallRecord],
    keys: &mut Keys,
) {
    let first = calls[0];
    let business = first.business_request_id.as_deref().map(|id| format!(", {id}")).unwrap_or_default();
    let count = timeline::repeat_text(calls);
    let header = if first.action == StepKind::Corpus {
        format!("step {} corpus: {} malformed calls", step + 1, calls.len())
    } else {
        let (action, tool, id, attempt) = (&first.action, &first.tool, &first.call_id, first.attempt);
        format!("step {} {action} {tool}{count} ({id}, attempt {attempt}{business})", step + 1)
    };
    rows.push(Row::new(Kind::Send, Lane::Model, Lane::Executor, header, 150));
    for exchange in transcript.exchanges_of_calls(calls) {
        exchange_rows(rows, exchange, transcript, keys);
    }
    if first.action == StepKind::Corpus {
        let mut codes: BTreeMap<String, usize> = BTreeMap::new();
        for call in calls {
            let code = call.error().map_or("ok".to_owned(), |error| error.wire_code.clone());
            *codes.entry(code).or_default() += 1;
        }
        let summary: Vec<String> = codes.iter().map(|(code, count)| format!("{code} ×{count}")).collect();
        rows.push(Row::new(Kind::Reply, Lane::Executor, Lane::Model, summary.join(", "), 200));
    } else {
        for call in calls {
            rows.push(match &call.answer {
                Answer::Killed => {
                    let text = "killed (SIGKILL) before answering, then restarted".to_owned();
                    Row::note(Tone::Killed, Lane::Executor, Lane::Executor, text, 150)
                }
                Answer::Broken(_) | Answer::NoAnswer => {
                    Row::new(Kind::Lost, Lane::Executor, Lane::Model, call.answer.to_string(), 150)
                }
                Answer::Envelope(_) | Answer::Malformed(_) => {
                    Row::new(Kind::Reply, Lane::Executor, Lane::Model, call.answer.to_string(), 150)
                }
            });
        }
    }
    for (index, mark) in marks.iter().enumerate() {
        if mark.call.is_some_and(|call| calls.iter().any(|own| own.index == call)) {
            rows.push(failure(index, mark, Lane::Executor));
        }
    }
}

/// One downstream request: the request, the commit it made, and the answer (or its loss).
fn exchange_rows(rows: &mut Vec<Row>, exchange: &Exchange, transcript: &Transcript, keys: &mut Keys) {
    let record = &exchange.record;
    let mut request = format!("{} {}", record.method, record.path);
    if let Some((_, key)) = request.clone().split_once("idempotency_key=") {
        let key = key.split('&').next().unwrap_or_default().to_owned();
        request = request.replace(&key, &keys.label(&key));
    }
    if let Some(key) = &record.idempotency_key {
        request.push_str(&format!(" key={}", keys.label(key)));
    }
    rows.push(Row::new(Kind::Send, Lane::Executor, Lane::Downstream, request, 150));
    if let Handling::Committed(index) = record.handling
        && let Some(effect) = transcript.ledger.get(index)
    {
        let text = format!("committed {} {}", effect.kind.name(), effect.effect_id);
        rows.push(Row::note(Tone::Commit, Lane::Downstream, Lane::Downstream, text, 100));
    }
    let fault = exchange.fault().map(str::to_owned);
    let mut answer = match (fault.as_deref(), record.status) {
        (Some(name @ ("kill_after_commit" | "kill_after_claim")), _) => {
            Row::new(Kind::Lost, Lane::Downstream, Lane::Executor, format!("never answered [{name}]"), 100)
        }
        (name, None) => {
            let text = format!("connection dropped [{}]", name.unwrap_or("?"));
            Row::new(Kind::Lost, Lane::Downstream, Lane::Executor, text, 100)
        }
        (name, Some(status)) => {
            let fault = name.map(|name| format!(" [{name}]")).unwrap_or_default();
            Row::new(Kind::Reply, Lane::Downstream, Lane::Executor, format!("{status}{fault}"), 100)
        }
    };
    answer.fault = fault;
    rows.push(answer);
}
