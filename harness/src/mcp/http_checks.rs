//! The checks only Streamable HTTP has (docs/mcp.md, "Protocol errors and robustness"): a body the server cannot
//! accept gets a 4xx (`mcp-http-error-status`), a foreign `Origin` gets 403 (`mcp-http-origin`), session ids are
//! not guessable (`mcp-http-session-id`: the accepted POST sent again by two clients of their own), and with
//! `--bearer` a request without a token gets 401 and a Bearer challenge (`mcp-auth-required`), one with a
//! broken token 401 (`mcp-auth-invalid-token`).
//!
//! Rule enforced here: every probe is the `initialize` POST the server has just accepted, changed in one thing
//! only (or, for the error statuses, a body on the session that POST opened), so a correct server has one right
//! answer. When the server did not accept the unchanged POST, nothing is judged and the report says why, as it
//! does for the auth checks without `--bearer` and for every check here over stdio. A finding describes the
//! token, never quotes it.

use super::bearer::Bearer;
use super::checks::{self, Check};
use super::http::{Http, PostError, Posted};
use super::report::{self, Finding};
use super::subject::initialize_params;
use serde_json::{Value, json};
use std::time::Duration;

/// The `Origin` of `mcp-http-origin`: a web page no local server serves (`.invalid` never resolves, RFC 2606).
pub const FOREIGN_ORIGIN: &str = "http://attacker.invalid";

/// A body that is not JSON (the text of `mcp-parse-error`).
const NOT_JSON: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/list""#;

/// JSON that is not a valid request: `method` is a number (the text of `mcp-invalid-request`).
const NOT_A_REQUEST: &str = r#"{"jsonrpc":"2.0","id":8,"method":5}"#;

/// Longest answer a finding keeps.
const KEPT: usize = 4096;

/// The checks of this module, in report order.
const ALL: [Check; 5] = [
    checks::HTTP_ERROR_STATUS,
    checks::HTTP_ORIGIN,
    checks::HTTP_SESSION_ID,
    checks::AUTH_REQUIRED,
    checks::AUTH_INVALID_TOKEN,
];

/// How many characters two session ids must differ in at least: a counter or a clock changes one to a few.
const SESSION_ID_MIN_DIFFERENCE: usize = 8;

/// The fewest random bits a session id must be able to hold (OWASP's session management floor).
const SESSION_ID_MIN_BITS: usize = 64;

/// What the HTTP checks found, and the checks they could not judge with the reason.
#[derive(Debug, Default)]
pub struct Judged {
    /// One finding per probe.
    pub findings: Vec<Finding>,
    /// A check id and why it judged nothing.
    pub not_judged: Vec<(&'static str, String)>,
}

impl Judged {
    fn skip(&mut self, checks: &[Check], why: &str) {
        self.not_judged.extend(checks.iter().map(|check| (check.id, why.to_owned())));
    }

    fn found(
        &mut self,
        check: Check,
        (passed, why): (bool, String),
        request: String,
        answer: &Result<Posted, PostError>,
    ) {
        self.record(check, (passed, why), request, report::cut(&describe(answer), KEPT));
    }

