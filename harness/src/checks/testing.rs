//! Literal transcripts for the checks' unit tests, in the style of Jepsen's checker tests: a few lines of
//! script are a whole run, and a test asserts the verdict and the key part of its message.
//!
//! Rule enforced here: a script names only what the test is about; everything else gets a default that no
//! check objects to (valid arguments, envelopes that follow the code table and the schema, and request ids
//! that tie each request to its call).
//!
//! A script is statements separated by newlines or `;`, each `WHAT -> OUTCOME`:
//!
//! ```text
//! submit refund_order -> ok                       a new operation in a new step (also: burst, corpus)
//! retry -> ok replayed                            the latest operation again (also: duplicate, changed)
//! and -> operation_in_progress                    one more call of the latest step (a burst)
//! request POST /refunds -> committed key=k1       a downstream request of the latest call
//! request POST /refunds -> dropped stray          a request no call accounts for
//! foreign POST /refunds -> identity body=60        a request at the foreign origin (a followed redirect)
//! request POST /refunds -> committed op           a request of the latest step's operation, no id tying it
//!                                                 to one of that step's calls (all in flight when it arrived)
//! ```
//!
//! Calls take `as=alice|bob|mallory|sue`, `args=JSON` (no spaces), `budget=MS`, `took=MS`, `sent=MS` (when it
//! was sent; default 100 × its index), `case=NAME`. Their
//! outcome is `ok [replayed] [reconciled] [result=JSON]`, an error code with `name=value` details (and
//! `retryable=` or `resolution=` to lie about the table, `message="JSON_STRING"` for another text than
//! `literal`), `killed`, `no-answer`, `broken` or `garbage` (not an envelope), each optionally with `rid=ID|none`, `key=KEY`,
//! `cid=ID|none` (`call_id`) and `att=N|none` (`attempt`) for the envelope's meta, and `built` when the harness
//! wrote that meta (as for a JSON-RPC error; `-32700` implies it). Requests answer
//! `committed`, `deduplicated`, `abandoned`, a status or `dropped`, with `key=`, `fault=`, `deadline=`, `rid=`,
//! `reply=`, `effect=`, `owner=`, `tenant=`, `xtenant=ID|none` and `xsubject=ID|none` (the identity headers; default:
//! the caller of the request's call, or of the latest call), `after=MS` (arrival after the call was sent, default 1),
//! `answered=MS` (when the answer left, after the call was sent; default: on arrival, none when dropped), `call=N`,
//! `op` or `stray`. A fault is its kind and its parameters, comma
//! separated: `fault=commit_then_drop`, `fault=rate_limit,retry_after=2`. A foreign request carries nothing
//! unless told: `identity` (the latest call's four identity headers), `rid=`, `key=`, `tenant=`, `subject=`,
//! `body=BYTES`.

use super::{Check, Context, Outcome, Violation};

/// The mocked downstream's address every history's transcript carries (over loopback, the runner's).
pub(crate) const DOWNSTREAM_ADDRESS: &str = "127.0.0.1:41234";

use crate::corpus::Corpus;
use crate::scenario::{Scenario, StepKind};
use crate::transcript::{Answer, BetweenCalls, CallRecord, Exchange, HelloAnswer, Operation, Refusal, Transcript};
use crate::world::{
    Answered, Effect, EffectKind, FaultKind, FaultLog, Fired, ForeignRequest, Handling, RequestRecord, TaskTruth,
    endpoint_of,
};
use callproof_executor::app::{CatalogEntry, catalog};
use callproof_executor::idempotency::Record;
use callproof_executor::{Arguments, ErrorCode};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// A run written out by hand.
pub(crate) struct History {
    calls: Vec<CallRecord>,
    operations: Vec<Operation>,
    exchanges: Vec<Exchange>,
    foreign: Vec<ForeignRequest>,
    ledger: Vec<Effect>,
    records: Option<Vec<Record>>,
    records_read_at_ms: u64,
    /// What each armed fault did (none by default).
    pub(crate) faults: Vec<FaultLog>,
    scenario: Option<String>,
    steps: usize,
    tasks: Vec<TaskTruth>,
    between_calls: Vec<BetweenCalls>,
    tool_annotations: std::sync::Arc<BTreeMap<String, Value>>,
    notices: Vec<Value>,
    credentials: Vec<String>,
}

