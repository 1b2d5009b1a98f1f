//! The transcript: what happened in one scenario run, in the order it happened.
//!
//! Rule enforced here: checks read only the transcript (calls and their envelopes, downstream requests, the
//! ledger, and the store records when the subject lets us look). Every downstream request is attributed to
//! the call that caused it: by `X-Request-Id` when the executor sends its envelope's request id, else by which
//! calls were in flight when it arrived (counted in requests, which stays exact when time is paused). When
//! several calls of one operation were in flight and no id picks one, the request is the operation's and no
//! call's: which of them sent it is a matter of scheduling, and no verdict may hang on that (issue 17). Each
//! answer is read once, when it arrives, into an [`EnvelopeView`] (or [`Answer::Malformed`]).

use crate::envelope::{EnvelopeView, ErrorView, Malformed};
use crate::scenario::StepKind;
use crate::world::{Effect, ForeignRequest, Handling, RequestRecord, TaskTruth};
use crate::world::{FaultKind, FaultLog};
use callproof_executor::idempotency::Record;
use callproof_executor::{Approval, Arguments, ErrorCode};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// How a call ended, as far as the harness could tell.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// An envelope came back.
    Envelope(EnvelopeView),
    /// Something came back that is not an envelope (judged by `envelope-schema`).
    Malformed(Malformed),
    /// The subject broke (process died, protocol violated).
    Broken(String),
    /// Nothing came back within the budget plus the harness's hard margin.
    NoAnswer,
    /// A kill fault killed the subject while the call was in flight.
    Killed,
}

impl Answer {
    /// What the subject answered: an envelope, or [`Answer::Malformed`] when it is none.
    pub fn read(raw: Value) -> Answer {
        match EnvelopeView::parse(raw) {
            Ok(envelope) => Answer::Envelope(envelope),
            Err(malformed) => Answer::Malformed(malformed),
        }
    }

    /// The envelope, if one came back.
    pub fn envelope(&self) -> Option<&EnvelopeView> {
        match self {
            Answer::Envelope(envelope) => Some(envelope),
            _ => None,
        }
    }

    /// The JSON that came back, envelope or not.
    pub fn raw(&self) -> Option<&Value> {
        match self {
            Answer::Envelope(envelope) => Some(envelope.raw()),
            Answer::Malformed(malformed) => Some(&malformed.raw),
            _ => None,
        }
    }

    /// Whether anything came back (an envelope or not) before the harness gave up.
    pub fn came_back(&self) -> bool {
        matches!(self, Answer::Envelope(_) | Answer::Malformed(_))
    }
}

/// One line for evidence and diagrams.
impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Envelope(envelope) => envelope.fmt(f),
            Answer::Malformed(malformed) => write!(f, "not an envelope: {}", malformed.why),
            Answer::Broken(why) => write!(f, "subject broke: {why}"),
            Answer::NoAnswer => f.write_str("no answer"),
            Answer::Killed => f.write_str("killed in flight"),
        }
    }
}

/// A refusal the transport carried instead of an envelope (docs/mcp.md, "Answers that are not envelopes"): a
/// JSON-RPC error -32700 (or over HTTP a 400 or 413 without one) to a `tools/call` whose argument text is not
/// JSON, or over HTTP a 413 to any text. Only the MCP subject reports one, out of band
/// ([`crate::subject::Reply`]), so no answer of a `callproof/1` executor can claim it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// What carried it: `JSON-RPC error -32700`, `HTTP 400`.
    pub by: String,
    /// The wire codes of the table this refusal stands for (docs/mcp.md's table): any of them satisfies a pin.
    pub satisfies: Vec<&'static str>,
}

impl Refusal {
    /// The -32700 a server's JSON-RPC parser answers to a line it cannot read: refused before any tool ran, so
    /// it stands for `invalid_json` and `invalid_arguments` (a text nested too deep for that parser).
    pub fn parse_error() -> Refusal {
        let satisfies = vec![ErrorCode::InvalidJson.as_str(), ErrorCode::InvalidArguments.as_str()];
        Refusal { by: "JSON-RPC error -32700".to_owned(), satisfies }
    }

    /// An HTTP status (400, 413) refusing a body whose argument text is not JSON before any tool ran: the same
    /// codes as a -32700.
    pub fn http_status(status: u16) -> Refusal {
        Refusal { by: format!("HTTP {status}"), ..Refusal::parse_error() }
    }

