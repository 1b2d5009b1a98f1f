//! `callproof conform` end to end: the reference binary conforms, reports validate against their schema and
//! parse as JUnit, baselines excuse and go stale, partitions cover the suite once, usage errors exit 2, and
//! every way an executor can break the protocol exits 3 with a reason, never a hang.

mod process_support;

use process_support::{TempDir, crash_scenarios, fixture, reference_command, repo, run_callproof};
use serde_json::Value;
use std::collections::BTreeSet;

fn report_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("docs/report.schema.json")).expect("read the schema");
    let schema: Value = serde_json::from_str(&text).expect("docs/report.schema.json is JSON");
    jsonschema::draft202012::options().build(&schema).expect("docs/report.schema.json is a valid schema")
}

fn assert_valid_report(report: &Value) {
    let validator = report_validator();
    let errors: Vec<String> =
        validator.iter_errors(report).map(|error| format!("{}: {error}", error.instance_path().as_str())).collect();
    assert!(errors.is_empty(), "the report breaks docs/report.schema.json:\n{}", errors.join("\n"));
}

fn scenario<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["scenarios"].as_array().expect("scenarios").iter().find(|s| s["id"] == id).unwrap_or_else(|| panic!("{id}"))
}

#[test]
fn the_reference_binary_passes_every_must_check_and_its_reports_validate_and_parse() {
    let dir = TempDir::new();
    let junit = dir.join("junit.xml");
    let executor = reference_command("--store memory");
    let ran = run_callproof(&[
        "conform",
        "--executor",
        &executor,
        "--format",
        "json",
        "--junit",
        junit.to_str().expect("utf-8"),
    ]);
    assert_eq!(ran.code, 0, "{}", ran.explain());
    let report = ran.report();
    assert_valid_report(&report);
    assert_eq!(report["verdict"]["reason"], "passed");
    assert_eq!(report["executor"]["capabilities"]["name"], "callproof-executor");

    let crash = scenario(&report, "idempotency/crash_after_commit");
    assert_eq!(crash["status"], "expected-fail", "{crash:#}");
    assert!(crash["reason"].as_str().expect("a reason").contains("does not survive a restart"), "{crash:#}");
    let single =
        crash["checks"].as_array().expect("checks").iter().find(|c| c["id"] == "single-effect").expect("judged");
    assert_eq!(single["status"], "expected-fail");
    assert!(!single["violations"][0]["evidence"].as_array().expect("evidence").is_empty(), "evidence lines");

    let outage = scenario(&report, "internal/store_outage");
    assert_eq!(outage["status"], "skip");
    assert!(outage["reason"].as_str().expect("a reason").contains("store_outage"), "{outage:#}");

    // A scenario that kills the executor may lose a record of the memory store: an expected failure, which
    // must say why. Every other scenario passes.
    let crashes = crash_scenarios();
    let others: Vec<&Value> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["id"] != "internal/store_outage" && s["id"] != "internal/store_outage_after_commit")
        .filter(|s| {
            let crash = crashes.iter().any(|id| s["id"] == id.as_str());
            let excused = s["status"] == "expected-fail"
                && s["reason"].as_str().is_some_and(|reason| reason.contains("does not survive a restart"));
            !(s["status"] == "pass" || crash && excused)
        })
        .collect();
    assert!(others.is_empty(), "{others:#?}");
    assert!(
        report["checks"].as_array().expect("checks").iter().all(|id| id != "corpus-details"),
        "profile must judges MUST checks only"
    );

    let xml = std::fs::read_to_string(&junit).expect("the JUnit file");
    let parsed = quick_junit::Report::deserialize_from_str(&xml).expect("the JUnit file parses");
    assert_eq!(parsed.test_suites.len(), report["scenarios"].as_array().expect("scenarios").len());
    assert_eq!(parsed.failures, 0);
    assert!(parsed.tests > 100, "one test case per judged check: {}", parsed.tests);
}

