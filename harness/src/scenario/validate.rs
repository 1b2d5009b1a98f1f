//! Checks a scenario as a whole: references between steps, auth names, tools, corpus cases, fault endpoints.
//!
//! Rule enforced here: anything that would make a step run something other than what it says (a call to an
//! empty tool name, `null` arguments from a misspelt corpus case, a fault on an endpoint nothing calls, an
//! expectation nobody judges) is refused before anything runs, naming the step and the valid choices. So is a
//! pinned outcome that holds only for an executor that reads once, where the contract lets it read again.

use super::{Draft, Step};
use crate::corpus::Corpus;
use callproof_executor::app::catalog;
use std::sync::OnceLock;

/// What is wrong with a scenario, and at which step (0-based), if at one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", step.map(|step| format!("step {}: ", step + 1)).unwrap_or_default())]
pub struct Invalid {
    /// The step, from 0.
    pub step: Option<usize>,
    /// What is wrong.
    pub message: String,
}

/// The names a scenario may use: the catalog's tools and endpoints, the shipped corpus's cases.
struct Known {
    tools: Vec<String>,
    endpoints: Vec<String>,
    cases: Vec<String>,
}

fn known() -> &'static Known {
    static KNOWN: OnceLock<Known> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let catalog = catalog();
        let corpus = Corpus::shipped();
        Known {
            tools: catalog.iter().map(|entry| entry.spec.name.clone()).collect(),
            endpoints: crate::world::endpoints(&catalog),
            cases: corpus.cases.iter().map(|case| case.name.clone()).collect(),
        }
    })
}

fn choices(names: &[String]) -> String {
    names.join(", ")
}

/// Checks `draft`.
pub(super) fn validate(draft: &Draft) -> Result<(), Invalid> {
    if draft.steps.is_empty() {
        return Err(Invalid { step: None, message: "a scenario needs at least one [[step]]".to_owned() });
    }
    let word = |tag: &String| !tag.is_empty() && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if let Some(tag) = draft.tags.iter().find(|tag| !word(tag)) {
        let message = format!("tag `{tag}` is not a word (letters, digits, `-` and `_`), so no filter could name it");
        return Err(Invalid { step: None, message });
    }
    let mut ids: Vec<&str> = Vec::new();
    // The tool each step id calls, for the steps that follow it (`of`).
    let mut tools: Vec<(&str, Option<String>)> = Vec::new();
    for (index, step) in draft.steps.iter().enumerate() {
        check_step(draft, step, &ids).map_err(|message| Invalid { step: Some(index), message })?;
        let tool = match step {
            Step::Submit(call) | Step::Burst { call, .. } => call_tool(call),
            _ => step.of().and_then(|of| tools.iter().find(|(id, _)| *id == of)).and_then(|(_, tool)| tool.clone()),
        };
        check_read_faults(draft, step, tool.as_deref()).map_err(|message| Invalid { step: Some(index), message })?;
        if let Step::Submit(call) | Step::Burst { call, .. } = step
            && let Some(id) = &call.id
        {
            ids.push(id);
            tools.push((id, tool));
        }
    }
    Ok(())
}

/// An `alongside` call: on a submit, by another caller of `[auth]`, of a catalog tool, after a delay a scenario
/// can afford, and no `expect`, which would pin both calls alike.
fn check_alongside(
    draft: &Draft,
    step: &Step,
    call: &super::step::CallSpec,
    alongside: &super::step::Alongside,
) -> Result<(), String> {
    if !matches!(step, Step::Submit(_)) {
        return Err("only a submit takes `alongside`".to_owned());
    }
    if call.changed_during.is_some() {
        return Err("a submit takes `changed_during` or `alongside`, not both".to_owned());
    }
    if !draft.auth.contains_key(&alongside.auth) {
        let defined: Vec<String> = draft.auth.keys().cloned().collect();
        return Err(format!(
            "`alongside.auth` `{}` is not defined in [auth] (defined: {})",
            alongside.auth,
            choices(&defined)
        ));
    }
    if alongside.auth == call.auth {
        return Err("`alongside.auth` is the submit's own caller: `alongside` is for another caller's call (a burst \
                    or `changed_during` covers the same caller's)"
            .to_owned());
    }
    if !known().tools.contains(&alongside.tool) {
        return Err(format!(
            "`alongside.tool` `{}` is not a catalog tool (one of: {})",
            alongside.tool,
            choices(&known().tools)
        ));
    }
    if !(1..=super::step::MAX_STAGGER_MS).contains(&alongside.after_ms) {
        return Err(format!("`alongside.after_ms` is whole milliseconds from 1 to {}", super::step::MAX_STAGGER_MS));
    }
    if call.expect.is_some() {
        return Err("`expect` would pin the submit's call and the one alongside it alike: leave it out, and pin the \
                    outcome with [expect_ledger] (the checks judge both calls)"
            .to_owned());
    }
    Ok(())
}

