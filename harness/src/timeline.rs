//! The timeline of one scenario run, in a stable text form: model call → executor → downstream → envelope.
//!
//! Rule enforced here: the text is a pure function of the transcript with everything that varies between
//! runs taken out: request ids are dropped, idempotency keys become `#1`, `#2` in order of first appearance,
//! the wait a busy operation suggests is dropped, and within a burst the calls and requests are sorted. Two
//! runs of one scenario against one executor give the same text, so it can be snapshotted.

use crate::envelope::EnvelopeView;
use crate::transcript::{Answer, BetweenCalls, CallRecord, Exchange, Transcript};
use crate::world::Handling;
use callproof_executor::{Arguments, ErrorCode};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Stable labels for idempotency keys, by first appearance.
#[derive(Default)]
pub struct Keys {
    labels: BTreeMap<String, usize>,
}

impl Keys {
    /// `#n` for `key`.
    pub fn label(&mut self, key: &str) -> String {
        let next = self.labels.len() + 1;
        format!("#{}", self.labels.entry(key.to_owned()).or_insert(next))
    }
}

/// The envelope with run-dependent values replaced.
pub fn stable_envelope(envelope: &EnvelopeView, keys: &mut Keys) -> Value {
    let mut stable = envelope.raw().clone();
    if let Some(meta) = stable.get_mut("meta").and_then(Value::as_object_mut) {
        meta.remove("request_id");
        if let Some(key) = &envelope.meta().idempotency_key {
            meta.insert("idempotency_key".to_owned(), Value::String(keys.label(key)));
        }
    }
    // How long a busy operation suggests to wait depends on timing.
    if envelope.code() == Some(ErrorCode::OperationInProgress)
        && let Some(details) =
            stable.get_mut("error").and_then(|error| error.get_mut("details")).and_then(Value::as_object_mut)
    {
        details.remove("retry_after_ms");
    }
    stable
}

pub(crate) fn arguments_text(arguments: &Arguments) -> String {
    let text = match arguments {
        Arguments::Raw(text) => text.clone(),
        Arguments::Value(value) => value.to_string(),
    };
    if text.chars().count() > 120 {
        format!("{}… ({} bytes)", text.chars().take(100).collect::<String>(), text.len())
    } else {
        text
    }
}

pub(crate) fn answer_text(call: &CallRecord, keys: &mut Keys) -> String {
    match &call.answer {
        Answer::Envelope(envelope) => stable_envelope(envelope, keys).to_string(),
        Answer::Malformed(malformed) => format!("(not an envelope: {}) {}", malformed.why, malformed.raw),
        Answer::Broken(why) => format!("(subject broke: {why})"),
        Answer::NoAnswer => "(no answer)".to_owned(),
        Answer::Killed => "(killed in flight)".to_owned(),
    }
}

pub(crate) fn exchange_text(exchange: &Exchange, transcript: &Transcript, keys: &mut Keys) -> String {
    let record = &exchange.record;
    let mut path = record.path.clone();
    if let Some((_, key)) = path.split_once("idempotency_key=") {
        let key = key.split('&').next().unwrap_or_default().to_owned();
        path = path.replace(&key, &keys.label(&key));
    }
    let mut line = format!("{} {path}", record.method);
    if let Some(key) = &record.idempotency_key {
        let _ = write!(line, " key={}", keys.label(key));
    }
    let _ = write!(line, " → {}", record.status.map_or("dropped".to_owned(), |status| status.to_string()));
    if let Some(fault) = exchange.fault() {
        let _ = write!(line, " [{fault}]");
    }
    match &record.handling {
        Handling::Committed(index) => {
            let effect = &transcript.ledger[*index];
            let _ = write!(line, " committed {} {}", effect.kind.name(), effect.effect_id);
        }
        Handling::Deduplicated => line.push_str(" deduplicated"),
        Handling::AbandonedAtDeadline => line.push_str(" abandoned at the deadline"),
        Handling::NoEffect => {}
    }
    line
}

