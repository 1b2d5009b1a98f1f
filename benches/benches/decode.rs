//! Decode benches: each layer of the strict decode, the full decode + canonical form + key, and the baselines
//! measured in the same run (serde_json alone, + jsonschema, and the hand-assembled floor).
//!
//! Ids are `<step>/<case>`; `src/bin/ratios.rs` reads them back by those names.

use callproof_benches::{caller, cases, floor, input_schema, noop_tools, plain_validator};
use callproof_executor::ToolCall;
use callproof_executor::decode::{Limits, decode};
use callproof_executor::idempotency::{KeyInput, derive_key};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
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

fn decode_and_key(c: &mut Criterion) {
    let tools = noop_tools();
    let limits = Limits::default();
    let auth = caller();
    let mut group = c.benchmark_group("decode_key");
    for case in cases().into_iter().filter(|case| case.valid) {
        let call = ToolCall::raw("call_1", case.tool, case.arguments.clone());
        group.throughput(Throughput::Bytes(case.arguments.len() as u64));
        group.bench_function(case.name, |b| {
            b.iter(|| {
                let decoded = decode(black_box(&call), &tools, &limits).expect("valid case");
                let key = derive_key(&KeyInput {
                    auth: &auth,
                    tool: &decoded.tool.spec().name,
                    canonical_arguments: &decoded.canonical,
                    business_request_id: None,
                    call_id: &call.call_id,
                    attempt: 1,
                });
                (decoded, key)
            })
        });
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

criterion_group!(benches, strict_decode, decode_and_key, baselines);
criterion_main!(benches);
