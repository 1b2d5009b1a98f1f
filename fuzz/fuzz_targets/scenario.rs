//! The scenario loader on arbitrary text: a scenario file is untrusted input too.
//!
//! Invariant: parsing and validating never panics, whatever the text; it loads or it names what is wrong.
#![no_main]

use callproof_harness::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    if let Err(error) = Scenario::parse(text) {
        assert!(!error.to_string().is_empty(), "a refusal names what is wrong");
    }
});
