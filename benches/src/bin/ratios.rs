//! Prints the ratio table of one benchmark run: `ratios DIR`, where DIR holds `criterion/` (criterion's output
//! of the decode, idempotency and end_to_end benches), `python-*.json` (runs of the Python baseline) and
//! `peers-*.json` (runs of the peers: `benches/python/peers.py`, `benches/node/peers.mjs`).
//! `benches/compare.sh` runs everything and then this; the table is Markdown, ready for BENCHMARKS.md.
//!
//! The run's conditions come first: the load average before and after (`run.json`, written by compare.sh); a run
//! taken above [`NOISY_LOAD_PER_CORE`] is marked noisy, because the Rust and Python sides then share the cores
//! with other work in proportions no ratio can undo. Every ratio divides two medians of the same run. When the Python baseline ran more than once, its fastest
//! median is used, which only ever makes the Rust side look slower; the same holds for each peer's runs. What the
//! strict decode does with the acceptance payloads is computed here, by running it.

use callproof_benches::{acceptance_cases, cases, noop_tools};
use callproof_executor::ToolCall;
use callproof_executor::decode::{Limits, decode};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Decode cases, in table order, with whether they are accepted.
const CASES: [(&str, bool); 7] = [
    ("refund_valid", true),
    ("refund_invalid_json", false),
    ("refund_duplicate_key", false),
    ("refund_string_for_integer", false),
    ("refund_unknown_field", false),
    ("order_4k", true),
    ("order_64k", true),
];

/// Targets of issue 7.
const PYTHON_OVER_DECODE_KEY: f64 = 60.0;
const DECODE_KEY_OVER_FLOOR: f64 = 1.2;
const STORE_OPS_PER_SECOND: f64 = 2_000_000.0;
const TWO_THREAD_SCALING: f64 = 1.6;

/// 1-minute load average per core above which a run is marked noisy.
const NOISY_LOAD_PER_CORE: f64 = 1.5;

/// The peers, in table order (the keys of `peers` in their JSON files).
const PEERS: [&str; 3] = ["pydantic", "ajv", "zod"];

struct Run {
    criterion: PathBuf,
    python: Vec<Value>,
    peers: Vec<Value>,
    paired: Value,
    conditions: Value,
}

impl Run {
    fn load(dir: &Path) -> Run {
        let mut python = Vec::new();
        let mut peers = Vec::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut files: Vec<PathBuf> = entries.filter_map(|entry| Some(entry.ok()?.path())).collect();
            files.sort();
            for file in files {
                let name = file.file_name().and_then(|name| name.to_str()).unwrap_or_default();
                let runs = match name {
                    _ if !name.ends_with(".json") => continue,
                    _ if name.starts_with("python") => &mut python,
                    _ if name.starts_with("peers") => &mut peers,
                    _ => continue,
                };
                let text = std::fs::read_to_string(&file).unwrap_or_default();
                runs.extend(serde_json::from_str::<Value>(&text).ok());
            }
        }
        let paired = std::fs::read_to_string(dir.join("paired.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        let conditions = std::fs::read_to_string(dir.join("run.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(Value::Null);
        Run { criterion: dir.join("criterion"), python, peers, paired, conditions }
    }

    /// Median ns per iteration of criterion bench `group/name`.
    fn median(&self, group: &str, name: &str) -> Option<f64> {
        let file = self.criterion.join(group).join(name).join("new").join("estimates.json");
        let estimates: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
        estimates["median"]["point_estimate"].as_f64()
    }

    /// `field` of the paired run of `case` (`floor_ns`, `decode_ns`, `decode_key_ns`).
    fn paired(&self, case: &str, field: &str) -> Option<f64> {
        self.paired[case][field].as_f64()
    }

    /// The fastest Python median of `case`, in ns.
    fn python(&self, case: &str) -> Option<f64> {
        self.python.iter().filter_map(|run| run["cases"][case]["median_ns"].as_f64()).reduce(f64::min)
    }

    /// `field` of `peer`'s `case` in each run that has it.
    fn peer<'a>(&'a self, peer: &'a str, case: &'a str, field: &'a str) -> impl Iterator<Item = &'a Value> {
        self.peers.iter().map(move |run| &run["peers"][peer]["cases"][case][field]).filter(|value| !value.is_null())
    }

    /// The fastest median of `peer` on `case`, in ns.
    fn peer_median(&self, peer: &str, case: &str) -> Option<f64> {
        self.peer(peer, case, "median_ns").filter_map(Value::as_f64).reduce(f64::min)
    }

    fn python_outcome(&self, case: &str) -> String {
        self.python.iter().find_map(|run| run["cases"][case]["outcome"].as_str().map(str::to_owned)).unwrap_or_default()
    }
}

fn time(ns: Option<f64>) -> String {
    match ns {
        None => "–".to_owned(),
        Some(ns) if ns < 1_000.0 => format!("{ns:.0} ns"),
        Some(ns) if ns < 1_000_000.0 => format!("{:.2} µs", ns / 1e3),
        Some(ns) => format!("{:.2} ms", ns / 1e6),
    }
}

fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> Option<f64> {
    Some(numerator? / denominator?)
}

fn times(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |value| format!("{value:.2}×"))
}