    /// An HTTP 413 refusing a body whose argument text is JSON: too large, before any tool ran.
    pub fn too_large() -> Refusal {
        Refusal { by: "HTTP 413".to_owned(), satisfies: vec![ErrorCode::InvalidArguments.as_str()] }
    }

    /// Whether the refusal stands for `code` (a wire code, as scenarios and the corpus write it).
    pub fn satisfies(&self, code: &str) -> bool {
        self.satisfies.contains(&code)
    }

    /// The codes it stands for, as `a or b`.
    pub fn codes(&self) -> String {
        self.satisfies.join(" or ")
    }
}

/// One call the harness made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRecord {
    /// Position in the transcript.
    pub index: usize,
    /// The 0-based step that made it.
    pub step: usize,
    /// The step's action.
    pub action: StepKind,
    /// The business operation (index into `Transcript::operations`).
    pub op: usize,
    /// The model's call id.
    pub call_id: String,
    /// The tool name as submitted.
    pub tool: String,
    /// The arguments as submitted.
    pub arguments: Arguments,
    /// The auth context's name in the scenario.
    pub auth: String,
    /// The caller's tenant.
    pub tenant_id: String,
    /// The caller's subject.
    pub subject_id: String,
    /// The caller's roles.
    pub roles: BTreeSet<String>,
    /// The approval the caller presented, if any.
    pub approval: Option<Approval>,
    /// The caller's wall clock when the call was made (Unix ms), which approvals expire against.
    pub wall_ms: u64,
    /// The business request id.
    pub business_request_id: Option<String>,
    /// Attempt number.
    pub attempt: u32,
    /// Budget.
    pub budget_ms: u64,
    /// Sent (ms since the world started).
    pub started_ms: u64,
    /// Answered (ms since the world started).
    pub answered_ms: u64,
    /// Index of the first downstream request that arrived after the call was sent.
    pub first_request: usize,
    /// Number of downstream requests that had arrived when the call was answered.
    pub requests_until: usize,
    /// The answer.
    pub answer: Answer,
    /// The corpus case it came from, if any.
    pub corpus_case: Option<String>,
    /// For a call of a staggered burst, the ms from one call's start to the next's (the step's `stagger_ms`).
    #[serde(skip_serializing_if = "is_zero")]
    pub stagger_ms: u64,
    /// When the answer is a refusal the transport carried (an MCP -32700), not an envelope of the server's:
    /// `answer` then holds the envelope the harness built for it, which the other checks read as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
    /// Whether the harness wrote the envelope's `meta` (an MCP JSON-RPC error or HTTP status read as one).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub meta_by_harness: bool,
}

fn is_zero(ms: &u64) -> bool {
    *ms == 0
}

impl CallRecord {
    /// The envelope, if one came back.
    pub fn envelope(&self) -> Option<&EnvelopeView> {
        self.answer.envelope()
    }

    /// `ok` of the envelope.
    pub fn ok(&self) -> bool {
        self.envelope().is_some_and(EnvelopeView::ok)
    }

    /// The envelope's error, if it has one.
    pub fn error(&self) -> Option<&ErrorView> {
        self.envelope().and_then(EnvelopeView::error)
    }

    /// The envelope's error code, when it is one of the table.
    pub fn code(&self) -> Option<ErrorCode> {
        self.envelope().and_then(EnvelopeView::code)
    }

    /// The arguments as JSON: the value sent, or the raw text parsed (`None` when that text is not JSON).
    pub fn arguments_json(&self) -> Option<serde_json::Value> {
        match &self.arguments {
            Arguments::Raw(text) => serde_json::from_str(text).ok(),
            Arguments::Value(value) => Some(value.clone()),
        }
    }

    /// The envelope's `meta.request_id`.
    pub fn request_id(&self) -> Option<&str> {
        self.envelope().and_then(|envelope| envelope.meta().request_id.as_deref())
    }

    /// One line for evidence.
    pub fn line(&self) -> String {
        format!(
            "call #{} step {} {} {} {} attempt {} → {}",
            self.index,
            self.step + 1,
            self.action,
            self.call_id,
            self.tool,
            self.attempt,
            self.answer
        )
    }
}