/// The run a script describes.
pub(crate) fn history(script: &str) -> History {
    let mut history = History {
        calls: Vec::new(),
        operations: Vec::new(),
        exchanges: Vec::new(),
        foreign: Vec::new(),
        ledger: Vec::new(),
        records: None,
        records_read_at_ms: 0,
        faults: Vec::new(),
        scenario: None,
        steps: 0,
        tasks: Vec::new(),
        between_calls: Vec::new(),
        tool_annotations: Default::default(),
        notices: Vec::new(),
        credentials: Vec::new(),
    };
    for statement in script.split(['\n', ';']).map(str::trim).filter(|statement| !statement.is_empty()) {
        let (what, outcome) = statement.split_once("->").unwrap_or_else(|| panic!("`{statement}`: no `->`"));
        let what: Vec<&str> = what.split_whitespace().collect();
        let outcome: Vec<&str> = outcome.split_whitespace().collect();
        match what.first().copied() {
            Some("request") => history.request(&what[1..], &outcome),
            Some("foreign") => history.foreign(&what[1..], &outcome),
            Some("hello") => history.hello(&what[1..], &outcome),
            Some(action) => history.call(action, &what[1..], &outcome),
            None => panic!("`{statement}`: nothing before `->`"),
        }
    }
    history
}

/// `name=value` words.
fn attribute<'w>(words: &[&'w str], name: &str) -> Option<&'w str> {
    words.iter().find_map(|word| word.strip_prefix(name)?.strip_prefix('='))
}

/// A request's `X-Request-Id`: `rid=none` leaves it out, `rid=ID` sends ID, else its owner's (none for a request
/// tied to its operation only) or one no envelope carries.
fn request_id(outcome: &[&str], index: usize, owner: Option<&CallRecord>) -> Option<String> {
    match attribute(outcome, "rid") {
        Some("none") => None,
        Some(id) => Some(id.to_owned()),
        None => owner.and_then(|call| call.request_id().map(str::to_owned)).or(Some(format!("req_x{index}"))),
    }
}

/// A request's body: `body=TEXT` (no spaces) sends TEXT; a POST or PUT sends its owner's arguments, as a correct
/// executor does; anything else none.
fn body(method: &str, outcome: &[&str], owner: Option<&CallRecord>) -> Option<Vec<u8>> {
    match attribute(outcome, "body") {
        Some(text) => Some(text.as_bytes().to_vec()),
        None => owner.filter(|_| matches!(method, "POST" | "PUT")).map(|call| match &call.arguments {
            Arguments::Raw(text) => text.as_bytes().to_vec(),
            Arguments::Value(value) => value.to_string().into_bytes(),
        }),
    }
}

/// An identity header of a request: `NAME=none` leaves it out, `NAME=VALUE` sends VALUE, else `default`.
fn header(words: &[&str], name: &str, default: Option<String>) -> Option<String> {
    match attribute(words, name) {
        Some("none") => None,
        Some(value) => Some(value.to_owned()),
        None => default,
    }
}

/// The caller: (tenant, subject, roles).
fn caller(name: &str) -> (&'static str, &'static str, &'static [&'static str]) {
    match name {
        "alice" => ("t_acme", "u_alice", &[]),
        "bob" => ("t_acme", "u_bob", &[]),
        "sue" => ("t_acme", "u_sue", &["support_admin"]),
        "mallory" => ("t_evil", "u_mallory", &[]),
        other => panic!("unknown caller `{other}`"),
    }
}

/// Arguments each tool's schema accepts.
/// `name[,param=value...]` as the fault kind it names.
fn fault_kind(text: &str) -> FaultKind {
    let mut parts = text.split(',');
    let name = parts.next().unwrap_or_default();
    let table = std::iter::once(format!("kind = \"{name}\"")).chain(parts.map(|part| part.replacen('=', " = ", 1)));
    toml::from_str(&table.collect::<Vec<_>>().join("\n")).unwrap_or_else(|error| panic!("fault `{text}`: {error}"))
}

