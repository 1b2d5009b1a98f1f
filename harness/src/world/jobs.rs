//! The export service's jobs: long work behind a handle, the ground truth of the conformance app's task tool.
//!
//! Rule enforced here: a job's fate is decided by the clock and nothing else. It runs [`JOB_MS`] from its
//! start; cancellation is cooperative: the job looks for a cancel request at each checkpoint (every
//! [`CHECKPOINT_MS`]), and one that arrives after the last checkpoint before the end comes too late, so the
//! job completes anyway. Every read of a completed job signs its download link afresh (as presigned URLs do),
//! so an executor that does not keep the first final answer shows it.

use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// How long an export job runs.
pub const JOB_MS: u64 = 1_500;
/// How often a running job looks for a cancel request.
pub const CHECKPOINT_MS: u64 = 500;
/// How many records every export holds.
const RECORDS: u64 = 42;

/// One export job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Job {
    task_id: String,
    tenant_id: String,
    owner_id: String,
    account_id: String,
    started_ms: u64,
    cancel_requested_ms: Option<u64>,
    reads: u64,
}

/// A job's fate, as the checks read it: what it ended as and when (ms since the world started), and whether
/// that had happened by the time the transcript was taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskTruth {
    /// The handle (`exp_N`).
    pub task_id: String,
    /// The tenant owning it.
    pub tenant_id: String,
    /// When it started.
    pub started_ms: u64,
    /// `completed` or `cancelled`.
    pub final_status: String,
    /// When it reached `final_status` (possibly after the transcript was taken).
    pub ended_ms: u64,
    /// When a cancel was first asked for, if one was.
    pub cancel_requested_ms: Option<u64>,
}

impl Job {
    /// The fate of the job as decided by now: `(final status, ended at)`.
    fn fate(&self) -> (&'static str, u64) {
        let ends_ms = self.started_ms + JOB_MS;
        if let Some(asked) = self.cancel_requested_ms {
            let since = asked.saturating_sub(self.started_ms);
            let checkpoint = self.started_ms + since.div_ceil(CHECKPOINT_MS) * CHECKPOINT_MS;
            if checkpoint < ends_ms {
                return ("cancelled", checkpoint);
            }
        }
        ("completed", ends_ms)
    }

    fn status_at(&self, now_ms: u64) -> &'static str {
        let (status, ended_ms) = self.fate();
        if now_ms >= ended_ms { status } else { "working" }
    }
}

/// Every job of one world, by handle.
#[derive(Debug, Default)]
pub(super) struct Jobs {
    jobs: BTreeMap<String, Job>,
}

impl Jobs {
    /// Starts a job for an account; the caller commits the ledger effect.
    pub(super) fn start(&mut self, task_id: &str, owner: (String, String), account_id: &str, now_ms: u64) -> Value {
        let (tenant_id, owner_id) = owner;
        let job = Job {
            task_id: task_id.to_owned(),
            tenant_id,
            owner_id,
            account_id: account_id.to_owned(),
            started_ms: now_ms,
            cancel_requested_ms: None,
            reads: 0,
        };
        self.jobs.insert(task_id.to_owned(), job);
        json!({"task_id": task_id, "status": "working"})
    }

    /// `GET /exports/{id}`: the job as it stands, `None` when there is no such job.
    pub(super) fn read(&mut self, task_id: &str, now_ms: u64) -> Option<Value> {
        let job = self.jobs.get_mut(task_id)?;
        job.reads += 1;
        let status = job.status_at(now_ms);
        let result = (status == "completed").then(|| {
            json!({"account_id": job.account_id, "records": RECORDS,
                   "download_url": format!("https://exports.example/{}.json?sig={}", job.task_id, job.reads)})
        });
        Some(json!({"task_id": job.task_id, "tenant_id": job.tenant_id, "owner_id": job.owner_id,
                    "status": status, "result": result}))
    }

    /// `DELETE /exports/{id}`: asks the job to stop; answers its status as of now, and its owner.
    pub(super) fn cancel(&mut self, task_id: &str, now_ms: u64) -> Option<(Value, (String, String))> {
        let job = self.jobs.get_mut(task_id)?;
        if job.status_at(now_ms) == "working" && job.cancel_requested_ms.is_none() {
            job.cancel_requested_ms = Some(now_ms);
        }
        let reply = json!({"task_id": job.task_id, "status": job.status_at(now_ms)});
        Some((reply, (job.tenant_id.clone(), job.owner_id.clone())))
    }

    /// Every job's fate, in handle order.
    pub(super) fn truth(&self) -> Vec<TaskTruth> {
        self.jobs
            .values()
            .map(|job| {
                let (status, ended_ms) = job.fate();
                TaskTruth {
                    task_id: job.task_id.clone(),
                    tenant_id: job.tenant_id.clone(),
                    started_ms: job.started_ms,
                    final_status: status.to_owned(),
                    ended_ms,
                    cancel_requested_ms: job.cancel_requested_ms,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs() -> Jobs {
        let mut jobs = Jobs::default();
        jobs.start("exp_1", ("t_acme".into(), "u_alice".into()), "acct_1", 1_000);
        jobs
    }

    #[test]
    fn a_job_works_then_completes_and_each_read_signs_the_link_afresh() {
        let mut jobs = jobs();
        assert_eq!(jobs.read("exp_1", 2_000).expect("the job")["status"], "working");
        let first = jobs.read("exp_1", 2_500).expect("the job");
        let second = jobs.read("exp_1", 2_600).expect("the job");
        assert_eq!(first["status"], "completed");
        assert_ne!(first["result"]["download_url"], second["result"]["download_url"]);
        assert!(jobs.read("exp_2", 2_600).is_none());
    }

    #[test]
    fn an_early_cancel_stops_the_job_at_the_next_checkpoint() {
        let mut jobs = jobs();
        assert_eq!(jobs.cancel("exp_1", 1_200).expect("the job").0["status"], "working");
        assert_eq!(jobs.read("exp_1", 1_499).expect("the job")["status"], "working");
        assert_eq!(jobs.read("exp_1", 1_500).expect("the job")["status"], "cancelled");
        assert_eq!(jobs.truth()[0].final_status, "cancelled");
    }

    #[test]
    fn a_cancel_after_the_last_checkpoint_comes_too_late() {
        let mut jobs = jobs();
        jobs.cancel("exp_1", 2_100);
        assert_eq!(jobs.read("exp_1", 2_500).expect("the job")["status"], "completed");
        assert_eq!(jobs.truth()[0].final_status, "completed");
        assert_eq!(jobs.cancel("exp_1", 2_600).expect("the job").0["status"], "completed");
    }
}
