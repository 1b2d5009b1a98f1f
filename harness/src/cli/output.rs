//! Where the CLI writes: stdout for what a command produces, stderr for progress and errors.
//!
//! Rule enforced here: a reader that goes away never makes callproof panic. When stdout is a closed pipe
//! (`callproof checks | head -1`) the command stops at once and exits 0, quietly, as ripgrep does: the reader
//! took what it wanted. Writes to stderr that fail are dropped. Colour only on a terminal, never with `NO_COLOR`.

use callproof_harness::conform::Status;
use std::io::{ErrorKind, IsTerminal, Write};
use std::sync::OnceLock;

/// How a command that prints one thing prints it (`list`, `mcp`): for people, or as one JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// For people: aligned columns (`list`); a line per check with the evidence under failures (`mcp`).
    Human,
    /// One JSON object (`list`: a key per list; `mcp`: the report).
    Json,
}

/// Writes `text` to stdout as is.
pub(crate) fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if error.kind() != ErrorKind::BrokenPipe {
            error_line(&format!("callproof: cannot write to stdout: {error}"));
            std::process::exit(2);
        }
        std::process::exit(0);
    }
}

/// Writes `text` and a newline to stdout.
pub(crate) fn line(text: &str) {
    print(&format!("{text}\n"));
}

/// Writes `text` and a newline to stderr, if stderr is still there.
pub(crate) fn error_line(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// Whether stdout gets colour: it is a terminal and `NO_COLOR` is unset or empty (no-color.org).
fn colour() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
    })
}

/// `line` with its first word (the status) coloured as `status` is, when stdout takes colour.
pub(crate) fn paint_status(line: &str, status: Status) -> String {
    painted(line, status, colour())
}

/// The footer with its verdict line (`PASS: ...` / `FAIL: ...`) coloured, when stdout takes colour.
pub(crate) fn paint_footer(text: &str) -> String {
    let on = colour();
    text.lines()
        .map(|line| match line.split_once(':').map(|(word, _)| word) {
            Some("PASS") => painted(line, Status::Pass, on),
            Some("FAIL") => painted(line, Status::Fail, on),
            _ => line.to_owned(),
        })
        .map(|line| line + "\n")
        .collect()
}

fn painted(line: &str, status: Status, on: bool) -> String {
    if !on {
        return line.to_owned();
    }
    let code = match status {
        Status::Pass => "32",
        Status::Fail => "1;31",
        Status::ExpectedFail | Status::Warn => "33",
        Status::Skip => "2",
    };
    let end = line.find(' ').unwrap_or(line.len());
    format!("\u{1b}[{code}m{}\u{1b}[0m{}", &line[..end], &line[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_coloured_only_when_asked_and_the_rest_of_the_line_is_left_alone() {
        assert_eq!(painted("FAIL  a/b  0.10s", Status::Fail, false), "FAIL  a/b  0.10s");
        assert_eq!(painted("FAIL  a/b", Status::Fail, true), "\u{1b}[1;31mFAIL\u{1b}[0m  a/b");
        assert_eq!(painted("PASS", Status::Pass, true), "\u{1b}[32mPASS\u{1b}[0m");
        assert!(painted("XFAIL x", Status::ExpectedFail, true).starts_with("\u{1b}[33mXFAIL"));
    }
}
