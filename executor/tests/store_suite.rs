//! One suite for every `Store`: the same tests run against the memory, SQLite, PostgreSQL and Redis stores.
//!
//! Each test is written once as `async fn name(backend)`; the macros at the bottom instantiate it per
//! backend (`memory::name`, `sqlite::name`, `postgres::name`, `redis::name`). Tests of what only a durable,
//! shared store can do (reopen, a second client, a second process, a schema version) skip the memory store.
//! The 64-way races and the killed writer repeat `CALLPROOF_SOAK` rounds when it is set (docs/stores.md, Soak mode).

mod soak;
mod store_support;

use callproof_executor::idempotency::{RECORD_FORMAT, State, Update, Version, is_legal};
use callproof_executor::store::{Claim, Locator, OpenError, Opened, SCHEMA_VERSION, Store, StoreError, StoreExt};
use serde_json::json;
use soak::Soak;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use store_support::{
    Backend, CHILD_NAME, Env, NOW, applied, child_runtime, child_target, claimed, make_format_one, new_record,
    outcome_for, record_in, set_schema_version, spawn_child,
};
use tokio::io::AsyncWriteExt;
use tokio::sync::Barrier;

/// Every state a record can be in, in the order the suite walks them.
const STATES: [State; 5] = State::ALL;

// ---- claims -----------------------------------------------------------------------------------------------

async fn a_claim_of_an_absent_key_creates_in_progress_at_epoch_one(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    assert_eq!(store.load("k").await.expect("load"), None);
    let new = new_record("k", "fp_a", NOW);
    assert_eq!(store.claim(&new).await.expect("claim"), Claim::Acquired);
    let record = store.load("k").await.expect("load").expect("a record");
    assert_eq!(record, new.into_record());
    assert_eq!((record.state, record.epoch, record.attempts), (State::InProgress, 1, 1));
}

async fn a_second_claim_returns_the_existing_record_untouched(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    for state in STATES {
        let key = format!("again-{state}");
        let before = record_in(&*store, &key, state, NOW).await;
        let again = store.claim(&new_record(&key, "fp", NOW + 500)).await.expect("claim");
        assert_eq!(again, Claim::Existing(before.clone()), "{state}");
        assert_eq!(store.load(&key).await.expect("load"), Some(before), "{state}: unchanged");
    }
}

async fn a_claim_with_another_fingerprint_returns_the_existing_record_untouched(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    for state in STATES {
        let key = format!("conflict-{state}");
        let before = record_in(&*store, &key, state, NOW).await;
        let other = store.claim(&new_record(&key, "another_fingerprint", NOW + 500)).await.expect("claim");
        let Claim::Existing(existing) = other else { panic!("{state}: a different fingerprint acquired the key") };
        assert_eq!(existing, before, "{state}");
        assert_eq!(&*existing.fingerprint, "fp");
        assert_eq!(store.load(&key).await.expect("load"), Some(before), "{state}: unchanged");
    }
}

// ---- transitions ------------------------------------------------------------------------------------------

/// The update that takes `record` to `to` along the arrow's epoch rule.
fn update_to(record: &callproof_executor::idempotency::Record, to: State, now_ms: u64) -> Update {
    if to == State::InProgress {
        Update::retake(record, now_ms + 10_000, now_ms + 8_000, now_ms)
    } else {
        Update::settle(record, to, outcome_for(to).map(|outcome| json!({"moved_to": outcome})), now_ms)
    }
}

async fn every_legal_transition_applies_exactly_the_update(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let mut seen = 0;
    for from in STATES {
        for to in STATES.into_iter().filter(|to| is_legal(Some(from), *to)) {
            let key = format!("legal-{from}-{to}");
            let record = record_in(&*store, &key, from, NOW).await;
            let update = update_to(&record, to, NOW + 1_000);
            let expected = applied(&record, update.clone());
            assert!(store.advance(&key, record.version(), update).await.expect("advance"), "{from} → {to}");
            assert_eq!(store.load(&key).await.expect("load"), Some(expected), "{from} → {to}");
            seen += 1;
        }
    }
    assert_eq!(seen, 9, "every arrow out of a stored state");
}

async fn every_illegal_transition_is_refused_and_changes_nothing(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let mut seen = 0;
    for from in STATES {
        let key = format!("illegal-{from}");
        let record = record_in(&*store, &key, from, NOW).await;
        for to in STATES.into_iter().filter(|to| !is_legal(Some(from), *to)) {
            let refused = store.advance(&key, record.version(), update_to(&record, to, NOW + 1_000)).await;
            assert!(matches!(refused, Err(StoreError::Illegal(_))), "{from} → {to}: {refused:?}");
            assert_eq!(store.load(&key).await.expect("load").as_ref(), Some(&record), "{from} → {to}");
            seen += 1;
        }
    }
    assert_eq!(seen, 16, "every missing arrow between stored states");
}

