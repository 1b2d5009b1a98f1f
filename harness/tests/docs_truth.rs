//! What the README and the docs claim about the tree holds: every `§` a check or a scenario cites is a section
//! docs/seed.md explains, no install line runs pip outside a virtualenv (PEP 668 refuses it on Debian), and
//! the snapshot folder holds what the README says it holds.

use callproof_harness::{checks, shipped};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// Every `§N`, `§N.M` and `§N case K` in `text`.
fn sections(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices('§') {
        let rest = &text[at + '§'.len_utf8()..];
        let number: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        let number = number.trim_end_matches('.');
        if number.is_empty() {
            continue;
        }
        let after = &rest[number.len()..];
        let case: String = after
            .strip_prefix(" case ")
            .map(|case| case.chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default();
        found.push(if case.is_empty() { format!("§{number}") } else { format!("§{number} case {case}") });
    }
    found
}

#[test]
fn every_section_a_check_or_a_scenario_cites_is_explained_in_docs_seed_md() {
    let seed = read("docs/seed.md");
    let rows: Vec<&str> = seed.lines().filter_map(|line| line.strip_prefix("| ")?.split(" |").next()).collect();
    let mut cited: Vec<(String, String)> = Vec::new();
    for check in checks::all() {
        cited.extend(sections(check.seed_ref).into_iter().map(|section| (section, format!("check {}", check.id))));
    }
    for scenario in shipped::scenarios().expect("shipped") {
        let text = scenario.seed_ref.clone().unwrap_or_default();
        cited.extend(sections(&text).into_iter().map(|section| (section, format!("scenario {}", scenario.name))));
    }
    assert!(cited.len() > 50, "only {} references found", cited.len());
    let missing: Vec<String> = cited
        .iter()
        .filter(|(section, _)| !rows.contains(&section.as_str()))
        .map(|(section, by)| format!("{section} (cited by {by})"))
        .collect();
    assert!(missing.is_empty(), "docs/seed.md has no row for:\n{}", missing.join("\n"));
}

#[test]
fn no_install_line_runs_pip_outside_a_virtualenv() {
    for path in ["README.md", "examples/python/README.md", "docs/conform.md"] {
        let mut in_shell = false;
        for line in read(path).lines() {
            if line.starts_with("```") {
                in_shell = line == "```sh";
                continue;
            }
            if in_shell && line.contains("pip install") {
                assert!(line.contains(".venv/bin/pip install"), "{path}: pip outside a virtualenv (PEP 668): {line}");
            }
        }
    }
}

#[test]
fn the_snapshot_folder_holds_one_timeline_per_hand_written_scenario_as_the_readme_says() {
    let readme = read("README.md");
    assert!(
        readme.contains("one timeline per hand-written scenario (`scenarios/`; not for `found/`"),
        "README's folders table"
    );
    let snapshots: Vec<String> = std::fs::read_dir(repo().join("snapshots/scenarios"))
        .expect("snapshots/scenarios")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|name| name.strip_suffix(".snap")).map(str::to_owned))
        .collect();
    let hand_written: Vec<String> =
        shipped::ids().filter(|id| !id.starts_with("found/")).map(|id| id.replace('/', "__")).collect();
    let mut snapshots = snapshots;
    snapshots.sort();
    assert_eq!(snapshots, hand_written);
}

#[test]
fn section_references_are_read_with_their_case_numbers() {
    assert_eq!(sections("§5.4, §5.3 lease → UNKNOWN; seed §10 case 4."), ["§5.4", "§5.3", "§10 case 4"]);
}
