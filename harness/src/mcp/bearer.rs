//! `callproof mcp --bearer`: the token the profile sends as `Authorization: Bearer` on every HTTP request, the
//! broken copies of it that `mcp-auth-invalid-token` sends, and the redaction of all of them from the report.
//!
//! Rule enforced here: the token's text never reaches a report or a log. [`Bearer`]'s `Debug` hides it, and
//! [`Bearer::redact`] replaces it (and every broken copy, and a JWT's signature on its own) in any text a
//! finding carries, because a server may echo what it was sent. A broken copy is broken for certain: a
//! character is changed where it carries data (never a base64 padding bit), so no correct server accepts it.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// What a redacted token reads as in a report.
pub const REDACTED: &str = "<bearer>";

/// A bearer token given with `--bearer` or `--bearer-file`.
#[derive(Clone, PartialEq, Eq)]
pub struct Bearer(String);

impl std::fmt::Debug for Bearer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Bearer(<redacted>)")
    }
}

impl Bearer {
    /// The token as given on the command line or in a file (without the file's final line break).
    ///
    /// # Errors
    /// When it is empty, or holds a character an HTTP header cannot carry (a space, a control character,
    /// anything outside visible ASCII). The message never quotes the token.
    pub fn new(text: &str) -> Result<Bearer, String> {
        let text = text.strip_suffix('\n').unwrap_or(text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.is_empty() {
            return Err("the bearer token is empty".to_owned());
        }
        if let Some(at) = text.bytes().position(|byte| !(0x21..=0x7e).contains(&byte)) {
            return Err(format!(
                "the bearer token holds a character an HTTP header cannot carry at byte {at} (only visible ASCII, \
                 no spaces)"
            ));
        }
        Ok(Bearer(text.to_owned()))
    }

    /// The token's text, for the `Authorization` header only.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }

    /// Whether the token reads as a compact JWS (three base64url parts, the first a JSON header with `alg`).
    pub fn is_jwt(&self) -> bool {
        jwt_header(&self.0).is_some()
    }

    /// The token with one character changed: in a JWT, one of its signature; in any other token, one near its
    /// middle. The character is a letter or a digit replaced by another of its kind, never the last one of a
    /// base64 part (whose low bits may be padding a lenient decoder ignores), so the bytes it stands for change.
    /// `None` when the token has no letter or digit to change.
    pub fn tampered(&self) -> Option<String> {
        let (prefix, part) = match self.0.rsplit_once('.') {
            Some((input, signature)) if self.is_jwt() => (format!("{input}."), signature),
            _ => (String::new(), self.0.as_str()),
        };
        Some(format!("{prefix}{}", change_one(part)?))
    }

    /// A JWT re-encoded as an unsecured JWT (RFC 7519 §6): its header with `alg` set to `none`, its claims as
    /// they were, and an empty signature. `None` when the token is not a JWT.
    pub fn unsigned(&self) -> Option<String> {
        let mut header = jwt_header(&self.0)?;
        header.insert("alg".to_owned(), Value::String("none".to_owned()));
        let claims = self.0.split('.').nth(1)?;
        Some(format!("{}.{claims}.", URL_SAFE_NO_PAD.encode(Value::Object(header).to_string())))
    }

    /// `text` with the token, its broken copies and (a JWT) its signing input, its claims and its signature
    /// each replaced by [`REDACTED`]; the header alone is no secret (every HS256 token shares it) and is kept.
    pub fn redact(&self, text: &str) -> String {
        let mut secrets: Vec<String> = vec![self.0.clone()];
        secrets.extend(self.tampered());
        secrets.extend(self.unsigned());
        if self.is_jwt()
            && let Some((input, signature)) = self.0.rsplit_once('.')
        {
            // The parts a server's message may quote alone: the signing input, the claims, the signature.
            let claims = input.split_once('.').map_or("", |(_, claims)| claims);
            secrets.extend([input, claims, signature].into_iter().filter(|part| part.len() >= 16).map(str::to_owned));
        }
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.into_iter().fold(text.to_owned(), |text, secret| text.replace(&secret, REDACTED))
    }
}

/// The JSON header of a compact JWS: exactly three dot-separated parts, the first base64url of a JSON object
/// with a string `alg`.
fn jwt_header(token: &str) -> Option<serde_json::Map<String, Value>> {
    let parts: Vec<&str> = token.split('.').collect();
    let [header, _, _] = parts.as_slice() else { return None };
    let bytes = URL_SAFE_NO_PAD.decode(header.trim_end_matches('=')).ok()?;
    match serde_json::from_slice::<Value>(&bytes).ok()? {
        Value::Object(header) if header.get("alg").is_some_and(Value::is_string) => Some(header),
        _ => None,
    }
}

/// `part` with the letter or digit nearest its middle (the last character left out when there are others)
/// replaced by the next of its kind: `a`→`b`, `z`→`a`, `Z`→`A`, `9`→`0`. Case is kept, so a server comparing
/// without case still sees another token.
fn change_one(part: &str) -> Option<String> {
    let chars: Vec<char> = part.chars().collect();
    let last = chars.len().checked_sub(1)?;
    let candidates = if last == 0 { 0..=0 } else { 0..=last - 1 };
    let middle = last / 2;
    let at = candidates.filter(|&at| chars[at].is_ascii_alphanumeric()).min_by_key(|&at| (at.abs_diff(middle), at))?;
    let next = |c: char, first: u8, count: u8| char::from(first + (c as u8 - first + 1) % count);
    let mut changed = chars;
    changed[at] = match changed[at] {
        c @ 'a'..='z' => next(c, b'a', 26),
        c @ 'A'..='Z' => next(c, b'A', 26),
        c => next(c, b'0', 10),
    };
    Some(changed.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jwt(header: &Value, claims: &Value, signature: &[u8]) -> String {
        let encode = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
        format!("{}.{}.{}", encode(header), encode(claims), URL_SAFE_NO_PAD.encode(signature))
    }

    #[test]
    fn a_token_is_visible_ascii_and_its_debug_form_hides_it() {
        let bearer = Bearer::new("abc.def-123\n").expect("a token");
        assert_eq!(bearer.text(), "abc.def-123");
        assert_eq!(format!("{bearer:?}"), "Bearer(<redacted>)");
        assert!(Bearer::new("").is_err() && Bearer::new("\n").is_err());
        let error = Bearer::new("secret with space").expect_err("a space");
        assert!(error.contains("byte 6") && !error.contains("secret"), "{error}");
        assert!(Bearer::new("tok\u{e9}n").is_err());
    }

    #[test]
    fn a_jwt_loses_one_data_character_of_its_signature_and_keeps_its_header_and_claims() {
        let token = jwt(&json!({"alg": "HS256", "typ": "JWT"}), &json!({"sub": "u"}), &[7_u8; 32]);
        let bearer = Bearer::new(&token).expect("a token");
        assert!(bearer.is_jwt());
        let tampered = bearer.tampered().expect("tampered");
        let (input, signature) = token.rsplit_once('.').expect("three parts");
        let (tampered_input, tampered_signature) = tampered.rsplit_once('.').expect("three parts");
        assert_eq!(input, tampered_input);
        let decoded = |text: &str| URL_SAFE_NO_PAD.decode(text).expect("base64url");
        assert_ne!(decoded(signature), decoded(tampered_signature), "the signature's bytes changed");
        assert_eq!(signature.len(), tampered_signature.len());
        assert_eq!(signature.chars().last(), tampered_signature.chars().last(), "the padding character is kept");
    }

    #[test]
    fn the_unsigned_copy_says_alg_none_keeps_the_claims_and_has_an_empty_signature() {
        let token = jwt(&json!({"alg": "RS256", "kid": "k1"}), &json!({"sub": "u", "exp": 9}), b"sig-bytes");
        let unsigned = Bearer::new(&token).expect("a token").unsigned().expect("a JWT");
        let parts: Vec<&str> = unsigned.split('.').collect();
        assert_eq!(parts.len(), 3, "{unsigned}");
        let header: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).expect("b64")).expect("JSON");
        assert_eq!(header, json!({"alg": "none", "kid": "k1"}));
        assert_eq!(parts[1], token.split('.').nth(1).expect("claims"));
        assert_eq!(parts[2], "");
    }

