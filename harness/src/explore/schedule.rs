//! Schedules: what the explorer generates, and how a schedule becomes an ordinary scenario file.
//!
//! Rule enforced here: a schedule is written in the scenario language itself, so anything the explorer finds
//! is a file `callproof run` replays (over real wiremock) with no explorer involved. Generation draws from
//! small pools (three orders, six callers, a dozen faults) so that collisions, which is where the bugs are,
//! happen often.

use proptest::prelude::*;
use proptest::sample::Index;
use std::fmt::Write;

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
}

/// A downstream fault on the step's main request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Commit, then close without answering.
    CommitThenDrop,
    /// Commit, answer after the deadline.
    CommitThenDelay,
    /// Nothing committed, 503.
    FailBeforeCommit,
    /// Nothing committed, 429.
    RateLimit,
    /// A slow commit that finishes in time.
    SlowInTime,
    /// A slow commit past the deadline (abandoned by the downstream).
    SlowPastDeadline,
    /// A result that breaks the output schema.
    BadOutput,
    /// An instruction in a returned text field.
    InjectText,
    /// Secrets in an error body.
    LeakBait,
    /// Commit, then kill the executor.
    KillAfterCommit,
    /// Kill the executor before anything is committed.
    KillAfterClaim,
    /// Hold requests until several are in flight.
    HoldUntil,
}

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
        fault: Option<Fault>,
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
        fault: Option<Fault>,
    },
    /// Retry an earlier operation with a new call id.
    Retry {
        /// Which earlier operation.
        op: Index,
        /// A fault.
        fault: Option<Fault>,
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

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        6 => (0..3usize, prop::option::weighted(0.8, prop_oneof![Just(5u32), Just(10), Just(30)]))
            .prop_map(|(order, amount)| Call::Refund { order, amount }),
        1 => (0..3usize).prop_map(|order| Call::GetOrder { order }),
        1 => any::<bool>().prop_map(|celsius| Call::Weather { celsius }),
        1 => any::<bool>().prop_map(|french| Call::Preference { french }),
        1 => Just(Call::Email),
        1 => any::<bool>().prop_map(|first| Call::Delete { first }),
    ]
}

fn fault() -> impl Strategy<Value = Option<Fault>> {
    prop::option::weighted(
        0.5,
        prop_oneof![
            Just(Fault::CommitThenDrop),
            Just(Fault::CommitThenDelay),
            Just(Fault::FailBeforeCommit),
            Just(Fault::RateLimit),
            Just(Fault::SlowInTime),
            Just(Fault::SlowPastDeadline),
            Just(Fault::BadOutput),
            Just(Fault::InjectText),
            Just(Fault::LeakBait),
            Just(Fault::KillAfterCommit),
            Just(Fault::KillAfterClaim),
            Just(Fault::HoldUntil),
        ],
    )
}

fn mangle() -> impl Strategy<Value = Mangle> {
    prop_oneof![
        12 => Just(Mangle::None),
        1 => Just(Mangle::StringForInteger),
        1 => Just(Mangle::UnknownField),
        1 => Just(Mangle::TenantInArguments),
        1 => Just(Mangle::DuplicateKey),
    ]
}

fn auth() -> impl Strategy<Value = usize> {
    prop_oneof![8 => Just(0usize), 1 => Just(1), 1 => Just(2), 1 => Just(3), 1 => Just(4), 1 => Just(5)]
}

fn business() -> impl Strategy<Value = Option<u8>> {
    prop::option::weighted(0.8, 0..3u8)
}

fn one_move() -> impl Strategy<Value = Move> {
    prop_oneof![
        5 => (call(), mangle(), auth(), business(), prop_oneof![Just(300u64), Just(1000), Just(3000)], fault())
            .prop_map(|(call, mangle, auth, business, budget_ms, fault)| Move::Submit { call, mangle, auth, business, budget_ms, fault }),
        1 => (call(), auth(), business(), 2..5u32, fault())
            .prop_map(|(call, auth, business, count, fault)| Move::Burst { call, auth, business, count, fault }),
        4 => (any::<Index>(), fault()).prop_map(|(op, fault)| Move::Retry { op, fault }),
        1 => any::<Index>().prop_map(|op| Move::Duplicate { op }),
        1 => any::<Index>().prop_map(|op| Move::Changed { op }),
        2 => prop_oneof![Just(100u64), Just(1000), Just(3000)].prop_map(|ms| Move::Wait { ms }),
    ]
}

