//! Exploration throughput: generated schedules per second against the reference executor in simulation (the
//! world reached without sockets, tokio time paused), beside the cost of one schedule replayed over loopback
//! HTTP (wiremock, real time) measured in the same run, which is what simulation saves.
//!
//! One element is one schedule of up to 8 moves (case `i` of seed 1), checked after every step with every check.

use callproof_harness::corpus::Corpus;
use callproof_harness::explore::{self, Options};
use callproof_harness::runner::Runner;
use callproof_harness::subject::InProcess;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::Arc;
use std::time::Duration;

fn corpus() -> Arc<Corpus> {
    Corpus::shipped()
}

fn schedules(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("explore");
    group.sample_size(10).measurement_time(Duration::from_secs(10));
    let cases = 50;
    group.throughput(Throughput::Elements(u64::from(cases)));
    group.bench_function("simulated, 50 schedules", |bench| {
        bench.iter(|| {
            let options = Options::simulated(Arc::new(InProcess::reference()), 1, cases);
            let summary = explore::explore(&options, corpus(), |_| {}).expect("the reference starts");
            assert!(summary.found.is_none());
            summary.steps
        });
    });

    // The same kind of schedule, replayed over loopback HTTP in real time: one schedule per element.
    let moves = explore::case_schedule(1, 3, 8);
    let scenario = explore::to_scenario(&moves, "bench").expect("case 3 of seed 1 makes steps");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let runner = Runner::new(Arc::new(InProcess::reference()), corpus());
    group.throughput(Throughput::Elements(1));
    group.bench_function("loopback, 1 schedule", |bench| {
        bench.iter(|| runtime.block_on(runner.run(&scenario)).expect("runs").calls.len());
    });
    group.finish();
}

criterion_group!(benches, schedules);
criterion_main!(benches);