    /// A finding of `check` for `request`, whose answer is described by `answer`.
    fn record(&mut self, check: Check, (passed, why): (bool, String), request: String, answer: String) {
        let (request, answer) = (Some(request), Some(answer));
        self.findings.push(Finding { check: check.id, passed, inconclusive: false, tool: None, why, request, answer });
    }
}

/// Over stdio: every HTTP check is listed as not judged.
pub fn over_stdio() -> Judged {
    let mut judged = Judged::default();
    judged.skip(&ALL, "an HTTP-only check, and the server is spoken to over stdio (--url judges it)");
    judged
}

/// Probes `url`: an `initialize` with `bearer` (the control), then the changed copies of it, every request
/// bounded by `timeout`.
pub async fn over_http(url: &str, bearer: Option<&Bearer>, timeout: Duration) -> Judged {
    let mut judged = Judged::default();
    let token = bearer.map(Bearer::text);
    let with = if bearer.is_some() { "Authorization: Bearer <--bearer>" } else { "no Authorization" };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params()});
    let initialize = initialize.to_string();
    let session = match Http::new(url, timeout) {
        Ok(http) => http,
        Err(why) => {
            judged.skip(&ALL, &why);
            return judged;
        }
    };
    let opened = session.post(&initialize, token).await;
    if !answered_with_result(&opened) {
        let hint = if bearer.is_none() { "; a server that needs a token gets one with --bearer" } else { "" };
        let why = format!("the initialize POST ({with}) was not accepted: {}{hint}", describe(&opened));
        judged.skip(&ALL, &why);
        return judged;
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let _ = session.post(&initialized, token).await;
    for (body, what) in [(NOT_JSON, "a body that is not JSON"), (NOT_A_REQUEST, "a body that is not a valid request")] {
        let posted = session.post(body, token).await;
        let request = format!("POST {url} ({with}, on its session) {body}");
        judged.found(checks::HTTP_ERROR_STATUS, error_status(what, &posted), request, &posted);
    }
    session_ids(&mut judged, &session, timeout, &initialize, token).await;
    let posted = fresh(url, timeout, &initialize, token, &[("Origin", FOREIGN_ORIGIN)]).await;
    let request = format!("POST {url} (Origin: {FOREIGN_ORIGIN}, {with}) {initialize}");
    judged.found(checks::HTTP_ORIGIN, origin(&posted), request, &posted);
    match bearer {
        Some(bearer) => {
            tokens(&mut judged, url, bearer, timeout, &initialize).await;
            other_methods(&mut judged, &session).await;
        }
        None => {
            let why = "no --bearer: without a token the server accepts, a refused request proves nothing";
            judged.skip(&[checks::AUTH_REQUIRED, checks::AUTH_INVALID_TOKEN], why);
        }
    }
    judged
}

/// Two more sessions opened with the `initialize` the server accepted on `session`, and the three ids judged
/// ([`session_id_problem`]). A server that gives no session id is not judged: sessions are optional.
async fn session_ids(judged: &mut Judged, session: &Http, timeout: Duration, initialize: &str, token: Option<&str>) {
    let Some(first) = session.session() else {
        judged.skip(&[checks::HTTP_SESSION_ID], "the server gave no Mcp-Session-Id (sessions are optional)");
        return;
    };
    let mut ids = vec![first];
    for _ in 0..2 {
        let Ok(other) = Http::new(session.url(), timeout) else { break };
        if answered_with_result(&other.post(initialize, token).await) {
            ids.extend(other.session());
        }
    }
    let request = format!("POST {} {initialize}, three times, each by a client of its own", session.url());
    let answer = format!("Mcp-Session-Id: {}", ids.join(", "));
    let verdict = if ids.len() < 3 {
        (true, format!("only {} of three initialize POSTs gave a session id", ids.len()))
    } else if let Some(problem) = session_id_problem(&ids) {
        (false, problem)
    } else {
        (true, "three different session ids, none guessable from another".to_owned())
    };
    judged.record(checks::HTTP_SESSION_ID, verdict, request, report::cut(&answer, KEPT));
}

