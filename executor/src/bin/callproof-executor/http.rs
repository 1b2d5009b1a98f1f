//! `callproof-executor --mcp-http`: the reference executor as an MCP server over Streamable HTTP (protocol
//! 2025-11-25 with sessions, 2026-07-28 without) on loopback; each POST's body is answered by the library's
//! [`callproof_executor::mcp`], as over stdio, with `Content-Type: application/json` (never SSE: every answer is
//! one message).
//!
//! Rule enforced here: nothing reaches the MCP layer unless the request passed, in this order, the `Origin`
//! check (403 for a page that is not on loopback), the path (404), the method (POST; DELETE ends a session;
//! anything else 405), the bearer token (401 with `WWW-Authenticate`, [`callproof_executor::mcp::token`]), the
//! protocol version header (400) and the content type (415); the body is read only up to the executor's line
//! limit (413 past it). A body that is not JSON is 400 with -32700, one that is not a request 400 with -32600.
//! A 2025-11-25 request with an unknown `Mcp-Session-Id` is 404, one other than `initialize` without a session
//! 400. A 2026-07-28 request needs no session (and ignores one); its `MCP-Protocol-Version`, `Mcp-Method` and
//! `Mcp-Name` headers must match the body (400 with -32020 before anything runs), an unknown method is 404 with
//! -32601, a refusal of its `_meta` 400. The identity of a call is the token's, never `_meta`'s. Without
//! `CALLPROOF_DOWNSTREAM_URL` (a server the harness did not start, `--mcp-url`), a call's downstream and session
//! come from the token's signed `cp_downstream_url` and `cp_session` claims, never from the request.

use crate::options::Options;
use crate::serve;
use callproof_executor::Executor;
use callproof_executor::lines::MAX_LINE_BYTES;
use callproof_executor::mcp::modern::{self, Headers};
use callproof_executor::mcp::token::{TokenError, Verified, Verifier};
use callproof_executor::mcp::{
    Answer, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, Reply, Trust, VERSIONS, refusal,
};
use callproof_executor::store::Store;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// The header that carries a session after `initialize` (2025-11-25 transports §Session Management).
const SESSION: &str = "mcp-session-id";
/// The header that names the negotiated revision on every request after `initialize`, and a modern request's.
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// A modern request's method, mirrored (2026-07-28 streamable-http §Standard Request Headers).
const METHOD: &str = "mcp-method";
/// A modern `tools/call`'s tool name, mirrored.
const NAME: &str = "mcp-name";
/// Sessions kept at once; the oldest is forgotten past that (its next request gets 404, as after a restart).
const MAX_SESSIONS: usize = 4096;
/// Executors kept for the downstreams named by tokens; past that the cache starts again.
const MAX_CLAIMED: usize = 64;
/// The session of a call whose token names a downstream but no session.
const DEFAULT_SESSION: &str = "mcp";

/// Where to listen and the URL tokens must name: `http://HOST:PORT/PATH` on loopback.
struct Endpoint {
    address: SocketAddr,
    path: String,
    /// The URL exactly as given (the tokens' audience), unless the port was 0.
    url: Option<String>,
}

/// The state every request sees.
struct Server {
    /// The executor for `CALLPROOF_DOWNSTREAM_URL`, or for the discard port when it is unset.
    executor: Arc<Executor>,
    /// Set when `CALLPROOF_DOWNSTREAM_URL` is unset: executors for the downstreams tokens name.
    claimed: Option<Claimed>,
    /// The features declared in `initialize` (`serve::store_features`).
    features: Vec<String>,
    verifier: Verifier,
    path: String,
    sessions: Mutex<Sessions>,
    slots: Semaphore,
}

/// Executors built for the `cp_downstream_url` and `cp_session` of tokens.
struct Claimed {
    options: Options,
    store: Arc<dyn Store>,
    built: Mutex<BTreeMap<(String, String), Arc<Executor>>>,
}

/// The open sessions, oldest first.
#[derive(Default)]
struct Sessions {
    open: BTreeSet<String>,
    order: VecDeque<String>,
}

