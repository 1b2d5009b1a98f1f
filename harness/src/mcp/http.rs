//! MCP's Streamable HTTP transport, client side: one POST per JSON-RPC message to the endpoint, the answer read
//! from the response as `application/json` or as a `text/event-stream` whose `data:` lines carry it.
//!
//! Rule enforced here: every POST is bounded (a timeout from connecting until the last byte, and at most
//! [`MAX_BODY_BYTES`] of body), the line is sent byte for byte as the caller wrote it (a malformed message stays
//! malformed), the `Mcp-Session-Id` the server hands out with the `initialize` result is echoed on every later
//! request, and the negotiated `MCP-Protocol-Version` too (a 2026-07-28 request brings its own headers instead).
//! A failure says which of these went wrong, never just "error".

use serde_json::Value;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Most bytes of one response body read; a longer body is an error, never an unbounded allocation.
pub const MAX_BODY_BYTES: usize = callproof_executor::lines::MAX_LINE_BYTES;

/// The session header (2025-11-25 transports §Session Management).
pub const SESSION_HEADER: &str = "Mcp-Session-Id";

/// The version header (2025-11-25 transports §Protocol Version Header).
pub const VERSION_HEADER: &str = "MCP-Protocol-Version";

/// What one POST brought back.
#[derive(Debug, Clone, PartialEq)]
pub struct Posted {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC messages of the body (a JSON object, a JSON array of them, or the `data:` of SSE events).
    pub messages: Vec<Value>,
    /// The body as text, cut to 2 000 characters, when it held no JSON-RPC message.
    pub body: String,
    /// The `WWW-Authenticate` header, when there is one (several fields joined with `, `).
    pub authenticate: Option<String>,
}

impl Posted {
    /// Whether the status is 2xx.
    pub fn success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Why a POST brought nothing back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PostError {
    /// Not done within the timeout.
    #[error("no answer within {0} ms")]
    Timeout(u128),
    /// The connection could not be made, or broke.
    #[error("the request to {url} failed: {why}")]
    Connection {
        /// The endpoint.
        url: String,
        /// What the HTTP client said.
        why: String,
    },
    /// The body passed the bound ([`MAX_BODY_BYTES`]).
    #[error("the response body passed {0} bytes")]
    TooLarge(usize),
}

/// A Streamable HTTP endpoint and the session state the server gave this client.
#[derive(Debug)]
pub struct Http {
    client: reqwest::Client,
    url: String,
    timeout: Duration,
    session: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    limit: usize,
}

impl Http {
    /// A client of `url`, every request bounded by `timeout`.
    ///
    /// # Errors
    /// When the URL is not an `http://` URL, or the HTTP client cannot be built.
    pub fn new(url: &str, timeout: Duration) -> Result<Http, String> {
        let parsed = reqwest::Url::parse(url).map_err(|error| format!("`{url}` is not a URL: {error}"))?;
        if parsed.scheme() != "http" {
            return Err(format!("`{url}`: only http:// endpoints are supported (this build has no TLS)"));
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| format!("cannot build the HTTP client: {error}"))?;
        let (session, version) = (Mutex::new(None), Mutex::new(None));
        Ok(Http { client, url: url.to_owned(), timeout, session, version, limit: MAX_BODY_BYTES })
    }