fn default_arguments(tool: &str) -> Value {
    match tool {
        "refund_order" => json!({"order_id": "ord_1", "amount": 100, "reason": "duplicate"}),
        "get_order" => json!({"order_id": "ord_1"}),
        "delete_account" => json!({"account_id": "acct_1"}),
        "send_email" => json!({"to": "a@example.com", "subject": "hello", "body": "hi"}),
        "set_preference" => json!({"key": "theme", "value": "dark"}),
        "get_weather" => json!({"location": "Paris", "units": "celsius"}),
        "export_account_data" => json!({"account_id": "acct_1", "format": "json"}),
        "task_status" | "task_cancel" => json!({"task_id": "exp_1"}),
        _ => json!({}),
    }
}

impl History {
    fn call(&mut self, action: &str, words: &[&str], outcome: &[&str]) {
        let tool = words.first().filter(|word| !word.contains('='));
        let index = self.calls.len();
        let previous = self.calls.last();
        let (action, op, step, tool, attempt) = match (action, tool, previous) {
            ("submit" | "burst" | "corpus", Some(tool), _) => {
                self.operations.push(Operation {
                    name: format!("op{}", self.operations.len() + 1),
                    tool: (*tool).to_owned(),
                    calls: Vec::new(),
                });
                let action = match action {
                    "burst" => StepKind::Burst,
                    "corpus" => StepKind::Corpus,
                    _ => StepKind::Submit,
                };
                (action, self.operations.len() - 1, self.steps, (*tool).to_owned(), 1)
            }
            ("and", None, Some(last)) => (last.action, last.op, last.step, last.tool.clone(), last.attempt),
            ("retry" | "changed", None, Some(last)) => (
                if action == "retry" { StepKind::Retry } else { StepKind::Changed },
                last.op,
                self.steps,
                last.tool.clone(),
                last.attempt + 1,
            ),
            ("duplicate", None, Some(last)) => {
                (StepKind::Duplicate, last.op, self.steps, last.tool.clone(), last.attempt)
            }
            _ => panic!("`{action} {words:?}`: submit, burst and corpus name a tool; the others follow a call"),
        };
        if step == self.steps {
            self.steps += 1;
        }
        let auth = attribute(words, "as").unwrap_or("alice");
        let (tenant, subject, roles) = caller(auth);
        let arguments = match attribute(words, "args") {
            Some(text) => Arguments::Raw(text.to_owned()),
            None if action == StepKind::Changed => {
                Arguments::Value(json!({"order_id": "ord_1", "amount": 7, "reason": "changed"}))
            }
            None => Arguments::Value(default_arguments(&tool)),
        };
        let number =
            |name: &str, default: u64| attribute(words, name).map_or(default, |value| value.parse().expect("a number"));
        let started_ms = number("sent", 100 * index as u64);
        let call_id = format!("call_{}", index + 1);
        let answer = answer(outcome, index, &call_id, attempt);
        self.operations[op].calls.push(index);
        self.calls.push(CallRecord {
            index,
            step,
            action,
            op,
            call_id,
            tool,
            arguments,
            auth: auth.to_owned(),
            tenant_id: tenant.to_owned(),
            subject_id: subject.to_owned(),
            roles: roles.iter().map(|role| (*role).to_owned()).collect(),
            approval: None,
            wall_ms: 1_800_000_000_000 + started_ms,
            business_request_id: Some("br_1".to_owned()),
            attempt,
            budget_ms: number("budget", 3000),
            started_ms,
            answered_ms: started_ms + number("took", 20),
            first_request: self.exchanges.len(),
            requests_until: self.exchanges.len(),
            answer,
            corpus_case: attribute(words, "case").map(str::to_owned),
            stagger_ms: 0,
            refusal: outcome.contains(&"-32700").then(Refusal::parse_error),
            meta_by_harness: outcome.contains(&"-32700") || outcome.contains(&"built"),
        });
    }

