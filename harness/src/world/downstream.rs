//! The conformance app's downstream services: what each endpoint does to the world's state.
//!
//! Rule enforced here: a request is decided against the state as it is when it arrives, under the world's
//! lock; a side effect is committed to the ledger with the request that caused it, and a refusal of a keyed
//! request is remembered so that a status query by that key can report it.

use super::fault::Outgoing;
use super::jobs::{Jobs, TaskTruth};
use super::{Account, Effect, EffectKind, Fixtures, ForeignRequest, Handling, Incoming, Order, RequestRecord};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio::time::Instant;

/// The downstream's state, behind the world's lock.
#[derive(Debug)]
pub(super) struct State {
    behaviour: super::Behaviour,
    orders: BTreeMap<String, Order>,
    accounts: BTreeMap<String, Account>,
    pub(super) requests: Vec<RequestRecord>,
    pub(super) ledger: Vec<Effect>,
    /// Requests that arrived at the foreign origin, apart from the services' own.
    pub(super) foreign: Vec<ForeignRequest>,
    /// Replies stored per (endpoint, key) for deduplication.
    replies: BTreeMap<(String, String), (u16, Value)>,
    /// Refusals per (endpoint, key), for status queries.
    refusals: BTreeMap<(String, String), String>,
    /// When each effect becomes visible to status queries (slow commits are "pending" until then).
    pub(super) visible_at: BTreeMap<usize, Instant>,
    /// When each effect of a request that lands late (its answer was lost, the request sat in a queue) becomes
    /// known to status queries; until then they answer as if it never happened.
    pub(super) lands_at: BTreeMap<usize, Instant>,
    /// The latest instant any delayed answer or slow commit completes.
    pub(super) busy_until: Instant,
    next_id: u64,
    /// The export service's jobs.
    jobs: Jobs,
}

/// What a request resolves to: an answer and, for a side effect, the effect it commits.
struct Routed {
    status: u16,
    body: Value,
    effect: Option<Effect>,
}

impl Routed {
    fn answer(status: u16, body: Value) -> Routed {
        Routed { status, body, effect: None }
    }
}

/// What the request carried, for the effect it may commit.
struct Context {
    key: Option<String>,
    request: usize,
    at_ms: u64,
}

impl Context {
    fn effect(&self, kind: EffectKind, effect_id: String, owner: (String, String), target: String) -> Effect {
        let (tenant_id, owner_id) = owner;
        Effect {
            kind,
            effect_id,
            request: self.request,
            key: self.key.clone(),
            tenant_id,
            owner_id,
            target,
            amount: None,
            committed_ms: self.at_ms,
        }
    }
}

impl State {
    pub(super) fn new(fixtures: &Fixtures, behaviour: super::Behaviour, origin: Instant) -> State {
        State {
            behaviour,
            orders: fixtures.orders.iter().map(|order| (order.order_id.clone(), order.clone())).collect(),
            accounts: fixtures.accounts.iter().map(|account| (account.account_id.clone(), account.clone())).collect(),
            requests: Vec::new(),
            ledger: Vec::new(),
            foreign: Vec::new(),
            replies: BTreeMap::new(),
            refusals: BTreeMap::new(),
            visible_at: BTreeMap::new(),
            lands_at: BTreeMap::new(),
            busy_until: origin,
            next_id: 1,
            jobs: Jobs::default(),
        }
    }

