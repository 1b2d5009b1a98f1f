//! The scenarios shipped with callproof, embedded in the binary at build time (`harness/build.rs`), so an
//! installed `callproof` runs the whole suite from any folder, without a checkout.
//!
//! Rule enforced here: an embedded scenario has the id and the path it has in the repository
//! (`idempotency/duplicate_refund_after_lost_response`, `scenarios/idempotency/...toml`), and loads through the
//! same parser and checks as a file on disk, so reports, baselines and snapshots read the same either way.

use crate::Error;
use crate::scenario::{LoadErrors, Scenario, ScenarioError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// Every shipped scenario, sorted by path.
///
/// # Errors
/// [`LoadErrors::Invalid`] when an embedded file does not load (a broken checkout: the tests catch it first).
pub fn scenarios() -> Result<Vec<Scenario>, LoadErrors> {
    let (loaded, errors): (Vec<_>, Vec<_>) =
        FILES.iter().map(|(id, path, text)| load(id, path, text)).partition(Result::is_ok);
    if errors.is_empty() {
        Ok(loaded.into_iter().filter_map(Result::ok).collect())
    } else {
        Err(LoadErrors::Invalid(errors.into_iter().filter_map(Result::err).collect()))
    }
}

/// The text of the shipped scenario `id`, if there is one.
pub fn text(id: &str) -> Option<&'static str> {
    FILES.iter().find(|(name, _, _)| *name == id).map(|(_, _, text)| *text)
}

/// The ids of every shipped scenario, sorted.
pub fn ids() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(id, _, _)| *id)
}

/// The suite a command runs: the shipped scenarios plus those under each of `added` (a scenario with the id
/// of a shipped one replaces it), narrowed to `named` when any are given. Each of `named` is a file or folder
/// on disk (exactly those files are run, as found there) or, when no such path exists, a scenario id or a
/// folder of ids in the suite (`auth`, `idempotency/crash_after_commit`).
///
/// # Errors
/// [`Error::Scenarios`] when a file does not load; [`Error::Usage`] for a name that is neither a path nor an
/// id of the suite.
pub fn select(named: &[PathBuf], added: &[PathBuf]) -> Result<Vec<Scenario>, Error> {
    let mut suite: BTreeMap<String, Scenario> =
        scenarios()?.into_iter().map(|scenario| (scenario.name.clone(), scenario)).collect();
    if !added.is_empty() {
        for scenario in Scenario::discover(added)? {
            suite.insert(scenario.name.clone(), scenario);
        }
    }
    if named.is_empty() {
        return Ok(suite.into_values().collect());
    }
    let mut chosen: BTreeMap<PathBuf, Scenario> = BTreeMap::new();
    let on_disk: Vec<PathBuf> = named.iter().filter(|path| path.exists()).cloned().collect();
    if !on_disk.is_empty() {
        chosen.extend(Scenario::discover(&on_disk)?.into_iter().map(|scenario| (scenario.path.clone(), scenario)));
    }
    for name in named.iter().filter(|path| !path.exists()) {
        let found = by_id(&suite, name);
        if found.is_empty() {
            return Err(Error::Usage(format!(
                "{}: no such file or folder, and no scenario has this id (see `callproof list scenarios`)",
                name.display()
            )));
        }
        chosen.extend(found.into_iter().map(|scenario| (scenario.path.clone(), scenario.clone())));
    }
    let mut chosen: Vec<Scenario> = chosen.into_values().collect();
    chosen.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.path.cmp(&b.path)));
    Ok(chosen)
}

/// The scenarios of `suite` that `name` names: the id itself, or every id below it as a folder.
fn by_id<'a>(suite: &'a BTreeMap<String, Scenario>, name: &Path) -> Vec<&'a Scenario> {
    let text = name.to_string_lossy().replace('\\', "/");
    let id = text.trim_end_matches('/');
    let id = id.strip_prefix("scenarios/").unwrap_or(id);
    let id = id.strip_suffix(".toml").unwrap_or(id);
    suite
        .values()
        .filter(|scenario| {
            scenario.name == id || scenario.name.strip_prefix(id).is_some_and(|rest| rest.starts_with('/'))
        })
        .collect()
}

fn load(id: &str, path: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let mut scenario =
        Scenario::parse(text).map_err(|source| ScenarioError::Parse { path: path.to_owned(), source })?;
    scenario.path = PathBuf::from(path);
    scenario.name = id.to_owned();
    Ok(scenario)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_scenarios_are_the_files_discovery_finds_on_disk_with_the_same_ids() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
        let on_disk = Scenario::discover(&[root]).expect("the shipped scenarios load from disk");
        let embedded = scenarios().expect("the embedded scenarios load");
        let names = |scenarios: &[Scenario]| scenarios.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&embedded), names(&on_disk));
        assert!(embedded.iter().any(|s| s.name == "idempotency/duplicate_refund_after_lost_response"));
        for scenario in &embedded {
            let path = scenario.path.to_string_lossy();
            assert_eq!(path, format!("scenarios/{}.toml", scenario.name), "the path is the repository's");
        }
    }

    #[test]
    fn an_embedded_scenario_is_found_by_id_and_an_unknown_id_is_not() {
        let found = text("auth/missing_scope").expect("shipped");
        assert!(found.contains("[[step]]"));
        assert!(text("auth/nope").is_none());
        assert!(ids().count() >= 60);
    }

    #[test]
    fn names_that_are_not_paths_select_shipped_ids_or_folders_of_them() {
        let auth = select(&[PathBuf::from("auth")], &[]).expect("a folder of ids");
        assert!(auth.len() >= 5 && auth.iter().all(|scenario| scenario.name.starts_with("auth/")));
        let one =
            select(&[PathBuf::from("scenarios/auth/missing_scope.toml"), PathBuf::from("auth/missing_scope")], &[]);
        let names: Vec<String> = one.expect("an id").into_iter().map(|scenario| scenario.name).collect();
        assert_eq!(names, ["auth/missing_scope"], "a file path that does not exist here is read as its id");
        assert_eq!(select(&[], &[]).expect("all").len(), ids().count());
        let error = select(&[PathBuf::from("nope/x")], &[]).expect_err("unknown");
        assert!(
            error.to_string().starts_with("nope/x: no such file or folder, and no scenario has this id"),
            "{error}"
        );
    }

    #[test]
    fn added_scenarios_join_the_shipped_ones_and_replace_those_with_the_same_id() {
        let root = std::env::temp_dir().join(format!("callproof-shipped-{}", std::process::id())).join("scenarios");
        std::fs::create_dir_all(root.join("auth")).expect("temp folder");
        let mine = "description = \"mine\"\n[[step]]\naction = \"wait\"\nms = 1\n";
        std::fs::write(root.join("auth/missing_scope.toml"), mine).expect("write");
        std::fs::write(root.join("auth/my_own.toml"), mine).expect("write");
        let suite = select(&[], std::slice::from_ref(&root)).expect("loads");
        assert_eq!(suite.len(), ids().count() + 1);
        let replaced = suite.iter().find(|scenario| scenario.name == "auth/missing_scope").expect("kept");
        assert_eq!(replaced.description, "mine");
        assert!(suite.iter().any(|scenario| scenario.name == "auth/my_own"));
        let _ = std::fs::remove_dir_all(root.parent().expect("parent"));
    }
}
