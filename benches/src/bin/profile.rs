//! Runs one bench step in a loop, for a profiler: `valgrind --tool=callgrind target/release/profile STEP CASE N`.
//!
//! Instruction counts under callgrind are reproducible on a busy machine where wall-clock times are not; divide
//! the total by N (and subtract a run with N = 0 for the setup) to get instructions per call.

use callproof_benches::{caller, case, decode_and_key, floor, input_schema, noop_tools, plain_validator};
use callproof_executor::ToolCall;
use callproof_executor::decode::{Limits, decode};
use callproof_executor::idempotency::{KeyInput, derive_key};
use serde_json::Value;
use std::hint::black_box;

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [step, name, count] = arguments.as_slice() else {
        eprintln!("usage: profile STEP CASE N   (STEP: parse | parse_is_valid | floor | decode | decode_key)");
        std::process::exit(2);
    };
    let count: u64 = count.parse().expect("N is a number");
    if step == "claim_complete" || step == "claim_complete_baseline" {
        claim_complete(
            name.parse().expect("CASE is the store size for claim_complete"),
            count,
            step == "claim_complete",
        );
        return;
    }
    let case = case(name);
    let tools = noop_tools();
    let limits = Limits::default();
    let validator = plain_validator(&input_schema(case.tool));
    let auth = caller();
    let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
    let parsed: Value = serde_json::from_str(&case.arguments).unwrap_or(Value::Null);
    let canonical = callproof_executor::canonical::canonical_json(&parsed);
    let registered = tools.get(case.tool).expect("a tool of the bench").clone();
    if step == "paired" {
        let mut floor_call = || {
            black_box(floor(black_box(&case.arguments), &validator));
        };
        let mut decode_key_call = || {
            black_box(decode_and_key(black_box(&call), &tools, &limits, &auth));
        };
        let mut decode_call = || {
            black_box(decode(black_box(&call), &tools, &limits).ok());
        };
        let mut parse_call = || {
            black_box(serde_json::from_str::<Value>(black_box(&case.arguments)).ok());
        };
        let mut strict_call = || {
            black_box(callproof_executor::decode::parse_strict_str(black_box(&case.arguments), 64).ok());
        };
        let decoded = decode(&call, &tools, &limits).expect("a valid case");
        let mut key_call = || {
            black_box(derive_key(&KeyInput {
                auth: &auth,
                tool: &decoded.tool.spec().name,
                arguments_digest: black_box(&decoded.arguments_digest),
                business_request_id: None,
                call_id: &call.call_id,
                attempt: 1,
            }));
        };
        let mut hash_call = || {
            black_box(callproof_executor::canonical::sha256_hex(black_box(canonical.as_bytes())));
        };
        let key_medians = callproof_benches::paired(count as usize, 100, &mut [&mut key_call, &mut hash_call]);
        eprintln!("derive_key {:.0} ns, sha256_hex(canonical) {:.0} ns", key_medians[0], key_medians[1]);
        let medians = callproof_benches::paired(
            count as usize,
            100,
            &mut [&mut floor_call, &mut decode_key_call, &mut decode_call, &mut parse_call, &mut strict_call],
        );
        eprintln!(
            "floor {:.0} ns, decode + key {:.0} ns ({:.3}x), decode {:.0} ns ({:.3}x), serde_json parse {:.0} ns, \
             strict parse {:.0} ns ({:.3}x)",
            medians[0],
            medians[1],
            medians[1] / medians[0],
            medians[2],
            medians[2] / medians[0],
            medians[3],
            medians[4],
            medians[4] / medians[3],
        );
        return;
    }
    for _ in 0..count {
        match step.as_str() {
            "parse" => {
                black_box(serde_json::from_str::<Value>(black_box(&case.arguments)).ok());
            }
            "parse_is_valid" => {
                let value: Option<Value> = serde_json::from_str(black_box(&case.arguments)).ok();
                black_box(value.map(|value| validator.is_valid(&value)));
            }
            "floor" => {
                black_box(floor(black_box(&case.arguments), &validator));
            }
            "decode" => {
                black_box(decode(black_box(&call), &tools, &limits).ok());
            }
            "decode_key" => {
                black_box(decode_and_key(black_box(&call), &tools, &limits, &auth));
            }
            "sha256_hex" => {
                black_box(callproof_executor::canonical::sha256_hex(black_box(case.arguments.as_bytes())));
            }
            "canonical" => {
                black_box(callproof_executor::canonical::canonical_json(black_box(&parsed)));
            }
            "sha256_canonical" => {
                black_box(callproof_executor::canonical::sha256_hex(black_box(canonical.as_bytes())));
            }
            "is_valid" => {
                black_box(registered.input.is_valid(black_box(&parsed)));
            }
            "clone_drop" => {
                black_box(black_box(&parsed).clone());
            }
            "strict_parse" => {
                black_box(callproof_executor::decode::parse_strict(black_box(case.arguments.as_bytes()), 64).ok());
            }
            other => panic!("unknown step {other}"),
        }
    }
}

