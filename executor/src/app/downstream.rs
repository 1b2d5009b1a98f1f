//! The `Downstream` port: one HTTP exchange with the service that applies side effects.
//!
//! Rule enforced here: a failed exchange says which side of the send line it failed on. A connection that
//! could not be made is [`SendError::NotSent`]; anything after the request may have left (a timeout, a reset,
//! a connection closed before the answer, a body cut short) is [`SendError::Lost`]. Response bodies are read
//! up to [`MAX_RESPONSE_BYTES`]; a longer body is a failure, never an unbounded allocation. A redirect is
//! never followed: a 3xx is the downstream's answer, returned as is, so a request that was sent is never
//! resent elsewhere (with the caller's identity and key) or reported as not sent.

use async_trait::async_trait;
use std::time::Duration;

/// How much longer than the caller's timeout the HTTP client waits before giving up on its own.
const CLIENT_TIMEOUT_GRACE: Duration = Duration::from_secs(1);

/// Largest downstream response body read.
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// A request to the downstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`, `PUT` or `DELETE`.
    pub method: String,
    /// Path and query, starting with `/`.
    pub path_and_query: String,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// A JSON body.
    pub body: Option<Vec<u8>>,
}

impl HttpRequest {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// The downstream's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Header names (lowercase) and values.
    pub headers: Vec<(String, String)>,
    /// The body, at most [`MAX_RESPONSE_BYTES`].
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// Which side of the send line an exchange failed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The request never left (no connection): the downstream cannot have applied it.
    #[error("the request was not sent")]
    NotSent,
    /// The request may have arrived; no usable answer came back.
    #[error("the request was sent but its answer was lost")]
    Lost,
}

/// Why an [`HttpDownstream`] cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum HttpSetupError {
    /// The base URL cannot address a downstream.
    #[error("downstream URL {0:?} is not usable: {1}")]
    Url(String, String),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(reqwest::Error),
}

/// Sends requests to the downstream.
#[async_trait]
pub trait Downstream: Send + Sync {
    /// One exchange, abandoned after `timeout`.
    ///
    /// # Errors
    /// [`SendError`], telling whether the request may have been applied.
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError>;
}

/// A real HTTP downstream at a base URL.
#[derive(Debug, Clone)]
pub struct HttpDownstream {
    client: reqwest::Client,
    base_url: String,
}

impl HttpDownstream {
    /// A downstream at `base_url` (e.g. `http://127.0.0.1:8080`).
    ///
    /// # Errors
    /// [`HttpSetupError::Url`] when `base_url` is not an `http` or `https` URL with a host and nothing after the
    /// path (every call would otherwise fail as "not sent"); [`HttpSetupError::Client`] when the HTTP client cannot
    /// be built.
    pub fn new(base_url: &str) -> Result<HttpDownstream, HttpSetupError> {
        // Following a redirect would resend the request, identity headers and key included, to wherever the
        // downstream points, and turn a refused connection there into "not sent" for a request that arrived.
        HttpDownstream::with_redirects(base_url, reqwest::redirect::Policy::none())
    }

    /// A downstream whose client follows redirects as `policy` says: only a known-bad executor (a mutant)
    /// passes anything but [`reqwest::redirect::Policy::none`].
    pub(crate) fn with_redirects(
        base_url: &str,
        policy: reqwest::redirect::Policy,
    ) -> Result<HttpDownstream, HttpSetupError> {
        let url = reqwest::Url::parse(base_url)
            .map_err(|error| HttpSetupError::Url(base_url.to_owned(), error.to_string()))?;
        let wrong = |why: &str| HttpSetupError::Url(base_url.to_owned(), why.to_owned());
        if !matches!(url.scheme(), "http" | "https") {
            return Err(wrong("the scheme is not http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(wrong("there is no host"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(wrong("a base URL has no query or fragment"));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .redirect(policy)
            .build()
            .map_err(HttpSetupError::Client)?;
        Ok(HttpDownstream { client, base_url: base_url.trim_end_matches('/').to_owned() })
    }
}

#[async_trait]
impl Downstream for HttpDownstream {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|_| SendError::NotSent)?;
        // The executor bounds every exchange by the call's deadline and reports the timeout itself (as
        // "sent, outcome unknown"); the client's own timeout is only a safety net for callers that do not.
        let mut builder = self
            .client
            .request(method, format!("{}{}", self.base_url, request.path_and_query))
            .timeout(timeout + CLIENT_TIMEOUT_GRACE);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.header("content-type", "application/json").body(body);
        }
        let mut response = match builder.send().await {
            Ok(response) => response,
            Err(error) if error.is_connect() || error.is_builder() => return Err(SendError::NotSent),
            Err(_) => return Err(SendError::Lost),
        };
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
            .collect();
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) if body.len() + chunk.len() <= MAX_RESPONSE_BYTES => body.extend_from_slice(&chunk),
                // A success's body is its result: too long or cut short, the answer is unusable and the outcome
                // unknown. Any other status line is already a definite answer (refused, unavailable, limited):
                // keep the status, drop the body it cannot be read from.
                Ok(Some(_)) | Err(_) if (200..300).contains(&status) => return Err(SendError::Lost),
                Ok(Some(_)) | Err(_) => {
                    body.clear();
                    break;
                }
                Ok(None) => break,
            }
        }
        Ok(HttpResponse { status, headers, body })
    }
}
