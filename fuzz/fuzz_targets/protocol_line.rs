//! callproof/1 line reading and message parsing on arbitrary bytes, as both ends read them.
//!
//! Invariants: neither the bounded line reader nor the parsers panic; every message either end accepts
//! survives a round trip (written as a line, read back: the same message).
#![no_main]

use callproof_executor::lines::read_line;
use callproof_executor::protocol::{FromExecutor, ToExecutor};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Builder::new_current_thread().build().expect("a runtime"))
}

fuzz_target!(|bytes: &[u8]| {
    let lines = runtime().block_on(async {
        let mut reader = tokio::io::BufReader::with_capacity(64, bytes);
        let mut lines = Vec::new();
        while let Ok(Some(line)) = read_line(&mut reader).await {
            lines.push(line);
        }
        lines
    });
    for line in &lines {
        assert!(!line.contains('\n'), "a line holds a newline");
        if let Ok(message) = ToExecutor::parse(line) {
            let written = message.to_line();
            assert_eq!(ToExecutor::parse(written.trim_end_matches('\n')).ok(), Some(message), "{written}");
        }
        if let Ok(message) = FromExecutor::parse(line) {
            let written = message.to_line();
            assert_eq!(FromExecutor::parse(written.trim_end_matches('\n')).ok(), Some(message), "{written}");
        }
    }
});