/// A burst member that did not execute: it waited (operation_in_progress) or replayed the result.
fn is_duplicate_answer(call: &CallRecord) -> bool {
    call.code() == Some(ErrorCode::OperationInProgress)
        || (call.ok() && call.envelope().is_some_and(EnvelopeView::replayed))
}

/// The answers of one step as (corpus case, text). A burst shows its executions sorted and counts its
/// duplicates: which duplicate waits and which replays depends on scheduling; only the executions are stable.
fn step_answers(calls: &[&CallRecord], keys: &mut Keys) -> Vec<(String, String)> {
    let answers: Vec<(String, String)> =
        calls.iter().map(|call| (call.corpus_case.clone().unwrap_or_default(), answer_text(call, keys))).collect();
    if calls.first().is_none_or(|first| first.action != crate::scenario::StepKind::Burst) {
        return answers;
    }
    let duplicates = calls.iter().filter(|call| is_duplicate_answer(call)).count();
    let mut answers: Vec<(String, String)> = calls
        .iter()
        .filter(|call| !is_duplicate_answer(call))
        .map(|call| (String::new(), answer_text(call, keys)))
        .collect();
    answers.sort();
    if duplicates > 0 {
        answers.push((String::new(), format!("{duplicates} duplicates: operation_in_progress or the replayed result")));
    }
    answers
}

/// A submit's call and the other caller's call sent alongside it (`alongside`), when the step made those two.
fn alongside<'c>(calls: &[&'c CallRecord]) -> Option<(&'c CallRecord, &'c CallRecord)> {
    match calls {
        [submitted, other] if other.action == crate::scenario::StepKind::Submit && other.auth != submitted.auth => {
            Some((submitted, other))
        }
        _ => None,
    }
}

/// How many calls a step made, when more than one (` ×3`), and how far apart a staggered burst started them.
pub(crate) fn repeat_text(calls: &[&CallRecord]) -> String {
    if calls.iter().skip(1).any(|call| call.action == crate::scenario::StepKind::Changed) {
        return ", and a changed call".to_owned();
    }
    if let Some((_, other)) = alongside(calls) {
        return format!(", and {}'s call alongside", other.auth);
    }
    match (calls.len(), calls.first().map_or(0, |first| first.stagger_ms)) {
        (0 | 1, _) => String::new(),
        (count, 0) => format!(" ×{count}"),
        (count, stagger_ms) => format!(" ×{count}, {stagger_ms} ms apart"),
    }
}

/// The ledger per kind of effect: `refunds 2 (rf_1, rf_2)`, in kind order.
pub(crate) fn ledger_counts(transcript: &Transcript) -> Vec<String> {
    let mut counts: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for effect in &transcript.ledger {
        counts.entry(effect.kind.name()).or_default().push(&effect.effect_id);
    }
    counts.iter().map(|(kind, ids)| format!("{kind} {} ({})", ids.len(), ids.join(", "))).collect()
}

/// The whole timeline as text.
pub fn text(transcript: &Transcript) -> String {
    marked_text(transcript, &[])
}

/// A failed check, placed at the call where it failed (`None`: the run as a whole, e.g. the ledger).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mark {
    /// The check id.
    pub check: crate::checks::CheckId,
    /// `MUST` or `SHOULD`.
    pub level: &'static str,
    /// What is wrong.
    pub message: String,
    /// The call (index into `Transcript::calls`) the violation's evidence names first.
    pub call: Option<usize>,
}

/// Places each violation of `verdicts` at the call where it shows ([`place`]).
pub fn marks(transcript: &Transcript, verdicts: &[crate::checks::Verdict]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for verdict in verdicts {
        let crate::checks::Outcome::Fail { violations } = &verdict.outcome else { continue };
        for violation in violations {
            marks.push(Mark {
                check: verdict.check,
                level: verdict.level.as_str(),
                message: violation.message.clone(),
                call: place(transcript, &violation.evidence),
            });
        }
    }
    marks
}

