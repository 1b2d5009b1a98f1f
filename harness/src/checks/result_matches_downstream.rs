//! `result-matches-downstream`: an `ok` result says what the downstream answered, projected onto the output
//! schema, and nothing else.
//!
//! Rule enforced here: every `ok` answer of a catalog tool carries a result that some success of the downstream in
//! the same run projects to (docs/protocol.md: "the body projected onto the output schema's properties"). A
//! success is a 2xx answer's JSON body, or the `result` member of a status query's `completed` answer. A result is
//! judged against every success of the run, not only its own call's, since a replay, a reconciliation, a kept task
//! answer or a cache may answer what another call read. "Projects to" means:
//! - at the top level, the result holds exactly the members of the body that the output schema declares;
//! - below it, how deep an executor projects is its own choice, so a nested object may leave members out, but
//!   what it keeps is the body's;
//! - values are equal, numbers by value (`12` and `12.0` are one number), and a `null` member stands for an absent
//!   one.
//!
//! A scrubber that rewrites a value, a client that returns the body unprojected (a job's `tenant_id`), and a
//! result the executor made up all fail. A call whose result matches no success is not judged when the run had a
//! success the harness could not read (longer than it keeps, or not JSON), since the result may come from that.

use super::json_values::{excerpt, member_pointer, same_value as same};
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use crate::world::Answered;
use serde_json::{Map, Value};

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const RESULT_MATCHES_DOWNSTREAM: CheckId = CheckId::new("result-matches-downstream");

pub(super) const CHECK: Check = Check {
    id: RESULT_MATCHES_DOWNSTREAM,
    level: Level::Must,
    rule: "an ok result is a success the downstream answered, projected onto the output schema",
    seed_ref: "§7",
    run,
};

/// Longest quote of a result in a violation's message.
const MAX_QUOTE: usize = 240;

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for call in &context.transcript.calls {
        let Some(result) = call.envelope().filter(|envelope| envelope.ok()).and_then(|envelope| envelope.result())
        else {
            continue;
        };
        let Some(declared) = context.tool(&call.tool).and_then(|entry| declared_members(&entry.spec.output_schema))
        else {
            continue;
        };
        let matches = |body: &Value| projects_to(body, result, declared);
        // The call's own answers first: almost every result is one of them, and they are few.
        let own = context.transcript.exchanges_of_call(call.index);
        if own.filter_map(|exchange| successes_of(exchange).ok()).flatten().flatten().any(matches) {
            judgement.judged();
            continue;
        }
        let mut unreadable = false;
        let every = context.transcript.exchanges.iter().filter_map(|exchange| {
            let successes = successes_of(exchange);
            unreadable |= successes.is_err();
            successes.ok()
        });
        if every.flatten().flatten().any(matches) {
            judgement.judged();
            continue;
        }
        if unreadable {
            continue;
        }
        judgement.judged();
        judgement.fail(
            format!(
                "the call answered ok with a result no success of the downstream projects to: {} ({})",
                quote(result),
                closest(context, call, result, declared),
            ),
            context.evidence(call),
        );
    }
    judgement.outcome()
}

/// The member names an output schema declares at its top level; `None` when it declares none (its results are
/// not objects projected by name).
fn declared_members(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties").and_then(Value::as_object)
}

/// A success status whose body the harness could not read: longer than it keeps, or not JSON.
struct Unreadable;

/// The successes one request's answer holds: its body, and a completed status answer's `result` (none for an
/// answer that is no success).
fn successes_of(exchange: &Exchange) -> Result<[Option<&Value>; 2], Unreadable> {
    let record = &exchange.record;
    if !record.status.is_some_and(|status| (200..300).contains(&status)) {
        return Ok([None, None]);
    }
    let body = record.answered.as_deref().and_then(Answered::json).ok_or(Unreadable)?;
    let completed = record.status_query && body.get("status").and_then(Value::as_str) == Some("completed");
    Ok([Some(body), body.get("result").filter(|_| completed)])
}

/// Whether `body` projects to `result` onto the `declared` members (the rule in the module's doc).
fn projects_to(body: &Value, result: &Value, declared: &Map<String, Value>) -> bool {
    departure(body, result, declared).is_none()
}

/// Where a result departs from an answer: the members and items down to the place, and what is wrong there. Built
/// only when the result does depart (the path is collected on the way back out), so a match allocates nothing.
struct Departure<'v> {
    /// The path, innermost first.
    path: Vec<Place<'v>>,
    what: Wrong<'v>,
}

enum Place<'v> {
    Member(&'v str),
    Item(usize),
}