#[test]
fn a_failure_fails_the_run_a_baseline_excuses_it_and_a_stale_entry_fails_it_again() {
    let executor = reference_command("--store memory --mutant leaky-errors");
    let leak = "scenarios/downstream/leak_bait.toml";
    let failing = run_callproof(&["conform", leak, "--executor", &executor, "--format", "json"]);
    assert_eq!(failing.code, 1, "{}", failing.stderr);
    assert_eq!(failing.reason()["reason"], "check_failures");
    assert!(failing.reason()["message"].as_str().expect("message").contains("no-secret-leak"));
    assert_valid_report(&failing.report());

    let dir = TempDir::new();
    let baseline = dir.join("baseline.txt");
    std::fs::write(&baseline, "# leaky on purpose\ndownstream/leak_bait no-secret-leak\n").expect("write");
    let excused = run_callproof(&[
        "conform",
        leak,
        "--executor",
        &executor,
        "--format",
        "json",
        "--baseline",
        baseline.to_str().expect("utf-8"),
    ]);
    assert_eq!(excused.code, 0, "{}", excused.stderr);
    let report = excused.report();
    assert_valid_report(&report);
    assert_eq!(scenario(&report, "downstream/leak_bait")["status"], "expected-fail");

    let rate = "scenarios/downstream/rate_limited.toml";
    std::fs::write(&baseline, "downstream/leak_bait no-secret-leak\ndownstream/rate_limited no-secret-leak\n")
        .expect("write");
    let stale = run_callproof(&[
        "conform",
        leak,
        rate,
        "--executor",
        &executor,
        "--format",
        "json",
        "--baseline",
        baseline.to_str().expect("utf-8"),
    ]);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    assert_eq!(stale.reason()["reason"], "stale_baseline");
    let report = stale.report();
    assert_valid_report(&report);
    assert_eq!(report["stale_baseline"][0]["scenario"], "downstream/rate_limited");
    assert_eq!(report["stale_baseline"][0]["line"], 2);
}

#[test]
fn partitions_cover_the_suite_exactly_once() {
    let executor = reference_command("--store memory");
    let mut seen = BTreeSet::new();
    let mut total = 0;
    for k in 1..=3 {
        let partition = format!("{k}/3");
        let ran = run_callproof(&[
            "conform",
            "scenarios/decode",
            "--executor",
            &executor,
            "--format",
            "json",
            "--partition",
            &partition,
        ]);
        assert_eq!(ran.code, 0, "{}", ran.explain());
        let report = ran.report();
        assert_eq!(report["partition"], partition.as_str());
        for s in report["scenarios"].as_array().expect("scenarios") {
            total += 1;
            seen.insert(s["id"].as_str().expect("id").to_owned());
        }
    }
    let all = std::fs::read_dir(repo().join("scenarios/decode")).expect("dir").count();
    assert_eq!((seen.len(), total), (all, all), "{seen:?}");
}

/// Every usage error of `conform`, clap's included, ends stderr with the JSON line (docs/conform.md).
#[test]
fn usage_errors_exit_2_with_a_json_reason() {
    let executor = reference_command("--store memory");
    let dir = TempDir::new();
    let baseline = dir.join("baseline.txt");
    std::fs::write(&baseline, "no/such_scenario\n").expect("write");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--profile", "most"], "invalid value 'most' for '--profile"),
        (vec!["--partition", "4/3"], "--partition"),
        (vec!["--only", "no-such-check"], "unknown check"),
        (vec!["--only", "corpus-details"], "--profile all"),
        (vec!["--format", "yaml"], "invalid value 'yaml' for '--format"),
        (vec!["--jobs", "0"], "invalid value '0' for '--jobs"),
        (vec!["--baseline", baseline.to_str().expect("utf-8")], "no scenario is called"),
        (vec!["--bogus"], "--bogus"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["conform", "--executor", executor.as_str()];
        args.extend(extra.iter().copied());
        let ran = run_callproof(&args);
        assert_eq!(ran.code, 2, "{extra:?}: {}", ran.stderr);
        let reason = ran.reason();
        assert_eq!(reason["exit_code"], 2);
        assert!(reason["message"].as_str().expect("message").contains(needle), "{extra:?}: {reason}");
    }
    let unclosed = run_callproof(&["conform", "--executor", "'unclosed"]);
    assert_eq!((unclosed.code, unclosed.reason()["exit_code"].as_u64()), (2, Some(2)), "{}", unclosed.stderr);
    assert!(unclosed.reason()["message"].as_str().expect("message").contains("unclosed single quote"));
}

