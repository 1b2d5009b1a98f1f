//! Expectations: the envelope fields a step pins.
//!
//! Rule enforced here: every pinned value is typed (a code is an [`ErrorCode`], a resolution a
//! [`Resolution`]), so a typo is a load error that lists the valid choices, never a step that cannot pass.

use callproof_executor::{ErrorCode, error::Resolution};
use serde::{Deserialize, Serialize};

/// Envelope fields a step pins. Absent fields are not checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// `error.code`.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "code")]
    pub code: Option<ErrorCode>,
    /// `error.retryable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// `error.resolution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// `meta.replayed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
    /// `meta.reconciled` (absent counts as false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconciled: Option<bool>,
    /// A subset of `error.details` that must match exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<toml::Table>,
    /// A subset of a success's `result` members that must match exactly (what the downstream answered, as the
    /// executor passed it on: a read that echoes its query shows whether the value arrived whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<toml::Table>,
}

/// An error code by its wire name; an unknown one lists the codes.
fn code<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<ErrorCode>, D::Error> {
    let wire = String::deserialize(deserializer)?;
    let known = || ErrorCode::ALL.iter().map(|code| code.as_str()).collect::<Vec<_>>().join(", ");
    ErrorCode::from_wire(&wire)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("unknown error code `{wire}` (one of: {})", known())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_code_lists_the_codes() {
        let error = toml::from_str::<Expect>("code = \"timeout\"").expect_err("unknown code");
        assert!(error.message().contains("timeout_unknown"), "{error}");
    }
}
