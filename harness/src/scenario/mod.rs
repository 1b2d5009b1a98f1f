//! Scenario files: one behaviour per TOML file, as data.
//!
//! Rule enforced here: parse, don't validate. The only ways to get a [`Scenario`] are parsing a file and
//! checking a [`Draft`], and both check everything before anything runs: every table refuses unknown fields,
//! references between steps resolve, names (auth contexts, tools, corpus cases, fault endpoints, effect kinds,
//! error codes) are known. Every error names the file, the line and what is wrong, with the valid choices.

mod auth;
mod discover;
mod expect;
mod step;
mod validate;

pub use auth::{ApprovalFixture, AuthFixture, IdentityState};
pub use discover::LoadErrors;
pub use expect::Expect;
pub use step::{Alongside, CallSpec, ChangedDuring, ChangedSpec, CorpusSpec, FollowUp, Step, StepKind};
pub use validate::Invalid;

use crate::world::{Behaviour, EffectKind, Fixtures};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The content of a scenario file, not yet checked; `S` is the step type (read as raw tables first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draft<S = Step> {
    /// What behaviour this scenario pins, in one or two sentences.
    pub description: String,
    /// Where the behaviour comes from (e.g. `seed §10 case 4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_ref: Option<String>,
    /// Labels for `--filter tag:NAME` (words: letters, digits, `-`, `_`); the folders a scenario is in are
    /// its tags too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The downstream's behaviour.
    #[serde(default, skip_serializing_if = "Behaviour::is_default")]
    pub downstream: Behaviour,
    /// Orders and accounts.
    #[serde(default)]
    pub fixtures: Fixtures,
    /// Named auth contexts (the caller's trusted side).
    #[serde(default)]
    pub auth: BTreeMap<String, AuthFixture>,
    /// The steps, in order.
    #[serde(rename = "step", default = "Vec::new")]
    pub steps: Vec<S>,
    /// Exact counts of distinct committed effects at the end, per kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", with = "effect_counts")]
    pub expect_ledger: BTreeMap<EffectKind, usize>,
}

impl<S> Default for Draft<S> {
    fn default() -> Draft<S> {
        Draft {
            description: String::new(),
            seed_ref: None,
            tags: Vec::new(),
            downstream: Behaviour::default(),
            fixtures: Fixtures::default(),
            auth: BTreeMap::new(),
            steps: Vec::new(),
            expect_ledger: BTreeMap::new(),
        }
    }
}

impl<S> Draft<S> {
    fn with_steps<T>(self, steps: Vec<T>) -> Draft<T> {
        let Draft { description, seed_ref, tags, downstream, fixtures, auth, expect_ledger, steps: _ } = self;
        Draft { description, seed_ref, tags, downstream, fixtures, auth, steps, expect_ledger }
    }
}

/// `[expect_ledger]` keys are the effect kinds' names (`refunds`, `emails`, ...).
mod effect_counts {
    use crate::world::EffectKind;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub(super) fn serialize<S: Serializer>(
        counts: &BTreeMap<EffectKind, usize>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_map(counts.iter().map(|(kind, count)| (kind.name(), count)))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<EffectKind, usize>, D::Error> {
        BTreeMap::<String, usize>::deserialize(deserializer)?
            .into_iter()
            .map(|(name, count)| match EffectKind::from_name(&name) {
                Some(kind) => Ok((kind, count)),
                None => Err(serde::de::Error::custom(format!(
                    "unknown effect `{name}` (one of: {})",
                    EffectKind::ALL.map(EffectKind::name).join(", ")
                ))),
            })
            .collect()
    }
}

/// A checked scenario: everything in it resolves, so replaying it cannot fail on a name. Read its content
/// through [`Draft`]'s fields.
#[derive(Debug, Clone)]
pub struct Scenario {
    draft: Draft,
    /// The line each step starts at, when it was read from text.
    lines: Vec<usize>,
    /// Where it was loaded from.
    pub path: PathBuf,
    /// Its name: the path below the scenarios folder, without `.toml` (e.g. `idempotency/duplicate_refund`).
    pub name: String,
}

impl std::ops::Deref for Scenario {
    type Target = Draft;

    fn deref(&self) -> &Draft {
        &self.draft
    }
}

impl Serialize for Scenario {
    /// The scenario file's text, as TOML reads it back.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.draft.serialize(serializer)
    }
}

/// Why scenario text is not a scenario, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// toml's own report (syntax, an unknown field, a wrong type or name): it shows the line and the column.
    #[error("{report}")]
    Toml {
        /// The line, from 1, when toml knows it.
        line: Option<usize>,
        /// toml's report.
        report: String,
    },
    /// A step that does not fit, or does not fit the rest of the scenario.
    #[error("line {line} (the [[step]] starting there): {message}")]
    Step {
        /// The line the step's table starts at, from 1.
        line: usize,
        /// The step, from 0.
        step: usize,
        /// What is wrong.
        message: String,
    },
    /// Something about the scenario as a whole.
    #[error("{0}")]
    Scenario(String),
}

