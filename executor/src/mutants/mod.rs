//! Known-bad executors: the reference executor with one classic bug each, for proving that checks bite.
//!
//! Rule enforced here: a mutant differs from the reference by a one-line swap of one stage or one port in its
//! [`Variant`] (two lines where the bug needs two cooperating parts), never by a copy of the pipeline. Each
//! mutant is one row of [`ALL`]: its name, the bug it models, how it is assembled, and the harness checks it
//! must trip (in process, and as a separate process). Nothing here is used by the reference executor, and
//! none of it is compiled without the cargo feature `mutants`.

pub mod ports;
pub mod stages;

use crate::app::Variant;
use crate::executor::Stages;
use std::sync::Arc;

/// A named known-bad executor: one row of the table.
#[derive(Clone, Copy)]
pub struct Mutant {
    /// Its name (`--mutant NAME`).
    pub name: &'static str,
    /// The bug it models, in one sentence.
    pub bug: &'static str,
    /// How it is assembled.
    pub variant: Variant,
    /// The harness checks (ids of docs/checks.md) it must trip when the shipped suite runs against it in
    /// process. The executor crate does not depend on the harness, so the ids are strings; the harness
    /// tests that each names a check.
    pub trips: &'static [&'static str],
    /// How it is caught as a separate process.
    pub process: AsProcess,
}

/// How a mutant is caught when it runs as a process (`callproof-executor --stdio --mutant NAME`), where the
/// harness cannot read its idempotency records; the same holds over MCP (`--mcp`, `--mcp-http`), which needs no
/// row of its own (harness/tests/conform_mcp_mutants.rs).
#[derive(Clone, Copy)]
pub struct AsProcess {
    /// The shipped scenarios that exercise its checks (paths under `scenarios/`, without `.toml`).
    pub scenarios: &'static [&'static str],
    /// The checks it must trip there, when they differ from [`Mutant::trips`] (a check that reads the
    /// executor's records is judged by another one).
    pub trips: Option<&'static [&'static str]>,
    /// Whether it needs records that survive a restart (its bug shows only across a kill).
    pub durable_store: bool,
    /// Whether its bug shows only when its store fails: as a process, over PostgreSQL reached through the
    /// harness's store proxy (`conform --store-address`), which `store_outage` cuts.
    pub store_outage: bool,
    /// Whether its bug can show over MCP too (`--mcp`): not when it lies in the `callproof/1` handshake, which an
    /// MCP server does not have.
    pub over_mcp: bool,
}

impl Mutant {
    /// The checks it must trip as a separate process.
    pub fn trips_as_process(&self) -> &'static [&'static str] {
        self.process.trips.unwrap_or(self.trips)
    }
}

/// Caught as a process over these scenarios, by the same checks as in process, on any store.
const fn over(scenarios: &'static [&'static str]) -> AsProcess {
    AsProcess { scenarios, trips: None, durable_store: false, store_outage: false, over_mcp: true }
}

const R: Variant = Variant::REFERENCE;
const S: Stages = Stages::REFERENCE;

