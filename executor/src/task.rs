//! Tasks: long work behind a handle. A task tool answers at once with a handle; a poll tool reads the job's
//! status; a cancel tool asks the job to stop.
//!
//! Rule enforced here: a task's first final answer (completed, cancelled, failed) is validated once, recorded
//! in the idempotency store under the task's own key, and every later poll answers that record, byte for byte,
//! whatever the downstream says by then. A poll is otherwise a pure read: it never claims a business
//! operation. (The submission itself is an ordinary side-effecting call: its handle is the replayed result of
//! its business operation's record.)

use crate::canonical;
use crate::clock::Clock;
use crate::idempotency::{NewRecord, State, Update};
use crate::store::{Claim, Store, StoreExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::Duration;

/// The part a tool plays in a task (catalog member `task`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskRole {
    /// Starts the job and answers with its handle (`task_id`).
    Submit,
    /// Reads the job's status and, once final, its result.
    Poll,
    /// Asks the job to stop; cooperative.
    Cancel,
}

/// The task statuses after which nothing changes.
pub const FINAL_STATUSES: [&str; 3] = ["completed", "cancelled", "failed"];

/// The reference: a poll answer is final when its `status` is one of [`FINAL_STATUSES`].
pub fn is_final(answer: &Value) -> bool {
    answer.get("status").and_then(Value::as_str).is_some_and(|status| FINAL_STATUSES.contains(&status))
}

/// How long a poll waits for a concurrent poll that is recording the final answer.
const RECORDING_WAIT: Duration = Duration::from_millis(20);
/// How often it looks before it answers what it read itself.
const RECORDING_ROUNDS: usize = 10;

/// The store key of a task's final answer: one per (tenant, handle), in the same 64-hex form as operation keys.
pub fn final_answer_key(tenant_id: &str, task_id: &str) -> String {
    let material = canonical::canonical_json(&json!({"task_final": task_id, "tenant_id": tenant_id}));
    canonical::sha256_hex(material.as_bytes())
}

/// The recorded final answer of a task, if a poll recorded one. A store failure reads as "none yet": the poll
/// then asks the downstream, which is always safe for a read.
pub(crate) async fn recall(store: &dyn Store, key: &str) -> Option<Value> {
    let record = store.load(key).await.ok()??;
    (record.state == State::Succeeded).then_some(record.outcome?).and_then(|outcome| outcome.get("result").cloned())
}

/// Records `answer` as the task's final answer unless one is recorded already, and returns the one that
/// stands: the first recorded. `None` when the store could not record it and no earlier answer is known (the
/// caller answers what it read, which is true now, but not promised for later polls).
pub(crate) async fn remember(store: &dyn Store, clock: &dyn Clock, key: &str, answer: &Value) -> Option<Value> {
    let now_ms = clock.wall_ms();
    let new = NewRecord {
        key: key.into(),
        fingerprint: key.into(),
        lease_expires_ms: now_ms + 2_000,
        deadline_ms: now_ms,
        now_ms,
    };
    match store.claim(&new).await.ok()? {
        Claim::Acquired => {
            let record = new.into_record();
            let update = Update::settle(&record, State::Succeeded, Some(json!({"result": answer})), now_ms);
            store.advance(key, record.version(), update).await.ok()?.then(|| answer.clone())
        }
        Claim::Existing(_) => {
            for _ in 0..RECORDING_ROUNDS {
                if let Some(recorded) = recall(store, key).await {
                    return Some(recorded);
                }
                tokio::time::sleep(RECORDING_WAIT).await;
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::store::MemoryStore;

    #[test]
    fn only_completed_cancelled_and_failed_are_final() {
        assert!(is_final(&json!({"status": "completed"})));
        assert!(is_final(&json!({"status": "cancelled"})));
        assert!(!is_final(&json!({"status": "working"})));
        assert!(!is_final(&json!({"result": null})));
    }

    #[test]
    fn the_key_depends_on_tenant_and_handle() {
        let key = final_answer_key("t_acme", "exp_1");
        assert_eq!(key.len(), 64);
        assert_ne!(key, final_answer_key("t_globex", "exp_1"));
        assert_ne!(key, final_answer_key("t_acme", "exp_2"));
    }

    #[tokio::test]
    async fn the_first_final_answer_stands() {
        let store = MemoryStore::new();
        let key = final_answer_key("t_acme", "exp_1");
        assert_eq!(recall(&store, &key).await, None);
        let first = json!({"status": "completed", "url": "a"});
        let second = json!({"status": "completed", "url": "b"});
        assert_eq!(remember(&store, &SystemClock, &key, &first).await, Some(first.clone()));
        assert_eq!(remember(&store, &SystemClock, &key, &second).await, Some(first.clone()));
        assert_eq!(recall(&store, &key).await, Some(first));
    }
}
