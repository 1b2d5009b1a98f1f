//! `callproof repro`: the timeline of one scenario with failed checks marked, as text, Mermaid and JSON.

mod process_support;

use process_support::{reference_command, repo, run_callproof};

const STORY: &str = "idempotency/duplicate_refund_after_lost_response";

#[test]
fn the_mermaid_repro_of_the_duplicate_refund_draws_every_line_as_mermaid_and_marks_the_bug() {
    let ran = run_callproof(&["repro", STORY, "--subject", "mutant:unknown-reexecuted", "--format", "mermaid"]);
    assert_eq!(ran.code, 1, "a MUST check failed: {}", ran.stderr);
    let mut lines = ran.stdout.lines();
    assert_eq!(lines.next(), Some("sequenceDiagram"));
    let statement = |line: &str| {
        let line = line.strip_prefix("    ").unwrap_or_else(|| panic!("indented: {line:?}"));
        let text = ["participant ", "Note over M,D: ", "Note over M,E: ", "Note over D: ", "Note over E: "]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
            .or_else(|| {
                ["M->>E: ", "E->>D: ", "D-->>E: ", "D--xE: ", "E-->>M: ", "E--xM: "]
                    .iter()
                    .find_map(|arrow| line.strip_prefix(arrow))
            })
            .unwrap_or_else(|| panic!("not a Mermaid statement this diagram uses: {line:?}"));
        let plain = ["#35;", "#59;", "#60;", "#62;"].iter().fold(text.to_owned(), |text, code| text.replace(code, ""));
        assert!(!plain.contains(';'), "an unescaped ';' ends a Mermaid statement: {line:?}");
        assert!(!plain.contains('#'), "an unescaped '#' starts a Mermaid comment and cuts the text: {line:?}");
        assert!(!text.contains('<') && !text.contains('>'), "{line:?}");
    };
    lines.for_each(statement);
    for needle in [
        "participant M as Model",
        "participant E as Executor",
        "participant D as Downstream",
        "commit_then_drop",
        "committed refunds rf_1",
        "committed refunds rf_2",
        "❌ single-effect [MUST]",
        "❌ reconcile-before-resend [MUST]",
        "ledger: refunds 2",
        "POST /refunds key=#35;1",
        "after call #35;0 ended unknown",
    ] {
        assert!(ran.stdout.contains(needle), "{needle}:\n{}", ran.stdout);
    }
    let second_step = ran.stdout.find("step 2 retry").expect("step 2");
    let bug = ran.stdout.find("❌ single-effect").expect("the mark");
    assert!(
        bug > second_step && bug < ran.stdout.find("step 3 retry").expect("step 3"),
        "marked where the second refund committed"
    );
}

#[test]
fn the_text_repro_of_a_passing_run_is_the_snapshotted_timeline() {
    let ran = run_callproof(&["repro", STORY]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(!ran.stdout.contains('✗'), "{}", ran.stdout);
    let snapshot =
        std::fs::read_to_string(repo().join(format!("snapshots/scenarios/{}.snap", STORY.replace('/', "__"))))
            .expect("the snapshot");
    let body = snapshot.splitn(3, "---\n").nth(2).expect("an insta body");
    let (header, timeline) = ran.stdout.split_once('\n').expect("a header line");
    assert_eq!(header, format!("{STORY} against reference"));
    assert_eq!(timeline.trim_end(), body.trim_end());
}

#[test]
fn the_json_repro_through_a_process_lists_the_failures_with_the_transcript() {
    let executor = reference_command("--store memory --mutant unknown-reexecuted");
    let ran = run_callproof(&["repro", STORY, "--executor", &executor, "--format", "json"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let repro: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON");
    assert_eq!(repro["scenario"], STORY);
    let failures = repro["failures"].as_array().expect("failures");
    assert!(failures.iter().any(|mark| mark["check"] == "single-effect" && mark["call"] == 1), "{failures:#?}");
    assert_eq!(repro["transcript"]["ledger"].as_array().expect("ledger").len(), 2);
    assert!(
        repro["timeline"]
            .as_array()
            .expect("lines")
            .iter()
            .any(|line| line.as_str().is_some_and(|line| line.starts_with("  ✗ single-effect")))
    );
}

#[test]
fn an_unknown_scenario_or_format_is_a_usage_error() {
    assert_eq!(run_callproof(&["repro", "no/such_scenario"]).code, 2);
    assert_eq!(run_callproof(&["repro", STORY, "--format", "svg"]).code, 2);
    assert_eq!(run_callproof(&["repro", STORY, "--subject", "mutant:nope"]).code, 2);
}

#[test]
fn the_json_repro_fits_docs_repro_schema_for_failures_crashes_the_corpus_and_processes() {
    let text = std::fs::read_to_string(repo().join("docs/repro.schema.json")).expect("read the schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("docs/repro.schema.json is JSON");
    let validator = jsonschema::draft202012::options().build(&schema).expect("a valid schema");
    let executor = reference_command("--store memory --mutant unknown-reexecuted");
    let runs: [&[&str]; 4] = [
        &["repro", STORY, "--subject", "mutant:unknown-reexecuted", "--format", "json"],
        &["repro", "idempotency/crash_after_commit", "--format", "json"],
        &["repro", "decode/malformed_corpus", "--format", "json"],
        &["repro", STORY, "--executor", &executor, "--format", "json"],
    ];
    for args in runs {
        let ran = run_callproof(args);
        assert!(ran.code <= 1, "{args:?}: {}", ran.stderr);
        let repro: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON");
        let errors: Vec<String> =
            validator.iter_errors(&repro).map(|error| format!("{}: {error}", error.instance_path().as_str())).collect();
        assert!(errors.is_empty(), "{args:?} breaks docs/repro.schema.json:\n{}", errors.join("\n"));
    }
    let crash = run_callproof(&["repro", "idempotency/crash_after_commit", "--format", "json"]);
    let crash: serde_json::Value = serde_json::from_str(&crash.stdout).expect("JSON");
    let answers: Vec<&serde_json::Value> =
        crash["transcript"]["calls"].as_array().expect("calls").iter().map(|call| &call["answer"]).collect();
    assert!(answers.iter().any(|answer| *answer == "killed"), "a crash scenario has a killed answer: {answers:?}");
}

#[test]
fn a_crash_repro_against_a_store_that_dies_with_the_process_says_its_failure_is_expected() {
    let executor = reference_command("--store memory");
    let ran = run_callproof(&["repro", "idempotency/crash_after_commit", "--executor", &executor]);
    let note = ran.stdout.lines().nth(1).unwrap_or_default();
    assert!(note.starts_with("note: this executor is expected to fail it: "), "{}\n{}", ran.stdout, ran.stderr);
    let json = run_callproof(&["repro", "idempotency/crash_after_commit", "--executor", &executor, "--format", "json"]);
    let repro: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert!(repro["expected_failure"].is_string(), "{}", repro["expected_failure"]);
    let reference = run_callproof(&["repro", "idempotency/crash_after_commit", "--format", "json"]);
    let reference: serde_json::Value = serde_json::from_str(&reference.stdout).expect("JSON");
    assert_eq!(reference["expected_failure"], serde_json::Value::Null, "the in-process reference survives a kill");
    assert_eq!(reference["notes"], serde_json::json!([]));
}
