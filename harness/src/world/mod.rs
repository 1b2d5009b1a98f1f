//! The downstream world: the services behind the conformance app, their state, faults and ledger.
//!
//! Rule enforced here: the world decides every answer in one synchronous step under one lock (fault rules,
//! state change, ledger entry, delay), so the order of events is the order of arrival and nothing depends on
//! which transport carried the request. Deciding is two steps: route the request to the downstream (unless
//! the fault that applies answers in its place), then apply the fault's verdict. By default the world does
//! NOT honour `Idempotency-Key` (every POST commits), so executor bugs show up as second effects; a scenario
//! may turn deduplication on.

mod downstream;
pub mod fault;
mod fixtures;
mod foreign;
mod jobs;
mod ledger;

pub use fault::{FaultKind, FaultLog, FaultSpec, Fired, INJECTION, KillPoint, LEAK_MARKERS};
pub use fixtures::{Account, Fixtures, Order};
pub use foreign::{ForeignRequest, IDENTITY_HEADERS, UNREACHABLE_ORIGIN};
pub use jobs::{CHECKPOINT_MS, JOB_MS, TaskTruth};
pub use ledger::{Answered, Effect, EffectKind, Handling, RequestRecord};

use crate::subject::SubjectFault;
use downstream::{State, is_side_effect, is_status_query};
use fault::{After, Armed, Before, Outgoing, Request};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// Longest body kept in a request record.
const MAX_REPLY_EVIDENCE: usize = 300;
/// How long a request whose fault kills the subject is left unanswered (the subject is gone long before).
const KILL_HOLD: Duration = Duration::from_secs(120);

/// A request as the world sees it, whatever carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// Method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// Decoded query pairs.
    pub query: Vec<(String, String)>,
    /// Header names (lowercase) and values.
    pub headers: BTreeMap<String, String>,
    /// Body.
    pub body: Vec<u8>,
}

/// The world's answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// Status.
    pub status: u16,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
    /// Close the connection instead of answering (after `delay`).
    pub drop_connection: bool,
    /// Write the body in two parts (fault `body_in_two_parts`), or whole (`None`).
    pub parts: Option<Parts>,
}

/// How an answer's body is written in two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
    /// The first part is `body[..split_at]`: inside the body's first character beyond ASCII, else its middle.
    pub split_at: usize,
    /// Between two writes.
    pub pause: Duration,
    /// Close the connection after the first part instead of writing the rest.
    pub cut: bool,
    /// How many writes in all: the rest after the first part goes in `count - 1` equal pieces.
    pub count: u32,
    /// Each write is one HTTP/1.1 chunk and the answer has no `Content-Length`.
    pub chunked: bool,
}

impl Parts {
    /// The parts of `body` for this verdict: the first ends after the first byte of its first multibyte character.
    fn of(body: &[u8], pause: Duration, cut: bool, count: u32, chunked: bool) -> Parts {
        let split_at = body.iter().position(|byte| !byte.is_ascii()).map_or(body.len() / 2, |first| first + 1);
        Parts { split_at, pause, cut, count, chunked }
    }

    /// How long the whole body takes to arrive after its first part (when it is not cut).
    pub fn spread(&self) -> Duration {
        self.pause.saturating_mul(self.count.saturating_sub(1))
    }
}

/// Behaviour switches of the downstream: a scenario's `[downstream]` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Behaviour {
    /// Deduplicate side-effecting requests by `Idempotency-Key` (store the first reply, answer it again). Default
    /// false, so executor bugs show.
    #[serde(default)]
    pub honours_idempotency_key: bool,
    /// Refuse a refund above the order's refundable amount (422), as the payment service's own rule. Default true;
    /// false makes it refund whatever it is asked, so that an executor that skips its own business rule shows in
    /// the ledger.
    #[serde(default = "Behaviour::checks_refundable_amount_by_default")]
    pub checks_refundable_amount: bool,
}

impl Default for Behaviour {
    fn default() -> Behaviour {
        Behaviour { honours_idempotency_key: false, checks_refundable_amount: true }
    }
}

