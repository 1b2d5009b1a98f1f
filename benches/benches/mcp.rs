//! Throughput of the generic MCP profile: `callproof mcp --call-all` against the reference executor over stdio
//! (`callproof-executor --mcp --store memory`), in messages per second, beside the floor of the same transport
//! measured in the same run: `ping` round trips to the same server, one in flight.
//!
//! One profile run starts the server, sends every message of the profile (the handshake, the tool list, the
//! protocol errors, every generated input of the nine tools, a `ping` after each, the 2 MiB and deeply nested
//! lines) and a second, short-lived server for the version negotiation. How many messages that is, and how many
//! of them are `tools/call`, is counted once before timing, through `tee` in front of the server; criterion's
//! throughput is messages per run. No downstream: every call that gets past decoding meets the discard port.
//!
//! Needs the release binary: `cargo build --release -p callproof-executor`, then
//! `cargo bench -p callproof-benches --bench mcp`.

use callproof_harness::mcp::client::Client;
use callproof_harness::mcp::revision::Revision;
use callproof_harness::mcp::{self, Calls, Options, Server};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `target/release/callproof-executor`, beside this bench's own `deps/` folder.
fn executor() -> PathBuf {
    let bench = std::env::current_exe().expect("the bench's own path");
    let release = bench.parent().and_then(std::path::Path::parent).expect("target/<profile>/deps/<bench>");
    let executor = release.join("callproof-executor");
    assert!(
        executor.is_file(),
        "{} is missing: run `cargo build --release -p callproof-executor` first",
        executor.display()
    );
    executor
}

/// The profile in 2025-11-25, whose `ping` the floor measures (2026-07-28 has no `ping`).
fn options(command: String) -> Options {
    let timeout = Duration::from_secs(10);
    Options {
        server: Server::Command(command),
        calls: Calls::All,
        timeout,
        revision: Revision::Legacy,
        bearer: None,
        meta: Default::default(),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// How many messages one profile run sends, and how many of them are `tools/call`, read back from `tee`.
fn count_messages(runtime: &tokio::runtime::Runtime, server: &str) -> (u64, u64) {
    let dir = std::env::temp_dir().join(format!("callproof-bench-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let log = dir.join("sent.jsonl");
    let _ = std::fs::remove_file(&log);
    let teed = format!("sh -c \"tee -a '{}' | {server}\"", log.display());
    let report = runtime.block_on(mcp::run(&options(teed))).expect("the reference starts");
    assert!(report.passed(), "the reference fails the profile:\n{}", report.to_json());
    let sent = std::fs::read(&log).expect("tee wrote what was sent");
    let _ = std::fs::remove_dir_all(&dir);
    let lines: Vec<&[u8]> = sent.split(|byte| *byte == b'\n').filter(|line| !line.is_empty()).collect();
    let needle: &[u8] = b"\"method\":\"tools/call\"";
    let calls = lines.iter().filter(|line| line.windows(needle.len()).any(|window| window == needle)).count();
    (lines.len() as u64, calls as u64)
}

fn profile(criterion: &mut Criterion) {
    let runtime = runtime();
    let server = format!("'{}' --mcp --store memory", executor().display());
    let (messages, calls) = count_messages(&runtime, &server);
    eprintln!("one profile run sends {messages} messages, {calls} of them tools/call");

    let mut group = criterion.benchmark_group("mcp");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(messages));
    group.bench_function("profile --call-all, stdio", |bench| {
        bench.iter(|| {
            let report = runtime.block_on(mcp::run(&options(server.clone()))).expect("the reference starts");
            assert!(report.passed());
            report.checks.len()
        });
    });

    // The floor: one server, initialised once; each element one `ping` answered.
    let mut client = {
        let _inside = runtime.enter(); // the client's reader tasks are spawned on this runtime
        Client::start(&server, Duration::from_secs(10)).expect("the reference starts")
    };
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "callproof-bench", "version": "0"}
    });
    let initialized = runtime.block_on(client.request("initialize", Some(params)));
    assert!(initialized.answer.result().is_some(), "initialize: {}", initialized.answer.text());
    runtime.block_on(client.notify("notifications/initialized"));
    group.throughput(Throughput::Elements(1));
    group.bench_function("ping round trip, stdio (floor)", |bench| {
        bench.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let pong = client.request("ping", None).await;
                    assert!(pong.answer.result().is_some(), "ping: {}", pong.answer.text());
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    runtime.block_on(client.close());
}

criterion_group!(benches, profile);
criterion_main!(benches);