    /// Decides a request: deduplicates a repeated key, commits an effect, remembers a keyed refusal.
    pub(super) fn decide(&mut self, incoming: &Incoming, endpoint: &str, at_ms: u64) -> Outgoing {
        let key = incoming.headers.get("idempotency-key").cloned();
        if is_side_effect(&incoming.method)
            && self.behaviour.honours_idempotency_key
            && let Some(key) = &key
            && let Some((status, body)) = self.replies.get(&(endpoint.to_owned(), key.clone()))
        {
            return Outgoing { handling: Handling::Deduplicated, ..Outgoing::refusal(*status, body.clone()) };
        }
        let context = Context { key: key.clone(), request: self.requests.len(), at_ms };
        let routed = self.route(incoming, &context);
        match (routed.effect, key) {
            (Some(effect), key) => {
                let handling = Handling::Committed(self.ledger.len());
                if let Some(key) = key
                    && self.behaviour.honours_idempotency_key
                {
                    self.replies.insert((endpoint.to_owned(), key), (routed.status, routed.body.clone()));
                }
                self.ledger.push(effect);
                Outgoing { handling, ..Outgoing::refusal(routed.status, routed.body) }
            }
            (None, Some(key)) if matches!(routed.status, 409 | 422 | 404) && is_side_effect(&incoming.method) => {
                let reason = routed.body["error"]["reason"].as_str().unwrap_or("rejected").to_owned();
                self.refusals.insert((endpoint.to_owned(), key), reason);
                Outgoing::refusal(routed.status, routed.body)
            }
            (None, _) => Outgoing::refusal(routed.status, routed.body),
        }
    }

    fn next(&mut self, prefix: &str) -> String {
        let id = format!("{prefix}_{}", self.next_id);
        self.next_id += 1;
        id
    }

    fn route(&mut self, incoming: &Incoming, context: &Context) -> Routed {
        let segments: Vec<&str> = incoming.path.trim_start_matches('/').split('/').collect();
        let body: Value = serde_json::from_slice(&incoming.body).unwrap_or(Value::Null);
        if let Some(field) = missing_member(&incoming.method, &incoming.path, &body) {
            return refused(422, json!({"reason": "missing_field", "field": field}));
        }
        let caller = || {
            let header = |name: &str| incoming.headers.get(name).cloned().unwrap_or_default();
            (header("x-tenant-id"), header("x-subject-id"))
        };
        match (incoming.method.as_str(), segments.as_slice()) {
            ("GET", ["orders", id]) => match self.orders.get(*id) {
                Some(order) => Routed::answer(200, json!(order)),
                None => not_found("not_found"),
            },
            ("GET", ["accounts", id]) => match self.accounts.get(*id) {
                Some(account) => Routed::answer(
                    200,
                    json!({"account_id": account.account_id, "tenant_id": account.tenant_id, "owner_id": account.owner_id,
                           "status": if account.closed { "closed" } else { "open" }}),
                ),
                None => not_found("not_found"),
            },
            ("GET", ["weather"]) => weather(&incoming.query),
            ("POST", ["refunds"]) => self.refund(&body, context),
            ("POST", ["emails"]) => {
                let message_id = self.next("msg");
                let to = body["to"].as_str().unwrap_or_default().to_owned();
                let reply = json!({"message_id": message_id, "status": "sent"});
                let effect = context.effect(EffectKind::Email, message_id, caller(), to);
                Routed { status: 202, body: reply, effect: Some(effect) }
            }
            ("PUT", ["preferences", name]) => {
                let value = body["value"].as_str().unwrap_or_default().to_owned();
                let (tenant, subject) = caller();
                let effect_id = format!("pref:{tenant}:{subject}:{name}={value}");
                let effect = context.effect(EffectKind::Preference, effect_id, (tenant, subject), (*name).to_owned());
                Routed { status: 200, body: json!({"key": name, "value": value}), effect: Some(effect) }
            }
            ("DELETE", ["accounts", id]) => self.delete_account(id, context),
            ("POST", ["exports"]) => self.export(&body, context),
            ("GET", ["exports", id]) => {
                self.jobs.read(id, context.at_ms).map_or_else(|| not_found("not_found"), |job| Routed::answer(200, job))
            }
            ("DELETE", ["exports", id]) => self.cancel_export(id, context),
            ("GET", [collection @ ("refunds" | "emails" | "deletions" | "exports")]) => {
                self.status_of(collection, incoming)
            }
            _ => not_found("no_such_endpoint"),
        }
    }