/// Serves MCP over Streamable HTTP at `url` (the option's value, else `CALLPROOF_MCP_URL`) until SIGINT or
/// SIGTERM.
pub(crate) async fn serve(options: Options, url: Option<String>) -> Result<(), String> {
    let url = match url {
        Some(url) => url,
        None => std::env::var("CALLPROOF_MCP_URL")
            .map_err(|_| "--mcp-http needs an address (HOST:PORT or http://HOST:PORT/PATH) or CALLPROOF_MCP_URL")?,
    };
    let endpoint = endpoint(&url)?;
    let key = std::env::var("CALLPROOF_TOKEN_KEY").unwrap_or_default();
    if key.is_empty() {
        return Err("--mcp-http needs CALLPROOF_TOKEN_KEY, the HS256 key of the bearer tokens (docs/mcp.md)".to_owned());
    }
    let (store, durable) = serve::open_store(&options).await?;
    let configured = std::env::var("CALLPROOF_DOWNSTREAM_URL").ok();
    let downstream = configured.clone().unwrap_or_else(|| crate::mcp::NO_DOWNSTREAM.to_owned());
    let session = std::env::var("CALLPROOF_SESSION").unwrap_or_else(|_| DEFAULT_SESSION.to_owned());
    let executor = Arc::new(serve::build(&options, &downstream, &session, store.clone(), durable)?);
    let max_in_flight = options.max_in_flight;
    let features = serve::store_features(&options, durable);
    let claimed = configured.is_none().then(|| Claimed { options, store, built: Mutex::default() });
    let listener =
        TcpListener::bind(endpoint.address).await.map_err(|error| format!("cannot listen on {url}: {error}"))?;
    let bound = listener.local_addr().map_err(|error| format!("cannot listen on {url}: {error}"))?;
    let url = endpoint.url.unwrap_or_else(|| format!("http://{bound}{}", endpoint.path));
    let server = Arc::new(Server {
        executor,
        claimed,
        features,
        verifier: Verifier::new(key.as_bytes(), &url),
        path: endpoint.path,
        sessions: Mutex::default(),
        slots: Semaphore::new(max_in_flight),
    });
    let versions = modern::SUPPORTED.join(" and ");
    eprintln!("callproof-executor: serving MCP {versions} over Streamable HTTP at {url} against {downstream}");
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|error| format!("cannot wait for SIGTERM: {error}"))?;
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => { eprintln!("callproof-executor: accept failed: {error}"); continue }
            },
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = terminate.recv() => return Ok(()),
        };
        let server = server.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| handle(server.clone(), request));
            let io = hyper_util::rt::TokioIo::new(stream);
            // A client that hangs up mid-request is its own business; the next connection is served.
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        });
    }
}

/// `HOST:PORT` (path `/mcp`) or `http://HOST:PORT/PATH`, with a loopback host.
fn endpoint(url: &str) -> Result<Endpoint, String> {
    let wrong = |why: &str| format!("--mcp-http {url:?}: {why}");
    let (rest, exact) = match url.strip_prefix("http://") {
        Some(rest) => (rest, true),
        None if url.contains("://") => return Err(wrong("only http:// is served (loopback, no TLS)")),
        None => (url, false),
    };
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/mcp"),
    };
    if path.contains(['?', '#']) {
        return Err(wrong("the path may not have a query or a fragment"));
    }
    let (host, port) = authority.rsplit_once(':').ok_or_else(|| wrong("expected HOST:PORT"))?;
    let port: u16 = port.parse().map_err(|_| wrong("the port is not a number from 0 to 65535"))?;
    let ip: IpAddr = match host {
        "localhost" => IpAddr::from([127, 0, 0, 1]),
        host => host.trim_start_matches('[').trim_end_matches(']').parse().map_err(|_| wrong("not an IP address"))?,
    };
    if !ip.is_loopback() {
        return Err(wrong("the host must be loopback (127.0.0.1, ::1 or localhost): the server is for local testing"));
    }
    let url = (exact && port != 0).then(|| url.to_owned());
    let url = url.or_else(|| (port != 0).then(|| format!("http://{authority}{path}")));
    Ok(Endpoint { address: SocketAddr::new(ip, port), path: path.to_owned(), url })
}

/// One HTTP request's answer.
async fn handle(server: Arc<Server>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let session = match admit(&server, &request) {
        Ok(admitted) => admitted,
        Err(response) => return Ok(*response),
    };
    let (verified, session) = session;
    if request.method() == Method::DELETE {
        return Ok(match session {
            Session::Unknown => error(StatusCode::NOT_FOUND, UNKNOWN_SESSION),
            Session::Absent => end_session(&server, None),
            Session::Open(session) => end_session(&server, Some(&session)),
        });
    }
    let mirrored = Mirrored::of(request.headers());
    let body = match read_body(request).await {
        Ok(body) => body,
        Err(response) => return Ok(*response),
    };
    Ok(respond(&server, &body, verified, session, &mirrored).await)
}

