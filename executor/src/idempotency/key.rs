//! Idempotency keys: one per business operation, never per transport attempt.
//!
//! Rule enforced here: the key is SHA-256 of canonical `{tenant, subject, tool, business_request_id}` when the
//! caller names the business operation, else of canonical `{tenant, subject, tool, arguments}`. The model's
//! call_id and the attempt number are never part of it, so a retry with a new call_id is the same operation.

use crate::auth::AuthContext;
use crate::canonical::{hex, push_string};
use sha2::{Digest, Sha256};

/// Everything a key derivation may look at. The reference derivation ignores `call_id` and `attempt` on
/// purpose; they are here so that a broken derivation can be expressed as a one-line swap.
#[derive(Debug, Clone, Copy)]
pub struct KeyInput<'a> {
    /// The caller.
    pub auth: &'a AuthContext,
    /// The tool name.
    pub tool: &'a str,
    /// Canonical JSON of the arguments.
    pub canonical_arguments: &'a str,
    /// The caller's business request id.
    pub business_request_id: Option<&'a str>,
    /// The model's call id.
    pub call_id: &'a str,
    /// The caller's attempt number.
    pub attempt: u32,
}

/// The reference key derivation.
pub fn derive_key(input: &KeyInput<'_>) -> String {
    // Keys sorted by bytes, as canonical JSON wants: arguments | business_request_id, subject_id, tenant_id, tool.
    // The material is fed to the hash in pieces, so the canonical arguments (up to the size limit) are not copied.
    let mut hasher = Sha256::new();
    let mut text = String::with_capacity(96);
    text.push('{');
    match input.business_request_id {
        Some(id) => {
            text.push_str("\"business_request_id\":");
            push_string(id, &mut text);
        }
        None => {
            text.push_str("\"arguments\":");
            hasher.update(text.as_bytes());
            hasher.update(input.canonical_arguments.as_bytes());
            text.clear();
        }
    }
    text.push_str(",\"subject_id\":");
    push_string(&input.auth.subject_id, &mut text);
    text.push_str(",\"tenant_id\":");
    push_string(&input.auth.tenant_id, &mut text);
    text.push_str(",\"tool\":");
    push_string(input.tool, &mut text);
    text.push('}');
    hasher.update(text.as_bytes());
    hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{canonical_json, sha256_hex};
    use serde_json::json;

    fn input<'a>(auth: &'a AuthContext, business: Option<&'a str>, call_id: &'a str, attempt: u32) -> KeyInput<'a> {
        KeyInput {
            auth,
            tool: "refund_order",
            canonical_arguments: r#"{"amount":1}"#,
            business_request_id: business,
            call_id,
            attempt,
        }
    }

    #[test]
    fn the_material_is_canonical_json() {
        let auth = AuthContext::new("u\"1", "t1", &[]);
        let expected =
            json!({"business_request_id": "b1", "subject_id": "u\"1", "tenant_id": "t1", "tool": "refund_order"});
        assert_eq!(derive_key(&input(&auth, Some("b1"), "c", 1)), sha256_hex(canonical_json(&expected).as_bytes()));
        let expected =
            json!({"arguments": {"amount": 1}, "subject_id": "u\"1", "tenant_id": "t1", "tool": "refund_order"});
        assert_eq!(derive_key(&input(&auth, None, "c", 1)), sha256_hex(canonical_json(&expected).as_bytes()));
    }

    #[test]
    fn call_id_and_attempt_do_not_change_the_key() {
        let auth = AuthContext::new("u1", "t1", &[]);
        assert_eq!(
            derive_key(&input(&auth, Some("b1"), "call_a", 1)),
            derive_key(&input(&auth, Some("b1"), "call_b", 7))
        );
    }
}