/// A business operation: the calls that are, by the scenario's construction, the same business request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Operation {
    /// The step id, or `op<n>`.
    pub name: String,
    /// The tool.
    pub tool: String,
    /// Its calls, in order.
    pub calls: Vec<usize>,
}

/// A downstream request with its attribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exchange {
    /// What the downstream saw and did.
    #[serde(flatten)]
    pub record: RequestRecord,
    /// The call that caused it, when known.
    pub call: Option<usize>,
    /// The operation it belongs to, when known: with `call` unset, one of the operation's calls in flight when
    /// it arrived sent it, and nothing says which ([`Transcript::senders`]).
    pub op: Option<usize>,
}

impl Exchange {
    /// The name of the fault that fired on this request, if any.
    pub fn fault(&self) -> Option<&str> {
        self.fault_kind().map(FaultKind::name)
    }

    /// The kind (with its parameters) of the fault that fired on this request, if any.
    pub fn fault_kind(&self) -> Option<&FaultKind> {
        self.record.fault.as_ref().map(|fired| &fired.kind)
    }

    /// The step that armed the fault that fired on this request, if any.
    pub fn fault_step(&self) -> Option<usize> {
        self.record.fault.as_ref().map(|fired| fired.step)
    }

    /// The ledger index of the effect this request committed, if it committed one.
    pub fn committed(&self) -> Option<usize> {
        match self.record.handling {
            Handling::Committed(effect) => Some(effect),
            _ => None,
        }
    }

    /// Whether it is tied to its operation but to none of the operation's calls.
    pub fn operation_only(&self) -> bool {
        self.call.is_none() && self.op.is_some()
    }

    /// One line for evidence.
    pub fn line(&self) -> String {
        let status = self.record.status.map_or("dropped".to_owned(), |status| status.to_string());
        let key = self.record.idempotency_key.as_deref().map(short).unwrap_or("-");
        let fault = self.fault().map(|name| format!(" fault={name}")).unwrap_or_default();
        let whose = if self.operation_only() { " (one of the operation's calls in flight)" } else { "" };
        format!(
            "  ↳ request #{} {} {} key={key} → {status} {:?}{fault}{whose}",
            self.record.index, self.record.method, self.record.path, self.record.handling
        )
    }
}

/// The calls in flight when request `index` arrived: sent before it, answered after it.
fn in_flight(calls: &[CallRecord], index: usize) -> impl Iterator<Item = &CallRecord> {
    calls.iter().filter(move |call| call.first_request <= index && index < call.requests_until)
}

/// For each of the first `requests` request indexes, the calls in flight when it arrived (by call index, in
/// order): what [`in_flight`] says for each, in one sweep over the calls' windows instead of a scan per request.
fn in_flight_by_request(calls: &[CallRecord], requests: usize) -> Vec<Vec<usize>> {
    let mut opening: Vec<Vec<&CallRecord>> = vec![Vec::new(); requests];
    for call in calls.iter().filter(|call| call.first_request < call.requests_until.min(requests)) {
        opening[call.first_request].push(call);
    }
    let (mut open, mut closing) = (std::collections::BTreeSet::new(), std::collections::BinaryHeap::new());
    let mut by_request = Vec::with_capacity(requests);
    for (index, opened) in opening.into_iter().enumerate() {
        while closing.peek().is_some_and(|std::cmp::Reverse((until, _))| *until <= index) {
            if let Some(std::cmp::Reverse((_, call))) = closing.pop() {
                open.remove(&call);
            }
        }
        for call in opened {
            open.insert(call.index);
            closing.push(std::cmp::Reverse((call.requests_until, call.index)));
        }
        by_request.push(open.iter().copied().collect());
    }
    by_request
}

/// The only item, if there is exactly one.
fn single<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}

/// The first 8 characters of a key.
pub fn short(key: &str) -> &str {
    &key[..key.len().min(8)]
}

/// The calls of a run, in the order they were made. An answered call never changes, so a run's transcript shares
/// them with the run instead of copying them: exploration takes a transcript after every step, and copying every
/// call (its envelope JSON above all) was most of what that cost. Reads as a slice; a run appends with
/// [`Calls::push`], which copies only while an earlier transcript still holds the calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calls(std::sync::Arc<Vec<CallRecord>>);

