//! The reference executor against the shipped scenarios: every check holds, every check and every error code
//! is exercised somewhere, and every scenario's timeline matches its snapshot under snapshots/scenarios/.

use callproof_executor::ErrorCode;
use callproof_harness::checks;
use callproof_harness::conform::{self, Options, Profile, Report, ScenarioResult, Status, human};
use callproof_harness::corpus::Corpus;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::InProcess;
use callproof_harness::timeline;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

fn scenarios_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

/// What `callproof run --profile all` reports: every check judged, every check required.
async fn reference_report() -> Report {
    let scenarios = Scenario::discover(&[scenarios_root()]).expect("every shipped scenario loads");
    let options = Options { profile: Profile::All, jobs: 8, ..Options::default() };
    let factory = Arc::new(InProcess::reference());
    conform::run(factory, scenarios, Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
        .await
        .expect("the options are valid")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_executor_passes_every_check_and_every_timeline_matches_its_snapshot() {
    let report = reference_report().await;

    let failures: Vec<String> = report
        .scenarios
        .iter()
        .filter(|scenario| scenario.status != Status::Pass)
        .map(|scenario| format!("{}\n{}", human::scenario_line(scenario), human::scenario_details(scenario, true)))
        .collect();
    assert!(failures.is_empty(), "the reference executor failed checks:\n{}", failures.join("\n"));

    let passed: BTreeSet<&str> = report
        .scenarios
        .iter()
        .flat_map(|scenario| &scenario.checks)
        .filter(|check| check.status == Status::Pass)
        .map(|check| check.id.as_str())
        .collect();
    for check in checks::all() {
        assert!(passed.contains(check.id.as_str()), "no scenario exercises `{}`", check.id);
    }

    let produced: BTreeSet<String> = report
        .scenarios
        .iter()
        .filter_map(|scenario| scenario.transcript.as_ref())
        .flat_map(|transcript| &transcript.calls)
        .filter_map(|call| call.code().map(|code| code.as_str().to_owned()))
        .collect();
    for code in ErrorCode::ALL {
        assert!(produced.contains(code.as_str()), "no scenario produces `{code}`");
    }

    // Scenarios found by `callproof explore` are regressions, judged above but not snapshotted.
    for scenario in report.scenarios.iter().filter(|scenario| !scenario.id.starts_with("found/")) {
        let transcript = scenario.transcript.as_ref().expect("ran");
        insta::with_settings!({
            snapshot_path => "../../snapshots/scenarios",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => scenario.description.trim(),
        }, {
            insta::assert_snapshot!(scenario.id.replace('/', "__"), timeline::text(transcript));
        });
    }
}