fn verdict(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "MISSED",
        None => "not measured",
    }
}

/// Whether the run was taken above [`NOISY_LOAD_PER_CORE`] (before or after); `None` without `run.json`.
fn noisy(conditions: &Value) -> Option<bool> {
    let cores = conditions["cores"].as_f64().filter(|cores| *cores > 0.0)?;
    let before = conditions["load_before"].as_f64()?;
    let after = conditions["load_after"].as_f64()?;
    Some(before.max(after) / cores > NOISY_LOAD_PER_CORE)
}

/// The run's conditions, one line: load before and after, noisy or not, wall time.
fn conditions_line(conditions: &Value, out: &mut String) {
    let Some(noisy) = noisy(conditions) else {
        out.push_str("Load average not recorded (no run.json): treat this run as noisy.\n\n");
        return;
    };
    let verdict = if noisy {
        format!(
            "**NOISY** (above {NOISY_LOAD_PER_CORE} per core): other work shared the cores; read every time as noisy"
        )
    } else {
        format!("quiet (at most {NOISY_LOAD_PER_CORE} per core)")
    };
    let _ = writeln!(
        out,
        "Load average (1 min) {} before the first timed step, {} at the end, on {} cores: {verdict}. Wall time {} s \
         ({} mode, target/release {} at the start).\n",
        conditions["load_before"],
        conditions["load_after"],
        conditions["cores"],
        conditions["wall_s"],
        if conditions["quick"].as_bool() == Some(true) { "--quick" } else { "full" },
        if conditions["release_built"].as_bool() == Some(true) { "built" } else { "not built" },
    );
}

