//! Exploration's own rules on literal subjects: which generated faults a subject refuses and what becomes of
//! them, and that a subject that cannot start is an error.

use super::*;
use crate::subject::Subject;
use crate::world::fault::Needs;
use async_trait::async_trait;

/// A subject that, like an executor process with a memory store, cannot run a kill fault.
struct LosesRecordsOnKill;

#[async_trait]
impl SubjectFactory for LosesRecordsOnKill {
    fn name(&self) -> String {
        "loses-records-on-kill".to_owned()
    }

    async fn support(&self, scenario: &Scenario) -> Support {
        let durable =
            scenario.steps.iter().flat_map(|step| step.faults()).any(|fault| fault.kind.needs() == Needs::DurableStore);
        if durable { Support::ExpectFailure("no durable store".to_owned()) } else { Support::Full }
    }

    async fn start(&self, _: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        Err(SubjectError::Unsupported("never started in this test".to_owned()))
    }
}

fn needing(needs: Needs) -> Vec<crate::world::fault::Generated> {
    FaultKind::generated()
        .into_iter()
        .filter(|generated| generated.build(&Shape { budget_ms: 3000, count: 1 }).kind.needs() == needs)
        .collect()
}

#[test]
fn faults_the_subject_cannot_run_are_left_out_of_schedules_and_the_others_kept() {
    let explorer = Explorer::new(Arc::new(LosesRecordsOnKill), Transport::Loopback, Corpus::shipped(), Vec::new());
    let kills: Vec<&str> = needing(Needs::DurableStore).iter().map(|generated| generated.label).collect();
    assert!(!kills.is_empty(), "some generated fault needs a durable store");
    assert_eq!(explorer.refused, kills);
    let kill = needing(Needs::DurableStore)[0];
    let downstream = needing(Needs::Downstream)[0];
    let moves = vec![
        Move::Submit {
            call: Call::Email,
            mangle: Mangle::None,
            auth: 0,
            business: None,
            budget_ms: 1000,
            fault: Some(kill),
        },
        Move::Burst { call: Call::Email, auth: 0, business: None, count: 2, fault: Some(downstream) },
    ];
    let adapted = explorer.adapt(moves);
    assert!(matches!(adapted[0], Move::Submit { fault: None, .. }), "{adapted:?}");
    assert!(matches!(adapted[1], Move::Burst { fault: Some(kept), .. } if kept == downstream), "{adapted:?}");
}

#[test]
fn an_in_process_subject_refuses_no_generated_fault() {
    let explorer = Explorer::new(
        Arc::new(crate::subject::InProcess::reference()),
        Transport::Simulated,
        Corpus::shipped(),
        Vec::new(),
    );
    assert!(explorer.refused.is_empty(), "{:?}", explorer.refused);
}

#[test]
fn a_subject_that_cannot_start_is_an_error_not_a_panic_or_a_pass() {
    let options = Options { transport: Transport::Loopback, ..Options::simulated(Arc::new(LosesRecordsOnKill), 1, 3) };
    let error = explore(&options, Corpus::shipped(), |_| {}).expect_err("the subject never starts");
    assert_eq!(error, SubjectError::Unsupported("never started in this test".to_owned()));
}
