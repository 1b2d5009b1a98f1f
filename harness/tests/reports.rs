//! The reports of the suite commands and where they go: report files into missing folders (created) or
//! unwritable ones (refused before anything runs), JUnit with a time on every case, GitHub annotations on the
//! scenario's step line, `--write-baseline`, filters, partitions, `list`, and `mutants`' formats and progress.

mod process_support;

use process_support::{TempDir, repo, run_callproof, run_callproof_in};

const STORY: &str = "idempotency/duplicate_refund_after_lost_response";
const BUG: &str = "mutant:unknown-reexecuted";

#[test]
fn a_report_file_in_a_missing_folder_is_written_there_and_an_unwritable_one_is_refused_before_anything_runs() {
    let dir = TempDir::new();
    let junit = dir.join("reports/nested/junit.xml");
    let ran = run_callproof(&["run", STORY, "--junit", junit.to_str().expect("utf-8")]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(std::fs::read_to_string(&junit).expect("written").contains("<testsuites"));

    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").expect("write");
    let inside = file.join("junit.xml");
    for args in [
        vec!["run", STORY, "--junit", inside.to_str().expect("utf-8")],
        vec!["run", STORY, "--format", "json", "--html", inside.to_str().expect("utf-8")],
        vec!["conform", STORY, "--executor", "true", "--format", "json", "--junit", inside.to_str().expect("utf-8")],
    ] {
        let ran = run_callproof(&args);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "no report when the exit code is 2, nothing ran: {}", ran.stdout);
        assert!(ran.stderr.contains("cannot write the"), "{}", ran.stderr);
    }
}

