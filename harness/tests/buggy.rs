//! The independent buggy executors of `examples/buggy/` (the Python example with one realistic bug each, listed
//! in `examples/buggy/manifest.toml`) are judged by `callproof conform` on the scenarios their manifest row
//! names: a row `expected = "caught"` must fail with every check it names, a row `expected = "missed"` (a bug
//! the suite does not catch yet) must pass, so a change that starts catching it fails here until the row is
//! flipped, and a row `expected = "correct"` (a `variant_*` module: the example written another legitimate way)
//! must pass, so a check that trips on it is a false positive. Adding a buggy executor is a module plus a
//! manifest row. Where Python 3 with `jsonschema` is missing
//! the test prints a loud SKIPPED line, unless `CALLPROOF_REQUIRE_SERVICES=1`.

mod process_support;

use process_support::{Ran, python_with_jsonschema, repo, run_callproof};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Instant;

/// `examples/buggy/manifest.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    executor: Vec<Entry>,
}

/// One buggy executor.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// The module `examples/buggy/<name>.py`.
    name: String,
    /// The bug, in one sentence.
    bug: String,
    /// Whether the suite catches it today.
    expected: Expected,
    /// The checks that must fail (for a caught bug), each in at least one of `scenarios`.
    #[serde(default)]
    checks: Vec<String>,
    /// What `conform` runs: scenario files or folders, relative to the repository root.
    scenarios: Vec<String>,
    /// `must` (the default) or `all`.
    #[serde(default = "must")]
    profile: String,
    /// For a missed bug: scenarios outside the suite that show it (the buggy executor fails each, the correct
    /// example passes them), so a "missed" row cannot hide a module that lost its bug.
    #[serde(default)]
    probes: Vec<String>,
    /// For people: which check or scenario would catch a missed bug, or why a catch is what it is.
    #[serde(default)]
    note: String,
    /// For a caught bug that no check names because the executor breaks the protocol on `scenarios` (exit code
    /// 3, reason `protocol_break`; e.g. it exits with a call unanswered).
    #[serde(default)]
    protocol_break: bool,
}

