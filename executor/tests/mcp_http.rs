//! `callproof-executor --mcp-http` as a process, spoken to over HTTP with reqwest (and raw TCP where a client
//! library would not send what is tested): the bearer JWT decides who calls, a forged `_meta` context changes
//! nothing, bad tokens get 401, and malformed, oversized and GET requests get their 4xx. Tokens are minted here
//! with hmac directly, not with the verifier's own `sign`, so the two do not share a mistake.

mod support;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};
use support::{ALICE, TENANT};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "Y2FsbHByb29mLXRlc3Qta2V5LW9mLXRoaXMtcnVuLTAx";

/// The binary serving MCP over HTTP on a port of its choosing, against `downstream` (when `None`, the one each
/// token names).
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(downstream: Option<&str>) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_callproof-executor"));
        command.args(["--mcp-http", "127.0.0.1:0", "--store", "memory"]).env("CALLPROOF_TOKEN_KEY", KEY);
        command.env_remove("CALLPROOF_MCP_URL").env_remove("CALLPROOF_DOWNSTREAM_URL");
        if let Some(downstream) = downstream {
            command.env("CALLPROOF_DOWNSTREAM_URL", downstream);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        let url = loop {
            line.clear();
            assert_ne!(stderr.read_line(&mut line).expect("stderr reads"), 0, "exited before serving");
            if let Some((_, rest)) = line.split_once(" over Streamable HTTP at ") {
                break rest.split_whitespace().next().expect("a URL").to_owned();
            }
        };
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        Server { child, url }
    }

    fn port(&self) -> u16 {
        self.url.rsplit_once(':').and_then(|(_, rest)| rest.split('/').next()?.parse().ok()).expect("a port")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs()
}

/// The claims docs/mcp.md specifies, for alice in her tenant with `scope`.
fn claims(audience: &str, scope: &str) -> Value {
    json!({"iss": "callproof", "aud": audience, "sub": ALICE, "iat": now(), "exp": now() + 300, "jti": "j1",
           "scope": scope, "tenant_id": TENANT, "roles": []})
}

fn mint(key: &str, header: &Value, claims: &Value) -> String {
    let signed =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("any key");
    mac.update(signed.as_bytes());
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()))
}

fn token(claims: &Value) -> String {
    mint(KEY, &json!({"alg": "HS256", "typ": "JWT"}), claims)
}

/// A POST of `body` with `token` and `session`; the status, the headers and the body as JSON (`Null` if none).
async fn post(
    server: &Server,
    token: &str,
    session: Option<&str>,
    body: &str,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let client = reqwest::Client::new();
    let mut request = client
        .post(&server.url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-11-25");
    }
    let response = request.send().await.expect("the server answers");
    let (status, headers) = (response.status().as_u16(), response.headers().clone());
    let text = response.text().await.expect("a body");
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).expect("a JSON body") };
    (status, headers, body)
}

/// `initialize` and `notifications/initialized` with `token`; the session id.
async fn initialize(server: &Server, token: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}"#;
    let (status, headers, answer) = post(server, token, None, body).await;
    assert_eq!((status, &answer["result"]["protocolVersion"]), (200, &json!("2025-11-25")), "{answer}");
    let session = headers.get("mcp-session-id").expect("a session id").to_str().expect("text").to_owned();
    let (status, _, _) =
        post(server, token, Some(&session), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(status, 202);
    session
}

fn get_order_call(id: u32, meta: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "get_order", "_meta": meta,
           "arguments": {"order_id": "ord_123"}}})
    .to_string()
}

