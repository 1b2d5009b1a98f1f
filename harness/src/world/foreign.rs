//! The foreign origin: a second listener on loopback that no executor is configured to reach.
//!
//! Rule enforced here: a `redirect` fault may point there, and whatever arrives is recorded with the identity
//! it carried (never routed to the services, never committed), so a check can tell that a request left the
//! configured origin and what it took along.

use super::{Incoming, Reply};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// An origin nothing listens on (port 1 on loopback): a redirect there can only fail to connect.
pub const UNREACHABLE_ORIGIN: &str = "http://127.0.0.1:1";

/// Where the foreign origin is said to be before (or without) a listener: a name that never resolves.
pub(super) const UNSERVED_ORIGIN: &str = "http://foreign.invalid";

/// The headers that carry the caller's identity or the operation's: none may reach another origin.
pub const IDENTITY_HEADERS: [&str; 4] = ["x-tenant-id", "x-subject-id", "idempotency-key", "x-request-id"];

/// One request that arrived at the foreign origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForeignRequest {
    /// Arrival order at the foreign origin, from 0.
    pub index: usize,
    /// Arrival (ms since the world started).
    pub at_ms: u64,
    /// Method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// The identity headers it carried ([`IDENTITY_HEADERS`], lowercase), with their values.
    pub identity: BTreeMap<String, String>,
    /// The length of its body.
    pub body_bytes: usize,
}

impl ForeignRequest {
    /// The record of `incoming`, the `index`-th request to arrive there.
    pub(super) fn new(incoming: &Incoming, index: usize, at_ms: u64) -> ForeignRequest {
        let identity = IDENTITY_HEADERS
            .iter()
            .filter_map(|name| Some(((*name).to_owned(), incoming.headers.get(*name)?.clone())))
            .collect();
        ForeignRequest {
            index,
            at_ms,
            method: incoming.method.clone(),
            path: incoming.path.clone(),
            identity,
            body_bytes: incoming.body.len(),
        }
    }

    /// The `X-Request-Id` it carried: the call whose request was redirected, when the executor sent one.
    pub fn request_id(&self) -> Option<&str> {
        self.identity.get("x-request-id").map(String::as_str)
    }

    /// One line for evidence and timelines.
    pub fn line(&self) -> String {
        let identity: Vec<&str> = self.identity.keys().map(String::as_str).collect();
        let identity = if identity.is_empty() { "no identity headers".to_owned() } else { identity.join(", ") };
        format!(
            "foreign request #{} {} {} ({identity}; body {} bytes)",
            self.index, self.method, self.path, self.body_bytes
        )
    }
}

/// What the foreign origin answers: a success that looks like a result, so an executor that followed the
/// redirect has something to mistake for the downstream's answer.
pub(super) fn reply() -> Reply {
    Reply {
        status: 200,
        headers: Vec::new(),
        body: br#"{"status":"completed","origin":"foreign"}"#.to_vec(),
        delay: Duration::ZERO,
        drop_connection: false,
        parts: None,
    }
}
