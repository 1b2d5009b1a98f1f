//! `leak_bait`: the downstream commits nothing and answers 500 with a body full of secrets.
//!
//! Rule enforced here: every marker of [`LEAK_MARKERS`] is in the body, so a check can look for each one in
//! every envelope.

use crate::world::fault::{Before, Fault, FaultKind, Generated, Outgoing, Request, Rule};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Markers of secrets a `leak_bait` error body carries; none may ever reach an envelope.
pub const LEAK_MARKERS: [&str; 5] = [
    "sk_live_CANARY_51HbQ7f3a9",
    "Traceback (most recent call last)",
    "SELECT refund_id, card_number FROM payments",
    "db-primary-7.payments.internal.corp",
    "at com.payments.RefundService.commit(RefundService.java:212)",
];

/// Commit nothing; answer 500 with a body full of secrets (canary token, stack trace, SQL, hostname).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeakBait {}

impl Rule for LeakBait {
    fn before_commit(&mut self, _request: &Request<'_>) -> Before {
        Before::Answer(Outgoing::refusal(500, body()))
    }
}

impl Fault for LeakBait {
    fn leaves_nothing_to_read(&self) -> bool {
        true
    }

    fn generated() -> Vec<Generated> {
        vec![Generated::new("leak_bait", |_| FaultKind::LeakBait(LeakBait {}).into())]
    }
}

fn body() -> Value {
    json!({
        "error": "internal",
        "api_key": LEAK_MARKERS[0],
        "trace": format!("{}\n  File \"/srv/payments/refund.py\", line 88\n{}", LEAK_MARKERS[1], LEAK_MARKERS[4]),
        "query": format!("{} WHERE order_id = 'ord_123'", LEAK_MARKERS[2]),
        "host": LEAK_MARKERS[3],
    })
}