fn claim_complete(size: u64, count: u64, memory_store: bool) {
    use callproof_executor::canonical::sha256_hex;
    use callproof_executor::idempotency::{NewRecord, State, Update, Version};
    use callproof_executor::store::MemoryStore;
    const CHUNK: u64 = 1_000;
    let answer = serde_json::json!({"ok": true, "result": {"refund_id": "rf_1", "status": "completed"}});
    let mut store = MemoryStore::new();
    let mut baseline: std::sync::Mutex<
        std::collections::HashMap<std::sync::Arc<str>, callproof_executor::idempotency::Record>,
    > = Default::default();
    let (mut wall, mut cpu, mut faults) = (std::time::Duration::ZERO, 0, 0);
    let mut done_ops = 0;
    while done_ops < count {
        if done_ops % size == 0 {
            store = MemoryStore::new();
            baseline = Default::default();
        }
        let work: Vec<_> = (done_ops..done_ops + CHUNK)
            .map(|index| {
                let new = NewRecord {
                    key: sha256_hex(format!("bench:{index}").as_bytes()).into(),
                    fingerprint: sha256_hex(format!("arguments:{index}").as_bytes()).into(),
                    lease_expires_ms: 2_000,
                    deadline_ms: 1_000,
                    now_ms: 0,
                };
                let done = Update::settle(&new.clone().into_record(), State::Succeeded, Some(answer.clone()), 10);
                (new, done)
            })
            .collect();
        let start = std::time::Instant::now();
        let cpu_start = cpu_ns();
        let faults_start = minor_faults();
        let claimed = Version { state: State::InProgress, epoch: 1 };
        if memory_store {
            for (new, done) in work {
                claim_complete_step(&store, new, done, claimed);
            }
        } else {
            for (new, done) in work {
                let mut map = baseline.lock().expect("unpoisoned");
                if !map.contains_key(&*new.key) {
                    map.insert(new.key.clone(), new.clone().into_record());
                }
                drop(map);
                let mut map = baseline.lock().expect("unpoisoned");
                if let Some(record) = map.get_mut(&*new.key).filter(|record| record.version() == claimed) {
                    done.apply_to(record);
                }
            }
        }
        wall += start.elapsed();
        cpu += cpu_ns() - cpu_start;
        faults += minor_faults() - faults_start;
        done_ops += CHUNK;
    }
    eprintln!(
        "store of {size}: {:?} wall, {} ns on CPU, {:.3} page faults per claim + complete",
        wall / done_ops as u32,
        cpu / done_ops,
        faults as f64 / done_ops as f64
    );
}

/// One claim + complete as the bench times it, the caller's copy of the inputs dropped at the end. Never inlined,
/// so `valgrind --tool=callgrind --toggle-collect='*claim_complete_step*'` counts exactly its instructions and
/// its calls to `malloc`/`free` (`callgrind_annotate --inclusive=yes --tree=calling`).
#[inline(never)]
fn claim_complete_step(
    store: &callproof_executor::store::MemoryStore,
    new: callproof_executor::idempotency::NewRecord,
    done: callproof_executor::idempotency::Update,
    claimed: callproof_executor::idempotency::Version,
) {
    black_box(store.claim_now(&new));
    black_box(store.compare_and_set_now(&new.key, claimed, done));
}

/// Nanoseconds this thread has run on a CPU (Linux schedstat), to see through a busy machine.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Minor page faults of this process so far (field 10 of /proc/self/stat).
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|text| text.rsplit(") ").next()?.split_whitespace().nth(7)?.parse().ok())
        .unwrap_or(0)
}
