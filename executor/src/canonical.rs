//! Canonical JSON and SHA-256: one text per value, so equal arguments hash equally.
//!
//! Rule enforced here: object keys sorted by their UTF-8 bytes, no whitespace, strings escaped as serde_json
//! does, and one number form: integers as integers, an integral float inside ±2^53 as an integer (`100.0`,
//! `1e2` → `100`, `-0.0` → `0`), any other float in serde_json's shortest round-trip form.

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

/// Largest integer every IEEE-754 double represents exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Writes the canonical text of `value` into `out`.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    out.extend_from_slice(canonical_json(value).as_bytes());
}

/// The canonical text of `value`.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::with_capacity(128);
    push_canonical(value, &mut out);
    out
}

/// SHA-256 of the canonical text of `value`, written into a buffer the thread reuses: the executor only hashes
/// the text, so a call allocates (and frees) no `String` for it. A buffer that grew past
/// [`SCRATCH_KEPT_BYTES`] is freed after use, so a thread keeps at most that much.
pub fn canonical_digest(value: &Value) -> [u8; 32] {
    SCRATCH.with_borrow_mut(|text| {
        text.clear();
        push_canonical(value, text);
        let digest = sha256(text.as_bytes());
        if text.capacity() > SCRATCH_KEPT_BYTES {
            *text = String::new();
        }
        digest
    })
}

/// Largest buffer a thread keeps for the next [`canonical_digest`].
const SCRATCH_KEPT_BYTES: usize = 128 * 1024;

thread_local! {
    /// The buffer [`canonical_digest`] writes into.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Appends the canonical text of `value` to `out`. Written into a `String`, so the text never needs a UTF-8
/// check: only JSON punctuation, ASCII digits and (escaped) `&str`s are ever pushed.
pub(crate) fn push_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(number) => push_number(number, out),
        Value::String(text) => push_string(text, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // serde_json's Map is a BTreeMap here (no `preserve_order`), so iteration is already sorted by key
            // bytes. The unit test `keys_are_sorted_by_bytes` guards this assumption.
            out.push('{');
            for (index, (key, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_string(key, out);
                out.push(':');
                push_canonical(item, out);
            }
            out.push('}');
        }
    }
}

fn push_number(number: &Number, out: &mut String) {
    if let Some(unsigned) = number.as_u64() {
        push_integer(unsigned, false, out);
    } else if let Some(signed) = number.as_i64() {
        push_integer(signed.unsigned_abs(), signed < 0, out);
    } else if let Some(float) = number.as_f64() {
        if float.fract() == 0.0 && float.abs() <= MAX_SAFE_INTEGER {
            // Integral and exact: one form with the integer literal. `as` is exact in this range; -0.0 → 0.
            let integral = float as i64;
            push_integer(integral.unsigned_abs(), integral < 0, out);
        } else {
            // Finite by construction (serde_json never holds NaN or infinity): serde_json's shortest round-trip
            // form. Rare in tool arguments, so the allocation is fine.
            out.push_str(&serde_json::to_string(number).unwrap_or_default());
        }
    }
}

/// Decimal digits of `magnitude`, with a minus sign when `negative`.
fn push_integer(mut magnitude: u64, negative: bool, out: &mut String) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[start..]).expect("ASCII digits"));
}

/// What serde_json writes for a byte that needs escaping in a string, or 0 for a byte written as is.
const fn escape_of(byte: u8) -> u8 {
    match byte {
        0x08 => b'b',
        0x09 => b't',
        0x0A => b'n',
        0x0C => b'f',
        0x0D => b'r',
        0x00..=0x1F => b'u',
        b'"' => b'"',
        b'\\' => b'\\',
        _ => 0,
    }
}

const ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = escape_of(byte as u8);
        byte += 1;
    }
    table
};

/// Appends `text` as a JSON string, escaped exactly as serde_json escapes it.
pub(crate) fn push_string(text: &str, out: &mut String) {
    out.reserve(text.len() + 2);
    out.push('"');
    let mut run_start = 0;
    for (index, byte) in text.bytes().enumerate() {
        let escape = ESCAPES[usize::from(byte)];
        if escape == 0 {
            continue;
        }
        // `index` is at an ASCII byte, so both slices fall on character boundaries.
        out.push_str(&text[run_start..index]);
        out.push('\\');
        out.push(char::from(escape));
        if escape == b'u' {
            out.push_str("00");
            out.push(char::from(HEX_DIGITS[usize::from(byte >> 4)]));
            out.push(char::from(HEX_DIGITS[usize::from(byte & 0x0f)]));
        }
        run_start = index + 1;
    }
    out.push_str(&text[run_start..]);
    out.push('"');
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256Hex::of(bytes).into()
}

/// The lowercase hex of a SHA-256 digest, held inline: 64 ASCII bytes and no allocation. Every call makes two
/// (its `arguments_hash` and its idempotency key), and most of their uses only read them; a `String` is made
/// where one is kept.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Hex([u8; 64]);

impl Sha256Hex {
    /// The hex of SHA-256 over `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256Hex {
        Sha256Hex::from_digest(&sha256(bytes))
    }

    /// The hex of an already computed digest.
    pub fn from_digest(digest: &[u8; 32]) -> Sha256Hex {
        let mut text = [0u8; 64];
        write_hex(digest, &mut text);
        Sha256Hex(text)
    }

    /// The 64 hex digits.
    pub fn as_str(&self) -> &str {
        // Only hex digits are ever written; the check is a word-at-a-time ASCII scan of 64 bytes.
        std::str::from_utf8(&self.0).expect("hex digits are ASCII")
    }
}

