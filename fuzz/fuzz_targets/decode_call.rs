//! The whole decode stage on an arbitrary tool call against the conformance app's catalog.
//!
//! The first byte picks the tool (or a name that is no tool), the rest is the raw argument text. Invariants:
//! it never panics; every refusal is an input or protocol error (never a business, dependency or internal
//! one: nothing here may reach past decoding); every accepted call's canonical arguments parse back to the
//! value the executor will use, with the hash it reports.
#![no_main]

use callproof_executor::app::{HttpDownstream, conformance_app};
use callproof_executor::canonical::{canonical_json, sha256_hex};
use callproof_executor::decode::{Limits, decode, parse_strict};
use callproof_executor::error::Category;
use callproof_executor::{ToolCall, Tools};
use callproof_fuzz::same_value;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

fn tools() -> &'static (Tools, Vec<String>) {
    static TOOLS: OnceLock<(Tools, Vec<String>)> = OnceLock::new();
    TOOLS.get_or_init(|| {
        // Never contacted: decoding performs no I/O.
        let downstream = HttpDownstream::new("http://127.0.0.1:9").expect("a loopback base URL");
        let (tools, _) = conformance_app(Arc::new(downstream)).expect("the conformance app registers");
        let mut names: Vec<String> = tools.iter().map(|tool| tool.spec().name.clone()).collect();
        names.push("refund_order ".to_owned());
        (tools, names)
    })
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&pick, text)) = bytes.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let (tools, names) = tools();
    let name = &names[usize::from(pick) % names.len()];
    let call = ToolCall::raw("call_fuzz", name.as_str(), text);
    match decode(&call, tools, &Limits::default()) {
        Ok(decoded) => {
            let canonical = canonical_json(&decoded.arguments);
            let reparsed = parse_strict(canonical.as_bytes(), Limits::MAX_DEPTH).expect("canonical parses");
            assert!(same_value(&reparsed, &decoded.arguments), "canonical form parses back to another value");
            assert_eq!(sha256_hex(canonical.as_bytes()), decoded.arguments_hash.as_str(), "hash of another text");
        }
        Err(refusal) => {
            let category = refusal.category();
            assert!(
                matches!(category, Category::Input | Category::Protocol),
                "decoding refused with a {category:?} error: {refusal:?}"
            );
        }
    }
});
