//! The world served over HTTP on loopback by wiremock.
//!
//! Rule enforced here: one wiremock server per scenario, two mocks: a matcher that asks the world for the
//! answer (and matches only when the answer is "drop the connection", so `respond_with_err` closes it after
//! the request was recorded), and a responder that serves the world's answer with its delay. wiremock decides
//! one request at a time under its own lock, so the hand-over between the two cannot interleave.

use crate::world::{Incoming, Reply, World};
use std::sync::{Arc, Mutex, PoisonError};
use wiremock::{Match, Mock, MockServer, Request, Respond, ResponseTemplate};

/// A running mocked downstream.
pub struct MockDownstream {
    server: MockServer,
}

impl MockDownstream {
    /// Serves `world` on a fresh loopback port.
    pub async fn start(world: Arc<World>) -> MockDownstream {
        // `builder().start()` gives a server of its own that really stops when dropped (a pooled one keeps
        // answering with its old mocks).
        let server = MockServer::builder().start().await;
        let decided = Arc::new(Mutex::new(None));
        Mock::given(Decide { world, decided: decided.clone() })
            .respond_with_err(|_: &Request| {
                std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: commit_then_drop")
            })
            .with_priority(1)
            .mount(&server)
            .await;
        Mock::given(Always).respond_with(Answer { decided }).with_priority(2).mount(&server).await;
        MockDownstream { server }
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
    }
}

struct Decide {
    world: Arc<World>,
    decided: Arc<Mutex<Option<Reply>>>,
}

impl Match for Decide {
    fn matches(&self, request: &Request) -> bool {
        let incoming = Incoming {
            method: request.method.as_str().to_owned(),
            path: request.url.path().to_owned(),
            query: request.url.query_pairs().map(|(key, value)| (key.into_owned(), value.into_owned())).collect(),
            headers: request
                .headers
                .iter()
                .filter_map(|(name, value)| Some((name.as_str().to_ascii_lowercase(), value.to_str().ok()?.to_owned())))
                .collect(),
            body: request.body.clone(),
        };
        let reply = self.world.handle(&incoming);
        let drop_connection = reply.drop_connection;
        *self.decided.lock().unwrap_or_else(PoisonError::into_inner) = Some(reply);
        drop_connection
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