    #[test]
    fn an_opaque_token_is_changed_near_its_middle_in_kind_and_has_no_unsigned_copy() {
        let bearer = Bearer::new("ghp_0123456789abcdefXYZ=").expect("a token");
        assert!(!bearer.is_jwt() && bearer.unsigned().is_none());
        let tampered = bearer.tampered().expect("tampered");
        assert_eq!(tampered.len(), 24);
        let changed: Vec<(char, char)> =
            "ghp_0123456789abcdefXYZ=".chars().zip(tampered.chars()).filter(|(a, b)| a != b).collect();
        assert_eq!(changed, vec![('7', '8')], "{tampered}");
        // Two dots but no JSON header: opaque, changed in the middle.
        assert!(!Bearer::new("a.b.c").expect("a token").is_jwt());
        assert_eq!(Bearer::new("z").expect("a token").tampered().as_deref(), Some("a"));
        assert_eq!(Bearer::new("A9").expect("a token").tampered().as_deref(), Some("B9"));
        assert_eq!(Bearer::new("--~~").expect("a token").tampered(), None, "no letter or digit");
    }

    #[test]
    fn redaction_removes_the_token_its_copies_and_its_signature_wherever_they_are_echoed() {
        let token = jwt(&json!({"alg": "HS256"}), &json!({"sub": "u_alice", "tenant_id": "t_acme"}), &[42_u8; 32]);
        let bearer = Bearer::new(&token).expect("a token");
        let signature = token.rsplit_once('.').expect("parts").1;
        let (input, _) = token.rsplit_once('.').expect("parts");
        let (header, claims) = input.split_once('.').expect("parts");
        let text = format!(
            "got {token}; then {}; then {}; sig {signature}; quoted {input}.; claims {claims}",
            bearer.tampered().expect("t"),
            bearer.unsigned().expect("u")
        );
        let redacted = bearer.redact(&text);
        assert_eq!(
            redacted,
            "got <bearer>; then <bearer>; then <bearer>; sig <bearer>; quoted <bearer>.; claims <bearer>"
        );
        assert_eq!(bearer.redact(header), header, "the header alone is kept");
        assert_eq!(Bearer::new("opaque-1").expect("t").redact("x opaque-1 y"), "x <bearer> y");
    }
}