async fn a_transition_with_the_wrong_epoch_is_refused_and_changes_nothing(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    for from in STATES {
        for to in STATES.into_iter().filter(|to| is_legal(Some(from), *to)) {
            let key = format!("epoch-{from}-{to}");
            let record = record_in(&*store, &key, from, NOW).await;
            let right = update_to(&record, to, NOW + 1_000);
            for epoch in [right.epoch - 1, right.epoch + 1] {
                let wrong = Update { epoch, ..right.clone() };
                let refused = store.advance(&key, record.version(), wrong).await;
                assert!(matches!(refused, Err(StoreError::Illegal(_))), "{from} → {to} at epoch {epoch}");
                assert_eq!(store.load(&key).await.expect("load").as_ref(), Some(&record), "{from} → {to}");
            }
        }
    }
}

async fn a_compare_and_set_on_a_moved_record_does_nothing(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let record = claimed(&*store, "moved", NOW).await;
    let done = Update::settle(&record, State::Succeeded, Some(json!({"first": true})), NOW + 1);
    assert!(store.compare_and_set("moved", record.version(), done.clone()).await.expect("cas"));
    let settled = applied(&record, done);

    // The same version again, with another answer: the record has moved on.
    let late = Update::settle(&record, State::FailedFinal, Some(json!({"second": true})), NOW + 2);
    assert!(!store.compare_and_set("moved", record.version(), late).await.expect("cas"));
    // Right state, wrong epoch; right epoch, wrong state.
    for expected in [Version { state: State::Succeeded, epoch: 2 }, Version { state: State::Unknown, epoch: 1 }] {
        let update = Update::settle(&settled, State::FailedFinal, None, NOW + 3);
        assert!(!store.compare_and_set("moved", expected, update).await.expect("cas"), "{expected:?}");
    }
    assert_eq!(store.load("moved").await.expect("load"), Some(settled));
}

async fn a_compare_and_set_on_an_absent_key_does_nothing_and_creates_nothing(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let ghost = new_record("ghost", "fp", NOW).into_record();
    let update = Update::settle(&ghost, State::Succeeded, Some(json!({})), NOW + 1);
    assert!(!store.advance("ghost", ghost.version(), update).await.expect("advance"));
    assert_eq!(store.load("ghost").await.expect("load"), None);
}

async fn an_expired_lease_becomes_unknown_and_stays_claimed(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let record = claimed(&*store, "lease", NOW).await;
    let later = record.lease_expires_ms + 1;
    let seen = match store.claim(&new_record("lease", "fp", later)).await.expect("claim") {
        Claim::Existing(seen) => seen,
        Claim::Acquired => panic!("an expired lease let a second claim acquire the key"),
    };
    assert!(seen.state == State::InProgress && seen.lease_expires_ms < later);

    let unknown = Update::settle(&seen, State::Unknown, None, later);
    assert!(store.advance("lease", seen.version(), unknown.clone()).await.expect("advance"));
    // A second observer of the same expiry loses the race and changes nothing.
    assert!(!store.advance("lease", seen.version(), unknown.clone()).await.expect("advance"));
    let stored = store.load("lease").await.expect("load").expect("the record");
    assert_eq!(stored, applied(&seen, unknown));

    let again = store.claim(&new_record("lease", "fp", later + 1)).await.expect("claim");
    assert_eq!(again, Claim::Existing(stored.clone()), "UNKNOWN never goes back to ABSENT");
    assert_eq!(store.purge_expired(u64::MAX).await.expect("purge"), 0);
    assert_eq!(store.load("lease").await.expect("load"), Some(stored));
}

async fn a_stale_epoch_cannot_complete_after_a_retry_takes_the_lease(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let first = record_in(&*store, "fence", State::FailedRetryable, NOW).await;
    let retake = Update::retake(&first, NOW + 20_000, NOW + 18_000, NOW + 1_000);
    assert!(store.advance("fence", first.version(), retake.clone()).await.expect("retake"));
    let second = applied(&first, retake);
    assert_eq!((second.state, second.epoch, second.attempts), (State::InProgress, 2, 2));

    // The attempt of epoch 1 comes back late and tries to record its outcome.
    let held_by_first = Version { state: State::InProgress, epoch: 1 };
    let stale = Update { epoch: 1, ..Update::settle(&second, State::Succeeded, Some(json!({"stale": 1})), NOW + 2) };
    assert!(!store.advance("fence", held_by_first, stale.clone()).await.expect("advance"), "fenced off");
    assert!(!store.compare_and_set("fence", held_by_first, stale).await.expect("cas"), "fenced off");
    assert_eq!(store.load("fence").await.expect("load").as_ref(), Some(&second));

    let current = Update::settle(&second, State::Succeeded, Some(json!({"current": 2})), NOW + 3);
    assert!(store.advance("fence", second.version(), current.clone()).await.expect("advance"));
    assert_eq!(store.load("fence").await.expect("load"), Some(applied(&second, current)));
}