fn must() -> String {
    "must".to_owned()
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Expected {
    Caught,
    Missed,
    Correct,
}

fn manifest() -> Manifest {
    let path = repo().join("examples/buggy/manifest.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The one place that knows how `conform` is invoked (its flags are still moving).
fn conform(executor: &str, paths: &[&str], profile: &str) -> Ran {
    let mut args: Vec<&str> = vec!["conform"];
    args.extend(paths);
    args.extend(["--executor", executor, "--profile", profile, "--format", "json", "--jobs", "2"]);
    run_callproof(&args)
}

fn buggy_command(entry: &Entry) -> String {
    format!("python3 examples/buggy/{}.py", entry.name)
}

/// The checks that failed in some scenario of the report (none when stdout is not a report).
fn failed_checks(ran: &Ran) -> BTreeSet<String> {
    let Ok(report) = serde_json::from_str::<serde_json::Value>(&ran.stdout) else { return BTreeSet::new() };
    let scenarios = report["scenarios"].as_array().into_iter().flatten();
    let checks = scenarios.flat_map(|scenario| scenario["checks"].as_array().into_iter().flatten());
    checks
        .filter(|check| check["status"] == "fail")
        .filter_map(|check| check["id"].as_str())
        .map(str::to_owned)
        .collect()
}

/// What is wrong with this entry's run on its scenarios, if anything.
fn judge(entry: &Entry, ran: &Ran) -> Option<String> {
    let failed = failed_checks(ran);
    match entry.expected {
        Expected::Caught if entry.protocol_break => {
            let reason = ran.stderr.lines().last().unwrap_or_default();
            if ran.code == 3 && reason.contains(r#""reason":"protocol_break""#) {
                return None;
            }
            Some(format!("expected a protocol break (exit 3); exit {}, failed checks {failed:?}", ran.code))
        }
        Expected::Caught => {
            let missing: Vec<&String> = entry.checks.iter().filter(|check| !failed.contains(*check)).collect();
            if ran.code == 1 && missing.is_empty() {
                return None;
            }
            Some(format!(
                "expected caught by {:?}; exit {}, failed checks {failed:?} (missing {missing:?})",
                entry.checks, ran.code
            ))
        }
        Expected::Missed | Expected::Correct if ran.code == 0 => None,
        Expected::Correct => Some(format!(
            "a correct variant, yet conform exited {} with failed checks {failed:?}: a false positive",
            ran.code
        )),
        Expected::Missed => Some(format!(
            "listed as missed, but conform exited {} with failed checks {failed:?}: if the suite catches it now, \
             set expected = \"caught\" and name the checks in examples/buggy/manifest.toml",
            ran.code
        )),
    }
}

/// Everything wrong with one entry: its scenarios, then its probes.
fn problems_of(entry: &Entry) -> Vec<String> {
    let command = buggy_command(entry);
    let scenarios: Vec<&str> = entry.scenarios.iter().map(String::as_str).collect();
    let ran = conform(&command, &scenarios, &entry.profile);
    let mut problems: Vec<String> = judge(entry, &ran).into_iter().map(|problem| with_tail(problem, &ran)).collect();
    for probe in &entry.probes {
        let ran = conform(&command, &[probe.as_str()], &entry.profile);
        if ran.code != 1 {
            let problem = format!("its probe {probe} should show the bug (exit 1), but conform exited {}", ran.code);
            problems.push(with_tail(problem, &ran));
        }
    }
    problems
}

fn with_tail(problem: String, ran: &Ran) -> String {
    let tail: Vec<&str> = ran.stderr.lines().rev().take(3).collect();
    format!("{problem}\n      stderr: {}", tail.join(" / "))
}

#[test]
fn the_manifest_lists_every_buggy_executor_and_only_those() {
    let listed: BTreeSet<String> = manifest().executor.iter().map(|entry| entry.name.clone()).collect();
    let mut modules = BTreeSet::new();
    for file in std::fs::read_dir(repo().join("examples/buggy")).expect("examples/buggy is readable") {
        let path = file.expect("a directory entry").path();
        let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default().to_owned();
        // correct.py imports the example; measure.py runs the whole suite over the manifest.
        if path.extension().is_some_and(|ext| ext == "py") && stem != "correct" && stem != "measure" {
            modules.insert(stem);
        }
    }
    assert_eq!(listed, modules, "examples/buggy/manifest.toml and the modules of examples/buggy differ");
    let entries = manifest().executor;
    let bugs = entries.iter().filter(|entry| entry.expected != Expected::Correct).count();
    assert!(bugs >= 20, "issue 11 asks for at least 20 buggy executors, the manifest has {bugs}");
    for entry in &entries {
        assert!(!entry.bug.trim().is_empty() && !entry.scenarios.is_empty(), "{}: bug and scenarios", entry.name);
        assert_eq!(
            entry.expected == Expected::Caught,
            !entry.checks.is_empty() || entry.protocol_break,
            "{}: checks (or a protocol break) iff caught",
            entry.name
        );
        assert!(!entry.protocol_break || entry.checks.is_empty(), "{}: a protocol break names no check", entry.name);
        assert!(["must", "all"].contains(&entry.profile.as_str()), "{}: profile {}", entry.name, entry.profile);
        assert!(entry.expected == Expected::Caught || !entry.note.is_empty(), "{}: a missed bug says", entry.name);
        let variant = entry.name.starts_with("variant_");
        assert_eq!(variant, entry.expected == Expected::Correct, "{}: variant_* iff correct", entry.name);
        assert!(entry.expected == Expected::Missed || entry.probes.is_empty(), "{}: probes, yet caught", entry.name);
        for probe in &entry.probes {
            assert!(repo().join(probe).is_file(), "{}: probe {probe} is not a file", entry.name);
        }
    }
}

#[test]
fn every_buggy_executor_is_judged_as_its_manifest_row_says() {
    if !python_with_jsonschema("the buggy executors of examples/buggy") {
        return;
    }
    let entries = manifest().executor;
    let problems = Mutex::new(Vec::new());
    let next = Mutex::new(entries.iter());
    let started = Instant::now();
    // Three entries at once, each conform with two scenarios at once: the executors mostly wait on the
    // scenarios' timers, so this keeps 2 cores busy without starving any of them.
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| {
                loop {
                    let Some(entry) = next.lock().expect("the queue").next() else { break };
                    for problem in problems_of(entry) {
                        problems.lock().expect("the list").push(format!("{}: {problem}", entry.name));
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().expect("the list");
    assert!(
        problems.is_empty(),
        "{} of {} buggy executors were not judged as examples/buggy/manifest.toml says ({:.0?}):\n{}",
        problems.len(),
        entries.len(),
        started.elapsed(),
        problems.join("\n")
    );
}

#[test]
fn the_probes_pass_against_the_correct_example() {
    if !python_with_jsonschema("the probes of examples/buggy") {
        return;
    }
    let probes: Vec<String> = manifest().executor.into_iter().flat_map(|entry| entry.probes).collect();
    if probes.is_empty() {
        eprintln!("no probes in examples/buggy/manifest.toml: every former probe is a shipped scenario now");
        return;
    }
    let paths: Vec<&str> = probes.iter().map(String::as_str).collect();
    let ran = conform("python3 examples/python/callproof_executor.py", &paths, "must");
    assert_eq!(ran.code, 0, "a probe fails the correct example, so it shows no bug:\n{}\n{}", ran.stdout, ran.stderr);
    assert_eq!(ran.report()["summary"]["pass"], probes.len(), "every probe ran and passed");
}
