//! Shrinking: a failing schedule made smaller until no single move or fault can be removed or simplified while
//! the same check still fails.
//!
//! Rule enforced here: what exploration reports is a local minimum under [`neighbours`], whatever the subject
//! (simulated or a process in real time): proptest's value tree first (it also simplifies the values a move
//! was drawn with), then single steps until none of them fails the same check.

use super::{Explorer, Mangle, Move, Transport};
use crate::checks::Violation;
use crate::subject::SubjectError;
use proptest::strategy::ValueTree;

/// The most schedules proptest's value tree may try before the single-step search takes over: in simulation a
/// schedule costs milliseconds; in real time about a second, one after the other, so the tree gets fewer and the
/// single-step search, which runs [`Explorer::jobs`] candidates at once, does the rest. The tree removes moves
/// first, then lowers each draw of a move in turn (a binary search per draw), which in real time costs a second
/// a step for what the single-step search mostly does in parallel: 30 steps kept the shrunk sizes of all 14
/// issue-4 mutants and cut their shrinking time (`scripts/explore-mutants`, BENCHMARKS.md).
const TREE_STEPS: usize = 2000;
/// [`TREE_STEPS`] in real time.
const TREE_STEPS_REAL_TIME: usize = 30;

impl Explorer {
    /// Shrinks the schedule in `tree`, which fails `check`: proptest's value tree, then [`neighbours`] to a
    /// local minimum. The schedules it tries are the tree's, with the faults the subject refuses left out.
    ///
    /// # Errors
    /// [`SubjectError`] when the subject cannot be started for a candidate.
    pub(super) fn shrink(
        &self,
        tree: &mut Box<dyn ValueTree<Value = Vec<Move>>>,
        check: &'static str,
    ) -> Result<(Vec<Move>, Vec<Violation>), SubjectError> {
        let mut best = self.adapt(tree.current());
        let mut violations = self.run(&best)?.violations;
        let mut failing = true;
        let steps = match self.transport {
            Transport::Simulated => TREE_STEPS,
            Transport::Loopback => TREE_STEPS_REAL_TIME,
        };
        for _ in 0..steps {
            let moved = if failing { tree.simplify() } else { tree.complicate() };
            if !moved {
                break;
            }
            let candidate = self.adapt(tree.current());
            let run = self.run(&candidate)?;
            failing = run.fails(check);
            if failing {
                best = candidate;
                violations = run.violations;
            }
        }
        // proptest's value tree stops at *a* simpler schedule; go on to a local minimum: no single move or fault
        // can be removed or simplified while the same check still fails.
        // The candidates run [`Explorer::jobs`] at a time; the first failing one in order is kept, as if they had
        // run one by one.
        loop {
            let candidates = neighbours(&best);
            let mut smaller = Vec::new();
            let failed = self.run_ordered(candidates.len(), &|index| candidates[index].clone(), |_, run| {
                let fails = run.fails(check);
                if fails {
                    smaller = run.violations;
                }
                fails
            })?;
            let Some(index) = failed else { break };
            best = candidates[index].clone();
            violations = smaller;
        }
        Ok((best, violations))
    }
}

/// Every schedule one step simpler than `moves`: one move removed, one fault removed, or one move simplified
/// (arguments not mangled, a burst one call smaller, a shorter wait, no business request id).
pub fn neighbours(moves: &[Move]) -> Vec<Vec<Move>> {
    let mut simpler = Vec::new();
    for index in 0..moves.len() {
        let mut without = moves.to_vec();
        without.remove(index);
        simpler.push(without);
    }
    for (index, one) in moves.iter().enumerate() {
        for candidate in simplified(one) {
            let mut changed = moves.to_vec();
            changed[index] = candidate;
            simpler.push(changed);
        }
    }
    simpler
}

/// The ways one move can be made one step simpler.
fn simplified(one: &Move) -> Vec<Move> {
    let mut simpler = Vec::new();
    match one {
        Move::Submit { call, mangle, auth, business, budget_ms, fault } => {
            let submit = |mangle: Mangle, business: Option<u8>, fault: Option<crate::world::fault::Generated>| {
                Move::Submit { call: call.clone(), mangle, auth: *auth, business, budget_ms: *budget_ms, fault }
            };
            if fault.is_some() {
                simpler.push(submit(*mangle, *business, None));
            }
            if *mangle != Mangle::None {
                simpler.push(submit(Mangle::None, *business, *fault));
            }
            if business.is_some() {
                simpler.push(submit(*mangle, None, *fault));
            }
        }
        Move::Burst { call, auth, business, count, fault } => {
            let burst =
                |count: u32, fault| Move::Burst { call: call.clone(), auth: *auth, business: *business, count, fault };
            if fault.is_some() {
                simpler.push(burst(*count, None));
            }
            if *count > 2 {
                simpler.push(burst(count - 1, *fault));
            }
        }
        Move::Retry { op, fault: Some(_) } => simpler.push(Move::Retry { op: *op, fault: None }),
        Move::Wait { ms } if *ms > 100 => simpler.push(Move::Wait { ms: 100 }),
        _ => {}
    }
    simpler
}