fn decode_table(run: &Run, out: &mut String) {
    out.push_str("### Decode (median per call)\n\n");
    out.push_str(
        "| case | bytes | Python | serde_json parse | + is_valid | floor | strict decode | decode + key | Python ÷ decode + key |\n",
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (case, valid) in CASES {
        let bytes = run.python.iter().find_map(|run| run["cases"][case]["bytes"].as_u64());
        let python = run.python(case);
        let decode = run.median("decode", case);
        let (parse, is_valid, floor, full) = if valid {
            (
                run.median("serde_json_parse", case),
                run.median("parse_is_valid", case),
                run.median("floor", case),
                run.median("decode_key", case),
            )
        } else {
            (None, None, None, None)
        };
        let python_note = match run.python_outcome(case).as_str() {
            "ok" if !valid => " (accepts it)",
            _ => "",
        };
        let python_ratio = if valid { ratio(python, full) } else { ratio(python, decode) };
        let _ = writeln!(
            out,
            "| {case} | {} | {}{python_note} | {} | {} | {} | {} | {} | {} |",
            bytes.map_or("–".to_owned(), |bytes| bytes.to_string()),
            time(python),
            time(parse),
            time(is_valid),
            time(floor),
            time(decode),
            time(full),
            times(python_ratio),
        );
    }
    out.push_str(
        "\nFor the rejected cases, the Python ratio is against the strict decode alone (no key is derived). Ratios to \
         the floor are in the paired table only: these medians were taken minutes apart.\n\n",
    );
    out.push_str("#### Paired run (floor, decode, decode + key alternating batch by batch; medians per call)\n\n");
    out.push_str(
        "| case | floor | strict decode | ÷ floor | decode + key | ÷ floor |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for (case, valid) in CASES {
        if !valid {
            continue;
        }
        let floor = run.paired(case, "floor_ns");
        let decode = run.paired(case, "decode_ns");
        let full = run.paired(case, "decode_key_ns");
        beside_row(out, case, floor, &[decode, full]);
    }
    out.push('\n');
}

/// A table row: `name`, the time `base`, then each of `others` with its ratio to `base`.
fn beside_row(out: &mut String, name: &str, base: Option<f64>, others: &[Option<f64>]) {
    let mut cells = vec![name.to_owned(), time(base)];
    for &other in others {
        cells.push(time(other));
        cells.push(times(ratio(other, base)));
    }
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// What the strict decode does with a payload: `ok` with the arguments hash, or the refusal's code.
fn strict_outcome(tool: &str, arguments: &str) -> Result<String, String> {
    let call = ToolCall::raw("call_1", tool, arguments.to_owned());
    match decode(&call, &noop_tools(), &Limits::default()) {
        Ok(decoded) => Ok(decoded.arguments_hash.into()),
        Err(error) => Err(error.code().as_str().to_owned()),
    }
}

fn peers_table(run: &Run, out: &mut String) {
    if run.peers.is_empty() {
        return;
    }
    out.push_str(
        "### Peers (median per call; peer ÷ ours: how many times faster decode + key is)

",
    );
    let mut versions = Vec::new();
    for peer in PEERS {
        if let Some(found) = run.peers.iter().find(|found| found["peers"][peer].is_object()) {
            let version = found["peers"][peer]["version"].as_str().unwrap_or(peer);
            let runs = run.peer(peer, "refund_valid", "median_ns").count();
            versions
                .push(format!("{version} on {} (fastest of {runs} runs)", found["runtime"].as_str().unwrap_or("?")));
        }
    }
    let _ = writeln!(out, "{}.\n", versions.join(", "));
    out.push_str("| case | decode + key | pydantic | ÷ ours | ajv | ÷ ours | zod | ÷ ours |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    let mut hashes_agree = true;
    for case in cases() {
        let ours = if case.valid { run.median("decode_key", case.name) } else { run.median("decode", case.name) };
        let strict = strict_outcome(case.tool, &case.arguments);
        let mut cells = vec![case.name.to_owned(), time(ours)];
        for peer in PEERS {
            let median = run.peer_median(peer, case.name);
            let accepted = run.peer(peer, case.name, "outcome").any(|outcome| outcome == "ok");
            let note = if accepted && strict.is_err() { " (accepts it)" } else { "" };
            if let Ok(hash) = &strict {
                hashes_agree &= run.peer(peer, case.name, "hash").all(|theirs| theirs == hash.as_str());
            }
            cells.push(format!("{}{note}", time(median)));
            cells.push(times(ratio(median, ours)));
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(
        out,
        "\nRejected cases: ours is the strict decode alone. Every peer does decode + key's work on what it accepts \
         (canonical form, its SHA-256, the key's SHA-256); its arguments hash {} the strict decode's on the valid \
         cases.\n",
        if hashes_agree { "equals" } else { "DIFFERS FROM" }
    );
    out.push_str("#### What each peer does with what the strict decode refuses\n\n");
    out.push_str("| payload | strict decode | pydantic | ajv | zod |\n|---|---|---|---|---|\n");
    for case in acceptance_cases() {
        let strict = strict_outcome(case.tool, &case.arguments);
        let strict = strict.err().map_or("accepts".to_owned(), |code| format!("refuses ({code})"));
        let mut cells = vec![format!("`{}`", case.arguments), strict];
        for peer in PEERS {
            let outcomes: Vec<&Value> = run.peer(peer, case.name, "outcome").collect();
            cells.push(match outcomes.first().and_then(|outcome| outcome.as_str()) {
                None => "–".to_owned(),
                Some("ok") => "**accepts**".to_owned(),
                Some(_) => "refuses".to_owned(),
            });
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// The schema refusals beside ajv stopping at the first mismatch (the peers table's column) and ajv doing a
/// refusal's whole work (`ajv_details`: every error with path, keyword and message, and the summary text): what the
/// strict decode's refusal, which lists every violation, costs against the same work.
fn refusal_table(run: &Run, out: &mut String) {
    if run.peer_median("ajv_details", "refund_string_for_integer").is_none() {
        return;
    }
    out.push_str(
        "#### Schema refusals beside ajv doing the same work (median per call; ajv ÷ ours)\n\n\
         | case | strict decode (every violation, with details) | ajv, first mismatch, nothing read | ÷ ours | \
         ajv, every error with its message | ÷ ours |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for case in cases() {
        if strict_outcome(case.tool, &case.arguments).err().as_deref() != Some("schema_violation") {
            continue;
        }
        let ours = run.median("decode", case.name);
        let first = run.peer_median("ajv", case.name);
        let details = run.peer_median("ajv_details", case.name);
        beside_row(out, case.name, ours, &[first, details]);
    }
    out.push('\n');
}

/// Operations per second of a store bench (its throughput is in elements per iteration).
fn ops_per_second(run: &Run, name: &str, elements: f64) -> Option<f64> {
    run.median("claim_complete", name).map(|ns| elements * 1e9 / ns)
}

fn millions(value: Option<f64>) -> String {
    value.map_or("–".to_owned(), |value| format!("{:.2} M/s", value / 1e6))
}

fn store_table(run: &Run, out: &mut String) {
    out.push_str("### In-memory idempotency store (claim + complete)\n\n");
    out.push_str("| store | 1 thread | 2 threads, disjoint keys | scaling | 2 threads, same keys |\n");
    out.push_str("|---|---:|---:|---:|---:|\n");
    let stores = [
        ("memory_store", "MemoryStore"),
        ("mutex_hashmap", "Mutex<HashMap> (baseline)"),
        ("dashmap", "DashMap (peer)"),
        ("scc", "scc::HashMap (peer)"),
    ];
    for (store, label) in stores {
        let one = ops_per_second(run, &format!("{store}_1_thread"), 1.0);
        let two = ops_per_second(run, &format!("{store}_2_threads_disjoint"), 2.0);
        let same = ops_per_second(run, &format!("{store}_2_threads_same_keys"), 1.0);
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {} |",
            millions(one),
            millions(two),
            times(ratio(two, one)),
            millions(same)
        );
    }
    let one = ops_per_second(run, "memory_store_1_thread", 1.0);
    let two = ops_per_second(run, "memory_store_2_threads_disjoint", 2.0);
    let private = ops_per_second(run, "memory_store_2_threads_private", 2.0);
    let _ = writeln!(
        out,
        "| MemoryStore, a store per thread (ceiling: nothing shared) | {} | {} | {} | – |",
        millions(one),
        millions(private),
        times(ratio(private, one))
    );
    // MemoryStore ÷ another store on `threads` threads (disjoint keys).
    let over = |store: &str, threads: &str, elements: f64, ours: Option<f64>| {
        times(ratio(ours, ops_per_second(run, &format!("{store}_{threads}"), elements)))
    };
    let _ = writeln!(
        out,
        "\nMemoryStore ÷ baseline: {} on 1 thread, {} on 2 threads.",
        over("mutex_hashmap", "1_thread", 1.0, one),
        over("mutex_hashmap", "2_threads_disjoint", 2.0, two)
    );
    let _ = writeln!(
        out,
        "MemoryStore ÷ peer on 2 threads: {} DashMap, {} scc::HashMap.\n",
        over("dashmap", "2_threads_disjoint", 2.0, two),
        over("scc", "2_threads_disjoint", 2.0, two)
    );
}

fn end_to_end_table(run: &Run, out: &mut String) {
    out.push_str("### Executor::execute, refund payload (median per call)\n\n");
    out.push_str("| path | median | ÷ decode + key |\n|---|---:|---:|\n");
    let full = run.median("decode_key", "refund_valid");
    for (name, label) in [
        ("noop_tool", "no-op tool, in process"),
        ("replay", "replay of a settled call"),
        ("wiremock", "conformance app over HTTP (wiremock)"),
    ] {
        let median = run.median("execute", name);
        let _ = writeln!(out, "| {label} | {} | {} |", time(median), times(ratio(median, full)));
    }
    out.push('\n');
}

fn targets(run: &Run, out: &mut String) {
    let full = run.median("decode_key", "refund_valid");
    let python = ratio(run.python("refund_valid"), full);
    let floor = ratio(run.paired("refund_valid", "decode_key_ns"), run.paired("refund_valid", "floor_ns"));
    let one = ops_per_second(run, "memory_store_1_thread", 1.0);
    let scaling = ratio(ops_per_second(run, "memory_store_2_threads_disjoint", 2.0), one);
    let ceiling = ratio(ops_per_second(run, "memory_store_2_threads_private", 2.0), one);
    let heading = if noisy(&run.conditions) == Some(false) { "" } else { ", NOISY run" };
    let _ = write!(
        out,
        "### Targets (refund payload; store on one and two threads{heading})\n\n| target | measured | |\n|---|---:|---|\n"
    );
    let rows = [
        (
            format!("decode + key ≥ {PYTHON_OVER_DECODE_KEY}× faster than Python"),
            times(python),
            python.map(|r| r >= PYTHON_OVER_DECODE_KEY),
        ),
        (
            format!("decode + key ≤ {DECODE_KEY_OVER_FLOOR}× the floor (paired)"),
            times(floor),
            floor.map(|r| r <= DECODE_KEY_OVER_FLOOR),
        ),
        (
            "store ≥ 2 M claim + complete per second, 1 thread".to_owned(),
            millions(one),
            one.map(|r| r >= STORE_OPS_PER_SECOND),
        ),
        (
            format!("store on 2 threads (disjoint keys) ≥ {TWO_THREAD_SCALING}× 1 thread"),
            format!("{} (ceiling {})", times(scaling), times(ceiling)),
            scaling.map(|r| r >= TWO_THREAD_SCALING),
        ),
    ];
    let slowest_peer = PEERS
        .iter()
        .flat_map(|peer| {
            cases()
                .into_iter()
                .filter(|case| case.valid)
                .map(|case| ratio(run.peer_median(peer, case.name), run.median("decode_key", case.name)))
        })
        .collect::<Option<Vec<f64>>>()
        .and_then(|ratios| ratios.into_iter().reduce(f64::min));
    let rows = rows.into_iter().chain([(
        "decode + key faster than pydantic, ajv and zod on every valid payload (the closest peer)".to_owned(),
        times(slowest_peer),
        slowest_peer.map(|r| r > 1.0),
    )]);
    for (target, measured, met) in rows {
        let _ = writeln!(out, "| {target} | {measured} | {} |", verdict(met));
    }
    if let Some(note) = scaling_note(scaling, ceiling) {
        let _ = writeln!(out, "\n{note}");
    }
    let floor_over_python = ratio(run.python("refund_valid"), run.median("floor", "refund_valid"));
    let _ = writeln!(
        out,
        "\nFor scale: the hand-assembled floor itself is {} faster than Python on the refund payload.",
        times(floor_over_python)
    );
    out.push('\n');
}

/// What the two-thread row cannot say in this run, judged against its ceiling (two threads with a store each,
/// nothing shared): a ceiling under the target means the machine did not give the second core, and a shared
/// store above its own ceiling means the cores' share changed within the run. Either way the verdict is luck.
fn scaling_note(scaling: Option<f64>, ceiling: Option<f64>) -> Option<String> {
    let (scaling, ceiling) = (scaling?, ceiling?);
    if ceiling < TWO_THREAD_SCALING {
        Some(format!(
            "Two threads: the ceiling (a store per thread, nothing shared) scaled only {ceiling:.2}×, under the \
             {TWO_THREAD_SCALING}× target: this run's second core did not give it, so the store's row measures the \
             machine, not the store."
        ))
    } else if scaling > ceiling {
        Some(format!(
            "Two threads: the shared store ({scaling:.2}×) scaled above its own ceiling ({ceiling:.2}×), which \
             nothing shared should beat: the cores' share changed during the run, so read the row as noise."
        ))
    } else {
        None
    }
}

fn main() {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: ratios DIR   (DIR holds criterion/ and python-*.json; see benches/compare.sh)");
        std::process::exit(2);
    };
    let run = Run::load(&dir);
    let mut out = String::new();
    conditions_line(&run.conditions, &mut out);
    if let Some(python) = run.python.first() {
        let _ = writeln!(
            out,
            "Python {} with jsonschema {}; Python's fastest of {} runs.\n",
            python["python"].as_str().unwrap_or("?"),
            python["jsonschema"].as_str().unwrap_or("?"),
            run.python.len()
        );
    }
    targets(&run, &mut out);
    decode_table(&run, &mut out);
    peers_table(&run, &mut out);
    refusal_table(&run, &mut out);
    store_table(&run, &mut out);
    end_to_end_table(&run, &mut out);
    print!("{out}");
    let _ = std::fs::write(dir.join("table.md"), &out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A run with nothing but its criterion folder.
    fn empty_run(criterion: PathBuf) -> Run {
        Run { criterion, python: Vec::new(), peers: Vec::new(), paired: Value::Null, conditions: Value::Null }
    }

    #[test]
    fn a_run_above_one_and_a_half_load_per_core_is_noisy() {
        let run = |before: f64, after: f64| json!({"cores": 2, "load_before": before, "load_after": after});
        assert_eq!(noisy(&run(1.1, 2.9)), Some(false));
        assert_eq!(noisy(&run(3.2, 1.0)), Some(true));
        assert_eq!(noisy(&run(1.0, 3.1)), Some(true));
        assert_eq!(noisy(&Value::Null), None);
    }

    #[test]
    fn a_two_thread_row_that_a_ceiling_cannot_back_is_called_out() {
        assert_eq!(scaling_note(Some(1.5), Some(1.8)), None, "under the target with room: a plain miss");
        assert_eq!(scaling_note(Some(1.7), Some(1.8)), None, "met below its ceiling: a plain pass");
        let starved = scaling_note(Some(1.2), Some(1.3)).expect("a ceiling under the target");
        assert!(starved.contains("only 1.30×"), "{starved}");
        let above = scaling_note(Some(1.83), Some(1.61)).expect("above its ceiling");
        assert!(above.contains("above its own ceiling (1.61×)"), "{above}");
        assert_eq!(scaling_note(None, Some(1.8)), None);
    }

    #[test]
    fn the_refusal_table_lists_the_schema_refusals_once_ajv_details_ran() {
        let mut run = empty_run(PathBuf::from("/nonexistent"));
        let mut out = String::new();
        refusal_table(&run, &mut out);
        assert_eq!(out, "", "no ajv_details, no table");
        run.peers.push(json!({"peers": {
            "ajv": {"cases": {"refund_string_for_integer": {"median_ns": 400.0}}},
            "ajv_details": {"cases": {"refund_string_for_integer": {"median_ns": 900.0},
                "refund_unknown_field": {"median_ns": 950.0}}}
        }}));
        refusal_table(&run, &mut out);
        assert!(out.contains("| refund_string_for_integer | – | 400 ns | – | 900 ns | – |"), "{out}");
        assert!(out.contains("| refund_unknown_field | – | – | – | 950 ns | – |"), "{out}");
        for other in ["refund_valid", "refund_invalid_json", "refund_duplicate_key", "order_4k"] {
            assert!(!out.contains(other), "{other} is no schema refusal: {out}");
        }
    }

    #[test]
    fn the_store_table_sets_the_peers_beside_the_store() {
        let criterion = std::env::temp_dir().join(format!("callproof-ratios-store-{}", std::process::id()));
        // Median ns per iteration; a two-thread row does two operations per iteration.
        for (name, ns) in [
            ("memory_store_1_thread", 100.0),
            ("memory_store_2_threads_disjoint", 250.0),
            ("mutex_hashmap_1_thread", 200.0),
            ("dashmap_1_thread", 200.0),
            ("dashmap_2_threads_disjoint", 500.0),
            ("scc_2_threads_disjoint", 1000.0),
            ("memory_store_2_threads_private", 125.0),
        ] {
            let dir = criterion.join("claim_complete").join(name).join("new");
            std::fs::create_dir_all(&dir).expect("temp dir");
            let estimates = json!({"median": {"point_estimate": ns}}).to_string();
            std::fs::write(dir.join("estimates.json"), estimates).expect("estimates");
        }
        let run = empty_run(criterion.clone());
        let mut out = String::new();
        store_table(&run, &mut out);
        let _ = std::fs::remove_dir_all(&criterion);
        assert!(out.contains("| MemoryStore | 10.00 M/s | 8.00 M/s | 0.80× |"), "{out}");
        assert!(out.contains("| DashMap (peer) | 5.00 M/s | 4.00 M/s | 0.80× |"), "{out}");
        assert!(out.contains("| scc::HashMap (peer) | – | 2.00 M/s | – |"), "{out}");
        assert!(out.contains("ceiling: nothing shared) | 10.00 M/s | 16.00 M/s | 1.60×"), "{out}");
        assert!(out.contains("MemoryStore ÷ peer on 2 threads: 2.00× DashMap, 4.00× scc::HashMap."), "{out}");
    }

    #[test]
    fn the_conditions_line_says_noisy_or_quiet() {
        let mut out = String::new();
        let run = json!({"cores": 2, "load_before": 4.5, "load_after": 2.9, "wall_s": 300, "quick": true,
            "release_built": true});
        conditions_line(&run, &mut out);
        assert!(out.contains("**NOISY**") && out.contains("--quick mode, target/release built"), "{out}");
        out.clear();
        conditions_line(&json!({"cores": 2, "load_before": 1.2, "load_after": 1.1}), &mut out);
        assert!(out.contains("quiet"), "{out}");
    }
}
