//! The messages of the adapter protocol `callproof/1` (docs/protocol.md), defined once for both ends: the
//! harness writes [`ToExecutor`] and reads [`FromExecutor`]; an executor process (the `--stdio` binary, or
//! yours in Rust) does the opposite. Lines themselves are read by [`crate::lines`].
//!
//! Rule enforced here: every message is one JSON object whose string member `type` names its variant, and a
//! line becomes a message only through [`ToExecutor::parse`] or [`FromExecutor::parse`], which never panic on
//! any input and say what is wrong (and the request id, when the line had one). Receivers ignore members they
//! do not know, so optional members can be added without a new major version. Arguments keep their form on the
//! wire: `{"raw": text}` stays text, byte for byte, and `{"value": json}` stays parsed. The JSON Schemas under
//! docs/protocol/ are checked against these types by the harness's tests.

use crate::auth::AuthContext;
use crate::request::{Request, ToolCall};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

/// The protocol version both ends speak.
pub const VERSION: &str = "callproof/1";

/// The reference's reading of a `hello`'s `protocol`: the exact text [`VERSION`], nothing that merely starts
/// like it.
///
/// # Errors
/// Why any other version is refused, for the `error` line an executor answers before it exits.
pub fn speaks(protocol: &str) -> Result<(), String> {
    if protocol == VERSION {
        Ok(())
    } else {
        Err(format!("protocol {protocol:?} is not supported; this executor speaks {VERSION:?}"))
    }
}

/// The capability an executor declares when its idempotency records survive a restart of its process.
pub const DURABLE_STORE: &str = "durable_store";

/// The capability an executor declares when the process the harness starts is the executor itself, so that
/// SIGSTOP stops it and SIGCONT resumes it (the `pause` fault: docs/protocol.md, "Process faults").
pub const PAUSE: &str = "pause";

/// The capability an executor declares when it reaches its idempotency store over TCP through the address in
/// the environment variable [`STORE_PROXY_ENV`] whenever that is set, so that the harness can cut the store
/// off (the `store_outage` fault).
pub const STORE_OUTAGE: &str = "store_outage";

/// The environment variable naming the loopback `host:port` an executor declaring [`STORE_OUTAGE`] connects
/// its store through instead of the store's own address.
pub const STORE_PROXY_ENV: &str = "CALLPROOF_STORE_PROXY";

/// Every capability (`features` member) this version defines. Receivers ignore others.
pub const FEATURES: &[&str] = &[DURABLE_STORE, PAUSE, STORE_OUTAGE];

/// A message from the harness to the executor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(
    clippy::large_enum_variant,
    reason = "a message lives for one line and is taken apart at once; boxing `Execute` costs an allocation per call"
)]
pub enum ToExecutor {
    /// The first line: who the executor talks to, and the contract of the tools it implements.
    Hello(Hello),
    /// One tool call to execute.
    Execute(Execute),
}

/// A message from the executor to the harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromExecutor {
    /// The first line, the answer to [`Hello`].
    Capabilities(Capabilities),
    /// The answer to one [`Execute`] request.
    Result {
        /// The id of the request answered.
        id: String,
        /// The envelope (docs/envelope.schema.json); always a JSON object once parsed.
        envelope: Value,
    },
    /// The executor could not read or accept a message (never a failed tool call: that is an envelope).
    Error {
        /// The request it concerns, when the executor could tell.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Why, for people.
        #[serde(default)]
        message: String,
    },
}

/// The first message: who the executor talks to, and the contract of the tools it implements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// [`VERSION`]; an executor refuses another.
    pub protocol: String,
    /// One scenario run; unchanged across restarts of the executor within it. A durable store keeps the
    /// records of different sessions apart.
    pub session: String,
    /// The downstream (conformance app services), e.g. `http://127.0.0.1:41234`.
    pub downstream_url: String,
    /// The conformance app's catalog: the entries of scenarios/catalog/*.json.
    #[serde(default)]
    pub catalog: Vec<Value>,
}