/// What is wrong with these session ids, if anything: a character outside visible ASCII (the spec's MUST), an
/// id too short to hold [`SESSION_ID_MIN_BITS`] random bits at its alphabet (4 bits a character for hex, 6
/// otherwise), two ids alike, or two differing in fewer than [`SESSION_ID_MIN_DIFFERENCE`] characters (compared
/// position by position, each character of the longer one's excess counting as a difference): a counter, a
/// clock or a prefix with a few random characters. A random UUID, a ULID, a time-ordered UUIDv7 and a JWT
/// differ in far more.
fn session_id_problem(ids: &[String]) -> Option<String> {
    if let Some(id) = ids.iter().find(|id| !id.bytes().all(|byte| (0x21..=0x7e).contains(&byte))) {
        return Some(format!("the session id {id:?} has a character outside visible ASCII (0x21 to 0x7E)"));
    }
    for id in ids {
        let per_character = if id.bytes().all(|byte| byte.is_ascii_hexdigit()) { 4 } else { 6 };
        if id.len() * per_character < SESSION_ID_MIN_BITS {
            return Some(format!(
                "the session id {id:?} is too short to hold {SESSION_ID_MIN_BITS} random bits ({} characters), so \
                 it can be guessed",
                id.len()
            ));
        }
    }
    for (index, first) in ids.iter().enumerate() {
        for second in &ids[index + 1..] {
            let differing =
                first.bytes().zip(second.bytes()).filter(|(a, b)| a != b).count() + first.len().abs_diff(second.len());
            if differing < SESSION_ID_MIN_DIFFERENCE {
                let alike = if differing == 0 { "the same" } else { "guessable from each other" };
                return Some(format!(
                    "two sessions got {alike} ids, {first:?} and {second:?}, differing in {differing} characters"
                ));
            }
        }
    }
    None
}

/// The auth probes: `initialize` without a token, then with each broken copy of `bearer`.
async fn tokens(judged: &mut Judged, url: &str, bearer: &Bearer, timeout: Duration, initialize: &str) {
    let posted = fresh(url, timeout, initialize, None, &[]).await;
    let request = format!("POST {url} (no Authorization) {initialize}");
    judged.found(checks::AUTH_REQUIRED, auth_required(&posted), request, &posted);
    let what = if bearer.is_jwt() {
        "the token with one character of its signature changed"
    } else {
        "the token (not a JWT) with one character near its middle changed"
    };
    let broken =
        [(bearer.tampered(), what), (bearer.unsigned(), "the token re-encoded with alg none and no signature")];
    if broken.iter().all(|(token, _)| token.is_none()) {
        judged.skip(&[checks::AUTH_INVALID_TOKEN], "the token is not a JWT and has no letter or digit to change");
    }
    for (broken, what) in broken {
        let Some(broken) = broken else { continue };
        let posted = fresh(url, timeout, initialize, Some(&broken), &[]).await;
        let request = format!("POST {url} (Authorization: Bearer <{what}>) {initialize}");
        judged.found(checks::AUTH_INVALID_TOKEN, invalid_token(what, &posted), request, &posted);
    }
}

/// A GET and a DELETE without a token on the session the valid token opened: neither is served (no 2xx). A
/// server that checks the token on POST only hands an event stream of the session, or its end, to anyone who
/// knows its id. The DELETE goes last: a server that serves it ends the session.
async fn other_methods(judged: &mut Judged, session: &Http) {
    let url = session.url();
    let on = if session.session().is_some() { "on its session" } else { "no session was given" };
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let status = session.untokened(method.clone()).await;
        let request = format!("{method} {url} (no Authorization, {on})");
        let (passed, why) = match &status {
            Ok(status @ 200..=299) => {
                (false, format!("{method} without a token was served: HTTP {status} (only the POST asks for one)"))
            }
            Ok(status) => (true, format!("{method} without a token answered HTTP {status}")),
            Err(error) => (true, format!("{method} without a token got no answer ({error})")),
        };
        let answer = match status {
            Ok(status) => format!("HTTP {status}"),
            Err(error) => error.to_string(),
        };
        judged.record(checks::AUTH_REQUIRED, (passed, why), request, answer);
    }
}

/// `line` POSTed by a client of its own, so no session header: an `initialize` needs none, and a server that
/// checks the session before the token or the `Origin` still has one thing only to refuse.
async fn fresh(
    url: &str,
    timeout: Duration,
    line: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
) -> Result<Posted, PostError> {
    let http = Http::new(url, timeout).map_err(|why| PostError::Connection { url: url.to_owned(), why })?;
    http.post_with(line, token, headers).await
}

