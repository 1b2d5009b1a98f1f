//! The malformed-input corpus (scenarios/corpus/malformed.toml): model output an executor must refuse.
//!
//! Rule enforced here: each case names the code every executor MUST answer and the details the reference
//! executor gives (SHOULD); inputs too large to write down are generated from a small, bounded description.

use serde::Deserialize;
use serde_json::Value;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Largest generated input, so a corpus file cannot make the harness allocate without bound.
pub const MAX_GENERATED_BYTES: u64 = 16 * 1024 * 1024;

/// A generated input.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Generate {
    /// `[` × depth then `]` × depth.
    DeepNesting {
        /// Nesting depth.
        depth: u64,
    },
    /// A refund whose reason is `bytes` bytes of UTF-8: `fill` repeated (`a` unless given), so a multibyte
    /// `fill` makes a text whose characters are fewer than its bytes (limits are in bytes).
    HugeString {
        /// The reason's length in UTF-8 bytes, a whole number of `fill`s.
        bytes: u64,
        /// The character repeated.
        #[serde(default)]
        fill: Option<char>,
    },
    /// A refund with `count` extra keys.
    ManyKeys {
        /// Extra keys.
        count: u64,
    },
    /// Any call: `arguments` with its one `{repeat}` replaced by `text` repeated `count` times.
    Repeated {
        /// The argument text around the repeated part.
        arguments: String,
        /// What is repeated.
        text: String,
        /// How many times.
        count: u64,
    },
}

/// Where [`Generate::Repeated`] puts its repeated text.
const REPEAT: &str = "{repeat}";

/// One case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique name.
    pub name: String,
    /// The tool name as the model emitted it.
    pub tool: String,
    /// Raw argument text.
    #[serde(default)]
    pub arguments: Option<String>,
    /// Or a generated text.
    #[serde(default)]
    pub generate: Option<Generate>,
    /// The code every executor must answer.
    pub code: String,
    /// Details the reference executor gives.
    #[serde(default)]
    pub details: toml::Table,
}

impl Case {
    /// The raw argument text.
    pub fn text(&self) -> String {
        match (&self.arguments, &self.generate) {
            (Some(text), _) => text.clone(),
            (None, Some(Generate::DeepNesting { depth })) => {
                let depth = *depth as usize;
                format!("{}{}", "[".repeat(depth), "]".repeat(depth))
            }
            (None, Some(Generate::HugeString { bytes, fill })) => {
                let fill = fill.unwrap_or('a');
                let reason = fill.to_string().repeat(*bytes as usize / fill.len_utf8());
                format!(r#"{{"order_id":"ord_123","amount":100,"reason":"{reason}"}}"#)
            }
            (None, Some(Generate::ManyKeys { count })) => {
                let keys: String = (0..*count).map(|index| format!(",\"k{index}\":0")).collect();
                format!(r#"{{"order_id":"ord_123","amount":100,"reason":"duplicate"{keys}}}"#)
            }
            (None, Some(Generate::Repeated { arguments, text, count })) => {
                arguments.replacen(REPEAT, &text.repeat(*count as usize), 1)
            }
            (None, None) => String::new(),
        }
    }

    /// The expected details as JSON.
    pub fn details_json(&self) -> Value {
        serde_json::to_value(&self.details).unwrap_or(Value::Null)
    }
}

/// The corpus.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    /// Cases in file order.
    #[serde(rename = "case", default)]
    pub cases: Vec<Case>,
}

/// The corpus shipped with callproof, embedded so the harness runs anywhere.
const SHIPPED: &str = include_str!("../../scenarios/corpus/malformed.toml");

/// Why a corpus does not load: each names its file (or `the shipped corpus`) and the line, field or case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The file cannot be read.
    #[error("{origin}: {why}")]
    Read {
        /// The file.
        origin: String,
        /// The operating system's reason.
        why: String,
    },
    /// The text is not a corpus (TOML syntax, an unknown or missing field), with its line.
    #[error("{origin}: {why}")]
    Syntax {
        /// The file.
        origin: String,
        /// toml's message, with the line.
        why: String,
    },
    /// A case that parses but cannot be right.
    #[error("{origin}: case `{case}` {why}")]
    Case {
        /// The file.
        origin: String,
        /// The case's name.
        case: String,
        /// What is wrong with it.
        why: String,
    },
}

impl Corpus {
    /// The corpus shipped with callproof (scenarios/corpus/malformed.toml, embedded at build time), parsed and
    /// checked once per process.
    pub fn shipped() -> Arc<Corpus> {
        static SHIPPED_CORPUS: OnceLock<Arc<Corpus>> = OnceLock::new();
        SHIPPED_CORPUS
            .get_or_init(|| {
                // The embedded file is checked by this crate's tests; failing here is a broken build.
                Arc::new(Corpus::parse(SHIPPED, "the shipped corpus").expect("the shipped corpus is valid"))
            })
            .clone()
    }

