//! Check ids: one typed value per check, declared beside the check, shared by docs, mutants and reports.
//!
//! Rule enforced here: a [`CheckId`] can only be made by a check module (`CheckId::new` is crate-private) or by
//! parsing the id of a registered check, so a typo is a compile error in code and a load error in data.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The stable id of a check, e.g. `single-effect`. Ids are append-only.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckId(&'static str);

/// A text that is not the id of any check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown check `{0}` (see `callproof checks`)")]
pub struct UnknownCheck(pub String);

impl CheckId {
    /// Declares an id; only check modules do.
    pub(crate) const fn new(id: &'static str) -> CheckId {
        CheckId(id)
    }

    /// The id as written in docs, reports and baselines.
    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// The id of the registered check spelled `text`.
    ///
    /// # Errors
    /// [`UnknownCheck`] when no check has that id.
    pub fn parse(text: &str) -> Result<CheckId, UnknownCheck> {
        super::ALL.iter().map(|check| check.id).find(|id| id.0 == text).ok_or_else(|| UnknownCheck(text.to_owned()))
    }
}

impl FromStr for CheckId {
    type Err = UnknownCheck;

    fn from_str(text: &str) -> Result<CheckId, UnknownCheck> {
        CheckId::parse(text)
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so `{:<34}` lines up tables.
        f.pad(self.0)
    }
}

impl fmt::Debug for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl PartialEq<str> for CheckId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for CheckId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for CheckId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for CheckId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CheckId, D::Error> {
        let text = String::deserialize(deserializer)?;
        CheckId::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_id_parses_back_to_itself() {
        for check in super::super::ALL {
            assert_eq!(CheckId::parse(check.id.as_str()), Ok(check.id));
            assert_eq!(check.id.to_string(), check.id.as_str());
        }
    }

    #[test]
    fn an_unknown_id_is_refused_with_a_pointer_to_the_list() {
        let error = CheckId::parse("single-efect").expect_err("a typo");
        assert_eq!(error.to_string(), "unknown check `single-efect` (see `callproof checks`)");
        assert!(serde_json::from_str::<CheckId>("\"nope\"").is_err());
        assert_eq!(serde_json::from_str::<CheckId>("\"single-effect\"").ok(), Some(super::super::SINGLE_EFFECT));
    }
}