/// Whether the POST was answered 2xx with a result (the control every probe is a changed copy of).
fn answered_with_result(posted: &Result<Posted, PostError>) -> bool {
    posted.as_ref().is_ok_and(|posted| posted.success() && has_result(posted))
}

fn has_result(posted: &Posted) -> bool {
    posted.messages.iter().any(|message| message.get("result").is_some())
}

/// The first JSON-RPC error code among the answer's messages.
fn error_code(posted: &Posted) -> Option<i64> {
    posted.messages.iter().find_map(|message| message.get("error")?.get("code")?.as_i64())
}

/// A body the server cannot accept: a 4xx passes, and so does a 2xx whose body is a JSON-RPC error and no
/// result (refused in JSON-RPC; 2025-11-25 names the HTTP error status only for notifications and responses,
/// so holding a request-shaped body to a 4xx would fail a server the text allows). A 2xx with a result or
/// nothing, a 5xx, anything else or no answer fails.
fn error_status(what: &str, posted: &Result<Posted, PostError>) -> (bool, String) {
    let posted = match posted {
        Ok(posted) => posted,
        Err(error) => return (false, format!("{what}: {error}, not a refusal")),
    };
    let status = posted.status;
    match status {
        400..=499 => (true, format!("{what}: answered HTTP {status}")),
        200..=299 => match error_code(posted) {
            Some(code) if !has_result(posted) => (
                true,
                format!(
                    "{what}: answered HTTP {status} with error {code} (refused in JSON-RPC; a 4xx is what both SDKs send)"
                ),
            ),
            _ if has_result(posted) => (false, format!("{what}: answered HTTP {status} with a result, not a refusal")),
            _ => (false, format!("{what}: answered HTTP {status} with no JSON-RPC error, not a refusal")),
        },
        500..=599 => (false, format!("{what}: answered HTTP {status}, a server error, not a 4xx refusal")),
        _ => (false, format!("{what}: answered HTTP {status}, not a 4xx")),
    }
}

/// A foreign `Origin`: 403 without a result passes; a result, whatever the status, means it was executed.
fn origin(posted: &Result<Posted, PostError>) -> (bool, String) {
    match posted {
        Err(error) => (false, format!("{error}, not 403")),
        Ok(posted) if has_result(posted) => (
            false,
            format!(
                "answered HTTP {} with an initialize result: a request from a foreign web page is executed (DNS \
                 rebinding)",
                posted.status
            ),
        ),
        Ok(posted) if posted.status == 403 => (true, "answered 403".to_owned()),
        Ok(posted) => (false, format!("answered HTTP {}, not 403", posted.status)),
    }
}

/// No `Authorization`: 401 with a Bearer challenge passes.
fn auth_required(posted: &Result<Posted, PostError>) -> (bool, String) {
    match posted {
        Err(error) => (false, format!("{error}, not 401")),
        Ok(posted) if has_result(posted) => {
            (false, format!("answered HTTP {} with an initialize result: served without a token", posted.status))
        }
        Ok(posted) if posted.status != 401 => (false, format!("answered HTTP {}, not 401", posted.status)),
        Ok(posted) => match posted.authenticate.as_deref() {
            Some(challenges) if bearer_challenge(challenges) => {
                (true, "answered 401 with a Bearer challenge".to_owned())
            }
            Some(challenges) => {
                (false, format!("answered 401 with WWW-Authenticate: {challenges}, no Bearer challenge"))
            }
            None => {
                (false, "answered 401 without a WWW-Authenticate header (RFC 6750 §3: a Bearer challenge)".to_owned())
            }
        },
    }
}

