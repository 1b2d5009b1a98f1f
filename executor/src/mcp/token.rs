//! The bearer token of an MCP call over HTTP: an HS256 JWT as docs/mcp.md defines it ("The trusted context over
//! HTTP"), verified before the request's body is read.
//!
//! Rule enforced here: a token is accepted only when its header says `alg: HS256` (no other algorithm, `none`
//! least of all, and no `crit`), its HMAC-SHA256 signature over the first two parts verifies in constant time
//! with the key, `iss` is `callproof`, `aud` names this server's URL exactly, `exp` is in the future (no
//! leeway) and `sub` and `tenant_id` are present. The identity the executor sees is built from the claims only.

use crate::auth::{Approval, AuthContext, Identity};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::Deserialize;
use serde_json::Value;
use sha2::Sha256;
use std::collections::BTreeSet;

/// The only issuer a token may name.
pub const ISSUER: &str = "callproof";

/// Why a request's token was refused; every one is an HTTP 401.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// No `Authorization: Bearer` header.
    #[error("no bearer token")]
    Missing,
    /// Not three base64url parts, or a part that is not the JSON it must be.
    #[error("the token is malformed: {0}")]
    Malformed(&'static str),
    /// The header names another algorithm than HS256.
    #[error("the token's alg is not HS256")]
    Algorithm,
    /// The signature does not verify with the key.
    #[error("the token's signature does not verify")]
    Signature,
    /// `exp` is not in the future.
    #[error("the token expired")]
    Expired,
    /// `iss` is not [`ISSUER`].
    #[error("the token's iss is not \"callproof\"")]
    Issuer,
    /// `aud` does not name this server.
    #[error("the token's aud does not name this server")]
    Audience,
    /// A claim the server needs is missing or of the wrong type.
    #[error("the token's claims are not usable: {0}")]
    Claims(String),
}

impl TokenError {
    /// The `WWW-Authenticate` value of the 401 (RFC 6750 §3: no error code when no token was sent).
    pub fn www_authenticate(&self) -> String {
        match self {
            TokenError::Missing => "Bearer".to_owned(),
            other => format!("Bearer error=\"invalid_token\", error_description=\"{other}\""),
        }
    }
}

/// What a verified token says.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// The caller's identity, from the claims only.
    pub auth: AuthContext,
    /// `cp_downstream_url`, for a server the harness did not start (`--mcp-url`).
    pub downstream_url: Option<String>,
    /// `cp_session`, likewise.
    pub session: Option<String>,
}

/// The claims a token must or may carry; other claims (`iat`, `jti`, `nbf`) are not read.
#[derive(Deserialize)]
struct Claims {
    iss: Option<String>,
    aud: Option<Value>,
    sub: Option<String>,
    exp: Option<u64>,
    tenant_id: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    roles: BTreeSet<String>,
    #[serde(default)]
    allowed_tools: Option<BTreeSet<String>>,
    #[serde(default)]
    approval: Option<Approval>,
    #[serde(default)]
    cp_downstream_url: Option<String>,
    #[serde(default)]
    cp_session: Option<String>,
}

/// Verifies tokens for one server: its key and its URL (the audience).
#[derive(Clone)]
pub struct Verifier {
    key: Vec<u8>,
    audience: String,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Verifier").field("audience", &self.audience).finish_non_exhaustive()
    }
}

impl Verifier {
    /// A verifier with the HMAC key `key` (the UTF-8 bytes of `CALLPROOF_TOKEN_KEY`, not decoded) for the
    /// server at `audience`.
    pub fn new(key: &[u8], audience: &str) -> Verifier {
        Verifier { key: key.to_vec(), audience: audience.to_owned() }
    }

    /// The identity of an `Authorization` header value at `now_ms` (Unix milliseconds).
    ///
    /// # Errors
    /// [`TokenError`] for a missing, malformed, forged, expired or misaddressed token.
    pub fn verify(&self, authorization: Option<&[u8]>, now_ms: u64) -> Result<Verified, TokenError> {
        let header = authorization.ok_or(TokenError::Missing)?;
        let header = std::str::from_utf8(header).map_err(|_| TokenError::Malformed("the header is not UTF-8"))?;
        let (scheme, token) = header.trim().split_once(' ').ok_or(TokenError::Missing)?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(TokenError::Missing);
        }
        let claims = self.signed_claims(token.trim())?;
        self.check(claims, now_ms)
    }

    /// The claims of a token whose header and signature verify.
    fn signed_claims(&self, token: &str) -> Result<Claims, TokenError> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed("not three parts"));
        };
        let header: Value = decode_json(header).ok_or(TokenError::Malformed("the header is not base64url JSON"))?;
        if header.get("alg") != Some(&Value::from("HS256")) || header.get("crit").is_some() {
            return Err(TokenError::Algorithm);
        }
        let signature =
            URL_SAFE_NO_PAD.decode(signature).map_err(|_| TokenError::Malformed("the signature is not base64url"))?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).map_err(|_| TokenError::Signature)?;
        mac.update(&token.as_bytes()[..header_and_payload_len(token)]);
        mac.verify_slice(&signature).map_err(|_| TokenError::Signature)?;
        let claims: Value = decode_json(payload).ok_or(TokenError::Malformed("the claims are not base64url JSON"))?;
        Claims::deserialize(claims).map_err(|error| TokenError::Claims(error.to_string()))
    }

    /// The identity of signed claims, once `iss`, `aud`, `exp`, `sub` and `tenant_id` are as they must be.
    fn check(&self, claims: Claims, now_ms: u64) -> Result<Verified, TokenError> {
        if claims.iss.as_deref() != Some(ISSUER) {
            return Err(TokenError::Issuer);
        }
        let addressed = match &claims.aud {
            Some(Value::String(audience)) => *audience == self.audience,
            Some(Value::Array(audiences)) => audiences.iter().any(|audience| *audience == self.audience.as_str()),
            _ => false,
        };
        if !addressed {
            return Err(TokenError::Audience);
        }
        let exp = claims.exp.ok_or_else(|| TokenError::Claims("no exp".to_owned()))?;
        let expires_at_ms = exp.saturating_mul(1000);
        if now_ms >= expires_at_ms {
            return Err(TokenError::Expired);
        }
        let subject = claims.sub.ok_or_else(|| TokenError::Claims("no sub".to_owned()))?;
        let tenant = claims.tenant_id.ok_or_else(|| TokenError::Claims("no tenant_id".to_owned()))?;
        let scope = claims.scope.unwrap_or_default();
        let auth = AuthContext {
            subject_id: subject,
            tenant_id: tenant,
            scopes: scope.split(' ').filter(|scope| !scope.is_empty()).map(str::to_owned).collect(),
            roles: claims.roles,
            identity: Identity { valid: true, expires_at_ms: Some(expires_at_ms) },
            allowed_tools: claims.allowed_tools,
            approval: claims.approval,
        };
        Ok(Verified { auth, downstream_url: claims.cp_downstream_url, session: claims.cp_session })
    }
}

/// The length of `header.payload`, the signed part of a token of three parts.
fn header_and_payload_len(token: &str) -> usize {
    token.rfind('.').unwrap_or(0)
}

/// A base64url part as JSON.
fn decode_json(part: &str) -> Option<Value> {
    let bytes = URL_SAFE_NO_PAD.decode(part).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Mints a token (for tests and fuzzing): `header.claims.signature` with HS256 and `key`.
pub fn sign(key: &[u8], header: &Value, claims: &Value) -> String {
    let signed =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    // HMAC accepts a key of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC takes any key"));
    mac.update(signed.as_bytes());
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests;
