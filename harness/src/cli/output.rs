//! Where the CLI writes: stdout for what a command produces, stderr for progress and errors.
//!
//! Rule enforced here: a reader that goes away never makes callproof panic. When stdout is a closed pipe
//! (`callproof checks | head -1`) the command stops at once and exits 0, quietly, as ripgrep does: the reader
//! took what it wanted. Writes to stderr that fail are dropped.

use std::io::{ErrorKind, Write};

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
