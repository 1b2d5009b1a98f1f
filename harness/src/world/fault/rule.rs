//! Rules: what a fault does to one request, as verdicts the world applies.
//!
//! Rule enforced here: a fault kind never touches the world's state. It sees the request, may answer in the
//! downstream's place before anything commits ([`Before`]), may reshape the answer afterwards, and says how
//! the answer goes out ([`After`]); the world alone commits, records and delays.

use crate::world::{Handling, Incoming};
use serde_json::Value;
use std::time::Duration;
use tokio::time::Instant;

/// A request as a rule sees it.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The request.
    pub incoming: &'a Incoming,
    /// `"METHOD /first-segment"`.
    pub endpoint: &'a str,
    /// When it arrived.
    pub now: Instant,
    /// The base URL of the foreign origin (another listener on loopback), where a redirect may point.
    pub foreign_origin: &'a str,
}

impl Request<'_> {
    /// The `X-Deadline-Ms` header as a number, when the executor sent one.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.incoming.headers.get("x-deadline-ms").and_then(|value| crate::world::parse_deadline_ms(value))
    }
}

/// An answer being shaped: what the downstream (or a rule in its place) decided, before it goes out.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// Status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: Value,
    /// Bytes sent instead of the JSON body (a body that is not JSON).
    pub raw: Option<Vec<u8>>,
    /// What the downstream did with the request.
    pub handling: Handling,
}

impl Outgoing {
    /// An answer that committed nothing.
    pub fn refusal(status: u16, body: Value) -> Outgoing {
        Outgoing { status, headers: Vec::new(), body, raw: None, handling: Handling::NoEffect }
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// A rule's verdict before the downstream decides.
#[derive(Debug, Clone, PartialEq)]
pub enum Before {
    /// Let the downstream decide (and commit, if the request is a side effect).
    Pass,
    /// Answer this instead; nothing is committed.
    Answer(Outgoing),
}

/// A rule's verdict on how the (possibly reshaped) answer goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Answer at once.
    Pass,
    /// Answer after this long.
    Delay(Duration),
    /// The work itself takes this long: answer then, and a commit stays invisible to status queries until then.
    Slow(Duration),
    /// Close the connection without an answer.
    Drop,
    /// Close the connection without an answer, and keep a commit unknown to status queries this long (they
    /// answer 404): the request lands later.
    Lost(Duration),
    /// Close the connection without an answer, and let status queries answer `pending` for this long before
    /// they report the commit.
    LostPending(Duration),
    /// Kill the subject at this point.
    Kill(KillPoint),
    /// Kill the subject while the call is in flight, and keep the commit unknown to status queries this long
    /// (they answer 404): the request it sent lands later.
    KillWhileQueued(Duration),
    /// Stop the subject's process (SIGSTOP) for this long, then resume it (SIGCONT); the answer goes out once
    /// the stop has landed, so the subject finds it waiting when it resumes.
    Pause(Duration),
    /// Cut the subject's idempotency store off for the rest of the step; the answer goes out once the cut has
    /// landed, so the subject records into a store that is gone.
    CutStore,
    /// Close the subject's input (stdin); the answer goes out once the end of input has landed, so the call is in
    /// flight when the subject learns that no more calls will come.
    EndInput,
    /// Write the body in `count` parts `pause` apart, the first ending inside its first character beyond ASCII
    /// (else at its middle); with `cut`, close the connection after the first part instead: the status line and
    /// headers (with the whole body's `Content-Length`) arrived, the body never did.
    InParts {
        /// Between two writes.
        pause: Duration,
        /// Close after the first part.
        cut: bool,
        /// How many writes.
        count: u32,
        /// Each write one HTTP/1.1 chunk (`Transfer-Encoding: chunked`), no `Content-Length`.
        chunked: bool,
    },
}

/// When a kill fault kills the subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KillPoint {
    /// While the call is in flight: the request is never answered.
    InFlight,
    /// As the subject's answer to the call arrives: the subject finished (and recorded) but the caller never
    /// sees the answer.
    BeforeAnswer,
}

/// What one armed fault does to the requests it applies to. Both hooks pass by default.
pub trait Rule: Send + std::fmt::Debug {
    /// Before the downstream decides.
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        Before::Pass
    }

    /// After the downstream (or [`Rule::before_commit`]) decided: reshape `answer` in place and say how it goes out.
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::Pass
    }
}
