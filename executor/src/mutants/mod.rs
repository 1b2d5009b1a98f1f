//! Known-bad executors: the reference executor with one classic bug each, for proving that checks bite.
//!
//! Rule enforced here: a mutant differs from the reference by a one-line swap of one stage or one port in its
//! [`Variant`] (two lines where the bug needs two cooperating parts), never by a copy of the pipeline. Each
//! mutant's doc says the bug it models. Nothing here is used by the reference executor.

pub mod ports;
pub mod stages;

use crate::app::Downstream;
use crate::clock::Clock;
use crate::executor::Stages;
use crate::store::Store;
use std::sync::Arc;

/// How to assemble an executor: stages plus wrappers around its ports.
#[derive(Clone, Copy)]
pub struct Variant {
    /// The stages.
    pub stages: Stages,
    /// Wraps the idempotency store.
    pub store: fn(Arc<dyn Store>) -> Arc<dyn Store>,
    /// Wraps the conformance app's downstream.
    pub downstream: fn(Arc<dyn Downstream>) -> Arc<dyn Downstream>,
    /// Wraps the clock.
    pub clock: fn(Arc<dyn Clock>) -> Arc<dyn Clock>,
}

impl Variant {
    /// The reference executor.
    pub const REFERENCE: Variant = Variant { stages: Stages::REFERENCE, store: same, downstream: same, clock: same };
}

fn same<T: ?Sized>(port: Arc<T>) -> Arc<T> {
    port
}

/// A named known-bad executor.
#[derive(Clone, Copy)]
pub struct Mutant {
    /// Its name (`--mutant NAME`).
    pub name: &'static str,
    /// The bug it models, in one sentence.
    pub bug: &'static str,
    /// How it is assembled.
    pub variant: Variant,
}

const R: Variant = Variant::REFERENCE;
const S: Stages = Stages::REFERENCE;

