//! Properties over generated inputs: decoding never panics, the canonical form is a function of the value
//! alone, idempotency keys name business operations, claims are exclusive, and the record's state machine
//! refuses every arrow it does not have. Case counts are modest so the suite stays fast on two cores.

mod support;

use callproof_executor::canonical::canonical_json;
use callproof_executor::decode::{self, Limits, parse_strict};
use callproof_executor::error::Category;
use callproof_executor::idempotency::{KeyInput, NewRecord, State, Update, Version, derive_key, is_legal};
use callproof_executor::store::{Claim, MemoryStore, Store, StoreError, StoreExt};
use callproof_executor::{AuthContext, ToolCall};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Map, Number, Value};
use std::fmt::Write as _;
use std::sync::{Arc, Barrier, OnceLock};
use support::World;

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(World::new)
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime"))
}

/// Shrunk failures are kept in executor/proptest-regressions/ (cargo runs tests from the crate root) and
/// replayed first on every run.
fn persistence() -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    Some(Box::new(FileFailurePersistence::Direct("proptest-regressions/properties.txt")))
}

// ---- strategies -------------------------------------------------------------------------------------------

fn json_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1_000_000i64..1_000_000).prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |float| Number::from_f64(float).map(Value::Number)),
        (-1000i32..1000).prop_map(|whole| Value::from(f64::from(whole))),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        json_number(),
        "\\PC{0,12}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_~/é\"\\\\]{0,6}", inner, 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Bytes that look like JSON often enough to reach deep into the parser.
fn json_ish_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token =
        prop_oneof![any::<u8>(), prop::sample::select(b"{}[]\":,0123456789-+.eEtrufalsnNI \n\t\\u'/#".to_vec()),];
    prop::collection::vec(token, 0..160)
}

// ---- decode never panics ----------------------------------------------------------------------------------