/// Every mutant, in a stable order: the fourteen of issue 4 first, then the ones that make the remaining
/// checks bite.
pub const ALL: &[Mutant] = &[
    Mutant {
        name: "check-then-act",
        bug: "the idempotency claim reads, then writes, not atomically: concurrent duplicates both execute",
        variant: Variant { store: |store| Arc::new(ports::CheckThenActStore(store)), ..R },
        trips: &["single-effect", "burst-single-execution"],
        process: over(&["idempotency/burst_of_identical_calls"]),
    },
    Mutant {
        name: "key-from-call-id",
        bug: "the idempotency key is derived from the model's call_id, so a retry with a new call_id executes again",
        variant: Variant { stages: Stages { derive_key: stages::key_from_call_id, ..S }, ..R },
        trips: &["same-key", "single-effect", "replay-same-result"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "key-per-attempt",
        bug: "the idempotency key includes the attempt number: every retry is a new operation",
        variant: Variant { stages: Stages { derive_key: stages::key_per_attempt, ..S }, ..R },
        trips: &["same-key", "single-effect"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "timeout-as-not-started",
        bug: "a timeout after the request was sent is reported as timeout_not_started (retryable)",
        variant: Variant { stages: Stages { settle: stages::settle_timeout_as_not_started, ..S }, ..R },
        trips: &["failure-means-not-applied", "unknown-outcome-not-retryable", "not-sent-means-unseen"],
        process: over(&["idempotency/timeout_after_commit_reconciles"]),
    },
    Mutant {
        name: "lost-as-unavailable",
        bug: "a connection closed after sending is treated as dependency_unavailable and resent automatically",
        variant: Variant {
            stages: Stages { settle: stages::settle_lost_as_unavailable, ..S },
            downstream: |downstream| Arc::new(ports::ResendOnLost(downstream)),
            ..R
        },
        trips: &["single-effect", "ok-means-applied"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "coercing-decoder",
        bug: "the decoder coerces types (\"100\" → 100, true → 1) before validating",
        variant: Variant { stages: Stages { decode: stages::decode_coercing, ..S }, ..R },
        trips: &["corpus-codes", "expectations", "malformed-input-refused", "body-is-arguments"],
        process: over(&["decode/malformed_corpus", "decode/string_for_integer"]),
    },
    Mutant {
        name: "unknown-fields-ignored",
        bug: "arguments the schema does not declare are dropped silently instead of refused",
        variant: Variant { stages: Stages { decode: stages::decode_ignoring_unknown_fields, ..S }, ..R },
        trips: &["corpus-codes", "malformed-input-refused", "body-is-arguments"],
        process: over(&["decode/malformed_corpus"]),
    },
    Mutant {
        name: "duplicate-keys-last-wins",
        bug: "a repeated key in the arguments is accepted and the last value wins",
        variant: Variant { stages: Stages { decode: stages::decode_last_key_wins, ..S }, ..R },
        trips: &["corpus-codes", "malformed-input-refused"],
        process: over(&["decode/malformed_corpus"]),
    },
    Mutant {
        name: "trusts-argument-identity",
        bug: "tenant_id, user_id and is_admin in the arguments are believed over the trusted context",
        variant: Variant {
            stages: Stages {
                decode: stages::decode_lifting_identity,
                check_ownership: stages::ownership_from_arguments,
                ..S
            },
            ..R
        },
        trips: &["tenant-isolation"],
        process: over(&["auth/identity_in_arguments"]),
    },
    Mutant {
        name: "approval-ignores-arguments",
        bug: "an approval is bound to the tool but not to the arguments (or the risk) it was given for",
        variant: Variant { stages: Stages { check_access: stages::approval_ignoring_arguments, ..S }, ..R },
        trips: &["approval-bound"],
        process: over(&["auth/approval_bound_to_arguments"]),
    },
    Mutant {
        name: "output-unvalidated",
        bug: "the tool's output is passed on without checking it against the output schema",
        variant: Variant { stages: Stages { validate_output: stages::output_unvalidated, ..S }, ..R },
        trips: &["output-invalid-withheld"],
        process: over(&["downstream/bad_output_withheld"]),
    },
    Mutant {
        name: "leaky-errors",
        bug: "error messages carry the downstream's body: secrets, stack traces, SQL, hostnames",
        variant: Variant { stages: Stages { settle: stages::settle_leaking_downstream_body, ..S }, ..R },
        trips: &["no-secret-leak"],
        process: over(&["downstream/leak_bait"]),
    },
    Mutant {
        name: "lease-expiry-to-absent",
        bug: "an IN_PROGRESS record whose lease expired goes back to ABSENT and is executed again",
        variant: Variant { store: |store| Arc::new(ports::LeaseExpiryToAbsentStore(store)), ..R },
        trips: &["single-effect", "reconcile-before-resend"],
        // The bug shows after a kill: over a memory store every executor would lose the record.
        process: AsProcess { durable_store: true, ..over(&["idempotency/crash_after_commit"]) },
    },
    Mutant {
        name: "unknown-reexecuted",
        bug: "an UNKNOWN outcome is retried by executing again, without a status query",
        variant: Variant { stages: Stages { plan_reconciliation: stages::reconcile_by_reexecuting, ..S }, ..R },
        trips: &["reconcile-before-resend", "single-effect"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "key-hashes-arguments",
        bug: "the key hashes the arguments even under a business request id, so changed arguments execute instead of conflicting",
        variant: Variant { stages: Stages { derive_key: stages::key_hashes_arguments, ..S }, ..R },
        trips: &["conflict-on-changed-arguments"],
        process: over(&["idempotency/changed_arguments_conflict"]),
    },
    Mutant {
        name: "ownership-unchecked",
        bug: "holding the tool's scope is taken as access to every resource: no tenant or owner check",
        variant: Variant { stages: Stages { check_ownership: stages::ownership_unchecked, ..S }, ..R },
        trips: &["tenant-isolation"],
        process: over(&["auth/foreign_order_forbidden"]),
    },
    Mutant {
        name: "scope-after-lookup",
        bug: "the scope is checked after the resource was loaded from the downstream",
        variant: Variant {
            stages: Stages {
                check_access: stages::access_without_scope,
                check_ownership: stages::scope_after_lookup,
                ..S
            },
            ..R
        },
        trips: &["rejection-has-no-effect"],
        process: over(&["auth/missing_scope"]),
    },
    Mutant {
        name: "lying-retry-flags",
        bug: "timeout_unknown is flagged retryable with resolution retry_same_key",
        variant: Variant { stages: Stages { settle: stages::settle_lying_retry_flags, ..S }, ..R },
        trips: &["code-table", "envelope-schema"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "drops-retry-after",
        bug: "rate_limited answers omit retry_after_ms",
        variant: Variant { stages: Stages { settle: stages::settle_dropping_retry_after, ..S }, ..R },
        trips: &["rate-limit-retry-after"],
        process: over(&["downstream/rate_limited"]),
    },
    Mutant {
        name: "errors-without-details",
        bug: "decode refusals carry no details: no path, position, reason or hint for the model to repair",
        variant: Variant { stages: Stages { decode: stages::decode_without_details, ..S }, ..R },
        trips: &["corpus-details"],
        process: over(&["decode/malformed_corpus"]),
    },
    Mutant {
        name: "deadline-ignored",
        bug: "the caller's budget is ignored; the executor waits on its own, much longer timeout",
        variant: Variant { clock: |clock| Arc::new(ports::SkewedClock(clock)), ..R },
        trips: &["answer-within-deadline"],
        process: over(&["deadline/read_timeout_is_retryable"]),
    },
    Mutant {
        name: "completion-not-recorded",
        bug: "the outcome is never written back: the record stays IN_PROGRESS past its lease",
        variant: Variant { store: |store| Arc::new(ports::LosesCompletionsStore(store)), ..R },
        trips: &["lease-honoured"],
        // `lease-honoured` reads the executor's records, which a process does not expose: there the retry that
        // meets the stuck record fails the scenario's own expectations instead.
        process: AsProcess {
            trips: Some(&["expectations"]),
            ..over(&["idempotency/duplicate_refund_after_lost_response"])
        },
    },
    Mutant {
        name: "no-deadline-header",
        bug: "the remaining deadline is not sent downstream",
        variant: Variant { downstream: |downstream| Arc::new(ports::StripHeader(downstream, "x-deadline-ms")), ..R },
        trips: &["deadline-propagated"],
        process: over(&["idempotency/timeout_before_commit_reexecutes"]),
    },
    Mutant {
        name: "status-query-without-key-header",
        bug: "status queries carry the key in their query string only, not in the Idempotency-Key header",
        variant: Variant { downstream: |downstream| Arc::new(ports::StatusQueryWithoutKeyHeader(downstream)), ..R },
        trips: &["same-key"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "deadline-in-seconds",
        bug: "X-Deadline-Ms carries seconds: the downstream is told 3 ms are left of a 3 s budget",
        variant: Variant { downstream: |downstream| Arc::new(ports::DeadlineInSeconds(downstream)), ..R },
        trips: &["deadline-propagated"],
        process: over(&["deadline/slow_but_in_time"]),
    },
    Mutant {
        name: "deadline-per-request",
        bug: "every downstream request of a call is told the deadline of its first: after a slow lookup, the effect \
              is given the whole budget again",
        variant: Variant { downstream: ports::DeadlinePerRequest::wrap, ..R },
        trips: &["deadline-propagated"],
        process: over(&["deadline/slow_lookup_then_effect"]),
    },
    Mutant {
        name: "no-request-id",
        bug: "downstream requests do not carry the executor's request id",
        variant: Variant { downstream: |downstream| Arc::new(ports::StripHeader(downstream, "x-request-id")), ..R },
        trips: &["request-id-propagated"],
        process: over(&["idempotency/duplicate_while_in_progress"]),
    },
    Mutant {
        name: "follows-output-instructions",
        bug: "instructions found in tool output are executed as commands",
        variant: Variant { downstream: |downstream| Arc::new(ports::FollowsInstructions(downstream)), ..R },
        trips: &["injected-text-inert"],
        process: over(&["downstream/injected_text_is_data"]),
    },
    Mutant {
        name: "unreadable-as-unavailable",
        bug: "a success answer whose body does not parse is reported as a retryable, not-applied failure",
        variant: Variant { stages: Stages { settle: stages::settle_unreadable_as_unavailable, ..S }, ..R },
        trips: &["failure-means-not-applied", "single-effect", "ok-means-applied", "expectations"],
        process: over(&["downstream/truncated_success_body"]),
    },
    Mutant {
        name: "task-result-not-kept",
        bug: "a task poll's final answer is not recorded: every poll re-reads the job, and its result changes",
        variant: Variant { stages: Stages { task_final: stages::task_never_final, ..S }, ..R },
        trips: &["task-final-stable"],
        process: over(&["tasks/export_polled_to_completion"]),
    },
    Mutant {
        name: "task-early-success",
        bug: "a task poll reports completed while the job is still working",
        variant: Variant {
            downstream: |downstream| Arc::new(ports::OptimisticTaskStatus(downstream, "GET", "completed")),
            ..R
        },
        trips: &["task-status-truthful"],
        process: over(&["tasks/export_polled_to_completion"]),
    },
    Mutant {
        name: "task-cancel-claims-cancelled",
        bug: "a cancel request is reported as cancelled at once, though cancellation is cooperative and the job may complete",
        variant: Variant {
            downstream: |downstream| Arc::new(ports::OptimisticTaskStatus(downstream, "DELETE", "cancelled")),
            ..R
        },
        trips: &["task-status-truthful"],
        process: over(&["tasks/cancel_races_completion"]),
    },
    Mutant {
        name: "missing-told-apart",
        bug: "a resource that does not exist is refused with its own message, telling it from another tenant's",
        variant: Variant { stages: Stages { check_ownership: stages::ownership_tells_missing_apart, ..S }, ..R },
        trips: &["task-refusal-uniform", "resource-refusal-uniform"],
        process: over(&["tasks/foreign_or_unknown_handle", "auth/foreign_order_forbidden"]),
    },
    Mutant {
        name: "follows-redirects",
        bug: "the HTTP client follows downstream redirects (reqwest's default): the request, identity and key go \
              wherever a 3xx points, and a refused connection there is reported as not sent",
        variant: Variant { redirects: reqwest::redirect::Policy::default, ..R },
        trips: &["configured-origin-only", "identity-stays-home", "not-sent-means-unseen"],
        process: over(&["redirect/after_commit_to_unreachable", "redirect/foreign_307_keeps_identity_home"]),
    },
    Mutant {
        name: "version-prefix-match",
        bug: "a hello is accepted when its protocol starts with \"callproof/1\", so callproof/10 is taken for the \
              version it speaks",
        variant: Variant { speaks: ports::speaks_by_prefix, ..R },
        trips: &["unknown-version-refused"],
        process: AsProcess { over_mcp: false, ..over(&["internal/unknown_protocol_version_refused"]) },
    },
    Mutant {
        name: "store-errors-ignored",
        bug: "a failing idempotency store is taken for an empty one: the call goes ahead without a claim and its \
              outcome is never recorded",
        variant: Variant { store: |store| Arc::new(ports::FailsOpenStore(store)), ..R },
        trips: &["expectations", "single-effect"],
        process: AsProcess { store_outage: true, ..over(&["internal/store_outage"]) },
    },
    Mutant {
        name: "replay-stale-meta",
        bug: "a replay answers the stored envelope with its meta: the first call's call_id, attempt and request_id",
        variant: Variant { stages: Stages { replay: stages::replay_with_stored_meta, ..S }, ..R },
        trips: &["meta-echoes-call"],
        process: over(&["idempotency/duplicate_refund_after_lost_response"]),
    },
    Mutant {
        name: "replay-as-in-progress",
        bug: "a replay answers operation_in_progress, marked replayed, instead of the stored outcome: a cache that \
              answers from the record's existence, not from what it holds",
        variant: Variant { stages: Stages { replay: stages::replay_as_in_progress, ..S }, ..R },
        trips: &["expectations", "replayed-means-recorded"],
        process: over(&["idempotency/retry_replays_success"]),
    },
    Mutant {
        name: "identity-on-writes-only",
        bug: "X-Tenant-Id and X-Subject-Id go only on requests with an Idempotency-Key: lookups and reads are \
              anonymous to the downstream",
        variant: Variant { downstream: |downstream| Arc::new(ports::IdentityOnKeyedRequestsOnly(downstream)), ..R },
        trips: &["identity-propagated"],
        process: over(&["idempotency/duplicate_while_in_progress"]),
    },
    Mutant {
        name: "sensitive-values-echoed",
        bug: "a schema violation's message quotes the value it refuses, the value of an x-sensitive argument too",
        variant: Variant { stages: Stages { decode: stages::decode_echoing_values, ..S }, ..R },
        trips: &["no-secret-leak"],
        process: over(&["decode/sensitive_value_withheld"]),
    },
    Mutant {
        name: "url-queries-scrubbed",
        bug: "a secret scrubber masks the query of every URL in the downstream's successes, so a signed download \
              link reaches the result as ?REDACTED instead of the link the service signed",
        variant: Variant { downstream: |downstream| Arc::new(ports::ScrubsUrlQueries(downstream)), ..R },
        trips: &["result-matches-downstream"],
        process: over(&["tasks/export_polled_to_completion"]),
    },
];

/// The mutant with this name.
pub fn by_name(name: &str) -> Option<Mutant> {
    ALL.iter().find(|mutant| mutant.name == name).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let names: std::collections::BTreeSet<&str> = ALL.iter().map(|mutant| mutant.name).collect();
        assert_eq!(names.len(), ALL.len());
        assert!(by_name("check-then-act").is_some());
        assert!(by_name("nope").is_none());
    }

    #[test]
    fn every_row_names_checks_to_trip_and_scenarios_to_trip_them_in() {
        for mutant in ALL {
            assert!(!mutant.trips.is_empty(), "{} names no check", mutant.name);
            assert!(!mutant.trips_as_process().is_empty(), "{} names no check as a process", mutant.name);
            assert!(!mutant.process.scenarios.is_empty(), "{} names no scenario", mutant.name);
        }
        let stuck = by_name("completion-not-recorded").expect("a mutant");
        assert_eq!(stuck.trips_as_process(), ["expectations"]);
        assert_eq!(
            by_name("check-then-act").expect("a mutant").trips_as_process(),
            ["single-effect", "burst-single-execution"]
        );
    }
}
