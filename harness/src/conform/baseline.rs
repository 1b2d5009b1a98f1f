//! The expected-failure baseline: failures an executor is known to have, listed so they do not fail the run.
//!
//! Rule enforced here: a baseline only ever excuses failures that still happen. A listed entry that no longer
//! fails is stale and fails the run, so the list shrinks as the executor improves and never hides a fix.
//!
//! Format: one entry per line, `SCENARIO [CHECK]`, `#` starts a comment. Without a check, every failure of the
//! scenario is expected.
//!
//! ```text
//! # our executor keeps idempotency records in memory
//! idempotency/crash_after_commit single-effect   # lost on restart
//! decode/malformed_corpus                         # the whole scenario
//! ```

use serde::Serialize;
use std::path::Path;

/// Why a baseline cannot be used. Each names the line it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The file cannot be read.
    #[error("baseline {path}: {why}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's reason.
        why: String,
    },
    /// A line that is not `SCENARIO [CHECK]`.
    #[error("{}line {line}: expected `SCENARIO [CHECK]`, found {found:?}", path.as_deref().map(|path| format!("baseline {path}: ")).unwrap_or_default())]
    Line {
        /// The file, when it came from one.
        path: Option<String>,
        /// The line, from 1.
        line: usize,
        /// What the line holds (comment removed).
        found: String,
    },
    /// An entry naming a scenario that does not exist.
    #[error("baseline line {line}: no scenario is called `{scenario}`")]
    UnknownScenario {
        /// The line, from 1.
        line: usize,
        /// The name listed.
        scenario: String,
    },
    /// An entry naming a check that does not exist.
    #[error("baseline line {line}: no check is called `{check}` (see `callproof checks`)")]
    UnknownCheck {
        /// The line, from 1.
        line: usize,
        /// The id listed.
        check: String,
    },
}

/// One listed expected failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The scenario id, e.g. `idempotency/crash_after_commit`.
    pub scenario: String,
    /// The check id; `None` means every check of the scenario.
    pub check: Option<String>,
    /// The line in the file, from 1.
    pub line: usize,
}

impl Entry {
    /// Whether this entry excuses `check` failing in `scenario`.
    pub fn covers(&self, scenario: &str, check: &str) -> bool {
        self.scenario == scenario && self.check.as_deref().is_none_or(|listed| listed == check)
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Baseline {
    /// Where it came from.
    pub path: Option<String>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

impl Baseline {
    /// Reads a baseline file.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not `SCENARIO [CHECK]` (the message names the line).
    pub fn load(path: &Path) -> Result<Baseline, Error> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| Error::Read { path: shown.clone(), why: error.to_string() })?;
        let mut baseline = Baseline::parse(&text).map_err(|error| match error {
            Error::Line { line, found, .. } => Error::Line { path: Some(shown.clone()), line, found },
            other => other,
        })?;
        baseline.path = Some(shown);
        Ok(baseline)
    }

    /// Parses baseline text.
    ///
    /// # Errors
    /// A line that is not `SCENARIO [CHECK]`, naming the line.
    pub fn parse(text: &str) -> Result<Baseline, Error> {
        let mut entries = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or_default();
            let words: Vec<&str> = content.split_whitespace().collect();
            let line = index + 1;
            match words.as_slice() {
                [] => {}
                [scenario] => entries.push(Entry { scenario: (*scenario).to_owned(), check: None, line }),
                [scenario, check] => {
                    entries.push(Entry { scenario: (*scenario).to_owned(), check: Some((*check).to_owned()), line })
                }
                _ => return Err(Error::Line { path: None, line, found: content.trim().to_owned() }),
            }
        }
        Ok(Baseline { path: None, entries })
    }

    /// The entry that excuses `check` failing in `scenario`, if any.
    pub fn covering(&self, scenario: &str, check: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.covers(scenario, check))
    }

    /// Checks that every entry names a known scenario and check.
    ///
    /// # Errors
    /// The first entry that does not, with its line.
    pub fn validate(&self, scenarios: &[&str], checks: &[&str]) -> Result<(), Error> {
        for entry in &self.entries {
            if !scenarios.contains(&entry.scenario.as_str()) {
                return Err(Error::UnknownScenario { line: entry.line, scenario: entry.scenario.clone() });
            }
            if let Some(check) = &entry.check
                && !checks.contains(&check.as_str())
            {
                return Err(Error::UnknownCheck { line: entry.line, check: check.clone() });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_name_a_scenario_and_optionally_a_check() {
        let baseline =
            Baseline::parse("# header\n\nidempotency/crash single-effect # why\ndecode/corpus\n").expect("parses");
        assert_eq!(baseline.entries.len(), 2);
        assert!(baseline.covering("idempotency/crash", "single-effect").is_some());
        assert!(baseline.covering("idempotency/crash", "same-key").is_none());
        assert!(baseline.covering("decode/corpus", "anything").is_some());
        assert_eq!(baseline.entries[0].line, 3);
    }

    #[test]
    fn a_line_with_three_words_is_refused_with_its_number() {
        let error = Baseline::parse("a b\na b c\n").expect_err("three words");
        assert!(error.to_string().starts_with("line 2: expected `SCENARIO [CHECK]`"), "{error}");
        let error = Baseline { path: None, entries: vec![Entry { scenario: "x".into(), check: None, line: 4 }] }
            .validate(&["y"], &[])
            .expect_err("no such scenario");
        assert_eq!(error.to_string(), "baseline line 4: no scenario is called `x`");
    }
}
