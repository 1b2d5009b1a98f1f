//! `callproof repro`: one scenario against one executor, its timeline, and every failed check marked where it
//! failed, as text, as a Mermaid sequence diagram (it renders on GitHub, so a duplicate-refund bug can be
//! pasted into an issue), or as JSON.
//!
//! Rule enforced here: the diagram is a pure function of the transcript and the verdicts, drawn with the
//! stable labels of the text timeline (keys `#1`, `#2`, no request ids), so two runs give the same picture.

use crate::checks::{self, Level, Outcome, Verdict};
use crate::corpus::Corpus;
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::{SubjectError, SubjectFactory};
use crate::suite::Suite;
use crate::timeline::{self, Keys, Mark};
use crate::transcript::{Answer, CallRecord, Exchange, Transcript};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

/// One reproduced run.
#[derive(Debug, Clone)]
pub struct Repro {
    /// The scenario.
    pub scenario: Scenario,
    /// The subject's name.
    pub subject: String,
    /// What happened.
    pub transcript: Transcript,
    /// Every check's verdict.
    pub verdicts: Vec<Verdict>,
    /// The failed checks, placed.
    pub marks: Vec<Mark>,
}

impl Repro {
    /// Whether a MUST check failed.
    pub fn must_failed(&self) -> bool {
        self.verdicts
            .iter()
            .any(|verdict| verdict.level == Level::Must && matches!(verdict.outcome, Outcome::Fail { .. }))
    }
}

/// Runs `scenario` once against a subject of `factory` and judges it with every check.
///
/// # Errors
/// [`SubjectError`] when the subject could not be started or restarted.
pub async fn reproduce(
    factory: Arc<dyn SubjectFactory>,
    scenario: &Scenario,
    corpus: Arc<Corpus>,
) -> Result<Repro, SubjectError> {
    let subject = factory.name();
    let suite = Suite::new(Runner::new(factory, corpus.clone()), corpus, checks::all(), 1);
    let (transcript, verdicts) = suite.judge(scenario).await?;
    let marks = timeline::marks(&transcript, &verdicts);
    Ok(Repro { scenario: scenario.clone(), subject, transcript, verdicts, marks })
}

impl Repro {
    /// Whether the subject broke the protocol (or never answered) in this run.
    pub fn broke(&self) -> bool {
        self.transcript.calls.iter().any(|call| matches!(call.answer, Answer::Broken(_) | Answer::NoAnswer))
    }
}

/// The timeline as text, failed checks marked.
pub fn text(repro: &Repro) -> String {
    format!(
        "{} against {}\n{}",
        repro.scenario.name,
        repro.subject,
        timeline::marked_text(&repro.transcript, &repro.marks)
    )
}

/// The run as JSON: the scenario, the subject, the whole transcript, the verdicts and the placed failures.
pub fn json(repro: &Repro) -> Value {
    json!({
        "scenario": repro.scenario.name,
        "description": repro.scenario.description.trim(),
        "seed_ref": repro.scenario.seed_ref,
        "subject": repro.subject,
        "timeline": timeline::marked_text(&repro.transcript, &repro.marks).lines().collect::<Vec<_>>(),
        "failures": repro.marks,
        "verdicts": repro.verdicts,
        "transcript": repro.transcript,
    })
}