    fn refund(&mut self, body: &Value, context: &Context) -> Routed {
        let order_id = body["order_id"].as_str().unwrap_or_default().to_owned();
        let Some(order) = self.orders.get_mut(&order_id) else {
            return not_found("order_not_found");
        };
        let amount = body["amount"].as_i64().unwrap_or(order.refundable_amount);
        if amount < 1 || (self.behaviour.checks_refundable_amount && amount > order.refundable_amount) {
            return refused(422, json!({"reason": "amount_exceeds_refundable", "field": "amount"}));
        }
        order.refundable_amount = (order.refundable_amount - amount).max(0);
        let owner = (order.tenant_id.clone(), order.owner_id.clone());
        let refund_id = self.next("rf");
        let reply = json!({"refund_id": refund_id, "order_id": order_id, "amount": amount, "status": "completed"});
        let effect = Effect { amount: Some(amount), ..context.effect(EffectKind::Refund, refund_id, owner, order_id) };
        Routed { status: 201, body: reply, effect: Some(effect) }
    }

    fn delete_account(&mut self, id: &str, context: &Context) -> Routed {
        match self.accounts.get_mut(id) {
            None => not_found("not_found"),
            Some(account) if account.closed => refused(409, json!({"reason": "account_already_closed"})),
            Some(account) => {
                account.closed = true;
                let owner = (account.tenant_id.clone(), account.owner_id.clone());
                let deletion_id = self.next("del");
                let effect = context.effect(EffectKind::Deletion, deletion_id, owner, id.to_owned());
                Routed { status: 200, body: json!({"account_id": id, "deleted": true}), effect: Some(effect) }
            }
        }
    }

    /// `POST /exports`: starts an export job of an open account (the ledger holds its start).
    fn export(&mut self, body: &Value, context: &Context) -> Routed {
        let account_id = body["account_id"].as_str().unwrap_or_default().to_owned();
        let Some(account) = self.accounts.get(&account_id) else {
            return not_found("not_found");
        };
        if account.closed {
            return refused(409, json!({"reason": "account_closed"}));
        }
        let owner = (account.tenant_id.clone(), account.owner_id.clone());
        let task_id = self.next("exp");
        let reply = self.jobs.start(&task_id, owner.clone(), &account_id, context.at_ms);
        let effect = context.effect(EffectKind::Export, task_id, owner, account_id);
        Routed { status: 202, body: reply, effect: Some(effect) }
    }

    /// `DELETE /exports/{id}`: records the cancel request (one effect per job) and answers the job's status.
    fn cancel_export(&mut self, id: &str, context: &Context) -> Routed {
        let Some((reply, owner)) = self.jobs.cancel(id, context.at_ms) else {
            return not_found("not_found");
        };
        let effect = context.effect(EffectKind::Cancellation, format!("cancel:{id}"), owner, id.to_owned());
        Routed { status: 202, body: reply, effect: Some(effect) }
    }

    /// Every export job's fate.
    pub(super) fn tasks(&self) -> Vec<TaskTruth> {
        self.jobs.truth()
    }