/// Every mutant, in a stable order: the fourteen of issue 4 first, then the ones that make the remaining
/// checks bite.
pub const ALL: [Mutant; 25] = [
    Mutant {
        name: "check-then-act",
        bug: "the idempotency claim reads, then writes, not atomically: concurrent duplicates both execute",
        variant: Variant { store: |store| Arc::new(ports::CheckThenActStore(store)), ..R },
    },
    Mutant {
        name: "key-from-call-id",
        bug: "the idempotency key is derived from the model's call_id, so a retry with a new call_id executes again",
        variant: Variant { stages: Stages { derive_key: stages::key_from_call_id, ..S }, ..R },
    },
    Mutant {
        name: "key-per-attempt",
        bug: "the idempotency key includes the attempt number: every retry is a new operation",
        variant: Variant { stages: Stages { derive_key: stages::key_per_attempt, ..S }, ..R },
    },
    Mutant {
        name: "timeout-as-not-started",
        bug: "a timeout after the request was sent is reported as timeout_not_started (retryable)",
        variant: Variant { stages: Stages { settle: stages::settle_timeout_as_not_started, ..S }, ..R },
    },
    Mutant {
        name: "lost-as-unavailable",
        bug: "a connection closed after sending is treated as dependency_unavailable and resent automatically",
        variant: Variant {
            stages: Stages { settle: stages::settle_lost_as_unavailable, ..S },
            downstream: |downstream| Arc::new(ports::ResendOnLost(downstream)),
            ..R
        },
    },
    Mutant {
        name: "coercing-decoder",
        bug: "the decoder coerces types (\"100\" → 100, true → 1) before validating",
        variant: Variant { stages: Stages { decode: stages::decode_coercing, ..S }, ..R },
    },
    Mutant {
        name: "unknown-fields-ignored",
        bug: "arguments the schema does not declare are dropped silently instead of refused",
        variant: Variant { stages: Stages { decode: stages::decode_ignoring_unknown_fields, ..S }, ..R },
    },
    Mutant {
        name: "duplicate-keys-last-wins",
        bug: "a repeated key in the arguments is accepted and the last value wins",
        variant: Variant { stages: Stages { decode: stages::decode_last_key_wins, ..S }, ..R },
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
    },
    Mutant {
        name: "approval-ignores-arguments",
        bug: "an approval is bound to the tool but not to the arguments (or the risk) it was given for",
        variant: Variant { stages: Stages { check_access: stages::approval_ignoring_arguments, ..S }, ..R },
    },
    Mutant {
        name: "output-unvalidated",
        bug: "the tool's output is passed on without checking it against the output schema",
        variant: Variant { stages: Stages { validate_output: stages::output_unvalidated, ..S }, ..R },
    },
    Mutant {
        name: "leaky-errors",
        bug: "error messages carry the downstream's body: secrets, stack traces, SQL, hostnames",
        variant: Variant { stages: Stages { settle: stages::settle_leaking_downstream_body, ..S }, ..R },
    },
    Mutant {
        name: "lease-expiry-to-absent",
        bug: "an IN_PROGRESS record whose lease expired goes back to ABSENT and is executed again",
        variant: Variant { store: |store| Arc::new(ports::LeaseExpiryToAbsentStore(store)), ..R },
    },
    Mutant {
        name: "unknown-reexecuted",
        bug: "an UNKNOWN outcome is retried by executing again, without a status query",
        variant: Variant { stages: Stages { plan_reconciliation: stages::reconcile_by_reexecuting, ..S }, ..R },
    },
    Mutant {
        name: "key-hashes-arguments",
        bug: "the key hashes the arguments even under a business request id, so changed arguments execute instead of conflicting",
        variant: Variant { stages: Stages { derive_key: stages::key_hashes_arguments, ..S }, ..R },
    },
    Mutant {
        name: "ownership-unchecked",
        bug: "holding the tool's scope is taken as access to every resource: no tenant or owner check",
        variant: Variant { stages: Stages { check_ownership: stages::ownership_unchecked, ..S }, ..R },
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
    },
    Mutant {
        name: "lying-retry-flags",
        bug: "timeout_unknown is flagged retryable with resolution retry_same_key",
        variant: Variant { stages: Stages { settle: stages::settle_lying_retry_flags, ..S }, ..R },
    },
    Mutant {
        name: "drops-retry-after",
        bug: "rate_limited answers omit retry_after_ms",
        variant: Variant { stages: Stages { settle: stages::settle_dropping_retry_after, ..S }, ..R },
    },
    Mutant {
        name: "errors-without-details",
        bug: "decode refusals carry no details: no path, position, reason or hint for the model to repair",
        variant: Variant { stages: Stages { decode: stages::decode_without_details, ..S }, ..R },
    },
    Mutant {
        name: "deadline-ignored",
        bug: "the caller's budget is ignored; the executor waits on its own, much longer timeout",
        variant: Variant { clock: |clock| Arc::new(ports::SkewedClock(clock)), ..R },
    },
    Mutant {
        name: "completion-not-recorded",
        bug: "the outcome is never written back: the record stays IN_PROGRESS past its lease",
        variant: Variant { store: |store| Arc::new(ports::LosesCompletionsStore(store)), ..R },
    },
    Mutant {
        name: "no-deadline-header",
        bug: "the remaining deadline is not sent downstream",
        variant: Variant { downstream: |downstream| Arc::new(ports::StripHeader(downstream, "x-deadline-ms")), ..R },
    },
    Mutant {
        name: "no-request-id",
        bug: "downstream requests do not carry the executor's request id",
        variant: Variant { downstream: |downstream| Arc::new(ports::StripHeader(downstream, "x-request-id")), ..R },
    },
    Mutant {
        name: "follows-output-instructions",
        bug: "instructions found in tool output are executed as commands",
        variant: Variant { downstream: |downstream| Arc::new(ports::FollowsInstructions(downstream)), ..R },
    },
];

/// The mutant with this name.
pub fn by_name(name: &str) -> Option<Mutant> {
    ALL.into_iter().find(|mutant| mutant.name == name)
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
}
