//! Idempotency keys: one per business operation, never per transport attempt.
//!
//! Rule enforced here: the key is SHA-256 of canonical `{tenant, subject, tool, business_request_id}` when the
//! caller names the business operation, else of canonical `{tenant, subject, tool, arguments}`. The model's
//! call_id and the attempt number are never part of it, so a retry with a new call_id is the same operation.

use crate::auth::AuthContext;
use crate::canonical::sha256_hex;

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
    let mut material = Vec::with_capacity(96 + input.canonical_arguments.len());
    material.push(b'{');
    match input.business_request_id {
        Some(id) => {
            material.extend_from_slice(b"\"business_request_id\":");
            push_string(&mut material, id);
        }
        None => {
            material.extend_from_slice(b"\"arguments\":");
            material.extend_from_slice(input.canonical_arguments.as_bytes());
        }
    }
    material.extend_from_slice(b",\"subject_id\":");
    push_string(&mut material, &input.auth.subject_id);
    material.extend_from_slice(b",\"tenant_id\":");
    push_string(&mut material, &input.auth.tenant_id);
    material.extend_from_slice(b",\"tool\":");
    push_string(&mut material, input.tool);
    material.push(b'}');
    sha256_hex(&material)
}

fn push_string(out: &mut Vec<u8>, text: &str) {
    // Writing a str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonical_json;
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
