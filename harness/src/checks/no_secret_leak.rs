//! `no-secret-leak`: no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body,
//! no refusal repeats the value of an argument the tool's schema marks `x-sensitive`, and no notification the
//! subject sends beside its answers (an MCP server's log message) does either.
//!
//! Rule enforced here: every answer is searched for the markers the `leak_bait` fault plants, in every
//! scenario, whether or not the fault fired (an executor may cache and leak later); an error's `message` is
//! also searched for the address (`host:port`) of the downstream the executor was given, which the text of a
//! connection error carries (`connect ECONNREFUSED 127.0.0.1:41234`) and a message may not (errors.md). Every answer that is not a
//! success is searched for the sensitive argument values of every call of the run, its own and the others' (a
//! conflict must not show the arguments recorded before it; a success may hand a value back as its result): a
//! string of at least [`SHORTEST_SECRET`] characters found under such an argument, looked for by its first
//! [`SECRET_PROBE_CHARS`] characters, so an echo cut short is found too; every value of a repeated member counts,
//! not only the last a JSON map would keep. A masked echo is found as well (`****1034`, `priv…1034`,
//! `xxxx1034`): a run of at least [`SHORTEST_FRAGMENT`] letters and digits, holding a digit, next to a mask
//! (`*`, `…`, `•`, `#`, two dots, or led by three `x`), that a sensitive value holds. docs/errors.md forbids
//! repeating any part of the value, and a mask that keeps its last digits keeps exactly the part that matters.
//! A value (or part) the executor could not tell from public text is not judged: one that an argument that is
//! not sensitive also holds, in any call (a subject equal to the body), or that an argument text that is not
//! JSON, or the arguments of a tool that marks nothing, hold. Its echo may be theirs.
//!
//! The credentials the harness gave the subject (the bearer tokens of MCP over HTTP) are looked for in every
//! answer and notification, success or not: a token's signature (its last part, which nothing but the token
//! holds) anywhere in one means the token came back, in a log line or an error (MCP logging §Security:
//! credentials never go in log messages; docs/errors.md: no secret in an envelope).

use super::{Check, CheckId, Context, Judgement, Level, Outcome};
use crate::protocol::excerpt;
use crate::transcript::CallRecord;
use crate::world::LEAK_MARKERS;
use callproof_executor::Arguments;
use super::oracle;
use callproof_executor::decode::{CompiledSchema, push_pointer_token};
use serde_json::Value;
use std::borrow::Cow;
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// This check's id, as docs, mutant tables, baselines and reports spell it.
pub const NO_SECRET_LEAK: CheckId = CheckId::new("no-secret-leak");

pub(super) const CHECK: Check = Check {
    id: NO_SECRET_LEAK,
    level: Level::Must,
    rule: "no envelope carries a secret, stack trace, SQL, internal hostname or raw downstream body; no refusal \
           repeats an x-sensitive argument; no notification does either",
    seed_ref: "§6.2, §11",
    run,
};

