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
/// block, which is compressed directly; the arguments, whatever their size, are never hashed again.
pub fn derive_key(input: &KeyInput<'_>) -> Sha256Hex {
    let (tag, operation): (&[u8], &[u8]) = match input.business_request_id {
        Some(id) => (&[BUSINESS], id.as_bytes()),
        None => (&[ARGUMENTS], input.arguments_digest),
    };
    // The material, in order; both ways of hashing it below read these pieces and nothing else.
    let pieces: [&[u8]; 8] = [
        input.auth.tenant_id.as_bytes(),
        &[END],
        input.auth.subject_id.as_bytes(),
        &[END],
        input.tool.as_bytes(),
        &[END],
        tag,
        operation,
    ];
    let length = pieces.iter().map(|piece| piece.len()).sum();
    let digest = if length <= ONE_BLOCK_MATERIAL {
        one_block_digest(&pieces, length)
    } else {
        let mut hasher = Sha256::new();
        pieces.iter().for_each(|piece| hasher.update(piece));
        hasher.finalize().into()
    };
    Sha256Hex::from_digest(&digest)
}

/// The most material whose SHA-256 is one block: 64 bytes less the `0x80` that ends it and the 8-byte length.
const ONE_BLOCK_MATERIAL: usize = 55;

/// SHA-256's initial hash value (FIPS 180-4, section 5.3.3).
const INITIAL_STATE: [u32; 8] =
    [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19];

/// SHA-256 of `pieces`, `length` bytes in all and at most [`ONE_BLOCK_MATERIAL`], padded by hand into the one
/// block they take (FIPS 180-4, section 5.1.1) and compressed once: the digest `Sha256::digest` gives, without
/// the hasher's buffering of eight small updates.
fn one_block_digest(pieces: &[&[u8]], length: usize) -> [u8; 32] {
    let mut block = [0u8; 64];
    let mut at = 0;
    for piece in pieces {
        block[at..at + piece.len()].copy_from_slice(piece);
        at += piece.len();
    }
    block[length] = 0x80;
    block[56..].copy_from_slice(&(length as u64 * 8).to_be_bytes());
    let mut state = INITIAL_STATE;
    sha2::block_api::compress256(&mut state, &[block]);
    let mut digest = [0u8; 32];
    for (bytes, word) in digest.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    digest
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
    fn every_material_length_gives_the_hashers_digest() {
        // Lengths 9 to 84 bytes, across the one-block limit (55): the hand-padded block must be SHA-256 itself.
        let digest = sha256(b"{}");
        for tenant_length in 0..40 {
            let tenant = "t".repeat(tenant_length);
            let auth = AuthContext::new("u", &tenant, &[]);
            for business in [None, Some(""), Some("b1"), Some("a business request id of some length")] {
                let mut material = tenant.clone().into_bytes();
                material.extend_from_slice(b"\xffu\xfftool\xff");
                match business {
                    Some(id) => {
                        material.push(BUSINESS);
                        material.extend_from_slice(id.as_bytes());
                    }
                    None => {
                        material.push(ARGUMENTS);
                        material.extend_from_slice(&digest);
                    }
                }
                let key = derive_key(&input(&auth, "tool", business, &digest, "c"));
                assert_eq!(key, sha256_hex(&material), "material of {} bytes", material.len());
            }
        }
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