    /// `GET /refunds?idempotency_key=K` and friends.
    fn status_of(&self, collection: &str, incoming: &Incoming) -> Routed {
        let Some(key) = incoming.query.iter().find(|(name, _)| name == "idempotency_key").map(|(_, key)| key.clone())
        else {
            return refused(400, json!({"reason": "idempotency_key_required"}));
        };
        let (kind, endpoint) = match collection {
            "refunds" => (EffectKind::Refund, "POST /refunds"),
            "emails" => (EffectKind::Email, "POST /emails"),
            "exports" => (EffectKind::Export, "POST /exports"),
            _ => (EffectKind::Deletion, "DELETE /accounts"),
        };
        let now = Instant::now();
        let found = self.ledger.iter().enumerate().rev().find(|(index, effect)| {
            effect.kind == kind
                && effect.key.as_deref() == Some(key.as_str())
                && self.lands_at.get(index).is_none_or(|lands| *lands <= now)
        });
        match found {
            Some((index, _)) if self.visible_at.get(&index).is_some_and(|visible| *visible > now) => {
                Routed::answer(200, json!({"status": "pending"}))
            }
            Some((_, effect)) => {
                let result = match kind {
                    EffectKind::Refund => {
                        json!({"refund_id": effect.effect_id, "order_id": effect.target, "amount": effect.amount, "status": "completed"})
                    }
                    EffectKind::Email => json!({"message_id": effect.effect_id, "status": "sent"}),
                    EffectKind::Export => json!({"task_id": effect.effect_id, "status": "working"}),
                    _ => json!({"account_id": effect.target, "deleted": true}),
                };
                // The service's record keeps the key it was filed under, a member no output schema declares: a
                // reconciled result is projected like any other success (`result-matches-downstream`).
                let mut result = result;
                result["idempotency_key"] = Value::from(key);
                Routed::answer(200, json!({"status": "completed", "result": result}))
            }
            None => match self.refusals.get(&(endpoint.to_owned(), key)) {
                Some(reason) => Routed::answer(200, json!({"status": "rejected", "error": {"reason": reason}})),
                None => Routed::answer(404, json!({"status": "not_found"})),
            },
        }
    }
}

fn not_found(reason: &str) -> Routed {
    refused(404, json!({"reason": reason}))
}

/// What every refusal body carries beside its machine-readable reason, as real services' 4xx bodies do: free
/// text with an internal hostname (a [`LEAK_MARKERS`](super::LEAK_MARKERS) entry) and a trace id. An executor reads the reason; one
/// that passes the body or its text on to the model fails `no-secret-leak`.
const REFUSAL_DETAIL: &str = "refused by rule R-17 on db-primary-7.payments.internal.corp (trace 4bf92f3577b34da6)";

/// A refusal: `{"error": {<reason and field>, "detail": REFUSAL_DETAIL}}`.
/// The first member the tool's input schema requires that a `POST` or `PUT` body lacks. The services take the
/// call's arguments as the body (docs/protocol.md), so a body without one (an `amount: null` left out, as writers
/// that drop nulls do) is not the call the model made, and the service refuses it instead of guessing.
fn missing_member(method: &str, path: &str, body: &Value) -> Option<String> {
    static REQUIRED: std::sync::OnceLock<BTreeMap<String, Vec<String>>> = std::sync::OnceLock::new();
    if !matches!(method, "POST" | "PUT") {
        return None;
    }
    let required = REQUIRED.get_or_init(|| {
        callproof_executor::app::catalog_entries()
            .iter()
            .filter_map(|entry| {
                let endpoint = super::endpoint_of_template(&entry.downstream.invoke)?;
                let names = entry.spec.input_schema["required"].as_array()?;
                Some((endpoint, names.iter().filter_map(|name| name.as_str().map(str::to_owned)).collect()))
            })
            .collect()
    });
    let members = required.get(&super::endpoint_of(method, path))?;
    let object = body.as_object()?;
    members.iter().find(|name| !object.contains_key(name.as_str())).cloned()
}

fn refused(status: u16, mut error: Value) -> Routed {
    error["detail"] = Value::from(REFUSAL_DETAIL);
    Routed::answer(status, json!({ "error": error }))
}

fn weather(query: &[(String, String)]) -> Routed {
    let query = |name: &str| query.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    let units = query("units").filter(|units| !units.is_empty()).unwrap_or_else(|| "celsius".to_owned());
    Routed::answer(
        200,
        json!({"location": query("location").unwrap_or_default(), "temperature": 21.5, "units": units, "summary": "clear sky"}),
    )
}

/// Whether a method is side-effecting (POST, PUT, DELETE).
pub(super) fn is_side_effect(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "DELETE")
}

/// Whether a request is a status query by key.
pub(super) fn is_status_query(method: &str, query: &[(String, String)]) -> bool {
    method == "GET" && query.iter().any(|(name, _)| name == "idempotency_key")
}
