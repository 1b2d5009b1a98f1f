//! Idempotency keys: one per business operation, never per transport attempt.
//!
//! Rule enforced here: the key is the lowercase hex SHA-256 of `tenant ‖ FF ‖ subject ‖ FF ‖ tool ‖ FF` followed
//! by `"b" ‖ business_request_id` when the caller names the business operation, else by `"a" ‖ SHA-256(canonical
//! arguments)` (the 32 raw bytes of the digest the decode already computed for `arguments_hash`). The byte FF never
//! occurs in UTF-8, so no two different tuples share a material; the model's call_id and the attempt number are
//! never part of it, so a retry with a new call_id is the same operation. Records keyed this way are record
//! format [`RECORD_FORMAT`]; format 1 keys hashed canonical JSON of the arguments themselves (docs/stores.md).

use crate::auth::AuthContext;
use crate::canonical::Sha256Hex;
use sha2::{Digest, Sha256};

/// The record format whose keys [`derive_key`] derives. Format 1 (before versioning) was SHA-256 of canonical
/// JSON `{arguments | business_request_id, subject_id, tenant_id, tool}`; the durable stores refuse to run on
/// records of another format (docs/stores.md, "Record format").
pub const RECORD_FORMAT: i64 = 2;

/// Ends each name in the key material: never a byte of UTF-8, so a name cannot contain it.
const END: u8 = 0xff;
/// Tags the rest of the material: the business request id follows.
const BUSINESS: u8 = b'b';
/// Tags the rest of the material: the 32-byte SHA-256 of the canonical arguments follows.
const ARGUMENTS: u8 = b'a';

/// Everything a key derivation may look at. The reference derivation ignores `call_id` and `attempt` on
/// purpose; they are here so that a broken derivation can be expressed as a one-line swap.
#[derive(Debug, Clone, Copy)]
pub struct KeyInput<'a> {
    /// The caller.
    pub auth: &'a AuthContext,
    /// The tool name.
    pub tool: &'a str,
    /// SHA-256 of the canonical JSON of the arguments ([`crate::decode::Decoded::arguments_digest`]).
    pub arguments_digest: &'a [u8; 32],
    /// The caller's business request id.
    pub business_request_id: Option<&'a str>,
    /// The model's call id.
    pub call_id: &'a str,
    /// The caller's attempt number.
    pub attempt: u32,
}

/// The reference key derivation. For short names (the conformance app's ids) the material fits one SHA-256
/// block; the arguments, whatever their size, are never hashed again.
pub fn derive_key(input: &KeyInput<'_>) -> Sha256Hex {
    let mut hasher = Sha256::new();
    for name in [&input.auth.tenant_id, &input.auth.subject_id, input.tool] {
        hasher.update(name.as_bytes());
        hasher.update([END]);
    }
    match input.business_request_id {
        Some(id) => {
            hasher.update([BUSINESS]);
            hasher.update(id.as_bytes());
        }
        None => {
            hasher.update([ARGUMENTS]);
            hasher.update(input.arguments_digest);
        }
    }
    Sha256Hex::from_digest(&hasher.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{sha256, sha256_hex};

    fn input<'a>(
        auth: &'a AuthContext,
        tool: &'a str,
        business: Option<&'a str>,
        digest: &'a [u8; 32],
        call_id: &'a str,
    ) -> KeyInput<'a> {
        KeyInput { auth, tool, arguments_digest: digest, business_request_id: business, call_id, attempt: 1 }
    }

    #[test]
    fn the_material_is_the_names_each_ended_by_ff_then_the_tagged_operation() {
        let auth = AuthContext::new("u\"1", "t1", &[]);
        let digest = sha256(br#"{"amount":1}"#);
        let business = sha256_hex(b"t1\xffu\"1\xffrefund_order\xffbb1");
        assert_eq!(derive_key(&input(&auth, "refund_order", Some("b1"), &digest, "c")), business);
        let mut material = b"t1\xffu\"1\xffrefund_order\xffa".to_vec();
        material.extend_from_slice(&digest);
        assert_eq!(derive_key(&input(&auth, "refund_order", None, &digest, "c")), sha256_hex(&material));
    }

    #[test]
    fn a_published_vector_stays_fixed() {
        // Other executors may reproduce the derivation from docs/protocol.md; this pins it.
        let auth = AuthContext::new("u_1", "t_1", &[]);
        let digest = sha256(br#"{"amount":100,"order_id":"ord_123","reason":"duplicate"}"#);
        assert_eq!(
            derive_key(&input(&auth, "refund_order", None, &digest, "c")),
            "c698c8e60aa2b43a114f6becdbb4d778b9f8051648e2bf2dd5e672f3ad8ae73d"
        );
    }

    #[test]
    fn moving_bytes_between_names_changes_the_key() {
        let digest = sha256(b"{}");
        let key = |tenant: &str, subject: &str, tool: &str, business: Option<&str>| {
            derive_key(&input(&AuthContext::new(subject, tenant, &[]), tool, business, &digest, "c"))
        };
        let splits = [("ab", "c", "t"), ("a", "bc", "t"), ("a", "b", "ct"), ("", "abc", "t")];
        let keys: std::collections::BTreeSet<_> =
            splits.iter().map(|(tenant, subject, tool)| key(tenant, subject, tool, Some("x"))).collect();
        assert_eq!(keys.len(), splits.len());
        // The tag after the names keeps an arguments key apart from every business request id.
        for business in ["", "a", "b"] {
            assert_ne!(key("t", "s", "tool", None), key("t", "s", "tool", Some(business)), "{business:?}");
        }
    }

    #[test]
    fn call_id_and_attempt_do_not_change_the_key() {
        let auth = AuthContext::new("u1", "t1", &[]);
        let digest = sha256(b"{}");
        let a = input(&auth, "refund_order", Some("b1"), &digest, "call_a");
        let b = KeyInput { attempt: 7, ..input(&auth, "refund_order", Some("b1"), &digest, "call_b") };
        assert_eq!(derive_key(&a), derive_key(&b));
    }
}