impl Calls {
    /// Appends `call`.
    pub fn push(&mut self, call: CallRecord) {
        std::sync::Arc::make_mut(&mut self.0).push(call);
    }

    /// The calls, to change one in a test.
    #[cfg(test)]
    pub(crate) fn make_mut(&mut self) -> &mut Vec<CallRecord> {
        std::sync::Arc::make_mut(&mut self.0)
    }
}

impl std::ops::Deref for Calls {
    type Target = [CallRecord];

    fn deref(&self) -> &[CallRecord] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Calls {
    type Item = &'a CallRecord;
    type IntoIter = std::slice::Iter<'a, CallRecord>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<CallRecord>> for Calls {
    fn from(calls: Vec<CallRecord>) -> Calls {
        Calls(std::sync::Arc::new(calls))
    }
}

impl Serialize for Calls {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A step that made no call, for the timeline: what happened between the calls around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BetweenCalls {
    /// The subject was killed and started again (`action = "restart"`).
    Restart {
        /// The step, 0-based.
        step: usize,
    },
    /// The scenario let time pass (`action = "wait"`).
    Wait {
        /// The step, 0-based.
        step: usize,
        /// How long, in ms.
        ms: u64,
    },
    /// Another executor process was told a protocol version the harness does not speak (`action = "hello"`).
    Hello {
        /// The step, 0-based.
        step: usize,
        /// The version the `hello` named.
        protocol: String,
        /// What that process did.
        answer: HelloAnswer,
    },
}

impl BetweenCalls {
    /// The step, 0-based.
    pub fn step(&self) -> usize {
        match self {
            BetweenCalls::Restart { step } | BetweenCalls::Wait { step, .. } | BetweenCalls::Hello { step, .. } => {
                *step
            }
        }
    }

    /// The step as one line of the timeline and of a violation's evidence.
    pub fn line(&self) -> String {
        match self {
            BetweenCalls::Restart { step } => {
                format!("step {} restart: the executor was killed and started again", step + 1)
            }
            BetweenCalls::Wait { step, ms } => format!("step {} wait {ms} ms", step + 1),
            BetweenCalls::Hello { step, protocol, answer } => {
                format!("step {} hello {protocol} to another process of the executor: {answer}", step + 1)
            }
        }
    }
}

/// What an executor process did with a `hello` in a protocol version it cannot know. docs/protocol.md asks for
/// an `error` line and an exit; what counts as a refusal is anything but answering `capabilities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HelloAnswer {
    /// Its first line was something other than `capabilities` (an `error` line, as asked): that line.
    Refused {
        /// The line, cut to 200 characters.
        line: String,
    },
    /// It ended its output (or exited) without writing a line.
    Ended,
    /// It answered `capabilities` and went on as if it spoke the version: neither an `error` line nor an exit
    /// followed within 5 s (one that announces itself before it reads `hello` may take the version back so).
    Accepted {
        /// The version its capabilities named.
        protocol: String,
    },
    /// Neither a line nor the end of its output within this many ms (the start timeout).
    Silent {
        /// How long the harness waited.
        waited_ms: u64,
    },
}

impl HelloAnswer {
    /// Whether the process refused the version: it did not go on as if it spoke it. Silence counts: a harness of
    /// that version would have given up on it, as on any executor that does not answer `hello` in time.
    pub fn refused(&self) -> bool {
        !matches!(self, HelloAnswer::Accepted { .. })
    }
}

impl std::fmt::Display for HelloAnswer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HelloAnswer::Refused { line } => write!(formatter, "refused: {line}"),
            HelloAnswer::Ended => formatter.write_str("refused: it ended its output without a line"),
            HelloAnswer::Accepted { protocol } => write!(
                formatter,
                "accepted: it answered capabilities (protocol {protocol:?}), and no error line or exit followed"
            ),
            HelloAnswer::Silent { waited_ms } => {
                write!(formatter, "refused by silence: neither a line nor an exit in {waited_ms} ms")
            }
        }
    }
}

/// A corpus case the runner left out: it calls a catalog tool the subject does not declare, which the subject
/// rightly refuses with `tool_not_found` (docs/protocol.md), so its answer would say nothing about the case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftOut {
    /// The step (0-based).
    pub step: usize,
    /// The case's name.
    pub case: String,
    /// The tool it calls.
    pub tool: String,
}

