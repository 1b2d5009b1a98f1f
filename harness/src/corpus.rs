//! The malformed-input corpus (scenarios/corpus/malformed.toml): model output an executor must refuse.
//!
//! Rule enforced here: each case names the code every executor MUST answer and the details the reference
//! executor gives (SHOULD); inputs too large to write down are generated from a small, bounded description.

use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

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
    /// A refund whose reason is `bytes` letters.
    HugeString {
        /// String length.
        bytes: u64,
    },
    /// A refund with `count` extra keys.
    ManyKeys {
        /// Extra keys.
        count: u64,
    },
}

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
            (None, Some(Generate::HugeString { bytes })) => {
                format!(r#"{{"order_id":"ord_123","amount":100,"reason":"{}"}}"#, "a".repeat(*bytes as usize))
            }
            (None, Some(Generate::ManyKeys { count })) => {
                let keys: String = (0..*count).map(|index| format!(",\"k{index}\":0")).collect();
                format!(r#"{{"order_id":"ord_123","amount":100,"reason":"duplicate"{keys}}}"#)
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

impl Corpus {
    /// Loads and checks the corpus.
    ///
    /// # Errors
    /// A message naming the file and the line, field or case.
    pub fn load(path: &Path) -> Result<Corpus, String> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|error| format!("{shown}: {error}"))?;
        let corpus: Corpus = toml::from_str(&text).map_err(|error| format!("{shown}: {error}"))?;
        let mut names = std::collections::BTreeSet::new();
        for case in &corpus.cases {
            if !names.insert(case.name.as_str()) {
                return Err(format!("{shown}: case `{}` is defined twice", case.name));
            }
            if case.arguments.is_some() == case.generate.is_some() {
                return Err(format!("{shown}: case `{}` needs exactly one of `arguments` or `generate`", case.name));
            }
            let size = match &case.generate {
                Some(Generate::DeepNesting { depth }) => depth.saturating_mul(2),
                Some(Generate::HugeString { bytes }) => *bytes,
                Some(Generate::ManyKeys { count }) => count.saturating_mul(16),
                None => 0,
            };
            if size > MAX_GENERATED_BYTES {
                return Err(format!(
                    "{shown}: case `{}` would generate more than {MAX_GENERATED_BYTES} bytes",
                    case.name
                ));
            }
            if callproof_executor::ErrorCode::from_wire(&case.code).is_none() {
                return Err(format!("{shown}: case `{}`: `{}` is not an error code", case.name, case.code));
            }
        }
        Ok(corpus)
    }

    /// The case with this name.
    pub fn case(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|case| case.name == name)
    }
}