    fn request(&mut self, what: &[&str], outcome: &[&str]) {
        let [method, path] = what else { panic!("`request {what:?}`: request METHOD PATH") };
        let index = self.exchanges.len();
        let call = if outcome.contains(&"stray") {
            None
        } else {
            Some(attribute(outcome, "call").map_or(self.calls.len() - 1, |call| call.parse().expect("a call index")))
        };
        let owner = call.map(|call| self.calls[call].clone());
        let owner = owner.as_ref();
        // Tied to the owner's operation only: every call of its step in flight, none named by the request id.
        let operation_only = outcome.contains(&"op");
        let (path_only, query) = path.split_once('?').unwrap_or((path, ""));
        let side_effect = matches!(*method, "POST" | "PUT" | "DELETE");
        let committed = outcome.contains(&"committed");
        let handling = self.handling(method, path_only, outcome, index, owner);
        let status = match outcome.iter().find_map(|word| word.parse::<u16>().ok()) {
            _ if outcome.contains(&"dropped") => None,
            Some(status) => Some(status),
            None => Some(if committed { 201 } else { 200 }),
        };
        let request_id = request_id(outcome, index, owner.filter(|_| !operation_only));
        let since_call = |name: &str, default: u64| {
            owner.map_or(0, |call| {
                call.started_ms + attribute(outcome, name).map_or(default, |ms| ms.parse::<u64>().expect("a number"))
            })
        };
        let at_ms = since_call("after", 1);
        let record = RequestRecord {
            index,
            at_ms,
            endpoint: endpoint_of(method, path_only),
            method: (*method).to_owned(),
            path: (*path).to_owned(),
            idempotency_key: attribute(outcome, "key").map(str::to_owned),
            deadline_ms: match attribute(outcome, "deadline") {
                Some("none") => None,
                Some(deadline) => Some(deadline.to_owned()),
                None => owner.map(|call| call.budget_ms.to_string()),
            },
            request_id,
            tenant_id: header(outcome, "xtenant", owner.or(self.calls.last()).map(|call| call.tenant_id.clone())),
            subject_id: header(outcome, "xsubject", owner.or(self.calls.last()).map(|call| call.subject_id.clone())),
            side_effect,
            status_query: *method == "GET" && query.contains("idempotency_key="),
            fault: attribute(outcome, "fault")
                .map(|fault| Fired { step: owner.map_or(0, |call| call.step), kind: fault_kind(fault) }),
            handling,
            status,
            answered_ms: status
                .map(|_| since_call("answered", at_ms.saturating_sub(owner.map_or(0, |call| call.started_ms)))),
            reply: attribute(outcome, "reply").unwrap_or("{}").to_owned(),
            body: body(method, outcome, owner),
            answered: status
                .filter(|status| (200..300).contains(status))
                .map(|_| Answered::new(attribute(outcome, "reply").unwrap_or("{}").as_bytes().to_vec())),
        };
        let op = owner.map(|call| call.op);
        let in_flight = |other: &CallRecord| match owner {
            Some(owner) if operation_only => other.step == owner.step && other.op == owner.op,
            Some(owner) => other.index == owner.index,
            None => false,
        };
        for other in self.calls.iter_mut().filter(|other| in_flight(other)) {
            other.first_request = other.first_request.min(index);
            other.requests_until = index + 1;
        }
        let call = call.filter(|_| !operation_only);
        self.exchanges.push(Exchange { record, call, op });
    }

    /// What the downstream did with a request: `committed` commits its effect, `deduplicated` and `abandoned` say
    /// so, anything else had no effect.
    fn handling(
        &mut self,
        method: &str,
        path: &str,
        outcome: &[&str],
        index: usize,
        owner: Option<&CallRecord>,
    ) -> Handling {
        if outcome.contains(&"committed") {
            self.commit(method, path, outcome, index, owner)
        } else if outcome.contains(&"deduplicated") {
            Handling::Deduplicated
        } else if outcome.contains(&"abandoned") {
            Handling::AbandonedAtDeadline
        } else {
            Handling::NoEffect
        }
    }

