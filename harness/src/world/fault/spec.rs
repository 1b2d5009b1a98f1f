//! A fault as a scenario writes it (kind, parameters, which requests), and as the world keeps it once armed.
//!
//! Rule enforced here: every field is checked strictly (the kind's own fields too, parameterless kinds
//! included); `nth` counts from 1. An armed fault counts the requests it applied to, so one that applied to
//! none is known when it is disarmed.

use super::{FaultKind, Rule};
use serde::{Deserialize, Serialize};

/// A fault and the requests it applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FaultSpec {
    /// What goes wrong.
    #[serde(flatten)]
    pub kind: FaultKind,
    /// `"METHOD /first-segment"`, e.g. `"POST /refunds"`; `None` means the step's tool's main endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// The first matching request it applies to, from 1.
    #[serde(skip_serializing_if = "is_one")]
    pub nth: u32,
    /// How many matching requests it applies to; 0 means all from the n-th on.
    #[serde(skip_serializing_if = "is_one")]
    pub times: u32,
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

impl From<FaultKind> for FaultSpec {
    /// The fault on the step's main request, once.
    fn from(kind: FaultKind) -> FaultSpec {
        FaultSpec { kind, on: None, nth: 1, times: 1 }
    }
}

impl<'de> Deserialize<'de> for FaultSpec {
    /// `{ kind = "...", <params>, on = "...", nth = 1, times = 1 }`. Parsed in two passes so that the kind's own
    /// fields are still checked strictly; errors surface at the fault's table, with its line.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<FaultSpec, D::Error> {
        use serde::de::Error;
        let mut table = toml::Table::deserialize(deserializer)?;
        let on = match table.remove("on") {
            None => None,
            Some(toml::Value::String(on)) => Some(on),
            Some(_) => return Err(D::Error::custom("fault field `on` must be a string like \"POST /refunds\"")),
        };
        let mut number = |name: &str| -> Result<u32, D::Error> {
            match table.remove(name) {
                None => Ok(1),
                Some(toml::Value::Integer(value)) if (0..=i64::from(u32::MAX)).contains(&value) => Ok(value as u32),
                Some(_) => Err(D::Error::custom(format!("fault field `{name}` must be a non-negative integer"))),
            }
        };
        let nth = number("nth")?;
        let times = number("times")?;
        if nth == 0 {
            return Err(D::Error::custom("fault field `nth` counts from 1"));
        }
        let kind = FaultKind::deserialize(toml::Value::Table(table))
            .map_err(|error| D::Error::custom(format!("fault: {}", error.message())))?;
        Ok(FaultSpec { kind, on, nth, times })
    }
}

