//! Exploration is reproducible and finds real bugs: the same seed gives the same schedules and transcripts,
//! the reference executor survives a run, a known-bad executor is found and shrunk to a scenario file, and every
//! scenario the explorer found and we committed (scenarios/found/) still fails its mutant and passes the
//! reference over real wiremock.

use callproof_harness::conform::{self, human};
use callproof_harness::corpus::Corpus;
use callproof_harness::explore::{self, Options};
use callproof_harness::partition::Partition;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::InProcess;
use std::path::PathBuf;
use std::sync::Arc;

fn corpus() -> Arc<Corpus> {
    Corpus::shipped()
}

fn options(subject: InProcess, seed: u64, cases: u32, out: Option<PathBuf>) -> Options {
    Options { out, ..Options::simulated(Arc::new(subject), seed, cases) }
}

#[test]
fn the_same_seed_gives_the_same_schedules_and_the_same_transcripts() {
    let mut ran = 0;
    for case in 0..12 {
        let first = explore::timeline_of_case(Arc::new(InProcess::reference()), corpus(), 42, case, 8);
        let second = explore::timeline_of_case(Arc::new(InProcess::reference()), corpus(), 42, case, 8);
        ran += usize::from(!first.is_empty());
        assert_eq!(first, second, "case {case} of seed 42 ran differently twice");
    }
    assert!(ran >= 8, "only {ran} of 12 schedules had a step to run");
    let this_seed: Vec<String> =
        (0..4).map(|case| explore::timeline_of_case(Arc::new(InProcess::reference()), corpus(), 42, case, 8)).collect();
    let other_seed: Vec<String> =
        (0..4).map(|case| explore::timeline_of_case(Arc::new(InProcess::reference()), corpus(), 43, case, 8)).collect();
    assert_ne!(this_seed, other_seed, "different seeds should give different schedules");
}

#[test]
fn partitions_split_the_cases_without_overlap() {
    let whole = explore::explore(&options(InProcess::reference(), 5, 30, None), corpus(), |_| {})
        .expect("an in-process subject starts");
    let halves: u32 = (1..=3)
        .map(|k| {
            explore::explore(
                &Options {
                    partition: Partition { index: k, count: 3 },
                    ..options(InProcess::reference(), 5, 30, None)
                },
                corpus(),
                |_| {},
            )
            .expect("an in-process subject starts")
            .cases
        })
        .sum();
    assert_eq!(whole.cases, 30);
    assert_eq!(halves, 30);
}