    fn foreign(&mut self, what: &[&str], outcome: &[&str]) {
        let [method, path] = what else { panic!("`foreign {what:?}`: foreign METHOD PATH") };
        let last = self.calls.last();
        let mut identity = std::collections::BTreeMap::new();
        if outcome.contains(&"identity") {
            let last = last.expect("`identity` copies the latest call's");
            identity.insert("x-tenant-id".to_owned(), last.tenant_id.clone());
            identity.insert("x-subject-id".to_owned(), last.subject_id.clone());
            identity.insert("idempotency-key".to_owned(), "k1".to_owned());
            identity.insert("x-request-id".to_owned(), format!("req_{}", last.index));
        }
        for (word, header) in [
            ("rid", "x-request-id"),
            ("key", "idempotency-key"),
            ("tenant", "x-tenant-id"),
            ("subject", "x-subject-id"),
        ] {
            if let Some(value) = attribute(outcome, word) {
                identity.insert(header.to_owned(), value.to_owned());
            }
        }
        self.foreign.push(ForeignRequest {
            index: self.foreign.len(),
            at_ms: last.map_or(0, |call| call.started_ms + 2),
            method: (*method).to_owned(),
            path: (*path).to_owned(),
            identity,
            body_bytes: attribute(outcome, "body").map_or(0, |bytes| bytes.parse().expect("a number")),
        });
    }

    fn commit(
        &mut self,
        method: &str,
        path: &str,
        outcome: &[&str],
        request: usize,
        owner: Option<&CallRecord>,
    ) -> Handling {
        let kind = match endpoint_of(method, path).as_str() {
            "POST /refunds" => EffectKind::Refund,
            "POST /emails" => EffectKind::Email,
            "DELETE /accounts" => EffectKind::Deletion,
            "PUT /preferences" => EffectKind::Preference,
            "POST /exports" => EffectKind::Export,
            "DELETE /exports" => EffectKind::Cancellation,
            other => panic!("`{other}` commits nothing in the conformance app"),
        };
        let effect_id =
            attribute(outcome, "effect").map_or_else(|| format!("fx_{}", self.ledger.len() + 1), str::to_owned);
        let tenant_id = attribute(outcome, "tenant").map(str::to_owned);
        let owner_id = attribute(outcome, "owner").map(str::to_owned);
        self.ledger.push(Effect {
            kind,
            effect_id,
            request,
            key: attribute(outcome, "key").map(str::to_owned),
            tenant_id: tenant_id.or(owner.map(|call| call.tenant_id.clone())).unwrap_or_default(),
            owner_id: owner_id.or(owner.map(|call| call.subject_id.clone())).unwrap_or_default(),
            target: path.rsplit('/').next().unwrap_or_default().to_owned(),
            amount: None,
            committed_ms: owner.map_or(0, |call| call.started_ms + 2),
        });
        Handling::Committed(self.ledger.len() - 1)
    }

    /// Changes a call the script wrote (for what the script has no word for).
    pub(crate) fn with_call(mut self, index: usize, change: impl FnOnce(&mut CallRecord)) -> History {
        change(&mut self.calls[index]);
        self
    }

    /// The subject's `tools/list` annotations, as `(tool, annotations)` pairs.
    pub(crate) fn with_annotations(mut self, annotations: &[(&str, Value)]) -> History {
        let listed = annotations.iter().map(|(tool, value)| ((*tool).to_owned(), value.clone())).collect();
        self.tool_annotations = std::sync::Arc::new(listed);
        self
    }

    /// The notifications the subject sent beside its answers, in order.
    pub(crate) fn with_notices(mut self, notices: Vec<Value>) -> History {
        self.notices = notices;
        self
    }

    /// The credentials the harness gave the subject (bearer tokens).
    pub(crate) fn with_credentials(mut self, credentials: Vec<String>) -> History {
        self.credentials = credentials;
        self
    }

    /// The idempotency records the subject showed, and when they were read (Unix ms).
    pub(crate) fn with_records(mut self, records: Vec<Record>, read_at_ms: u64) -> History {
        self.records = Some(records);
        self.records_read_at_ms = read_at_ms;
        self
    }

    /// The scenario the run played (TOML), when a check reads it; by default one `wait` step per step.
    pub(crate) fn with_scenario(mut self, toml: &str) -> History {
        self.scenario = Some(toml.to_owned());
        self
    }