/// The headers a modern request mirrors its body in, as sent.
struct Mirrored {
    version: Option<Vec<u8>>,
    method: Option<Vec<u8>>,
    name: Option<Vec<u8>>,
}

impl Mirrored {
    fn of(headers: &hyper::HeaderMap) -> Mirrored {
        let value = |name: &str| headers.get(name).map(|value| value.as_bytes().to_vec());
        Mirrored { version: value(PROTOCOL_VERSION), method: value(METHOD), name: value(NAME) }
    }

    fn headers(&self) -> Headers<'_> {
        Headers { version: self.version.as_deref(), method: self.method.as_deref(), name: self.name.as_deref() }
    }
}

/// The `Mcp-Session-Id` a request carries. An unknown one is 404 for a 2025-11-25 request and ignored for a
/// 2026-07-28 one (streamable-http §Backward Compatibility: do not mint or echo session ids), which only the body
/// tells apart.
enum Session {
    Absent,
    Open(String),
    Unknown,
}

const UNKNOWN_SESSION: &str = "Not found: no such session (initialize again)";

/// The checks made before the body is read; the verified token and the request's session when they pass.
fn admit(server: &Server, request: &Request<Incoming>) -> Result<(Verified, Session), Refused> {
    let headers = request.headers();
    if let Some(origin) = headers.get(header::ORIGIN)
        && !loopback_origin(origin)
    {
        return Err(refuse(StatusCode::FORBIDDEN, "Forbidden: the Origin is not on loopback"));
    }
    if request.uri().path() != server.path {
        return Err(refuse(StatusCode::NOT_FOUND, &format!("Not found: the MCP endpoint is {}", server.path)));
    }
    if request.method() != Method::POST && request.method() != Method::DELETE {
        let mut response = error(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed: POST a JSON-RPC message");
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return Err(Box::new(response));
    }
    let authorization = headers.get(header::AUTHORIZATION).map(HeaderValue::as_bytes);
    let verified =
        server.verifier.verify(authorization, now_ms()).map_err(|refused| Box::new(unauthorized(&refused)))?;
    if let Some(version) = headers.get(PROTOCOL_VERSION)
        && !VERSIONS.iter().chain(&[modern::MODERN]).any(|known| version.as_bytes() == known.as_bytes())
    {
        // -32022 with the versions spoken, so a modern client can tell this 400 from a legacy server's.
        let requested = String::from_utf8_lossy(version.as_bytes());
        return Err(Box::new(json_response(
            StatusCode::BAD_REQUEST,
            Some(&modern::unsupported(&Value::Null, &requested)),
        )));
    }
    let session = match headers.get(SESSION).map(|session| session.to_str()) {
        None => Session::Absent,
        Some(Ok(session)) if lock(&server.sessions).open.contains(session) => Session::Open(session.to_owned()),
        Some(_) => Session::Unknown,
    };
    if request.method() == Method::POST {
        let content_type = headers.get(header::CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or("");
        if !content_type.trim().to_ascii_lowercase().starts_with("application/json") {
            return Err(refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type: send application/json"));
        }
    }
    Ok((verified, session))
}

/// The body, at most [`MAX_LINE_BYTES`]; 413 past it, 400 when it cannot be read.
async fn read_body(request: Request<Incoming>) -> Result<Bytes, Refused> {
    let too_large =
        || refuse(StatusCode::PAYLOAD_TOO_LARGE, &format!("Payload too large: over {MAX_LINE_BYTES} bytes"));
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|value| value.to_str().ok());
    if declared.and_then(|length| length.parse::<u64>().ok()).is_some_and(|length| length > MAX_LINE_BYTES as u64) {
        return Err(too_large());
    }
    match Limited::new(request.into_body(), MAX_LINE_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(failure) if failure.is::<LengthLimitError>() => Err(too_large()),
        Err(_) => Err(refuse(StatusCode::BAD_REQUEST, "Bad Request: the body could not be read")),
    }
}

/// The answer to a message from an admitted request.
async fn respond(
    server: &Server,
    body: &[u8],
    verified: Verified,
    session: Session,
    mirrored: &Mirrored,
) -> Response<Full<Bytes>> {
    let no_session = || error(StatusCode::BAD_REQUEST, "Bad Request: Mcp-Session-Id is required after initialize");
    let executor = match server.executor_for(&verified) {
        Ok(executor) => executor,
        Err(why) => {
            return error(StatusCode::BAD_REQUEST, &format!("Bad Request: the token's cp_downstream_url: {why}"));
        }
    };
    let answer = match callproof_executor::mcp::reply(body, &server.features, Trust::Token(Box::new(verified.auth))) {
        Reply { route: None, .. } if matches!(session, Session::Unknown) => {
            return error(StatusCode::NOT_FOUND, UNKNOWN_SESSION);
        }
        Reply { answer, route: None } => answer,
        Reply { answer, route: Some(route) } => {
            return respond_modern(server, &executor, answer, &route, mirrored).await;
        }
    };
    match answer {
        Answer::Nothing => json_response(StatusCode::ACCEPTED, None),
        Answer::Initialize(message) => {
            let mut response = json_response(StatusCode::OK, Some(&message));
            if let Ok(value) = HeaderValue::from_str(&open_session(server)) {
                response.headers_mut().insert(SESSION, value);
            }
            response
        }
        // Not JSON, or not a request: the transport's 400 (2025-11-25 transports §Sending Messages, item 4).
        Answer::Now(message) if matches!(error_code(&message), Some(PARSE_ERROR | INVALID_REQUEST)) => {
            json_response(StatusCode::BAD_REQUEST, Some(&message))
        }
        _ if !matches!(session, Session::Open(_)) => no_session(),
        Answer::Now(message) => json_response(StatusCode::OK, Some(&message)),
        Answer::Execute(call) => {
            // Bounded like --max-in-flight over stdio; the permit is released when the call is answered.
            let _slot = server.slots.acquire().await;
            json_response(StatusCode::OK, Some(&call.run(&executor).await))
        }
    }
}

/// The answer to a modern request: no session; headers that do not match the body 400 with -32020 before
/// anything runs; an unknown method 404; another refusal made before anything ran (its `_meta`, its params) 400.
async fn respond_modern(
    server: &Server,
    executor: &Executor,
    answer: Answer,
    route: &modern::Route,
    mirrored: &Mirrored,
) -> Response<Full<Bytes>> {
    if let Some(why) = modern::header_mismatch(route, mirrored.headers()) {
        return json_response(StatusCode::BAD_REQUEST, Some(&modern::mismatch_refusal(&route.id, &why)));
    }
    match answer {
        Answer::Nothing => json_response(StatusCode::ACCEPTED, None),
        Answer::Now(message) => {
            let status = match error_code(&message) {
                None => StatusCode::OK,
                Some(METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
                Some(_) => StatusCode::BAD_REQUEST,
            };
            json_response(status, Some(&message))
        }
        // `initialize` is never modern; answered as a result without a session, should it come.
        Answer::Initialize(message) => json_response(StatusCode::OK, Some(&message)),
        Answer::Execute(call) => {
            let _slot = server.slots.acquire().await;
            json_response(StatusCode::OK, Some(&call.run(executor).await))
        }
    }
}

impl Server {
    /// The executor for a call with this token: the configured one, or (for a server the harness did not start)
    /// the one for the downstream and session its claims name.
    fn executor_for(&self, verified: &Verified) -> Result<Arc<Executor>, String> {
        let (Some(claimed), Some(downstream)) = (&self.claimed, &verified.downstream_url) else {
            return Ok(self.executor.clone());
        };
        let session = verified.session.clone().unwrap_or_else(|| DEFAULT_SESSION.to_owned());
        let key = (downstream.clone(), session);
        let mut built = claimed.built.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(executor) = built.get(&key) {
            return Ok(executor.clone());
        }
        // Every session of a server the harness did not start shares its one store, memory included: keep each
        // session's records apart.
        let executor = Arc::new(serve::build(&claimed.options, &key.0, &key.1, claimed.store.clone(), true)?);
        if built.len() >= MAX_CLAIMED {
            built.clear();
        }
        built.insert(key, executor.clone());
        Ok(executor)
    }
}

fn error_code(message: &Value) -> Option<i64> {
    message.get("error")?.get("code")?.as_i64()
}

/// A new session id, kept until DELETE or until [`MAX_SESSIONS`] newer ones push it out.
fn open_session(server: &Server) -> String {
    let id = session_id();
    let mut sessions = lock(&server.sessions);
    sessions.open.insert(id.clone());
    sessions.order.push_back(id.clone());
    while sessions.order.len() > MAX_SESSIONS {
        if let Some(oldest) = sessions.order.pop_front() {
            sessions.open.remove(&oldest);
        }
    }
    id
}

/// DELETE: ends the session it names.
fn end_session(server: &Server, session: Option<&str>) -> Response<Full<Bytes>> {
    let Some(session) = session else {
        return error(StatusCode::BAD_REQUEST, "Bad Request: DELETE needs the Mcp-Session-Id to end");
    };
    let mut sessions = lock(&server.sessions);
    sessions.open.remove(session);
    sessions.order.retain(|open| open != session);
    json_response(StatusCode::OK, None)
}

/// 32 hex digits from the system's random source (a session id must not be guessable).
fn session_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut source| source.read_exact(&mut bytes));
    if random.is_err() {
        // No random source: unique, if guessable, and said so on stderr.
        eprintln!("callproof-executor: /dev/urandom is unreadable; session ids are predictable");
        bytes = now_nanos().to_le_bytes();
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The 401 of a refused token (RFC 6750 §3).
fn unauthorized(refused: &TokenError) -> Response<Full<Bytes>> {
    let body = match refused {
        TokenError::Missing => json!({"error": "invalid_request", "error_description": refused.to_string()}),
        other => json!({"error": "invalid_token", "error_description": other.to_string()}),
    };
    let mut response = json_response(StatusCode::UNAUTHORIZED, Some(&body));
    if let Ok(value) = HeaderValue::from_str(&refused.www_authenticate()) {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// A response that ends a request early (boxed: it is the error side of a `Result`).
type Refused = Box<Response<Full<Bytes>>>;

fn refuse(status: StatusCode, why: &str) -> Refused {
    Box::new(error(status, why))
}

/// An HTTP refusal with a JSON-RPC error body (-32600, `id: null`) saying why.
fn error(status: StatusCode, why: &str) -> Response<Full<Bytes>> {
    json_response(status, Some(&refusal(&Value::Null, INVALID_REQUEST, why)))
}

fn json_response(status: StatusCode, body: Option<&Value>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.map_or_else(Bytes::new, |body| Bytes::from(body.to_string()))));
    *response.status_mut() = status;
    if body.is_some() {
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    response
}

/// An `Origin` on loopback (`http://127.0.0.1:…`, `http://localhost:…`, `http://[::1]:…`); anything else is
/// another site's page, the DNS-rebinding attack the transport's Security Warning names.
fn loopback_origin(origin: &HeaderValue) -> bool {
    let Ok(origin) = origin.to_str() else { return false };
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else { return false };
    let host = match rest.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|byte| byte.is_ascii_digit()) => host,
        _ => rest,
    };
    host == "localhost"
        || host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn lock(sessions: &Mutex<Sessions>) -> std::sync::MutexGuard<'_, Sessions> {
    sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn now_ms() -> u64 {
    u64::try_from(now_nanos() / 1_000_000).unwrap_or(u64::MAX)
}

fn now_nanos() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_loopback_with_a_default_path_and_the_given_url_is_the_audience() {
        let bare = endpoint("127.0.0.1:8931").expect("valid");
        assert_eq!((bare.address.to_string(), bare.path.as_str()), ("127.0.0.1:8931".to_owned(), "/mcp"));
        assert_eq!(bare.url.as_deref(), Some("http://127.0.0.1:8931/mcp"));
        let url = endpoint("http://localhost:8931/x/mcp").expect("valid");
        assert_eq!((url.path.as_str(), url.url.as_deref()), ("/x/mcp", Some("http://localhost:8931/x/mcp")));
        assert_eq!(endpoint("[::1]:0").expect("valid").url, None, "port 0: the audience is the bound URL");
        for wrong in ["0.0.0.0:80", "10.0.0.1:80", "https://127.0.0.1:80/mcp", "127.0.0.1", "127.0.0.1:x", "h:1"] {
            assert!(endpoint(wrong).is_err(), "{wrong}");
        }
        assert!(endpoint("http://127.0.0.1:80/mcp?x=1").is_err());
    }

    #[test]
    fn only_a_loopback_origin_is_let_through() {
        let origin = |text: &'static str| loopback_origin(&HeaderValue::from_static(text));
        assert!(origin("http://127.0.0.1:8931") && origin("http://localhost") && origin("http://[::1]:3000"));
        assert!(!origin("http://attacker.invalid") && !origin("http://127.0.0.1.evil.test:80") && !origin("null"));
    }
}
