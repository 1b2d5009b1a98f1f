//! The documents other implementers read stay true: every shipped scenario fits docs/scenario.schema.json,
//! docs/checks.md lists every check as the registry defines it, and the schema refuses what the loader
//! refuses.

use callproof_harness::checks;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn scenario_schema() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("docs/scenario.schema.json")).expect("read"))
            .expect("docs/scenario.schema.json is JSON");
    jsonschema::draft202012::options().build(&schema).expect("a valid schema")
}

fn toml_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "corpus" && name != "catalog") {
                toml_files(&path, found);
            }
        } else if path.extension().is_some_and(|extension| extension == "toml") {
            found.push(path);
        }
    }
}

#[test]
fn every_shipped_scenario_fits_the_scenario_schema() {
    let validator = scenario_schema();
    let mut files = Vec::new();
    toml_files(&repo().join("scenarios"), &mut files);
    assert!(files.len() >= 40, "only {} scenarios found", files.len());
    let mut failures = Vec::new();
    for file in files {
        let value: toml::Value = toml::from_str(&std::fs::read_to_string(&file).expect("read")).expect("toml");
        let json = serde_json::to_value(value).expect("json");
        for error in validator.iter_errors(&json) {
            failures.push(format!("{}: {} at {}", file.display(), error, error.instance_path().as_str()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_scenario_schema_refuses_typos_the_loader_refuses() {
    let validator = scenario_schema();
    let good = serde_json::json!({"description": "d", "step": [{"action": "wait", "ms": 1}]});
    assert!(validator.is_valid(&good));
    for bad in [
        serde_json::json!({"descripton": "d", "step": [{"action": "wait", "ms": 1}]}),
        serde_json::json!({"description": "d", "step": [{"action": "wait", "ms": 1, "budget": 2}]}),
        serde_json::json!({"description": "d", "step": [{"action": "submit", "tool": "x", "auth": "a", "arguments": "{}",
            "faults": [{"kind": "commit_then_delay", "msx": 3}]}]}),
        serde_json::json!({"description": "d", "step": [{"action": "submit", "tool": "x", "auth": "a", "arguments": "{}",
            "faults": [{"kind": "commit_then_drop", "nht": 2}]}]}),
        serde_json::json!({"description": "d", "step": [{"action": "submit", "tool": "x", "auth": "a", "arguments": "{}",
            "faults": [{"kind": "commit_then_drop", "on": "POST /refund"}]}]}),
        serde_json::json!({"description": "d", "step": [{"action": "submit", "auth": "a", "arguments": "{}"}]}),
        serde_json::json!({"description": "d", "step": [{"action": "submit", "tool": "x", "auth": "a"}]}),
        serde_json::json!({"description": "d", "step": [{"action": "retry", "of": "a", "expect": {"code": "timeout"}}]}),
    ] {
        assert!(!validator.is_valid(&bad), "the schema accepted {bad}");
    }
}

#[test]
fn docs_checks_md_lists_every_check_with_its_level_and_rule() {
    let text = std::fs::read_to_string(repo().join("docs/checks.md")).expect("read docs/checks.md");
    for check in checks::all() {
        let row = format!("| `{}` | {} | {} | {} |", check.id, check.level.as_str(), check.rule, check.seed_ref);
        assert!(text.contains(&row), "docs/checks.md lacks the row:\n{row}");
        assert!(text.contains(&format!("### `{}`", check.id)), "docs/checks.md lacks a section for `{}`", check.id);
    }
}

#[test]
fn docs_checks_md_says_what_every_check_judges_without_the_request_id_header() {
    let text = std::fs::read_to_string(repo().join("docs/checks.md")).expect("read docs/checks.md");
    let section = text
        .split("## Without `X-Request-Id`")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/checks.md has a section `Without X-Request-Id`");
    for check in checks::all() {
        let row = format!("| `{}` | ", check.id);
        assert!(section.contains(&row), "docs/checks.md does not say what `{}` judges without X-Request-Id", check.id);
    }
}

#[test]
fn every_check_id_docs_checks_md_names_is_a_registered_check() {
    let text = std::fs::read_to_string(repo().join("docs/checks.md")).expect("read docs/checks.md");
    let named: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("| `").or_else(|| line.strip_prefix("### `")))
        .filter_map(|rest| rest.split('`').next())
        .collect();
    assert!(named.len() >= 2 * checks::all().len(), "only {} ids found in docs/checks.md", named.len());
    for id in named {
        assert!(checks::CheckId::parse(id).is_ok(), "docs/checks.md names `{id}`, which is no check");
    }
}

#[test]
fn the_fault_section_of_the_scenario_schema_is_generated_from_the_fault_kinds() {
    // Regenerate with CALLPROOF_UPDATE_SCHEMA=1 after adding or changing a fault kind.
    let path = repo().join("docs/scenario.schema.json");
    let mut schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
    let generated = callproof_harness::world::FaultSpec::json_schema();
    if std::env::var_os("CALLPROOF_UPDATE_SCHEMA").is_some() {
        schema["$defs"]["fault"] = generated.clone();
        std::fs::write(&path, serde_json::to_string_pretty(&schema).expect("JSON") + "\n").expect("write");
    }
    assert_eq!(
        schema["$defs"]["fault"], generated,
        "docs/scenario.schema.json's $defs/fault is not what the fault kinds generate: run this test with \
         CALLPROOF_UPDATE_SCHEMA=1 and review the diff"
    );
}

#[test]
fn docs_scenarios_md_has_a_row_for_every_fault_kind() {
    let text = std::fs::read_to_string(repo().join("docs/scenarios.md")).expect("read docs/scenarios.md");
    for name in callproof_harness::world::FaultKind::NAMES {
        assert!(text.contains(&format!("| `{name}` |")), "docs/scenarios.md has no row for the fault `{name}`");
    }
}