    /// The transcript.
    pub(crate) fn transcript(&self) -> Transcript {
        Transcript {
            scenario: "literal".to_owned(),
            subject: "literal".to_owned(),
            calls: self.calls.clone().into(),
            operations: self.operations.clone(),
            exchanges: self.exchanges.clone(),
            foreign: self.foreign.clone(),
            ledger: self.ledger.clone(),
            faults: self.faults.clone(),
            records: self.records.clone(),
            records_read_at_ms: self.records_read_at_ms,
            tasks: self.tasks.clone(),
            left_out: Vec::new(),
            tool_annotations: self.tool_annotations.clone(),
            notices: self.notices.clone(),
            credentials: self.credentials.clone(),
            between_calls: self.between_calls.clone(),
            downstream_address: Some(DOWNSTREAM_ADDRESS.to_owned()),
            index: Default::default(),
        }
    }

    /// A task (export job) the downstream started at `started_ms` for alice's tenant, and how it ended.
    pub(crate) fn with_task(mut self, task_id: &str, final_status: &str, started_ms: u64, ended_ms: u64) -> History {
        self.tasks.push(TaskTruth {
            task_id: task_id.to_owned(),
            tenant_id: "t_acme".to_owned(),
            started_ms,
            final_status: final_status.to_owned(),
            ended_ms,
            cancel_requested_ms: None,
        });
        self
    }

