//! Soak mode: `CALLPROOF_SOAK=N` makes the race and crash tests repeat N rounds instead of their own count.
//!
//! Read once per test process. Unset means each test's default (so CI time does not change); a value that is
//! not a whole number of at least 1 is an error, never a silent default. Shared by the executor's store tests
//! and the harness's crash tests (`#[path]`), so both read the variable the same way.
#![allow(dead_code)]

use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

/// The variable.
pub(crate) const VAR: &str = "CALLPROOF_SOAK";

/// The rounds to run: `CALLPROOF_SOAK` when set, else `default`.
///
/// # Panics
/// When the variable is set to anything but a whole number of at least 1.
pub(crate) fn rounds(default: usize) -> usize {
    static PARSED: OnceLock<Result<Option<usize>, String>> = OnceLock::new();
    match PARSED.get_or_init(|| parse(std::env::var_os(VAR))) {
        Ok(rounds) => rounds.unwrap_or(default),
        Err(message) => panic!("{message}"),
    }
}

/// The variable's value as a round count: `None` when unset.
fn parse(value: Option<std::ffi::OsString>) -> Result<Option<usize>, String> {
    let Some(value) = value else { return Ok(None) };
    let text = value.to_string_lossy();
    match text.trim().parse::<usize>() {
        Ok(rounds) if rounds >= 1 => Ok(Some(rounds)),
        _ => Err(format!("{VAR}={text:?} is not a round count: give a whole number of at least 1, or unset it")),
    }
}

/// A soak of one test over one store: counts rounds and says how many ran, and in how long, when dropped
/// after the last one (a failing round panics first, and its message names the round).
pub(crate) struct Soak {
    name: String,
    started: Instant,
    done: usize,
}

impl Soak {
    /// Starts timing `test` over `store`.
    pub(crate) fn start(test: &str, store: &str) -> Soak {
        Soak { name: format!("{test} [{store}]"), started: Instant::now(), done: 0 }
    }

    /// One more round passed.
    pub(crate) fn passed(&mut self) {
        self.done += 1;
    }
}

impl Drop for Soak {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64();
        // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
        let _ = writeln!(std::io::stderr(), "soak: {}: {} rounds in {seconds:.1} s", self.name, self.done);
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn an_unset_variable_means_the_default_and_a_bad_value_is_an_error() {
        assert_eq!(parse(None), Ok(None));
        assert_eq!(parse(Some("1000".into())), Ok(Some(1000)));
        for bad in ["", "0", "-3", "ten", "1e3", "2.5"] {
            let error = parse(Some(bad.into())).expect_err(bad);
            assert!(error.contains("CALLPROOF_SOAK") && error.contains("whole number"), "{error}");
        }
    }
}