#[test]
fn the_reference_executor_survives_exploration() {
    let summary = explore::explore(&options(InProcess::reference(), 20261129, 400, None), corpus(), |_| {})
        .expect("an in-process subject starts");
    assert_eq!(summary.cases, 400);
    assert!(
        summary.found.is_none(),
        "the reference failed: {:?}",
        summary.found.map(|found| (found.check, found.scenario))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exploration_finds_a_known_bad_executor_and_writes_a_scenario_that_replays_over_wiremock() {
    let out = std::env::temp_dir().join(format!("callproof-explore-{}", std::process::id()));
    let mutant = callproof_executor::mutants::by_name("key-from-call-id").expect("mutant");
    let summary = tokio::task::spawn_blocking({
        let out = out.clone();
        move || {
            explore::explore(&options(InProcess::mutant(&mutant), 7, 200, Some(out)), corpus(), |_| {})
                .expect("an in-process subject starts")
        }
    })
    .await
    .expect("explore");
    let found = summary.found.expect("the mutant is found");
    assert!(found.moves.1 <= found.moves.0, "shrinking never grows a schedule");
    let path = found.path.expect("written");
    assert!(path.starts_with(&out));
    let mutant_subject: Arc<InProcess> = Arc::new(InProcess::mutant(&mutant));
    assert!(explore::replays_over_loopback(mutant_subject, corpus(), &path, found.check).await.expect("replays"));
    assert!(
        !explore::replays_over_loopback(Arc::new(InProcess::reference()), corpus(), &path, found.check)
            .await
            .expect("replays")
    );
    let _ = std::fs::remove_dir_all(out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_committed_found_scenario_fails_its_mutant_and_passes_the_reference_over_wiremock() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/found");
    let scenarios = Scenario::discover(&[folder]).expect("found scenarios load");
    assert!(scenarios.len() >= 10, "only {} found scenarios are committed", scenarios.len());
    for scenario in &scenarios {
        let name = scenario
            .description
            .split("fails for mutant:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{}: the description names no mutant", scenario.name));
        let check = scenario
            .name
            .trim_start_matches("found/")
            .rsplit_once('-')
            .map(|(check, _)| check)
            .expect("check-hash name");
        let mutant = callproof_executor::mutants::by_name(name).unwrap_or_else(|| panic!("unknown mutant {name}"));
        for (subject, should_fail) in [(InProcess::mutant(&mutant), true), (InProcess::reference(), false)] {
            let label = subject.clone();
            let options = conform::Options { profile: conform::Profile::All, ..conform::Options::default() };
            let judged: &dyn conform::Progress = &|_: &conform::ScenarioResult| {};
            // Over wiremock in real time a burst's calls overlap as the scheduler lets them (which of two
            // concurrent calls meets a dropped answer, say), so a mutant counts as slipping through only if it
            // does three runs in a row, as in conform_mutants.rs; the reference must pass its one run.
            let mut runs = if should_fail { 3 } else { 1 };
            let (report, failed) = loop {
                runs -= 1;
                let subject = Arc::new(subject.clone());
                let report = conform::run(subject, vec![scenario.clone()], corpus(), &options, None, judged)
                    .await
                    .expect("the options are valid");
                let checks = &report.scenarios[0].checks;
                let failed = checks.iter().any(|judged| judged.id == check && judged.status == conform::Status::Fail);
                if failed == should_fail || runs == 0 {
                    break (report, failed);
                }
            };
            let result = &report.scenarios[0];
            assert_eq!(
                failed,
                should_fail,
                "{} against {}: `{check}` {}\n{}",
                scenario.name,
                callproof_harness::subject::SubjectFactory::name(&label),
                if should_fail { "did not fail" } else { "failed" },
                human::scenario_details(result, true)
            );
        }
    }
}

#[test]
fn a_found_schedule_is_a_local_minimum_and_every_fault_in_it_fired() {
    // The case of review D9: `key-per-attempt`, seed 1, 300 cases once shrank to 4 moves when 2 fail the same
    // check.
    let mutant = callproof_executor::mutants::by_name("key-per-attempt").expect("mutant");
    let summary = explore::explore(&options(InProcess::mutant(&mutant), 1, 300, None), corpus(), |_| {})
        .expect("an in-process subject starts");
    let found = summary.found.expect("the mutant is found");
    let subject = || -> Arc<dyn callproof_harness::subject::SubjectFactory> { Arc::new(InProcess::mutant(&mutant)) };
    assert!(explore::fails(subject(), corpus(), &found.schedule, found.check), "the shrunk schedule still fails");
    for simpler in explore::neighbours(&found.schedule) {
        assert!(
            !explore::fails(subject(), corpus(), &simpler, found.check),
            "`{}` still fails on a simpler schedule than the one reported:\n{simpler:#?}\nreported:\n{:#?}",
            found.check,
            found.schedule
        );
    }
    let transcript = explore::transcript_of(subject(), corpus(), &found.schedule).expect("runs");
    let unfired: Vec<String> = transcript.faults.iter().filter_map(|log| log.never_fired()).collect();
    assert!(unfired.is_empty(), "the shrunk schedule keeps a fault that never fired: {unfired:?}");
    assert!(found.moves.1 <= 2, "shrunk to {} moves: {:#?}", found.moves.1, found.schedule);
}