/// The call (index into `Transcript::calls`) where a violation with this evidence shows: the call of the last
/// committing request the evidence names, else of the last request, else the last call line; `None` when it
/// names none (the run as a whole, e.g. the ledger).
pub fn place(transcript: &Transcript, evidence: &[String]) -> Option<usize> {
    let named: Vec<&Exchange> = evidence
        .iter()
        .filter_map(|line| transcript.exchanges.iter().find(|exchange| &exchange.line() == line))
        .filter(|exchange| exchange.call.is_some())
        .collect();
    let committing = named.iter().rev().find(|exchange| matches!(exchange.record.handling, Handling::Committed(_)));
    committing.or(named.last()).and_then(|exchange| exchange.call).or_else(|| {
        evidence
            .iter()
            .rev()
            .find_map(|line| transcript.calls.iter().find(|call| &call.line() == line).map(|call| call.index))
    })
}

/// The timeline as text with each failed check marked (`✗`) under the step where it failed; failures of the
/// run as a whole come last. With no marks it is exactly [`text`].
pub fn marked_text(transcript: &Transcript, marks: &[Mark]) -> String {
    render(transcript, marks, &mut Keys::default())
}

/// The labels the timeline gives the run's idempotency keys (`#1`, `#2`, ...), so other views of the same
/// run (the evidence of the human report) name keys as `repro` does.
pub fn labelled_keys(transcript: &Transcript) -> Keys {
    let mut keys = Keys::default();
    render(transcript, &[], &mut keys);
    keys
}

