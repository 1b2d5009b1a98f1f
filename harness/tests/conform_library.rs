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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advisory_failures_are_warnings_that_pass_the_run_and_the_report_still_fits_its_schema() {
    use callproof_harness::conform::{self, Profile, ScenarioResult};
    use callproof_harness::corpus::Corpus;
    use callproof_harness::scenario::Scenario;

    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let story = root.join("scenarios/idempotency/duplicate_refund_after_lost_response.toml");
    let mutant = callproof_executor::mutants::by_name("no-request-id").expect("a mutant");
    let run = |profile: Profile| {
        let options = Options { profile, advisory: true, ..Options::default() };
        let scenarios = Scenario::discover(std::slice::from_ref(&story)).expect("loads");
        let factory = Arc::new(InProcess::mutant(&mutant));
        async move {
            conform::run(factory, scenarios, Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
                .await
                .expect("valid options")
        }
    };
    let advised = run(Profile::Must).await;
    assert!(advised.passed(), "{}", callproof_harness::conform::human::human(&advised));
    assert_eq!((advised.scenarios[0].status, advised.summary.warn), (Status::Warn, 1));
    let required = run(Profile::All).await;
    assert!(!required.passed());
    assert_eq!(required.scenarios[0].status, Status::Fail);

    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("docs/report.schema.json")).expect("read"))
            .expect("JSON");
    let validator = jsonschema::draft202012::options().build(&schema).expect("a valid schema");
    for report in [&advised, &required] {
        let json = serde_json::to_value(report).expect("serializes");
        let errors: Vec<String> = validator.iter_errors(&json).map(|error| error.to_string()).collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
}