impl Behaviour {
    fn checks_refundable_amount_by_default() -> bool {
        Behaviour::default().checks_refundable_amount
    }

    /// Whether this is the default behaviour (a scenario file then leaves `[downstream]` out).
    pub fn is_default(&self) -> bool {
        *self == Behaviour::default()
    }
}

/// How many kills faults have asked for so far, per kill point: the one channel the runner watches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kills {
    /// Kills of a call in flight (its request is never answered).
    pub in_flight: u64,
    /// Kills as the subject's answer arrives (the answer is never seen).
    pub before_answer: u64,
}

impl Kills {
    fn count(&mut self, point: KillPoint) {
        match point {
            KillPoint::InFlight => self.in_flight += 1,
            KillPoint::BeforeAnswer => self.before_answer += 1,
        }
    }
}

/// What faults have asked the runner to do to the subject in the middle of a call (stop its process, cut its
/// store off): the channel the runner watches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnSubject {
    /// How many requests so far.
    pub count: u64,
    /// The last one.
    pub last: Option<SubjectFault>,
}

/// How long the answer to a request that acted on the subject waits, so that the subject is stopped (or its
/// store cut off) before the answer reaches it.
const SUBJECT_SETTLE: Duration = Duration::from_millis(300);

/// The shared downstream world.
#[derive(Debug)]
pub struct World {
    origin: Instant,
    state: Mutex<State>,
    armed: Mutex<Faults>,
    kills: watch::Sender<Kills>,
    on_subject: watch::Sender<OnSubject>,
    /// Where the foreign origin listens, once it does (a `redirect` fault may point there).
    foreign_origin: OnceLock<String>,
    /// Whether the downstream takes no connection (a `connection_refused` step).
    refusing: AtomicBool,
}

/// The armed faults, in arming order, and the id the next one gets.
#[derive(Debug, Default)]
struct Faults {
    armed: Vec<Armed>,
    next_id: u64,
}

/// A fault armed on the world. Disarming it tells how often it fired; dropping it disarms it too.
#[must_use = "a fault stays armed only while its guard lives"]
#[derive(Debug)]
pub struct FaultGuard {
    world: Arc<World>,
    id: u64,
}

impl FaultGuard {
    /// Disarms the fault; what it was armed on and how many requests it applied to.
    pub fn disarm(mut self) -> FaultLog {
        self.take().expect("a fault stays armed until its guard disarms it, and `disarm` takes the guard")
    }

    fn take(&mut self) -> Option<FaultLog> {
        let mut faults = self.world.faults();
        let position = faults.armed.iter().position(|armed| armed.id == self.id)?;
        Some(faults.armed.remove(position).log)
    }
}

impl Drop for FaultGuard {
    fn drop(&mut self) {
        let _ = self.take();
    }
}

