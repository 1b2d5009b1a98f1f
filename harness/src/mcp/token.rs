//! The bearer token of a `tools/call` over HTTP (docs/mcp.md, "The trusted context over HTTP"): an HS256 JWT per
//! call carrying the caller's identity as signed claims.
//!
//! Rule enforced here: the identity reaches a server over HTTP only in a token signed with the run's key (the
//! UTF-8 bytes of its text, used as is), a fresh one per call; the scenario's identity states become the token's
//! states (`identity.valid = false`: signed with another random key, or with the run's key for another server, by
//! another issuer, or with HS512; an expiry: `exp` from it), never a flag a server could read and ignore.

use crate::subject::SubjectCall;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// The token's `iss`.
pub const ISSUER: &str = "callproof";

/// How long a token lives when the scenario gives its identity no expiry.
const LIFETIME_S: u64 = 300;

/// The `aud` of a token minted for another server: signed with the run's key, so only the audience check
/// refuses it (docs/mcp.md: "a token for one server is refused by another").
pub const FOREIGN_AUDIENCE: &str = "https://another-server.invalid/mcp";

/// The `iss` of a token from another issuer: signed with the run's key, so only the issuer check refuses it
/// (docs/mcp.md: a server verifies `iss`).
pub const FOREIGN_ISSUER: &str = "https://another-issuer.invalid";

/// The ways a token for an invalid identity fails, in the order a run's invalid identities take them: each is
/// refused by one verification step alone, so a server must make every step to refuse them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Invalid {
    /// Signed with a fresh random key.
    Signature,
    /// The run's key, for [`FOREIGN_AUDIENCE`].
    Audience,
    /// The run's key, from [`FOREIGN_ISSUER`].
    Issuer,
    /// The run's key, with HS512 (`alg` in the header): docs/mcp.md accepts HS256 only.
    Algorithm,
}

impl Invalid {
    const TURNS: [Invalid; 4] = [Invalid::Signature, Invalid::Audience, Invalid::Issuer, Invalid::Algorithm];
}

/// An HS256 key: 43 characters of base64url (32 random bytes) when the harness makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key(String);