fn run(context: &Context<'_>) -> Outcome {
    let mut judgement = Judgement::new();
    judgement.judged_if(!context.transcript.calls.is_empty());
    // Found once, and only for a run with a failure: exploration judges every run after every step.
    let mut secrets: Option<Vec<Secret>> = None;
    let credentials = credential_probes(&context.transcript.credentials);
    for call in &context.transcript.calls {
        let Some(raw) = call.answer.raw() else { continue };
        let leaked = markers_carried(raw);
        if !leaked.is_empty() {
            judgement.fail(format!("the envelope carries {leaked:?}"), context.evidence(call));
        }
        if let Some(shown) = credential_shown(raw, &credentials) {
            judgement.fail(format!("the answer carries {shown}"), context.evidence(call));
        }
        let message = raw.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
        if let Some(address) = context.transcript.downstream_address.as_deref().filter(|at| message.contains(at)) {
            judgement.fail(
                format!(
                    "the error message names the downstream's address {address} (errors.md: a message never \
                     contains host names; an exception's text often does)"
                ),
                context.evidence(call),
            );
        }
        if call.ok() {
            continue;
        }
        let secrets = secrets.get_or_insert_with(|| sensitive_values(context));
        for (secret, how) in secrets_shown(raw, secrets) {
            judgement.fail(repeats("the answer", secret, &how), context.evidence(call));
        }
    }
    // A notification (an MCP server's log message) reaches the client as an answer does: MCP's logging
    // §Security says log messages MUST NOT contain credentials, secrets or internal details.
    for (index, notice) in context.transcript.notices.iter().enumerate() {
        judgement.judged();
        let method = notice.get("method").and_then(Value::as_str).unwrap_or("a notification");
        let evidence = || vec![format!("notification #{index}: {}", excerpt(&notice.to_string(), NOTICE_EVIDENCE_CHARS))];
        let leaked = markers_carried(notice);
        if !leaked.is_empty() {
            judgement.fail(format!("the server's {method} #{index} carries {leaked:?}"), evidence());
        }
        if let Some(shown) = credential_shown(notice, &credentials) {
            judgement.fail(format!("the server's {method} #{index} carries {shown}"), evidence());
        }
        let secrets = secrets.get_or_insert_with(|| sensitive_values(context));
        for (secret, how) in secrets_shown(notice, secrets) {
            judgement.fail(repeats(&format!("the server's {method} #{index}"), secret, &how), evidence());
        }
    }
    judgement.outcome()
}

/// The violation of `what` showing `secret`, `how` it shows it.
fn repeats(what: &str, secret: &Secret, how: &str) -> String {
    format!(
        "{what} repeats the value of `{}` of call #{}, an argument the tool's schema marks x-sensitive ({how})",
        secret.pointer, secret.call
    )
}

/// The fewest characters of a credential's signature that are looked for (an HS256 signature has 43).
const SHORTEST_SIGNATURE: usize = 16;

/// The part of each credential that is looked for: a JWT's signature, its last part.
fn credential_probes(credentials: &[String]) -> Vec<&str> {
    let mut probes: Vec<&str> = credentials
        .iter()
        .filter_map(|token| token.rsplit('.').next().filter(|signature| signature.len() >= SHORTEST_SIGNATURE))
        .collect();
    probes.sort_unstable();
    probes.dedup();
    probes
}

/// Says which credential `value` carries, if it carries one (never quoting more than its signature's start).
fn credential_shown(value: &Value, probes: &[&str]) -> Option<String> {
    let probe = probes.iter().find(|probe| carries_text(value, probe))?;
    Some(format!(
        "a bearer token the harness sent with a call (its signature, which begins {:?}): a client's credential \
         never comes back in an answer or a log message",
        &probe[..8]
    ))
}

/// How much of a notification its evidence line shows.
const NOTICE_EVIDENCE_CHARS: usize = 300;

/// The secrets `value` shows, whole or masked, each with how it shows it.
fn secrets_shown<'s>(value: &Value, secrets: &'s [Secret]) -> Vec<(&'s Secret, String)> {
    if secrets.is_empty() {
        return Vec::new();
    }
    let masked = masked_fragments(value);
    secrets
        .iter()
        .filter_map(|secret| {
            let what = if carries_text(value, &secret.probe) {
                format!("it begins {:?}", secret.probe)
            } else {
                let fragment = masked.iter().find(|fragment| secret.fragments.contains(**fragment))?;
                format!("masked, it still shows {fragment:?}")
            };
            Some((secret, what))
        })
        .collect()
}

/// The fewest characters a sensitive value must have to be looked for: a shorter one could turn up in any text.
const SHORTEST_SECRET: usize = 8;
/// How many of a sensitive value's first characters are looked for.
const SECRET_PROBE_CHARS: usize = 16;

