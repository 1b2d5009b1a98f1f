//! Per-answer noise in refusal text: what differs between any two answers and so tells nothing about a resource.
//!
//! Rule enforced here: when two refusals must be indistinguishable (`resource-refusal-uniform`,
//! `task-refusal-uniform`), a date-time, a duration (a number with a unit of time: `after 3 ms`, `1.5s`) and an
//! opaque token (a run of ten or more letters, digits and `-` holding a digit: a trace id, a UUID, a Unix time)
//! are blanked before they are compared, as the call's own ids are; so is a number under a member named for a
//! time (`elapsed_ms`, `took_us`, `started_at`). docs/errors.md lets `message` and `details` vary from call to
//! call; an executor that stamps its errors with the time, how long the call took or a fresh trace id varies
//! them for every call alike, a missing resource and a foreign one included. Words are never blanked, so a message that says "not found" to one and "not allowed" to the other
//! still differs. Nor is an id the scenario's fixtures hold (an order, an account, a tenant, an owner), however
//! opaque it looks: no executor stamps those per answer, and one that names another tenant's owner in a refusal
//! leaks exactly what the comparison is there to catch.

use regex::Regex;
use std::sync::OnceLock;

/// A date-time as RFC 3339 and ISO 8601 write it (`2026-12-04T02:41:07.123Z`, `2026-12-04 02:41:07+01:00`).
const DATE_TIME: &str = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?";

/// A duration: a number and a unit of time, standing alone (`3 ms`, `1.5s`, `12 milliseconds`; not `404`).
const DURATION: &str =
    r"\b\d+(?:[.,]\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|milliseconds?|microseconds?|min|minutes?)\b";

/// A maximal run of id characters, judged by [`opaque`].
const TOKEN: &str = r"[0-9A-Za-z-]+";

/// Tokens shorter than this are words or small numbers (`404`, `utf8`), kept as they are.
const SHORTEST_OPAQUE: usize = 10;

fn date_time() -> &'static Regex {
    static COMPILED: OnceLock<Regex> = OnceLock::new();
    COMPILED.get_or_init(|| Regex::new(DATE_TIME).expect("the date-time pattern is a valid regex"))
}

fn duration() -> &'static Regex {
    static COMPILED: OnceLock<Regex> = OnceLock::new();
    COMPILED.get_or_init(|| Regex::new(DURATION).expect("the duration pattern is a valid regex"))
}

fn token() -> &'static Regex {
    static COMPILED: OnceLock<Regex> = OnceLock::new();
    COMPILED.get_or_init(|| Regex::new(TOKEN).expect("the token pattern is a valid regex"))
}

/// Whether a token is an opaque one: long enough and holding a digit.
fn opaque(token: &str) -> bool {
    token.len() >= SHORTEST_OPAQUE && token.bytes().any(|byte| byte.is_ascii_digit())
}

/// Whether a member's name says its number is a time or a duration (`elapsed_ms`, `duration`, `took_us`,
/// `started_at`): such a number is blanked as a duration in text is.
pub(super) fn names_a_time(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["_ms", "_us", "_ns", "_at", "_seconds", "_secs"].iter().any(|unit| name.ends_with(unit))
        || ["elapsed", "duration", "took", "latency"].iter().any(|word| name.starts_with(word))
}

/// `text` with every date-time replaced by `<time>`, every duration by `<duration>` and every opaque token by
/// `<token>`, except the tokens in `known` (the fixtures' ids), which stay as they are.
pub(super) fn blank_noise(text: &str, known: &[&str]) -> String {
    let dated = date_time().replace_all(text, "<time>");
    let timeless = duration().replace_all(&dated, "<duration>");
    token()
        .replace_all(&timeless, |found: &regex::Captures<'_>| {
            let token = &found[0];
            if opaque(token) && !known.contains(&token) { "<token>".to_owned() } else { token.to_owned() }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_opaque_tokens_are_blanked() {
        assert_eq!(
            blank_noise("the resource is not accessible (at 2026-12-04T02:41:07.123Z)", &[]),
            "the resource is not accessible (at <time>)"
        );
        assert_eq!(blank_noise("at 2026-12-04 02:41:07+01:00", &[]), "at <time>");
        assert_eq!(blank_noise("4bf92f3577b34da6a3ce929d0e0e4736", &[]), "<token>");
        assert_eq!(blank_noise("trace 4bf92f35-77b3-4da6-a3ce-929d0e0e4736.", &[]), "trace <token>.");
        assert_eq!(blank_noise("since 1733280000000", &[]), "since <token>");
    }

    #[test]
    fn durations_are_blanked() {
        assert_eq!(blank_noise("not accessible (after 3 ms)", &[]), "not accessible (after <duration>)");
        assert_eq!(
            blank_noise("refused in 1.5s; retry in 12 milliseconds", &[]),
            "refused in <duration>; retry in <duration>"
        );
        assert_eq!(blank_noise("took 250µs", &[]), "took <duration>");
        assert!(names_a_time("elapsed_ms") && names_a_time("took") && names_a_time("started_at"));
        assert!(!names_a_time("status") && !names_a_time("reason") && !names_a_time("owner"));
    }

    #[test]
    fn words_short_numbers_and_reasons_stay() {
        for text in [
            "resource_not_accessible",
            "not found (404)",
            "utf8 text of 1048576 bytes",
            "order_000_was_not_found_in_tenant_2",
            "lookup answered 403",
            "3 orders, 2 msgs",
        ] {
            assert_eq!(blank_noise(text, &[]), text);
        }
    }

    #[test]
    fn messages_that_tell_resources_apart_still_differ() {
        assert_ne!(
            blank_noise("order was not found (at 2026-12-04T02:41:07Z)", &[]),
            blank_noise("order is not accessible (at 2026-12-04T02:41:08Z)", &[])
        );
    }

    #[test]
    fn the_fixtures_ids_are_never_noise() {
        let owner = "owner-7f3a9c21";
        assert_eq!(blank_noise("held by owner-7f3a9c21", &[owner]), "held by owner-7f3a9c21");
        assert_eq!(blank_noise("held by owner-7f3a9c21", &[]), "held by <token>");
        assert_ne!(blank_noise("held by owner-7f3a9c21", &[owner]), blank_noise("held by owner-0000aaaa", &[owner]));
        assert_eq!(
            blank_noise("trace 4bf92f3577b34da6 for owner-7f3a9c21", &[owner]),
            "trace <token> for owner-7f3a9c21",
            "other tokens are still noise"
        );
    }
}
