//! `callproof explore --executor`: generated schedules against an executor process over callproof/1, in real
//! time. A known-bad binary is found, and the scenario it writes fails the same check when replayed with
//! `callproof conform --executor` against the same binary and with `callproof run` against the same mutant in
//! process, and passes the reference; the reference binary survives a run; a command that cannot run is a clear
//! error. Schedules are kept short (`--moves`) and few, so the file stays within seconds of real time.

mod process_support;

use process_support::{Ran, TempDir, reference_command, run_callproof_in};

/// The check a run reports as failed, from its `FAIL  `check` after case ...` line.
fn failed_check(ran: &Ran) -> Option<String> {
    let line = ran.stdout.lines().find(|line| line.starts_with("FAIL  `"))?;
    Some(line.trim_start_matches("FAIL  `").split('`').next()?.to_owned())
}

#[test]
fn explore_finds_a_mutant_binary_and_the_written_file_fails_it_again_under_conform_and_run() {
    let dir = TempDir::new();
    // A decoding bug: whether it shows does not depend on timing, so neither does this test.
    let command = reference_command("--store memory --mutant duplicate-keys-last-wins");
    let ran = run_callproof_in(
        &dir.path,
        &["explore", "--executor", &command, "--seed", "8", "--cases", "40", "--moves", "3", "--out", "found"],
    );
    assert_eq!(ran.code, 1, "the mutant is found\n{}\n{}", ran.stdout, ran.stderr);
    let check = failed_check(&ran).unwrap_or_else(|| panic!("no FAIL line:\n{}", ran.stdout));
    assert!(ran.stdout.contains("real time over loopback HTTP"), "{}", ran.stdout);
    assert!(ran.stdout.contains(" schedules/s)"), "the rate is reported:\n{}", ran.stdout);
    assert!(ran.stdout.contains(" to 1 moves)"), "shrunk to the one mangled call:\n{}", ran.stdout);
    let again = format!("explore again: callproof explore --executor {} --seed 8 --cases 40 --moves 3 --out found", {
        callproof_harness::shell::join(std::slice::from_ref(&command))
    });
    assert!(ran.stdout.contains(&again), "the seed is printed with the command that explores again:\n{}", ran.stdout);
    let written = ran.stdout.lines().find_map(|line| line.strip_prefix("wrote ")).expect("a file written");
    assert!(written.starts_with("found/"), "written under --out: {written}");
    assert!(ran.stdout.contains("replay: callproof conform --executor"), "{}", ran.stdout);

    // The file alone reproduces it: against the same binary with conform, against the same mutant in process
    // with run; the reference passes it.
    let conform = run_callproof_in(&dir.path, &["conform", "--executor", &command, "--only", &check, written]);
    assert_eq!(conform.code, 1, "conform fails it\n{}\n{}", conform.stdout, conform.stderr);
    assert!(conform.stderr.contains(&format!("({check})")), "the same check fails: {}", conform.stderr);
    let run = run_callproof_in(
        &dir.path,
        &["run", "--subject", "mutant:duplicate-keys-last-wins", "--only", &check, written],
    );
    assert_eq!(run.code, 1, "run fails it in process\n{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(&check), "{}", run.stdout);
    let reference =
        run_callproof_in(&dir.path, &["conform", "--executor", &reference_command("--store memory"), written]);
    assert_eq!(reference.code, 0, "the reference binary passes it\n{}\n{}", reference.stdout, reference.stderr);
}

#[test]
fn the_reference_binary_survives_a_short_exploration() {
    let dir = TempDir::new();
    let command = reference_command("--store memory");
    let ran = run_callproof_in(
        &dir.path,
        &["explore", "--executor", &command, "--seed", "3", "--cases", "16", "--moves", "4"],
    );
    assert_eq!(ran.code, 0, "the reference failed\n{}\n{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.contains("16 schedules"), "{}", ran.stdout);
    assert!(ran.stdout.contains("no check failed"), "{}", ran.stdout);
    assert!(!dir.path.join("callproof-found").exists(), "nothing is written when nothing fails");
}

#[test]
fn an_executor_that_cannot_run_is_a_clear_error_before_any_schedule() {
    let dir = TempDir::new();
    let missing = run_callproof_in(&dir.path, &["explore", "--executor", "/nonexistent/executor --stdio"]);
    assert_eq!(missing.code, 3, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("callproof explore: cannot start the executor `/nonexistent/executor --stdio`"),
        "{}",
        missing.stderr
    );
    let silent = run_callproof_in(&dir.path, &["explore", "--executor", "sh -c 'echo nope; exit 3'"]);
    assert_eq!(silent.code, 3, "{}", silent.stderr);
    assert!(silent.stderr.contains("`sh -c 'echo nope; exit 3'`"), "the command as given: {}", silent.stderr);
    let empty = run_callproof_in(&dir.path, &["explore", "--executor", ""]);
    assert_eq!(empty.code, 2, "{}", empty.stderr);
    let both = run_callproof_in(&dir.path, &["explore", "--executor", "x", "--subject", "reference"]);
    assert_eq!(both.code, 2, "--subject and --executor exclude each other: {}", both.stderr);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
    assert!(!dir.path.join("callproof-found").exists());
}