impl World {
    /// A world with these fixtures and behaviour.
    pub fn new(fixtures: &Fixtures, behaviour: Behaviour) -> World {
        let origin = Instant::now();
        World {
            origin,
            kills: watch::Sender::new(Kills::default()),
            on_subject: watch::Sender::new(OnSubject::default()),
            armed: Mutex::new(Faults::default()),
            foreign_origin: OnceLock::new(),
            refusing: AtomicBool::new(false),
            state: Mutex::new(State::new(fixtures, behaviour, origin)),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn faults(&self) -> std::sync::MutexGuard<'_, Faults> {
        self.armed.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Milliseconds since the world started.
    pub fn now_ms(&self) -> u64 {
        self.origin.elapsed().as_millis() as u64
    }

    /// Arms a fault for requests to `endpoint`, on behalf of scenario step `step` (0-based), until the guard
    /// is disarmed or dropped.
    pub fn arm(self: &Arc<World>, spec: FaultSpec, endpoint: String, step: usize) -> FaultGuard {
        let mut faults = self.faults();
        let id = faults.next_id;
        faults.next_id += 1;
        faults.armed.push(Armed::new(id, spec, endpoint, step));
        FaultGuard { world: self.clone(), id }
    }

    /// The kills faults have asked for; the runner watches it and kills the subject.
    pub fn kills(&self) -> watch::Receiver<Kills> {
        self.kills.subscribe()
    }

    /// Asks the runner to act on the subject; the answer's delay and whether to drop it.
    fn act_on_subject(&self, fault: SubjectFault) -> (Duration, bool) {
        self.on_subject.send_modify(|asked| *asked = OnSubject { count: asked.count + 1, last: Some(fault) });
        (SUBJECT_SETTLE, false)
    }

    /// What faults have asked to do to the subject mid-call; the runner watches it and does it.
    pub fn on_subject(&self) -> watch::Receiver<OnSubject> {
        self.on_subject.subscribe()
    }

    /// Starts or stops refusing every connection (a `connection_refused` step). Over loopback the runner closes
    /// the listener as well; a simulated downstream asks [`World::refuses_connections`] before every send.
    pub fn refuse_connections(&self, on: bool) {
        self.refusing.store(on, Ordering::Release);
    }

    /// Whether a connection made now is refused.
    pub fn refuses_connections(&self) -> bool {
        self.refusing.load(Ordering::Acquire)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.state().requests.clone()
    }

    /// How many requests have arrived so far (the next request's index).
    pub fn request_count(&self) -> usize {
        self.state().requests.len()
    }

    /// Every request that arrived at the foreign origin so far.
    pub fn foreign_requests(&self) -> Vec<ForeignRequest> {
        self.state().foreign.clone()
    }

    /// Tells the world where its foreign origin listens (`http://127.0.0.1:PORT`); only the first call counts.
    pub fn serve_foreign_at(&self, origin: &str) {
        let _ = self.foreign_origin.set(origin.trim_end_matches('/').to_owned());
    }

    /// The foreign origin's base URL (a name that never resolves while nothing serves it).
    pub fn foreign_origin(&self) -> &str {
        self.foreign_origin.get().map_or(foreign::UNSERVED_ORIGIN, String::as_str)
    }

    /// Records a request that arrived at the foreign origin and answers it; nothing reaches the services.
    pub fn handle_foreign(&self, incoming: &Incoming) -> Reply {
        let at_ms = self.now_ms();
        let mut state = self.state();
        let index = state.foreign.len();
        state.foreign.push(ForeignRequest::new(incoming, index, at_ms));
        foreign::reply()
    }

    /// Every committed effect so far.
    pub fn ledger(&self) -> Vec<Effect> {
        self.state().ledger.clone()
    }

    /// Every export job's fate (the task tool's ground truth).
    pub fn tasks(&self) -> Vec<TaskTruth> {
        self.state().tasks()
    }

    /// The instant after which no delayed answer, hold or slow commit is outstanding.
    pub fn busy_until(&self) -> Instant {
        self.state().busy_until
    }

    /// Decides the answer to one request, atomically: the first armed fault that applies, the downstream's
    /// decision (unless that fault answers in its place), then the fault's verdict on how the answer goes out.
    pub fn handle(&self, incoming: &Incoming) -> Reply {
        let now = Instant::now();
        let at_ms = now.saturating_duration_since(self.origin).as_millis() as u64;
        let endpoint = endpoint_of(&incoming.method, &incoming.path);
        let request = Request { incoming, endpoint: &endpoint, now, foreign_origin: self.foreign_origin() };
        // One lock order everywhere: the faults, then the state.
        let mut faults = self.faults();
        let mut state = self.state();
        let mut fault =
            faults.armed.iter_mut().find_map(|armed| if armed.fires_on(&endpoint) { Some(armed) } else { None });
        let mut answer = match fault.as_mut().map(|armed| armed.rule.before_commit(&request)) {
            Some(Before::Answer(answer)) => answer,
            Some(Before::Pass) | None => state.decide(incoming, &endpoint, at_ms),
        };
        answer.headers.insert(0, ("x-request-id".to_owned(), format!("dr_{}", state.requests.len())));
        let verdict = fault.as_mut().map_or(After::Pass, |armed| armed.rule.after_commit(&request, &mut answer));
        let in_parts = match verdict {
            After::InParts { pause, cut, count, chunked } => Some((pause, cut, count, chunked)),
            _ => None,
        };
        let (delay, drop_connection) = match verdict {
            After::Pass => (Duration::ZERO, false),
            After::Delay(delay) => (delay, false),
            After::Slow(delay) => {
                if let Handling::Committed(effect) = answer.handling {
                    state.visible_at.insert(effect, now + delay);
                }
                (delay, false)
            }
            After::Drop => (Duration::ZERO, true),
            After::Lost(delay) => {
                if let Handling::Committed(effect) = answer.handling {
                    state.lands_at.insert(effect, now + delay);
                }
                (Duration::ZERO, true)
            }
            After::LostPending(delay) => {
                if let Handling::Committed(effect) = answer.handling {
                    state.visible_at.insert(effect, now + delay);
                }
                (Duration::ZERO, true)
            }
            After::Kill(point) => {
                self.kills.send_modify(|kills| kills.count(point));
                (if point == KillPoint::InFlight { KILL_HOLD } else { Duration::ZERO }, false)
            }
            After::KillWhileQueued(delay) => {
                if let Handling::Committed(effect) = answer.handling {
                    state.lands_at.insert(effect, now + delay);
                }
                self.kills.send_modify(|kills| kills.count(KillPoint::InFlight));
                (KILL_HOLD, false)
            }
            After::Pause(pause) => self.act_on_subject(SubjectFault::Pause(pause)),
            After::CutStore => self.act_on_subject(SubjectFault::StoreOutage),
            After::EndInput => self.act_on_subject(SubjectFault::EndInput),
            After::InParts { .. } => (Duration::ZERO, false),
        };
        if delay < KILL_HOLD {
            state.busy_until = state.busy_until.max(now + delay);
        }
        if let Some(visible) = state.visible_at.values().chain(state.lands_at.values()).max().copied() {
            state.busy_until = state.busy_until.max(visible);
        }
        let bytes = answer.raw.take().unwrap_or_else(|| serde_json::to_vec(&answer.body).unwrap_or_default());
        let record = record(incoming, endpoint.clone(), &answer, &bytes, drop_connection);
        let fired = fault.map(|armed| armed.fired());
        let index = state.requests.len();
        let answered_ms = (!drop_connection).then(|| at_ms.saturating_add(delay.as_millis() as u64));
        state.requests.push(RequestRecord { index, at_ms, answered_ms, fault: fired, ..record });
        let parts = in_parts.map(|(pause, cut, count, chunked)| Parts::of(&bytes, pause, cut, count, chunked));
        Reply { status: answer.status, headers: answer.headers, body: bytes, delay, drop_connection, parts }
    }
}

/// The request log's entry for a request and its answer (index, time and fault filled in by the caller).
fn record(incoming: &Incoming, endpoint: String, answer: &Outgoing, bytes: &[u8], dropped: bool) -> RequestRecord {
    let query = incoming.query.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join("&");
    let header = |name: &str| incoming.headers.get(name).cloned();
    RequestRecord {
        index: 0,
        at_ms: 0,
        endpoint,
        method: incoming.method.clone(),
        path: if query.is_empty() { incoming.path.clone() } else { format!("{}?{query}", incoming.path) },
        idempotency_key: header("idempotency-key"),
        deadline_ms: header("x-deadline-ms"),
        request_id: header("x-request-id"),
        tenant_id: header("x-tenant-id"),
        subject_id: header("x-subject-id"),
        side_effect: is_side_effect(&incoming.method),
        status_query: is_status_query(&incoming.method, &incoming.query),
        fault: None,
        handling: answer.handling.clone(),
        status: (!dropped).then_some(answer.status),
        answered_ms: None,
        reply: String::from_utf8_lossy(bytes).chars().take(MAX_REPLY_EVIDENCE).collect(),
        body: (incoming.body.len() <= ledger::MAX_KEPT_BODY).then(|| incoming.body.clone()),
        answered: (!dropped && (200..300).contains(&answer.status) && bytes.len() <= ledger::MAX_KEPT_BODY)
            .then(|| ledger::Answered::new(bytes.to_vec())),
    }
}

/// The milliseconds an `X-Deadline-Ms` value states: a whole number, or a decimal one rounded down (`2987.431`
/// is 2987: the docs ask for milliseconds, not for an integer literal). `None` for anything else.
pub fn parse_deadline_ms(value: &str) -> Option<u64> {
    let value = value.trim();
    value.parse::<u64>().ok().or_else(|| {
        let float = value.parse::<f64>().ok().filter(|float| float.is_finite() && *float >= 0.0)?;
        // Saturating: a float past u64::MAX becomes u64::MAX, which no budget reaches.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(float.floor() as u64)
    })
}

/// `"METHOD /first-segment"`.
pub fn endpoint_of(method: &str, path: &str) -> String {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or_default();
    format!("{method} /{first}")
}

/// The endpoint of a catalog template (`"GET /emails?idempotency_key={idempotency_key}"` → `GET /emails`), or
/// `None` for a template without a method.
pub fn endpoint_of_template(template: &str) -> Option<String> {
    let (method, path) = template.split_once(' ')?;
    Some(endpoint_of(method, path.split('?').next().unwrap_or(path)))
}

/// The endpoint of `tool`'s main (invoke) request in `catalog`, e.g. `POST /refunds`; `None` for a tool it lacks.
pub fn main_endpoint(catalog: &[callproof_executor::app::CatalogEntry], tool: &str) -> Option<String> {
    let entry = catalog.iter().find(|entry| entry.spec.name == tool)?;
    endpoint_of_template(&entry.downstream.invoke)
}

/// Every endpoint the conformance app's catalog reaches (resource lookups, invocations, status queries),
/// sorted: what a fault's `on` may name.
pub fn endpoints(catalog: &[callproof_executor::app::CatalogEntry]) -> Vec<String> {
    let mut endpoints: Vec<String> = catalog
        .iter()
        .flat_map(|entry| {
            [
                entry.downstream.resource.as_deref(),
                Some(entry.downstream.invoke.as_str()),
                entry.downstream.status.as_deref(),
            ]
        })
        .flatten()
        .filter_map(endpoint_of_template)
        .collect();
    endpoints.sort();
    endpoints.dedup();
    endpoints
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn world(dedup: bool) -> Arc<World> {
        let fixtures = Fixtures {
            orders: vec![Order {
                order_id: "ord_1".into(),
                tenant_id: "t1".into(),
                owner_id: "u1".into(),
                refundable_amount: 100,
                status: "paid".into(),
                note: String::new(),
            }],
            accounts: vec![],
        };
        Arc::new(World::new(&fixtures, Behaviour { honours_idempotency_key: dedup, checks_refundable_amount: true }))
    }

    fn once(kind: FaultKind) -> FaultSpec {
        FaultSpec::from(kind)
    }

    fn refund(key: &str, amount: i64) -> Incoming {
        Incoming {
            method: "POST".into(),
            path: "/refunds".into(),
            query: vec![],
            headers: [("idempotency-key".to_owned(), key.to_owned()), ("x-deadline-ms".to_owned(), "1000".to_owned())]
                .into(),
            body: serde_json::to_vec(&json!({"order_id": "ord_1", "amount": amount, "reason": "r"})).expect("json"),
        }
    }

    fn status(key: &str) -> Incoming {
        Incoming {
            method: "GET".into(),
            path: "/refunds".into(),
            query: vec![("idempotency_key".into(), key.into())],
            headers: BTreeMap::new(),
            body: vec![],
        }
    }

    #[tokio::test]
    async fn a_body_without_a_member_the_schema_requires_is_refused_and_a_null_one_is_not() {
        let world = world(true);
        let mut without = refund("k_without", 30);
        without.body = serde_json::to_vec(&json!({"order_id": "ord_1", "reason": "r"})).expect("json");
        let refused = world.handle(&without);
        assert_eq!(refused.status, 422);
        let body: Value = serde_json::from_slice(&refused.body).expect("json");
        assert_eq!(
            (body["error"]["reason"].as_str(), body["error"]["field"].as_str()),
            (Some("missing_field"), Some("amount"))
        );
        let mut null = refund("k_null", 30);
        null.body = serde_json::to_vec(&json!({"order_id": "ord_1", "amount": null, "reason": "r"})).expect("json");
        assert_eq!(world.handle(&null).status, 201, "amount: null refunds what is refundable");
        assert_eq!(world.ledger().len(), 1);
    }

    #[tokio::test]
    async fn every_post_commits_unless_the_world_honours_keys() {
        let naive = world(false);
        naive.handle(&refund("k", 10));
        naive.handle(&refund("k", 10));
        assert_eq!(naive.ledger().len(), 2);

        let careful = world(true);
        let first = careful.handle(&refund("k", 10));
        let second = careful.handle(&refund("k", 10));
        assert_eq!(careful.ledger().len(), 1);
        assert_eq!(first.body, second.body);
        assert_eq!(careful.requests()[1].handling, Handling::Deduplicated);
    }

    #[tokio::test]
    async fn refunds_respect_the_refundable_amount() {
        let world = world(false);
        assert_eq!(world.handle(&refund("a", 80)).status, 201);
        let refused = world.handle(&refund("b", 30));
        assert_eq!(refused.status, 422);
        assert_eq!(world.ledger().len(), 1);
        let body = String::from_utf8(refused.body).expect("utf-8");
        assert!(body.contains("amount_exceeds_refundable"), "the machine-readable reason: {body}");
        assert!(
            LEAK_MARKERS.iter().any(|marker| body.contains(marker)),
            "every refusal carries internal text that no-secret-leak looks for: {body}"
        );
    }

    #[tokio::test]
    async fn status_queries_find_commits_and_refusals_by_key() {
        let world = world(false);
        assert_eq!(world.handle(&status("k")).status, 404);
        world.handle(&refund("k", 10));
        let found: Value = serde_json::from_slice(&world.handle(&status("k")).body).expect("json");
        assert_eq!(found["status"], "completed");
        assert_eq!(found["result"]["amount"], 10);
        world.handle(&refund("big", 1000));
        let refused: Value = serde_json::from_slice(&world.handle(&status("big")).body).expect("json");
        assert_eq!(refused["status"], "rejected");
    }

    #[tokio::test]
    async fn commit_then_drop_commits_and_drops() {
        let world = world(false);
        let guard = world.arm(once(FaultKind::CommitThenDrop(fault::CommitThenDrop {})), "POST /refunds".into(), 0);
        let reply = world.handle(&refund("k", 10));
        assert!(reply.drop_connection);
        assert_eq!(world.ledger().len(), 1);
        assert!(!world.handle(&refund("k2", 10)).drop_connection, "the fault fires once");
        let fired = world.requests()[0].fault.clone().expect("the fault is recorded");
        assert_eq!((fired.step, fired.kind.name()), (0, "commit_then_drop"));
        assert_eq!(guard.disarm().fired, 1);
    }

    #[tokio::test]
    async fn a_redirect_after_commit_commits_and_points_at_the_foreign_origin_which_records_without_routing() {
        let world = world(false);
        world.serve_foreign_at("http://127.0.0.1:4242/");
        let redirect = fault::Redirect { to: fault::RedirectTarget::Foreign, commit: true, status: 307, path: None };
        let _guard = world.arm(once(FaultKind::Redirect(redirect)), "POST /refunds".into(), 0);
        let reply = world.handle(&refund("k", 10));
        assert_eq!(reply.status, 307);
        assert!(reply.headers.contains(&("location".to_owned(), "http://127.0.0.1:4242/refunds".to_owned())));
        assert_eq!(world.ledger().len(), 1, "committed before redirecting");
        let followed = world.handle_foreign(&refund("k", 10));
        assert_eq!(followed.status, 200);
        assert_eq!(world.ledger().len(), 1, "the foreign origin commits nothing");
        let foreign = world.foreign_requests();
        assert_eq!((foreign.len(), foreign[0].path.as_str()), (1, "/refunds"));
        assert_eq!(foreign[0].identity.get("idempotency-key").map(String::as_str), Some("k"));
        assert!(foreign[0].body_bytes > 0);
        assert_eq!(world.requests().len(), 1, "foreign requests stay out of the downstream's log");
    }

    #[tokio::test]
    async fn a_redirect_before_commit_commits_nothing() {
        let world = world(false);
        let redirect = fault::Redirect {
            to: fault::RedirectTarget::Same,
            commit: false,
            status: 302,
            path: Some("/orders/ord_1".to_owned()),
        };
        let _guard = world.arm(once(FaultKind::Redirect(redirect)), "POST /refunds".into(), 0);
        let reply = world.handle(&refund("k", 10));
        assert_eq!(reply.status, 302);
        assert!(reply.headers.contains(&("location".to_owned(), "/orders/ord_1".to_owned())));
        assert!(world.ledger().is_empty());
    }

    #[tokio::test]
    async fn a_slow_commit_past_the_deadline_header_is_abandoned() {
        let world = world(false);
        let _guard = world.arm(
            once(FaultKind::SlowBeforeCommit(fault::SlowBeforeCommit { ms: 5000 })),
            "POST /refunds".into(),
            0,
        );
        let reply = world.handle(&refund("k", 10));
        assert_eq!(reply.status, 503);
        assert!(world.ledger().is_empty());
        assert_eq!(world.requests()[0].handling, Handling::AbandonedAtDeadline);
    }

    #[tokio::test]
    async fn leak_bait_carries_every_marker() {
        let world = world(false);
        let _guard = world.arm(once(FaultKind::LeakBait(fault::LeakBait {})), "POST /refunds".into(), 0);
        let body = String::from_utf8(world.handle(&refund("k", 10)).body).expect("utf8");
        for marker in LEAK_MARKERS {
            assert!(body.contains(&marker.replace('"', "\\\"")), "{marker}");
        }
        assert!(world.ledger().is_empty());
    }

    #[tokio::test]
    async fn a_fault_that_never_matched_says_so_when_disarmed_and_a_dropped_guard_disarms() {
        let world = world(false);
        let guard = world.arm(once(FaultKind::CommitThenDrop(fault::CommitThenDrop {})), "POST /emails".into(), 2);
        world.handle(&refund("k", 10));
        let log = guard.disarm();
        assert_eq!(
            log.never_fired().as_deref(),
            Some("step 3: fault `commit_then_drop` on `POST /emails` never fired")
        );
        drop(world.arm(once(FaultKind::CommitThenDrop(fault::CommitThenDrop {})), "POST /refunds".into(), 0));
        assert!(!world.handle(&refund("k2", 10)).drop_connection, "a dropped guard disarmed its fault");
    }

    #[tokio::test]
    async fn the_first_armed_fault_that_matches_wins_and_the_kill_channel_counts_each_point() {
        let world = world(false);
        let kills = world.kills();
        let _first =
            world.arm(once(FaultKind::KillBeforeAnswer(fault::KillBeforeAnswer {})), "POST /refunds".into(), 0);
        let _second = world.arm(once(FaultKind::CommitThenDrop(fault::CommitThenDrop {})), "POST /refunds".into(), 0);
        let reply = world.handle(&refund("k", 10));
        assert!(!reply.drop_connection);
        assert_eq!(*kills.borrow(), Kills { in_flight: 0, before_answer: 1 });
        assert!(world.handle(&refund("k2", 10)).drop_connection, "the second fault counted only the second request");
    }
}