// ---- races ------------------------------------------------------------------------------------------------

/// The racers of each round of the races below.
const RACERS: usize = 64;

async fn sixty_four_concurrent_claims_of_one_key_have_exactly_one_winner(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let mut soak =
        Soak::start("sixty_four_concurrent_claims_of_one_key_have_exactly_one_winner", &format!("{backend:?}"));
    for round in 0..soak::rounds(1) {
        // A fresh key per round: every round is a first claim.
        let key = format!("hot-{round}");
        let barrier = Arc::new(Barrier::new(RACERS));
        let racers: Vec<_> = (0..RACERS)
            .map(|racer| {
                let (store, barrier, key) = (Arc::clone(&store), Arc::clone(&barrier), key.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    let claim = store.claim(&new_record(&key, &format!("racer_{racer}"), NOW)).await.expect("claim");
                    (racer, claim)
                })
            })
            .collect();
        let mut winners = Vec::new();
        let mut seen = Vec::new();
        for racer in racers {
            match racer.await.expect("a racer") {
                (racer, Claim::Acquired) => winners.push(racer),
                (_, Claim::Existing(record)) => seen.push(record),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: winners: {winners:?}");
        let stored = store.load(&key).await.expect("load").expect("the record");
        assert_eq!(
            *stored.fingerprint,
            format!("racer_{}", winners[0]),
            "round {round}: the winner's record is stored"
        );
        assert_eq!((stored.state, stored.epoch, stored.attempts), (State::InProgress, 1, 1), "round {round}");
        assert!(seen.iter().all(|record| *record == stored), "round {round}: every loser saw the winner's record");
        soak.passed();
    }
}

async fn sixty_four_concurrent_retakes_of_one_failure_have_exactly_one_winner(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let mut soak =
        Soak::start("sixty_four_concurrent_retakes_of_one_failure_have_exactly_one_winner", &format!("{backend:?}"));
    for round in 0..soak::rounds(1) {
        let key = format!("retry-{round}");
        let failed = record_in(&*store, &key, State::FailedRetryable, NOW).await;
        let barrier = Arc::new(Barrier::new(RACERS));
        let racers: Vec<_> = (0..RACERS as u64)
            .map(|racer| {
                let (store, barrier, failed, key) =
                    (Arc::clone(&store), Arc::clone(&barrier), failed.clone(), key.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    // Each racer's lease differs, so the stored record tells who won.
                    let update = Update::retake(&failed, NOW + 10_000 + racer, NOW + 8_000, NOW + 1);
                    store.advance(&key, failed.version(), update).await.expect("advance").then_some(racer)
                })
            })
            .collect();
        let mut winners = Vec::new();
        for racer in racers {
            winners.extend(racer.await.expect("a racer"));
        }
        assert_eq!(winners.len(), 1, "round {round}: winners: {winners:?}");
        let stored = store.load(&key).await.expect("load").expect("the record");
        assert_eq!((stored.state, stored.epoch, stored.attempts), (State::InProgress, 2, 2), "round {round}");
        assert_eq!(stored.lease_expires_ms, NOW + 10_000 + winners[0], "round {round}");
        soak.passed();
    }
}

async fn concurrent_claims_of_distinct_keys_all_acquire(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let claims: Vec<_> = (0..200)
        .map(|index| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.claim(&new_record(&format!("k{index}"), "fp", NOW)).await })
        })
        .collect();
    for claim in claims {
        assert_eq!(claim.await.expect("a claimer").expect("claim"), Claim::Acquired);
    }
    for index in 0..200 {
        let record = store.load(&format!("k{index}")).await.expect("load").expect("a record");
        assert_eq!(record.state, State::InProgress);
    }
}

// ---- retention and storage --------------------------------------------------------------------------------

