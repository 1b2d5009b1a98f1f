//! The world served over HTTP on loopback by wiremock.
//!
//! Rule enforced here: one wiremock server per scenario, two mocks: a matcher that asks the world for the
//! answer (and matches only when the answer is "drop the connection", so `respond_with_err` closes it after
//! the request was recorded), and a responder that serves the world's answer with its delay. wiremock decides
//! one request at a time under its own lock, so the hand-over between the two cannot interleave. A second
//! server is the world's foreign origin: it records what arrives (a followed redirect) and serves nothing.
//! The world sees a request's path normalized as RFC 3986 §6.2.2.2 says (a percent-encoded unreserved
//! character is that character: `ord%5F1` is `ord_1`), so an executor whose encoder escapes more than it must
//! reaches the same resource. For a step of the `connection_refused` fault the downstream stops listening (its
//! open connections are closed, new ones refused) and listens again on the same port after the step.

mod parts;

use crate::world::{Incoming, Reply, World};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use wiremock::{Match, Mock, MockServer, Request, Respond, ResponseTemplate};

/// A running mocked downstream.
pub struct MockDownstream {
    /// Taken by [`MockDownstream::stop`] or the drop; `None` only after that.
    servers: Option<Servers>,
    /// The world served, kept to serve it again after [`MockDownstream::refuse_connections`].
    world: Arc<World>,
    /// Where the downstream listens, whether or not it does right now.
    address: SocketAddr,
}

/// The downstream's server and the foreign origin's.
struct Servers {
    /// `None` while connections are refused or the harness's own server answers.
    main: Option<MockServer>,
    /// The harness's own server, while it answers in wiremock's place ([`MockDownstream::serve_in_parts`]).
    parts: Option<tokio::task::JoinHandle<()>>,
    /// Held so the foreign origin serves until the downstream stops.
    _foreign: MockServer,
}

/// How long a closed listener waits before the step's calls go out, so that an executor's pooled keep-alive
/// connections have seen their close and are not picked for the step's requests.
const CLOSE_SETTLE: Duration = Duration::from_millis(100);

/// How long a closed listener may take to stop taking connections (wiremock's thread closes it on its own time).
const CLOSE_WAIT: Duration = Duration::from_secs(10);