/// A `changed_during` call: on a submit of a business request (without one, other arguments are another
/// operation), with arguments that differ, after a delay a scenario can afford, and no `expect`, which would pin
/// both calls alike.
fn check_changed_during(
    step: &Step,
    call: &super::step::CallSpec,
    during: &super::step::ChangedDuring,
) -> Result<(), String> {
    if !matches!(step, Step::Submit(_)) {
        return Err("only a submit takes `changed_during`".to_owned());
    }
    if call.business_request_id.is_none() {
        return Err("`changed_during` needs the submit's `business_request_id`: without one, other arguments are \
                    another business operation"
            .to_owned());
    }
    if call.arguments.as_deref() == Some(during.arguments.as_str()) {
        return Err("`changed_during` repeats the submit's arguments: that is a duplicate, not a change".to_owned());
    }
    if !(1..=super::step::MAX_STAGGER_MS).contains(&during.after_ms) {
        return Err(format!(
            "`changed_during.after_ms` is whole milliseconds from 1 to {}",
            super::step::MAX_STAGGER_MS
        ));
    }
    if call.expect.is_some() {
        return Err("`expect` would pin the submit's call and the changed one alike: leave it out, and pin the \
                    outcome with [expect_ledger] or a later step (conflict-on-changed-arguments judges the changed \
                    call)"
            .to_owned());
    }
    Ok(())
}

/// The tool a submitted call names, or the one its corpus case calls.
fn call_tool(call: &super::step::CallSpec) -> Option<String> {
    call.tool.clone().or_else(|| {
        let case = call.corpus.as_deref()?;
        Corpus::shipped().cases.iter().find(|known| known.name == case).map(|known| known.tool.clone())
    })
}

/// A read (every `GET` of the conformance app) whose answer brought nothing to read may be sent again within the
/// call (docs/protocol.md), and the read again may succeed. A fault that hits such a read only once, in a
/// scenario that pins an outcome, would judge whether the executor reads again, which the contract leaves free.
fn check_read_faults(draft: &Draft, step: &Step, tool: Option<&str>) -> Result<(), String> {
    if step.expect().is_none() && draft.expect_ledger.is_empty() {
        return Ok(());
    }
    for fault in step.faults().iter().filter(|fault| fault.times != 0 && fault.kind.leaves_nothing_to_read()) {
        let catalog = callproof_executor::app::catalog_entries();
        let endpoint = fault
            .on
            .clone()
            .or_else(|| tool.and_then(|tool| crate::world::main_endpoint(catalog, tool)))
            .unwrap_or_default();
        if endpoint.starts_with("GET ") {
            return Err(format!(
                "fault `{}` on `{endpoint}` applies to {}, but after such an answer a call may read again \
                 (docs/protocol.md) and this scenario pins an outcome: add `times = 0` to fault every read of the \
                 step",
                fault.kind.name(),
                if fault.times == 1 { "one read".to_owned() } else { format!("{} reads", fault.times) }
            ));
        }
    }
    Ok(())
}

fn check_step(draft: &Draft, step: &Step, ids: &[&str]) -> Result<(), String> {
    let known = known();
    if let Some(auth) = step.auth_name()
        && !draft.auth.contains_key(auth)
    {
        let defined: Vec<String> = draft.auth.keys().cloned().collect();
        return Err(format!("auth `{auth}` is not defined in [auth] (defined: {})", choices(&defined)));
    }
    if let Some(of) = step.of()
        && !ids.contains(&of)
    {
        return Err(format!("`of = \"{of}\"` names no earlier step id (known: {})", ids.join(", ")));
    }
    for fault in step.faults() {
        if fault.kind.acts_on_whole_step() && (fault.on.is_some() || fault.nth != 1 || fault.times != 1) {
            return Err(format!(
                "fault `{}` acts for the whole step, not on requests: `on`, `nth` and `times` do not apply to it",
                fault.kind.name()
            ));
        }
        if let Some(on) = &fault.on
            && !known.endpoints.contains(on)
        {
            return Err(format!(
                "fault `{}`: `on = \"{on}\"` is not an endpoint of the conformance app (one of: {})",
                fault.kind.name(),
                choices(&known.endpoints)
            ));
        }
    }
    match step {
        Step::Submit(call) | Step::Burst { call, .. } => {
            let sources = [call.arguments.is_some(), call.arguments_json.is_some(), call.corpus.is_some()];
            if sources.iter().filter(|given| **given).count() != 1 {
                return Err("give exactly one of `arguments`, `arguments_json` or `corpus`".to_owned());
            }
            if call.tool.is_none() && call.corpus.is_none() {
                return Err(format!("name the `tool` the model calls (one of: {})", choices(&known.tools)));
            }
            if let Some(case) = &call.corpus {
                check_case(case)?;
            }
            if let Some(id) = &call.id
                && ids.contains(&id.as_str())
            {
                return Err(format!("step id `{id}` is used twice"));
            }
            if let Some(during) = &call.changed_during {
                check_changed_during(step, call, during)?;
            }
            if let Some(alongside) = &call.alongside {
                check_alongside(draft, step, call, alongside)?;
            }
            if matches!(step, Step::Burst { .. }) && call.expect.is_some() {
                return Err("a burst's calls answer differently (one executes, the others wait or replay), so \
                            `expect` is not allowed on a burst: pin the outcome with [expect_ledger]"
                    .to_owned());
            }
        }
        Step::Changed(changed) if changed.arguments.is_none() == changed.arguments_json.is_none() => {
            return Err("`changed` needs exactly one of `arguments` or `arguments_json`".to_owned());
        }
        Step::Corpus(corpus) => corpus.only.iter().try_for_each(|case| check_case(case))?,
        _ => {}
    }
    Ok(())
}

fn check_case(case: &str) -> Result<(), String> {
    let known = known();
    if known.cases.iter().any(|known| known == case) {
        return Ok(());
    }
    Err(format!("`{case}` is not a case of the malformed corpus (one of: {})", choices(&known.cases)))
}