async fn retention_purges_only_settled_records_older_than_the_cutoff(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let cutoff = NOW + 50_000;
    for state in STATES {
        record_in(&*store, &format!("old-{state}"), state, NOW).await;
        record_in(&*store, &format!("edge-{state}"), state, cutoff).await;
        record_in(&*store, &format!("new-{state}"), state, cutoff + 1).await;
    }
    assert_eq!(store.purge_expired(cutoff).await.expect("purge"), 3, "old SUCCEEDED, FAILED_RETRYABLE, FAILED_FINAL");
    for state in STATES {
        let old = store.load(&format!("old-{state}")).await.expect("load");
        assert_eq!(old.is_some(), !state.may_expire(), "old {state}");
        assert!(store.load(&format!("edge-{state}")).await.expect("load").is_some(), "updated at the cutoff: {state}");
        assert!(store.load(&format!("new-{state}")).await.expect("load").is_some(), "new {state}");
    }
    assert_eq!(store.purge_expired(cutoff).await.expect("purge"), 0, "nothing left to purge");
    // However late the cutoff, what may have had a side effect stays.
    assert_eq!(store.purge_expired(u64::MAX).await.expect("purge"), 6);
    for prefix in ["old", "edge", "new"] {
        for state in [State::InProgress, State::Unknown] {
            assert!(store.load(&format!("{prefix}-{state}")).await.expect("load").is_some(), "{prefix} {state}");
        }
    }
}

async fn a_retried_failure_is_no_longer_purged(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let failed = record_in(&*store, "retaken", State::FailedRetryable, NOW).await;
    let retake = Update::retake(&failed, NOW + 20_000, NOW + 18_000, NOW + 1);
    assert!(store.advance("retaken", failed.version(), retake).await.expect("retake"));
    assert_eq!(store.purge_expired(u64::MAX).await.expect("purge"), 0);
    assert_eq!(store.load("retaken").await.expect("load").expect("kept").state, State::InProgress);
}

async fn stored_answers_and_extreme_numbers_round_trip_exactly(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let store = env.store();
    let mut new = new_record("extreme", "sha256:ab", NOW);
    new.lease_expires_ms = u64::MAX;
    new.deadline_ms = u64::MAX - 1;
    assert_eq!(store.claim(&new).await.expect("claim"), Claim::Acquired);
    let record = store.load("extreme").await.expect("load").expect("a record");
    assert_eq!(record, new.into_record());

    let answer = json!({
        "ok": true,
        "result": {"big": u64::MAX, "small": i64::MIN, "float": 0.1, "tiny": 1e-7, "nothing": null,
                   "text": "line\nbreak \u{1F600} \"quoted\" \\ é", "list": [1, [2, [3]], {}], "": ""},
        "meta": {"replayed": false}
    });
    let done = Update::settle(&record, State::Succeeded, Some(answer), NOW + 1);
    assert!(store.advance("extreme", record.version(), done.clone()).await.expect("advance"));
    assert_eq!(store.load("extreme").await.expect("load"), Some(applied(&record, done)));

    // A stored JSON null is an answer, distinct from no answer.
    let null = record_in(&*store, "null", State::InProgress, NOW).await;
    let update = Update::settle(&null, State::Succeeded, Some(serde_json::Value::Null), NOW + 1);
    assert!(store.advance("null", null.version(), update).await.expect("advance"));
    let stored = store.load("null").await.expect("load").expect("a record");
    assert_eq!(stored.outcome, Some(serde_json::Value::Null));
    let none = record_in(&*store, "none", State::Unknown, NOW).await;
    assert_eq!(none.outcome, None);
}

// ---- durable stores only ----------------------------------------------------------------------------------

async fn close_and_reopen_keeps_every_record(backend: Backend) {
    let Some(mut env) = Env::open(backend).await else { return };
    let mut before = BTreeMap::new();
    {
        let store = env.store();
        for state in STATES {
            let key = format!("kept-{state}");
            before.insert(key.clone(), record_in(&*store, &key, state, NOW).await);
        }
        let fenced = record_in(&*store, "kept-retaken", State::FailedRetryable, NOW).await;
        let retake = Update::retake(&fenced, NOW + 20_000, NOW + 18_000, NOW + 1);
        assert!(store.advance("kept-retaken", fenced.version(), retake.clone()).await.expect("retake"));
        before.insert("kept-retaken".to_owned(), applied(&fenced, retake));
    }
    env.reopen(false).await;
    let store = env.store();
    for (key, record) in &before {
        assert_eq!(store.load(key).await.expect("load").as_ref(), Some(record), "{key}");
    }
    // The reopened store goes on from the stored versions.
    let held = &before["kept-retaken"];
    let done = Update::settle(held, State::Succeeded, Some(json!({"after": "reopen"})), NOW + 2);
    assert!(store.advance("kept-retaken", held.version(), done).await.expect("advance"));
    let stale = Version { state: State::InProgress, epoch: 1 };
    let late = Update { epoch: 1, ..Update::settle(held, State::Succeeded, None, NOW + 3) };
    assert!(!store.advance("kept-retaken", stale, late).await.expect("advance"));
    let again = store.claim(&new_record("kept-IN_PROGRESS", "fp", NOW + 4)).await.expect("claim");
    assert_eq!(again, Claim::Existing(before["kept-IN_PROGRESS"].clone()));
}

