//! The world reached without sockets: the executor's `Downstream` port calling straight into the world.
//!
//! Rule enforced here: the simulated downstream answers exactly what the world answers over HTTP (same
//! decision, same delay, same dropped connection, same refused connection), so a schedule found in simulation
//! replays over wiremock.
//! Delays, including a small network latency that keeps concurrent calls interleaving as they do over
//! loopback, are tokio sleeps, so under paused time they cost nothing.

use crate::world::{Incoming, World};
use async_trait::async_trait;
use callproof_executor::app::{Downstream, HttpRequest, HttpResponse, SendError};
use std::sync::Arc;
use std::time::Duration;

/// Virtual time a request takes to reach the world. Without it, one call could run from claim to answer
/// before a concurrent one is even polled, an interleaving loopback HTTP never produces.
const NETWORK_LATENCY: Duration = Duration::from_millis(1);

/// How much longer than the caller's timeout the simulated client waits (as `HttpDownstream` does).
const CLIENT_TIMEOUT_GRACE: Duration = Duration::from_secs(1);

/// The world as a `Downstream`.
pub struct SimulatedDownstream {
    world: Arc<World>,
}

impl SimulatedDownstream {
    /// A downstream answering from `world`.
    pub fn new(world: Arc<World>) -> SimulatedDownstream {
        SimulatedDownstream { world }
    }
}

#[async_trait]
impl Downstream for SimulatedDownstream {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let (path, query) = request.path_and_query.split_once('?').unwrap_or((request.path_and_query.as_str(), ""));
        let incoming = Incoming {
            method: request.method.clone(),
            path: path.to_owned(),
            query: query
                .split('&')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (percent_decode(key), percent_decode(value))
                })
                .collect(),
            headers: request.headers.iter().map(|(name, value)| (name.to_ascii_lowercase(), value.clone())).collect(),
            body: request.body.clone().unwrap_or_default(),
        };
        tokio::time::sleep(NETWORK_LATENCY).await;
        if self.world.refuses_connections() {
            return Err(SendError::NotSent);
        }
        let reply = self.world.handle(&incoming);
        // Like the HTTP client, give up a little after the caller's timeout, so the caller's own deadline fires
        // first and the caller reports the timeout itself.
        let give_up = timeout + CLIENT_TIMEOUT_GRACE;
        if reply.delay > give_up {
            tokio::time::sleep(give_up).await;
            return Err(SendError::Lost);
        }
        tokio::time::sleep(reply.delay).await;
        if reply.drop_connection {
            return Err(SendError::Lost);
        }
        // A body broken off: a success's result is lost with it; any other status stands, its body unread (as
        // `HttpDownstream` reads it). A body in parts arrives whole here (no chunks to split), once its last part
        // has, or not at all past the client's timeout.
        if let Some(parts) = reply.parts {
            if parts.cut {
                tokio::time::sleep(parts.pause).await;
                if (200..300).contains(&reply.status) {
                    return Err(SendError::Lost);
                }
                return Ok(HttpResponse { status: reply.status, headers: reply.headers, body: Vec::new() });
            }
            let left = give_up.saturating_sub(reply.delay);
            if parts.spread() > left {
                tokio::time::sleep(left).await;
                return Err(SendError::Lost);
            }
            tokio::time::sleep(parts.spread()).await;
        }
        Ok(HttpResponse { status: reply.status, headers: reply.headers, body: reply.body })
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|byte| (*byte as char).to_digit(16));
        match (bytes[index], hex(index + 1), hex(index + 2)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                index += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                index += 1;
            }
            (byte, _, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refusing_world_refuses_every_send_and_records_nothing() {
        use crate::world::{Behaviour, Fixtures};
        let world = Arc::new(World::new(&Fixtures::default(), Behaviour::default()));
        let downstream = SimulatedDownstream::new(world.clone());
        let request = || HttpRequest {
            method: "GET".to_owned(),
            path_and_query: "/weather?location=Oslo".to_owned(),
            headers: Vec::new(),
            body: None,
        };
        world.refuse_connections(true);
        let refused = downstream.send(request(), Duration::from_secs(1)).await;
        assert!(matches!(refused, Err(SendError::NotSent)), "{refused:?}");
        assert_eq!(world.request_count(), 0);
        world.refuse_connections(false);
        let answered = downstream.send(request(), Duration::from_secs(1)).await.expect("served again");
        assert_eq!(answered.status, 200);
        assert_eq!(world.request_count(), 1);
    }

    #[tokio::test]
    async fn a_body_broken_off_loses_a_success_and_keeps_any_other_status() {
        use crate::world::{Behaviour, FaultKind, FaultSpec, Fixtures, fault::BodyInTwoParts};
        let world = Arc::new(World::new(&Fixtures::default(), Behaviour::default()));
        let downstream = SimulatedDownstream::new(world.clone());
        let get = |path: &str| HttpRequest {
            method: "GET".to_owned(),
            path_and_query: path.to_owned(),
            headers: Vec::new(),
            body: None,
        };
        let cut = || FaultSpec {
            times: 0,
            ..FaultSpec::from(FaultKind::BodyInTwoParts(BodyInTwoParts {
                pause_ms: 5,
                cut: true,
                parts: 2,
                chunked: false,
            }))
        };
        let _weather = world.arm(cut(), "GET /weather".to_owned(), 0);
        let _orders = world.arm(cut(), "GET /orders".to_owned(), 0);
        let success = downstream.send(get("/weather?location=Oslo"), Duration::from_secs(1)).await;
        assert!(matches!(success, Err(SendError::Lost)), "{success:?}");
        let refusal = downstream.send(get("/orders/ord_missing"), Duration::from_secs(1)).await.expect("a status line");
        assert_eq!((refusal.status, refusal.body.len()), (404, 0));
    }

    #[test]
    fn percent_decoding_reverses_the_executors_encoding() {
        assert_eq!(percent_decode("S%C3%A3o%20Paulo"), "São Paulo");
        assert_eq!(percent_decode("a%2Fb"), "a/b");
        assert_eq!(percent_decode("bad%zz"), "bad%zz");
    }
}