    /// The same client with a smaller bound on a response body (tests).
    #[cfg(test)]
    fn with_limit(mut self, limit: usize) -> Http {
        self.limit = limit;
        self
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The session id the server gave, if any.
    pub fn session(&self) -> Option<String> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// POSTs `line` as it is, with the session and version headers once known and `bearer` when given.
    ///
    /// # Errors
    /// [`PostError`] when nothing came back: a timeout, a connection failure, a body too large.
    pub async fn post(&self, line: &str, bearer: Option<&str>) -> Result<Posted, PostError> {
        self.post_with::<&str, &str>(line, bearer, &[]).await
    }

    /// [`Http::post`] with `headers` too (a modern request's `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`;
    /// the HTTP checks' `Origin`); a version header among them replaces the session's.
    ///
    /// # Errors
    /// As [`Http::post`].
    pub async fn post_with<N: AsRef<str>, V: AsRef<str>>(
        &self,
        line: &str,
        bearer: Option<&str>,
        headers: &[(N, V)],
    ) -> Result<Posted, PostError> {
        let mut request = self
            .client
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(line.to_owned());
        if let Some(session) = self.session() {
            request = request.header(SESSION_HEADER, session);
        }
        let versioned = headers.iter().any(|(name, _)| name.as_ref().eq_ignore_ascii_case(VERSION_HEADER));
        if let Some(version) = self.version.lock().unwrap_or_else(PoisonError::into_inner).clone()
            && !versioned
        {
            request = request.header(VERSION_HEADER, version);
        }
        for (name, value) in headers {
            request = request.header(name.as_ref(), value.as_ref());
        }
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|error| self.failed(&error))?;
        let header = |name: &str| response.headers().get(name).and_then(|value| value.to_str().ok()).map(str::to_owned);
        let session = header(SESSION_HEADER);
        let status = response.status().as_u16();
        // Every challenge: a server may send one WWW-Authenticate field per scheme (RFC 9110 §11.6.1).
        let challenges: Vec<&str> =
            response.headers().get_all("WWW-Authenticate").iter().filter_map(|value| value.to_str().ok()).collect();
        let authenticate = (!challenges.is_empty()).then(|| challenges.join(", "));
        let stream = header("Content-Type").is_some_and(|kind| kind.starts_with("text/event-stream"));
        let (messages, body) = read_body(response, stream, self.limit).await.map_err(|error| match error {
            BodyError::TooLarge => PostError::TooLarge(self.limit),
            BodyError::Http(error) => self.failed(&error),
        })?;
        let negotiated = messages.iter().find_map(|message| message.pointer("/result/protocolVersion")?.as_str());
        if let Some(version) = negotiated {
            *self.version.lock().unwrap_or_else(PoisonError::into_inner) = Some(version.to_owned());
            // A session is handed out with the initialize result (2025-11-25 transports §Session Management);
            // one sent with anything else (a legacy server refusing the 2026-07-28 probe) is not kept.
            if let Some(session) = session {
                *self.session.lock().unwrap_or_else(PoisonError::into_inner) = Some(session);
            }
        }
        Ok(Posted { status, messages, body, authenticate })
    }

    /// A `GET` on the endpoint (a modern server SHOULD answer 405): its status.
    ///
    /// # Errors
    /// [`PostError`] when no status came back.
    pub async fn get(&self, bearer: Option<&str>) -> Result<u16, PostError> {
        let mut request = self.client.get(&self.url).header("Accept", "text/event-stream");
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|error| self.failed(&error))?;
        Ok(response.status().as_u16())
    }

    /// A `method` request (GET, DELETE) on the endpoint with this client's session and version headers, no body
    /// and no token: its status. The body is not read (a GET may open an event stream that stays open).
    ///
    /// # Errors
    /// [`PostError`] when no status came back.
    pub async fn untokened(&self, method: reqwest::Method) -> Result<u16, PostError> {
        let mut request =
            self.client.request(method, &self.url).header("Accept", "application/json, text/event-stream");
        if let Some(session) = self.session() {
            request = request.header(SESSION_HEADER, session);
        }
        if let Some(version) = self.version.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            request = request.header(VERSION_HEADER, version);
        }
        let response = request.send().await.map_err(|error| self.failed(&error))?;
        Ok(response.status().as_u16())
    }

    fn failed(&self, error: &reqwest::Error) -> PostError {
        if error.is_timeout() {
            return PostError::Timeout(self.timeout.as_millis());
        }
        // The chain of sources says what really happened ("Connection refused"), the top only "error sending".
        let mut why = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            why = format!("{why}: {cause}");
            source = cause.source();
        }
        PostError::Connection { url: self.url.clone(), why }
    }
}

enum BodyError {
    TooLarge,
    Http(reqwest::Error),
}

/// The messages of a body, read at most `limit` bytes; an event stream is read until it has carried a
/// response (a message with `result` or `error`), since a server may keep it open for more.
async fn read_body(
    mut response: reqwest::Response,
    stream: bool,
    limit: usize,
) -> Result<(Vec<Value>, String), BodyError> {
    let mut bytes = Vec::new();
    let mut events = Events::default();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Http)? {
        if bytes.len() + chunk.len() > limit {
            return Err(BodyError::TooLarge);
        }
        bytes.extend_from_slice(&chunk);
        if stream && events.feed(&chunk) {
            break;
        }
    }
    let messages = if stream {
        events.finish();
        events.messages
    } else {
        match super::surrogate::parse_slice(&bytes) {
            Some(Value::Array(messages)) => messages.into_iter().filter(is_message).collect(),
            Some(message) if is_message(&message) => vec![message],
            _ => Vec::new(),
        }
    };
    let body =
        if messages.is_empty() { String::from_utf8_lossy(&bytes).chars().take(2000).collect() } else { String::new() };
    Ok((messages, body))
}

