//! The reference executor against the shipped scenarios: every check holds, every check and every error code
//! is exercised somewhere, and every scenario's timeline matches its snapshot under snapshots/scenarios/.

use callproof_executor::ErrorCode;
use callproof_harness::checks::{self, CheckId, Outcome};
use callproof_harness::corpus::Corpus;
use callproof_harness::runner::Runner;
use callproof_harness::subject::InProcess;
use callproof_harness::suite::{self, Suite, SuiteReport};
use callproof_harness::{report, timeline};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

fn scenarios_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
}

async fn reference_report() -> SuiteReport {
    let scenarios = suite::discover(&[scenarios_root()]).expect("every shipped scenario loads");
    let corpus: Arc<Corpus> = Arc::new(toml::from_str(callproof_harness::EMBEDDED_CORPUS).expect("corpus"));
    let runner = Runner::new(Arc::new(InProcess::reference()), corpus.clone());
    Suite::new(runner, corpus, checks::all(), 8).run(&scenarios, |_| {}).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_executor_passes_every_check_and_every_timeline_matches_its_snapshot() {
    let report = reference_report().await;

    let failures: Vec<String> = report
        .scenarios
        .iter()
        .filter(|scenario| {
            scenario.error.is_some()
                || scenario.verdicts.iter().any(|verdict| matches!(verdict.outcome, Outcome::Fail { .. }))
        })
        .map(|scenario| format!("{}\n{}", report::scenario_line(scenario), report::scenario_details(scenario)))
        .collect();
    assert!(failures.is_empty(), "the reference executor failed checks:\n{}", failures.join("\n"));

    let passed: BTreeSet<CheckId> = report
        .scenarios
        .iter()
        .flat_map(|scenario| &scenario.verdicts)
        .filter(|verdict| verdict.outcome == Outcome::Pass)
        .map(|verdict| verdict.check)
        .collect();
    for check in checks::all() {
        assert!(passed.contains(&check.id), "no scenario exercises `{}`", check.id);
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
    for scenario in report.scenarios.iter().filter(|scenario| !scenario.name.starts_with("found/")) {
        let transcript = scenario.transcript.as_ref().expect("ran");
        insta::with_settings!({
            snapshot_path => "../../snapshots/scenarios",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            description => scenario.description.trim(),
        }, {
            insta::assert_snapshot!(scenario.name.replace('/', "__"), timeline::text(transcript));
        });
    }
}