    /// `hello VERSION -> refused [line=TEXT] | ended | accepted [protocol=VERSION] | silent`: a step that told
    /// another process of the executor `VERSION`, and what it did.
    fn hello(&mut self, what: &[&str], outcome: &[&str]) {
        let [protocol] = what else { panic!("hello takes one version: {what:?}") };
        let answer = match outcome.first().copied() {
            Some("refused") => {
                HelloAnswer::Refused { line: attribute(outcome, "line").unwrap_or(r#"{"type":"error"}"#).to_owned() }
            }
            Some("ended") => HelloAnswer::Ended,
            Some("accepted") => {
                HelloAnswer::Accepted { protocol: attribute(outcome, "protocol").unwrap_or("callproof/1").to_owned() }
            }
            Some("silent") => HelloAnswer::Silent { waited_ms: 20_000 },
            other => panic!("a hello ends refused, ended, accepted or silent, not {other:?}"),
        };
        self.between_calls.push(BetweenCalls::Hello { step: self.steps, protocol: (*protocol).to_owned(), answer });
        self.steps += 1;
    }

    /// The verdict of `check` on this run.
    pub(crate) fn judge(&self, check: &Check) -> Outcome {
        let waits = "[[step]]\naction = \"wait\"\nms = 0\n".repeat(self.steps.max(1));
        let text = self.scenario.clone().unwrap_or(format!("description = \"literal\"\n{waits}"));
        let scenario = Scenario::parse(&text).unwrap_or_else(|error| panic!("the literal scenario: {error}"));
        let corpus = Corpus::shipped();
        let catalog: Vec<CatalogEntry> = catalog();
        let transcript = self.transcript();
        (check.run)(&Context { transcript: &transcript, scenario: &scenario, corpus: &corpus, catalog: &catalog })
    }

    /// Asserts that `check` passes.
    pub(crate) fn passes(&self, check: &Check) {
        assert_eq!(self.judge(check), Outcome::Pass, "{} on\n{}", check.id, self.transcript().lines().join("\n"));
    }

    /// Asserts that `check` skips.
    pub(crate) fn skips(&self, check: &Check) {
        assert_eq!(self.judge(check), Outcome::Skip, "{} on\n{}", check.id, self.transcript().lines().join("\n"));
    }

    /// Asserts that `check` fails with a message containing `needle`, and returns the violations.
    pub(crate) fn fails(&self, check: &Check, needle: &str) -> Vec<Violation> {
        let Outcome::Fail { violations } = self.judge(check) else {
            panic!("{} did not fail on\n{}", check.id, self.transcript().lines().join("\n"))
        };
        assert!(
            violations.iter().any(|violation| violation.message.contains(needle)),
            "{}: no message contains `{needle}`: {violations:#?}",
            check.id
        );
        violations
    }
}

/// The answer an outcome describes.
fn answer(outcome: &[&str], index: usize, call_id: &str, attempt: u32) -> Answer {
    let mut meta =
        json!({"request_id": format!("req_{index}"), "call_id": call_id, "attempt": attempt, "replayed": false});
    for (word, member) in [("rid", "request_id"), ("cid", "call_id"), ("att", "attempt")] {
        match attribute(outcome, word) {
            Some("none") => drop(meta.as_object_mut().map(|meta| meta.remove(member))),
            Some(value) if word == "att" => meta[member] = serde_json::from_str(value).unwrap_or_else(|_| json!(value)),
            Some(value) => meta[member] = json!(value),
            None => {}
        }
    }
    if let Some(key) = attribute(outcome, "key") {
        meta["idempotency_key"] = json!(key);
    }
    let words: BTreeSet<&str> = outcome.iter().copied().collect();
    meta["replayed"] = json!(words.contains("replayed"));
    if words.contains("reconciled") {
        meta["reconciled"] = json!(true);
    }
    let envelope = match outcome.first().copied() {
        Some("killed") => return Answer::Killed,
        Some("no-answer") => return Answer::NoAnswer,
        Some("broken") => return Answer::Broken("the process exited".to_owned()),
        Some("garbage") => json!("not an envelope"),
        Some("ok") => {
            let result =
                attribute(outcome, "result").map_or(json!({}), |text| serde_json::from_str(text).expect("JSON result"));
            json!({"ok": true, "result": result, "meta": meta})
        }
        Some(code) => json!({"ok": false, "error": error(code, &outcome[1..]), "meta": meta}),
        None => panic!("an empty outcome"),
    };
    Answer::read(envelope)
}

/// An error member: the code table's row for `code`, with `name=value` details and overrides.
fn error(code: &str, words: &[&str]) -> Value {
    let info = ErrorCode::from_wire(code).map(ErrorCode::info);
    let mut error = json!({
        "code": code,
        "category": info.map(|info| info.category),
        "message": "literal",
        "retryable": info.map(|info| info.retryable),
        "resolution": info.map(|info| info.resolution),
        "expose_to_model": info.map(|info| info.expose_to_model),
        "expose_to_user": info.map(|info| info.expose_to_user),
        "details": {},
    });
    for (name, value) in words.iter().filter_map(|word| word.split_once('=')) {
        let value: Value = serde_json::from_str(value).unwrap_or_else(|_| json!(value));
        match name {
            "retryable" | "resolution" | "category" | "message" => error[name] = value,
            "rid" | "cid" | "att" | "key" | "result" => {}
            _ => error["details"][name] = value,
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::oracle;

    #[test]
    fn the_default_arguments_of_every_catalog_tool_are_ones_the_contract_accepts() {
        for entry in catalog() {
            let arguments = Arguments::Value(default_arguments(&entry.spec.name));
            assert!(
                oracle::refusal(&entry.spec.name, &arguments).is_none(),
                "{} refuses its default arguments",
                entry.spec.name
            );
        }
    }

    #[test]
    fn a_script_becomes_calls_operations_and_attributed_requests() {
        let transcript = history(
            "submit refund_order -> timeout_unknown; request POST /refunds -> committed dropped key=k1
             retry -> ok replayed; burst send_email -> ok; and -> operation_in_progress",
        )
        .transcript();
        let steps: Vec<(usize, &str, usize)> =
            transcript.calls.iter().map(|call| (call.step, call.action.name(), call.op)).collect();
        assert_eq!(steps, [(0, "submit", 0), (1, "retry", 0), (2, "burst", 1), (2, "burst", 1)]);
        assert_eq!(transcript.exchanges[0].call, Some(0));
        assert_eq!(transcript.exchanges[0].record.request_id.as_deref(), Some("req_0"));
        assert_eq!(transcript.ledger.len(), 1);
        assert_eq!(transcript.calls[1].line(), "call #1 step 2 retry call_2 refund_order attempt 2 → ok (replayed)");
    }
}