async fn a_second_client_sees_and_respects_the_first_clients_records(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let first = env.store();
    let second = env.another().await.store();
    let record = claimed(&*first, "shared", NOW).await;
    assert_eq!(second.claim(&new_record("shared", "fp_b", NOW)).await.expect("claim"), Claim::Existing(record.clone()));
    let done = Update::settle(&record, State::Succeeded, Some(json!({"by": "second"})), NOW + 1);
    assert!(second.advance("shared", record.version(), done.clone()).await.expect("advance"));
    let late = Update::settle(&record, State::FailedFinal, None, NOW + 2);
    assert!(!first.advance("shared", record.version(), late).await.expect("advance"), "the first client is behind");
    assert_eq!(first.load("shared").await.expect("load"), Some(applied(&record, done)));
}

async fn a_newer_schema_version_is_refused(backend: Backend) {
    let Some(mut env) = Env::open(backend).await else { return };
    record_in(&*env.store(), "before", State::Succeeded, NOW).await;
    env.reopen(false).await;
    set_schema_version(&env.target, SCHEMA_VERSION + 1).await;
    match env.target.open(false).await {
        Err(OpenError::NewerSchema { found, supported }) => {
            assert_eq!((found, supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        Err(other) => panic!("refused for the wrong reason: {other}"),
        Ok(_) => panic!("opened a schema newer than this build"),
    }
    set_schema_version(&env.target, SCHEMA_VERSION).await;
    let reopened = env.target.open(false).await.expect("the current version opens");
    assert!(reopened.store().load("before").await.expect("load").is_some());
}

async fn an_older_store_with_records_is_refused_and_an_empty_one_upgraded(backend: Backend) {
    let Some(mut env) = Env::open(backend).await else { return };
    env.close().await;
    make_format_one(&env.target, true).await;
    match env.target.open(false).await {
        Err(refusal @ OpenError::OlderRecords { found, format }) => {
            assert_eq!((found, format), (1, RECORD_FORMAT));
            assert!(refusal.to_string().contains("docs/stores.md"), "{refusal}");
        }
        Err(other) => panic!("refused for the wrong reason: {other}"),
        Ok(_) => panic!("opened a store whose records were keyed another way"),
    }
    // The refusal changed nothing: refused again.
    assert!(matches!(env.target.open(false).await, Err(OpenError::OlderRecords { .. })));
    make_format_one(&env.target, false).await;
    let upgraded = env.target.open(false).await.expect("an empty older store is upgraded");
    let record = claimed(&*upgraded.store(), "after", NOW).await;
    drop(upgraded);
    let reopened = env.target.open(false).await.expect("the upgraded store opens again");
    assert_eq!(reopened.store().load("after").await.expect("load"), Some(record));
}

async fn automatic_expiry_never_removes_in_progress_or_unknown_records(backend: Backend) {
    let Some(mut env) = Env::open(backend).await else { return };
    {
        let store = env.store();
        for state in STATES {
            // Updated at NOW, decades before the real clock: far beyond any retention window.
            record_in(&*store, &format!("ancient-{state}"), state, NOW).await;
        }
    }
    if let Opened::Redis(redis) = env.opened() {
        // Redis expires by TTL: only settled states carry one.
        for state in STATES {
            let expiry = redis.expiry(&format!("ancient-{state}")).await.expect("ttl");
            assert_eq!(expiry.is_some(), state.may_expire(), "{state}: {expiry:?}");
            if let Some(expiry) = expiry {
                assert!(expiry > Duration::from_secs(24 * 3600), "{state}: retention of at least a day");
            }
        }
        let failed = redis.load("ancient-FAILED_RETRYABLE").await.expect("load").expect("a record");
        let retake = Update::retake(&failed, NOW + 20_000, NOW + 18_000, NOW + 1);
        assert!(redis.advance(&failed.key, failed.version(), retake).await.expect("retake"));
        assert_eq!(redis.expiry(&failed.key).await.expect("ttl"), None, "back in progress: the TTL is gone");
        return;
    }
    // SQL stores purge by themselves when they open, then periodically.
    env.reopen(true).await;
    let store = env.store();
    for state in STATES {
        let kept = store.load(&format!("ancient-{state}")).await.expect("load").is_some();
        assert_eq!(kept, !state.may_expire(), "{state}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_replaces_connections_the_server_dropped() {
    let Some(env) = Env::open(Backend::Postgres).await else { return };
    let store = env.store();
    let record = record_in(&*store, "survivor", State::Succeeded, NOW).await;
    let (Locator::Postgres(url), schema) = (&env.target.locator, &env.target.namespace) else {
        unreachable!("a PostgreSQL fixture")
    };
    let admin = store_support::postgres_client(url).await;
    let killed = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'",
            &[schema],
        )
        .await
        .expect("terminate the store's connections");
    assert!(!killed.is_empty(), "the store's connections were found");
    // A call may fail on a connection whose end it has not noticed yet; each failure retires that connection.
    let mut failures = 0;
    let loaded = loop {
        match store.load("survivor").await {
            Ok(loaded) => break loaded,
            Err(_) if failures < 4 => failures += 1,
            Err(error) => panic!("the store did not reconnect: {error}"),
        }
    };
    assert_eq!(loaded, Some(record));
    // The pool's other connections died too; a claim on one fails before it reaches the server (so retrying it
    // is safe) and retires it. Within the same budget of failures, every claim then goes through once.
    for index in 0..4 {
        let key = format!("after-{index}");
        loop {
            match store.claim(&new_record(&key, "fp", NOW)).await {
                Ok(claim) => {
                    assert_eq!(claim, Claim::Acquired, "{key} was absent, and a failed claim never applied");
                    break;
                }
                Err(_) if failures < 4 => failures += 1,
                Err(error) => panic!("the store did not reconnect: {error}"),
            }
        }
    }
}

/// The environment variables that turn this test binary into a claiming child process: the store's locator
/// (password included) and its namespace.
const CHILD_LOCATOR: &str = "CALLPROOF_STORE_CHILD_LOCATOR";
const CHILD_READY: &str = "CHILD READY";
const RACE_KEYS: usize = 100;

async fn claims_race_across_two_processes_with_one_winner_per_key(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let mut children = Vec::new();
    for name in ["a", "b"] {
        let (child, lines) = spawn_child(&env, "a_child_process_that_claims", CHILD_LOCATOR, name, CHILD_READY).await;
        children.push((name, child, lines));
    }
    // Both have opened the store: let them race.
    for (_, child, _) in &mut children {
        child.stdin.as_mut().expect("stdin").write_all(b"GO\n").await.expect("write");
    }
    let mut winners: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, mut child, mut lines) in children {
        let mut answers = 0;
        while let Some(line) = lines.next_line().await.expect("read") {
            if let Some(key) = line.strip_prefix("ACQUIRED ") {
                winners.entry(key.to_owned()).or_default().push(name);
                answers += 1;
            } else if line.starts_with("EXISTING ") {
                answers += 1;
            }
        }
        assert!(child.wait().await.expect("wait").success(), "child {name} failed");
        assert_eq!(answers, RACE_KEYS, "child {name} answered every claim");
    }
    let store = env.store();
    for index in 0..RACE_KEYS {
        let key = format!("race-{index}");
        let won = winners.get(&key).cloned().unwrap_or_default();
        assert_eq!(won.len(), 1, "{key}: winners {won:?}");
        let record = store.load(&key).await.expect("load").expect("a record");
        assert_eq!(*record.fingerprint, format!("child_{}", won[0]), "{key}: the winner's record is stored");
    }
}

/// Not a test of its own: the child of `claims_race_across_two_processes_with_one_winner_per_key`. Without
/// its environment variable it does nothing.
#[test]
fn a_child_process_that_claims() {
    let Some(target) = child_target(CHILD_LOCATOR) else { return };
    let name = std::env::var(CHILD_NAME).expect("a child name");
    child_runtime().block_on(async {
        let store = target.open(false).await.expect("the child opens the store").store();
        println!("{CHILD_READY}");
        let mut go = String::new();
        std::io::stdin().read_line(&mut go).expect("wait for GO");
        let claims: Vec<_> = (0..RACE_KEYS)
            .map(|index| {
                let (store, name) = (Arc::clone(&store), name.clone());
                tokio::spawn(async move {
                    let key = format!("race-{index}");
                    let claim = store.claim(&new_record(&key, &format!("child_{name}"), NOW)).await.expect("claim");
                    (key, claim)
                })
            })
            .collect();
        for claim in claims {
            match claim.await.expect("a claimer") {
                (key, Claim::Acquired) => println!("ACQUIRED {key}"),
                (key, Claim::Existing(record)) => println!("EXISTING {key} {}", record.fingerprint),
            }
        }
    });
}

// ---- a writer killed mid-write ----------------------------------------------------------------------------

/// The variable that turns this test binary into a writing child (the store's locator).
const WRITER_LOCATOR: &str = "CALLPROOF_STORE_WRITER_LOCATOR";
/// Printed by the writing child once its first record is settled.
const WRITER_WROTE: &str = "WRITER WROTE";
/// Tasks writing at once in the child.
const WRITERS: usize = 8;

/// The answer the writer settles record `index` with: a few KiB, so a write spans pages and packets.
fn written_outcome(index: usize) -> serde_json::Value {
    json!({"index": index, "pad": "x".repeat(4096 + index % 997)})
}

/// Each round starts a child that claims and settles records on 8 tasks without pause, lets it write for a
/// varying while, and SIGKILLs it, so the kill lands in the middle of claims, of settles and between the two
/// (where an executor has claimed and not yet sent). Then, through a new instance (a restart): every record
/// is whole (either the claim as written, or the settled record with its complete answer), a claim of any of
/// its keys finds the record instead of acquiring it again, and a claim interrupted before its settle can
/// still be settled exactly once by its epoch. With SQLite, `PRAGMA integrity_check` also holds.
///
/// A process kill leaves the operating system's buffers alone: this covers a crashed executor, not a lost
/// machine (power loss is the database's own fsync promise).
async fn a_writer_killed_mid_write_leaves_only_whole_records(backend: Backend) {
    let Some(env) = Env::open(backend).await else { return };
    let mut soak = Soak::start("a_writer_killed_mid_write_leaves_only_whole_records", &format!("{backend:?}"));
    let mut delay = u64::from(std::process::id());
    for round in 0..soak::rounds(3) {
        let prefix = format!("w{round}");
        let (mut child, mut lines) =
            spawn_child(&env, "a_child_process_that_writes", WRITER_LOCATOR, &prefix, WRITER_WROTE).await;
        // A varying while (0 to 250 ms) after the first settled record, then SIGKILL.
        delay = delay.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let after_ms = (delay >> 33) % 251;
        tokio::time::sleep(Duration::from_millis(after_ms)).await;
        child.start_kill().expect("SIGKILL the writer");
        child.wait().await.expect("the writer ends");
        while lines.next_line().await.ok().flatten().is_some() {}
        let at = format!("round {round}, killed {after_ms} ms after the first record");

        if let Locator::Sqlite(path) = &env.target.locator {
            let connection = rusqlite::Connection::open(path).expect("sqlite opens");
            let check: String = connection.query_row("PRAGMA integrity_check", [], |row| row.get(0)).expect("check");
            assert_eq!(check, "ok", "{at}");
        }
        let restarted = env.another().await.store();
        let (mut settled, mut interrupted, mut misses, mut index) = (0, 0, 0, 0);
        // Keys are numbered in claim order across the tasks: a claim cut short leaves at most one gap per task.
        while misses <= WRITERS {
            let key = format!("{prefix}-{index}");
            index += 1;
            let Some(record) = restarted.load(&key).await.expect("load") else {
                misses += 1;
                continue;
            };
            misses = 0;
            let written = new_record(&key, &format!("fp-{}", index - 1), NOW);
            assert_eq!(record.fingerprint, written.fingerprint, "{at}: {key}");
            assert_eq!(
                (record.epoch, record.attempts, record.lease_expires_ms),
                (1, 1, written.lease_expires_ms),
                "{at}: {key}"
            );
            match record.state {
                State::Succeeded => {
                    assert_eq!(record.outcome, Some(written_outcome(index - 1)), "{at}: {key}: the whole answer");
                    settled += 1;
                }
                State::InProgress => {
                    assert_eq!(record.outcome, None, "{at}: {key}");
                    interrupted += 1;
                }
                other => panic!("{at}: {key} is {other:?}, which the writer never wrote"),
            }
            let again = restarted.claim(&new_record(&key, "after_restart", NOW + 2)).await.expect("claim");
            assert_eq!(again, Claim::Existing(record.clone()), "{at}: {key} is claimed once");
            if record.state == State::InProgress {
                let settle = Update::settle(&record, State::Succeeded, Some(written_outcome(index - 1)), NOW + 3);
                assert!(
                    restarted.advance(&key, record.version(), settle.clone()).await.expect("advance"),
                    "{at}: {key}"
                );
                assert!(!restarted.advance(&key, record.version(), settle).await.expect("advance"), "{at}: {key}");
            }
        }
        assert!(settled >= 1, "{at}: the writer's first record is there");
        let _ = writeln!(std::io::stderr(), "{at}: {settled} settled, {interrupted} claimed and not settled");
        soak.passed();
    }
}

/// Not a test of its own: the child of `a_writer_killed_mid_write_leaves_only_whole_records`, which claims
/// and settles records until it is killed (or its stdin closes). Without its environment variable it does
/// nothing.
#[test]
fn a_child_process_that_writes() {
    let Some(target) = child_target(WRITER_LOCATOR) else { return };
    let prefix = std::env::var(CHILD_NAME).expect("a key prefix");
    // An orphan must not write forever: the parent's end of stdin closes when it goes away.
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    // A writer that fails ends the child, so the parent is told instead of waiting for a record.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("{info}");
        std::process::abort();
    }));
    child_runtime().block_on(async {
        let store = target.open(false).await.expect("the child opens the store").store();
        let next = Arc::new(AtomicUsize::new(0));
        let first = Arc::new(tokio::sync::Notify::new());
        let writers: Vec<_> = (0..WRITERS)
            .map(|_| {
                let (store, next, first, prefix) =
                    (Arc::clone(&store), Arc::clone(&next), Arc::clone(&first), prefix.clone());
                tokio::spawn(async move {
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let key = format!("{prefix}-{index}");
                        let claim = store.claim(&new_record(&key, &format!("fp-{index}"), NOW)).await.expect("claim");
                        assert_eq!(claim, Claim::Acquired, "{key}");
                        let record = store.load(&key).await.expect("load").expect("the claimed record");
                        let settle = Update::settle(&record, State::Succeeded, Some(written_outcome(index)), NOW + 1);
                        assert!(store.advance(&key, record.version(), settle).await.expect("advance"), "{key}");
                        if index == 0 {
                            first.notify_one();
                        }
                    }
                })
            })
            .collect();
        first.notified().await;
        println!("{WRITER_WROTE}");
        drop(writers);
        std::future::pending::<()>().await;
    });
}