/// A value a caller sent in a sensitive argument, and what of it is looked for.
#[derive(Debug, PartialEq, Eq)]
struct Secret {
    /// The first call that sent it.
    call: usize,
    /// The JSON pointer of the string in that call's arguments.
    pointer: String,
    /// Its first [`SECRET_PROBE_CHARS`] characters.
    probe: String,
    /// What a masked echo of it may show: every run of at least [`SHORTEST_FRAGMENT`] of its letters and digits
    /// that holds a digit and that no public text holds ([`fragments_of`]).
    fragments: BTreeSet<String>,
}

/// The strings of the run's arguments that lie under a property their tool's input schema marks
/// `x-sensitive`, each at least [`SHORTEST_SECRET`] characters long, once each, and held by no argument that is
/// not sensitive (value or member name) of any call, nor by an argument text that is not JSON or goes to a tool
/// that marks nothing: an answer may repeat those, and an executor cannot tell them apart. What is sensitive is
/// the reference's reading of the catalog ([`oracle::sensitive_input`]).
fn sensitive_values(context: &Context<'_>) -> Vec<Secret> {
    let mut public: Vec<Cow<'_, str>> = Vec::new();
    let mut secrets: Vec<Secret> = Vec::new();
    let mut unmarked: Vec<&CallRecord> = Vec::new();
    for call in context.transcript.calls.iter() {
        // Parsed only for a tool that marks something: most calls of a run are not.
        let Some((input, arguments)) =
            oracle::sensitive_input(&call.tool).and_then(|input| Some((input, Written::of(&call.arguments)?)))
        else {
            unmarked.push(call);
            continue;
        };
        let (secret, own_public) = split_texts(input, &arguments);
        public.extend(own_public.into_iter().map(|text| Cow::Owned(text.to_owned())));
        for (pointer, text) in secret {
            if text.chars().nth(SHORTEST_SECRET - 1).is_none() {
                continue;
            }
            let probe: String = text.chars().take(SECRET_PROBE_CHARS).collect();
            if !secrets.iter().any(|known| known.probe == probe) {
                secrets.push(Secret { call: call.index, pointer, probe, fragments: fragments_of(text) });
            }
        }
    }
    if secrets.is_empty() {
        return secrets;
    }
    for call in unmarked {
        match &call.arguments {
            Arguments::Raw(text) => public.push(Cow::Borrowed(text)),
            Arguments::Value(_) => {
                let written = Written::of(&call.arguments).unwrap_or(Written::Other);
                public.extend(strings_under(&written).into_iter().map(|(_, text)| Cow::Owned(text.to_owned())));
            }
        }
    }
    secrets.retain(|secret| !public.iter().any(|text| text.contains(&secret.probe)));
    for secret in &mut secrets {
        secret.fragments.retain(|fragment| !public.iter().any(|text| text.contains(fragment.as_str())));
    }
    secrets
}

/// The fewest letters and digits a masked echo must show to be judged: fewer could be any number in any text.
const SHORTEST_FRAGMENT: usize = 4;

/// Runs of letters and digits up to this long give every part; a longer one (a token, a base64 blob) gives its
/// beginnings and ends up to this long, which is what a mask keeps.
const FULLY_SPLIT_RUN: usize = 16;

/// At most this many parts are kept per value, so a 10 000-character body costs a bounded set.
const MOST_FRAGMENTS: usize = 4096;

/// Every part of `text` a masked echo could show: each substring of at least [`SHORTEST_FRAGMENT`] characters
/// that holds a digit, of each maximal run of ASCII letters and digits that holds one (`881034` gives `8810`,
/// `1034`, `88103`, ...; a run longer than [`FULLY_SPLIT_RUN`] gives only its beginnings and ends). Runs of
/// letters only are left out: a mask that shows `priv` shows a word any message may hold.
fn fragments_of(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let runs = text.split(|c: char| !c.is_ascii_alphanumeric());
    for run in runs.filter(|run| run.len() >= SHORTEST_FRAGMENT && run.bytes().any(|byte| byte.is_ascii_digit())) {
        let parts: Vec<&str> = if run.len() <= FULLY_SPLIT_RUN {
            (0..run.len())
                .flat_map(|start| (start + SHORTEST_FRAGMENT..=run.len()).map(move |end| &run[start..end]))
                .collect()
        } else {
            (SHORTEST_FRAGMENT..=FULLY_SPLIT_RUN).flat_map(|length| [&run[..length], &run[run.len() - length..]]).collect()
        };
        for part in parts.into_iter().filter(|part| part.bytes().any(|byte| byte.is_ascii_digit())) {
            if found.len() == MOST_FRAGMENTS {
                return found;
            }
            found.insert(part.to_owned());
        }
    }
    found
}