#[test]
fn junit_on_stdout_has_a_time_on_every_test_case_and_on_the_whole_report() {
    let ran = run_callproof(&["run", STORY, "--subject", BUG, "--format", "junit"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let report = quick_junit::Report::deserialize_from_str(&ran.stdout).expect("JUnit XML");
    assert!(report.time.is_some(), "the report has a time");
    let cases: Vec<&quick_junit::TestCase> = report.test_suites.iter().flat_map(|suite| &suite.test_cases).collect();
    assert!(cases.len() > 10, "one case per judged check");
    assert!(cases.iter().all(|case| case.time.is_some()), "every test case has a time");
    assert!(report.failures >= 3, "{}", ran.stdout);
}

#[test]
fn github_annotations_point_at_the_scenario_file_and_the_line_of_the_step_where_the_check_failed() {
    let ran = run_callproof(&["run", STORY, "--subject", BUG, "--format", "github"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let path = format!("scenarios/{STORY}.toml");
    let text = std::fs::read_to_string(repo().join(&path)).expect("the scenario");
    let steps: Vec<usize> =
        text.lines().enumerate().filter(|(_, line)| line.starts_with("[[step]]")).map(|(at, _)| at + 1).collect();
    let second = format!("::error file={path},line={},title=single-effect [MUST]::{STORY}: ", steps[1]);
    assert!(ran.stdout.lines().any(|line| line.starts_with(&second)), "{second}\n{}", ran.stdout);
    assert!(ran.stdout.contains("\nFAIL: "), "the human report comes first: {}", ran.stdout);
    let annotations: Vec<&str> = ran.stdout.lines().filter(|line| line.starts_with("::")).collect();
    assert!(annotations.iter().all(|line| line.starts_with("::error file=") || line.starts_with("::warning file=")));
}

#[test]
fn write_baseline_accepts_todays_failures_and_the_file_excuses_them_until_they_pass() {
    let dir = TempDir::new();
    let baseline = dir.join("ci/baseline.txt");
    let file = baseline.to_str().expect("utf-8");
    let accepted = run_callproof(&["run", STORY, "--subject", BUG, "--write-baseline", file]);
    assert_eq!(accepted.code, 0, "accepted failures pass: {}{}", accepted.stdout, accepted.stderr);
    assert!(accepted.stdout.starts_with("FAIL  [1/1] idempotency/"), "the run shows what failed: {}", accepted.stdout);
    assert!(accepted.stdout.contains("\nPASS: every required check passed in 1 scenario (1 failed as expected"));
    assert!(accepted.stderr.contains("wrote 4 baseline entries"), "{}", accepted.stderr);
    let written = std::fs::read_to_string(&baseline).expect("written");
    for check in ["expectations", "single-effect", "ok-means-applied", "reconcile-before-resend"] {
        assert!(written.lines().any(|line| line == format!("{STORY} {check}")), "{check}:\n{written}");
    }
    let excused = run_callproof(&["run", STORY, "--subject", BUG, "--baseline", file, "--format", "json"]);
    assert_eq!(excused.code, 0, "{}", excused.stderr);
    assert_eq!(excused.report()["summary"]["expected_fail"], 1);
    let fixed = run_callproof(&["run", STORY, "--baseline", file]);
    assert_eq!(fixed.code, 1, "entries of a bug that is fixed go stale: {}", fixed.stdout);
    assert!(fixed.stdout.contains("no longer fails; remove it"), "{}", fixed.stdout);
}

#[test]
fn a_filter_selects_scenarios_and_the_checks_judging_them_and_a_wrong_one_is_a_usage_error() {
    let ran = run_callproof(&["run", "--filter", "path:auth/missing_scope & level:should", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report = ran.report();
    assert_eq!(report["summary"]["scenarios"], 1);
    let checks = report["checks"].as_array().expect("checks");
    assert!(
        !checks.is_empty()
            && checks.iter().all(|id| id == "corpus-details"
                || id.as_str().is_some_and(|id| id.ends_with("-propagated") || id == "replay-same-result")),
        "{checks:?}"
    );
    assert_eq!(report["filter"], "(path:auth/missing_scope & level:should)");
    for (filter, why) in
        [("check:nope", "unknown check `nope`"), ("tag:nope", "selects no scenario"), ("tag:", "has no value")]
    {
        let ran = run_callproof(&["run", "--filter", filter]);
        assert_eq!(ran.code, 2, "{filter}: {}", ran.stderr);
        assert!(ran.stderr.contains(why), "{filter}: {}", ran.stderr);
    }
}

#[test]
fn run_partitions_the_suite_like_conform() {
    let whole =
        run_callproof(&["list", "scenarios", "--format", "json"]).report()["scenarios"].as_array().expect("list").len();
    let slice = run_callproof(&["run", "auth", "--partition", "2/3", "--format", "json"]);
    assert_eq!(slice.code, 0, "{}", slice.stderr);
    assert_eq!(slice.report()["partition"], "2/3");
    let auth = run_callproof(&["list", "scenarios", "--filter", "tag:auth", "--format", "json"]).report()["scenarios"]
        .as_array()
        .expect("list")
        .len();
    assert_eq!(slice.report()["summary"]["scenarios"].as_u64(), Some(((auth + 1) / 3) as u64));
    assert!(whole > auth);
}

#[test]
fn list_shows_scenarios_with_tags_checks_with_levels_mutants_with_what_they_break_and_fault_kinds() {
    let ran = run_callproof(&["list", "--format", "json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let lists = ran.report();
    let story = lists["scenarios"].as_array().expect("scenarios").iter().find(|s| s["id"] == STORY).expect("listed");
    assert_eq!(story["tags"], serde_json::json!(["idempotency"]));
    let checks = lists["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), callproof_harness::checks::all().len());
    assert!(checks.iter().all(|check| check["level"] == "MUST" || check["level"] == "SHOULD"));
    let mutants = lists["mutants"].as_array().expect("mutants");
    assert_eq!(mutants.len(), callproof_executor::mutants::ALL.len());
    let reexecuted = mutants.iter().find(|m| m["name"] == "unknown-reexecuted").expect("listed");
    assert!(reexecuted["trips"].as_array().expect("trips").iter().any(|id| id == "reconcile-before-resend"));
    let faults = lists["faults"].as_array().expect("faults");
    assert!(faults.len() >= 13 && faults.iter().any(|fault| fault["kind"] == "commit_then_drop"));
    assert!(faults.iter().all(|fault| fault["description"].as_str().is_some_and(|text| !text.is_empty())));

    let human = run_callproof(&["list", "checks", "--filter", "check:same-key"]);
    assert_eq!(human.stdout.lines().next(), Some("checks (1):"), "{}", human.stdout);
    let unknown = run_callproof(&["run", "--subject", "mutant:nope", STORY]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("see `callproof list mutants`"), "{}", unknown.stderr);
}

#[test]
fn mutants_counts_each_executor_as_it_finishes_and_reports_as_json_and_junit() {
    let dir = TempDir::new();
    let junit = dir.join("out/mutants.xml");
    let ran = run_callproof(&[
        "mutants",
        "auth",
        "--mutant",
        "ownership-unchecked,scope-after-lookup",
        "--format",
        "json",
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let report = ran.report();
    assert_eq!(report["rows"].as_array().expect("rows").len(), 2);
    assert!(report["reference_failures"].as_array().expect("reference").is_empty());
    for count in ["[1/3]", "[2/3]", "[3/3]"] {
        assert!(ran.stderr.contains(count), "{count}: {}", ran.stderr);
    }
    let xml = std::fs::read_to_string(&junit).expect("written");
    let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("JUnit");
    assert_eq!(parsed.test_suites.len(), 3, "the reference and two mutants");
    assert_eq!(parsed.failures, 0);
    let sliced = run_callproof(&["mutants", "auth", "--partition", "2/100", "--format", "json"]);
    assert_eq!(sliced.report()["rows"].as_array().expect("rows").len(), 1, "{}", sliced.stderr);
}

#[test]
fn an_installed_callproof_runs_the_shipped_scenarios_from_any_folder() {
    let dir = TempDir::new();
    let ran = run_callproof_in(&dir.path, &["run", "auth/missing_scope"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.starts_with("PASS  [1/1] auth/missing_scope"), "{}", ran.stdout);
    let repro = run_callproof_in(&dir.path, &["repro", STORY, "--subject", BUG, "--format", "text"]);
    assert_eq!(repro.code, 1, "{}", repro.stderr);
    assert!(repro.stdout.contains("✗ single-effect"), "{}", repro.stdout);

    let mine = dir.join("mine/scenarios/custom");
    std::fs::create_dir_all(&mine).expect("folder");
    let story = std::fs::read_to_string(repo().join(format!("scenarios/{STORY}.toml"))).expect("a scenario");
    std::fs::write(mine.join("my_story.toml"), story).expect("write");
    let added = run_callproof_in(&dir.path, &["run", "--scenarios", "mine/scenarios", "custom", "--format", "json"]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    let ids: Vec<String> = added.report()["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|scenario| scenario["id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(ids, ["custom/my_story"]);
}

#[test]
fn a_failing_scenario_prints_each_evidence_line_once_however_many_checks_it_fails() {
    let ran = run_callproof(&["run", "--subject", "mutant:check-then-act", "idempotency/burst_of_identical_calls"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let details: Vec<&str> = ran.stdout.lines().take_while(|line| !line.starts_with("checks against")).collect();
    let evidence: Vec<&str> = details.iter().copied().filter(|line| line.starts_with("          ")).collect();
    assert!(evidence.len() >= 16, "the burst's calls and requests: {}", ran.stdout);
    let mut seen = std::collections::BTreeSet::new();
    for line in &evidence {
        assert!(seen.insert(*line), "printed twice: {line}\n{}", ran.stdout);
    }
    assert!(details.len() < 60, "one burst prints {} lines (210 when evidence was repeated per check)", details.len());
    // Which messages a check-then-act burst produces depends on scheduling; that none is printed twice does not.
    let mut messages = std::collections::BTreeSet::new();
    for line in details.iter().filter(|line| line.trim_start().starts_with('✗')) {
        assert!(
            messages.insert(*line),
            "a message repeated by one check is printed once, counted: {line}\n{}",
            ran.stdout
        );
    }
    assert!(!messages.is_empty(), "the failing checks are listed: {}", ran.stdout);
}
