//! Finding scenario files: the paths a command names, or the shipped `scenarios/` folder.
//!
//! Rule enforced here: scenarios come back sorted by path, each named by its path below the nearest folder
//! called `scenarios` (or the folder given), and nothing is run unless everything named loads. A path that does
//! not exist, a search that finds nothing, and every file that does not load are errors, each said once here
//! for every command.

use super::{Scenario, ScenarioError};
use std::fmt;
use std::path::{Path, PathBuf};

/// Folders under a scenario root that hold data, not scenarios.
const NOT_SCENARIOS: [&str; 2] = ["corpus", "catalog"];

/// Why the named scenarios cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum LoadErrors {
    /// A named path does not exist.
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    /// The paths hold no scenario file.
    #[error("no scenario files found in {}", shown(.0))]
    Empty(Vec<PathBuf>),
    /// Files that do not load, each naming file, line and field.
    #[error("{}", Lines(.0))]
    Invalid(Vec<ScenarioError>),
}

struct Lines<'a>(&'a [ScenarioError]);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

fn shown(paths: &[PathBuf]) -> String {
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}

impl Scenario {
    /// The scenarios under `paths` (files or folders; none means `scenarios/`), sorted by path.
    ///
    /// # Errors
    /// [`LoadErrors`]: a path that does not exist, no scenario file at all, or every file that does not load.
    pub fn discover(paths: &[PathBuf]) -> Result<Vec<Scenario>, LoadErrors> {
        let default = [PathBuf::from("scenarios")];
        let paths = if paths.is_empty() { &default[..] } else { paths };
        if let Some(missing) = paths.iter().find(|path| !path.exists()) {
            return Err(LoadErrors::Missing(missing.clone()));
        }
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                let root =
                    if path.file_name().is_some_and(|name| name == "scenarios") { path.clone() } else { root_of(path) };
                walk(&root, path, &mut files);
            } else {
                files.push((root_of(path), path.clone()));
            }
        }
        files.sort_by(|a, b| a.1.cmp(&b.1));
        files.dedup_by(|a, b| a.1 == b.1);
        if files.is_empty() {
            return Err(LoadErrors::Empty(paths.to_vec()));
        }
        let (loaded, errors): (Vec<_>, Vec<_>) =
            files.iter().map(|(root, file)| Scenario::load(file, root)).partition(Result::is_ok);
        if errors.is_empty() {
            Ok(loaded.into_iter().filter_map(Result::ok).collect())
        } else {
            Err(LoadErrors::Invalid(errors.into_iter().filter_map(Result::err).collect()))
        }
    }
}

fn walk(root: &Path, folder: &Path, files: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !(folder == root && NOT_SCENARIOS.contains(&name.as_str())) {
                walk(root, &path, files);
            }
        } else if path.extension().is_some_and(|extension| extension == "toml") {
            files.push((root.to_owned(), path));
        }
    }
}

fn root_of(file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .find(|folder| folder.file_name().is_some_and(|name| name == "scenarios"))
        .or_else(|| file.parent())
        .map(Path::to_owned)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios")
    }

    #[test]
    fn scenarios_are_found_sorted_and_named_below_the_scenarios_folder() {
        let all = Scenario::discover(&[shipped()]).expect("the shipped scenarios load");
        assert!(all.windows(2).all(|pair| pair[0].path < pair[1].path), "sorted by path");
        assert!(all.iter().all(|scenario| !scenario.name.starts_with("corpus/") && !scenario.name.ends_with(".toml")));
        let one = shipped().join("auth/missing_scope.toml");
        let found = Scenario::discover(&[one.clone(), shipped().join("auth")]).expect("loads");
        assert_eq!(found.iter().filter(|scenario| scenario.path == one).count(), 1, "named twice, found once");
        assert!(found.iter().all(|scenario| scenario.name.starts_with("auth/")));
    }

    #[test]
    fn a_missing_path_and_a_folder_without_scenarios_are_errors_that_say_so() {
        let error = Scenario::discover(&[PathBuf::from("no/such/folder")]).expect_err("missing");
        assert_eq!(error.to_string(), "no/such/folder does not exist");
        let empty = shipped().join("catalog");
        let error = Scenario::discover(std::slice::from_ref(&empty)).expect_err("no scenarios in catalog/");
        assert!(matches!(&error, LoadErrors::Empty(paths) if paths == std::slice::from_ref(&empty)), "{error}");
        assert!(error.to_string().starts_with("no scenario files found in "), "{error}");
    }
}
