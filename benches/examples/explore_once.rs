//! Runs the `explore` bench's simulated exploration once (50 schedules of seed 1, every check after every step),
//! for profiling under callgrind: `valgrind --tool=callgrind target/release/examples/explore_once`.
//!
//! Prints the schedules and steps run so that instruction counts can be divided per schedule.

use callproof_harness::corpus::Corpus;
use callproof_harness::explore::{self, Options};
use callproof_harness::subject::InProcess;
use std::sync::Arc;

fn main() {
    let cases = std::env::args().nth(1).and_then(|arg| arg.parse().ok()).unwrap_or(50);
    let options = Options::simulated(Arc::new(InProcess::reference()), 1, cases);
    let summary = explore::explore(&options, Corpus::shipped(), |_| {}).expect("the reference starts");
    assert!(summary.found.is_none(), "the reference fails no check");
    println!("cases {} steps {}", summary.cases, summary.steps);
}
