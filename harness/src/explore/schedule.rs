//! Schedules: what the explorer generates, and how a schedule becomes an ordinary scenario.
//!
//! Rule enforced here: a schedule becomes a [`Scenario`] value of the scenario language itself (checked like
//! a file), so anything the explorer finds is written as a file `callproof run` replays (over real wiremock)
//! with no explorer involved. A schedule that does not make a valid scenario is a bug of the generator and
//! panics; it is never a pass. Generation draws from small pools (three orders, six callers, the faults each
//! kind offers for exploration) so that collisions, which is where the bugs are, happen often.

use crate::scenario::{AuthFixture, CallSpec, ChangedSpec, Draft, FollowUp, Scenario, Step};
use crate::world::fault::{FaultKind, Generated, Shape};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::{NewTree, ValueTree};
use proptest::test_runner::TestRunner;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// The fixed world every schedule runs in.
pub const WORLD: &str = r#"
[[fixtures.orders]]
order_id = "ord_123"
tenant_id = "t_acme"
owner_id = "u_alice"
refundable_amount = 100

[[fixtures.orders]]
order_id = "ord_555"
tenant_id = "t_acme"
owner_id = "u_bob"
refundable_amount = 100

[[fixtures.orders]]
order_id = "ord_999"
tenant_id = "t_globex"
owner_id = "u_mallory"
refundable_amount = 100

[[fixtures.accounts]]
account_id = "acct_1"
tenant_id = "t_acme"
owner_id = "u_alice"

[[fixtures.accounts]]
account_id = "acct_2"
tenant_id = "t_acme"
owner_id = "u_alice"

[auth.alice]
subject_id = "u_alice"
tenant_id = "t_acme"
scopes = ["refunds:write", "orders:read", "preferences:write", "email:send", "accounts:delete"]

[auth.alice.approval]
tool = "delete_account"
arguments = '{"account_id":"acct_1"}'

[auth.bob]
subject_id = "u_bob"
tenant_id = "t_acme"
scopes = ["refunds:write", "orders:read", "preferences:write", "email:send", "accounts:delete"]

[auth.mallory]
subject_id = "u_mallory"
tenant_id = "t_globex"
scopes = ["refunds:write", "orders:read", "preferences:write", "email:send", "accounts:delete"]

[auth.support]
subject_id = "u_sam"
tenant_id = "t_acme"
scopes = ["refunds:write", "orders:read"]
roles = ["support_admin"]

[auth.reader]
subject_id = "u_alice"
tenant_id = "t_acme"
scopes = ["orders:read"]

[auth.expired]
subject_id = "u_alice"
tenant_id = "t_acme"
scopes = ["refunds:write", "orders:read"]
identity = "expired"
"#;

const AUTHS: [&str; 6] = ["alice", "bob", "mallory", "support", "reader", "expired"];
const ORDERS: [&str; 3] = ["ord_123", "ord_555", "ord_999"];

/// A tool call with valid arguments drawn from small pools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `refund_order`.
    Refund {
        /// Index into the orders.
        order: usize,
        /// `None` refunds everything refundable.
        amount: Option<u32>,
    },
    /// `get_order`.
    GetOrder {
        /// Index into the orders.
        order: usize,
    },
    /// `get_weather`.
    Weather {
        /// Units given or null.
        celsius: bool,
    },
    /// `set_preference`.
    Preference {
        /// Which value.
        french: bool,
    },
    /// `send_email`.
    Email,
    /// `delete_account`.
    Delete {
        /// `acct_1` (approved for alice) or `acct_2`.
        first: bool,
    },
}

/// How the model mangles otherwise valid arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mangle {
    /// Not at all.
    None,
    /// An integer as a string.
    StringForInteger,
    /// An undeclared field.
    UnknownField,
    /// An identity claim in the arguments.
    TenantInArguments,
    /// A repeated key with a bigger value last.
    DuplicateKey,
    /// The amount spelled another way (an index into a table of 12): `100.0`, `1e2`, `0100`, `0x64`, ...
    NumberForm(u8),
    /// A JSON extension some parsers accept (an index into a table of 9): comments, trailing commas, NaN, ...
    Extension(u8),
}