/// Schedules of 1 to `max_moves` moves.
pub fn schedule(max_moves: usize) -> impl Strategy<Value = Vec<Move>> {
    prop::collection::vec(one_move(), 1..=max_moves.max(1))
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

impl Fault {
    fn toml(self, budget_ms: u64, count: u32) -> String {
        match self {
            Fault::CommitThenDrop => r#"{ kind = "commit_then_drop" }"#.to_owned(),
            Fault::CommitThenDelay => format!(r#"{{ kind = "commit_then_delay", ms = {} }}"#, budget_ms + 700),
            Fault::FailBeforeCommit => r#"{ kind = "fail_before_commit", status = 503 }"#.to_owned(),
            Fault::RateLimit => r#"{ kind = "rate_limit", retry_after = 2 }"#.to_owned(),
            Fault::SlowInTime => format!(r#"{{ kind = "slow_before_commit", ms = {} }}"#, budget_ms / 4),
            Fault::SlowPastDeadline => format!(r#"{{ kind = "slow_before_commit", ms = {} }}"#, budget_ms + 1000),
            Fault::BadOutput => r#"{ kind = "bad_output" }"#.to_owned(),
            Fault::InjectText => r#"{ kind = "inject_text", times = 0 }"#.to_owned(),
            Fault::LeakBait => r#"{ kind = "leak_bait" }"#.to_owned(),
            Fault::KillAfterCommit => r#"{ kind = "kill_after_commit" }"#.to_owned(),
            Fault::KillAfterClaim => r#"{ kind = "kill_after_claim" }"#.to_owned(),
            Fault::HoldUntil => format!(r#"{{ kind = "hold_until", count = {}, timeout_ms = 300 }}"#, count.max(2)),
        }
    }
}

struct OpInfo {
    id: String,
    call: Call,
    budget_ms: u64,
    has_business_id: bool,
}

/// The schedule as scenario TOML. Moves that refer to an operation when there is none are left out.
pub fn to_toml(moves: &[Move], description: &str) -> String {
    let mut text = format!("description = \"\"\"\n{description}\"\"\"\n{WORLD}");
    let mut ops: Vec<OpInfo> = Vec::new();
    let faults = |fault: &Option<Fault>, budget_ms: u64, count: u32| {
        fault.map(|fault| format!("faults = [{}]\n", fault.toml(budget_ms, count))).unwrap_or_default()
    };
    for one in moves {
        let step = match one {
            Move::Submit { call, mangle, auth, business, budget_ms, fault } => {
                let id = format!("op{}", ops.len() + 1);
                let mut step = format!(
                    "action = \"submit\"\nid = \"{id}\"\ntool = \"{}\"\nauth = \"{}\"\n",
                    call.tool(),
                    AUTHS[*auth % AUTHS.len()]
                );
                if let Some(business) = business {
                    let _ = writeln!(step, "business_request_id = \"br_{business}\"");
                }
                let _ = write!(
                    step,
                    "budget_ms = {budget_ms}\narguments = '{}'\n{}",
                    call.arguments(*mangle),
                    faults(fault, *budget_ms, 1)
                );
                ops.push(OpInfo { id, call: call.clone(), budget_ms: *budget_ms, has_business_id: business.is_some() });
                step
            }
            Move::Burst { call, auth, business, count, fault } => {
                let id = format!("op{}", ops.len() + 1);
                let mut step = format!(
                    "action = \"burst\"\ncount = {count}\nid = \"{id}\"\ntool = \"{}\"\nauth = \"{}\"\n",
                    call.tool(),
                    AUTHS[*auth % AUTHS.len()]
                );
                if let Some(business) = business {
                    let _ = writeln!(step, "business_request_id = \"br_{business}\"");
                }
                let _ = write!(
                    step,
                    "budget_ms = 3000\narguments = '{}'\n{}",
                    call.arguments(Mangle::None),
                    faults(fault, 3000, *count)
                );
                ops.push(OpInfo { id, call: call.clone(), budget_ms: 3000, has_business_id: business.is_some() });
                step
            }
            Move::Retry { op, fault } => {
                let Some(info) = (!ops.is_empty()).then(|| &ops[op.index(ops.len())]) else { continue };
                format!("action = \"retry\"\nof = \"{}\"\n{}", info.id, faults(fault, info.budget_ms, 1))
            }
            Move::Duplicate { op } => {
                let Some(info) = (!ops.is_empty()).then(|| &ops[op.index(ops.len())]) else { continue };
                format!("action = \"duplicate\"\nof = \"{}\"\n", info.id)
            }
            Move::Changed { op } => {
                // Changed arguments only mean something under a business request id.
                let with_id: Vec<&OpInfo> = ops.iter().filter(|info| info.has_business_id).collect();
                let Some(info) = (!with_id.is_empty()).then(|| with_id[op.index(with_id.len())]) else { continue };
                format!("action = \"changed\"\nof = \"{}\"\narguments = '{}'\n", info.id, info.call.changed_arguments())
            }
            Move::Wait { ms } => format!("action = \"wait\"\nms = {ms}\n"),
        };
        let _ = write!(text, "\n[[step]]\n{step}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn every_generated_schedule_is_a_valid_scenario() {
        let mut runner = TestRunner::deterministic();
        for _ in 0..200 {
            let moves = schedule(12).new_tree(&mut runner).expect("tree").current();
            let text = to_toml(&moves, "generated");
            if let Err(error) = Scenario::parse(&text) {
                assert!(error.to_string().contains("at least one"), "{error}\n{text}");
            }
        }
    }
}
