//! Absolute deadlines and budget splitting.
//!
//! Rule enforced here: a call gets one absolute deadline on arrival, and every later step asks how much of it
//! remains; no layer starts a fresh timeout of its own. Work the executor waits on runs through [`bounded`].

use crate::clock::Clock;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

/// An absolute deadline, on the monotonic clock and (for records other processes read) on the wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Instant,
    wall_ms: u64,
}

impl Deadline {
    /// The deadline `budget` from now.
    pub fn after(budget: Duration, clock: &dyn Clock) -> Deadline {
        Deadline::started(budget, clock).0
    }

    /// [`Deadline::after`], and the wall time (Unix milliseconds) it counts from: one reading of the clock, so
    /// a start and its deadline are exactly the budget apart however the clock moves in between.
    pub fn started(budget: Duration, clock: &dyn Clock) -> (Deadline, u64) {
        let now = clock.now();
        let started_ms = clock.wall_ms();
        let at = now.checked_add(budget).unwrap_or(now + Duration::from_secs(365 * 24 * 3600));
        (Deadline { at, wall_ms: started_ms.saturating_add(budget.as_millis() as u64) }, started_ms)
    }

    /// The monotonic instant.
    pub fn instant(&self) -> Instant {
        self.at
    }

    /// The wall-clock deadline in Unix milliseconds.
    pub fn wall_ms(&self) -> u64 {
        self.wall_ms
    }

    /// Time left; zero once passed.
    pub fn remaining(&self, clock: &dyn Clock) -> Duration {
        self.at.saturating_duration_since(clock.now())
    }

    /// Whether no usable time is left.
    pub fn is_exhausted(&self, clock: &dyn Clock) -> bool {
        self.remaining(clock).is_zero()
    }
}

/// The deadline ran out before some work could start or finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Elapsed {
    /// No time was left, so the work was not started.
    #[error("the deadline had passed before the work started")]
    BeforeStart,
    /// The deadline passed while the work ran; the work was abandoned.
    #[error("the deadline passed while the work ran")]
    WhileRunning,
}

/// Runs `work` within `deadline`: not at all once no time is left (judged by `clock`, the executor's port),
/// and abandoned when the deadline's instant passes.
///
/// # Errors
/// [`Elapsed`], saying whether the work had started.
pub async fn bounded<F: Future>(deadline: &Deadline, clock: &dyn Clock, work: F) -> Result<F::Output, Elapsed> {
    if deadline.is_exhausted(clock) {
        return Err(Elapsed::BeforeStart);
    }
    tokio::time::timeout_at(deadline.instant(), work).await.map_err(|_| Elapsed::WhileRunning)
}

/// The budget a step may use: `total − used − reserve`, never negative.
///
/// `reserve` is what the caller keeps for itself afterwards (serialization, writing back to the model).
pub fn split_budget(total: Duration, used: Duration, reserve: Duration) -> Duration {
    total.saturating_sub(used).saturating_sub(reserve)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;

    #[test]
    fn split_budget_subtracts_and_saturates() {
        let s = Duration::from_secs;
        assert_eq!(split_budget(s(10), s(3), s(2)), s(5));
        assert_eq!(split_budget(s(10), s(9), s(2)), Duration::ZERO);
        assert_eq!(split_budget(s(1), s(5), s(0)), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn remaining_shrinks_with_time_and_stops_at_zero() {
        let clock = SystemClock;
        let deadline = Deadline::after(Duration::from_millis(100), &clock);
        assert_eq!(deadline.remaining(&clock), Duration::from_millis(100));
        tokio::time::advance(Duration::from_millis(60)).await;
        assert_eq!(deadline.remaining(&clock), Duration::from_millis(40));
        tokio::time::advance(Duration::from_millis(60)).await;
        assert!(deadline.is_exhausted(&clock));
    }

    #[tokio::test(start_paused = true)]
    async fn bounded_work_is_not_started_once_the_deadline_passed_and_is_abandoned_when_it_passes() {
        let clock = SystemClock;
        let deadline = Deadline::after(Duration::from_millis(100), &clock);
        assert_eq!(bounded(&deadline, &clock, async { 7 }).await, Ok(7));
        let slow = tokio::time::sleep(Duration::from_millis(150));
        assert_eq!(bounded(&deadline, &clock, slow).await, Err(Elapsed::WhileRunning));
        let mut started = false;
        let work = async { started = true };
        assert_eq!(bounded(&deadline, &clock, work).await, Err(Elapsed::BeforeStart));
        assert!(!started, "no time was left, so the work never ran");
    }

    #[test]
    fn a_huge_budget_does_not_overflow() {
        let deadline = Deadline::after(Duration::MAX, &SystemClock);
        assert!(!deadline.is_exhausted(&SystemClock));
    }
}
