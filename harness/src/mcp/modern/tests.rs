use super::*;

fn exchange(message: Value, status: Option<u16>) -> Exchange {
    Exchange { sent: "{}".to_owned(), answer: Answer::Response(message), status }
}

fn result(result: Value) -> Answer {
    Answer::Response(json!({"jsonrpc": "2.0", "id": 1, "result": result}))
}

#[test]
fn a_discover_result_must_list_2026_07_28_and_the_tools_capability() {
    let good = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}});
    assert_eq!(discover_problem(&result(good)), None);
    let no_tools = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
    assert!(discover_problem(&result(no_tools)).is_some_and(|why| why.contains("capabilities.tools")));
    let other = json!({"supportedVersions": ["2099-01-01"], "capabilities": {"tools": {}}});
    assert!(discover_problem(&result(other)).is_some_and(|why| why.contains("does not list 2026-07-28")));
    assert!(discover_problem(&Answer::Silent).is_some());
}

#[test]
fn every_result_type_the_spec_defines_passes_and_a_missing_or_unknown_one_fails() {
    assert_eq!(result_type_problem(&json!({"resultType": "complete"})), None);
    assert_eq!(result_type_problem(&json!({"resultType": "input_required"})), None);
    assert!(result_type_problem(&json!({})).is_some_and(|why| why.contains("no resultType")));
    assert!(result_type_problem(&json!({"resultType": "task"})).is_some(), "no extension was declared");
    assert!(result_type_problem(&json!({"resultType": 1})).is_some());
}

#[test]
fn server_info_needs_a_name_and_a_version_in_meta() {
    let named = json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}});
    assert_eq!(server_info_problem(&named), None);
    assert!(server_info_problem(&json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s"}}})).is_some());
    assert!(server_info_problem(&json!({"serverInfo": {"name": "s", "version": "1"}})).is_some());
}

#[test]
fn the_cache_fields_need_a_non_negative_integer_ttl_and_a_known_scope() {
    assert_eq!(cache_problem(&json!({"ttlMs": 0, "cacheScope": "private"})), None);
    assert_eq!(cache_problem(&json!({"ttlMs": 60000, "cacheScope": "public"})), None);
    assert!(cache_problem(&json!({"cacheScope": "public"})).is_some_and(|why| why.contains("ttlMs is missing")));
    assert!(cache_problem(&json!({"ttlMs": -1, "cacheScope": "public"})).is_some());
    assert!(cache_problem(&json!({"ttlMs": 5, "cacheScope": "shared"})).is_some_and(|why| why.contains("shared")));
}

#[test]
fn the_same_names_in_the_same_order_pass_and_any_other_order_fails() {
    assert_eq!(order_problem(&["a", "b"], &["a".to_owned(), "b".to_owned()]), None);
    assert!(order_problem(&["a", "b"], &["b", "a"]).is_some());
    assert!(order_problem(&["a", "b"], &["a"]).is_some());
}

#[test]
fn version_negotiation_needs_minus_32022_with_the_supported_versions_and_over_http_a_400() {
    let refused = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "m",
                         "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}}});
    assert!(lists_supported(&Answer::Response(refused.clone())));
    let bare = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "m"}});
    assert!(!lists_supported(&Answer::Response(bare)), "no data.supported");
    assert!(!lists_supported(&result(json!({"tools": []}))), "served the unknown version");
    assert!(verdict(true, 400, "x", &exchange(refused.clone(), Some(400))).0);
    assert!(verdict(true, 400, "x", &exchange(refused.clone(), None)).0, "stdio has no status");
    let (passed, why) = verdict(true, 400, "x", &exchange(refused, Some(200)));
    assert!(!passed && why.contains("status 200, not 400"), "{why}");
}

#[test]
fn the_checks_name_2026_07_28_in_their_citation() {
    for check in ONLY.iter().chain(&[HANDSHAKE, VERSION_NEGOTIATION]) {
        assert!(check.cites.starts_with("2026-07-28"), "{check:?}");
    }
}

#[test]
fn get_must_be_refused_and_is_never_served() {
    assert_eq!(get_verdict(Ok(405)), (true, "GET answered with status 405".to_owned()));
    assert!(get_verdict(Ok(400)).0, "a dual-era server's refusal of a GET without a session");
    assert!(!get_verdict(Ok(200)).0 && !get_verdict(Ok(500)).0);
    assert!(!get_verdict(Err("connection refused".into())).0);
}
