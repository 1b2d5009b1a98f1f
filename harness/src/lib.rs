//! callproof's conformance and fault-injection harness. Start here.
