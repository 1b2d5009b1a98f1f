//! The `Clock` port: monotonic time for deadlines, wall time for records shared across processes.
//!
//! Rule enforced here: deadlines are measured on a monotonic clock (tokio's, so tests can pause it); only
//! facts that outlive the process (leases, approval and identity expiry) use wall-clock milliseconds.

use std::time::{SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

/// A source of time.
pub trait Clock: Send + Sync {
    /// Monotonic now.
    fn now(&self) -> Instant;
    /// Wall-clock now, in Unix milliseconds.
    fn wall_ms(&self) -> u64;
}

/// The machine's clocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn wall_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
    }
}

/// Wall time derived from tokio's monotonic clock, so that a paused tokio runtime also pauses the wall clock.
/// For simulations; a real deployment uses [`SystemClock`].
#[derive(Debug, Clone, Copy)]
pub struct TokioWallClock {
    origin: Instant,
    origin_wall_ms: u64,
}

impl TokioWallClock {
    /// Starts the wall clock at `origin_wall_ms` now.
    pub fn starting_at(origin_wall_ms: u64) -> TokioWallClock {
        TokioWallClock { origin: Instant::now(), origin_wall_ms }
    }
}

impl Clock for TokioWallClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn wall_ms(&self) -> u64 {
        self.origin_wall_ms + self.origin.elapsed().as_millis() as u64
    }
}
