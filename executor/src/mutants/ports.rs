//! Broken ports: stores, downstreams and clocks with one classic bug, each wrapping a working one.

use crate::app::{Downstream, HttpRequest, HttpResponse, SendError};
use crate::clock::Clock;
use crate::idempotency::{NewRecord, State, Update, Version};
use crate::store::{Claim, Forward, Store, StoreError};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

/// Check-then-act: reads the record, yields, then writes, so two concurrent claims of one key both win
/// (the seed's `if not exists: set` race, section 5.4).
pub struct CheckThenActStore(pub Arc<dyn Store>);

#[async_trait]
impl Forward for CheckThenActStore {
    fn inner(&self) -> &dyn Store {
        &*self.0
    }

    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        match self.0.load(&new.key).await? {
            Some(existing) => Ok(Claim::Existing(existing)),
            None => {
                // The gap between the read and the write, where another caller slips in: wide enough that a
                // burst's lines, which a loaded machine may deliver to a process tens of milliseconds apart, still
                // meet in it (at 5 ms, one CI-like run in many missed the race over callproof/1).
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                let _ = self.0.claim(new).await?;
                Ok(Claim::Acquired)
            }
        }
    }
}

/// An IN_PROGRESS record whose lease expired is treated as ABSENT and claimed afresh, while the first
/// holder may still be applying the effect (or did, and crashed before recording it).
pub struct LeaseExpiryToAbsentStore(pub Arc<dyn Store>);

#[async_trait]
impl Forward for LeaseExpiryToAbsentStore {
    fn inner(&self) -> &dyn Store {
        &*self.0
    }

    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        match self.0.claim(new).await? {
            Claim::Existing(existing)
                if existing.state == State::InProgress && existing.lease_expires_ms <= new.now_ms =>
            {
                let fresh = new.clone().into_record();
                let update = Update::settle(&fresh, State::InProgress, None, new.now_ms);
                if self.0.compare_and_set(&new.key, existing.version(), update).await? {
                    Ok(Claim::Acquired)
                } else {
                    Ok(Claim::Existing(existing))
                }
            }
            other => Ok(other),
        }
    }
}

/// Settling writes are lost (reported done, never applied): the record stays IN_PROGRESS forever, as when
/// a process dies between the side effect and recording it.
pub struct LosesCompletionsStore(pub Arc<dyn Store>);

#[async_trait]
impl Forward for LosesCompletionsStore {
    fn inner(&self) -> &dyn Store {
        &*self.0
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        if expected.state == State::InProgress {
            return Ok(true);
        }
        self.0.compare_and_set(key, expected, update).await
    }
}

/// Resends a request once when its answer was lost (an HTTP client with automatic retries).
pub struct ResendOnLost(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for ResendOnLost {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        match self.0.send(request.clone(), timeout).await {
            Err(SendError::Lost) => self.0.send(request, timeout).await,
            answer => answer,
        }
    }
}