/// Everything that happened in one scenario run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    /// The scenario's name.
    pub scenario: String,
    /// The subject's name.
    pub subject: String,
    /// Calls, in the order they were made.
    pub calls: Calls,
    /// Business operations.
    pub operations: Vec<Operation>,
    /// Downstream requests, in arrival order.
    pub exchanges: Vec<Exchange>,
    /// Requests that arrived at the foreign origin (a followed redirect), in arrival order.
    pub foreign: Vec<ForeignRequest>,
    /// Committed effects.
    pub ledger: Vec<Effect>,
    /// Every fault the steps armed, with how many requests each applied to.
    pub faults: Vec<FaultLog>,
    /// Idempotency records at the end, if the subject lets us look.
    pub records: Option<Vec<Record>>,
    /// When the records were read (Unix ms), for lease checks.
    pub records_read_at_ms: u64,
    /// The fate of every task (export job) the downstream started: the ground truth of task polls.
    pub tasks: Vec<TaskTruth>,
    /// The corpus cases the runner left out, because they call a catalog tool the subject does not declare.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// The mocked downstream's address as the executor was given it (`host:port`), over loopback; none in
    /// simulation. An answer that names it has told the model where the executor's services live.
    #[serde(skip)]
    pub downstream_address: Option<String>,
    /// The steps that made no call: a restart of the subject or a wait, in step order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub between_calls: Vec<BetweenCalls>,
    /// The `annotations` of each tool the subject's `tools/list` gave one (an MCP server's), by tool name; empty
    /// for a subject that lists no annotations. Shared, since a transcript is taken after every step of an
    /// exploration; not in the transcript's JSON (a report names the tool and its annotations in a violation).
    #[serde(skip)]
    pub tool_annotations: std::sync::Arc<BTreeMap<String, serde_json::Value>>,
    /// The notifications the subject sent beside its answers (an MCP server's `notifications/message`,
    /// progress, ...), in the order they came and bounded; empty for a subject that has no such channel. A log
    /// message reaches the client as an answer does, and `no-secret-leak` reads both.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<serde_json::Value>,
    /// The credentials the harness gave the subject with its calls (bearer tokens over MCP HTTP): no answer
    /// or notification may carry one back (`no-secret-leak`). Not in the JSON: they are secrets.
    #[serde(skip)]
    pub credentials: Vec<String>,
    /// Which exchanges belong to which call and operation, built on first use, so that the checks' lookups stay
    /// linear in the size of the run. A transcript is read-only once built; changing `exchanges` after a lookup
    /// would leave this stale.
    #[serde(skip)]
    pub(crate) index: ExchangeIndex,
}

/// The exchanges of each call and of each operation, and the ledger entries of each operation, by position.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExchangeIndex(std::sync::OnceLock<Lists>);

#[derive(Debug, Clone, Default)]
struct Lists {
    exchanges_by_call: Vec<Vec<usize>>,
    exchanges_by_op: Vec<Vec<usize>>,
    effects_by_op: Vec<Vec<usize>>,
    /// For each exchange tied to its operation only, the calls that may have sent it.
    shared_senders: std::collections::BTreeMap<usize, Vec<usize>>,
    /// The exchanges tied to an operation only, under the last call that may have sent each.
    shared_by_last_sender: Vec<Vec<usize>>,
}

impl PartialEq for ExchangeIndex {
    /// A cache: two transcripts are equal by what they hold, never by whether they have looked something up.
    fn eq(&self, _: &ExchangeIndex) -> bool {
        true
    }
}

/// Adds `position` to the list of `owner`, growing the lists as needed.
fn file_under(lists: &mut Vec<Vec<usize>>, owner: Option<usize>, position: usize) {
    if let Some(owner) = owner {
        if lists.len() <= owner {
            lists.resize_with(owner + 1, Vec::new);
        }
        lists[owner].push(position);
    }
}

impl Transcript {
    /// The exchanges caused by call `index`.
    pub fn exchanges_of_call(&self, index: usize) -> impl Iterator<Item = &Exchange> {
        let positions = self.lists().exchanges_by_call.get(index).into_iter().flatten();
        positions.map(|position| &self.exchanges[*position])
    }

