//! The harness catches real bugs: every known-bad executor trips the checks it is meant to trip, and the
//! reference executor trips none.

use callproof_harness::corpus::Corpus;
use callproof_harness::mutation;
use callproof_harness::scenario::Scenario;
use std::path::PathBuf;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_known_bad_executor_is_caught_by_its_checks_and_the_reference_by_none() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = Scenario::discover(&[root]).expect("scenarios load");
    let report = mutation::run(&scenarios, Corpus::shipped(), 8, &[], |_| {}).await;
    assert!(report.holds(), "{}", mutation::render(&report));
    assert_eq!(report.rows.len(), callproof_executor::mutants::ALL.len());
    assert!((report.score() - 1.0).abs() < f64::EPSILON);
}
