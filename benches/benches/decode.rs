//! Decode benches: each layer of the strict decode, the full decode + canonical form + key, and the baselines
//! measured in the same run (serde_json alone, + jsonschema, and the hand-assembled floor).
//!
//! Ids are `<step>/<case>`; `src/bin/ratios.rs` reads them back by those names.
//!
//! After criterion, under `cargo bench`, a paired run alternates decode + key and the floor batch by batch for
//! each valid case and prints the ratio of their medians; with `CALLPROOF_BENCH_OUT=DIR` it also writes them to
//! `DIR/paired.json` for the ratio table. Paired medians are what the targets are judged on: on a shared machine,
//! separately measured medians drift apart with the load, paired ones share it.

use callproof_benches::{caller, cases, decode_and_key, floor, input_schema, noop_tools, paired, plain_validator};
use callproof_executor::ToolCall;
use callproof_executor::decode::{Limits, decode};
use criterion::{Criterion, Throughput, criterion_group};
use serde_json::{Value, json};
use std::hint::black_box;

fn strict_decode(c: &mut Criterion) {
    let tools = noop_tools();
    let limits = Limits::default();
    let mut group = c.benchmark_group("decode");
    for case in cases() {
        let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| b.iter(|| decode(black_box(&call), &tools, &limits)));
    }
    group.finish();
}

fn decode_then_key(c: &mut Criterion) {
    let tools = noop_tools();
    let limits = Limits::default();
    let auth = caller();
    let mut group = c.benchmark_group("decode_key");
    for case in cases().into_iter().filter(|case| case.valid) {
        let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| b.iter(|| decode_and_key(black_box(&call), &tools, &limits, &auth)));
    }
    group.finish();
}

fn baselines(c: &mut Criterion) {
    let valid: Vec<_> = cases().into_iter().filter(|case| case.valid).collect();

    let mut group = c.benchmark_group("serde_json_parse");
    for case in &valid {
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&case.arguments)).expect("valid case"))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("parse_is_valid");
    for case in &valid {
        let validator = plain_validator(&input_schema(case.tool));
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| {
                let value: Value = serde_json::from_str(black_box(&case.arguments)).expect("valid case");
                let valid = validator.is_valid(&value);
                (value, valid)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("floor");
    for case in &valid {
        let validator = plain_validator(&input_schema(case.tool));
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| b.iter(|| floor(black_box(&case.arguments), &validator)));
    }
    group.finish();
}

/// Floor, decode alone and decode + key in alternation, per valid case: (rounds, calls per batch) by size.
fn paired_ratios(quick: bool) -> Value {
    let tools = noop_tools();
    let limits = Limits::default();
    let auth = caller();
    let mut report = serde_json::Map::new();
    for case in cases().into_iter().filter(|case| case.valid) {
        let (rounds, batch) = match case.arguments.len() {
            0..=1_000 => (2_000, 100),
            1_001..=10_000 => (400, 5),
            _ => (100, 1),
        };
        let rounds = if quick { rounds / 4 } else { rounds };
        let validator = plain_validator(&input_schema(case.tool));
        let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
        let mut floor_call = || {
            black_box(floor(black_box(&case.arguments), &validator));
        };
        let mut decode_call = || {
            black_box(decode(black_box(&call), &tools, &limits).ok());
        };
        let mut decode_key_call = || {
            black_box(decode_and_key(black_box(&call), &tools, &limits, &auth));
        };
        let medians = paired(rounds, batch, &mut [&mut floor_call, &mut decode_call, &mut decode_key_call]);
        println!(
            "paired/{}: floor {:.0} ns, decode {:.0} ns ({:.3}x), decode + key {:.0} ns ({:.3}x)",
            case.name,
            medians[0],
            medians[1],
            medians[1] / medians[0],
            medians[2],
            medians[2] / medians[0]
        );
        report.insert(
            case.name.to_owned(),
            json!({"floor_ns": medians[0], "decode_ns": medians[1], "decode_key_ns": medians[2], "rounds": rounds, "batch": batch}),
        );
    }
    Value::Object(report)
}

criterion_group!(benches, strict_decode, decode_then_key, baselines);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo bench` passes --bench; `cargo test --benches` does not, and only checks that the benches run.
    let arguments: Vec<String> = std::env::args().collect();
    if arguments.iter().any(|argument| argument == "--bench") {
        let report = paired_ratios(arguments.iter().any(|argument| argument == "--quick"));
        if let Some(dir) = std::env::var_os("CALLPROOF_BENCH_OUT") {
            let text = serde_json::to_string_pretty(&report).expect("a JSON value");
            std::fs::write(std::path::Path::new(&dir).join("paired.json"), text).expect("writable CALLPROOF_BENCH_OUT");
        }
    }
}
