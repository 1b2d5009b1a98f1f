//! `redirect`: the downstream answers a 3xx whose `Location` points elsewhere, before or after it commits.
//!
//! Rule enforced here: the redirect is an answer, not a place the request went. Where it points is another
//! origin the harness also serves and records (`foreign`), a path on the same origin (`same`) or an address
//! nothing listens on (`unreachable`); with `commit = true` the effect is in the ledger before the 3xx goes
//! out, so an executor that follows it resends a request that was already applied, and one that reports the
//! failed follow-up as "not sent" lies about a request the downstream saw.

use crate::world::UNREACHABLE_ORIGIN;
use crate::world::fault::{After, Before, Fault, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::json;

/// Answer a redirect (`status`, default 302) to another origin, a path on the same origin or an unreachable
/// address; with `commit = true` only after committing the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Redirect {
    /// Where `Location` points.
    pub to: Target,
    /// Commit the request first (the redirect comes after the effect); default false: nothing is committed.
    #[serde(default)]
    pub commit: bool,
    /// The 3xx status (301, 302, 303, 307 or 308; default 302). 307 and 308 tell a follower to resend the
    /// method and body.
    #[serde(default = "found", deserialize_with = "redirect_status")]
    #[schemars(extend("enum" = [301, 302, 303, 307, 308]))]
    pub status: u16,
    /// The path `Location` names (starting with one `/`, e.g. `/orders/ord_123`); default the request's own.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "location_path")]
    #[schemars(with = "String", pattern(r"^/([^/].*)?$"))]
    pub path: Option<String>,
}

/// Where a redirect points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum Target {
    /// Another origin on loopback that the harness serves and records (never the configured one).
    Foreign,
    /// The configured origin itself: `Location` is a path.
    Same,
    /// An address nothing listens on (`http://127.0.0.1:1`).
    Unreachable,
}

fn found() -> u16 {
    302
}

fn redirect_status<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u16, D::Error> {
    let status = u16::deserialize(deserializer)?;
    match status {
        301 | 302 | 303 | 307 | 308 => Ok(status),
        other => Err(serde::de::Error::custom(format!(
            "redirect status {other} is not a redirect: use 301, 302, 303, 307 or 308"
        ))),
    }
}

fn location_path<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let path = String::deserialize(deserializer)?;
    // `//host/...` is a reference to another origin, not a path.
    if !path.starts_with('/') || path.starts_with("//") {
        return Err(serde::de::Error::custom(format!("redirect path `{path}` must start with a single `/`")));
    }
    Ok(Some(path))
}

impl Redirect {
    /// The `Location` header for `request`.
    fn location(&self, request: &Request<'_>) -> String {
        let path = self.path.clone().unwrap_or_else(|| request.incoming.path.clone());
        match self.to {
            Target::Foreign => format!("{}{path}", request.foreign_origin),
            Target::Same => path,
            Target::Unreachable => format!("{UNREACHABLE_ORIGIN}{path}"),
        }
    }

    /// Turns `answer` into the redirect, keeping what the downstream did.
    fn redirect(&self, request: &Request<'_>, answer: &mut Outgoing) {
        answer.status = self.status;
        answer.headers.push(("location".to_owned(), self.location(request)));
        answer.body = json!({});
        answer.raw = None;
    }
}

impl Rule for Redirect {
    fn before_commit(&mut self, request: &Request<'_>) -> Before {
        if self.commit {
            return Before::Pass;
        }
        let mut answer = Outgoing::refusal(self.status, json!({}));
        self.redirect(request, &mut answer);
        Before::Answer(answer)
    }

    fn after_commit(&mut self, request: &Request<'_>, answer: &mut Outgoing) -> After {
        if self.commit {
            self.redirect(request, answer);
        }
        After::Pass
    }
}

impl Fault for Redirect {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::FaultKind;

    #[test]
    fn parses_with_defaults_and_refuses_a_status_that_is_not_a_redirect() {
        let kind: FaultKind = toml::from_str("kind = \"redirect\"\nto = \"foreign\"").expect("parse");
        assert_eq!(kind, FaultKind::Redirect(Redirect { to: Target::Foreign, commit: false, status: 302, path: None }));
        for (text, needle) in [
            ("to = \"foreign\"\nstatus = 200", "not a redirect"),
            ("to = \"same\"\npath = \"//evil.example/x\"", "single `/`"),
            ("to = \"elsewhere\"", "unknown variant"),
            ("to = \"same\"\ncommitted = true", "unknown field"),
        ] {
            let error = toml::from_str::<FaultKind>(&format!("kind = \"redirect\"\n{text}")).expect_err(text);
            assert!(error.message().contains(needle), "{text}: {error}");
        }
    }
}