    /// The exchanges of operation `op`.
    pub fn exchanges_of_op(&self, op: usize) -> impl Iterator<Item = &Exchange> {
        let positions = self.lists().exchanges_by_op.get(op).into_iter().flatten();
        positions.map(|position| &self.exchanges[*position])
    }

    /// The distinct effects of operation `op` (identical repeatable writes count once).
    pub fn effects_of_op(&self, op: usize) -> Vec<&Effect> {
        let mut seen = std::collections::BTreeSet::new();
        let positions = self.lists().effects_by_op.get(op).into_iter().flatten();
        positions
            .map(|position| &self.ledger[*position])
            .filter(|effect| seen.insert(effect.effect_id.clone()))
            .collect()
    }

    fn lists(&self) -> &Lists {
        self.index.0.get_or_init(|| {
            let mut lists = Lists::default();
            for (position, exchange) in self.exchanges.iter().enumerate() {
                file_under(&mut lists.exchanges_by_call, exchange.call, position);
                file_under(&mut lists.exchanges_by_op, exchange.op, position);
            }
            for (position, effect) in self.ledger.iter().enumerate() {
                let op = self.exchanges.get(effect.request).and_then(|exchange| exchange.op);
                file_under(&mut lists.effects_by_op, op, position);
            }
            let requests = self.exchanges.iter().map(|exchange| exchange.record.index + 1).max().unwrap_or(0);
            let open = in_flight_by_request(&self.calls, requests);
            for (position, exchange) in self.exchanges.iter().enumerate() {
                let (None, Some(op)) = (exchange.call, exchange.op) else { continue };
                let senders: Vec<usize> =
                    open[exchange.record.index].iter().copied().filter(|call| self.calls[*call].op == op).collect();
                file_under(&mut lists.shared_by_last_sender, senders.last().copied(), position);
                lists.shared_senders.insert(position, senders);
            }
            lists
        })
    }

    /// The calls that may have sent `exchange`: its call; for a request tied to its operation only, the calls
    /// of the operation in flight when it arrived; none for a request tied to nothing.
    pub fn senders(&self, exchange: &Exchange) -> Vec<&CallRecord> {
        match (exchange.call, exchange.op) {
            (Some(call), _) => vec![&self.calls[call]],
            (None, Some(op)) => match self.position_of(exchange).and_then(|at| self.lists().shared_senders.get(&at)) {
                Some(senders) => senders.iter().map(|call| &self.calls[*call]).collect(),
                // Not one of this transcript's exchanges: work it out.
                None => in_flight(&self.calls, exchange.record.index).filter(|call| call.op == op).collect(),
            },
            (None, None) => Vec::new(),
        }
    }

    /// Where `exchange` is in [`Transcript::exchanges`]: requests are kept in arrival order, so at its index.
    fn position_of(&self, exchange: &Exchange) -> Option<usize> {
        let index = exchange.record.index;
        self.exchanges.get(index).filter(|own| own.record.index == index).map(|_| index)
    }

    /// The requests that any of `calls` may have sent, in arrival order: their own, and those tied to their
    /// operation only that arrived while one of them was in flight (a burst's requests, with or without ids).
    pub fn exchanges_of_calls(&self, calls: &[&CallRecord]) -> Vec<&Exchange> {
        let mine = |call: &CallRecord| calls.iter().any(|own| own.index == call.index);
        let ops: std::collections::BTreeSet<usize> = calls.iter().map(|call| call.op).collect();
        // Through the index: the calls' own requests, and their operations' requests tied to no call.
        let mut found: Vec<&Exchange> = calls.iter().flat_map(|call| self.exchanges_of_call(call.index)).collect();
        let shared =
            ops.into_iter().flat_map(|op| self.exchanges_of_op(op)).filter(|exchange| exchange.operation_only());
        found.extend(shared.filter(|exchange| self.senders(exchange).into_iter().any(mine)));
        found.sort_by_key(|exchange| exchange.record.index);
        found.dedup_by_key(|exchange| exchange.record.index);
        found
    }

    /// The requests tied to call `index`'s operation only of which it is the last call that may have sent
    /// them: where evidence shows them, under that call.
    pub fn shared_under(&self, index: usize) -> impl Iterator<Item = &Exchange> {
        let positions = self.lists().shared_by_last_sender.get(index).into_iter().flatten();
        positions.map(|position| &self.exchanges[*position])
    }

