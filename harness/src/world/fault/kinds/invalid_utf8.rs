//! `invalid_utf8`: the downstream answers its usual 2xx body with one byte in it that is not UTF-8.
//!
//! Rule enforced here: a body is JSON only if it is UTF-8 (RFC 8259 §8.1; docs/protocol.md), so a success body
//! with a byte that is no UTF-8 is not JSON and its result cannot be read: `output_invalid`, never a result in
//! which a decoder that replaces what it cannot read put U+FFFD where the byte was. The byte goes first in the
//! body's first string value, so it sits inside a string a lenient reader would otherwise pass on.

use crate::world::fault::{After, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The byte put in: a continuation byte's range is 0x80–0xBF and a lead byte's 0xC2–0xF4, so 0xFF is neither.
const NOT_UTF8: u8 = 0xFF;

/// Decide as usual, then answer 2xx with byte 0xFF as the first character of the body's first string value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InvalidUtf8 {}

impl Rule for InvalidUtf8 {
    fn after_commit(&mut self, _request: &Request<'_>, answer: &mut Outgoing) -> After {
        if answer.is_success() {
            let body = serde_json::to_vec(&answer.body).unwrap_or_default();
            answer.raw = Some(with_invalid_byte(body));
        }
        After::Pass
    }
}

impl Fault for InvalidUtf8 {}

/// `body` (compact JSON) with [`NOT_UTF8`] after the opening quote of its first string value; unchanged when it has
/// none.
fn with_invalid_byte(mut body: Vec<u8>) -> Vec<u8> {
    if let Some(at) = body.windows(2).position(|pair| pair == b":\"") {
        body.insert(at + 2, NOT_UTF8);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_goes_first_in_the_first_string_value_and_the_body_is_no_longer_utf8() {
        let body = br#"{"location":"Oslo","temperature":21.5}"#.to_vec();
        let broken = with_invalid_byte(body);
        assert_eq!(broken, b"{\"location\":\"\xFFOslo\",\"temperature\":21.5}".to_vec());
        assert!(std::str::from_utf8(&broken).is_err());
        assert_eq!(with_invalid_byte(br#"{"n":1}"#.to_vec()), br#"{"n":1}"#.to_vec(), "no string, no change");
    }
}
