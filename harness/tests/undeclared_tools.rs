//! An executor that declares fewer catalog tools than the conformance app has is never judged on a call to one
//! it lacks (docs/protocol.md: such scenarios are skipped, and `tool_not_found` is the right answer): corpus
//! cases for such a tool are left out and the report names them, and a step left with no call skips its
//! scenario rather than pass it with nothing judged.

use async_trait::async_trait;
use callproof_executor::app::catalog;
use callproof_harness::conform::{self, Options, Profile, ScenarioResult, Status};
use callproof_harness::corpus::Corpus;
use callproof_harness::repro;
use callproof_harness::scenario::Scenario;
use callproof_harness::subject::{InProcess, Subject, SubjectCall, SubjectError, SubjectFactory};
use serde_json::Value;
use std::sync::Arc;

const LACKING: &str = "delete_account";
const CASE: &str = "delete_account_id_of_the_wrong_kind";

/// The reference executor without `delete_account`: it declares the other catalog tools, and refuses a call to
/// `delete_account` as a tool it does not have (`tool_not_found`), as an executor without it does.
struct WithoutDeleteAccount;

#[async_trait]
impl SubjectFactory for WithoutDeleteAccount {
    fn name(&self) -> String {
        "reference without delete_account".to_owned()
    }

    async fn tools(&self) -> Option<Vec<String>> {
        Some(catalog().into_iter().map(|entry| entry.spec.name).filter(|tool| tool != LACKING).collect())
    }

    async fn start(&self, downstream_url: &str) -> Result<Arc<dyn Subject>, SubjectError> {
        Ok(Arc::new(Lacking(InProcess::reference().start(downstream_url).await?)))
    }
}

struct Lacking(Arc<dyn Subject>);

#[async_trait]
impl Subject for Lacking {
    async fn execute(&self, mut call: SubjectCall) -> Result<Value, SubjectError> {
        if call.call.name == LACKING {
            // A name no registry has: the reference answers tool_not_found, as an executor without the tool does.
            call.call.name = format!("{LACKING}_not_implemented");
        }
        self.0.execute(call).await
    }
}

async fn conform(scenarios: Vec<Scenario>) -> conform::Report {
    let options = Options { profile: Profile::All, ..Options::default() };
    conform::run(Arc::new(WithoutDeleteAccount), scenarios, Corpus::shipped(), &options, None, &|_: &ScenarioResult| {})
        .await
        .expect("valid options")
}

fn scenario(name: &str, steps: &str) -> Scenario {
    let text = format!(
        "description = \"{name}\"\n[auth.alice]\nsubject_id = \"u_alice\"\ntenant_id = \"t_acme\"\n\
         scopes = [\"accounts:delete\", \"refunds:write\"]\n{steps}"
    );
    let mut scenario = Scenario::parse(&text).unwrap_or_else(|error| panic!("{name}: {error}"));
    scenario.name = name.to_owned();
    scenario
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_cases_for_an_undeclared_tool_are_left_out_and_named() {
    let shipped = conform::shipped_scenarios().expect("the shipped scenarios load");
    let corpus: Vec<Scenario> =
        shipped.into_iter().filter(|scenario| scenario.name == "decode/malformed_corpus").collect();
    let report = conform(corpus).await;
    let result = &report.scenarios[0];
    assert_eq!(result.status, Status::Pass, "{}", conform::human::human(&report));
    let reason = result.reason.as_deref().unwrap_or_default();
    assert!(reason.starts_with("left out 1 corpus case calling `delete_account`"), "{reason}");
    assert!(reason.ends_with(CASE), "{reason}");
    let transcript = result.transcript.as_ref().expect("a transcript");
    assert_eq!(transcript.left_out.len(), 1);
    assert!(transcript.calls.iter().all(|call| call.tool != LACKING), "no call to the undeclared tool was made");
    assert!(transcript.calls.len() > 50, "the other cases ran: {}", transcript.calls.len());
    let timeline = callproof_harness::timeline::text(transcript);
    assert!(timeline.contains(&format!("step 1 {CASE} ({LACKING})")), "{timeline}");
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let schema = std::fs::read_to_string(root.join("docs/report.schema.json")).expect("read the report schema");
    let schema: Value = serde_json::from_str(&schema).expect("JSON");
    let validator = jsonschema::draft202012::options().build(&schema).expect("a valid schema");
    let json = serde_json::to_value(&report).expect("serializes");
    let errors: Vec<String> = validator.iter_errors(&json).map(|error| error.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_step_left_with_no_call_skips_its_scenario() {
    let only =
        scenario("only_the_case", &format!("[[step]]\naction = \"corpus\"\nauth = \"alice\"\nonly = [\"{CASE}\"]\n"));
    let submit = scenario(
        "submit_the_case",
        &format!(
            "[[step]]\naction = \"submit\"\nauth = \"alice\"\ncorpus = \"{CASE}\"\nexpect = {{ ok = false, code = \"schema_violation\" }}\n"
        ),
    );
    let report = conform(vec![only, submit]).await;
    for result in &report.scenarios {
        assert_eq!(result.status, Status::Skip, "{}: {}", result.id, conform::human::human(&report));
        let reason = result.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("`delete_account`, which the executor does not declare"), "{}: {reason}", result.id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repro_refuses_a_scenario_left_with_no_call_and_notes_the_cases_it_leaves_out() {
    let only =
        scenario("only_the_case", &format!("[[step]]\naction = \"corpus\"\nauth = \"alice\"\nonly = [\"{CASE}\"]\n"));
    match repro::reproduce(Arc::new(WithoutDeleteAccount), &only, Corpus::shipped()).await {
        Err(SubjectError::Unsupported(why)) => {
            assert!(why.starts_with("`only_the_case` cannot be reproduced against reference without"), "{why}");
            assert!(why.contains("`delete_account`, which the executor does not declare"), "{why}");
        }
        other => panic!("expected the scenario refused, got {:?}", other.map(|repro| repro.transcript.calls.len())),
    }
    let two = scenario(
        "two_cases",
        &format!(
            "[[step]]\naction = \"corpus\"\nauth = \"alice\"\nonly = [\"{CASE}\", \"trailing_comma_in_object\"]\n"
        ),
    );
    let ran = repro::reproduce(Arc::new(WithoutDeleteAccount), &two, Corpus::shipped()).await.expect("it runs");
    assert_eq!(ran.transcript.calls.len(), 1, "only the declared tool's case was sent");
    let text = repro::text(&ran);
    let note = format!("note: left out 1 corpus case calling `{LACKING}`, which the executor does not declare: {CASE}");
    assert!(text.lines().nth(1) == Some(note.as_str()), "{text}");
    assert_eq!(repro::json(&ran)["notes"][0], note.trim_start_matches("note: "));
}
