//! The harness catches real bugs: every known-bad executor trips the checks it is meant to trip, and the
//! reference executor trips none; the run reports each executor as it finishes, counted.

use callproof_harness::corpus::Corpus;
use callproof_harness::mutation;
use callproof_harness::scenario::Scenario;
use std::path::PathBuf;
use std::sync::Mutex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_known_bad_executor_is_caught_by_its_checks_and_the_reference_by_none() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let scenarios = Scenario::discover(&[root]).expect("scenarios load");
    let heard = Mutex::new(Vec::new());
    let progress = |finished: &mutation::Finished<'_>| {
        heard.lock().expect("not poisoned").push((finished.done, finished.total, finished.name.to_owned()));
    };
    let report = mutation::run(&scenarios, Corpus::shipped(), &mutation::Options::default(), progress).await;
    assert!(report.holds(), "{}", mutation::render(&report));
    assert_eq!(report.rows.len(), callproof_executor::mutants::ALL.len());
    assert!((report.score() - 1.0).abs() < f64::EPSILON);
    let heard = heard.into_inner().expect("not poisoned");
    let total = callproof_executor::mutants::ALL.len() + 1;
    let counts: Vec<usize> = heard.iter().map(|(done, _, _)| *done).collect();
    assert_eq!(counts, (1..=total).collect::<Vec<_>>(), "one counted line per executor, in order");
    assert!(heard.iter().all(|(_, all, _)| *all == total));
    assert!(heard.iter().any(|(_, _, name)| name == "reference"));
    let names: Vec<&str> = report.rows.iter().map(|row| row.name).collect();
    let table: Vec<&str> = callproof_executor::mutants::ALL.iter().map(|mutant| mutant.name).collect();
    assert_eq!(names, table, "rows come back in table order whatever order they finished in");
}
