//! Calls queued behind others: how long the harness waits for an answer when other calls are in flight.
//!
//! Rule enforced here: a call's budget counts from when the executor reads it (docs/protocol.md), and an executor
//! with back-pressure reads a line only when it has answered an earlier one, so the wait for a call starts
//! again at every answer to another call of the same subject that comes while it waits. A call answered while
//! nothing else was answered meanwhile (the first answer after a quiet moment) is bounded from when it was sent.

use std::future::Future;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The answers one subject (one process, one step's calls) has given so far: each waiting call watches it.
#[derive(Debug)]
pub struct Answers(watch::Sender<u64>);

impl Default for Answers {
    fn default() -> Answers {
        Answers(watch::Sender::new(0))
    }
}

impl Answers {
    /// Counts one more answer, waking every call waiting meanwhile.
    pub fn answered(&self) {
        self.0.send_modify(|count| *count = count.wrapping_add(1));
    }

    /// What a call watches from now on: take it before the call is sent, so no answer after that is missed.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.0.subscribe()
    }
}

/// `answer`, unless `bound` passes without it from when it was sent or from the latest answer to another call
/// `others` (from [`Answers::watch`]) reported meanwhile; `None` when the time ran out.
pub async fn within<F: Future>(bound: Duration, mut others: watch::Receiver<u64>, answer: F) -> Option<F::Output> {
    let mut deadline = Instant::now() + bound;
    tokio::pin!(answer);
    loop {
        tokio::select! {
            biased;
            answered = &mut answer => return Some(answered),
            Ok(()) = others.changed() => deadline = Instant::now() + bound,
            () = tokio::time::sleep_until(deadline) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn another_answer_restarts_the_wait_and_silence_ends_it() {
        let answers = Answers::default();
        let bound = Duration::from_millis(1000);
        // Answered 1700 ms after it was sent, 900 ms after another call's answer: in time.
        let queued = within(bound, answers.watch(), async {
            tokio::time::sleep(Duration::from_millis(1700)).await;
            "answered"
        });
        let other = async {
            tokio::time::sleep(Duration::from_millis(800)).await;
            answers.answered();
        };
        let (queued, ()) = tokio::join!(queued, other);
        assert_eq!(queued, Some("answered"));
        // Nothing else answered: 1700 ms is past the bound.
        let alone = within(bound, answers.watch(), tokio::time::sleep(Duration::from_millis(1700))).await;
        assert_eq!(alone, None);
        // An answer before the call was sent restarts nothing.
        answers.answered();
        let earlier = within(bound, answers.watch(), tokio::time::sleep(Duration::from_millis(1001))).await;
        assert_eq!(earlier, None);
    }
}