impl MockDownstream {
    /// Serves `world` on a fresh loopback port.
    ///
    /// # Panics
    /// When no loopback port can be bound (as wiremock itself panics then).
    pub async fn start(world: Arc<World>) -> MockDownstream {
        let listener = reusable_listener(SocketAddr::from(([127, 0, 0, 1], 0))).expect("a free loopback port");
        let address = listener.local_addr().expect("a bound listener has an address");
        let main = serve(world.clone(), listener).await;
        // `builder().start()` gives a server of its own that really stops when dropped (a pooled one keeps
        // answering with its old mocks).
        let foreign = MockServer::builder().start().await;
        world.serve_foreign_at(&foreign.uri());
        Mock::given(Always).respond_with(Foreign { world: world.clone() }).mount(&foreign).await;
        MockDownstream { servers: Some(Servers { main: Some(main), parts: None, _foreign: foreign }), world, address }
    }

    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Stops listening (fault `connection_refused`): every connection, open or new, is closed or refused until
    /// [`MockDownstream::accept_connections`]. Returns once a connection attempt is refused, and a moment later.
    ///
    /// # Errors
    /// When the port still takes connections after [`CLOSE_WAIT`] (a machine too loaded to run the step as
    /// written: the step must not run against a listener that may still answer).
    pub async fn refuse_connections(&mut self) -> std::io::Result<()> {
        let Some(main) = self.servers.as_mut().and_then(|servers| servers.main.take()) else { return Ok(()) };
        let _ = tokio::task::spawn_blocking(move || drop(main)).await;
        // wiremock's thread notices the shutdown on its own time: wait until the port refuses.
        let started = tokio::time::Instant::now();
        while tokio::net::TcpStream::connect(self.address).await.is_ok() {
            if started.elapsed() > CLOSE_WAIT {
                return Err(std::io::Error::other(format!(
                    "still listening {} ms after closing",
                    CLOSE_WAIT.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(CLOSE_SETTLE).await;
        Ok(())
    }

    /// Listens again on the same port after [`MockDownstream::refuse_connections`].
    ///
    /// # Errors
    /// When the port cannot be bound again (another process took it meanwhile).
    pub async fn accept_connections(&mut self) -> std::io::Result<()> {
        let Some(servers) = self.servers.as_mut() else { return Ok(()) };
        if servers.main.is_none() {
            let listener = reusable_listener(self.address)?;
            servers.main = Some(serve(self.world.clone(), listener).await);
        }
        Ok(())
    }

    /// Serves the world from the harness's own HTTP/1.1 server on the same port instead of wiremock, for a step
    /// whose answers may be written in parts (fault `body_in_two_parts`; wiremock writes every body whole), until
    /// [`MockDownstream::serve_with_wiremock`].
    ///
    /// # Errors
    /// When the port cannot be handed over (see [`MockDownstream::refuse_connections`]).
    pub async fn serve_in_parts(&mut self) -> std::io::Result<()> {
        self.refuse_connections().await?;
        let listener = tokio::net::TcpListener::from_std(reusable_listener(self.address)?)?;
        if let Some(servers) = self.servers.as_mut() {
            servers.parts = Some(tokio::spawn(parts::serve(listener, self.world.clone())));
        }
        Ok(())
    }

    /// Hands the port back to wiremock after [`MockDownstream::serve_in_parts`]; the harness's server and its
    /// connections end.
    ///
    /// # Errors
    /// When the port cannot be bound again.
    pub async fn serve_with_wiremock(&mut self) -> std::io::Result<()> {
        if let Some(task) = self.servers.as_mut().and_then(|servers| servers.parts.take()) {
            task.abort();
            let _ = task.await;
        }
        self.accept_connections().await
    }

    /// Stops both servers: returns once both were dropped, which tells their threads to shut down.
    pub async fn stop(mut self) {
        if let Some(servers) = self.servers.take() {
            // An error means the runtime is shutting down, which drops the servers too.
            let _ = tokio::task::spawn_blocking(move || drop(servers)).await;
        }
    }
}

/// A loopback listener on `address` that can be bound again while closed connections linger in TIME_WAIT.
fn reusable_listener(address: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)?.into_std()
}

/// A wiremock server on `listener` answering from `world`.
async fn serve(world: Arc<World>, listener: std::net::TcpListener) -> MockServer {
    let server = MockServer::builder().listener(listener).start().await;
    let decided = Arc::new(Mutex::new(None));
    Mock::given(Decide { world, decided: decided.clone() })
        .respond_with_err(|_: &Request| {
            std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: commit_then_drop")
        })
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(Always).respond_with(Answer { decided }).with_priority(2).mount(&server).await;
    server
}

/// wiremock 0.6 verifies a server on drop with `futures::executor::block_on`, whose lock acquisition counts
/// against tokio's cooperative budget: dropped inside a task that spent its budget (one task polling many
/// scenarios), it is refused forever and spins at 100% CPU. So servers are dropped on a blocking thread, which
/// has no budget; without a runtime (a plain thread), where they are.
impl Drop for Servers {
    fn drop(&mut self) {
        if let Some(task) = self.parts.take() {
            task.abort();
        }
    }
}

impl Drop for MockDownstream {
    fn drop(&mut self) {
        if let Some(servers) = self.servers.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn_blocking(move || drop(servers));
        }
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
        path: normalized_path(request.url.path()),
        query: request.url.query_pairs().map(|(key, value)| (key.into_owned(), value.into_owned())).collect(),
        headers: request
            .headers
            .iter()
            .filter_map(|(name, value)| Some((name.as_str().to_ascii_lowercase(), value.to_str().ok()?.to_owned())))
            .collect(),
        body: request.body.clone(),
    }
}

/// `path` with every percent-encoded unreserved character (`A-Z a-z 0-9 - . _ ~`) decoded, as RFC 3986 §6.2.2.2
/// normalizes it; every other escape (`%2F`, `%20`, a multibyte character) stays as it came.
fn normalized_path(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut normalized = String::with_capacity(path.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| path.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .filter(|byte| byte.is_ascii_alphanumeric() || b"-._~".contains(byte));
        if let Some(byte) = escaped {
            normalized.push(char::from(byte));
            index += 3;
        } else {
            let next = path[index..].chars().next().unwrap_or_default();
            normalized.push(next);
            index += next.len_utf8();
        }
    }
    normalized
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

#[cfg(test)]
mod tests {
    use super::*;

    fn request_to(url: &str) -> Request {
        let url = wiremock::http::Url::parse(url).expect("a test URL");
        Request { url, method: wiremock::http::Method::GET, headers: wiremock::http::HeaderMap::new(), body: vec![] }
    }

    #[test]
    fn a_percent_encoded_unreserved_character_in_the_path_reaches_the_world_as_itself() {
        // examples/buggy/variant_encodes_unreserved.py sends `GET /orders/ord%5F123`: the same URI as
        // `/orders/ord_123` (RFC 3986 §2.3), which the world answered 404 before the path was normalized.
        assert_eq!(incoming(&request_to("http://127.0.0.1:1/orders/ord%5F123")).path, "/orders/ord_123");
        assert_eq!(
            incoming(&request_to("http://127.0.0.1:1/preferences/a%5fb%2Dc%2E%7E")).path,
            "/preferences/a_b-c.~"
        );
    }

    #[test]
    fn other_escapes_in_the_path_stay_as_they_came() {
        let path = incoming(&request_to("http://127.0.0.1:1/orders/a%2Fb%20c%C3%A9%25%5")).path;
        assert_eq!(path, "/orders/a%2Fb%20c%C3%A9%25%5");
    }
    use crate::world::{Behaviour, Fixtures};
    use std::task::Poll;
    use std::time::Duration;

    /// `body_in_two_parts`: the harness's own server writes the weather service's answer in two reads split inside
    /// a character (the bytes, put together, are the whole answer), with `cut` a success's body breaks off
    /// after its first part, and with `chunked` it comes as chunks with no length; after the step wiremock answers
    /// on the same port again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_goes_out_in_two_parts_or_broken_off_and_then_wiremock_serves_again() {
        use crate::world::{FaultKind, FaultSpec, fault::BodyInTwoParts};
        let world = Arc::new(World::new(&Fixtures::default(), Behaviour::default()));
        let mut downstream = MockDownstream::start(world.clone()).await;
        let url = format!("{}/weather?location=Z%C3%BCrich&units=celsius", downstream.uri());
        downstream.serve_in_parts().await.expect("the port is handed over");
        let split = world.arm(
            FaultSpec::from(FaultKind::BodyInTwoParts(BodyInTwoParts {
                pause_ms: 100,
                cut: false,
                parts: 2,
                chunked: false,
            })),
            "GET /weather".to_owned(),
            0,
        );
        let mut answer = reqwest::get(&url).await.expect("answered");
        let mut reads = Vec::new();
        while let Some(chunk) = answer.chunk().await.expect("the whole body") {
            reads.push(chunk.to_vec());
        }
        assert!(reads.len() >= 2, "two reads at least: {reads:?}");
        assert!(std::str::from_utf8(&reads[0]).is_err(), "the first read ends inside a character");
        let whole: serde_json::Value =
            serde_json::from_slice(&reads.concat()).expect("together they are the JSON answer");
        assert_eq!(whole["location"], "Zürich");
        drop(split);
        let _cut = world.arm(
            FaultSpec::from(FaultKind::BodyInTwoParts(BodyInTwoParts {
                pause_ms: 10,
                cut: true,
                parts: 2,
                chunked: false,
            })),
            "GET /weather".to_owned(),
            1,
        );
        let answer = reqwest::get(&url).await.expect("the status line arrives");
        assert_eq!(answer.status(), 200);
        assert!(answer.bytes().await.is_err(), "the body breaks off");
        let _chunked = world.arm(
            FaultSpec::from(FaultKind::BodyInTwoParts(BodyInTwoParts {
                pause_ms: 10,
                cut: false,
                parts: 3,
                chunked: true,
            })),
            "GET /weather".to_owned(),
            2,
        );
        let answer = reqwest::get(&url).await.expect("answered in chunks");
        assert_eq!(answer.headers().get("transfer-encoding").map(|value| value.as_bytes()), Some(&b"chunked"[..]));
        assert!(answer.headers().get("content-length").is_none(), "no length is announced");
        let body = answer.bytes().await.expect("every chunk, to the last");
        let whole: serde_json::Value = serde_json::from_slice(&body).expect("the chunks together are the JSON answer");
        assert_eq!(whole["location"], "Zürich");
        downstream.serve_with_wiremock().await.expect("wiremock takes the port back");
        assert_eq!(reqwest::get(&url).await.expect("served").status(), 200, "the fault is spent: wiremock answers");
        downstream.stop().await;
    }

    /// `connection_refused`: while refused, a connection to the downstream's port is refused (not accepted and
    /// closed); afterwards the same port serves the same world again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_downstream_refuses_connections_and_then_serves_on_the_same_port() {
        let world = Arc::new(World::new(&Fixtures::default(), Behaviour::default()));
        let mut downstream = MockDownstream::start(world.clone()).await;
        let address = downstream.address;
        assert!(tokio::net::TcpStream::connect(address).await.is_ok(), "the downstream listens at first");
        downstream.refuse_connections().await.expect("the port closes");
        let refused = tokio::net::TcpStream::connect(address).await.expect_err("no listener while refusing");
        assert_eq!(refused.kind(), std::io::ErrorKind::ConnectionRefused);
        downstream.accept_connections().await.expect("the same port binds again");
        assert_eq!(downstream.uri(), format!("http://{address}"));
        let before = world.request_count();
        let answer = reqwest::get(format!("{}/orders/ord_missing", downstream.uri())).await.expect("served again");
        assert_eq!(answer.status(), 404);
        assert_eq!(world.request_count(), before + 1, "the world saw the request made after the listener came back");
        downstream.stop().await;
    }

    /// Polls a ready tokio channel in this one poll of the task until tokio's budget refuses it.
    async fn spend_the_budget() {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..10_000 {
            sender.send(()).expect("the receiver is alive");
        }
        let mut refused = false;
        for _ in 0..10_000 {
            let polled = std::future::poll_fn(|context| Poll::Ready(receiver.poll_recv(context))).await;
            if polled.is_pending() {
                refused = true;
                break;
            }
        }
        assert!(refused, "the channel never ran out of budget");
    }

    /// A scenario's downstream is dropped, and another stopped, inside a task that spent its cooperative
    /// budget, as in one task polling many scenarios: both finish (wiremock's own drop would spin there).
    #[test]
    fn a_downstream_goes_away_inside_a_task_that_spent_its_budget() {
        let (finished, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build();
            runtime.expect("a runtime").block_on(async {
                let world = Arc::new(World::new(&Fixtures::default(), Behaviour::default()));
                let dropped = MockDownstream::start(world.clone()).await;
                let stopped = MockDownstream::start(world).await;
                spend_the_budget().await;
                drop(dropped);
                spend_the_budget().await;
                stopped.stop().await;
            });
            let _ = finished.send(());
        });
        // Not a timing assertion: a spinning drop never finishes, and the test must end to say so.
        let outcome = done.recv_timeout(Duration::from_secs(120));
        assert!(outcome.is_ok(), "dropping or stopping a downstream did not finish");
    }
}