/// The runs of letters and digits in `value`'s strings that stand next to a mask: after or before `*`, `…`, `•`,
/// `●`, `#` or two dots, or after three or more `x` or `X` (`xxxx1034`, the x's stripped). Each holds a digit and
/// at least [`SHORTEST_FRAGMENT`] characters.
fn masked_fragments(value: &Value) -> Vec<&str> {
    fn is_mask(c: char) -> bool {
        matches!(c, '*' | '…' | '•' | '●' | '#')
    }
    fn in_text<'a>(text: &'a str, found: &mut Vec<&'a str>) {
        static RUN: OnceLock<Regex> = OnceLock::new();
        let runs = RUN.get_or_init(|| Regex::new("[0-9A-Za-z]+").expect("the run pattern is a valid regex"));
        for run in runs.find_iter(text) {
            let (before, after) = (&text[..run.start()], &text[run.end()..]);
            let masked_around = before.chars().next_back().is_some_and(is_mask)
                || before.ends_with("..")
                || after.chars().next().is_some_and(is_mask)
                || after.starts_with("..");
            let unmasked = run.as_str().trim_start_matches(['x', 'X']);
            let shown = if run.len() - unmasked.len() >= 3 { unmasked } else { run.as_str() };
            let masked = masked_around || shown.len() < run.len();
            if masked && shown.len() >= SHORTEST_FRAGMENT && shown.bytes().any(|byte| byte.is_ascii_digit()) {
                found.push(shown);
            }
        }
    }
    let mut found = Vec::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(text) => in_text(text, &mut found),
            Value::Object(members) => {
                members.keys().for_each(|name| in_text(name, &mut found));
                stack.extend(members.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found
}

/// The strings of `arguments` (member names included), split by `input`: under a sensitive property (with
/// their pointers), or anywhere else.
fn split_texts<'a>(input: &CompiledSchema, arguments: &'a Written) -> (Vec<(String, &'a str)>, Vec<&'a str>) {
    let (secret, public): (Vec<_>, Vec<_>) =
        strings_under(arguments).into_iter().partition(|(pointer, _)| input.is_sensitive(pointer));
    (secret, public.into_iter().map(|(_, text)| text).collect())
}

/// Every string of `value` (member names included, each with its object's pointer), with its JSON pointer,
/// without recursion.
fn strings_under(value: &Written) -> Vec<(String, &str)> {
    let mut found = Vec::new();
    let mut stack = vec![(String::new(), value)];
    while let Some((pointer, value)) = stack.pop() {
        match value {
            Written::Text(text) => found.push((pointer, text.as_str())),
            Written::Members(members) => {
                for (name, member) in members {
                    found.push((pointer.clone(), name.as_str()));
                    let mut inner = pointer.clone();
                    inner.push('/');
                    push_pointer_token(&mut inner, name);
                    stack.push((inner, member));
                }
            }
            Written::Items(items) => {
                stack.extend(items.iter().enumerate().map(|(index, item)| (format!("{pointer}/{index}"), item)));
            }
            Written::Other => {}
        }
    }
    found
}

/// Arguments as the caller wrote them, every member kept: the earlier values of a repeated member were sent too,
/// and the refusal of the repetition must not show them either (a `serde_json::Value` keeps only the last).
#[derive(Debug, PartialEq)]
enum Written {
    Text(String),
    Members(Vec<(String, Written)>),
    Items(Vec<Written>),
    /// A number, a boolean or null: nothing to look for.
    Other,
}

impl Written {
    /// A call's arguments, or `None` for text that is not JSON (serde_json's nesting limit bounds the parse).
    fn of(arguments: &Arguments) -> Option<Written> {
        match arguments {
            Arguments::Raw(text) => serde_json::from_str(text).ok(),
            Arguments::Value(value) => serde_json::from_value(value.clone()).ok(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Written {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Written, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Written;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("JSON")
            }

            fn visit_str<E>(self, text: &str) -> Result<Written, E> {
                Ok(Written::Text(text.to_owned()))
            }

            fn visit_string<E>(self, text: String) -> Result<Written, E> {
                Ok(Written::Text(text))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Written, E> {
                Ok(Written::Other)
            }

            fn visit_i64<E>(self, _: i64) -> Result<Written, E> {
                Ok(Written::Other)
            }

            fn visit_u64<E>(self, _: u64) -> Result<Written, E> {
                Ok(Written::Other)
            }

            fn visit_f64<E>(self, _: f64) -> Result<Written, E> {
                Ok(Written::Other)
            }

            fn visit_unit<E>(self) -> Result<Written, E> {
                Ok(Written::Other)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<Written, A::Error> {
                let mut found = Vec::new();
                while let Some(item) = items.next_element()? {
                    found.push(item);
                }
                Ok(Written::Items(found))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut members: A) -> Result<Written, A::Error> {
                let mut found = Vec::new();
                while let Some(member) = members.next_entry()? {
                    found.push(member);
                }
                Ok(Written::Members(found))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Whether a string of `value`, or a member name, contains `text`.
fn carries_text(value: &Value, text: &str) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::String(found) if found.contains(text) => return true,
            Value::Object(members) => {
                if members.keys().any(|name| name.contains(text)) {
                    return true;
                }
                stack.extend(members.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// The markers that a string of `value`, or a member name, holds, each once and in the order of
/// [`LEAK_MARKERS`], found in one walk of `value`. No marker holds a quote (the only way text of two strings
/// joins in serialised JSON) or a character JSON escapes, so this finds what a search of the serialised envelope
/// would, without serialising every envelope again after every step of an exploration.
fn markers_carried(value: &Value) -> Vec<&'static str> {
    let mut found = [false; LEAK_MARKERS.len()];
    mark(value, &mut found);
    LEAK_MARKERS.iter().zip(found).filter_map(|(marker, found)| found.then_some(*marker)).collect()
}

fn mark(value: &Value, found: &mut [bool; LEAK_MARKERS.len()]) {
    match value {
        Value::String(text) => mark_text(text, found),
        Value::Array(items) => items.iter().for_each(|item| mark(item, found)),
        Value::Object(members) => members.iter().for_each(|(name, member)| {
            mark_text(name, found);
            mark(member, found);
        }),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Marks the markers `text` holds; a text shorter than every marker holds none.
fn mark_text(text: &str, found: &mut [bool; LEAK_MARKERS.len()]) {
    if text.len() < SHORTEST_MARKER {
        return;
    }
    for (marker, found) in LEAK_MARKERS.iter().zip(found.iter_mut()) {
        *found |= text.contains(marker);
    }
}

const SHORTEST_MARKER: usize = {
    let mut shortest = usize::MAX;
    let mut index = 0;
    while index < LEAK_MARKERS.len() {
        if LEAK_MARKERS[index].len() < shortest {
            shortest = LEAK_MARKERS[index].len();
        }
        index += 1;
    }
    shortest
};

/// Whether `value` carries `marker` anywhere [`markers_carried`] looks.
#[cfg(test)]
fn carries(value: &Value, marker: &str) -> bool {
    markers_carried(value).contains(&marker)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{DOWNSTREAM_ADDRESS, history};
    use crate::transcript::Answer;
    use super::*;

    #[test]
    fn envelopes_without_markers_pass() {
        history("submit refund_order -> dependency_unavailable reason=unavailable").passes(&CHECK);
    }

    #[test]
    fn an_error_message_that_names_the_downstreams_address_fails_and_other_members_may() {
        let address = DOWNSTREAM_ADDRESS;
        let with = |member: &str, text: String| {
            history("submit send_email -> dependency_unavailable reason=not_sent").with_call(0, |call| {
                let mut raw = call.answer.raw().cloned().unwrap_or_default();
                raw["error"][member] = text.into();
                call.answer = Answer::read(raw);
            })
        };
        with("message", format!("connect ECONNREFUSED {address}")).fails(&CHECK, "names the downstream's address");
        with("message", "connect ECONNREFUSED (the payment service)".to_owned()).passes(&CHECK);
        // Only the message is held to it: errors.md rules host names out of messages, not out of every member.
        with("location", format!("http://{address}/refunds/rf_1")).passes(&CHECK);
    }

    #[test]
    fn a_marker_anywhere_in_an_envelope_fails() {
        history("submit refund_order -> dependency_unavailable body=db-primary-7.payments.internal.corp")
            .fails(&CHECK, "db-primary-7.payments.internal.corp");
    }

    #[test]
    fn a_marker_in_a_nested_string_or_a_member_name_is_found_and_nowhere_else() {
        let marker = LEAK_MARKERS[0];
        assert!(carries(&serde_json::json!({"a": [1, {"b": format!("x {marker} y")}]}), marker));
        assert!(carries(&serde_json::json!({"error": {(marker.to_owned()): true}}), marker));
        assert!(!carries(&serde_json::json!({"a": [1, null, {"b": "sk_live_"}], "c": 5}), marker));
        // Text outside one string can only join a marker through a quote; JSON escapes only quotes, backslashes
        // and control characters.
        let escaped_or_joining = |c: char| c == '"' || c == '\\' || c.is_control();
        assert!(LEAK_MARKERS.iter().all(|marker| !marker.contains(escaped_or_joining)), "the walk sees every marker");
    }

    #[test]
    fn each_marker_is_named_once_in_the_order_of_the_markers() {
        let [first, second, ..] = LEAK_MARKERS;
        let envelope = serde_json::json!({"a": format!("{second} {first}"), "b": [second], (first.to_owned()): 1});
        assert_eq!(markers_carried(&envelope), [first, second]);
    }

    /// A send_email call whose body (x-sensitive in the catalog) is `body`, refused with `answer`.
    fn refused_email(body: &str, answer: &str) -> String {
        format!(
            r#"submit send_email args={{"to":"a@example.com","subject":"hi","body":{body}}} -> schema_violation {answer}"#
        )
    }

    #[test]
    fn a_refusal_that_repeats_a_sensitive_value_fails() {
        let body = r#"{"text":"callproof-private-4f1c9e"}"#;
        let echoed = format!("message={body}_is_not_a_string path=/body keyword=type");
        history(&refused_email(body, &echoed)).fails(&CHECK, "`/body/text`");
        let in_details = r#"message=the_value_is_not_a_string received="callproof-private-4f1c9e""#;
        history(&refused_email(body, in_details)).fails(&CHECK, "x-sensitive");
        let masked = "message=the_value_is_not_a_string path=/body keyword=type";
        history(&refused_email(body, masked)).passes(&CHECK);
    }

    #[test]
    fn a_bearer_token_the_harness_sent_fails_in_an_answer_or_a_notification_and_its_claims_alone_pass() {
        // Blind round 16's ts_token_logged_to_client: each call logged "authenticated ... with bearer <token>".
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1X2FsaWNlIn0.Q2hhbmdlZC1zaWduYXR1cmUtdGhhdC1uby1vbmUtaGFz";
        let log = |data: String| {
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "debug", "logger": "auth", "data": data}})
        };
        let run = || history("submit get_order -> ok").with_credentials(vec![token.to_owned()]);
        run().passes(&CHECK);
        run()
            .with_notices(vec![log(format!("get_order: authenticated u_alice with bearer {token}"))])
            .fails(&CHECK, "notifications/message #0 carries a bearer token the harness sent");
        run()
            .with_notices(vec![log("get_order: authenticated u_alice (eyJzdWIiOiJ1X2FsaWNlIn0)".to_owned())])
            .passes(&CHECK);
        history(&format!("submit get_order -> unauthorized message=token_{token}_rejected"))
            .with_credentials(vec![token.to_owned()])
            .fails(&CHECK, "the answer carries a bearer token the harness sent");
    }

    #[test]
    fn a_notification_that_repeats_a_sensitive_value_or_carries_a_marker_fails_and_a_plain_one_passes() {
        // Blind round 14's ts_refusal_logged_to_client: a refusal logged to the client with the arguments.
        let body = r#""callproof-private-4f1c9e""#;
        let run = || history(&refused_email(body, "message=the_body_is_not_valid path=/body keyword=type"));
        let log = |data: serde_json::Value| {
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "error", "logger": "tools", "data": data}})
        };
        run().passes(&CHECK);
        run()
            .with_notices(vec![log(serde_json::json!({"refused": "send_email", "arguments": {"body": "callproof-private-4f1c9e"}}))])
            .fails(&CHECK, "notifications/message #0 repeats the value of `/body`");
        run()
            .with_notices(vec![log("send_email refused, body ****4f1c9e".into())])
            .fails(&CHECK, "masked, it still shows");
        run()
            .with_notices(vec![log(format!("downstream said: {}", LEAK_MARKERS[0]).into())])
            .fails(&CHECK, "carries");
        run()
            .with_notices(vec![
                log("send_email refused: schema_violation at /body".into()),
                serde_json::json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                   "params": {"progressToken": 1, "progress": 1}}),
            ])
            .passes(&CHECK);
    }

    #[test]
    fn a_masked_echo_that_keeps_some_digits_fails() {
        // Blind round 14's sensitive_value_masked: the first and last four characters, an ellipsis between.
        let body = r#"["private-list-9Kw4-reset-code-881034"]"#;
        for masked in [
            "message=['priv…1034']_is_not_of_type_'string'",
            "message=the_value_****1034_is_not_a_string",
            "message=the_value_xxxx1034_is_not_a_string",
            "message=value_9Kw4…_is_not_a_string",
            "message=value_•••••881034_is_not_a_string",
            "message=value_9Kw4..._is_not_a_string",
        ] {
            history(&refused_email(body, masked)).fails(&CHECK, "masked, it still shows");
        }
    }

    #[test]
    fn a_mask_that_shows_no_part_of_the_value_or_numbers_of_its_own_passes() {
        let body = r#"["private-list-9Kw4-reset-code-881034"]"#;
        for answer in [
            "message=the_value_********_is_not_a_string",
            "message=the_value_is_not_a_string_(trace_1034abc,_at_1733401034)",
            "message=priv…_is_not_a_string",
            "message=****_1000_ms_left",
            "message=#2034_is_not_a_string",
        ] {
            history(&refused_email(body, answer)).passes(&CHECK);
        }
        // A part that public text holds (here the subject) is not judged: its echo may be the subject's.
        let public = r#"submit send_email args={"to":"a@example.com","subject":"code-1034","body":"private-reset-code-881034"} -> schema_violation message=****1034"#;
        history(public).passes(&CHECK);
    }

    #[test]
    fn every_value_of_a_repeated_sensitive_member_counts_not_only_the_last() {
        let repeated = r#"submit send_email args={"to":"a@example.com","subject":"hi","body":"first-private-4f1c9e","body":"second-private-8d2a7b"}"#;
        for echoed in ["first-private-4f1c9e", "second-private-8d2a7b"] {
            history(&format!("{repeated} -> invalid_arguments reason=duplicate_key message=the_body_{echoed}_repeats"))
                .fails(&CHECK, "`/body`");
        }
        history(&format!("{repeated} -> invalid_arguments reason=duplicate_key message=/body_repeats")).passes(&CHECK);
    }

    #[test]
    fn an_echo_cut_short_is_found_and_a_short_value_is_not_looked_for() {
        let long = r#""callproof-private-4f1c9e-and-much-more-after-it""#;
        history(&refused_email(long, "message=callproof-private…_is_too_long")).fails(&CHECK, "`/body`");
        history(&refused_email(long, "message=callproof-priv…_is_too_long")).passes(&CHECK);
        history(&refused_email(r#""secret1""#, "message=secret1_is_too_short")).passes(&CHECK);
    }

    #[test]
    fn a_value_another_argument_holds_or_a_success_may_be_repeated() {
        let same = r#"submit send_email args={"to":"a@example.com","subject":"callproof-private","body":"callproof-private"}"#;
        history(&format!("{same} -> schema_violation message=subject_callproof-private_is_bad")).passes(&CHECK);
        let body = r#"submit send_email args={"to":"a@example.com","subject":"hi","body":"callproof-private-4f1c9e"}"#;
        history(&format!(r#"{body} -> ok result={{"echo":"callproof-private-4f1c9e"}}"#)).passes(&CHECK);
        let reason = r#"submit refund_order args={"order_id":"ord_1","amount":"100","reason":"callproof-private-4f1c9e"}"#;
        history(&format!("{reason} -> schema_violation message=callproof-private-4f1c9e")).passes(&CHECK);
    }

    #[test]
    fn another_calls_sensitive_value_counts_unless_a_text_the_executor_cannot_tell_apart_holds_it() {
        let first = r#"submit send_email args={"to":"a@example.com","subject":"hi","body":"callproof-private-first"} -> ok"#;
        let changed = r#"changed args={"to":"a@example.com","subject":"hi","body":"callproof-other-second"}"#;
        history(&format!("{first}\n{changed} -> idempotency_conflict recorded=callproof-private-first"))
            .fails(&CHECK, "of call #0");
        history(&format!("{first}\n{changed} -> idempotency_conflict reason=arguments_changed")).passes(&CHECK);
        let public = r#"submit send_email args={"to":"a@example.com","subject":"callproof-private-first","body":"x"} -> ok"#;
        history(&format!("{first}\n{public}\n{changed} -> idempotency_conflict recorded=callproof-private-first"))
            .passes(&CHECK);
        // The same text as a refund's reason, or in an email whose text is no JSON: an executor may repeat it.
        let reason = r#"submit refund_order args={"order_id":"ord_1","amount":"1","reason":"callproof-private-first"}"#;
        history(&format!("{first}\n{reason} -> schema_violation message=callproof-private-first")).passes(&CHECK);
        let broken = r#"submit send_email args={"body":"callproof-private-first -> invalid_json message=at_callproof-private-first"#;
        history(&format!("{first}\n{broken}")).passes(&CHECK);
    }

    #[test]
    fn texts_are_split_by_the_schema_under_items_combinators_and_undeclared_members() {
        let schema = serde_json::json!({
            "properties": {
                "cards": {"items": {"properties": {"number": {"x-sensitive": true}}}},
                "auth": {"anyOf": [{"properties": {"pin": {"x-sensitive": true, "type": "string"}}}]},
                "a/b": {"x-sensitive": true}
            }
        });
        let arguments = serde_json::json!({
            "cards": [{"number": "4111", "name": "Ann"}],
            "auth": {"pin": "9876"},
            "a/b": {"deep": ["x"]},
            "extra": {"inner": "public"}
        });
        let input = CompiledSchema::compile(&schema).expect("a schema");
        let arguments = Written::of(&Arguments::Value(arguments)).expect("JSON");
        let (mut secret, public) = split_texts(&input, &arguments);
        secret.sort();
        assert_eq!(
            secret,
            [
                ("/auth/pin".to_owned(), "9876"),
                ("/a~1b".to_owned(), "deep"),
                ("/a~1b/deep/0".to_owned(), "x"),
                ("/cards/0/number".to_owned(), "4111")
            ]
        );
        for text in ["Ann", "inner", "public", "extra", "cards", "name"] {
            assert!(public.contains(&text), "{text} is public: {public:?}");
        }
        assert!(!public.contains(&"4111"));
    }

    #[test]
    fn a_run_without_calls_skips() {
        history("").skips(&CHECK);
    }
}