impl FaultSpec {
    /// The JSON Schema of a fault table: one closed object per kind, its parameters from the kind's own type
    /// (docs/scenario.schema.json keeps it under `$defs/fault`; a test keeps the two equal).
    pub fn json_schema() -> serde_json::Value {
        use serde_json::{Value, json};
        let endpoints = crate::world::endpoints(&callproof_executor::app::catalog());
        let kinds: Vec<Value> = FaultKind::schemas()
            .into_iter()
            .map(|(name, schema)| {
                let schema = schema.as_value();
                let mut properties = serde_json::Map::new();
                properties.insert("kind".to_owned(), json!({ "const": name }));
                properties.insert(
                    "on".to_owned(),
                    json!({ "enum": endpoints, "description": "The endpoint: METHOD and first path segment. Default: the step's tool's main request." }),
                );
                properties.insert(
                    "nth".to_owned(),
                    json!({ "type": "integer", "minimum": 1, "description": "The first matching request (counted from when the step starts) it applies to. Default 1." }),
                );
                properties.insert(
                    "times".to_owned(),
                    json!({ "type": "integer", "minimum": 0, "description": "How many matching requests it applies to; 0 means all from the nth on. Default 1." }),
                );
                if let Some(own) = schema.get("properties").and_then(Value::as_object) {
                    properties.extend(own.clone());
                }
                let mut required = vec![json!("kind")];
                required.extend(schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default());
                json!({
                    "type": "object",
                    "additionalProperties": false,
                    "properties": properties,
                    "required": required,
                    "description": schema.get("description").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        json!({ "oneOf": kinds })
    }
}

/// The fault that applied to a request: the step that armed it, its kind and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fired {
    /// The 0-based step that armed it.
    pub step: usize,
    /// The kind, with its parameters.
    #[serde(flatten)]
    pub kind: FaultKind,
}

/// An armed fault at the end of its step: what it was armed on and how many requests it applied to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FaultLog {
    /// The 0-based step that armed it.
    pub step: usize,
    /// The fault.
    pub spec: FaultSpec,
    /// The endpoint it matched (its resolved `on`), or `subject` for a fault on the subject itself.
    pub endpoint: String,
    /// How many times it applied.
    pub fired: u32,
}

impl FaultLog {
    /// Why the fault proves nothing, when it never applied.
    pub fn never_fired(&self) -> Option<String> {
        (self.fired == 0).then(|| {
            format!("step {}: fault `{}` on `{}` never fired", self.step + 1, self.spec.kind.name(), self.endpoint)
        })
    }
}

/// An armed fault with its own count of matching requests and its rule.
#[derive(Debug)]
pub(crate) struct Armed {
    pub(crate) id: u64,
    pub(crate) log: FaultLog,
    pub(crate) rule: Box<dyn Rule>,
    seen: u32,
}

impl Armed {
    pub(crate) fn new(id: u64, spec: FaultSpec, endpoint: String, step: usize) -> Armed {
        let rule = spec.kind.rule();
        Armed { id, log: FaultLog { step, spec, endpoint, fired: 0 }, rule, seen: 0 }
    }

    /// Counts a request to `endpoint`; true when this fault applies to it.
    pub(crate) fn fires_on(&mut self, endpoint: &str) -> bool {
        if self.log.endpoint != endpoint {
            return false;
        }
        self.seen += 1;
        let spec = &self.log.spec;
        let fires = self.seen >= spec.nth && (spec.times == 0 || self.seen < spec.nth + spec.times);
        self.log.fired += u32::from(fires);
        fires
    }

    /// The record a request it applied to carries.
    pub(crate) fn fired(&self) -> Fired {
        Fired { step: self.log.step, kind: self.log.spec.kind.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::fault::{CommitThenDelay, CommitThenDrop};

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Holder {
        fault: FaultSpec,
    }

    #[test]
    fn parses_kind_parameters_and_matcher() {
        let holder: Holder =
            toml::from_str("fault = { kind = \"commit_then_delay\", ms = 3000, on = \"POST /refunds\", nth = 2 }")
                .expect("parse");
        assert_eq!(holder.fault.kind, FaultKind::CommitThenDelay(CommitThenDelay { ms: 3000 }));
        assert_eq!(holder.fault.on.as_deref(), Some("POST /refunds"));
        assert_eq!((holder.fault.nth, holder.fault.times), (2, 1));
    }

    #[test]
    fn a_typo_in_a_fault_names_the_field_and_the_line() {
        for text in [
            "\n\nfault = { kind = \"commit_then_delay\", msx = 3 }",
            "\n\nfault = { kind = \"commit_then_drop\", nht = 2 }",
        ] {
            let error = toml::from_str::<Holder>(text).err().expect("error");
            let text = error.to_string();
            assert!(text.contains("msx") || text.contains("nht"), "{text}");
            assert!(text.contains("line 3"), "{text}");
        }
    }

    #[test]
    fn a_fault_is_written_back_as_it_was_read() {
        let text = "fault = { kind = \"hold_until\", count = 3, timeout_ms = 300, on = \"POST /refunds\", times = 0 }";
        let holder: Holder = toml::from_str(text).expect("parse");
        let written = toml::to_string(&serde_json::json!({ "fault": holder.fault })).expect("write");
        let again: Holder = toml::from_str(&written).expect("reparse");
        assert_eq!(again.fault, holder.fault);
    }

    #[test]
    fn nth_and_count_select_the_requests_and_count_what_fired() {
        let spec = FaultSpec { kind: FaultKind::CommitThenDrop(CommitThenDrop {}), on: None, nth: 2, times: 2 };
        let mut armed = Armed::new(0, spec, "POST /refunds".into(), 2);
        let fired: Vec<bool> = (0..5).map(|_| armed.fires_on("POST /refunds")).collect();
        assert_eq!(fired, vec![false, true, true, false, false]);
        assert!(!armed.fires_on("GET /orders"));
        assert_eq!(armed.log.fired, 2);
        assert_eq!(armed.log.never_fired(), None);
        let unfired = FaultLog { fired: 0, ..armed.log };
        assert_eq!(
            unfired.never_fired().as_deref(),
            Some("step 3: fault `commit_then_drop` on `POST /refunds` never fired")
        );
    }
}
