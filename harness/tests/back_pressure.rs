//! An executor with back-pressure (the reference binary with `--max-in-flight 1`: it reads the next line only
//! when a call has finished) is judged by docs/protocol.md's clock, which counts a call's budget from when the
//! executor read it: reads queued behind each other are neither late (`answer-within-deadline`) nor a protocol
//! break, while one that ignores its deadlines is still caught with the same back-pressure.

mod process_support;

use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::process::ProcessFactory;
use callproof_harness::scenario::Scenario;
use process_support::{reference_command, repo};
use std::sync::Arc;

async fn conform(command: &str, scenarios: Vec<Scenario>) -> conform::Report {
    let factory = Arc::new(ProcessFactory::new(command).expect("a command"));
    let options = Options { profile: Profile::All, jobs: 2, ..Options::default() };
    conform::run(factory, scenarios, Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
        .await
        .expect("the options are valid")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_queued_behind_each_other_are_timed_from_when_they_could_be_read() {
    // Three (then four) reads sent at once, each slowed 2 s (2.5 s) inside a 3 s budget: run one at a time, the
    // last is answered about 6 s (10 s) after it was sent, past its budget plus the margins of the check (1.5 s)
    // and of the process (5 s) when counted from the send.
    let paths = ["burst_of_slow_reads", "burst_of_slower_reads"]
        .map(|name| repo().join("examples/buggy/scenarios").join(format!("{name}.toml")));
    let scenarios = Scenario::discover(&paths).expect("the scenarios load");
    let report = conform(&reference_command("--store memory --max-in-flight 1"), scenarios).await;
    assert!(report.passed(), "{}", conform::human::human(&report));
    assert!(
        report.scenarios.iter().all(|scenario| scenario.status == Status::Pass),
        "{}",
        conform::human::human(&report)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_call_at_a_time_does_not_excuse_ignoring_the_deadline() {
    let text = "description = \"three reads, each slowed past its 1 s budget\"\n\
                [auth.alice]\nsubject_id = \"u_alice\"\ntenant_id = \"t_acme\"\nscopes = []\n\
                [[step]]\naction = \"burst\"\ncount = 3\ntool = \"get_weather\"\nauth = \"alice\"\nbudget_ms = 1000\n\
                arguments = '{\"location\":\"Lisbon\",\"units\":null}'\n\
                faults = [{ kind = \"slow_before_commit\", ms = 4000, times = 0 }]\n";
    let mut late = Scenario::parse(text).expect("the scenario parses");
    late.name = "burst_past_the_budget".to_owned();
    let report =
        conform(&reference_command("--store memory --max-in-flight 1 --mutant deadline-ignored"), vec![late]).await;
    let result = &report.scenarios[0];
    let check = result.checks.iter().find(|check| check.id == "answer-within-deadline").expect("judged");
    assert_eq!(check.status, Status::Fail, "{}", conform::human::human(&report));
    // The first answer is timed from its send, and each queued one from the answer before it: all are late.
    assert_eq!(check.violations.len(), 3, "{:#?}", check.violations);
}
