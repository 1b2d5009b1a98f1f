//! The strict JSON parser on arbitrary bytes.
//!
//! Invariants: it never panics; what it accepts, serde_json accepts as the same value (strictness only ever
//! refuses more); the canonical form of an accepted value parses back to the same value (numbers compare by
//! value: the canonical form writes `-0.0` as `0` and `1.0` as `1`, as RFC 8785 does), and canonicalising that
//! gives the same text and therefore the same hash.
#![no_main]

use callproof_executor::canonical::{canonical_json, sha256_hex};
use callproof_executor::decode::parse_strict;
use callproof_fuzz::same_value;
use libfuzzer_sys::fuzz_target;

const DEPTH: usize = 64;

fuzz_target!(|bytes: &[u8]| {
    let Ok(value) = parse_strict(bytes, DEPTH) else { return };
    let lenient: serde_json::Value =
        serde_json::from_slice(bytes).expect("the strict parser accepted text serde_json refuses");
    assert_eq!(value, lenient, "the strict parser and serde_json read the same text differently");
    let canonical = canonical_json(&value);
    let reparsed = parse_strict(canonical.as_bytes(), DEPTH).expect("canonical form does not parse back");
    assert!(same_value(&reparsed, &value), "canonical form parses back to another value: {reparsed} vs {value}");
    let again = canonical_json(&reparsed);
    assert_eq!(sha256_hex(again.as_bytes()), sha256_hex(canonical.as_bytes()), "canonical form is not stable");
});