/// One tool call to execute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Execute {
    /// The request id; the answer carries it back. Unique within the process's lifetime.
    pub id: String,
    /// The model's call: `call_id`, `name`, `arguments` as `{"raw": text}` or `{"value": json}`.
    pub call: ToolCall,
    /// The trusted context.
    pub auth: AuthContext,
    /// The caller's business request id (`null` when there is none).
    #[serde(default)]
    pub business_request_id: Option<String>,
    /// The caller's attempt number, from 1.
    pub attempt: u32,
    /// Time budget in milliseconds, from the moment the line is read.
    pub budget_ms: u64,
}

impl Execute {
    /// The message for `request` under request id `id`. The request's own `request_id` and `trace_id` stay
    /// with the caller: the protocol does not carry them.
    pub fn new(id: String, request: Request) -> Execute {
        Execute {
            id,
            call: request.call,
            auth: request.auth,
            business_request_id: request.business_request_id,
            attempt: request.attempt,
            budget_ms: u64::try_from(request.budget.as_millis()).unwrap_or(u64::MAX),
        }
    }

    /// The request to hand the executor, and the id to answer under.
    pub fn into_request(self) -> (String, Request) {
        let request = Request {
            call: self.call,
            auth: self.auth,
            business_request_id: self.business_request_id,
            attempt: self.attempt,
            budget: Duration::from_millis(self.budget_ms),
            request_id: None,
            trace_id: None,
        };
        (self.id, request)
    }
}

/// The executor's answer to [`Hello`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The version the executor speaks; must be [`VERSION`].
    pub protocol: String,
    /// The executor's name, for reports.
    pub name: String,
    /// The executor's version, for reports.
    pub version: String,
    /// The catalog tools it implements.
    pub tools: Vec<String>,
    /// Optional features, e.g. [`DURABLE_STORE`]. Unknown ones are ignored.
    #[serde(default)]
    pub features: Vec<String>,
}

impl Capabilities {
    /// Whether the executor declares `feature`.
    pub fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|declared| declared == feature)
    }
}

/// Why a line is not a message of this protocol.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not JSON at all.
    #[error("a line that is not JSON ({0})")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("a line that is not a JSON object")]
    NotObject,
    /// An object without a string `type`.
    #[error("a message without a string `type`")]
    NoType,
    /// A `type` this end does not receive (or no version of the protocol defines).
    #[error("a message of type {0:?} where only {1} may come")]
    UnexpectedType(String, &'static str),
    /// A message of a known type whose members do not fit it.
    #[error("{} message{} that does not fit the protocol ({why})", article(kind), id.as_deref().map(|id| format!(" for id {id:?}")).unwrap_or_default())]
    Malformed {
        /// The message type.
        kind: String,
        /// Its `id` member, when it has a string one.
        id: Option<String>,
        /// What does not fit.
        why: String,
    },
}