    /// Loads and checks a corpus file.
    ///
    /// # Errors
    /// [`Error`], naming the file and the line, field or case.
    pub fn load(path: &Path) -> Result<Corpus, Error> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| Error::Read { origin, why: error.to_string() })?;
        Corpus::parse(&text, &path.display().to_string())
    }

    /// Parses and checks corpus text; `origin` names it in errors.
    ///
    /// # Errors
    /// [`Error`], naming `origin` and the line, field or case.
    pub fn parse(text: &str, origin: &str) -> Result<Corpus, Error> {
        let corpus: Corpus = toml::from_str(text)
            .map_err(|error| Error::Syntax { origin: origin.to_owned(), why: error.to_string() })?;
        let mut names = std::collections::BTreeSet::new();
        for case in &corpus.cases {
            let wrong = |why: String| Error::Case { origin: origin.to_owned(), case: case.name.clone(), why };
            if !names.insert(case.name.as_str()) {
                return Err(wrong("is defined twice".to_owned()));
            }
            if case.arguments.is_some() == case.generate.is_some() {
                return Err(wrong("needs exactly one of `arguments` or `generate`".to_owned()));
            }
            let size = match &case.generate {
                Some(Generate::DeepNesting { depth }) => depth.saturating_mul(2),
                Some(Generate::HugeString { bytes, fill }) => {
                    let width = fill.unwrap_or('a').len_utf8() as u64;
                    if bytes % width != 0 {
                        return Err(wrong(format!(
                            "asks for {bytes} bytes, which is not a whole number of `{}` ({width} bytes each)",
                            fill.unwrap_or('a')
                        )));
                    }
                    *bytes
                }
                Some(Generate::ManyKeys { count }) => count.saturating_mul(16),
                Some(Generate::Repeated { arguments, text, count }) => {
                    if arguments.matches(REPEAT).count() != 1 {
                        return Err(wrong(format!("`arguments` must hold `{REPEAT}` exactly once")));
                    }
                    if text.is_empty() {
                        return Err(wrong("repeats an empty `text`".to_owned()));
                    }
                    (text.len() as u64).saturating_mul(*count).saturating_add(arguments.len() as u64)
                }
                None => 0,
            };
            if size > MAX_GENERATED_BYTES {
                return Err(wrong(format!("would generate more than {MAX_GENERATED_BYTES} bytes")));
            }
            if callproof_executor::ErrorCode::from_wire(&case.code).is_none() {
                return Err(wrong(format!("expects `{}`, which is not an error code", case.code)));
            }
        }
        Ok(corpus)
    }

    /// The case with this name.
    pub fn case(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|case| case.name == name)
    }

    /// The cases a `corpus` step plays, in corpus order: every case, or those named in `only`.
    pub fn selected<'a>(&'a self, only: &'a [String]) -> impl Iterator<Item = &'a Case> + 'a {
        self.cases.iter().filter(move |case| only.is_empty() || only.contains(&case.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_corpus_loads_and_is_parsed_once() {
        let corpus = Corpus::shipped();
        assert!(corpus.cases.len() > 10, "{} cases", corpus.cases.len());
        assert!(Arc::ptr_eq(&corpus, &Corpus::shipped()));
    }

    #[test]
    fn a_multibyte_fill_counts_bytes_not_characters() {
        let case = "[[case]]\nname = \"m\"\ntool = \"t\"\ngenerate = { kind = \"huge_string\", bytes = 30, fill = \"€\" }\ncode = \"invalid_arguments\"\n";
        let corpus = Corpus::parse(case, "c.toml").expect("loads");
        let text = corpus.cases[0].text();
        assert_eq!(text.matches('€').count(), 10);
        assert_eq!(text.len(), r#"{"order_id":"ord_123","amount":100,"reason":""}"#.len() + 30);
        let ragged = case.replace("bytes = 30", "bytes = 31");
        let error = Corpus::parse(&ragged, "c.toml").expect_err("31 is not a whole number of 3-byte characters");
        assert!(error.to_string().contains("not a whole number of `€` (3 bytes each)"), "{error}");
    }

    #[test]
    fn a_repeated_text_fills_its_one_place_and_a_template_without_one_is_refused() {
        let case = "[[case]]\nname = \"r\"\ntool = \"t\"\ngenerate = { kind = \"repeated\", arguments = '{\"b\":\"{repeat}\"}', text = \"ab\", count = 3 }\ncode = \"schema_violation\"\n";
        let corpus = Corpus::parse(case, "c.toml").expect("loads");
        assert_eq!(corpus.cases[0].text(), r#"{"b":"ababab"}"#);
        for (broken, why) in [
            (case.replace("{repeat}", "x"), "must hold `{repeat}` exactly once"),
            (case.replace("{repeat}", "{repeat}{repeat}"), "must hold `{repeat}` exactly once"),
            (case.replace("text = \"ab\"", "text = \"\""), "repeats an empty `text`"),
            (case.replace("count = 3", "count = 100000000"), "would generate more than"),
        ] {
            let error = Corpus::parse(&broken, "c.toml").expect_err(why);
            assert!(error.to_string().contains(why), "{error}");
        }
    }

    #[test]
    fn a_bad_corpus_names_its_origin_and_the_case() {
        let twice = "[[case]]\nname = \"a\"\ntool = \"t\"\narguments = \"x\"\ncode = \"invalid_json\"\n";
        let error = Corpus::parse(&twice.repeat(2), "c.toml").expect_err("twice");
        assert_eq!(error.to_string(), "c.toml: case `a` is defined twice");
        let error = Corpus::parse(&twice.replace("invalid_json", "nope"), "c.toml").expect_err("code");
        assert!(error.to_string().contains("`nope`, which is not an error code"), "{error}");
        let error = Corpus::parse("[[case]]\nnam = 1\n", "c.toml").expect_err("syntax");
        assert!(matches!(error, Error::Syntax { .. }) && error.to_string().starts_with("c.toml: "), "{error}");
        let error = Corpus::load(Path::new("/nonexistent/corpus.toml")).expect_err("missing");
        assert!(matches!(error, Error::Read { .. }), "{error}");
    }
}