impl ParseError {
    /// The line it is at, from 1, when it is at one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ParseError::Toml { line, .. } => *line,
            ParseError::Step { line, .. } => Some(*line),
            ParseError::Scenario(_) => None,
        }
    }
}

/// A scenario that cannot be used, and why.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not a scenario.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong, and where.
        source: ParseError,
    },
}

/// The largest scenario file read, in bytes. The shipped ones are under 40 KiB; the limit leaves room for
/// generated ones (a corpus of big cases is generated at run time, not written out).
pub const MAX_SCENARIO_BYTES: usize = 4 * 1024 * 1024;

/// The most steps one scenario may have.
pub const MAX_STEPS: usize = 10_000;

fn too_large(size: u64) -> String {
    format!("{size} bytes; a scenario file has at most {MAX_SCENARIO_BYTES} bytes")
}

impl Scenario {
    /// Loads and checks a scenario file. `root` is the scenarios folder the name is taken relative to.
    ///
    /// # Errors
    /// [`ScenarioError`] naming the file, the line and what is wrong.
    pub fn load(path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
        use std::io::Read;
        let shown = path.display().to_string();
        let io = |source| ScenarioError::Io { path: shown.clone(), source };
        // Read at most one byte past the limit, so an enormous file is refused without being read whole.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_SCENARIO_BYTES as u64 + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() > MAX_SCENARIO_BYTES {
            let size = std::fs::metadata(path).map_or(bytes.len() as u64, |metadata| metadata.len());
            return Err(ScenarioError::Parse { path: shown, source: ParseError::Scenario(too_large(size)) });
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| io(std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is not UTF-8 text")))?;
        let mut scenario = Scenario::parse(&text).map_err(|source| ScenarioError::Parse { path: shown, source })?;
        scenario.path = path.to_owned();
        scenario.name = path.strip_prefix(root).unwrap_or(path).with_extension("").to_string_lossy().replace('\\', "/");
        Ok(scenario)
    }

    /// Parses and checks scenario text.
    ///
    /// # Errors
    /// [`ParseError`] naming the line and what is wrong.
    pub fn parse(text: &str) -> Result<Scenario, ParseError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ParseError::Scenario(too_large(text.len() as u64)));
        }
        // Where each line starts, once: a step's line is then a binary search, not a count from the top.
        let line_starts: Vec<usize> = text.match_indices('\n').map(|(newline, _)| newline + 1).collect();
        let line_of = |offset: usize| line_starts.partition_point(|start| *start <= offset) + 1;
        let file: Draft<toml::Spanned<toml::Table>> = toml::from_str(text).map_err(|error| ParseError::Toml {
            line: error.span().map(|span| line_of(span.start)),
            report: error.to_string().trim_end().to_owned(),
        })?;
        if file.steps.len() > MAX_STEPS {
            let count = file.steps.len();
            return Err(ParseError::Scenario(format!(
                "{count} steps; a scenario has at most {MAX_STEPS} (split it: each file is one story)"
            )));
        }
        let lines: Vec<usize> = file.steps.iter().map(|step| line_of(step.span().start)).collect();
        let tables: Vec<toml::Table> = file.steps.iter().map(|step| step.get_ref().clone()).collect();
        let at = |step: usize, message: String| ParseError::Step { line: lines[step], step, message };
        let steps = tables
            .into_iter()
            .enumerate()
            .map(|(index, table)| Step::from_table(table).map_err(|message| at(index, message)))
            .collect::<Result<Vec<Step>, ParseError>>()?;
        let draft = file.with_steps(steps);
        match validate::validate(&draft) {
            Ok(()) => Ok(Scenario { draft, lines, path: PathBuf::new(), name: String::new() }),
            Err(Invalid { step: Some(step), message }) => Err(at(step, message)),
            Err(Invalid { step: None, message }) => Err(ParseError::Scenario(message)),
        }
    }

    /// Checks a scenario built in code (exploration builds them); `name` is what reports call it.
    ///
    /// # Errors
    /// [`Invalid`]: what is wrong, and at which step.
    pub fn new(draft: Draft, name: &str) -> Result<Scenario, Invalid> {
        validate::validate(&draft)?;
        Ok(Scenario { draft, lines: Vec::new(), path: PathBuf::new(), name: name.to_owned() })
    }

    /// Whether the scenario kills the executor and starts it again (a kill fault, or a `restart` step): its
    /// records must then survive the process, which only a durable store promises.
    pub fn kills_subject(&self) -> bool {
        self.steps.iter().any(|step| {
            matches!(step, Step::Restart)
                || step.faults().iter().any(|fault| fault.kind.needs() == crate::world::fault::Needs::DurableStore)
        })
    }

    /// Whether a step starts another executor process with a `hello` (only an executor process has one).
    pub fn says_hello(&self) -> bool {
        self.steps.iter().any(|step| matches!(step, Step::Hello { .. }))
    }

    /// The content, to change and check again.
    pub fn draft(&self) -> &Draft {
        &self.draft
    }

    /// The line step `step` (0-based) starts at, when the scenario was read from text.
    pub fn line_of(&self, step: usize) -> Option<usize> {
        self.lines.get(step).copied()
    }

    /// The scenario as a file's text.
    ///
    /// # Errors
    /// toml's, when a value has no TOML form.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(&self.draft)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_steps_or_bytes_are_errors_that_name_the_limit() {
        let step = "[[step]]\naction = \"submit\"\ntool = \"get_weather\"\nauth = \"alice\"\n";
        let many = format!("{}{}", MINIMAL, step.repeat(MAX_STEPS));
        let error = Scenario::parse(&many).expect_err("too many steps");
        assert_eq!(
            error.to_string(),
            format!("{} steps; a scenario has at most {MAX_STEPS} (split it: each file is one story)", MAX_STEPS + 1)
        );
        let huge = format!("{MINIMAL}# {}\n", "x".repeat(MAX_SCENARIO_BYTES));
        let error = Scenario::parse(&huge).expect_err("too large");
        assert!(
            error.to_string().ends_with(&format!("a scenario file has at most {MAX_SCENARIO_BYTES} bytes")),
            "{error}"
        );

        let dir = std::env::temp_dir().join(format!("callproof-big-scenario-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let path = dir.join("huge.toml");
        std::fs::write(&path, &huge).expect("written");
        let error = Scenario::load(&path, &dir).expect_err("too large");
        std::fs::remove_dir_all(&dir).ok();
        assert!(error.to_string().contains(&format!("{} bytes; a scenario file has at most", huge.len())), "{error}");
    }

    /// A scenario whose second step is a refund `action` (with `head` lines first) plus the lines `extra`.
    fn refund_step(head: &str, extra: &str) -> String {
        format!(
            "{MINIMAL}[[step]]\n{head}tool = \"refund_order\"\nauth = \"alice\"\narguments = '{{\"amount\":1}}'\n{extra}"
        )
    }

    const SUBMIT: &str = "action = \"submit\"\n";
    const CHANGED_DURING: &str =
        "business_request_id = \"br_1\"\nchanged_during = { after_ms = 500, arguments = '{\"amount\":2}' }\n";

    #[test]
    fn a_changed_call_during_a_submit_of_a_business_request_is_read() {
        let scenario = Scenario::parse(&refund_step(SUBMIT, CHANGED_DURING)).expect("parses");
        assert!(
            matches!(&scenario.steps[1], Step::Submit(CallSpec { changed_during: Some(d), .. }) if d.after_ms == 500)
        );
    }

    #[test]
    fn a_changed_call_during_a_submit_is_refused_where_it_cannot_mean_a_change() {
        for (extra, needle) in [
            (
                "changed_during = { after_ms = 500, arguments = '{\"amount\":2}' }\n".to_owned(),
                "needs the submit's `business_request_id`",
            ),
            (
                format!("{CHANGED_DURING}expect = {{ ok = true }}\n"),
                "`expect` would pin the submit's call and the changed one",
            ),
            (CHANGED_DURING.replace("after_ms = 500", "after_ms = 0"), "whole milliseconds from 1 to 30000"),
            (CHANGED_DURING.replace("\"amount\":2", "\"amount\":1"), "repeats the submit's arguments"),
            (CHANGED_DURING.replace("arguments = ", "argument = "), "argument"),
        ] {
            let error = Scenario::parse(&refund_step(SUBMIT, &extra)).expect_err(needle).to_string();
            assert!(error.contains(needle), "{extra}: {error}");
        }
    }

    #[test]
    fn only_a_submit_takes_a_changed_call() {
        let burst = refund_step("action = \"burst\"\ncount = 2\n", CHANGED_DURING);
        let error = Scenario::parse(&burst).expect_err("a burst").to_string();
        assert!(error.contains("only a submit takes `changed_during`"), "{error}");
    }

    const ALONGSIDE: &str = "alongside = { after_ms = 300, tool = \"get_weather\", auth = \"bob\", arguments = '{\"location\":\"Paris\"}' }\n";
    const BOB: &str = "[auth.bob]\nsubject_id = \"u2\"\ntenant_id = \"t2\"\n";

    #[test]
    fn another_callers_call_alongside_a_submit_is_read() {
        let scenario = Scenario::parse(&refund_step(SUBMIT, &format!("{ALONGSIDE}{BOB}"))).expect("parses");
        assert!(matches!(
            &scenario.steps[1],
            Step::Submit(CallSpec { alongside: Some(a), .. }) if a.after_ms == 300 && a.auth == "bob" && a.tool == "get_weather"
        ));
    }

    #[test]
    fn a_call_alongside_a_submit_is_refused_unless_another_caller_makes_it_to_a_catalog_tool() {
        for (extra, needle) in [
            (ALONGSIDE.replace("\"bob\"", "\"alice\""), "is the submit's own caller"),
            (ALONGSIDE.replace("\"bob\"", "\"carol\""), "`alongside.auth` `carol` is not defined in [auth]"),
            (ALONGSIDE.replace("get_weather", "get_wether"), "`alongside.tool` `get_wether` is not a catalog tool"),
            (ALONGSIDE.replace("after_ms = 300", "after_ms = 0"), "whole milliseconds from 1 to 30000"),
            (
                format!("{ALONGSIDE}expect = {{ ok = true }}\n"),
                "`expect` would pin the submit's call and the one alongside",
            ),
            (format!("{ALONGSIDE}{CHANGED_DURING}"), "`changed_during` or `alongside`, not both"),
            (ALONGSIDE.replace("tool = ", "tol = "), "tol"),
        ] {
            let error = Scenario::parse(&refund_step(SUBMIT, &format!("{extra}{BOB}"))).expect_err(needle).to_string();
            assert!(error.contains(needle), "{extra}: {error}");
        }
        let burst = refund_step("action = \"burst\"\ncount = 2\n", &format!("{ALONGSIDE}{BOB}"));
        let error = Scenario::parse(&burst).expect_err("a burst").to_string();
        assert!(error.contains("only a submit takes `alongside`"), "{error}");
    }

    #[test]
    fn every_step_knows_its_line() {
        let step = "\n[[step]]\naction = \"submit\"\ntool = \"get_weather\"\nauth = \"alice\"\narguments = '{\"location\":\"Paris\",\"units\":null}'\n";
        let text = format!("{MINIMAL}{}", step.repeat(3));
        let scenario = Scenario::parse(&text).expect("parses");
        let expected: Vec<usize> =
            text.lines().enumerate().filter(|(_, line)| *line == "[[step]]").map(|(index, _)| index + 1).collect();
        let found: Vec<usize> = (0..4).filter_map(|step| scenario.line_of(step)).collect();
        assert_eq!(found, expected);
    }

    const MINIMAL: &str = r#"
description = "d"
[auth.alice]
subject_id = "u1"
tenant_id = "t1"
[[step]]
action = "submit"
id = "first"
tool = "get_weather"
auth = "alice"
arguments = '{"location":"Paris","units":null}'
"#;

    fn error(text: &str) -> ParseError {
        Scenario::parse(text).expect_err("refused")
    }

    fn error_of(text: &str) -> String {
        error(text).to_string()
    }

    #[test]
    fn a_minimal_scenario_parses() {
        let scenario = Scenario::parse(MINIMAL).expect("parse");
        assert_eq!(scenario.steps.len(), 1);
        assert_eq!(scenario.line_of(0), Some(6));
    }

    #[test]
    fn an_unknown_field_names_the_field_and_the_line() {
        let error = error(&MINIMAL.replace("auth = \"alice\"\n", "auth = \"alice\"\nbudget = 5\n")).to_string();
        assert!(error.contains("budget"), "{error}");
        assert!(error.starts_with("line 6 "), "{error}");
    }

    #[test]
    fn a_top_level_typo_is_refused() {
        let error = error(&format!("descripton = \"x\"\n{MINIMAL}"));
        assert!(error.to_string().contains("descripton"), "{error}");
        assert_eq!(error.line(), Some(1));
    }

    #[test]
    fn references_must_point_backwards_and_name_their_line() {
        let error = error(&format!("{MINIMAL}\n[[step]]\naction = \"retry\"\nof = \"frist\"\n"));
        assert!(matches!(error, ParseError::Step { line: 13, step: 1, .. }), "{error:?}");
        assert!(error.to_string().contains("frist"), "{error}");
    }

    #[test]
    fn semantic_errors_keep_the_line_and_list_the_choices() {
        let cases = [
            (MINIMAL.replace("auth = \"alice\"\narguments", "auth = \"alcie\"\narguments"), "defined: alice", Some(6)),
            (format!("{MINIMAL}[expect_ledger]\nemail = 1\n"), "refunds, emails, deletions, preferences", Some(12)),
            (
                MINIMAL.replace("arguments = '{\"location\":\"Paris\",\"units\":null}'", "corpus = \"trailing_coma\""),
                "one of:",
                Some(6),
            ),
            (MINIMAL.replace("tool = \"get_weather\"\n", ""), "get_weather", Some(6)),
            (
                format!("{MINIMAL}faults = [{{ kind = \"commit_then_drop\", on = \"POST /refund\" }}]\n"),
                "POST /refunds",
                Some(6),
            ),
            (format!("{MINIMAL}faults = [{{ kind = \"commit_then_drop\", nht = 2 }}]\n"), "nht", Some(6)),
            (
                MINIMAL.replace("action = \"submit\"", "action = \"burst\"\ncount = 2") + "expect = { ok = true }\n",
                "not allowed on a burst",
                Some(6),
            ),
        ];
        for (text, choices, line) in cases {
            let error = error(&text);
            assert!(error.to_string().contains(choices), "{error}");
            assert_eq!(error.line(), line, "{error}");
        }
    }

    #[test]
    fn a_pinned_outcome_must_fault_every_read_an_executor_may_send_again() {
        let expect = "expect = { ok = false, code = \"dependency_unavailable\" }\n";
        let with = |fault: &str, expect: &str| format!("{MINIMAL}faults = [{fault}]\n{expect}");
        // The read tool's own request (the step's default endpoint), faulted once, under an expectation.
        let error = error(&with("{ kind = \"fail_before_commit\" }", expect));
        assert!(error.to_string().contains("`fail_before_commit` on `GET /weather` applies to one read"), "{error}");
        assert!(error.to_string().contains("times = 0"), "{error}");
        assert_eq!(error.line(), Some(6), "{error}");
        // The same on a retry of the step: the tool comes from the step it follows.
        let retry = format!(
            "{MINIMAL}[[step]]\naction = \"retry\"\nof = \"first\"\nfaults = [{{ kind = \"redirect\", to = \"foreign\", times = 2 }}]\n{expect}"
        );
        assert!(error_of(&retry).contains("`redirect` on `GET /weather` applies to 2 reads"), "{}", error_of(&retry));
        // A lookup or status query named by `on`, pinned by the ledger only.
        let lookup = format!(
            "{}[expect_ledger]\nrefunds = 0\n",
            with("{ kind = \"commit_then_drop\", on = \"GET /orders\" }", "")
        );
        assert!(error_of(&lookup).contains("on `GET /orders`"), "{}", error_of(&lookup));
        // Every read faulted, an answer that can be read (a 404), a request with side effects, or nothing pinned.
        for fine in [
            with("{ kind = \"fail_before_commit\", times = 0 }", expect),
            with("{ kind = \"fail_before_commit\", status = 404 }", expect),
            with("{ kind = \"commit_then_drop\", on = \"POST /refunds\" }", expect),
            with("{ kind = \"leak_bait\" }", ""),
        ] {
            Scenario::parse(&fine).unwrap_or_else(|error| panic!("{error}\n{fine}"));
        }
    }

    #[test]
    fn a_fault_of_the_whole_step_takes_no_request_parameters() {
        let with = |fault: &str| format!("{MINIMAL}faults = [{fault}]\n");
        for (fault, name) in [
            ("{ kind = \"connection_refused\", times = 0 }", "connection_refused"),
            ("{ kind = \"connection_refused\", on = \"GET /weather\" }", "connection_refused"),
            ("{ kind = \"store_outage\", nth = 2 }", "store_outage"),
        ] {
            let error = error(&with(fault));
            assert!(error.to_string().contains(&format!("fault `{name}` acts for the whole step")), "{error}");
            assert_eq!(error.line(), Some(6), "{error}");
        }
        Scenario::parse(&with("{ kind = \"connection_refused\" }")).expect("the plain form loads");
    }

    #[test]
    fn a_scenario_is_written_as_text_that_reads_back_the_same() {
        let text = format!(
            "{MINIMAL}faults = [{{ kind = \"slow_before_commit\", ms = 900, on = \"GET /weather\", times = 0 }}]\n\
             expect = {{ ok = false, code = \"timeout_unknown\" }}\n[[step]]\naction = \"retry\"\nof = \"first\"\n\
             [expect_ledger]\nrefunds = 0\n"
        );
        let scenario = Scenario::parse(&text).expect("parse");
        let written = scenario.to_toml().expect("write");
        assert_eq!(Scenario::parse(&written).expect("reparse").draft(), scenario.draft(), "{written}");
    }
}
