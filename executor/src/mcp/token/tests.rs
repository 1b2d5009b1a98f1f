use super::*;
use serde_json::json;

const KEY: &[u8] = b"k3y-of-the-run_abcdefghijklmnopqrstuvwxyz01";
const URL: &str = "http://127.0.0.1:4000/mcp";
const NOW_MS: u64 = 1_800_000_000_000;

fn claims() -> Value {
    json!({"iss": "callproof", "aud": URL, "sub": "u_alice", "iat": 1_800_000_000u64, "exp": 1_800_000_300u64,
           "jti": "t1", "scope": "orders:read refunds:write", "tenant_id": "t_acme", "roles": ["support"]})
}

fn bearer(token: &str) -> Vec<u8> {
    format!("Bearer {token}").into_bytes()
}

fn verify(token: &str) -> Result<Verified, TokenError> {
    Verifier::new(KEY, URL).verify(Some(&bearer(token)), NOW_MS)
}

fn header() -> Value {
    json!({"alg": "HS256", "typ": "JWT"})
}

#[test]
fn a_good_token_gives_the_identity_of_its_claims() {
    let verified = verify(&sign(KEY, &header(), &claims())).expect("verifies");
    let auth = verified.auth;
    assert_eq!((auth.subject_id.as_str(), auth.tenant_id.as_str()), ("u_alice", "t_acme"));
    assert_eq!(auth.scopes.iter().map(String::as_str).collect::<Vec<_>>(), ["orders:read", "refunds:write"]);
    assert!(auth.roles.contains("support"));
    assert_eq!(auth.identity, Identity { valid: true, expires_at_ms: Some(1_800_000_300_000) });
    assert_eq!((verified.downstream_url, verified.session), (None, None));
}

#[test]
fn a_forged_signature_another_alg_or_a_broken_token_is_refused() {
    let good = sign(KEY, &header(), &claims());
    assert_eq!(verify(&sign(b"another key", &header(), &claims())), Err(TokenError::Signature));
    let (signed, _) = good.rsplit_once('.').expect("three parts");
    assert_eq!(verify(&format!("{signed}.")), Err(TokenError::Signature));
    let none = format!("{}.", sign(KEY, &json!({"alg": "none"}), &claims()).rsplit_once('.').expect("parts").0);
    assert_eq!(verify(&none), Err(TokenError::Algorithm));
    assert_eq!(verify(&sign(KEY, &json!({"alg": "HS512"}), &claims())), Err(TokenError::Algorithm));
    assert_eq!(verify(&sign(KEY, &json!({"alg": "HS256", "crit": ["x"]}), &claims())), Err(TokenError::Algorithm));
    assert!(matches!(verify("a.b"), Err(TokenError::Malformed(_))));
    assert!(matches!(verify(&format!("{good}.x")), Err(TokenError::Malformed(_))));
    let verifier = Verifier::new(KEY, URL);
    assert_eq!(verifier.verify(None, NOW_MS), Err(TokenError::Missing));
    assert_eq!(verifier.verify(Some(format!("Basic {good}").as_bytes()), NOW_MS), Err(TokenError::Missing));
    assert!(verifier.verify(Some(format!("bearer  {good} ").as_bytes()), NOW_MS).is_ok(), "scheme is case-blind");
}

#[test]
fn expiry_issuer_audience_and_required_claims_are_checked() {
    let with = |name: &str, value: Value| {
        let mut claims = claims();
        claims[name] = value;
        verify(&sign(KEY, &header(), &claims))
    };
    assert_eq!(with("exp", json!(NOW_MS / 1000)), Err(TokenError::Expired), "no leeway: exp == now is expired");
    assert!(with("exp", json!(NOW_MS / 1000 + 1)).is_ok());
    assert_eq!(with("iss", json!("someone")), Err(TokenError::Issuer));
    assert_eq!(with("aud", json!("http://127.0.0.1:4001/mcp")), Err(TokenError::Audience));
    assert!(with("aud", json!(["x", URL])).is_ok(), "an audience array naming this server");
    assert!(matches!(with("exp", json!("soon")), Err(TokenError::Claims(_))));
    assert!(matches!(with("sub", Value::Null), Err(TokenError::Claims(_))));
    assert!(matches!(with("tenant_id", Value::Null), Err(TokenError::Claims(_))));
    assert_eq!(TokenError::Missing.www_authenticate(), "Bearer");
    assert!(TokenError::Expired.www_authenticate().starts_with("Bearer error=\"invalid_token\""));
}
