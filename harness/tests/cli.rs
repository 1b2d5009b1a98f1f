//! The `callproof` command line as a user meets it: usage errors print clap's message (and only `conform`
//! adds its JSON line), a reader that closes the pipe early ends the command quietly, `run` is `conform` in
//! process (SHOULD failures are warnings unless `--profile all`), options are spelled one way everywhere, and
//! the output the README quotes is the output `callproof run` prints.

mod process_support;

use callproof_harness::scenario::Scenario;
use process_support::{callproof, repo, run_callproof};
use std::io::Read;
use std::process::{Command, Stdio};

const STORY: &str = "scenarios/idempotency/duplicate_refund_after_lost_response.toml";

/// The lines of `text` with every `12.34s` timing replaced by `#s` and the `[17/60]` count after a status
/// by `[#]`, so runs compare.
fn untimed(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| match (line.find('['), line.find(']')) {
            (Some(open), Some(close)) if open == 6 && close > open => {
                format!("{}[#]{}", &line[..open], &line[close + 1..])
            }
            _ => line.to_owned(),
        })
        .map(|line| {
            line.split(' ')
                .map(|word| {
                    let number = word.strip_suffix('s').is_some_and(|n| n.contains('.') && n.parse::<f64>().is_ok());
                    if number { "#s" } else { word }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn usage_errors_outside_conform_print_clap_s_message_and_no_json_line() {
    let cases: [&[&str]; 8] = [
        &[],
        &["bogus"],
        &["help", "--help"],
        &["run", "--bogus"],
        &["explore", "--seed", "abc"],
        &["explore", "--cases", "0"],
        &["mutants", "--mutant", "nope"],
        &["repro", "idempotency/duplicate_refund_after_lost_response", "--format", "html"],
    ];
    for args in cases {
        let ran = run_callproof(args);
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains("error:") || ran.stderr.contains("Usage:"), "{args:?}: {}", ran.stderr);
        assert!(!ran.stderr.lines().any(|line| line.starts_with('{')), "{args:?} printed a JSON line: {}", ran.stderr);
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
    }
}

#[test]
fn errors_after_parsing_name_their_command_and_only_conform_adds_the_json_line() {
    let ran = run_callproof(&["run", "nope.toml"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr.trim_end(),
        "callproof run: nope.toml: no such file or folder, and no scenario has this id (see `callproof list scenarios`)"
    );
    let ran = run_callproof(&["repro", "no/such_scenario"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.starts_with("callproof repro: no/such_scenario: no such file or folder"), "{}", ran.stderr);
    assert!(!ran.stderr.contains('{'), "{}", ran.stderr);
    let ran = run_callproof(&["conform", "nope.toml", "--executor", "true"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.starts_with("callproof conform: nope.toml: no such file or folder"), "{}", ran.stderr);
    assert_eq!(ran.reason()["reason"], "usage");
    assert!(ran.reason()["message"].as_str().expect("message").contains("no such file or folder"));
}

#[test]
fn subject_and_executor_together_are_a_usage_error() {
    let ran = run_callproof(&[
        "repro",
        "idempotency/duplicate_refund_after_lost_response",
        "--subject",
        "mutant:unknown-reexecuted",
        "--executor",
        "target/debug/callproof-executor --stdio --store memory",
    ]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("'--subject <SUBJECT>' cannot be used with '--executor <COMMAND>'"), "{}", ran.stderr);
}

#[test]
fn a_reader_that_closes_the_pipe_early_ends_the_command_quietly() {
    for args in [&["checks"][..], &["run", "scenarios/auth"][..]] {
        let mut child = Command::new(callproof())
            .args(args)
            .current_dir(repo())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("callproof starts");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 1];
        stdout.read_exact(&mut first).expect("some output");
        drop(stdout);
        let status = child.wait().expect("it ends");
        let mut stderr = String::new();
        child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("stderr");
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn run_warns_on_should_checks_and_profile_all_requires_them() {
    let args = ["run", "--subject", "mutant:no-request-id", STORY];
    let warned = run_callproof(&args);
    assert_eq!(warned.code, 0, "{}{}", warned.stdout, warned.stderr);
    let first = warned.stdout.lines().next().expect("a line");
    assert!(first.starts_with("WARN  [1/1] idempotency/") && first.ends_with("request-id-propagated"), "{first}");
    assert!(warned.stdout.contains("1 scenario: 0 pass, 0 fail, 0 expected-fail, 0 skip, 1 warn"), "{}", warned.stdout);
    let required = run_callproof(&[&args[..], &["--profile", "all"]].concat());
    assert_eq!(required.code, 1, "{}", required.stdout);
    assert!(required.stdout.starts_with("FAIL  [1/1] idempotency/"), "{}", required.stdout);
    assert!(required.stdout.contains("\nFAIL: 1 scenario failed required checks"), "{}", required.stdout);
}

#[test]
fn only_takes_commas_and_check_is_another_name_for_it() {
    let tally_rows = |stdout: &str| -> Vec<String> {
        stdout
            .split("checks against reference:\n")
            .nth(1)
            .expect("a tally")
            .lines()
            .skip(1)
            .take_while(|line| !line.is_empty())
            .map(|line| line.split_whitespace().next().expect("an id").to_owned())
            .collect()
    };
    let commas = run_callproof(&["run", STORY, "--only", "same-key,single-effect"]);
    assert_eq!(commas.code, 0, "{}", commas.stderr);
    assert_eq!(tally_rows(&commas.stdout), ["same-key", "single-effect"], "in the order asked for");
    let alias = run_callproof(&["run", STORY, "--check", "same-key", "--check", "single-effect"]);
    assert_eq!(tally_rows(&alias.stdout), ["same-key", "single-effect"]);
    let unknown = run_callproof(&["run", STORY, "--only", "same-key,bogus"]);
    assert_eq!(unknown.code, 2);
    assert_eq!(unknown.stderr.trim_end(), "callproof run: unknown check `bogus` (see `callproof checks`)");
}

#[test]
fn the_output_the_readme_quotes_is_the_output_callproof_run_prints() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let quoted = |after: &str| -> Vec<String> {
        let block = readme.split(after).nth(1).expect("the command is in the README");
        let text = block.split("```text\n").nth(1).expect("a text block").split("```").next().expect("closed");
        untimed(text).into_iter().filter(|line| line != "...").collect()
    };

    let mutant = run_callproof(&["run", "--subject", "mutant:unknown-reexecuted", STORY]);
    assert_eq!(mutant.code, 1, "{}", mutant.stderr);
    let printed = untimed(&mutant.stdout);
    for line in quoted("run --subject mutant:unknown-reexecuted") {
        assert!(printed.contains(&line), "README quotes a line `run` does not print:\n{line}\n\n{}", mutant.stdout);
    }

    let one = run_callproof(&["run", STORY]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    let shipped = Scenario::discover(&[repo().join("scenarios")]).expect("the shipped scenarios").len();
    let expected: Vec<String> = untimed(&one.stdout)
        .into_iter()
        .filter(|line| line.starts_with("PASS") || line.contains("1 scenario"))
        .map(|line| line.replace("1 scenario: 1 pass", &format!("{shipped} scenarios: {shipped} pass")))
        .map(|line| line.replace("in 1 scenario (", &format!("in {shipped} scenarios (")))
        .collect();
    assert_eq!(quoted("cargo run -p callproof-harness -- run     #"), expected, "README's quick start output");
}

#[test]
fn an_executor_command_is_echoed_as_given_and_a_file_here_named_without_a_slash_gets_a_hint() {
    let ran = run_callproof(&["conform", "auth/missing_scope", "--executor", "sh -c 'echo nope; exit 3'"]);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(ran.stderr.contains("`sh -c 'echo nope; exit 3'`"), "the quotes are kept: {}", ran.stderr);
    let ran = run_callproof(&["conform", "auth/missing_scope", "--executor", "README.md"]);
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(ran.stderr.contains("write `./README.md`"), "{}", ran.stderr);
}

#[test]
fn the_explore_run_the_readme_quotes_is_what_explore_prints_from_a_fresh_folder() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let block = readme.split("cargo run -p callproof-harness -- explore").nth(1).expect("the explore command");
    let quoted = block.split("```text\n").nth(1).expect("a text block").split("```").next().expect("closed");
    let dir = process_support::TempDir::new();
    let args = ["explore", "--subject", "mutant:check-then-act", "--seed", "7", "--cases", "200"];
    let ran = process_support::run_callproof_in(&dir.path, &args);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    for line in quoted.lines().filter(|line| *line != "...") {
        // The rate depends on the machine: compare what was run, not how fast. Whether a burst races the same
        // way over loopback depends on its timing too (a burst of 2 without a hold): compare that it was tried.
        let line = line.split(" in ").next().filter(|_| line.contains("schedules/s")).unwrap_or(line);
        let line = line.split(" fails the same check").next().unwrap_or(line);
        assert!(ran.stdout.contains(line), "README quotes a line explore does not print:\n{line}\n\n{}", ran.stdout);
    }
    let written = ran.stdout.lines().find_map(|line| line.strip_prefix("wrote ")).expect("a file written");
    assert!(dir.path.join(written).is_file(), "written below the folder explore ran in: {written}");
}