/// What one step of the scenario left in the transcript: its calls, or a step that made none.
enum StepRecord<'a> {
    Calls(Vec<&'a CallRecord>),
    Between(&'a BetweenCalls),
}

fn render(transcript: &Transcript, marks: &[Mark], keys: &mut Keys) -> String {
    let mut steps: BTreeMap<usize, StepRecord<'_>> = BTreeMap::new();
    for call in &transcript.calls {
        match steps.entry(call.step).or_insert_with(|| StepRecord::Calls(Vec::new())) {
            StepRecord::Calls(calls) => calls.push(call),
            StepRecord::Between(_) => {}
        }
    }
    for between in &transcript.between_calls {
        steps.insert(between.step(), StepRecord::Between(between));
    }
    let mut out = String::new();
    for (step, record) in steps {
        match record {
            StepRecord::Calls(calls) => write_call_step(&mut out, transcript, step, &calls, marks, keys),
            StepRecord::Between(between) => {
                let _ = writeln!(out, "{}", between.line());
            }
        }
    }
    write_after_the_steps(&mut out, transcript, marks, keys);
    out
}

/// A step's header, its arguments, the faults on the whole step, its requests, its answers and the marks on its
/// calls.
fn write_call_step(
    out: &mut String,
    transcript: &Transcript,
    step: usize,
    calls: &[&CallRecord],
    marks: &[Mark],
    keys: &mut Keys,
) {
    let Some(first) = calls.first().copied() else { return };
    let burst = first.action == crate::scenario::StepKind::Burst;
    let _ = writeln!(
        out,
        "step {} {} {} as {} ({}, attempt {}{}){}",
        step + 1,
        first.action,
        first.tool,
        first.auth,
        first.call_id,
        first.attempt,
        first.business_request_id.as_deref().map(|id| format!(", business request {id}")).unwrap_or_default(),
        repeat_text(calls),
    );
    if calls.len() == 1 || burst {
        let _ = writeln!(out, "  arguments {}", arguments_text(&first.arguments));
    }
    // A submit with `changed_during`: its own arguments, then the changed call sent while it ran.
    if let [submitted, changed] = calls
        && changed.action == crate::scenario::StepKind::Changed
    {
        let _ = writeln!(out, "  arguments {}", arguments_text(&submitted.arguments));
        let _ = writeln!(
            out,
            "  {} ms later, while it ran: changed arguments {} ({}, attempt {})",
            changed.stagger_ms,
            arguments_text(&changed.arguments),
            changed.call_id,
            changed.attempt
        );
    }
    // A submit with `alongside`: its own arguments, then the other caller's call sent while it ran.
    if let Some((submitted, other)) = alongside(calls) {
        let _ = writeln!(out, "  arguments {}", arguments_text(&submitted.arguments));
        let _ = writeln!(
            out,
            "  {} ms later, while it ran: {} as {} ({}), arguments {}",
            other.stagger_ms,
            other.tool,
            other.auth,
            other.call_id,
            arguments_text(&other.arguments)
        );
    }
    // Faults that acted on the whole step (the downstream's listener, the subject) touch no request line.
    for fault in transcript.faults.iter().filter(|fault| fault.step == step && fault.spec.kind.acts_on_whole_step()) {
        let _ = writeln!(out, "  [{}] for the whole step ({})", fault.spec.kind.name(), fault.endpoint);
    }
    let mut exchanges = transcript.exchanges_of_calls(calls);
    // The answers are labelled before the requests: keys are numbered in that order.
    let answers = step_answers(calls, keys);
    if burst {
        exchanges.sort_by(|a, b| (&a.record.method, &a.record.path).cmp(&(&b.record.method, &b.record.path)));
    }
    for exchange in exchanges {
        let _ = writeln!(out, "  ↳ {}", exchange_text(exchange, transcript, keys));
    }
    for (case, answer) in answers {
        let label = if case.is_empty() { String::new() } else { format!("{case}: ") };
        let _ = writeln!(out, "  ⇐ {label}{answer}");
    }
    for mark in marks.iter().filter(|mark| mark.call.is_some_and(|call| calls.iter().any(|mine| mine.index == call))) {
        let _ = writeln!(out, "  ✗ {} [{}] {}", mark.check, mark.level, mark.message);
    }
}

/// What belongs to no step: stray and foreign requests, corpus cases left out, the ledger and the marks on the
/// whole run.
fn write_after_the_steps(out: &mut String, transcript: &Transcript, marks: &[Mark], keys: &mut Keys) {
    let stray: Vec<&Exchange> = transcript.strays().collect();
    if !stray.is_empty() {
        let _ = writeln!(out, "requests no call accounts for");
        for exchange in stray {
            let _ = writeln!(out, "  ↳ {}", exchange_text(exchange, transcript, keys));
        }
    }
    if !transcript.foreign.is_empty() {
        let _ = writeln!(out, "requests at the foreign origin");
        for request in &transcript.foreign {
            let _ = writeln!(out, "  ↳ {}", request.line());
        }
    }
    if !transcript.left_out.is_empty() {
        let _ = writeln!(out, "corpus cases left out: they call a tool the executor does not declare");
        for left in &transcript.left_out {
            let _ = writeln!(out, "  step {} {} ({})", left.step + 1, left.case, left.tool);
        }
    }
    let ledger = ledger_counts(transcript);
    let _ =
        writeln!(out, "ledger: {}", if ledger.is_empty() { "nothing committed".to_owned() } else { ledger.join("; ") });
    for mark in marks.iter().filter(|mark| mark.call.is_none()) {
        let _ = writeln!(out, "✗ {} [{}] {}", mark.check, mark.level, mark.message);
    }
}

#[cfg(test)]
mod tests {
    use super::text;
    use crate::checks::testing::history;

    #[test]
    fn a_burst_counts_its_calls_and_a_staggered_one_says_how_far_apart_they_started() {
        let burst = history("burst refund_order -> ok; and -> operation_in_progress");
        let header = |history: &crate::checks::testing::History| {
            text(&history.transcript()).lines().next().map(str::to_owned).unwrap_or_default()
        };
        assert!(header(&burst).ends_with(" ×2"), "{}", header(&burst));
        let staggered = burst.with_call(0, |call| call.stagger_ms = 2500).with_call(1, |call| call.stagger_ms = 2500);
        assert!(header(&staggered).ends_with(" ×2, 2500 ms apart"), "{}", header(&staggered));
        let single = history("submit refund_order -> ok");
        assert!(!header(&single).contains('×'), "{}", header(&single));
    }
}
