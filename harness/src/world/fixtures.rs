//! Fixtures: the orders and accounts a scenario starts with.
//!
//! Rule enforced here: fixtures are plain data with `deny_unknown_fields`; a typo in a scenario's fixtures is
//! an error that names the field.

use serde::{Deserialize, Serialize};

/// An order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// `ord_...`.
    pub order_id: String,
    /// Owning tenant.
    pub tenant_id: String,
    /// Owning subject.
    pub owner_id: String,
    /// What may still be refunded.
    pub refundable_amount: i64,
    /// Order status.
    #[serde(default = "default_status")]
    pub status: String,
    /// Free text (where `inject_text` lands).
    #[serde(default)]
    pub note: String,
}

fn default_status() -> String {
    "paid".to_owned()
}

/// An account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Account {
    /// `acct_...`.
    pub account_id: String,
    /// Owning tenant.
    pub tenant_id: String,
    /// Owning subject.
    pub owner_id: String,
    /// Already closed.
    #[serde(default)]
    pub closed: bool,
}

/// Everything a world starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixtures {
    /// Orders.
    #[serde(default)]
    pub orders: Vec<Order>,
    /// Accounts.
    #[serde(default)]
    pub accounts: Vec<Account>,
}