/// Ways to spell the integer `n` that a lax parser may still read as a number; the strict decoder refuses every
/// one (as a schema violation or as invalid JSON), so `malformed-input-refused` judges the whole class.
const NUMBER_FORMS: [fn(i64) -> String; 12] = [
    |n| format!("{n}.0"),
    |n| format!("{n}e0"),
    |n| format!("{n}E0"),
    |n| format!("{n}.0e0"),
    |n| format!("{n}e+0"),
    |n| format!("{n}0e-1"),
    |n| format!("0{n}"),
    |n| format!("+{n}"),
    |n| format!("0x{n:x}"),
    |n| format!("{n}."),
    |n| format!("{n}n"),
    |n| format!("{n}_0"),
];

/// Extensions of JSON that lenient parsers (JSON5, Python's `json`, YAML-ish repair) accept, applied to a valid
/// refund text: `(order, amount)` give it.
const EXTENSIONS: [fn(&str, &str) -> String; 9] = [
    |order, amount| format!(r#"{{"order_id":"{order}","amount":{amount},"reason":"duplicate charge",}}"#),
    |order, amount| format!(r#"{{/* agent */"order_id":"{order}","amount":{amount},"reason":"duplicate charge"}}"#),
    |order, amount| {
        format!("{{\"order_id\":\"{order}\", // agent\n\"amount\":{amount},\"reason\":\"duplicate charge\"}}")
    },
    |order, _| format!(r#"{{"order_id":"{order}","amount":NaN,"reason":"duplicate charge"}}"#),
    |order, _| format!(r#"{{"order_id":"{order}","amount":Infinity,"reason":"duplicate charge"}}"#),
    |order, amount| format!(r#"{{"order_id":"{order}","amount":{amount},"reason":'duplicate charge'}}"#),
    |order, amount| format!(r#"{{order_id:"{order}","amount":{amount},"reason":"duplicate charge"}}"#),
    |order, amount| format!("\u{feff}{{\"order_id\":\"{order}\",\"amount\":{amount},\"reason\":\"duplicate charge\"}}"),
    |order, amount| format!(r#"{{"order_id":"{order}","amount":{amount},"reason":"duplicate\x20charge"}}"#),
];

/// One move of a schedule.
#[derive(Debug, Clone)]
pub enum Move {
    /// A new business operation.
    Submit {
        /// The call.
        call: Call,
        /// Argument mangling.
        mangle: Mangle,
        /// Index into the callers.
        auth: usize,
        /// A business request id from a pool of three, or none.
        business: Option<u8>,
        /// Budget in ms.
        budget_ms: u64,
        /// A fault.
        fault: Option<Generated>,
    },
    /// Identical calls at once.
    Burst {
        /// The call.
        call: Call,
        /// Index into the callers.
        auth: usize,
        /// A business request id, or none.
        business: Option<u8>,
        /// How many.
        count: u32,
        /// A fault.
        fault: Option<Generated>,
    },
    /// Retry an earlier operation with a new call id.
    Retry {
        /// Which earlier operation.
        op: Index,
        /// A fault.
        fault: Option<Generated>,
    },
    /// Resubmit an earlier call identically.
    Duplicate {
        /// Which earlier operation.
        op: Index,
    },
    /// Resubmit an earlier business request with other arguments.
    Changed {
        /// Which earlier operation.
        op: Index,
    },
    /// Let time pass.
    Wait {
        /// Milliseconds.
        ms: u64,
    },
}

/// One of `options`, drawn by its weight as a single integer below the total weight. A draw is one range value:
/// no nested value tree per option, as `prop_oneof!` builds (each carrying a copy of the test runner), so a
/// schedule costs a few dozen draws to generate. Shrinking lowers the integer, which moves towards the first
/// option, so each table lists its simplest option first.
fn weighted<T: Clone + fmt::Debug + 'static>(options: &'static [(u32, T)]) -> impl Strategy<Value = T> {
    let total: u32 = options.iter().map(|(weight, _)| weight).sum();
    (0..total).prop_map(move |draw| {
        let mut below = draw;
        for (weight, option) in options {
            if below < *weight {
                return option.clone();
            }
            below -= weight;
        }
        unreachable!("a draw below the total weight {total} falls on an option")
    })
}

/// `Some` of `value` with probability `tenths` / 10, drawn as one integer; shrinking prefers `None`.
fn maybe<S: Strategy>(tenths: u8, value: S) -> impl Strategy<Value = Option<S::Value>> {
    (0..10u8, value).prop_map(move |(draw, value)| (draw >= 10 - tenths).then_some(value))
}

/// The calls by weight; each option's fields are placeholders that [`call`] fills from its own draws.
const CALLS: &[(u32, Call)] = &[
    (6, Call::Refund { order: 0, amount: None }),
    (1, Call::GetOrder { order: 0 }),
    (1, Call::Weather { celsius: false }),
    (1, Call::Preference { french: false }),
    (1, Call::Email),
    (1, Call::Delete { first: false }),
];

fn call() -> impl Strategy<Value = Call> {
    let amount = maybe(8, weighted(&[(1, 5u32), (1, 10), (1, 30)]));
    (weighted(CALLS), 0..ORDERS.len(), amount, any::<bool>()).prop_map(|(call, order, amount, flag)| match call {
        Call::Refund { .. } => Call::Refund { order, amount },
        Call::GetOrder { .. } => Call::GetOrder { order },
        Call::Weather { .. } => Call::Weather { celsius: flag },
        Call::Preference { .. } => Call::Preference { french: flag },
        Call::Email => Call::Email,
        Call::Delete { .. } => Call::Delete { first: flag },
    })
}

/// One of the forms the fault kinds offer for exploration, or none. The forms are drawn uniformly in registry
/// order, which is also the order shrinking prefers.
fn fault() -> impl Strategy<Value = Option<Generated>> {
    static FORMS: OnceLock<Vec<Generated>> = OnceLock::new();
    let forms = FORMS.get_or_init(FaultKind::generated);
    maybe(5, (0..forms.len()).prop_map(move |form| forms[form]))
}

/// The manglings by weight; the index of `NumberForm` and `Extension` is a placeholder [`mangle`] draws.
const MANGLES: &[(u32, Mangle)] = &[
    (12, Mangle::None),
    (1, Mangle::StringForInteger),
    (1, Mangle::UnknownField),
    (1, Mangle::TenantInArguments),
    (1, Mangle::DuplicateKey),
    (1, Mangle::NumberForm(0)),
    (1, Mangle::Extension(0)),
];

fn mangle() -> impl Strategy<Value = Mangle> {
    (weighted(MANGLES), 0..NUMBER_FORMS.len() as u8, 0..EXTENSIONS.len() as u8).prop_map(|(mangle, form, extension)| {
        match mangle {
            Mangle::NumberForm(_) => Mangle::NumberForm(form),
            Mangle::Extension(_) => Mangle::Extension(extension),
            other => other,
        }
    })
}

/// Callers by weight, as indexes into [`AUTHS`]: mostly alice, so that operations collide.
const CALLERS: &[(u32, usize)] = &[(8, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5)];

/// A business request id from a pool of three, or none.
fn business() -> impl Strategy<Value = Option<u8>> {
    maybe(8, 0..3u8)
}

/// Which move, by weight.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Submit,
    Burst,
    Retry,
    Duplicate,
    Changed,
    Wait,
}

const KINDS: &[(u32, Kind)] =
    &[(5, Kind::Submit), (1, Kind::Burst), (4, Kind::Retry), (1, Kind::Duplicate), (1, Kind::Changed), (2, Kind::Wait)];

/// A move: its kind, and every value any kind may use, each drawn once (a kind ignores the values it has no
/// field for; shrinking passes over those, see [`SkipUnchanged`]).
fn one_move() -> impl Strategy<Value = Move> {
    let budget = weighted(&[(1, 300u64), (1, 1000), (1, 3000)]);
    let wait = weighted(&[(1, 100u64), (1, 1000), (1, 3000)]);
    (weighted(KINDS), call(), mangle(), weighted(CALLERS), business(), budget, fault(), 2..5u32, any::<Index>(), wait)
        .prop_map(|(kind, call, mangle, auth, business, budget_ms, fault, count, op, ms)| match kind {
            Kind::Submit => Move::Submit { call, mangle, auth, business, budget_ms, fault },
            Kind::Burst => Move::Burst { call, auth, business, count, fault },
            Kind::Retry => Move::Retry { op, fault },
            Kind::Duplicate => Move::Duplicate { op },
            Kind::Changed => Move::Changed { op },
            Kind::Wait => Move::Wait { ms },
        })
}

/// Schedules of 1 to `max_moves` moves.
pub fn schedule(max_moves: usize) -> impl Strategy<Value = Vec<Move>> {
    SkipUnchanged(prop::collection::vec(one_move(), 1..=max_moves.max(1)))
}

/// Shrinks like `S`, but passes over every step that leaves the schedule as it was. A move draws values its kind
/// ignores (a wait has no call); simplifying one of those changes nothing, and trying it would cost a run of the
/// whole schedule (a second or more against a process in real time) to learn what is already known. Two values
/// are the same when their `Debug` texts are: every field of a move shows in it.
#[derive(Debug)]
struct SkipUnchanged<S>(S);

impl<S: Strategy> Strategy for SkipUnchanged<S> {
    type Tree = SkipUnchangedTree<S::Tree>;
    type Value = S::Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        self.0.new_tree(runner).map(SkipUnchangedTree)
    }
}

/// [`SkipUnchanged`]'s value tree.
struct SkipUnchangedTree<T>(T);

impl<T: ValueTree> SkipUnchangedTree<T> {
    /// Takes `step` until it fails or the value differs from the one before it.
    fn step_to_a_change(&mut self, step: fn(&mut T) -> bool) -> bool {
        let before = format!("{:?}", self.0.current());
        while step(&mut self.0) {
            if format!("{:?}", self.0.current()) != before {
                return true;
            }
        }
        false
    }
}

impl<T: ValueTree> ValueTree for SkipUnchangedTree<T> {
    type Value = T::Value;

    fn current(&self) -> T::Value {
        self.0.current()
    }

    fn simplify(&mut self) -> bool {
        self.step_to_a_change(T::simplify)
    }

    fn complicate(&mut self) -> bool {
        self.step_to_a_change(T::complicate)
    }
}

/// The amount a mangled spelling writes: the call's own, or 7 where it has none (null).
fn amount_or_seven(amount: Option<u32>) -> i64 {
    amount.map_or(7, i64::from)
}

impl Call {
    fn tool(&self) -> &'static str {
        match self {
            Call::Refund { .. } => "refund_order",
            Call::GetOrder { .. } => "get_order",
            Call::Weather { .. } => "get_weather",
            Call::Preference { .. } => "set_preference",
            Call::Email => "send_email",
            Call::Delete { .. } => "delete_account",
        }
    }

    fn arguments(&self, mangle: Mangle) -> String {
        match (self, mangle) {
            (Call::Refund { order, amount }, _) => {
                let spelled_amount = amount_or_seven(*amount);
                let amount = amount.map_or("null".to_owned(), |amount| amount.to_string());
                let order = ORDERS[*order];
                match mangle {
                    Mangle::None => {
                        format!(r#"{{"order_id":"{order}","amount":{amount},"reason":"duplicate charge"}}"#)
                    }
                    Mangle::StringForInteger => {
                        format!(r#"{{"order_id":"{order}","amount":"{amount}","reason":"duplicate charge"}}"#)
                    }
                    Mangle::UnknownField => format!(
                        r#"{{"order_id":"{order}","amount":{amount},"reason":"duplicate charge","is_admin":true}}"#
                    ),
                    Mangle::TenantInArguments => {
                        format!(
                            r#"{{"order_id":"{order}","amount":{amount},"reason":"duplicate charge","tenant_id":"t_globex"}}"#
                        )
                    }
                    Mangle::DuplicateKey => {
                        format!(r#"{{"order_id":"{order}","amount":1,"reason":"duplicate charge","amount":{amount}}}"#)
                    }
                    Mangle::NumberForm(form) => {
                        let spelled = NUMBER_FORMS[usize::from(form) % NUMBER_FORMS.len()](spelled_amount);
                        format!(r#"{{"order_id":"{order}","amount":{spelled},"reason":"duplicate charge"}}"#)
                    }
                    Mangle::Extension(extension) => {
                        let number = spelled_amount.to_string();
                        EXTENSIONS[usize::from(extension) % EXTENSIONS.len()](order, &number)
                    }
                }
            }
            (Call::GetOrder { order }, _) => format!(r#"{{"order_id":"{}"}}"#, ORDERS[*order]),
            (Call::Weather { celsius }, _) => {
                format!(r#"{{"location":"Oslo","units":{}}}"#, if *celsius { "\"celsius\"" } else { "null" })
            }
            (Call::Preference { french }, _) => {
                format!(r#"{{"key":"language","value":"{}"}}"#, if *french { "fr" } else { "en" })
            }
            (Call::Email, _) => {
                r#"{"to":"bob@example.com","subject":"Your refund","body":"It is on its way."}"#.to_owned()
            }
            (Call::Delete { first }, _) => format!(r#"{{"account_id":"acct_{}"}}"#, if *first { 1 } else { 2 }),
        }
    }

    /// Other valid arguments for the same tool (for `changed` steps).
    fn changed_arguments(&self) -> String {
        match self {
            Call::Refund { order, amount } => {
                Call::Refund { order: *order, amount: Some(amount.map_or(7, |amount| amount + 1)) }
            }
            Call::GetOrder { order } => Call::GetOrder { order: (order + 1) % ORDERS.len() },
            Call::Weather { celsius } => Call::Weather { celsius: !celsius },
            Call::Preference { french } => Call::Preference { french: !french },
            Call::Email => {
                return r#"{"to":"carol@example.com","subject":"Your refund","body":"It is on its way."}"#.to_owned();
            }
            Call::Delete { first } => Call::Delete { first: !first },
        }
        .arguments(Mangle::None)
    }
}

struct OpInfo {
    id: String,
    call: Call,
    budget_ms: u64,
    has_business_id: bool,
}

/// The fixtures and callers every schedule runs with.
fn world() -> &'static Draft<toml::Table> {
    static WORLD_DRAFT: OnceLock<Draft<toml::Table>> = OnceLock::new();
    WORLD_DRAFT.get_or_init(|| {
        toml::from_str(&format!("description = \"\"\n{WORLD}")).expect("the exploration world is a valid scenario head")
    })
}

/// The schedule as a scenario, or `None` when no move makes a step (every move refers to an operation and
/// there is none). Moves that refer to an operation when there is none are left out.
///
/// # Panics
/// When the scenario is not valid: a bug of the generator, never a pass.
pub fn to_scenario(moves: &[Move], description: &str) -> Option<Scenario> {
    let steps = steps(moves);
    if steps.is_empty() {
        return None;
    }
    let world = world();
    let used: Vec<&str> = steps.iter().filter_map(Step::auth_name).collect();
    let auth: BTreeMap<String, AuthFixture> = world
        .auth
        .iter()
        .filter(|(name, _)| used.contains(&name.as_str()))
        .map(|(name, auth)| (name.clone(), auth.clone()))
        .collect();
    let draft = Draft {
        description: description.to_owned(),
        fixtures: world.fixtures.clone(),
        auth,
        steps,
        ..Draft::default()
    };
    match Scenario::new(draft, "explore") {
        Ok(scenario) => Some(scenario),
        Err(invalid) => panic!("the explorer generated an invalid scenario ({invalid}): a bug of the generator"),
    }
}

/// The schedule as scenario TOML (empty when no move makes a step).
pub fn to_toml(moves: &[Move], description: &str) -> String {
    to_scenario(moves, description)
        .map(|scenario| scenario.to_toml().expect("a generated scenario is plain TOML data"))
        .unwrap_or_default()
}

fn steps(moves: &[Move]) -> Vec<Step> {
    let mut ops: Vec<OpInfo> = Vec::new();
    let mut steps = Vec::new();
    let fault = |fault: &Option<Generated>, budget_ms: u64, count: u32| {
        fault.iter().map(|fault| fault.build(&Shape { budget_ms, count })).collect::<Vec<_>>()
    };
    for one in moves {
        let step = match one {
            Move::Submit { call, mangle, auth, business, budget_ms, fault: generated } => {
                let spec = new_call(&mut ops, call, *auth, *business, *budget_ms);
                let faults = fault(generated, *budget_ms, 1);
                Step::Submit(CallSpec { arguments: Some(call.arguments(*mangle)), faults, ..spec })
            }
            Move::Burst { call, auth, business, count, fault: generated } => {
                let spec = new_call(&mut ops, call, *auth, *business, 3000);
                let faults = fault(generated, 3000, *count);
                Step::Burst {
                    call: CallSpec { arguments: Some(call.arguments(Mangle::None)), faults, ..spec },
                    count: *count,
                    stagger_ms: 0,
                }
            }
            Move::Retry { op, fault: generated } => {
                let Some(info) = (!ops.is_empty()).then(|| &ops[op.index(ops.len())]) else { continue };
                Step::Retry(FollowUp {
                    of: info.id.clone(),
                    faults: fault(generated, info.budget_ms, 1),
                    ..FollowUp::default()
                })
            }
            Move::Duplicate { op } => {
                let Some(info) = (!ops.is_empty()).then(|| &ops[op.index(ops.len())]) else { continue };
                Step::Duplicate(FollowUp { of: info.id.clone(), ..FollowUp::default() })
            }
            Move::Changed { op } => {
                // Changed arguments only mean something under a business request id.
                let with_id: Vec<&OpInfo> = ops.iter().filter(|info| info.has_business_id).collect();
                let Some(info) = (!with_id.is_empty()).then(|| with_id[op.index(with_id.len())]) else { continue };
                Step::Changed(ChangedSpec {
                    of: info.id.clone(),
                    arguments: Some(info.call.changed_arguments()),
                    ..ChangedSpec::default()
                })
            }
            Move::Wait { ms } => Step::Wait { ms: *ms },
        };
        steps.push(step);
    }
    steps
}

/// A new operation's call (without arguments and faults), remembered for later moves.
fn new_call(ops: &mut Vec<OpInfo>, call: &Call, auth: usize, business: Option<u8>, budget_ms: u64) -> CallSpec {
    let id = format!("op{}", ops.len() + 1);
    ops.push(OpInfo { id: id.clone(), call: call.clone(), budget_ms, has_business_id: business.is_some() });
    CallSpec {
        id: Some(id),
        tool: Some(call.tool().to_owned()),
        auth: AUTHS[auth % AUTHS.len()].to_owned(),
        business_request_id: business.map(|business| format!("br_{business}")),
        budget_ms,
        ..CallSpec::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use callproof_executor::Arguments;

    #[test]
    fn a_weighted_choice_draws_each_option_by_its_weight_and_shrinks_to_the_first() {
        let mut runner = TestRunner::deterministic();
        let strategy = weighted(KINDS);
        let mut counts = BTreeMap::new();
        for _ in 0..14_000 {
            *counts.entry(format!("{:?}", strategy.new_tree(&mut runner).expect("tree").current())).or_insert(0) += 1;
        }
        // Weights 5, 1, 4, 1, 1, 2 of 14: 5 000, 1 000, 4 000, 1 000, 1 000, 2 000 expected.
        for (kind, expected) in [("Submit", 5_000), ("Burst", 1_000), ("Retry", 4_000), ("Wait", 2_000)] {
            let drawn = counts[kind];
            assert!(drawn * 10 > expected * 9 && drawn * 10 < expected * 11, "{kind}: {drawn} of ~{expected}");
        }
        let mut tree = strategy.new_tree(&mut runner).expect("tree");
        while tree.simplify() {}
        assert!(matches!(tree.current(), Kind::Submit), "shrinks to the first option: {:?}", tree.current());
    }

    #[test]
    fn maybe_is_some_by_its_tenths_and_shrinks_to_none() {
        let mut runner = TestRunner::deterministic();
        let strategy = maybe(8, Just(()));
        let some = (0..10_000).filter(|_| strategy.new_tree(&mut runner).expect("tree").current().is_some()).count();
        assert!((7_600..8_400).contains(&some), "{some} of 10 000 are Some, ~8 000 expected");
        let mut tree = strategy.new_tree(&mut runner).expect("tree");
        while tree.simplify() {}
        assert_eq!(tree.current(), None);
    }

    #[test]
    fn every_shrinking_step_changes_the_schedule() {
        let mut runner = TestRunner::deterministic();
        let mut steps = 0;
        for _ in 0..50 {
            let mut tree = schedule(8).new_tree(&mut runner).expect("tree");
            let mut last = format!("{:?}", tree.current());
            // Alternate as a search does: simplify while "failing", complicate once in a while.
            for round in 0..200 {
                let moved = if round % 3 == 2 { tree.complicate() } else { tree.simplify() };
                if !moved {
                    break;
                }
                let now = format!("{:?}", tree.current());
                assert_ne!(now, last, "a step that left the schedule as it was");
                last = now;
                steps += 1;
            }
        }
        assert!(steps > 100, "only {steps} steps were taken");
    }

    #[test]
    fn every_generated_schedule_is_a_valid_scenario_and_reads_back_from_its_text() {
        let mut runner = TestRunner::deterministic();
        let mut built = 0;
        for _ in 0..200 {
            let moves = schedule(12).new_tree(&mut runner).expect("tree").current();
            let Some(scenario) = to_scenario(&moves, "generated") else { continue };
            built += 1;
            let text = scenario.to_toml().expect("write");
            let again = Scenario::parse(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
            assert_eq!(again.draft(), scenario.draft(), "{text}");
        }
        assert!(built > 150, "only {built} of 200 schedules made a step");
    }

    #[test]
    fn every_spelling_of_the_amount_and_every_extension_is_a_refusal_the_oracle_makes() {
        let refund = Call::Refund { order: 0, amount: Some(30) };
        let forms = (0..NUMBER_FORMS.len() as u8).map(Mangle::NumberForm);
        let extensions = (0..EXTENSIONS.len() as u8).map(Mangle::Extension);
        for mangle in forms.chain(extensions) {
            let text = refund.arguments(mangle);
            let arguments = Arguments::Raw(text.clone());
            assert!(
                crate::checks::oracle::refusal("refund_order", &arguments).is_some(),
                "{mangle:?} is accepted: {text}"
            );
        }
        let plain = Arguments::Raw(refund.arguments(Mangle::None));
        assert!(crate::checks::oracle::refusal("refund_order", &plain).is_none(), "the unmangled refund is refused");
    }
}