fn assert_input_refusal(result: &Result<decode::Decoded<'_>, callproof_executor::ErrorBody>) {
    if let Err(error) = result {
        let info = error.code().info();
        assert!(
            matches!(info.category, Category::Input | Category::Protocol),
            "decode answered {} ({:?})",
            error.code(),
            info.category
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn decoding_arbitrary_bytes_never_panics_and_only_refuses_with_input_codes(bytes in json_ish_bytes()) {
        let _ = parse_strict(&bytes, 64);
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let call = ToolCall::raw("call_p", "refund_order", text);
        assert_input_refusal(&decode::decode(&call, world().executor.tools(), &Limits::default()));
    }

    #[test]
    fn decoding_arbitrary_json_never_panics_and_round_trips_through_text(value in json_value()) {
        let call = ToolCall::value("call_p", "refund_order", value.clone());
        assert_input_refusal(&decode::decode(&call, world().executor.tools(), &Limits::default()));
        let text = serde_json::to_vec(&value).expect("serialize");
        prop_assert_eq!(parse_strict(&text, 64).expect("serde_json's output is strict JSON"), value.clone());
        let call = ToolCall::raw("call_p", "get_weather", String::from_utf8(text).expect("utf-8"));
        assert_input_refusal(&decode::decode(&call, world().executor.tools(), &Limits::default()));
    }
}

/// `[` or `{"k":` openers of any mix, closed in order.
fn nested_text(openers: &[bool]) -> String {
    let mut text = String::from(r#"{"x":"#);
    for &object in openers {
        text.push_str(if object { r#"{"k":"# } else { "[" });
    }
    text.push('1');
    for &object in openers.iter().rev() {
        text.push(if object { '}' } else { ']' });
    }
    text.push('}');
    text
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn nesting_of_any_shape_and_depth_is_refused_past_the_limit_without_recursing(
        openers in prop::collection::vec(any::<bool>(), 0..4000),
    ) {
        let text = nested_text(&openers);
        let call = ToolCall::raw("call_p", "refund_order", text);
        let refused = decode::decode(&call, world().executor.tools(), &Limits::default())
            .expect_err("no refund has an `x` field");
        let expected = if openers.len() + 1 > 64 { "invalid_arguments" } else { "schema_violation" };
        prop_assert_eq!(refused.code().as_str(), expected);
        if openers.len() + 1 > 64 {
            prop_assert_eq!(&refused.details()["reason"], "too_deep");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_arguments_through_the_executor_always_yield_a_published_envelope(
        value in json_value(),
        tool in prop::sample::select(&support::CATALOG[..]),
    ) {
        // World::execute checks the envelope against docs/envelope.schema.json.
        let envelope = runtime().block_on(world().execute(support::call_value(tool, value)));
        if !envelope.ok {
            prop_assert!(!envelope.error.as_ref().expect("error").message().is_empty());
        }
    }
}

// ---- canonical form ---------------------------------------------------------------------------------------

/// A small deterministic generator, seeded by proptest, for shuffles and spellings.
struct Spin(u64);

impl Spin {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn space(&mut self, out: &mut String) {
        for _ in 0..self.below(3) {
            out.push([' ', '\n', '\t', '\r'][self.below(4)]);
        }
    }
}

/// Writes `value` as JSON with shuffled keys, random whitespace, random `\u` escapes and random spellings of
/// integral numbers.
fn respell(value: &Value, spin: &mut Spin, out: &mut String) {
    spin.space(out);
    match value {
        Value::Object(members) => {
            let mut entries: Vec<(&String, &Value)> = members.iter().collect();
            for index in (1..entries.len()).rev() {
                entries.swap(index, spin.below(index + 1));
            }
            out.push('{');
            for (position, (key, member)) in entries.into_iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                spin.space(out);
                respell_string(key, spin, out);
                spin.space(out);
                out.push(':');
                respell(member, spin, out);
            }
            spin.space(out);
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(',');
                }
                respell(item, spin, out);
            }
            spin.space(out);
            out.push(']');
        }
        Value::String(text) => respell_string(text, spin, out),
        Value::Number(number) => respell_number(number, spin, out),
        other => out.push_str(&other.to_string()),
    }
    spin.space(out);
}

fn respell_string(text: &str, spin: &mut Spin, out: &mut String) {
    out.push('"');
    for character in text.chars() {
        if spin.below(3) == 0 {
            let mut units = [0u16; 2];
            for unit in character.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            let escaped = serde_json::to_string(&character.to_string()).expect("serialize");
            out.push_str(&escaped[1..escaped.len() - 1]);
        }
    }
    out.push('"');
}

fn respell_number(number: &Number, spin: &mut Spin, out: &mut String) {
    const SAFE: i128 = 1 << 53;
    let integral = number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from));
    match integral {
        Some(whole) if whole.abs() <= SAFE => {
            let spellings = [
                format!("{whole}"),
                format!("{whole}.0"),
                format!("{whole}.000"),
                format!("{whole}e0"),
                format!("{whole}E+0"),
                if whole == 0 { "-0".to_owned() } else { format!("{whole}") },
                if whole == 0 { "-0.0e5".to_owned() } else { format!("{whole}.0e-0") },
            ];
            out.push_str(&spellings[spin.below(spellings.len())]);
        }
        _ => out.push_str(&number.to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_canonical_form_ignores_key_order_whitespace_escapes_and_number_spelling(value in json_value(), seed in any::<u64>()) {
        let mut text = String::new();
        respell(&value, &mut Spin(seed | 1), &mut text);
        let reparsed = parse_strict(text.as_bytes(), 64).unwrap_or_else(|fault| panic!("{fault:?} in {text}"));
        prop_assert_eq!(canonical_json(&reparsed), canonical_json(&value), "respelled as {}", text);
    }

    #[test]
    fn the_canonical_form_is_idempotent_and_strict_json(value in json_value()) {
        let canonical = canonical_json(&value);
        let reparsed = parse_strict(canonical.as_bytes(), 64).expect("canonical JSON is strict JSON");
        prop_assert_eq!(canonical_json(&reparsed), canonical.clone());
        prop_assert!(!has_space_outside_strings(&canonical), "{}", canonical);
    }
}

/// Whether JSON `text` has whitespace between tokens (inside strings it is content).
fn has_space_outside_strings(text: &str) -> bool {
    let (mut in_string, mut escaped) = (false, false);
    for character in text.chars() {
        match (in_string, escaped, character) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') | (false, _, '"') => in_string = !in_string,
            (false, _, ' ' | '\n' | '\t' | '\r') => return true,
            _ => {}
        }
    }
    false
}

// ---- idempotency keys -------------------------------------------------------------------------------------

fn name() -> impl Strategy<Value = String> {
    // A tiny alphabet with quotes and separators, so that different splits of one text are likely.
    "[ab:\"\\\\ ]{0,4}"
}

fn key(tenant: &str, subject: &str, tool: &str, business: Option<&str>, arguments: &str, call: &str, n: u32) -> String {
    let auth = AuthContext::new(subject, tenant, &[]);
    String::from(derive_key(&KeyInput {
        auth: &auth,
        tool,
        arguments_digest: &callproof_executor::canonical::sha256(arguments.as_bytes()),
        business_request_id: business,
        call_id: call,
        attempt: n,
    }))
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_business_requests_key_is_stable_across_call_ids_and_attempts(
        (tenant, subject, tool, business) in (name(), name(), name(), name()),
        calls in prop::collection::vec((".{0,12}", any::<u32>()), 1..6),
        arguments in prop::sample::select(vec!["{}", r#"{"amount":1}"#, r#"{"amount":2}"#]),
    ) {
        let first = key(&tenant, &subject, &tool, Some(&business), "{}", "call_0", 1);
        for (call, attempt) in &calls {
            prop_assert_eq!(&key(&tenant, &subject, &tool, Some(&business), arguments, call, *attempt), &first);
        }
        let by_arguments = key(&tenant, &subject, &tool, None, arguments, "call_0", 1);
        for (call, attempt) in &calls {
            prop_assert_eq!(&key(&tenant, &subject, &tool, None, arguments, call, *attempt), &by_arguments);
        }
        prop_assert!(first.len() == 64 && first.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }

    #[test]
    fn keys_differ_across_tenants_subjects_and_tools(
        one in (name(), name(), name()),
        two in (name(), name(), name()),
        business in name(),
    ) {
        prop_assume!(one != two);
        let a = key(&one.0, &one.1, &one.2, Some(&business), "{}", "c", 1);
        let b = key(&two.0, &two.1, &two.2, Some(&business), "{}", "c", 1);
        prop_assert_ne!(a, b, "{:?} and {:?} share a key", one, two);
        let a = key(&one.0, &one.1, &one.2, None, "{}", "c", 1);
        let b = key(&two.0, &two.1, &two.2, None, "{}", "c", 1);
        prop_assert_ne!(a, b);
    }

    #[test]
    fn keys_differ_across_business_requests(one in name(), two in name()) {
        prop_assume!(one != two);
        prop_assert_ne!(key("t", "s", "tool", Some(&one), "{}", "c", 1), key("t", "s", "tool", Some(&two), "{}", "c", 1));
    }
}

// ---- claims and transitions -------------------------------------------------------------------------------

fn new_record(key: &str) -> NewRecord {
    NewRecord { key: key.into(), fingerprint: "f".into(), lease_expires_ms: 10, deadline_ms: 5, now_ms: 1 }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn sixty_four_concurrent_claims_of_one_key_have_exactly_one_winner(key in "[a-f0-9]{1,64}") {
        let store = MemoryStore::new();
        let start = Barrier::new(64);
        let claims: Vec<Claim> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..64)
                .map(|_| scope.spawn(|| {
                    start.wait();
                    store.claim_now(&new_record(&key))
                }))
                .collect();
            threads.into_iter().map(|thread| thread.join().expect("no panic")).collect()
        });
        let winners = claims.iter().filter(|claim| matches!(claim, Claim::Acquired)).count();
        prop_assert_eq!(winners, 1);
        for claim in &claims {
            if let Claim::Existing(record) = claim {
                prop_assert_eq!((record.state, record.epoch, record.attempts), (State::InProgress, 1, 1));
            }
        }
        prop_assert_eq!(store.len(), 1);
    }

    #[test]
    fn sixty_four_concurrent_async_claims_of_one_key_have_exactly_one_winner(key in "[a-z]{1,16}") {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().expect("runtime");
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let winners = runtime.block_on(async {
            let tasks: Vec<_> = (0..64)
                .map(|_| {
                    let store = Arc::clone(&store);
                    let new = new_record(&key);
                    tokio::spawn(async move { store.claim(&new).await.expect("the memory store answers") })
                })
                .collect();
            let mut winners = 0;
            for task in tasks {
                if matches!(task.await.expect("no panic"), Claim::Acquired) {
                    winners += 1;
                }
            }
            winners
        });
        prop_assert_eq!(winners, 1);
    }
}

/// A store holding one record of `key` in `state` at `epoch`.
fn store_at(key: &str, state: State, epoch: u64) -> MemoryStore {
    let store = MemoryStore::new();
    assert!(matches!(store.claim_now(&new_record(key)), Claim::Acquired));
    // Force the state directly: the compare-and-set below the port does not check arrows.
    let forced = Update { state, epoch, attempts: 1, lease_expires_ms: 10, deadline_ms: 5, outcome: None, now_ms: 2 };
    assert!(store.compare_and_set_now(key, Version { state: State::InProgress, epoch: 1 }, forced));
    store
}

fn update(state: State, epoch: u64) -> Update {
    Update {
        state,
        epoch,
        attempts: 2,
        lease_expires_ms: 99,
        deadline_ms: 98,
        outcome: Some(serde_json::json!({"stored": true})),
        now_ms: 3,
    }
}

/// The epoch a legal arrow into `to` must carry: only a retake starts a new epoch.
fn next_epoch(from_epoch: u64, to: State) -> u64 {
    if to == State::InProgress { from_epoch + 1 } else { from_epoch }
}

async fn check_advance(from: State, to: State, epoch: u64, proposed_epoch: u64) -> Result<(), String> {
    let store = store_at("k", from, epoch);
    let before = store.load("k").await.map_err(|error| error.to_string())?;
    let legal = is_legal(Some(from), to) && proposed_epoch == next_epoch(epoch, to);
    let answer = store.advance("k", Version { state: from, epoch }, update(to, proposed_epoch)).await;
    let after = store.load("k").await.map_err(|error| error.to_string())?;
    match (legal, answer) {
        (true, Ok(true)) => {
            let after = after.ok_or("the record vanished")?;
            if (after.state, after.epoch) != (to, proposed_epoch) {
                return Err(format!("{from} → {to}: accepted but stored {} epoch {}", after.state, after.epoch));
            }
            Ok(())
        }
        (false, Err(StoreError::Illegal(_))) if after == before => Ok(()),
        (false, Err(StoreError::Illegal(_))) => Err(format!("{from} → {to}: refused but the record changed")),
        (legal, answer) => Err(format!("{from}@{epoch} → {to}@{proposed_epoch} (legal: {legal}) answered {answer:?}")),
    }
}

#[tokio::test]
async fn every_arrow_of_the_state_machine_is_accepted_and_every_other_is_refused() {
    let mut failures = Vec::new();
    let mut legal = 0;
    for from in State::ALL {
        for to in State::ALL {
            legal += usize::from(is_legal(Some(from), to));
            for proposed in [next_epoch(7, to), 6, 7, 8, 9] {
                if let Err(failure) = check_advance(from, to, 7, proposed).await {
                    failures.push(failure);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(legal, 9, "the seed's machine has nine arrows between existing states");
}

#[tokio::test]
async fn a_legal_arrow_from_a_stale_version_changes_nothing() {
    let store = store_at("k", State::InProgress, 3);
    let before = store.load("k").await.expect("load");
    let stale = Version { state: State::InProgress, epoch: 2 };
    assert!(!store.advance("k", stale, update(State::Succeeded, 2)).await.expect("a legal arrow"));
    assert_eq!(store.load("k").await.expect("load"), before);
    let missing = store.advance("absent", stale, update(State::Succeeded, 2)).await.expect("a legal arrow");
    assert!(!missing, "no record, nothing to move");
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: persistence(), cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn transitions_at_any_epoch_follow_the_arrows(
        from in prop::sample::select(State::ALL.to_vec()),
        to in prop::sample::select(State::ALL.to_vec()),
        epoch in 1u64..1_000_000,
        drift in prop::sample::select(vec![-1i64, 0, 1, 2]),
    ) {
        let proposed = (epoch as i64 + drift) as u64;
        let outcome = runtime().block_on(check_advance(from, to, epoch, proposed));
        prop_assert!(outcome.is_ok(), "{}", outcome.err().unwrap_or_default());
    }
}
