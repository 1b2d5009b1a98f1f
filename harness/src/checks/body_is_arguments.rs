//! `body-is-arguments`: a POST or PUT carries the arguments of the call that sent it as its JSON body, exactly
//! as the call gave them (docs/protocol.md, the HTTP contract: "`POST` and `PUT` send the arguments as a JSON
//! body. Arguments go downstream exactly as decoded").
//!
//! Rule enforced here: the body and the arguments are compared as JSON values: the same members, in any order,
//! with the same values; numbers by value (`30`, `30.0` and `3e1` are one number), strings character for
//! character. A member dropped (a `null` left out), added, renamed, coerced (`"100"` sent as `100`), trimmed,
//! case-folded, filled in with a default or normalised fails. Only a request tied to calls is judged, against
//! each call that may have sent it, and it fails only when it is no call's arguments (a burst's requests tied to
//! their operation only). A call whose argument text is not one strict JSON object (a syntax error, a repeated
//! key: no decode has one meaning for it) is not judged, nor a body the request log did not keep (over
//! 256 KiB). GET and DELETE carry no arguments.

use super::json_values::{self, member_pointer, same_value as same};
use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::transcript::{CallRecord, Exchange};
use callproof_executor::Arguments;
use serde_json::Value;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const BODY_IS_ARGUMENTS: CheckId = CheckId::new("body-is-arguments");

pub(super) const CHECK: Check = Check {
    id: BODY_IS_ARGUMENTS,
    level: Level::Must,
    rule: "every POST and PUT carries the arguments of the call it serves as its JSON body, exactly as given",
    seed_ref: "§2.1",
    run,
};

/// How deep an argument text may nest to be compared (the decode's own limit is far below).
const MAX_DEPTH: usize = 128;

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    for exchange in &context.transcript.exchanges {
        let record = &exchange.record;
        let (true, Some(body)) = (matches!(record.method.as_str(), "POST" | "PUT"), record.body.as_deref()) else {
            continue;
        };
        let senders: Vec<(&CallRecord, Value)> = context
            .transcript
            .senders(exchange)
            .into_iter()
            .filter_map(|call| Some((call, arguments_of(call)?)))
            .collect();
        if senders.is_empty() {
            continue;
        }
        judgement.judged();
        let sent = serde_json::from_slice::<Value>(body).ok();
        if senders.iter().any(|(_, arguments)| sent.as_ref().is_some_and(|sent| same(sent, arguments))) {
            continue;
        }
        let mut evidence: Vec<String> = senders.iter().map(|(call, _)| call.line()).collect();
        evidence.push(exchange.line());
        judgement.fail(problem(exchange, sent.as_ref(), body, &senders[0].1), evidence);
    }
    judgement.outcome()
}

/// The call's arguments as one JSON value, or `None` when its text is not one strict JSON object.
fn arguments_of(call: &CallRecord) -> Option<Value> {
    let value = match &call.arguments {
        Arguments::Value(value) => value.clone(),
        Arguments::Raw(text) => callproof_executor::decode::parse_strict_str(text, MAX_DEPTH).ok()?,
    };
    value.is_object().then_some(value)
}

/// What differs between the body and the arguments, named by the first difference.
fn problem(exchange: &Exchange, sent: Option<&Value>, body: &[u8], arguments: &Value) -> String {
    let head = format!("request #{} ({})", exchange.record.index, exchange.record.endpoint);
    let Some(sent) = sent else {
        let what = if body.is_empty() { "no body".to_owned() } else { format!("a body of {} bytes that is not JSON", body.len()) };
        return format!("{head} carries {what}, not the call's arguments");
    };
    match first_difference(sent, arguments, String::new()) {
        Some(difference) => format!("{head} does not carry the call's arguments as given: {difference}"),
        None => format!("{head} does not carry the call's arguments as given"),
    }
}

/// The first place where `sent` differs from `given`, as a JSON pointer and what is there.
fn first_difference(sent: &Value, given: &Value, at: String) -> Option<String> {
    let place = if at.is_empty() { "the body".to_owned() } else { format!("`{at}`") };
    match (sent, given) {
        (Value::Object(sent), Value::Object(given)) => {
            for (name, value) in given {
                let pointer = member_pointer(&at, name);
                match sent.get(name) {
                    None => return Some(format!("`{pointer}` is left out")),
                    Some(found) if !same(found, value) => return first_difference(found, value, pointer),
                    Some(_) => {}
                }
            }
            let added = sent.keys().find(|name| !given.contains_key(*name))?;
            Some(format!("`{}` is added, which the call did not give", member_pointer(&at, added)))
        }
        (Value::Array(sent), Value::Array(given)) if sent.len() == given.len() => sent
            .iter()
            .zip(given)
            .enumerate()
            .find(|(_, (sent, given))| !same(sent, given))
            .and_then(|(index, (sent, given))| first_difference(sent, given, format!("{at}/{index}"))),
        _ if same(sent, given) => None,
        _ => Some(format!("{place} is {}, the call gave {}", excerpt(sent), excerpt(given))),
    }
}

fn excerpt(value: &Value) -> String {
    json_values::excerpt(value, 80)
}

#[cfg(test)]
mod tests {
    use super::super::testing::history;
    use super::*;
    use serde_json::json;

    #[test]
    fn bodies_that_are_the_arguments_pass_in_any_member_order_and_number_spelling() {
        history("submit refund_order -> ok; request GET /orders/ord_1 -> 200; request POST /refunds -> committed")
            .passes(&CHECK);
        history(
            r#"submit refund_order args={"order_id":"ord_1","amount":30,"reason":"x"} -> ok; request POST /refunds -> committed body={"reason":"x","amount":30.0,"order_id":"ord_1"}"#,
        )
        .passes(&CHECK);
        assert!(same(&json!({"a": [1, 2.5e0]}), &json!({"a": [1.0, 2.5]})));
        assert!(!same(&json!({"a": 1}), &json!({"a": "1"})));
    }

    #[test]
    fn a_body_with_a_member_dropped_added_coerced_or_case_folded_fails_and_names_it() {
        let given = r#"{"order_id":"ord_1","amount":null,"reason":"Dup"}"#;
        for (body, said) in [
            (r#"{"order_id":"ord_1","reason":"Dup"}"#, "`/amount` is left out"),
            (r#"{"order_id":"ord_1","amount":100,"reason":"Dup"}"#, "`/amount` is 100, the call gave null"),
            (r#"{"order_id":"ord_1","amount":null,"reason":"dup"}"#, "`/reason` is \"dup\", the call gave \"Dup\""),
            (r#"{"order_id":"ord_1","amount":null,"reason":"Dup","is_admin":true}"#, "`/is_admin` is added"),
            ("not-json", "a body of 8 bytes that is not JSON"),
        ] {
            history(&format!("submit refund_order args={given} -> ok; request POST /refunds -> committed body={body}"))
                .fails(&CHECK, said);
        }
    }

    #[test]
    fn reads_deletes_and_calls_without_one_strict_object_of_arguments_are_not_judged() {
        history("submit get_order -> ok; request GET /orders/ord_1 -> 200").skips(&CHECK);
        history(
            r#"submit refund_order args={"order_id":"ord_1","amount":1,"amount":2,"reason":"x"} -> ok; request POST /refunds -> committed body={"order_id":"ord_1","amount":2,"reason":"x"}"#,
        )
        .skips(&CHECK);
    }
}