    /// The requests no call may have sent.
    pub fn strays(&self) -> impl Iterator<Item = &Exchange> {
        self.exchanges.iter().filter(|exchange| self.senders(exchange).is_empty())
    }

    /// Attributes each downstream request: to the one call whose envelope's request id it carries among the
    /// calls made before it arrived (of several that carry it, the one in flight), else to the only call in flight when it arrived, else, when the calls
    /// in flight all belong to one operation, to that operation and to none of its calls; else to nothing.
    pub fn attribute(calls: &[CallRecord], records: Vec<RequestRecord>) -> Vec<Exchange> {
        let requests = records.iter().map(|record| record.index + 1).max().unwrap_or(0);
        let open_by_request = in_flight_by_request(calls, requests);
        let mut by_request_id: std::collections::BTreeMap<&str, Vec<&CallRecord>> = std::collections::BTreeMap::new();
        for call in calls {
            if let Some(id) = call.request_id() {
                by_request_id.entry(id).or_default().push(call);
            }
        }
        records
            .into_iter()
            .map(|record| {
                let open: Vec<&CallRecord> = open_by_request[record.index].iter().map(|call| &calls[*call]).collect();
                // A call cannot have sent a request that arrived before it was made: an executor that gives the
                // calls of one operation one request id does not get an earlier call's request moved to a later one.
                let named: Vec<&CallRecord> = record
                    .request_id
                    .as_deref()
                    .and_then(|id| by_request_id.get(id))
                    .map(|named| named.iter().copied().filter(|call| call.first_request <= record.index).collect())
                    .unwrap_or_default();
                let named_in_flight =
                    named.iter().copied().filter(|call| open.iter().any(|other| other.index == call.index));
                let by_id = match named.as_slice() {
                    [only] => Some(*only),
                    [] => None,
                    _ => single(named_in_flight),
                };
                let (call, op) = match (by_id, open.as_slice()) {
                    (Some(call), _) | (None, &[call]) => (Some(call.index), Some(call.op)),
                    (None, [first, rest @ ..]) if rest.iter().all(|call| call.op == first.op) => (None, Some(first.op)),
                    _ => (None, None),
                };
                Exchange { call, op, record }
            })
            .collect()
    }

