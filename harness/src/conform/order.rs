//! The order scenarios start in: the ones that wait longest first, so that a run does not end with one slow
//! scenario running alone while every other slot sits idle (longest processing time first).
//!
//! Rule enforced here: the order only decides when a scenario starts, never what it does or how it is
//! reported (results come back in id order); the estimate reads the scenario's own text (its waits, delays,
//! holds and crashes), so a missing file just means "short".

use crate::scenario::Scenario;

/// Milliseconds a scenario is expected to spend waiting: every `ms` and `timeout_ms` value in its text (waits,
/// delayed answers, slow commits, holds), plus a second for each crash (the restart and the lease).
pub fn expected_wait_ms(text: &str) -> u64 {
    let mut total = 0u64;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default();
        for (at, _) in line.match_indices("ms") {
            let before = line[..at].chars().next_back();
            let key_start = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let timeout = line[..at].ends_with("timeout_");
            if !(key_start || timeout) {
                continue;
            }
            let rest = line[at + 2..].trim_start();
            let Some(value) = rest.strip_prefix('=') else { continue };
            let digits: String = value.trim_start().chars().take_while(char::is_ascii_digit).collect();
            total = total.saturating_add(digits.parse().unwrap_or(0));
        }
        total = total.saturating_add(1000 * line.matches("\"kill_").count() as u64);
    }
    total
}

/// The text of a scenario: its file, or the shipped copy of its id.
fn text_of(scenario: &Scenario) -> String {
    std::fs::read_to_string(&scenario.path)
        .ok()
        .or_else(|| crate::shipped::text(&scenario.name).map(str::to_owned))
        .unwrap_or_default()
}

/// The indices of `scenarios` in the order to start them: longest expected wait first, ties in given order.
pub fn longest_first<'a>(scenarios: impl Iterator<Item = &'a Scenario>) -> Vec<usize> {
    let mut order: Vec<(usize, u64)> =
        scenarios.enumerate().map(|(index, scenario)| (index, expected_wait_ms(&text_of(scenario)))).collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    order.into_iter().map(|(index, _)| index).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_delays_holds_and_crashes_count_and_other_numbers_do_not() {
        let text = r#"
[auth.alice]
approval = { tool = "x", arguments = "{}", expires_in_ms = 600000 }
[[step]]
budget_ms = 300
faults = [{ kind = "commit_then_delay", ms = 2500 }, { kind = "hold_until", count = 2, timeout_ms = 400 }]
[[step]]
action = "wait"
ms = 3000 # the lease
faults = [{ kind = "kill_after_commit" }]
expect = { details = { retry_after_ms = 7000 } }
"#;
        assert_eq!(expected_wait_ms(text), 2500 + 400 + 3000 + 1000);
        assert_eq!(expected_wait_ms("description = \"no waits\""), 0);
    }

    #[test]
    fn the_crash_scenarios_start_before_the_quick_ones() {
        let scenarios = crate::shipped::scenarios().expect("shipped");
        let order = longest_first(scenarios.iter());
        assert_eq!(order.len(), scenarios.len());
        let position = |id: &str| order.iter().position(|index| scenarios[*index].name == id).expect("present");
        assert!(position("idempotency/crash_after_commit") < position("auth/missing_scope"));
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..scenarios.len()).collect::<Vec<_>>(), "every scenario once");
    }
}
