//! The Python example executor (examples/python), written from docs/protocol.md alone, passes every MUST check
//! of `callproof conform`. Where Python 3 or its `jsonschema` package is missing the test prints a loud SKIPPED
//! line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1` (CI), where the skip is a failure.

mod process_support;

use process_support::{REQUIRE_VAR, crash_scenarios, run_callproof};
use std::io::Write;
use std::process::Command;

fn python_ready() -> Result<(), String> {
    let output = Command::new("python3")
        .args(["-c", "import jsonschema, sys; assert sys.version_info >= (3, 9)"])
        .output()
        .map_err(|error| format!("python3 cannot be run ({error})"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("python3 with jsonschema is not available ({})", String::from_utf8_lossy(&output.stderr).trim()))
    }
}

#[test]
fn the_python_example_passes_every_must_check() {
    if let Err(why) = python_ready() {
        let required = std::env::var(REQUIRE_VAR).is_ok_and(|value| value == "1");
        assert!(!required, "{why} and {REQUIRE_VAR}=1: python3 -m pip install -r examples/python/requirements.txt");
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the Python example executor: {why} (python3 -m pip install -r examples/python/requirements.txt; \
             set {REQUIRE_VAR}=1 to fail instead)"
        );
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
    ]);
    assert_eq!(ran.code, 0, "stdout:\n{}\nstderr:\n{}", ran.stdout, ran.stderr);
    let report = ran.report();
    assert_eq!(report["executor"]["capabilities"]["name"], "callproof-python-example");
    // The example keeps its records in memory: a scenario that kills it may lose one (an expected failure, or a
    // pass where the crash happened to lose nothing), and it cannot make its store fail on purpose.
    let crashes = crash_scenarios();
    for scenario in report["scenarios"].as_array().expect("scenarios") {
        let id = scenario["id"].as_str().expect("id");
        let expected = match id {
            "idempotency/crash_after_commit" => "expected-fail",
            "internal/store_outage" => "skip",
            _ if crashes.iter().any(|crash| crash == id) => "expected-fail|pass",
            _ => "pass",
        };
        let status = scenario["status"].as_str().expect("status");
        assert!(expected.split('|').any(|want| want == status), "{}: {status}\n{scenario:#}", scenario["id"]);
    }
}
