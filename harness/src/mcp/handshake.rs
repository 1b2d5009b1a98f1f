//! The start of a profile run: the revision asked for or, under `auto`, the server's (docs/mcp.md "Protocol
//! revisions"), the 2025-11-25 handshake, and 2025-11-25 version negotiation on a second process.
//!
//! Rule enforced here: under `auto` a server is taken for a 2026-07-28 one only on a `DiscoverResult` or a
//! recognised modern error, and a legacy handshake's failure that turns out to be a modern server's refusal of
//! `initialize` is no finding.

use super::checks;
use super::modern::Discovered;
use super::profile::{KNOWN_VERSIONS, Options, PROTOCOL_VERSION, Run};
use super::report::Finding;
use super::revision::{self, Revision};
use serde_json::{Value, json};

impl Run {
    /// The revision asked for, or under `auto` the server's: `server/discover` first, `initialize` when it is
    /// not answered with a DiscoverResult, and `server/discover` again should `initialize` get a modern error.
    pub(super) async fn era(&mut self, asked: Revision) -> (Option<String>, Option<Value>) {
        let discovered = match asked {
            Revision::Legacy => Discovered::Legacy,
            asked => self.discover(asked == Revision::Modern).await,
        };
        let legacy = match discovered {
            Discovered::Modern(info) => return (Some(revision::MODERN.to_owned()), info),
            Discovered::Failed => return (None, None),
            Discovered::Legacy => self.handshake().await,
        };
        match (asked, &legacy) {
            (Revision::Auto, (None, _)) if self.modern_refusal => {
                // The legacy handshake's failure is no finding: the server is a modern one.
                self.findings.retain(|finding| finding.check != checks::HANDSHAKE.id);
                match self.discover(true).await {
                    Discovered::Modern(info) => (Some(revision::MODERN.to_owned()), info),
                    _ => (None, None),
                }
            }
            _ => legacy,
        }
    }

    async fn handshake(&mut self) -> (Option<String>, Option<Value>) {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "callproof", "version": env!("CARGO_PKG_VERSION")},
        });
        let exchange = self.request("initialize", Some(params)).await;
        self.modern_refusal = exchange.answer.error_code().is_some_and(revision::is_modern_error);
        let result = exchange.answer.result().cloned().unwrap_or(Value::Null);
        let version = result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned);
        self.capabilities = result.get("capabilities").cloned();
        let tools = result.get("capabilities").and_then(|capabilities| capabilities.get("tools"));
        let problem = match (&version, tools) {
            _ if exchange.answer.result().is_none() => Some("initialize got no result".to_owned()),
            (None, _) => Some("the result has no protocolVersion".to_owned()),
            (Some(version), _) if !KNOWN_VERSIONS.contains(&version.as_str()) => {
                Some(format!("protocolVersion {version:?} is not a revision of MCP"))
            }
            (_, Some(Value::Object(_))) => None,
            _ => Some("capabilities.tools is missing: the server declares no tools".to_owned()),
        };
        let passed = problem.is_none();
        let why = problem.unwrap_or_else(|| format!("initialize answered with protocolVersion {version:?} and tools"));
        self.found(checks::HANDSHAKE, passed, None, why, Some(&exchange));
        if exchange.answer.result().is_none() {
            return (None, None);
        }
        self.client.notify("notifications/initialized").await;
        (version, result.get("serverInfo").cloned())
    }
}

/// `initialize` asking for a version no server has, on a second process of the server (over HTTP, a second
/// session; a session is initialized once): the answer must name a version the server supports (lifecycle
/// §Version Negotiation).
pub(super) async fn negotiation(options: &Options) -> Option<Finding> {
    let mut client = options.server.client(options.timeout, options.bearer.as_ref()).ok()?;
    let params = json!({
        "protocolVersion": "1900-01-01",
        "capabilities": {},
        "clientInfo": {"name": "callproof", "version": env!("CARGO_PKG_VERSION")},
    });
    let exchange = client.request("initialize", Some(params)).await;
    client.close().await;
    let version = exchange.answer.result().and_then(|result| result.get("protocolVersion")?.as_str());
    let (passed, why) = match version {
        Some(version) if KNOWN_VERSIONS.contains(&version) => (true, format!("answered with {version}")),
        Some(version) => (false, format!("answered with protocolVersion {version:?}, not a version of MCP")),
        None => (false, format!("answered {}, not a result with a protocolVersion", exchange.answer.text())),
    };
    Some(Finding {
        check: checks::VERSION_NEGOTIATION.id,
        passed,
        inconclusive: false,
        tool: None,
        why,
        request: Some(exchange.sent.clone()),
        answer: Some(exchange.answer.text()),
    })
}
