//! `callproof repro`: one scenario against one executor, its timeline, and every failed check marked where it
//! failed, as text, as a Mermaid sequence diagram (it renders on GitHub, so a duplicate-refund bug can be
//! pasted into an issue), or as JSON.
//!
//! Rule enforced here: the diagram is a pure function of the transcript and the verdicts, drawn with the
//! stable labels of the text timeline (keys `#1`, `#2`, no request ids), so two runs give the same picture. A
//! scenario the executor cannot be judged on is refused with the reason, never run with nothing judged; one
//! whose failure is expected of this executor (a crash without a durable store) runs, and says so.

use crate::checks::{self, Level, Outcome, Verdict};
use crate::corpus::Corpus;
use crate::report::sequence::{self, Kind, Lane, Tone};
use crate::runner::Runner;
use crate::scenario::Scenario;
use crate::subject::{SubjectError, SubjectFactory, Support};
use crate::suite::Suite;
use crate::timeline::{self, Mark};
use crate::transcript::{Answer, Transcript};
use serde_json::{Value, json};
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
    /// Why this executor is expected to fail the scenario, when it is (e.g. its store does not survive a kill).
    pub expected_failure: Option<String>,
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
    let expected_failure = match suite.support(scenario).await {
        Support::Full => None,
        Support::ExpectFailure(why) => Some(why),
        Support::Skip(why) => {
            return Err(SubjectError::Unsupported(format!(
                "`{}` cannot be reproduced against {subject}: {why}",
                scenario.name
            )));
        }
    };
    let (transcript, verdicts) = suite.judge(scenario).await?;
    let marks = timeline::marks(&transcript, &verdicts);
    Ok(Repro { scenario: scenario.clone(), subject, transcript, verdicts, marks, expected_failure })
}

impl Repro {
    /// Whether the subject broke the protocol (or never answered) in this run.
    pub fn broke(&self) -> bool {
        self.transcript.calls.iter().any(|call| matches!(call.answer, Answer::Broken(_) | Answer::NoAnswer))
    }
}

/// The timeline as text, failed checks marked.
pub fn text(repro: &Repro) -> String {
    let mut out = format!("{} against {}\n", repro.scenario.name, repro.subject);
    for note in notes(repro) {
        let _ = writeln!(out, "note: {note}");
    }
    out + &timeline::marked_text(&repro.transcript, &repro.marks)
}

/// What the reader must know beside the timeline: an expected failure, corpus cases left out.
fn notes(repro: &Repro) -> Vec<String> {
    let expected = repro.expected_failure.as_ref().map(|why| format!("this executor is expected to fail it: {why}"));
    expected.into_iter().chain(crate::runner::left_out_note(&repro.transcript.left_out)).collect()
}

/// The run as JSON: the scenario, the subject, the whole transcript, the verdicts and the placed failures.
pub fn json(repro: &Repro) -> Value {
    json!({
        "scenario": repro.scenario.name,
        "description": repro.scenario.description.trim(),
        "seed_ref": repro.scenario.seed_ref,
        "subject": repro.subject,
        "expected_failure": repro.expected_failure,
        "notes": notes(repro),
        "timeline": timeline::marked_text(&repro.transcript, &repro.marks).lines().collect::<Vec<_>>(),
        "failures": repro.marks,
        "verdicts": repro.verdicts,
        "transcript": repro.transcript,
    })
}

/// Mermaid text: `#`, `;`, `<` and `>` as entity codes, one line, at most `max` characters. `#` must be
/// encoded too: in a sequence diagram it starts a comment, so `key=#1` would lose everything from the `#`.
fn escape(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The title of a run's diagram.
pub fn title(repro: &Repro) -> String {
    format!("{} against {}", repro.scenario.name, repro.subject)
}

/// The run as a Mermaid `sequenceDiagram` (Model, Executor, Downstream), with notes for faults, commits,
/// kills and failed checks.
pub fn mermaid(repro: &Repro) -> String {
    let mut out = String::from(
        "sequenceDiagram\n    participant M as Model\n    participant E as Executor\n    participant D as Downstream\n",
    );
    let letter = |lane: Lane| match lane {
        Lane::Model => "M",
        Lane::Executor => "E",
        Lane::Downstream => "D",
    };
    for row in sequence::rows(&title(repro), &repro.transcript, &repro.marks) {
        let (from, to) = (letter(row.from), letter(row.to));
        let text = match row.kind {
            Kind::Note(Tone::Failure { .. }) => format!("❌ {}", escape(&row.text, row.limit)),
            _ => escape(&row.text, row.limit),
        };
        let _ = match row.kind {
            Kind::Send => writeln!(out, "    {from}->>{to}: {text}"),
            Kind::Reply => writeln!(out, "    {from}-->>{to}: {text}"),
            Kind::Lost => writeln!(out, "    {from}--x{to}: {text}"),
            Kind::Note(_) if from == to => writeln!(out, "    Note over {from}: {text}"),
            Kind::Note(_) => writeln!(out, "    Note over {from},{to}: {text}"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mermaid_text_escapes_what_mermaid_would_read_as_syntax() {
        assert_eq!(escape("key=#1; a<b>", 100), "key=#35;1#59; a#60;b#62;");
        assert_eq!(escape("call #0 ended", 100), "call #35;0 ended", "a `#` would start a comment");
        assert!(
            !escape("#; < > # x", 100)
                .replace("#35;", "")
                .replace("#59;", "")
                .replace("#60;", "")
                .replace("#62;", "")
                .contains('#')
        );
        assert_eq!(escape("abcdef", 3), "abc…");
        assert_eq!(escape("two\nlines", 100), "two lines");
    }
}