fn broken(script: &str, scenarios: &[&str], extra: &[&str]) -> (i32, Value, Value) {
    let command = format!("sh '{}'", fixture(&format!("executors/{script}")).display());
    let paths: Vec<String> =
        scenarios.iter().map(|name| fixture(&format!("scenarios/{name}")).display().to_string()).collect();
    let mut args = vec!["conform", "--executor", command.as_str(), "--format", "json"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(extra);
    let ran = run_callproof(&args);
    let report = if ran.stdout.trim().is_empty() { Value::Null } else { ran.report() };
    if !report.is_null() {
        assert_valid_report(&report);
    }
    (ran.code, ran.reason(), report)
}

#[test]
fn an_executor_that_prints_garbage_breaks_the_protocol() {
    let (code, reason, _) = broken("garbage.sh", &["one_refund.toml"], &[]);
    assert_eq!(code, 3);
    assert_eq!(reason["reason"], "protocol_break");
    let message = reason["message"].as_str().expect("message");
    assert!(message.contains("not JSON") && message.contains("Traceback"), "{message}");
    assert!(message.contains("fake: about to print garbage"), "the tail of stderr: {message}");
}

#[test]
fn an_answer_to_an_unknown_id_breaks_the_protocol() {
    let (code, reason, _) = broken("unknown_id.sh", &["one_refund.toml"], &[]);
    assert_eq!(code, 3);
    assert!(reason["message"].as_str().expect("message").contains("\"nope\""), "{reason}");
}

#[test]
fn silence_past_the_budget_breaks_the_protocol_and_stops_the_run() {
    let (code, reason, report) = broken("silent.sh", &["one_refund.toml", "two_refund.toml"], &["--jobs", "1"]);
    assert_eq!(code, 3);
    let message = reason["message"].as_str().expect("message");
    assert!(message.contains("no answer to request") && message.contains("fake: thinking very hard"), "{message}");
    let second = scenario(&report, "two_refund");
    assert_eq!(second["status"], "skip");
    assert!(second["reason"].as_str().expect("reason").contains("one_refund"), "{second:#}");
}

#[test]
fn an_executor_that_exits_breaks_the_protocol() {
    let (code, reason, _) = broken("exits.sh", &["one_refund.toml"], &[]);
    assert_eq!(code, 3);
    let message = reason["message"].as_str().expect("message");
    assert!(message.contains("exit") && message.contains("out of cheese"), "{message}");
}

#[test]
fn an_executor_not_ready_within_the_start_timeout_it_was_given_exits_3_saying_how_long_it_waited() {
    let (code, reason, report) = broken("never_ready.sh", &["one_refund.toml"], &["--start-timeout", "1"]);
    assert_eq!(code, 3);
    assert_eq!(reason["reason"], "executor_not_started");
    let message = reason["message"].as_str().expect("message");
    assert!(message.contains("within 1000 ms") && message.contains("still importing"), "{message}");
    assert!(report.is_null(), "no report without an executor");
    let (code, reason, _) = broken("never_ready.sh", &["one_refund.toml"], &["--start-timeout", "0"]);
    assert_eq!((code, reason["reason"].as_str()), (2, Some("usage")), "{reason}");
}

#[test]
fn an_executor_that_cannot_start_exits_3_before_any_scenario() {
    let (code, reason, report) = broken("fails_to_start.sh", &["one_refund.toml"], &[]);
    assert_eq!(code, 3);
    assert_eq!(reason["reason"], "executor_not_started");
    assert!(reason["message"].as_str().expect("message").contains("cannot open the database"), "{reason}");
    assert!(report.is_null(), "no report without an executor");
}
