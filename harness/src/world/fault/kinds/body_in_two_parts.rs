//! `body_in_two_parts`: the answer's body arrives in two writes, split inside a character, or only its first part;
//! with `chunked`, framed as HTTP/1.1 chunks instead of by its length.
//!
//! Rule enforced here: bytes are not characters. A body is UTF-8 only once it has arrived whole, so a client that
//! decodes each chunk as it comes turns a character split between two reads into two replacement characters; and
//! a status line is a definite answer even when the body after it breaks off (docs/errors.md: a 503 stays
//! `dependency_unavailable`, a 409 `business_rejected`), while a success whose body never arrived whole has an
//! unknown result (`timeout_unknown`). A client that reads its own HTTP/1.1 must also read a body framed as chunks
//! (RFC 9112 §7.1), which a downstream may send whenever it does not know the length up front. wiremock writes
//! every body whole with its length, so the runner serves a step with this fault from the harness's own HTTP
//! server.

use crate::world::fault::{After, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The downstream decides as usual; its answer's body is written in `parts` writes (2 by default) `pause_ms`
/// apart, the first ending after the first byte of its first character beyond ASCII (else at the body's middle),
/// the rest in equal pieces. With `cut = true` the connection closes after the first part (the headers announced
/// the whole body's length, or chunks that never end). With `chunked = true` the answer has no `Content-Length`:
/// it says `Transfer-Encoding: chunked`, and each write is one chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodyInTwoParts {
    /// Milliseconds between the two writes.
    #[serde(default = "default_pause_ms")]
    pub pause_ms: u64,
    /// Close the connection after the first part.
    #[serde(default)]
    pub cut: bool,
    /// How many writes (at least 2, at most 100): an answer that trickles in.
    #[serde(default = "default_parts", deserialize_with = "parts_in_range")]
    #[schemars(range(min = 2, max = 100))]
    pub parts: u32,
    /// Frame the body as HTTP/1.1 chunks, one per write, instead of announcing its length.
    #[serde(default)]
    pub chunked: bool,
}

fn default_parts() -> u32 {
    2
}

fn parts_in_range<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let parts = u32::deserialize(deserializer)?;
    if (2..=100).contains(&parts) {
        Ok(parts)
    } else {
        Err(serde::de::Error::custom(format!("`parts` is from 2 to 100, not {parts}")))
    }
}

fn default_pause_ms() -> u64 {
    50
}

impl Rule for BodyInTwoParts {
    fn after_commit(&mut self, _request: &Request<'_>, _answer: &mut Outgoing) -> After {
        After::InParts {
            pause: Duration::from_millis(self.pause_ms),
            cut: self.cut,
            count: self.parts,
            chunked: self.chunked,
        }
    }
}

impl Fault for BodyInTwoParts {
    fn writes_body_in_parts(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::world::FaultKind;

    #[test]
    fn parts_default_to_two_and_a_count_out_of_range_is_refused() {
        let kind: FaultKind = toml::from_str("kind = \"body_in_two_parts\"").expect("defaults");
        assert!(matches!(kind, FaultKind::BodyInTwoParts(ref parts) if parts.parts == 2 && parts.pause_ms == 50 && !parts.chunked));
        for wrong in [0, 1, 101] {
            let error = toml::from_str::<FaultKind>(&format!("kind = \"body_in_two_parts\"\nparts = {wrong}"))
                .expect_err("out of range");
            assert!(error.to_string().contains("from 2 to 100"), "{error}");
        }
    }
}