/// Whether a value is a JSON-RPC message (an object with `jsonrpc`), not another JSON body such as an OAuth
/// error (`{"error": "invalid_token"}`, RFC 6750) that only the status and the text describe.
fn is_message(value: &Value) -> bool {
    value.get("jsonrpc").is_some()
}

/// A `text/event-stream` parser (WHATWG HTML §9.2): events end at a blank line, `data:` lines join with `\n`;
/// each event's data that is a JSON object is a message. CR is dropped, so CRLF and LF endings read alike.
#[derive(Default)]
pub(crate) struct Events {
    pending: Vec<u8>,
    pub(crate) messages: Vec<Value>,
}

impl Events {
    /// Adds bytes; whether a response has arrived.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> bool {
        self.pending.extend(chunk.iter().copied().filter(|byte| *byte != b'\r'));
        while let Some(end) = self.pending.windows(2).position(|pair| pair == b"\n\n") {
            let event: Vec<u8> = self.pending.drain(..end + 2).collect();
            self.event(&event);
        }
        self.messages.iter().any(|message| message.get("result").is_some() || message.get("error").is_some())
    }

    /// The last event, when the stream ended without a blank line after it.
    pub(crate) fn finish(&mut self) {
        let rest = std::mem::take(&mut self.pending);
        self.event(&rest);
    }

    fn event(&mut self, event: &[u8]) {
        let text = String::from_utf8_lossy(event);
        let data: Vec<&str> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        if data.is_empty() {
            return;
        }
        if let Some(message) = super::surrogate::parse(&data.join("\n"))
            && is_message(&message)
        {
            self.messages.push(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_carry_messages_in_data_lines_whatever_the_line_endings_and_chunks() {
        let mut events = Events::default();
        assert!(!events.feed(
            b"event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"
        ));
        assert!(!events.feed(b": a comment\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,"));
        assert!(events.feed(b"\ndata: \"result\":{}}\n\n"), "the response arrived");
        assert_eq!(events.messages.len(), 2);
        assert_eq!(events.messages[1], json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
    }

    #[test]
    fn a_last_event_without_a_blank_line_still_counts_and_data_that_is_not_json_does_not() {
        let mut events = Events::default();
        assert!(!events.feed(b"data: not json\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32700}}"));
        events.finish();
        assert_eq!(events.messages, vec![json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32700}})]);
    }

    #[test]
    fn an_event_whose_data_holds_a_lone_surrogate_escape_is_a_message() {
        let mut events = Events::default();
        assert!(events.feed(b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"text\":\"\\udc00!\"}}\n\n"));
        assert_eq!(events.messages, vec![json!({"jsonrpc": "2.0", "id": 2, "result": {"text": "\u{FFFD}!"}})]);
    }

    #[test]
    fn only_http_urls_are_taken() {
        assert!(Http::new("http://127.0.0.1:1/mcp", Duration::from_secs(1)).is_ok());
        assert!(Http::new("https://example.com/mcp", Duration::from_secs(1)).expect_err("tls").contains("http://"));
        assert!(Http::new("not a url", Duration::from_secs(1)).expect_err("url").contains("is not a URL"));
    }

    #[tokio::test]
    async fn the_session_and_version_the_server_gives_are_echoed_and_sse_and_json_answers_both_read() {
        use wiremock::matchers::{header, method};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::builder().start().await;
        let initialized = json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}});
        let later = ResponseTemplate::new(200).set_body_raw(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
            "text/event-stream",
        );
        Mock::given(method("POST"))
            .and(header(SESSION_HEADER, "s-1"))
            .and(header(VERSION_HEADER, "2025-11-25"))
            .respond_with(later)
            .with_priority(1)
            .mount(&server)
            .await;
        let first = ResponseTemplate::new(200).insert_header(SESSION_HEADER, "s-1").set_body_json(&initialized);
        Mock::given(method("POST")).respond_with(first).with_priority(2).mount(&server).await;
        let http = Http::new(&format!("{}/mcp", server.uri()), Duration::from_secs(5)).expect("a client");
        let posted = http.post(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#, None).await.expect("posted");
        assert_eq!((posted.status, posted.messages.clone()), (200, vec![initialized]));
        assert_eq!(http.session().as_deref(), Some("s-1"));
        let posted = http.post(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, None).await.expect("posted");
        assert_eq!(posted.messages, vec![json!({"jsonrpc": "2.0", "id": 2, "result": {}})], "{posted:?}");
        let requests = server.received_requests().await.unwrap_or_default();
        let accept = requests.iter().filter_map(|request| request.headers.get("Accept")?.to_str().ok());
        assert!(
            accept.clone().count() == 2
                && accept.into_iter().all(|accept| accept == "application/json, text/event-stream")
        );
        tokio::task::yield_now().await;
    }

    #[tokio::test]
    async fn a_session_comes_only_with_an_initialize_result_and_a_modern_request_brings_its_own_headers() {
        use wiremock::matchers::{header, method};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::builder().start().await;
        let refused = json!({"jsonrpc": "2.0", "id": "p", "error": {"code": -32601, "message": "no"}});
        let answer = ResponseTemplate::new(400).insert_header(SESSION_HEADER, "s-probe").set_body_json(&refused);
        Mock::given(method("POST"))
            .and(header("Mcp-Method", "server/discover"))
            .respond_with(answer)
            .mount(&server)
            .await;
        let http = Http::new(&server.uri(), Duration::from_secs(5)).expect("a client");
        let headers = [("MCP-Protocol-Version", "2026-07-28".to_owned()), ("Mcp-Method", "server/discover".to_owned())];
        let posted = http.post_with("{}", None, &headers).await.expect("posted");
        assert_eq!((posted.status, posted.messages.len()), (400, 1));
        assert_eq!(http.session(), None, "a session handed out with a refusal is not kept");
        let requests = server.received_requests().await.unwrap_or_default();
        let version = requests.first().and_then(|request| request.headers.get(VERSION_HEADER)?.to_str().ok());
        assert_eq!(version, Some("2026-07-28"));
        tokio::task::yield_now().await;
    }

    #[tokio::test]
    async fn a_body_past_the_bound_is_an_error_and_a_status_without_a_message_keeps_its_body() {
        use wiremock::matchers::method;
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::builder().start().await;
        let big = ResponseTemplate::new(200).set_body_string("x".repeat(4096));
        Mock::given(method("POST")).respond_with(big).up_to_n_times(1).mount(&server).await;
        let refused = ResponseTemplate::new(401).insert_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        let oauth = json!({"error": "invalid_token", "error_description": "expired"});
        Mock::given(method("POST")).respond_with(refused.set_body_json(&oauth)).mount(&server).await;
        let http = Http::new(&server.uri(), Duration::from_secs(5)).expect("a client").with_limit(1024);
        assert_eq!(http.post("{}", None).await, Err(PostError::TooLarge(1024)));
        let posted = http.post("{}", Some("token")).await.expect("posted");
        assert_eq!((posted.status, posted.messages.len()), (401, 0), "an OAuth error body is no JSON-RPC message");
        assert!(posted.body.contains("invalid_token"), "{posted:?}");
        assert_eq!(posted.authenticate.as_deref(), Some("Bearer error=\"invalid_token\""));
        tokio::task::yield_now().await;
    }

    #[tokio::test]
    async fn extra_headers_are_sent_and_every_www_authenticate_field_is_kept() {
        use wiremock::matchers::{header, method};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::builder().start().await;
        let refused = ResponseTemplate::new(401)
            .append_header("WWW-Authenticate", "Basic realm=\"x\"")
            .append_header("WWW-Authenticate", "Bearer");
        Mock::given(method("POST"))
            .and(header("Origin", "http://o.invalid"))
            .respond_with(refused)
            .mount(&server)
            .await;
        let http = Http::new(&server.uri(), Duration::from_secs(5)).expect("a client");
        let posted = http.post_with("{}", None, &[("Origin", "http://o.invalid")]).await.expect("posted");
        assert_eq!((posted.status, posted.authenticate.as_deref()), (401, Some("Basic realm=\"x\", Bearer")));
        tokio::task::yield_now().await;
    }

    #[tokio::test]
    async fn a_refused_connection_says_so() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let port = listener.local_addr().expect("an address").port();
        drop(listener);
        let http = Http::new(&format!("http://127.0.0.1:{port}/mcp"), Duration::from_secs(2)).expect("a client");
        match http.post("{}", None).await {
            Err(PostError::Connection { why, .. }) => assert!(why.to_lowercase().contains("refused"), "{why}"),
            other => panic!("expected a connection error, got {other:?}"),
        }
    }
}