    /// Every line of the transcript, in order, for evidence and snapshots.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for call in &self.calls {
            lines.push(call.line());
            lines.extend(self.exchanges_of_call(call.index).map(Exchange::line));
            lines.extend(self.shared_under(call.index).map(Exchange::line));
        }
        let stray: Vec<String> = self.strays().map(Exchange::line).collect();
        if !stray.is_empty() {
            lines.push("unattributed requests:".to_owned());
            lines.extend(stray);
        }
        if !self.foreign.is_empty() {
            lines.push("requests at the foreign origin:".to_owned());
            lines.extend(self.foreign.iter().map(|request| format!("  ↳ {}", request.line())));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_shares_its_calls_and_keeps_them_when_the_run_goes_on() {
        let (calls, _) = calls_and_requests("submit refund_order -> ok; and -> ok");
        let mut run = Calls::from(calls[..1].to_vec());
        let taken = run.clone();
        assert!(std::ptr::eq(&taken[0], &run[0]), "taking a transcript copies no call");
        run.push(calls[1].clone());
        assert_eq!((taken.len(), run.len()), (1, 2), "the transcript taken before keeps what it had");
        assert_eq!(taken[0], run[0]);
        let alone = run.clone();
        drop(run);
        assert_eq!(alone.iter().map(|call| call.index).collect::<Vec<_>>(), [calls[0].index, calls[1].index]);
    }
    use crate::checks::testing::history;

    /// The script's calls with their requests taken back out, as the runner hands them over.
    fn calls_and_requests(script: &str) -> (Vec<CallRecord>, Vec<RequestRecord>) {
        let transcript = history(script).transcript();
        (transcript.calls.to_vec(), transcript.exchanges.into_iter().map(|exchange| exchange.record).collect())
    }

    #[test]
    fn the_sweep_finds_the_calls_in_flight_that_a_scan_finds() {
        let (mut calls, _) =
            calls_and_requests("submit refund_order -> ok; and -> ok; and -> ok; and -> ok; and -> ok");
        // Windows that nest, overlap, touch, are empty, and run past the last request.
        for (call, (first, until)) in calls.iter_mut().zip([(0, 3), (1, 2), (2, 6), (3, 3), (5, 9)]) {
            (call.first_request, call.requests_until) = (first, until);
        }
        let swept = in_flight_by_request(&calls, 7);
        for (index, open) in swept.iter().enumerate() {
            let scanned: Vec<usize> = in_flight(&calls, index).map(|call| call.index).collect();
            assert_eq!(open, &scanned, "request {index}");
        }
        assert_eq!(swept[2], [0, 2]);
    }

    #[test]
    fn a_request_goes_to_the_call_whose_request_id_it_carries_even_outside_its_window() {
        let (mut calls, records) = calls_and_requests(
            "submit refund_order -> ok; submit send_email -> ok; request POST /refunds -> committed rid=req_0",
        );
        calls[0].requests_until = 0;
        let exchanges = Transcript::attribute(&calls, records);
        assert_eq!((exchanges[0].call, exchanges[0].op), (Some(0), Some(0)));
    }

    #[test]
    fn a_request_id_of_a_call_made_after_the_request_arrived_does_not_claim_it() {
        // The calls of one operation share a request id: the first call's request stays the first call's.
        let (mut calls, records) = calls_and_requests(
            "submit refund_order -> timeout_unknown rid=req_op; retry -> ok rid=req_op
             request POST /refunds -> committed rid=req_op",
        );
        calls[0].requests_until = 1;
        calls[1].first_request = 1;
        assert_eq!(Transcript::attribute(&calls, records)[0].call, Some(0));
    }

    #[test]
    fn without_a_request_id_a_request_goes_to_the_only_call_in_flight() {
        let (calls, records) =
            calls_and_requests("submit refund_order -> ok; request POST /refunds -> committed rid=none");
        assert_eq!(Transcript::attribute(&calls, records)[0].call, Some(0));
    }

    #[test]
    fn without_a_request_id_calls_of_different_operations_in_flight_leave_it_unattributed() {
        let (mut calls, records) = calls_and_requests(
            "submit refund_order -> ok; submit send_email -> ok; request POST /emails -> committed rid=none",
        );
        calls[0].requests_until = 1;
        let exchanges = Transcript::attribute(&calls, records);
        assert_eq!((exchanges[0].call, exchanges[0].op), (None, None));
    }

    #[test]
    fn without_a_request_id_calls_of_one_operation_in_flight_leave_it_to_the_operation_alone() {
        let mut transcript = history(
            "burst refund_order -> operation_in_progress; and -> ok; request POST /refunds -> committed rid=none",
        )
        .transcript();
        transcript.calls.make_mut()[0].requests_until = 1;
        let records = transcript.exchanges.iter().map(|exchange| exchange.record.clone()).collect();
        transcript.exchanges = Transcript::attribute(&transcript.calls, records);
        let exchange = &transcript.exchanges[0];
        assert_eq!((exchange.call, exchange.op), (None, Some(0)));
        let senders: Vec<usize> = transcript.senders(exchange).iter().map(|call| call.index).collect();
        assert_eq!(senders, [0, 1]);
        assert_eq!(transcript.effects_of_op(0).len(), 1);
        assert_eq!(transcript.exchanges_of_call(0).count() + transcript.exchanges_of_call(1).count(), 0);
        assert!(transcript.lines()[2].ends_with("(one of the operation's calls in flight)"));
    }

    #[test]
    fn a_request_id_several_envelopes_carry_goes_to_the_one_of_them_in_flight() {
        let (mut calls, records) = calls_and_requests(
            "submit refund_order -> ok rid=req_same; retry -> ok replayed rid=req_same
             request GET /refunds?idempotency_key=k1 -> 200 rid=req_same",
        );
        calls[1].first_request = 0;
        assert_eq!(Transcript::attribute(&calls, records)[0].call, Some(1));
    }

    #[test]
    fn a_malformed_answer_is_kept_apart_and_still_counts_as_having_come_back() {
        let answer = Answer::read(serde_json::json!({"ok": "yes"}));
        assert!(matches!(answer, Answer::Malformed(_)) && answer.came_back() && answer.envelope().is_none());
        assert_eq!(answer.to_string(), "not an envelope: `ok` is missing or not a boolean");
    }
}
