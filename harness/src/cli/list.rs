//! `callproof list`: what callproof can run, without running it: the scenarios with their tags, the checks
//! with their levels, the known-bad executors with the checks each is meant to trip, and the fault kinds a
//! scenario can arm. `--filter` narrows the scenarios and checks as it would narrow a run.
//!
//! Rule enforced here: every list comes from the registry the commands use (the suite, `checks::all`, the
//! mutant table, the scenario schema's fault kinds), in registry order, so it cannot drift from what runs.

use super::Error;
use super::output::{self, Format};
use super::select::Scenarios;
use callproof_harness::checks::{self, Check};
use callproof_harness::filter::{self, Filter};
use callproof_harness::scenario::Scenario;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 the list was printed; 2 usage error (a path, id or filter that \
                                     names nothing).";

/// The scenario format's schema, where each fault kind is described once.
const SCENARIO_SCHEMA: &str = include_str!("../../../docs/scenario.schema.json");

/// Which list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum What {
    /// Scenarios: id, tags, what each pins.
    Scenarios,
    /// Checks: id, level, rule, seed reference.
    Checks,
    /// Known-bad executors: name, bug, the checks each is meant to trip.
    Mutants,
    /// Fault kinds a scenario step can arm.
    Faults,
}

/// `callproof list [scenarios|checks|mutants|faults...] [--filter EXPR] [--format human|json]`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which lists (default: all four).
    #[arg(value_enum)]
    what: Vec<What>,
    /// Add the scenarios under DIR to the shipped ones (repeatable), as `run --scenarios` does.
    #[arg(long = "scenarios", value_name = "DIR")]
    added: Vec<PathBuf>,
    /// List only what EXPR selects (`path:`, `tag:`, `check:`, `level:`; see `callproof run --help`).
    #[arg(long, short = 'E', value_name = "EXPR")]
    filter: Vec<String>,
    /// How the lists are printed.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Prints the lists.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let what = if args.what.is_empty() {
        vec![What::Scenarios, What::Checks, What::Mutants, What::Faults]
    } else {
        args.what.clone()
    };
    let source = Scenarios { paths: Vec::new(), added: args.added.clone(), filter: args.filter.clone() };
    let filter = source.filter()?;
    let scenarios: Vec<Scenario> =
        if what.contains(&What::Scenarios) || !filter.is_everything() { source.load()? } else { Vec::new() };
    let all = checks::all();
    let scenarios: Vec<&Scenario> =
        scenarios.iter().filter(|scenario| !filter.checks_for(scenario, &all).is_empty()).collect();
    if what.contains(&What::Scenarios) && scenarios.is_empty() {
        return Err(Error::Usage(format!("the filter {filter} selects no scenario")));
    }
    let checks = selected_checks(&filter, &scenarios, &all);
    let mut lists = serde_json::Map::new();
    for one in &what {
        let (key, value) = match one {
            What::Scenarios => ("scenarios", scenarios_json(&scenarios)),
            What::Checks => ("checks", checks_json(&checks)),
            What::Mutants => ("mutants", mutants_json(&checks)),
            What::Faults => ("faults", faults_json()),
        };
        lists.insert(key.to_owned(), value);
    }
    match args.format {
        Format::Json => output::line(&serde_json::to_string_pretty(&Value::Object(lists)).unwrap_or_default()),
        Format::Human => {
            for one in &what {
                output::print(&human(*one, &lists));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The checks some selected scenario is judged by (every selected check without a filter).
fn selected_checks(filter: &Filter, scenarios: &[&Scenario], all: &[Check]) -> Vec<Check> {
    if filter.is_everything() {
        return all.to_vec();
    }
    all.iter()
        .filter(|check| {
            scenarios.iter().any(|scenario| !filter.checks_for(scenario, std::slice::from_ref(check)).is_empty())
        })
        .cloned()
        .collect()
}

fn scenarios_json(scenarios: &[&Scenario]) -> Value {
    let rows: Vec<Value> = scenarios
        .iter()
        .map(|scenario| {
            json!({
                "id": scenario.name,
                "path": scenario.path.display().to_string(),
                "tags": filter::tags(scenario),
                "description": one_line(&scenario.description),
                "seed_ref": scenario.seed_ref,
            })
        })
        .collect();
    Value::Array(rows)
}

/// A description on one line: lines joined by a space, or by nothing after a hyphen that split a word.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
        if !out.is_empty() && !out.ends_with('-') {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

fn checks_json(checks: &[Check]) -> Value {
    let rows: Vec<Value> = checks
        .iter()
        .map(|check| json!({"id": check.id.as_str(), "level": check.level.as_str(), "rule": check.rule, "seed_ref": check.seed_ref}))
        .collect();
    Value::Array(rows)
}

/// The mutants meant to trip one of `checks`, with all the checks each is meant to trip.
fn mutants_json(checks: &[Check]) -> Value {
    let rows: Vec<Value> = callproof_executor::mutants::ALL
        .iter()
        .map(|mutant| (mutant, mutant.trips))
        .filter(|(_, trips)| trips.iter().any(|id| checks.iter().any(|check| check.id.as_str() == *id)))
        .map(|(mutant, trips)| json!({"name": mutant.name, "bug": mutant.bug, "trips": trips}))
        .collect();
    Value::Array(rows)
}

/// Each fault kind and what it does, as the scenario schema describes it (first description of each kind).
fn faults_json() -> Value {
    fn walk(value: &Value, found: &mut Vec<(String, String)>) {
        match value {
            Value::Object(map) => {
                let kind = map.get("properties").and_then(|properties| properties.get("kind")?.get("const")?.as_str());
                if let (Some(kind), Some(description)) = (kind, map.get("description").and_then(Value::as_str))
                    && !found.iter().any(|(known, _)| known == kind)
                {
                    found.push((kind.to_owned(), description.to_owned()));
                }
                map.values().for_each(|inner| walk(inner, found));
            }
            Value::Array(items) => items.iter().for_each(|inner| walk(inner, found)),
            _ => {}
        }
    }
    let schema: Value = serde_json::from_str(SCENARIO_SCHEMA).unwrap_or(Value::Null);
    let mut found = Vec::new();
    walk(&schema, &mut found);
    Value::Array(
        found.into_iter().map(|(kind, description)| json!({"kind": kind, "description": description})).collect(),
    )
}

/// One list as aligned text, under a heading with its count.
fn human(what: What, lists: &serde_json::Map<String, Value>) -> String {
    let (key, columns): (&str, &[&str]) = match what {
        What::Scenarios => ("scenarios", &["id", "tags", "description"]),
        What::Checks => ("checks", &["id", "level", "rule", "seed_ref"]),
        What::Mutants => ("mutants", &["name", "trips", "bug"]),
        What::Faults => ("faults", &["kind", "description"]),
    };
    let rows = lists.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let cell = |row: &Value, column: &str| match &row[column] {
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
        Value::String(text) => text.clone(),
        _ => String::new(),
    };
    let widths: Vec<usize> = columns
        .iter()
        .map(|column| rows.iter().map(|row| cell(row, column).chars().count()).max().unwrap_or(0))
        .collect();
    let mut text = format!("{key} ({}):\n", rows.len());
    for row in &rows {
        let mut line = String::from(" ");
        for (index, column) in columns.iter().enumerate() {
            let value = cell(row, column);
            if index + 1 == columns.len() {
                line.push_str(&format!(" {value}"));
            } else {
                line.push_str(&format!(" {value:<width$}", width = widths[index]));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.push('\n');
    text
}