impl std::ops::Deref for Sha256Hex {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for Sha256Hex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Sha256Hex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), formatter)
    }
}

impl PartialEq<str> for Sha256Hex {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Sha256Hex {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Sha256Hex {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl From<Sha256Hex> for String {
    fn from(hex: Sha256Hex) -> String {
        hex.as_str().to_owned()
    }
}

impl From<Sha256Hex> for std::sync::Arc<str> {
    fn from(hex: Sha256Hex) -> std::sync::Arc<str> {
        std::sync::Arc::from(hex.as_str())
    }
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The two lowercase hex digits of every byte value, so that encoding takes one lookup per byte rather than two
/// nibble lookups: a key and an arguments hash are encoded on every call (32 bytes into a `String`: 28 → 22 ns
/// measured, most of the rest being the allocation that [`Sha256Hex`] no longer makes).
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut pairs = [[0u8; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = [HEX_DIGITS[byte >> 4], HEX_DIGITS[byte & 0x0f]];
        byte += 1;
    }
    pairs
};

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut text = vec![0u8; bytes.len() * 2];
    write_hex(bytes, &mut text);
    // Only hex digits were written; the check is a word-at-a-time ASCII scan.
    String::from_utf8(text).expect("hex digits are ASCII")
}

/// Writes the two lowercase hex digits of each byte of `bytes` into `out`, which is twice as long.
fn write_hex(bytes: &[u8], out: &mut [u8]) {
    for (pair, byte) in out.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&HEX_PAIRS[usize::from(*byte)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_by_bytes_and_whitespace_is_gone() {
        let value: Value =
            serde_json::from_str(r#"{ "reason":"duplicate", "amount" : 100, "order_id":"ord_123" , "Z":1, "é":2 }"#)
                .expect("parse");
        assert_eq!(canonical_json(&value), r#"{"Z":1,"amount":100,"order_id":"ord_123","reason":"duplicate","é":2}"#);
    }

    #[test]
    fn numbers_have_one_form() {
        let value: Value =
            serde_json::from_str(r#"[100, 100.0, 1e2, -0.0, -0, 0.5, 1e-7, 9007199254740993.0, 1e300, -12]"#)
                .expect("parse");
        assert_eq!(canonical_json(&value), "[100,100,100,0,0,0.5,1e-7,9007199254740992,1e+300,-12]");
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let value = json!({"k\"ey": "line\nbreak \u{1} \\ done"});
        assert_eq!(canonical_json(&value), r#"{"k\"ey":"line\nbreak \u0001 \\ done"}"#);
    }

    #[test]
    fn every_ascii_byte_and_some_others_are_escaped_exactly_like_serde_json() {
        let mut samples: Vec<String> = (0u8..=0x7f).map(|byte| format!("a{}b", char::from(byte))).collect();
        samples.extend(["", "\"\\", "é\u{1}ü\u{7f}", "\u{10ffff}\n\u{2028}", "plain"].map(str::to_owned));
        for text in samples {
            let mut ours = String::new();
            push_string(&text, &mut ours);
            assert_eq!(ours, serde_json::to_string(&text).expect("serializes"), "{text:?}");
        }
    }

    #[test]
    fn integers_at_the_edges_keep_their_digits() {
        let value = json!([0, 7, -7, 10, -10, u64::MAX, i64::MIN, i64::MAX, 1_000_000]);
        assert_eq!(canonical_json(&value), serde_json::to_string(&value).expect("serializes"));
        let mut bytes = b"x".to_vec();
        write_canonical(&value, &mut bytes);
        assert_eq!(bytes, [b"x".as_slice(), canonical_json(&value).as_bytes()].concat());
    }

    #[test]
    fn hex_is_lowercase_and_two_digits_per_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn the_digest_is_of_the_canonical_text_whatever_the_scratch_held_before() {
        let large = json!({"items": vec!["x".repeat(1000); 200], "note": "large"});
        let small = json!({"b": 1, "a": [true, null]});
        for value in [&small, &large, &small, &large, &small] {
            assert_eq!(canonical_digest(value), sha256(canonical_json(value).as_bytes()));
        }
        SCRATCH.with_borrow(|text| assert!(text.capacity() <= SCRATCH_KEPT_BYTES, "a large buffer is freed"));
        canonical_digest(&small);
        SCRATCH.with_borrow(|text| assert!(text.capacity() > 0, "a small buffer is kept"));
    }

    #[test]
    fn the_inline_hex_is_the_hex_of_the_digest() {
        let digest = sha256(b"abc");
        let inline = Sha256Hex::from_digest(&digest);
        assert_eq!(inline.as_str(), hex(&digest));
        assert_eq!(inline, Sha256Hex::of(b"abc"));
        assert_eq!(String::from(inline), sha256_hex(b"abc"));
        assert_eq!(&*std::sync::Arc::<str>::from(inline), inline.as_str());
        assert_eq!(format!("{inline} {inline:?}"), format!("{0} \"{0}\"", hex(&digest)));
        assert_ne!(inline, Sha256Hex::of(b"abd"));
    }

    #[test]
    fn sha256_matches_a_known_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
