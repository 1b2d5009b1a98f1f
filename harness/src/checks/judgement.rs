//! The verdict of one check, built up while the check walks a transcript.
//!
//! Rule enforced here: Jepsen's order (false beats unknown beats true). Any violation fails the check; with
//! none, it passes only if it found something to judge, and skips otherwise, so a scenario that never
//! exercises a check never counts as evidence for it.

use super::{Outcome, Violation};

/// Accumulates what a check found.
#[derive(Debug, Default)]
pub(crate) struct Judgement {
    judged: bool,
    violations: Vec<Violation>,
}

impl Judgement {
    /// Nothing judged yet.
    pub(crate) fn new() -> Judgement {
        Judgement::default()
    }

    /// The check found something it applies to.
    pub(crate) fn judged(&mut self) {
        self.judged = true;
    }

    /// The check applies when `applicable` holds.
    pub(crate) fn judged_if(&mut self, applicable: bool) {
        self.judged |= applicable;
    }

    /// A violation, with the transcript lines that show it.
    pub(crate) fn fail(&mut self, message: impl Into<String>, evidence: Vec<String>) {
        self.violations.push(Violation { message: message.into(), evidence });
    }

    /// The verdict.
    pub(crate) fn outcome(self) -> Outcome {
        match (self.judged, self.violations.is_empty()) {
            (_, false) => Outcome::Fail { violations: self.violations },
            (true, true) => Outcome::Pass,
            (false, true) => Outcome::Skip,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_violation_fails_even_where_nothing_was_marked_judged() {
        let mut judgement = Judgement::new();
        judgement.fail("broken", vec!["line".to_owned()]);
        let Outcome::Fail { violations } = judgement.outcome() else { panic!("expected a failure") };
        assert_eq!(violations[0].message, "broken");
    }

    #[test]
    fn nothing_to_judge_skips_and_something_judged_without_violations_passes() {
        assert_eq!(Judgement::new().outcome(), Outcome::Skip);
        let mut judgement = Judgement::new();
        judgement.judged_if(false);
        assert_eq!(judgement.outcome(), Outcome::Skip);
        let mut judgement = Judgement::new();
        judgement.judged();
        assert_eq!(judgement.outcome(), Outcome::Pass);
    }
}