fn article(kind: &str) -> String {
    let vowel = kind.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

impl ParseError {
    /// The request id the line carried, so an executor can name it in its `error` answer.
    pub fn id(&self) -> Option<&str> {
        match self {
            ParseError::Malformed { id, .. } => id.as_deref(),
            _ => None,
        }
    }
}

impl ToExecutor {
    /// Reads one line sent by the harness.
    ///
    /// # Errors
    /// [`ParseError`] saying why the line is not a `hello` or an `execute` message.
    pub fn parse(line: &str) -> Result<ToExecutor, ParseError> {
        let (kind, members) = tagged(line)?;
        match kind.as_str() {
            "hello" => fields(&kind, members).map(ToExecutor::Hello),
            "execute" => {
                let execute: Execute = fields(&kind, members)?;
                if execute.attempt == 0 {
                    let why = "`attempt` is 0; attempts count from 1".to_owned();
                    return Err(ParseError::Malformed { kind, id: Some(execute.id), why });
                }
                Ok(ToExecutor::Execute(execute))
            }
            _ => Err(ParseError::UnexpectedType(kind, "hello or execute messages")),
        }
    }

    /// The message as one protocol line, with its newline.
    pub fn to_line(&self) -> String {
        line_of(self)
    }
}

impl FromExecutor {
    /// Reads one line sent by an executor.
    ///
    /// # Errors
    /// [`ParseError`] saying why the line is not a `capabilities`, `result` or `error` message; a result
    /// whose envelope is not a JSON object is malformed.
    pub fn parse(line: &str) -> Result<FromExecutor, ParseError> {
        let (kind, members) = tagged(line)?;
        match kind.as_str() {
            "capabilities" => fields(&kind, members).map(FromExecutor::Capabilities),
            "result" | "error" => {
                let id = members.get("id").and_then(Value::as_str).map(str::to_owned);
                let mut object = members;
                object.insert("type".to_owned(), Value::String(kind.clone()));
                let message: FromExecutor = serde_json::from_value(Value::Object(object)).map_err(|error| {
                    ParseError::Malformed { kind: kind.clone(), id: id.clone(), why: error.to_string() }
                })?;
                if let FromExecutor::Result { envelope, .. } = &message
                    && !envelope.is_object()
                {
                    let why = "its `envelope` is not a JSON object".to_owned();
                    return Err(ParseError::Malformed { kind, id, why });
                }
                Ok(message)
            }
            _ => Err(ParseError::UnexpectedType(kind, "capabilities, result or error messages")),
        }
    }

    /// The message as one protocol line, with its newline.
    pub fn to_line(&self) -> String {
        line_of(self)
    }
}

/// The object of a line and its `type`, removed from the members.
fn tagged(line: &str) -> Result<(String, Map<String, Value>), ParseError> {
    let value: Value = serde_json::from_str(line).map_err(|error| ParseError::NotJson(error.to_string()))?;
    let Value::Object(mut members) = value else { return Err(ParseError::NotObject) };
    match members.remove("type") {
        Some(Value::String(kind)) => Ok((kind, members)),
        _ => Err(ParseError::NoType),
    }
}

/// The members of a `kind` message as `T`.
fn fields<T: DeserializeOwned>(kind: &str, members: Map<String, Value>) -> Result<T, ParseError> {
    let id = members.get("id").and_then(Value::as_str).map(str::to_owned);
    serde_json::from_value(Value::Object(members)).map_err(|error| ParseError::Malformed {
        kind: kind.to_owned(),
        id,
        why: error.to_string(),
    })
}

fn line_of(message: &impl Serialize) -> String {
    // Serializing these types cannot fail: every map key is a string and every value is plain data.
    let mut line = serde_json::to_string(message).unwrap_or_default();
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn execute() -> Execute {
        let request = Request::new(
            ToolCall::raw("call_1", "refund_order", "{\"a\":1,\"a\":2}"),
            AuthContext::new("u", "t", &["refunds:write"]),
        )
        .budget(Duration::from_millis(250));
        Execute::new("7".into(), request)
    }

    #[test]
    fn raw_arguments_stay_text_on_the_wire_and_the_tag_is_the_type() {
        let line = ToExecutor::Execute(execute()).to_line();
        assert!(line.ends_with('\n') && !line.trim_end().contains('\n'), "one line: {line}");
        let back: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(back["type"], "execute");
        assert_eq!(back["call"]["arguments"]["raw"], "{\"a\":1,\"a\":2}");
        assert_eq!(back["budget_ms"], 250);
        assert_eq!(back["business_request_id"], Value::Null);
        assert_eq!(ToExecutor::parse(&line), Ok(ToExecutor::Execute(execute())));
    }

    #[test]
    fn an_execute_message_round_trips_into_the_same_request() {
        let (id, request) = execute().into_request();
        assert_eq!(id, "7");
        assert_eq!(request.budget, Duration::from_millis(250));
        assert_eq!(Execute::new(id, request), execute());
    }

    #[test]
    fn answers_are_read_and_unknown_members_ignored() {
        let ok = FromExecutor::parse(r#"{"type":"result","id":"1","envelope":{"ok":true},"extra":1}"#);
        assert_eq!(ok, Ok(FromExecutor::Result { id: "1".into(), envelope: json!({"ok": true}) }));
        let error = FromExecutor::parse(r#"{"type":"error","id":null,"message":"no"}"#);
        assert_eq!(error, Ok(FromExecutor::Error { id: None, message: "no".into() }));
        let capabilities = FromExecutor::parse(
            r#"{"type":"capabilities","protocol":"callproof/1","name":"x","version":"1","tools":[]}"#,
        );
        let Ok(FromExecutor::Capabilities(capabilities)) = capabilities else { panic!("{capabilities:?}") };
        assert!(capabilities.features.is_empty() && !capabilities.has(DURABLE_STORE));
    }

    #[test]
    fn every_kind_of_bad_line_is_named_and_carries_the_id_it_had() {
        let cases = [
            ("hello", "not JSON"),
            ("[1]", "not a JSON object"),
            (r#"{"id":"1"}"#, "without a string `type`"),
            (r#"{"type":"hello"}"#, "type \"hello\" where only capabilities"),
            (r#"{"type":"result","id":"9"}"#, "a result message for id \"9\" that does not fit"),
            (r#"{"type":"result","id":1,"envelope":{}}"#, "a result message that does not fit"),
            (r#"{"type":"result","id":"2","envelope":"ok"}"#, "envelope` is not a JSON object"),
        ];
        for (line, needle) in cases {
            let error = FromExecutor::parse(line).expect_err(line);
            assert!(error.to_string().contains(needle), "{line}: {error}");
        }
        let error = ToExecutor::parse(r#"{"type":"execute","id":"c"}"#).expect_err("no call");
        assert_eq!(error.id(), Some("c"));
        assert!(error.to_string().starts_with("an execute message for id \"c\""), "{error}");
        let error = ToExecutor::parse(r#"{"type":"result","id":"c"}"#).expect_err("wrong direction");
        assert!(error.to_string().contains("only hello or execute"), "{error}");
    }

    #[test]
    fn capabilities_serialize_with_their_tag_and_absent_ids_stay_absent() {
        let capabilities = Capabilities {
            protocol: VERSION.into(),
            name: "x".into(),
            version: "1".into(),
            tools: vec!["refund_order".into()],
            features: vec![DURABLE_STORE.into()],
        };
        let line = FromExecutor::Capabilities(capabilities.clone()).to_line();
        let value: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(value["type"], "capabilities");
        assert_eq!(FromExecutor::parse(&line), Ok(FromExecutor::Capabilities(capabilities)));
        let error = FromExecutor::Error { id: None, message: "why".into() }.to_line();
        assert_eq!(error, "{\"type\":\"error\",\"message\":\"why\"}\n");
    }

    fn member() -> impl proptest::strategy::Strategy<Value = Option<Value>> {
        use proptest::prelude::*;
        prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            Just(Some(json!(7))),
            "[a-z0-9]{0,4}".prop_map(|text| Some(Value::String(text))),
            Just(Some(json!({"ok": true}))),
            Just(Some(json!(["refund_order"]))),
        ]
    }

    proptest::proptest! {
        #[test]
        fn any_message_shaped_line_parses_or_is_refused_and_what_parses_round_trips(
            kind in proptest::sample::select(vec!["capabilities", "result", "error", "hello", "execute", "other"]),
            members in proptest::collection::vec((proptest::sample::select(
                vec!["id", "envelope", "message", "protocol", "name", "version", "tools", "features"]), member()), 0..8),
        ) {
            let mut object = Map::new();
            object.insert("type".into(), Value::String(kind.into()));
            for (name, value) in members {
                if let Some(value) = value {
                    object.insert(name.into(), value);
                }
            }
            let line = Value::Object(object.clone()).to_string();
            match FromExecutor::parse(&line) {
                Ok(message) => proptest::prop_assert_eq!(FromExecutor::parse(&message.to_line()), Ok(message)),
                Err(error) => {
                    if let (ParseError::Malformed { .. }, Some(Value::String(id))) = (&error, object.get("id")) {
                        proptest::prop_assert_eq!(error.id(), Some(id.as_str()));
                    }
                }
            }
            if let Ok(message) = ToExecutor::parse(&line) {
                proptest::prop_assert_eq!(ToExecutor::parse(&message.to_line()), Ok(message));
            }
        }

        #[test]
        fn arbitrary_text_is_refused_without_a_panic(line in ".{0,64}") {
            if let Ok(message) = FromExecutor::parse(&line) {
                proptest::prop_assert!(line.contains("type"), "{message:?} from {line:?}");
            }
            proptest::prop_assert!(ToExecutor::parse(&line).is_err() || line.contains("type"));
        }
    }
}
