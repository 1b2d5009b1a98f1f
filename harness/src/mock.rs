//! The world served over HTTP on loopback by wiremock.
//!
//! Rule enforced here: one wiremock server per scenario, two mocks: a matcher that asks the world for the
//! answer (and matches only when the answer is "drop the connection", so `respond_with_err` closes it after
//! the request was recorded), and a responder that serves the world's answer with its delay. wiremock decides
//! one request at a time under its own lock, so the hand-over between the two cannot interleave. A second
//! server is the world's foreign origin: it records what arrives (a followed redirect) and serves nothing.

use crate::world::{Incoming, Reply, World};
use std::sync::{Arc, Mutex, PoisonError};
use wiremock::{Match, Mock, MockServer, Request, Respond, ResponseTemplate};

/// A running mocked downstream.
pub struct MockDownstream {
    server: MockServer,
    foreign: MockServer,
}

impl MockDownstream {
    /// Serves `world` on a fresh loopback port.
    pub async fn start(world: Arc<World>) -> MockDownstream {
        // `builder().start()` gives a server of its own that really stops when dropped (a pooled one keeps
        // answering with its old mocks).
        let server = MockServer::builder().start().await;
        let foreign = MockServer::builder().start().await;
        world.serve_foreign_at(&foreign.uri());
        Mock::given(Always).respond_with(Foreign { world: world.clone() }).mount(&foreign).await;
        let decided = Arc::new(Mutex::new(None));
        Mock::given(Decide { world, decided: decided.clone() })
            .respond_with_err(|_: &Request| {
                std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: commit_then_drop")
            })
            .with_priority(1)
            .mount(&server)
            .await;
        Mock::given(Always).respond_with(Answer { decided }).with_priority(2).mount(&server).await;
        MockDownstream { server, foreign }
    }

    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// Stops the server. Yields first: dropping servers back to back without yielding can spin (wiremock 0.6).
    pub async fn stop(self) {
        tokio::task::yield_now().await;
        drop(self.server);
        tokio::task::yield_now().await;
        drop(self.foreign);
        tokio::task::yield_now().await;
    }
}

struct Decide {
    world: Arc<World>,
    decided: Arc<Mutex<Option<Reply>>>,
}

impl Match for Decide {
    fn matches(&self, request: &Request) -> bool {
        let reply = self.world.handle(&incoming(request));
        let drop_connection = reply.drop_connection;
        *self.decided.lock().unwrap_or_else(PoisonError::into_inner) = Some(reply);
        drop_connection
    }
}

/// The request as the world sees it.
fn incoming(request: &Request) -> Incoming {
    Incoming {
        method: request.method.as_str().to_owned(),
        path: request.url.path().to_owned(),
        query: request.url.query_pairs().map(|(key, value)| (key.into_owned(), value.into_owned())).collect(),
        headers: request
            .headers
            .iter()
            .filter_map(|(name, value)| Some((name.as_str().to_ascii_lowercase(), value.to_str().ok()?.to_owned())))
            .collect(),
        body: request.body.clone(),
    }
}

/// The foreign origin's one mock: every request is recorded and answered by the world.
struct Foreign {
    world: Arc<World>,
}

impl Respond for Foreign {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let reply = self.world.handle_foreign(&incoming(request));
        ResponseTemplate::new(reply.status).set_body_raw(reply.body, "application/json")
    }
}

struct Always;

impl Match for Always {
    fn matches(&self, _request: &Request) -> bool {
        true
    }
}

struct Answer {
    decided: Arc<Mutex<Option<Reply>>>,
}

impl Respond for Answer {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let Some(reply) = self.decided.lock().unwrap_or_else(PoisonError::into_inner).take() else {
            return ResponseTemplate::new(500);
        };
        let mut template =
            ResponseTemplate::new(reply.status).set_body_raw(reply.body, "application/json").set_delay(reply.delay);
        for (name, value) in reply.headers {
            template = template.insert_header(name.as_str(), value.as_str());
        }
        template
    }
}
