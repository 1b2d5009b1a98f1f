//! The Python example executor (examples/python), written from docs/protocol.md alone, passes every MUST check
//! of `callproof conform`, and fails under `--profile all` exactly the SHOULD checks its README says it fails. Where Python 3 or its `jsonschema` package is missing the test prints a loud SKIPPED
//! line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1` (CI), where the skip is a failure.

mod process_support;

use process_support::{crash_scenarios, python_with_jsonschema, run_callproof};

#[test]
fn the_python_example_passes_every_must_check_and_fails_only_the_should_checks_its_readme_names() {
    if !python_with_jsonschema("the Python example executor") {
        return;
    }
    let ran = run_callproof(&[
        "conform",
        "--executor",
        "python3 examples/python/callproof_executor.py",
        "--format",
        "json",
        "--jobs",
        "6",
        "--profile",
        "all",
    ]);
    assert!(ran.code <= 1, "stdout:\n{}\nstderr:\n{}", ran.stdout, ran.stderr);
    let report = ran.report();
    let readme = std::fs::read_to_string(process_support::repo().join("examples/python/README.md")).expect("README");
    let said = readme.split("Under `--profile all`").nth(1).and_then(|rest| rest.split("\n\n").next()).unwrap_or("");
    let mut failed = Vec::new();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        for check in scenario["checks"].as_array().expect("checks").iter().filter(|check| check["status"] == "fail") {
            assert_eq!(check["level"], "SHOULD", "a MUST check failed: {}: {check:#}", scenario["id"]);
            let (id, name) = (scenario["id"].as_str().expect("id"), check["id"].as_str().expect("id"));
            assert!(said.contains(&format!("`{name}` in `{id}`")), "the README does not say it fails {name} in {id}");
            failed.push(id.to_owned());
        }
    }
    assert!(!failed.is_empty() || said.is_empty(), "the README says it fails a SHOULD check, and it fails none");
    assert_eq!(report["executor"]["capabilities"]["name"], "callproof-python-example");
    // The example keeps its records in memory: a scenario that kills it may lose one (an expected failure, or a
    // pass where the crash happened to lose nothing), and it cannot make its store fail on purpose.
    let crashes = crash_scenarios();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        let id = scenario["id"].as_str().expect("id");
        let expected = match id {
            _ if failed.iter().any(|known| known == id) => "fail",
            "idempotency/crash_after_commit" => "expected-fail",
            "internal/store_outage" | "internal/store_outage_after_commit" => "skip",
            _ if crashes.iter().any(|crash| crash == id) => "expected-fail|pass",
            _ => "pass",
        };
        let status = scenario["status"].as_str().expect("status");
        assert!(expected.split('|').any(|want| want == status), "{}: {status}\n{scenario:#}", scenario["id"]);
    }
    // docs/conform.md shows the summary of this run under the default profile as its JSON example: it must be
    // this run's (a crash that lost nothing passes instead of failing as expected, so those two counts are
    // compared as a sum, with the scenarios that fail only a SHOULD check here).
    let docs = std::fs::read_to_string(process_support::repo().join("docs/conform.md")).expect("docs/conform.md");
    let line = docs.lines().find(|line| line.trim_start().starts_with("\"summary\": {")).expect("an example summary");
    let example: serde_json::Value =
        serde_json::from_str(line.trim().trim_start_matches("\"summary\": ").trim_end_matches(',')).expect("JSON");
    let summary = &report["summary"];
    let count = |value: &serde_json::Value, key: &str| value[key].as_u64().unwrap_or_else(|| panic!("{key}: {value}"));
    assert_eq!(count(&example, "scenarios"), count(summary, "scenarios"), "docs/conform.md: {line}");
    assert_eq!(count(&example, "skip"), count(summary, "skip"), "docs/conform.md: {line}");
    let done = |value: &serde_json::Value| count(value, "pass") + count(value, "expected_fail");
    let done_here = done(summary) + failed.len() as u64;
    assert_eq!(done(&example), done_here, "docs/conform.md: {line}\nthis run: {summary}");
}