// ---- instantiation ----------------------------------------------------------------------------------------

macro_rules! suite {
    ($module:ident, $backend:expr, [$($test:ident),* $(,)?]) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $test() {
                    super::$test($backend).await;
                }
            )*
        }
    };
}

macro_rules! every_store {
    ($module:ident, $backend:expr $(, $durable:ident)*) => {
        suite!($module, $backend, [
            a_claim_of_an_absent_key_creates_in_progress_at_epoch_one,
            a_second_claim_returns_the_existing_record_untouched,
            a_claim_with_another_fingerprint_returns_the_existing_record_untouched,
            every_legal_transition_applies_exactly_the_update,
            every_illegal_transition_is_refused_and_changes_nothing,
            a_transition_with_the_wrong_epoch_is_refused_and_changes_nothing,
            a_compare_and_set_on_a_moved_record_does_nothing,
            a_compare_and_set_on_an_absent_key_does_nothing_and_creates_nothing,
            an_expired_lease_becomes_unknown_and_stays_claimed,
            a_stale_epoch_cannot_complete_after_a_retry_takes_the_lease,
            sixty_four_concurrent_claims_of_one_key_have_exactly_one_winner,
            sixty_four_concurrent_retakes_of_one_failure_have_exactly_one_winner,
            concurrent_claims_of_distinct_keys_all_acquire,
            retention_purges_only_settled_records_older_than_the_cutoff,
            a_retried_failure_is_no_longer_purged,
            stored_answers_and_extreme_numbers_round_trip_exactly,
            $($durable,)*
        ]);
    };
}

/// What only a durable, shared store can do.
macro_rules! durable_store {
    ($module:ident, $backend:expr) => {
        every_store!(
            $module,
            $backend,
            close_and_reopen_keeps_every_record,
            a_second_client_sees_and_respects_the_first_clients_records,
            a_newer_schema_version_is_refused,
            an_older_store_with_records_is_refused_and_an_empty_one_upgraded,
            automatic_expiry_never_removes_in_progress_or_unknown_records,
            claims_race_across_two_processes_with_one_winner_per_key,
            a_writer_killed_mid_write_leaves_only_whole_records
        );
    };
}

every_store!(memory, crate::Backend::Memory);
durable_store!(sqlite, crate::Backend::Sqlite);
durable_store!(postgres, crate::Backend::Postgres);
durable_store!(redis, crate::Backend::Redis);