impl Key {
    /// A fresh random key.
    ///
    /// # Errors
    /// When the operating system gives no randomness.
    pub fn generate() -> Result<Key, String> {
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes).map_err(|error| format!("no randomness for the token key: {error}"))?;
        Ok(Key(URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// The key given as text (`--mcp-token-key-file`): the text without its final line break.
    ///
    /// # Errors
    /// When the text is empty.
    pub fn from_text(text: &str) -> Result<Key, String> {
        let text = text.strip_suffix('\n').unwrap_or(text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if text.is_empty() {
            return Err("the token key is empty".to_owned());
        }
        Ok(Key(text.to_owned()))
    }

    /// The key's text, as `CALLPROOF_TOKEN_KEY` carries it.
    pub fn text(&self) -> &str {
        &self.0
    }
}

/// What the token says beyond the call's identity: where it is for, and (`--mcp-url` only) the scenario's
/// downstream and session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audience {
    /// The MCP endpoint URL exactly as the harness calls it.
    pub url: String,
    /// `cp_downstream_url` and `cp_session`, for a server the harness did not start.
    pub fixture: Option<(String, String)>,
}

/// Mints tokens for one run: the key, and a counter for `jti`.
#[derive(Debug)]
pub struct Minter {
    key: Key,
    run: String,
    issued: AtomicU64,
    /// Tokens minted for invalid identities so far: they take turns between the ways a token fails.
    invalid: AtomicU64,
}

impl Minter {
    /// A minter signing with `key`.
    pub fn new(key: Key) -> Minter {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
        let run = format!("{:x}{:x}", std::process::id(), nanos % 0xffff_ffff);
        Minter { key, run, issued: AtomicU64::new(1), invalid: AtomicU64::new(0) }
    }

    /// The key.
    pub fn key(&self) -> &Key {
        &self.key
    }

    /// The token of `call`, issued at `now_s` (Unix seconds): signed with the run's key. When the scenario says
    /// the identity is not valid, the run's invalid identities take turns: the first is signed with a fresh
    /// random key (a bad signature), the next with the run's key for [`FOREIGN_AUDIENCE`] (a token for another
    /// server), the third from [`FOREIGN_ISSUER`], the fourth with HS512, and so on, so a server must check the
    /// signature, the audience, the issuer and the algorithm to refuse every one.
    ///
    /// # Errors
    /// When no random key can be made for an invalid identity.
    pub fn token(&self, call: &SubjectCall, audience: &Audience, now_s: u64) -> Result<String, String> {
        let jti = format!("cp-{}-{}", self.run, self.issued.fetch_add(1, Ordering::Relaxed));
        let mut claims = claims(call, audience, now_s, &jti);
        if call.auth.identity.valid {
            return Ok(sign(self.key.text().as_bytes(), &claims));
        }
        let turn = self.invalid.fetch_add(1, Ordering::Relaxed) as usize % Invalid::TURNS.len();
        let key = self.key.text().as_bytes();
        Ok(match Invalid::TURNS[turn] {
            Invalid::Signature => sign(Key::generate()?.text().as_bytes(), &claims),
            Invalid::Audience => {
                claims["aud"] = json!(FOREIGN_AUDIENCE);
                sign(key, &claims)
            }
            Invalid::Issuer => {
                claims["iss"] = json!(FOREIGN_ISSUER);
                sign(key, &claims)
            }
            Invalid::Algorithm => sign_hs512(key, &claims),
        })
    }
}

/// How many tokens a [`Given`] keeps (each a few hundred bytes).
const KEPT_GIVEN: usize = 4096;

/// The tokens one scenario's server was given, oldest first (the first [`KEPT_GIVEN`]): no answer or notification
/// may carry one back (`no-secret-leak`). Cloning shares the list.
#[derive(Debug, Clone, Default)]
pub struct Given(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Given {
    /// Keeps `token`, while there is room.
    pub fn keep(&self, token: &str) {
        let mut given = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if given.len() < KEPT_GIVEN {
            given.push(token.to_owned());
        }
    }

    /// The tokens kept so far.
    pub fn kept(&self) -> Vec<String> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// The claims docs/mcp.md defines for `call`.
pub fn claims(call: &SubjectCall, audience: &Audience, now_s: u64, jti: &str) -> Value {
    let auth = &call.auth;
    let exp = auth.identity.expires_at_ms.map_or(now_s + LIFETIME_S, |expires_at_ms| expires_at_ms / 1000);
    let scope: Vec<&str> = auth.scopes.iter().map(String::as_str).collect();
    let mut claims = Map::new();
    claims.insert("iss".into(), json!(ISSUER));
    claims.insert("aud".into(), json!(audience.url));
    claims.insert("sub".into(), json!(auth.subject_id));
    claims.insert("iat".into(), json!(now_s));
    claims.insert("exp".into(), json!(exp));
    claims.insert("jti".into(), json!(jti));
    claims.insert("scope".into(), json!(scope.join(" ")));
    claims.insert("tenant_id".into(), json!(auth.tenant_id));
    claims.insert("roles".into(), json!(auth.roles));
    if let Some(tools) = &auth.allowed_tools {
        claims.insert("allowed_tools".into(), json!(tools));
    }
    if let Some(approval) = &auth.approval {
        claims.insert("approval".into(), serde_json::to_value(approval).unwrap_or(Value::Null));
    }
    if let Some((downstream, session)) = &audience.fixture {
        claims.insert("cp_downstream_url".into(), json!(downstream));
        claims.insert("cp_session".into(), json!(session));
    }
    Value::Object(claims)
}

/// A compact JWS (RFC 7515 §7.1) with header `{"alg":"HS256","typ":"JWT"}` over `claims`, signed with `key`.
pub fn sign(key: &[u8], claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let input = format!("{header}.{payload}");
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(hs256(key, input.as_bytes())))
}

/// The same JWS with `{"alg":"HS512","typ":"JWT"}`, signed with HMAC-SHA-512: a token a server that pins HS256
/// refuses, whatever its key.
fn sign_hs512(key: &[u8], claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS512","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let input = format!("{header}.{payload}");
    let signature = match hmac::Hmac::<sha2::Sha512>::new_from_slice(key) {
        Ok(mut mac) => {
            mac.update(input.as_bytes());
            mac.finalize().into_bytes().to_vec()
        }
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
}

/// HMAC-SHA-256 (RFC 2104) of `message` under `key`.
fn hs256(key: &[u8], message: &[u8]) -> Vec<u8> {
    // Any key length is valid for HMAC (a longer one is hashed first), so this never fails.
    let mut mac = match hmac::Hmac::<sha2::Sha256>::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use callproof_executor::{Approval, AuthContext, ToolCall};
    use sha2::Digest;
    use std::time::Duration;

    /// HMAC-SHA-256 written out from RFC 2104 with the bare hash, to check the crate-based signer against.
    fn rfc2104(key: &[u8], message: &[u8]) -> Vec<u8> {
        let mut block = [0_u8; 64];
        if key.len() > 64 {
            block[..32].copy_from_slice(&sha2::Sha256::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let pad = |byte: u8| block.iter().map(|key| key ^ byte).collect::<Vec<u8>>();
        let inner = sha2::Sha256::digest([pad(0x36), message.to_vec()].concat());
        sha2::Sha256::digest([pad(0x5c), inner.to_vec()].concat()).to_vec()
    }

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).expect("base64url")).expect("JSON")
    }

    fn call(auth: AuthContext) -> SubjectCall {
        SubjectCall {
            call: ToolCall::raw("call_1", "refund_order", "{}"),
            auth,
            business_request_id: None,
            attempt: 1,
            budget: Duration::from_secs(1),
        }
    }

    #[test]
    fn the_signature_matches_rfc_7515s_hs256_example() {
        // RFC 7515 Appendix A.1: the key (a JWK `k`, base64url) and the signing input give this signature.
        let key = URL_SAFE_NO_PAD
            .decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
            .expect("the RFC's key");
        let input = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
        let signature = URL_SAFE_NO_PAD.encode(hs256(&key, input.as_bytes()));
        assert_eq!(signature, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    }

    #[test]
    fn a_key_is_its_text_without_the_line_end() {
        let key = Key::from_text("k3y-text_43-characters-long-not-decoded-00\n").expect("a key");
        assert_eq!(key.text(), "k3y-text_43-characters-long-not-decoded-00");
    }

    /// The key, a minter of it, the audience and alice's token, with roles, allowed tools and an approval.
    fn alices_token() -> (Key, Minter, Audience, String) {
        let key = Key::from_text("k3y-text_43-characters-long-not-decoded-00").expect("a key");
        let minter = Minter::new(key.clone());
        let mut auth = AuthContext::new("u_alice", "t_acme", &["refunds:write", "orders:read"]);
        auth.roles.insert("support".into());
        auth.allowed_tools = Some(["refund_order".to_owned()].into_iter().collect());
        auth.approval = Some(Approval {
            approval_id: "ap_1".into(),
            subject_id: "u_alice".into(),
            tenant_id: "t_acme".into(),
            tool: "refund_order".into(),
            arguments_hash: "h".into(),
            risk: callproof_executor::Risk::Financial,
            expires_at_ms: 2_000_000_000_000,
        });
        let audience = Audience { url: "http://127.0.0.1:4000/mcp".into(), fixture: None };
        let token = minter.token(&call(auth), &audience, 1_800_000_000).expect("a token");
        (key, minter, audience, token)
    }

    #[test]
    fn a_token_has_the_header_and_the_callers_claims() {
        let (key, _, _, token) = alices_token();
        assert_eq!(token.split('.').count(), 3, "{token}");
        let Read { header, claims, .. } = read(&token, &key);
        assert_eq!(header, json!({"alg": "HS256", "typ": "JWT"}));
        assert_eq!(claims["iss"], "callproof");
        assert_eq!(claims["aud"], "http://127.0.0.1:4000/mcp");
        assert_eq!(claims["sub"], "u_alice");
        assert_eq!(claims["tenant_id"], "t_acme");
        assert_eq!(claims["scope"], "orders:read refunds:write");
        assert_eq!(claims["roles"], json!(["support"]));
        assert_eq!(claims["allowed_tools"], json!(["refund_order"]));
        assert_eq!(claims["approval"]["approval_id"], "ap_1");
        assert_eq!((claims["iat"].as_u64(), claims["exp"].as_u64()), (Some(1_800_000_000), Some(1_800_000_300)));
        assert!(claims.get("cp_session").is_none(), "only for --mcp-url");
    }

    #[test]
    fn a_token_is_signed_over_header_and_claims_with_the_key_text_as_bytes() {
        let (key, _, _, token) = alices_token();
        let (input, signature) = token.rsplit_once('.').expect("three parts");
        let expected = rfc2104(key.text().as_bytes(), input.as_bytes());
        assert_eq!(URL_SAFE_NO_PAD.decode(signature).expect("base64url"), expected, "HMAC-SHA-256 with the text");
    }

    #[test]
    fn every_token_has_a_jti_of_its_own() {
        let (key, minter, audience, token) = alices_token();
        let first = read(&token, &key).claims["jti"].clone();
        assert!(first.as_str().is_some_and(|jti| !jti.is_empty()), "{first}");
        let again = minter.token(&call(AuthContext::new("u", "t", &[])), &audience, 1_800_000_000).expect("token");
        assert_ne!(read(&again, &key).claims["jti"], first, "a jti per token");
    }

    /// A token's header and claims, and whether its signature is the run key's HMAC-SHA-256 or HMAC-SHA-512.
    struct Read {
        header: Value,
        claims: Value,
        hs256_with: bool,
        hs512_with: bool,
    }

    fn read(token: &str, key: &Key) -> Read {
        let (input, signature) = token.rsplit_once('.').expect("three parts");
        let signature = URL_SAFE_NO_PAD.decode(signature).expect("base64url");
        let mut hs512 = hmac::Hmac::<sha2::Sha512>::new_from_slice(key.text().as_bytes()).expect("any key");
        hs512.update(input.as_bytes());
        let (header, claims) = input.split_once('.').expect("header and claims");
        Read {
            header: decode(header),
            claims: decode(claims),
            hs256_with: signature == rfc2104(key.text().as_bytes(), input.as_bytes()),
            hs512_with: signature == hs512.finalize().into_bytes().to_vec(),
        }
    }

    #[test]
    fn invalid_identities_take_turns_between_signature_audience_issuer_and_algorithm() {
        let key = Key::generate().expect("a key");
        assert_eq!(key.text().len(), 43, "32 bytes of base64url");
        let minter = Minter::new(key.clone());
        let audience = Audience { url: "http://h/mcp".into(), fixture: None };
        let mut auth = AuthContext::new("u", "t", &[]);
        auth.identity.valid = false;
        let next = || read(&minter.token(&call(auth.clone()), &audience, 1_000).expect("a token"), &key);
        let hs256 = json!({"alg": "HS256", "typ": "JWT"});
        // A bad signature: another key, the right audience and issuer.
        let signature = next();
        assert!(!signature.hs256_with && signature.header == hs256, "not the run's key");
        assert_eq!(
            (signature.claims["aud"].as_str(), signature.claims["iss"].as_str()),
            (Some("http://h/mcp"), Some(ISSUER))
        );
        // The run's key, for another server.
        let audience_turn = next();
        assert!(audience_turn.hs256_with, "the run's key");
        assert_eq!(audience_turn.claims["aud"], FOREIGN_AUDIENCE);
        // The run's key, from another issuer.
        let issuer = next();
        assert!(issuer.hs256_with, "the run's key");
        assert_eq!(
            (issuer.claims["iss"].as_str(), issuer.claims["aud"].as_str()),
            (Some(FOREIGN_ISSUER), Some("http://h/mcp"))
        );
        // The run's key with HS512, everything else right.
        let algorithm = next();
        assert_eq!(algorithm.header, json!({"alg": "HS512", "typ": "JWT"}));
        assert!(algorithm.hs512_with && !algorithm.hs256_with, "HMAC-SHA-512 with the run's key");
        assert_eq!(
            (algorithm.claims["iss"].as_str(), algorithm.claims["aud"].as_str()),
            (Some(ISSUER), Some("http://h/mcp"))
        );
        // And round again: the fifth is a bad signature.
        assert!(!next().hs256_with, "a bad signature again");
    }

    #[test]
    fn an_expiry_is_the_exp_and_a_fixture_goes_into_the_claims() {
        let key = Key::generate().expect("a key");
        let minter = Minter::new(key.clone());
        let audience =
            Audience { url: "http://h/mcp".into(), fixture: Some(("http://127.0.0.1:9".into(), "cp_1".into())) };
        let mut auth = AuthContext::new("u", "t", &[]);
        auth.identity.expires_at_ms = Some(500_999);
        let token = read(&minter.token(&call(auth), &audience, 1_000).expect("a token"), &key);
        assert!(token.hs256_with, "an expired identity is still the run's key");
        assert_eq!(token.claims["exp"], 500, "expires_at_ms / 1000, rounded down");
        assert_eq!(
            (token.claims["cp_downstream_url"].as_str(), token.claims["cp_session"].as_str()),
            (Some("http://127.0.0.1:9"), Some("cp_1"))
        );
    }
}