/// Mermaid text: `;`, `<` and `>` as entity codes (so no `#word;` entity can appear by accident), one line, at
/// most `max` characters.
fn escape(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        match c {
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The run as a Mermaid `sequenceDiagram` (Model, Executor, Downstream), with notes for faults, commits,
/// kills and failed checks.
pub fn mermaid(repro: &Repro) -> String {
    let transcript = &repro.transcript;
    let mut keys = Keys::default();
    let mut out = String::from(
        "sequenceDiagram\n    participant M as Model\n    participant E as Executor\n    participant D as Downstream\n",
    );
    let _ = writeln!(
        out,
        "    Note over M,D: {}",
        escape(&format!("{} against {}", repro.scenario.name, repro.subject), 150)
    );
    let mut steps: BTreeMap<usize, Vec<&CallRecord>> = BTreeMap::new();
    for call in &transcript.calls {
        steps.entry(call.step).or_default().push(call);
    }
    for (step, calls) in steps {
        draw_step(&mut out, repro, step, &calls, &mut keys);
    }
    for exchange in transcript.exchanges.iter().filter(|exchange| exchange.call.is_none()) {
        draw_exchange(&mut out, exchange, transcript, &mut keys);
    }
    let ledger = timeline::ledger_counts(transcript);
    let ledger = if ledger.is_empty() { "nothing committed".to_owned() } else { ledger.join(", ") };
    let _ = writeln!(out, "    Note over M,D: {}", escape(&format!("ledger: {ledger}"), 200));
    for mark in repro.marks.iter().filter(|mark| mark.call.is_none()) {
        let _ = writeln!(
            out,
            "    Note over M,D: {}",
            escape(&format!("❌ {} [{}]: {}", mark.check, mark.level, mark.message), 200)
        );
    }
    out
}

/// One step of the diagram: the model's call, the executor's requests, the answers and the failed checks.
fn draw_step(out: &mut String, repro: &Repro, step: usize, calls: &[&CallRecord], keys: &mut Keys) {
    let first = calls[0];
    let business = first.business_request_id.as_deref().map(|id| format!(", {id}")).unwrap_or_default();
    let count = if calls.len() > 1 { format!(" ×{}", calls.len()) } else { String::new() };
    let header = if first.action == crate::scenario::StepKind::Corpus {
        format!("step {} corpus: {} malformed calls", step + 1, calls.len())
    } else {
        format!(
            "step {} {} {}{count} ({}, attempt {}{business})",
            step + 1,
            first.action,
            first.tool,
            first.call_id,
            first.attempt
        )
    };
    let _ = writeln!(out, "    M->>E: {}", escape(&header, 150));
    let mine = |exchange: &&Exchange| exchange.call.is_some_and(|call| calls.iter().any(|own| own.index == call));
    for exchange in repro.transcript.exchanges.iter().filter(mine) {
        draw_exchange(out, exchange, &repro.transcript, keys);
    }
    if first.action == crate::scenario::StepKind::Corpus {
        let mut codes: BTreeMap<String, usize> = BTreeMap::new();
        for call in calls {
            let code = call.error().map_or("ok".to_owned(), |error| error.wire_code.clone());
            *codes.entry(code).or_default() += 1;
        }
        let summary: Vec<String> = codes.iter().map(|(code, count)| format!("{code} ×{count}")).collect();
        let _ = writeln!(out, "    E-->>M: {}", escape(&summary.join(", "), 200));
    } else {
        for call in calls {
            let _ = match &call.answer {
                Answer::Killed => writeln!(out, "    Note over E: killed (SIGKILL) before answering, then restarted"),
                Answer::Broken(_) | Answer::NoAnswer => {
                    writeln!(out, "    E--xM: {}", escape(&call.answer.to_string(), 150))
                }
                Answer::Envelope(_) | Answer::Malformed(_) => {
                    writeln!(out, "    E-->>M: {}", escape(&call.answer.to_string(), 150))
                }
            };
        }
    }
    for mark in
        repro.marks.iter().filter(|mark| mark.call.is_some_and(|call| calls.iter().any(|own| own.index == call)))
    {
        let _ = writeln!(
            out,
            "    Note over M,E: {}",
            escape(&format!("❌ {} [{}]: {}", mark.check, mark.level, mark.message), 200)
        );
    }
}

fn draw_exchange(out: &mut String, exchange: &Exchange, transcript: &Transcript, keys: &mut Keys) {
    let record = &exchange.record;
    let mut request = format!("{} {}", record.method, record.path);
    if let Some((_, key)) = request.clone().split_once("idempotency_key=") {
        let key = key.split('&').next().unwrap_or_default().to_owned();
        request = request.replace(&key, &keys.label(&key));
    }
    if let Some(key) = &record.idempotency_key {
        let _ = write!(request, " key={}", keys.label(key));
    }
    let _ = writeln!(out, "    E->>D: {}", escape(&request, 150));
    if let crate::world::Handling::Committed(index) = record.handling
        && let Some(effect) = transcript.ledger.get(index)
    {
        let _ = writeln!(
            out,
            "    Note over D: {}",
            escape(&format!("committed {} {}", effect.kind.name(), effect.effect_id), 100)
        );
    }
    match (exchange.fault(), record.status) {
        (Some(name @ ("kill_after_commit" | "kill_after_claim")), _) => {
            let _ = writeln!(out, "    D--xE: {}", escape(&format!("never answered [{name}]"), 100));
        }
        (fault, None) => {
            let _ =
                writeln!(out, "    D--xE: {}", escape(&format!("connection dropped [{}]", fault.unwrap_or("?")), 100));
        }
        (fault, Some(status)) => {
            let fault = fault.map(|name| format!(" [{name}]")).unwrap_or_default();
            let _ = writeln!(out, "    D-->>E: {}", escape(&format!("{status}{fault}"), 100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mermaid_text_escapes_what_mermaid_would_read_as_syntax() {
        assert_eq!(escape("key=#1; a<b>", 100), "key=#1#59; a#60;b#62;");
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(escape("two\nlines", 100), "two lines");
    }
}