enum Wrong<'v> {
    NotTheAnswer(&'v Value),
    Undeclared,
    LeftOut,
    NotAnswered,
    Items { kept: usize, answered: usize },
    Differs { kept: &'v Value, answered: &'v Value },
}

impl<'v> Departure<'v> {
    fn at(what: Wrong<'v>) -> Departure<'v> {
        Departure { path: Vec::new(), what }
    }

    fn within(mut self, place: Place<'v>) -> Departure<'v> {
        self.path.push(place);
        self
    }

    /// The departure in words, its place as a JSON pointer.
    fn describe(&self) -> String {
        let pointer = self.path.iter().rev().fold(String::new(), |at, place| match place {
            Place::Member(name) => member_pointer(&at, name),
            Place::Item(item) => format!("{at}/{item}"),
        });
        match &self.what {
            Wrong::NotTheAnswer(body) => format!("the answer is {}", quote(body)),
            Wrong::Undeclared => format!("`{pointer}` is not a member the output schema declares"),
            Wrong::LeftOut => format!("`{pointer}`, which the answer has, is left out"),
            Wrong::NotAnswered => format!("`{pointer}` is not in the answer"),
            Wrong::Items { kept, answered } => format!("`{pointer}` has {kept} items where the answer has {answered}"),
            Wrong::Differs { kept, answered } => {
                format!("`{pointer}` is {} where the answer has {}", quote(kept), quote(answered))
            }
        }
    }
}

/// Where `result` departs from `body` projected onto the `declared` members, or `None` when it does not.
fn departure<'v>(body: &'v Value, result: &'v Value, declared: &Map<String, Value>) -> Option<Departure<'v>> {
    let (Value::Object(body), Value::Object(result)) = (body, result) else {
        return (!same(body, result)).then(|| Departure::at(Wrong::NotTheAnswer(body)));
    };
    if let Some(name) = result.keys().find(|name| !declared.contains_key(*name)) {
        return Some(Departure::at(Wrong::Undeclared).within(Place::Member(name)));
    }
    for (name, answered) in body.iter().filter(|(name, _)| declared.contains_key(*name)) {
        let departed = match result.get(name) {
            None if answered.is_null() => None,
            None => Some(Departure::at(Wrong::LeftOut)),
            Some(kept) => kept_departure(kept, answered),
        };
        if let Some(departed) = departed {
            return Some(departed.within(Place::Member(name)));
        }
    }
    let invented = result.iter().find(|(name, value)| !body.contains_key(*name) && !value.is_null());
    invented.map(|(name, _)| Departure::at(Wrong::NotAnswered).within(Place::Member(name)))
}

/// Where a kept value departs from the answered one (nested objects may leave members out).
fn kept_departure<'v>(kept: &'v Value, answered: &'v Value) -> Option<Departure<'v>> {
    match (kept, answered) {
        (Value::Object(kept), Value::Object(answered)) => kept.iter().find_map(|(name, value)| {
            let departed = match answered.get(name) {
                None if value.is_null() => None,
                None => Some(Departure::at(Wrong::NotAnswered)),
                Some(answered) => kept_departure(value, answered),
            };
            departed.map(|departed| departed.within(Place::Member(name)))
        }),
        (Value::Array(kept), Value::Array(answered)) if kept.len() != answered.len() => {
            Some(Departure::at(Wrong::Items { kept: kept.len(), answered: answered.len() }))
        }
        (Value::Array(kept), Value::Array(answered)) => {
            kept.iter().zip(answered).enumerate().find_map(|(item, (kept, answered))| {
                kept_departure(kept, answered).map(|departed| departed.within(Place::Item(item)))
            })
        }
        _ if same(kept, answered) => None,
        _ => Some(Departure::at(Wrong::Differs { kept, answered })),
    }
}

/// How the result departs from the call's own last success at its tool's endpoint (or a status query), for the
/// message.
fn closest(context: &Context<'_>, call: &CallRecord, result: &Value, declared: &Map<String, Value>) -> String {
    let endpoint = context.main_endpoint(&call.tool);
    let own = context
        .transcript
        .exchanges_of_call(call.index)
        .filter(|exchange| exchange.record.status_query || exchange.record.endpoint == endpoint)
        .filter_map(|exchange| successes_of(exchange).ok()?.into_iter().flatten().next_back());
    match own.last() {
        Some(body) => format!(
            "against its own request's answer, {}",
            departure(body, result, declared).map_or_else(|| "nothing".to_owned(), |departed| departed.describe())
        ),
        None => format!("none of its own requests to {endpoint} was answered with a success"),
    }
}

fn quote(value: &Value) -> String {
    excerpt(value, MAX_QUOTE)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;

    const REFUND: &str = r#"{"refund_id":"rf_1","order_id":"ord_1","amount":100,"status":"completed"}"#;

    #[test]
    fn the_body_projected_passes_with_numbers_by_value() {
        history(
            r#"submit refund_order -> ok result={"refund_id":"rf_1","order_id":"ord_1","amount":100.0,"status":"completed"}
               request POST /refunds -> committed reply={"refund_id":"rf_1","order_id":"ord_1","amount":100,"status":"completed","ledger_row":7}"#,
        )
        .passes(&CHECK);
    }

    #[test]
    fn an_undeclared_member_of_the_body_fails() {
        history(
            r#"submit refund_order -> ok result={"refund_id":"rf_1","order_id":"ord_1","amount":100,"status":"completed","ledger_row":7}
               request POST /refunds -> committed reply={"refund_id":"rf_1","order_id":"ord_1","amount":100,"status":"completed","ledger_row":7}"#,
        )
        .fails(&CHECK, "against its own request's answer, `/ledger_row` is not a member the output schema declares");
    }

    #[test]
    fn a_rewritten_nested_value_fails() {
        history(
            r#"submit task_status args={"task_id":"exp_1"} -> ok result={"task_id":"exp_1","status":"completed","result":{"account_id":"acct_1","records":3,"download_url":"https://exports.example/exp_1.json?sig=REDACTED"}}
               request GET /exports/exp_1 -> 200 reply={"task_id":"exp_1","owner_id":"u_1","status":"completed","result":{"account_id":"acct_1","records":3,"download_url":"https://exports.example/exp_1.json?sig=2"}}"#,
        )
        .fails(&CHECK, r#"`/result/download_url` is "https://exports.example/exp_1.json?sig=REDACTED" where the answer has "https://exports.example/exp_1.json?sig=2""#);
    }

    #[test]
    fn a_nested_object_may_leave_members_out_and_null_stands_for_absent() {
        history(
            r#"submit task_status args={"task_id":"exp_1"} -> ok result={"task_id":"exp_1","status":"completed","result":{"account_id":"acct_1","records":3}}
               request GET /exports/exp_1 -> 200 reply={"task_id":"exp_1","status":"completed","result":{"account_id":"acct_1","records":3,"download_url":"u","owner_id":"u_1"}}
               submit task_status args={"task_id":"exp_2"} -> ok result={"task_id":"exp_2","status":"cancelled","result":null}
               request DELETE /exports/exp_2 -> 200 reply={"task_id":"exp_2","status":"cancelled"}"#,
        )
        .passes(&CHECK);
    }

    #[test]
    fn a_replay_or_a_reconciliation_may_answer_another_calls_success() {
        history(&format!(
            r#"submit refund_order -> timeout_unknown
               request POST /refunds -> committed reply={REFUND}
               retry -> ok replayed result={REFUND}
               retry -> ok reconciled result={REFUND}
               request GET /refunds?idempotency_key=k1 -> 200 reply={{"status":"completed","result":{REFUND}}}"#
        ))
        .passes(&CHECK);
    }

    #[test]
    fn a_declared_member_left_out_fails() {
        history(&format!(
            r#"submit refund_order -> ok result={{"refund_id":"rf_1","order_id":"ord_1","amount":100}}
               request POST /refunds -> committed reply={REFUND}"#
        ))
        .fails(&CHECK, "`/status`, which the answer has, is left out");
    }

    #[test]
    fn a_result_no_request_answered_fails() {
        history(&format!("submit refund_order -> ok result={REFUND}"))
            .fails(&CHECK, "none of its own requests to POST /refunds was answered with a success");
    }

    #[test]
    fn a_status_query_result_counts_only_when_completed() {
        history(&format!(
            r#"submit refund_order -> ok reconciled result={REFUND}
               request GET /refunds?idempotency_key=k1 -> 200 reply={{"status":"pending","result":{REFUND}}}"#
        ))
        .fails(&CHECK, "no success of the downstream projects to");
    }

    #[test]
    fn a_success_the_harness_could_not_read_leaves_the_call_unjudged() {
        history(&format!(
            r#"submit refund_order -> ok result={REFUND}
               request POST /refunds -> committed reply=not-json"#
        ))
        .skips(&CHECK);
    }

    #[test]
    fn failures_are_not_judged() {
        history("submit refund_order -> dependency_unavailable; request POST /refunds -> 503").skips(&CHECK);
    }
}