/// A broken token: 401 passes.
fn invalid_token(what: &str, posted: &Result<Posted, PostError>) -> (bool, String) {
    match posted {
        Err(error) => (false, format!("{what}: {error}, not 401")),
        Ok(posted) if has_result(posted) => {
            (false, format!("{what}: accepted (HTTP {} with an initialize result)", posted.status))
        }
        Ok(posted) if posted.status == 401 => (true, format!("{what}: answered 401")),
        Ok(posted) => (false, format!("{what}: answered HTTP {}, not 401", posted.status)),
    }
}

/// Whether a `WWW-Authenticate` value holds a challenge of the Bearer scheme (RFC 9110 §11.6.1: schemes are
/// case-insensitive; a challenge starts with its scheme, followed by a space or nothing, where an auth-param
/// is followed by `=`).
fn bearer_challenge(value: &str) -> bool {
    value.split(',').any(|piece| {
        let piece = piece.trim_start();
        let scheme: String = piece.chars().take_while(|c| c.is_ascii_alphanumeric() || "-._~+/".contains(*c)).collect();
        let rest = &piece[scheme.len()..];
        scheme.eq_ignore_ascii_case("bearer") && (rest.is_empty() || rest.starts_with(' '))
    })
}

/// What came back, for a report: the status, the challenge, the messages or the body.
fn describe(posted: &Result<Posted, PostError>) -> String {
    let posted = match posted {
        Ok(posted) => posted,
        Err(error) => return format!("({error})"),
    };
    let challenge =
        posted.authenticate.as_ref().map(|value| format!(", WWW-Authenticate: {value}")).unwrap_or_default();
    let body = if !posted.messages.is_empty() {
        posted.messages.iter().map(Value::to_string).collect::<Vec<_>>().join(" ")
    } else if posted.body.is_empty() {
        "an empty body".to_owned()
    } else {
        posted.body.clone()
    };
    format!("(HTTP {}{challenge}) {body}", posted.status)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posted(status: u16, messages: Vec<Value>, authenticate: Option<&str>) -> Result<Posted, PostError> {
        let authenticate = authenticate.map(str::to_owned);
        Ok(Posted { status, messages, body: String::new(), authenticate })
    }

    fn result() -> Vec<Value> {
        vec![json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}})]
    }

    fn error(code: i64) -> Vec<Value> {
        vec![json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": "m"}})]
    }

    #[test]
    fn a_body_the_server_cannot_accept_passes_with_a_4xx_or_a_json_rpc_error_only() {
        assert_eq!(error_status("x", &posted(400, error(-32700), None)), (true, "x: answered HTTP 400".to_owned()));
        assert!(error_status("x", &posted(415, vec![], None)).0);
        let (passed, why) = error_status("x", &posted(200, error(-32600), None));
        assert!(passed && why.contains("with error -32600"), "{why}");
        let (passed, why) = error_status("x", &posted(200, result(), None));
        assert!(!passed && why.contains("with a result"), "{why}");
        let (passed, why) = error_status("x", &posted(202, vec![], None));
        assert!(!passed && why.contains("no JSON-RPC error"), "{why}");
        let (passed, why) = error_status("x", &posted(500, vec![], None));
        assert!(!passed && why.contains("a server error"), "{why}");
        let (passed, why) = error_status("x", &Err(PostError::Timeout(1000)));
        assert!(!passed && why.contains("no answer within 1000 ms"), "{why}");
        assert!(!error_status("x", &posted(302, vec![], None)).0);
    }

    #[test]
    fn a_foreign_origin_passes_with_403_and_fails_when_executed_whatever_the_status() {
        assert_eq!(origin(&posted(403, error(-32600), None)), (true, "answered 403".to_owned()));
        let (passed, why) = origin(&posted(200, result(), None));
        assert!(!passed && why.contains("executed"), "{why}");
        assert!(!origin(&posted(403, result(), None)).0, "403 with a result was still executed");
        assert_eq!(origin(&posted(400, vec![], None)), (false, "answered HTTP 400, not 403".to_owned()));
    }

    #[test]
    fn no_token_passes_with_401_and_a_bearer_challenge_only() {
        assert!(auth_required(&posted(401, vec![], Some("Bearer"))).0);
        assert!(auth_required(&posted(401, vec![], Some(r#"Basic realm="a, b", bearer error="x""#))).0);
        let (passed, why) = auth_required(&posted(401, vec![], None));
        assert!(!passed && why.contains("without a WWW-Authenticate"), "{why}");
        let (passed, why) = auth_required(&posted(401, vec![], Some(r#"Basic realm="Bearer""#)));
        assert!(!passed && why.contains("no Bearer challenge"), "{why}");
        let (passed, why) = auth_required(&posted(200, result(), None));
        assert!(!passed && why.contains("served without a token"), "{why}");
        assert!(!auth_required(&posted(403, vec![], Some("Bearer"))).0);
    }

    #[test]
    fn a_broken_token_passes_with_401_only() {
        assert_eq!(invalid_token("t", &posted(401, vec![], None)), (true, "t: answered 401".to_owned()));
        let (passed, why) = invalid_token("t", &posted(200, result(), None));
        assert!(!passed && why.contains("accepted"), "{why}");
        assert_eq!(invalid_token("t", &posted(403, vec![], None)), (false, "t: answered HTTP 403, not 401".to_owned()));
    }

    #[test]
    fn bearer_challenges_are_found_by_scheme_not_by_text() {
        assert!(
            bearer_challenge("Bearer") && bearer_challenge("BEARER realm=\"mcp\"") && bearer_challenge("x, Bearer")
        );
        assert!(!bearer_challenge("Bearerish") && !bearer_challenge("Basic bearer=\"1\"") && !bearer_challenge(""));
    }

    #[test]
    fn guessable_or_invisible_session_ids_fail_and_random_or_time_ordered_ones_pass() {
        let ids = |list: &[&str]| list.iter().map(|id| (*id).to_owned()).collect::<Vec<_>>();
        for random in [
            ids(&[
                "7f9c2ba4e88f827d616045507605853e",
                "1b4f0e9851971998e732078544c96b36",
                "d3c1e0a3b8f64e2a9c4b7d12a0f3e5c1",
            ]),
            // Time-ordered: UUIDv7 and ULIDs share their clock prefix, and their random part still differs.
            ids(&[
                "01938a1e-7c4b-7d2e-9f3a-5b6c7d8e9f01",
                "01938a1e-7c4b-7a91-8e2d-0c1b2a3f4e5d",
                "01938a1e-7c4c-7f00-b1c2-d3e4f5a6b7c8",
            ]),
            ids(&["01JE4Z8Q5M3N7P9R2T4V6X8Z0B", "01JE4Z8Q5MW1Y3A5C7E9G1J3L5", "01JE4Z8Q5NB2D4F6H8K0M2P4R6"]),
        ] {
            assert_eq!(session_id_problem(&random), None, "{random:?}");
        }
        let problem = |list: &[&str]| session_id_problem(&ids(list)).expect("a problem");
        assert!(
            problem(&["session-00000000000000001", "session-00000000000000002", "session-00000000000000003"])
                .contains("guessable from each other")
        );
        assert!(problem(&["1733412345123456", "1733412345180221", "1733412345201877"]).contains("guessable"));
        assert!(problem(&["a1b2c3d4", "e5f60718", "293a4b5c"]).contains("too short to hold 64 random bits"));
        assert!(problem(&["7f9c2ba4e88f827d616045507605853e"; 3]).contains("the same ids"));
        assert!(problem(&["7f9c2ba4e88f827d 616045507605853e"]).contains("outside visible ASCII"));
    }

    #[test]
    fn over_stdio_every_http_check_is_not_judged_with_the_reason() {
        let judged = over_stdio();
        assert!(judged.findings.is_empty());
        let ids: Vec<&str> = judged.not_judged.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ALL.map(|check| check.id));
        assert!(judged.not_judged.iter().all(|(_, why)| why.contains("stdio")));
    }
}
