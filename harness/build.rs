//! Embeds the shipped scenarios in the `callproof` binary, so an installed `callproof` runs them from any
//! folder: writes `$OUT_DIR/shipped.rs`, one `(id, path, text)` row per scenario file under `../scenarios`.
//!
//! Rule enforced here: the embedded set is exactly what scenario discovery would find on disk (every `.toml`
//! below `scenarios/` outside its `corpus/` and `catalog/` data folders), sorted by path, so ids do not change
//! between a checkout and an installed binary; any change under `scenarios/` rebuilds it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Folders directly under `scenarios/` that hold data, not scenarios (as `Scenario::discover` skips them).
const NOT_SCENARIOS: [&str; 2] = ["corpus", "catalog"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.join("../scenarios");
    println!("cargo::rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut code = String::from("/// Every shipped scenario: (id, path in the repository, text), sorted by path.\n");
    code.push_str("pub(crate) const FILES: &[(&str, &str, &str)] = &[\n");
    for file in &files {
        let relative = file.strip_prefix(&root).expect("below the root");
        let id = relative.with_extension("").to_string_lossy().replace('\\', "/");
        let absolute = file.canonicalize().expect("a file found by walking exists");
        let _ = writeln!(
            code,
            "    ({id:?}, {:?}, include_str!({:?})),",
            format!("scenarios/{}", relative.to_string_lossy().replace('\\', "/")),
            absolute.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("shipped.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}

fn walk(root: &Path, folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(folder == root && NOT_SCENARIOS.contains(&name.as_str())) {
                walk(root, &path, files);
            }
        } else if path.extension().is_some_and(|extension| extension == "toml") {
            files.push(path);
        }
    }
}
