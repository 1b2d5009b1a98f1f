//! `callproof_harness::conform_subject` and `assert_conforms`: the suite from a Rust `cargo test`.

use callproof_harness::conform::{Options, Partition, Status};
use callproof_harness::subject::InProcess;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_reference_conforms_through_the_library() {
    let options = Options { partition: Some(Partition { index: 1, count: 3 }), ..Options::default() };
    let report = callproof_harness::conform_subject(Arc::new(InProcess::reference()), &options).await.expect("runs");
    assert!(report.passed(), "{}", callproof_harness::conform::human::human(&report));
    assert!(report.scenarios.iter().all(|scenario| scenario.status == Status::Pass), "in-process supports every fault");
    assert!(report.executor.capabilities.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[should_panic(expected = "no-secret-leak")]
async fn assert_conforms_panics_with_the_failures_of_a_leaky_executor() {
    let leaky = callproof_executor::mutants::by_name("leaky-errors").expect("a mutant");
    let options = Options { only: vec!["no-secret-leak".to_owned()], ..Options::default() };
    callproof_harness::assert_conforms(Arc::new(InProcess::mutant(&leaky)), &options).await;
}