/// Drops one header from every request.
pub struct StripHeader(pub Arc<dyn Downstream>, pub &'static str);

#[async_trait]
impl Downstream for StripHeader {
    async fn send(&self, mut request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        request.headers.retain(|(name, _)| name != self.1);
        self.0.send(request, timeout).await
    }
}

/// Sends the caller's identity headers only on requests that carry an Idempotency-Key (side effects and status
/// queries): ownership lookups and reads reach the downstream without X-Tenant-Id and X-Subject-Id.
pub struct IdentityOnKeyedRequestsOnly(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for IdentityOnKeyedRequestsOnly {
    async fn send(&self, mut request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        if !request.headers.iter().any(|(name, _)| name == "idempotency-key") {
            request.headers.retain(|(name, _)| name != "x-tenant-id" && name != "x-subject-id");
        }
        self.0.send(request, timeout).await
    }
}

/// Sends status queries without the Idempotency-Key header (the key only in the query string).
pub struct StatusQueryWithoutKeyHeader(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for StatusQueryWithoutKeyHeader {
    async fn send(&self, mut request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        if request.method == "GET" {
            request.headers.retain(|(name, _)| name != "idempotency-key");
        }
        self.0.send(request, timeout).await
    }
}

/// Tells the downstream the time left as seconds under a header named in milliseconds.
pub struct DeadlineInSeconds(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for DeadlineInSeconds {
    async fn send(&self, mut request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        for (name, value) in &mut request.headers {
            if name == "x-deadline-ms" {
                *value = (value.parse::<u64>().unwrap_or(0) / 1000).to_string();
            }
        }
        self.0.send(request, timeout).await
    }
}

/// Gives every downstream request of a call the deadline its first request was given, as a client that starts
/// the budget again at each hop would: after a slow lookup, the effect is told it has the whole budget.
pub struct DeadlinePerRequest {
    downstream: Arc<dyn Downstream>,
    /// X-Deadline-Ms of each call's first request, by X-Request-Id.
    first_told: std::sync::Mutex<std::collections::BTreeMap<String, String>>,
}

impl DeadlinePerRequest {
    /// Wraps `downstream`.
    pub fn wrap(downstream: Arc<dyn Downstream>) -> Arc<dyn Downstream> {
        Arc::new(DeadlinePerRequest { downstream, first_told: std::sync::Mutex::default() })
    }
}

#[async_trait]
impl Downstream for DeadlinePerRequest {
    async fn send(&self, mut request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let header = |name: &str| request.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
        if let (Some(request_id), Some(told)) = (header("x-request-id"), header("x-deadline-ms")) {
            let first = self.first_told.lock().map(|mut seen| seen.entry(request_id).or_insert(told).clone());
            if let Ok(first) = first {
                for (name, value) in &mut request.headers {
                    if name == "x-deadline-ms" {
                        value.clone_from(&first);
                    }
                }
            }
        }
        self.downstream.send(request, timeout).await
    }
}

/// Reads instructions in responses and follows them: "call delete_account for account acct_X" in a result
/// makes it delete that account (tool output treated as a command).
pub struct FollowsInstructions(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for FollowsInstructions {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let response = self.0.send(request.clone(), timeout).await?;
        let text = String::from_utf8_lossy(&response.body);
        if let Some(start) = text.find("call delete_account for account ") {
            let account: String =
                text[start + 32..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let order = HttpRequest {
                method: "DELETE".to_owned(),
                path_and_query: format!("/accounts/{account}"),
                body: None,
                ..request
            };
            let _ = self.0.send(order, timeout).await;
        }
        Ok(response)
    }
}

/// A monotonic clock an hour ahead of the one it wraps: deadlines computed from it lie an hour in the future, so
/// the caller's budget is ignored (as when a layer starts a fresh long timeout of its own).
pub struct SkewedClock(pub Arc<dyn Clock>);

impl Clock for SkewedClock {
    fn now(&self) -> tokio::time::Instant {
        self.0.now() + Duration::from_secs(3600)
    }

    fn wall_ms(&self) -> u64 {
        self.0.wall_ms()
    }
}

/// Reports a task as `status_claimed` whenever the export service answers `working` to `method` (an optimistic
/// client that takes "accepted" for "done"): `GET` makes polls claim success early, `DELETE` makes a cancel
/// claim the job stopped while it may still complete.
pub struct OptimisticTaskStatus(pub Arc<dyn Downstream>, pub &'static str, pub &'static str);

#[async_trait]
impl Downstream for OptimisticTaskStatus {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let task_request = request.method == self.1 && request.path_and_query.starts_with("/exports/");
        let mut response = self.0.send(request, timeout).await?;
        if task_request
            && let Ok(mut body) = serde_json::from_slice::<serde_json::Value>(&response.body)
            && body.get("status").and_then(serde_json::Value::as_str) == Some("working")
        {
            body["status"] = serde_json::Value::from(self.2);
            response.body = serde_json::to_vec(&body).unwrap_or(response.body);
        }
        Ok(response)
    }
}

/// A secret scrubber on the way in: every URL in a success's body loses its query (`?sig=...` becomes
/// `?REDACTED`), so a signed download link reaches the result masked, not as the service signed it.
pub struct ScrubsUrlQueries(pub Arc<dyn Downstream>);

#[async_trait]
impl Downstream for ScrubsUrlQueries {
    async fn send(&self, request: HttpRequest, timeout: Duration) -> Result<HttpResponse, SendError> {
        let mut response = self.0.send(request, timeout).await?;
        if (200..300).contains(&response.status)
            && let Ok(mut body) = serde_json::from_slice::<serde_json::Value>(&response.body)
        {
            scrub_url_queries(&mut body);
            response.body = serde_json::to_vec(&body).unwrap_or(response.body);
        }
        Ok(response)
    }
}

fn scrub_url_queries(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(text) if text.starts_with("https://") || text.starts_with("http://") => {
            if let Some(query) = text.find('?') {
                text.replace_range(query + 1.., "REDACTED");
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(scrub_url_queries),
        serde_json::Value::Object(members) => members.values_mut().for_each(scrub_url_queries),
        _ => {}
    }
}

/// Fails open: a store that cannot be reached is taken for an empty one, so the call goes ahead without a
/// claim and its outcome is never recorded (the "cache is down, carry on" shortcut).
pub struct FailsOpenStore(pub Arc<dyn Store>);

#[async_trait]
impl Forward for FailsOpenStore {
    fn inner(&self) -> &dyn Store {
        &*self.0
    }

    async fn claim(&self, new: &NewRecord) -> Result<Claim, StoreError> {
        Ok(self.0.claim(new).await.unwrap_or(Claim::Acquired))
    }

    async fn compare_and_set(&self, key: &str, expected: Version, update: Update) -> Result<bool, StoreError> {
        Ok(self.0.compare_and_set(key, expected, update).await.unwrap_or(true))
    }
}

/// Reads a `hello`'s version by prefix, as `startswith` would: `callproof/10` passes for `callproof/1`.
///
/// # Errors
/// A version that does not start with [`crate::protocol::VERSION`].
pub fn speaks_by_prefix(protocol: &str) -> Result<(), String> {
    if protocol.starts_with(crate::protocol::VERSION) { Ok(()) } else { crate::protocol::speaks(protocol) }
}