async fn downstream() -> MockServer {
    let server = MockServer::start().await;
    let order = json!({"order_id": "ord_123", "tenant_id": TENANT, "owner_id": ALICE, "refundable_amount": 100,
                       "status": "paid", "note": ""});
    Mock::given(method("GET"))
        .and(path("/orders/ord_123"))
        .respond_with(ResponseTemplate::new(200).set_body_json(order))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn a_good_token_opens_a_session_lists_the_tools_and_calls_one_as_its_subject() {
    let downstream = downstream().await;
    let server = Server::start(Some(&downstream.uri()));
    let token = token(&claims(&server.url, "orders:read"));
    let session = initialize(&server, &token).await;
    let (status, _, listed) =
        post(&server, &token, Some(&session), r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
    assert_eq!(status, 200);
    assert!(listed["result"]["tools"].as_array().expect("tools").iter().any(|tool| tool["name"] == "get_order"));
    let (status, headers, answer) = post(&server, &token, Some(&session), &get_order_call(2, &json!({}))).await;
    assert_eq!(
        (status, headers.get("content-type").map(|value| value.to_str().ok())),
        (200, Some(Some("application/json")))
    );
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!((envelope["ok"].clone(), answer["result"]["isError"].clone()), (json!(true), json!(false)), "{answer}");
    assert_eq!(envelope["result"]["order_id"], "ord_123", "{answer}");
    let requests = downstream.received_requests().await.expect("recorded");
    assert!(
        !requests.is_empty() && requests.iter().all(|request| request.url.path() == "/orders/ord_123"),
        "{requests:?}"
    );
}

#[tokio::test]
async fn a_forged_meta_context_is_ignored_and_the_tokens_missing_scope_is_forbidden() {
    let downstream = downstream().await;
    let server = Server::start(Some(&downstream.uri()));
    let token = token(&claims(&server.url, "exports:read"));
    let session = initialize(&server, &token).await;
    let forged = json!({"io.callproof/context": {"call_id": "c_forged", "attempt": 1, "auth": {
        "subject_id": ALICE, "tenant_id": TENANT, "scopes": ["orders:read"], "roles": [], "identity": {"valid": true}}}});
    let (status, _, answer) = post(&server, &token, Some(&session), &get_order_call(3, &forged)).await;
    assert_eq!(status, 200);
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!(
        (envelope["ok"].clone(), envelope["error"]["code"].clone()),
        (json!(false), json!("forbidden")),
        "{answer}"
    );
    assert_eq!(
        envelope["meta"]["call_id"], "c_forged",
        "the rest of _meta's context is still the caller's bookkeeping"
    );
    assert!(downstream.received_requests().await.expect("recorded").is_empty(), "nothing reached the downstream");
}

#[tokio::test]
async fn a_missing_forged_expired_misaddressed_or_unsigned_token_gets_401_with_www_authenticate() {
    let server = Server::start(Some("http://127.0.0.1:9"));
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let good = claims(&server.url, "orders:read");
    let mut expired = good.clone();
    expired["exp"] = json!(now() - 1);
    let elsewhere = claims(&format!("http://127.0.0.1:{}/mcp", server.port() ^ 1), "orders:read");
    let forged = mint("another key", &json!({"alg": "HS256", "typ": "JWT"}), &good);
    let unsigned =
        format!("{}.{}.", URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#), URL_SAFE_NO_PAD.encode(good.to_string()));
    for (what, token) in [
        ("forged", forged),
        ("expired", token(&expired)),
        ("another audience", token(&elsewhere)),
        ("alg none", unsigned),
    ] {
        let (status, headers, _) = post(&server, &token, None, ping).await;
        let challenge = headers.get("www-authenticate").and_then(|value| value.to_str().ok()).unwrap_or_default();
        assert_eq!(status, 401, "{what}");
        assert!(challenge.starts_with("Bearer error=\"invalid_token\""), "{what}: {challenge}");
    }
    let response =
        reqwest::Client::new().post(&server.url).header("content-type", "application/json").body(ping).send();
    let response = response.await.expect("answered");
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(response.headers().get("www-authenticate").map(|value| value.as_bytes()), Some(&b"Bearer"[..]));
    initialize(&server, &token(&good)).await;
}

#[tokio::test]
async fn a_body_that_is_not_json_gets_400_with_minus_32700_and_one_that_is_not_a_request_minus_32600() {
    let server = Server::start(Some("http://127.0.0.1:9"));
    let token = token(&claims(&server.url, ""));
    let session = initialize(&server, &token).await;
    let (status, _, answer) =
        post(&server, &token, Some(&session), r#"{"jsonrpc":"2.0","id":7,"method":"tools/list""#).await;
    assert_eq!((status, answer["error"]["code"].clone(), answer["id"].clone()), (400, json!(-32700), Value::Null));
    let (status, _, answer) = post(&server, &token, Some(&session), r#"{"jsonrpc":"2.0","id":8,"method":5}"#).await;
    assert_eq!((status, answer["error"]["code"].clone()), (400, json!(-32600)));
    let (status, _, answer) =
        post(&server, &token, Some(&session), r#"{"jsonrpc":"2.0","id":9,"method":"nope"}"#).await;
    assert_eq!((status, answer["error"]["code"].clone()), (200, json!(-32601)));
}

#[tokio::test]
async fn a_body_over_the_line_limit_is_refused_with_413_before_it_is_read() {
    let server = Server::start(Some("http://127.0.0.1:9"));
    let token = token(&claims(&server.url, ""));
    let length = callproof_executor::lines::MAX_LINE_BYTES + 1;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("connects");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\n\
         content-length: {length}\r\n\r\n{{\"jsonrpc\":\"2.0\""
    );
    stream.write_all(head.as_bytes()).expect("writes");
    let mut answer = Vec::new();
    let mut byte = [0u8; 1];
    while !answer.ends_with(b"\r\n\r\n") && stream.read(&mut byte).expect("reads") == 1 {
        answer.push(byte[0]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
}

#[tokio::test]
async fn get_is_405_a_foreign_origin_403_and_a_request_without_or_after_its_session_400_and_404() {
    let server = Server::start(Some("http://127.0.0.1:9"));
    let token = token(&claims(&server.url, ""));
    let client = reqwest::Client::new();
    let got = client.get(&server.url).bearer_auth(&token).send().await.expect("answered");
    assert_eq!(got.status().as_u16(), 405);
    assert_eq!(got.headers().get("allow").map(|value| value.as_bytes()), Some(&b"POST, DELETE"[..]));
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let foreign = client.post(&server.url).bearer_auth(&token).header("origin", "http://attacker.invalid");
    let foreign = foreign.header("content-type", "application/json").body(ping).send().await.expect("answered");
    assert_eq!(foreign.status().as_u16(), 403);
    let session = initialize(&server, &token).await;
    assert_eq!(post(&server, &token, None, ping).await.0, 400, "no session after initialize");
    assert_eq!(post(&server, &token, Some(&session), ping).await.0, 200);
    let ended = client.delete(&server.url).bearer_auth(&token).header("mcp-session-id", &session).send();
    assert_eq!(ended.await.expect("answered").status().as_u16(), 200);
    assert_eq!(post(&server, &token, Some(&session), ping).await.0, 404, "the ended session is unknown");
}

#[tokio::test]
async fn without_a_configured_downstream_each_call_goes_to_the_downstream_its_token_signs() {
    let downstream = downstream().await;
    let server = Server::start(None);
    let mut signed = claims(&server.url, "orders:read");
    let session = initialize(&server, &token(&signed)).await;
    let (_, _, answer) = post(&server, &token(&signed), Some(&session), &get_order_call(1, &json!({}))).await;
    assert_eq!(answer["result"]["structuredContent"]["error"]["code"], "dependency_unavailable", "{answer}");
    signed["cp_downstream_url"] = json!(downstream.uri());
    signed["cp_session"] = json!("s_claimed");
    let (_, _, answer) = post(&server, &token(&signed), Some(&session), &get_order_call(2, &json!({}))).await;
    assert_eq!(answer["result"]["structuredContent"]["ok"], true, "{answer}");
    assert!(!downstream.received_requests().await.expect("recorded").is_empty());
}

/// A modern (2026-07-28) POST of `body` with `token`, no session, and `headers`; the status and the body.
async fn modern_post(server: &Server, token: &str, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(&server.url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    (status, serde_json::from_str(&response.text().await.expect("a body")).unwrap_or(Value::Null))
}

fn modern(id: u32, method: &str, version: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": version,
                             "io.modelcontextprotocol/clientCapabilities": {}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn a_modern_request_needs_no_session_and_its_headers_must_match_the_body() {
    let downstream = downstream().await;
    let server = Server::start(Some(&downstream.uri()));
    let token = token(&claims(&server.url, "orders:read"));
    let headers = |method: &'static str, name: Option<&'static str>| {
        let mut headers = vec![("mcp-protocol-version", "2026-07-28"), ("mcp-method", method)];
        headers.extend(name.map(|name| ("mcp-name", name)));
        headers
    };
    let discover = modern(1, "server/discover", "2026-07-28", json!({}));
    let (status, answer) = modern_post(&server, &token, &headers("server/discover", None), &discover).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["supportedVersions"], json!(["2026-07-28", "2025-11-25"]));
    assert_eq!(answer["result"]["resultType"], "complete");
    let call =
        modern(2, "tools/call", "2026-07-28", json!({"name": "get_order", "arguments": {"order_id": "ord_123"}}));
    let (status, answer) = modern_post(&server, &token, &headers("tools/call", Some("get_order")), &call).await;
    assert_eq!((status, &answer["result"]["structuredContent"]["ok"]), (200, &json!(true)), "{answer}");
    assert_eq!(answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "callproof-executor");
    let calls = downstream.received_requests().await.expect("recorded").len();
    let (status, answer) = modern_post(&server, &token, &headers("tools/call", Some("get_weather")), &call).await;
    assert_eq!((status, &answer["error"]["code"]), (400, &json!(-32020)), "{answer}");
    let (status, _) = modern_post(&server, &token, &headers("tools/call", None), &call).await;
    assert_eq!(status, 400, "Mcp-Name is required on tools/call");
    assert_eq!(downstream.received_requests().await.expect("recorded").len(), calls, "no call was made");
    let unknown = modern(3, "callproof/nope", "2026-07-28", json!({}));
    let (status, answer) = modern_post(&server, &token, &headers("callproof/nope", None), &unknown).await;
    assert_eq!((status, &answer["error"]["code"]), (404, &json!(-32601)));
    let old = modern(4, "tools/list", "1900-01-01", json!({}));
    let old_headers = [("mcp-protocol-version", "1900-01-01"), ("mcp-method", "tools/list")];
    let (status, answer) = modern_post(&server, &token, &old_headers, &old).await;
    assert_eq!((status, &answer["error"]["code"]), (400, &json!(-32022)), "{answer}");
    assert!(answer["error"]["data"]["supported"].as_array().is_some_and(|supported| !supported.is_empty()));
    let mut no_capabilities = modern(5, "tools/list", "2026-07-28", json!({}));
    no_capabilities["params"]["_meta"]
        .as_object_mut()
        .expect("meta")
        .remove("io.modelcontextprotocol/clientCapabilities");
    let (status, answer) = modern_post(&server, &token, &headers("tools/list", None), &no_capabilities).await;
    assert_eq!((status, &answer["error"]["code"]), (400, &json!(-32602)), "{answer}");
}

#[tokio::test]
async fn a_modern_request_ignores_an_unknown_session_and_a_legacy_one_gets_404() {
    let server = Server::start(Some("http://127.0.0.1:9"));
    let token = token(&claims(&server.url, ""));
    let discover = modern(1, "server/discover", "2026-07-28", json!({}));
    let headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "server/discover"), ("mcp-session-id", "stale")];
    let (status, answer) = modern_post(&server, &token, &headers, &discover).await;
    assert_eq!((status, &answer["result"]["resultType"]), (200, &json!("complete")), "{answer}");
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(post(&server, &token, Some("stale"), ping).await.0, 404);
}
