//! The conformance app's catalog: each tool's contract as data (scenarios/catalog/*.json).
//!
//! Rule enforced here: the catalog is the single source of the conformance app's contract. Schemas, risk,
//! scopes, the resource a call acts on, its business rules and its downstream HTTP contract are read from it;
//! no tool of the app hard-codes any of them. The files are embedded, so the executor needs no paths at run
//! time; the unit tests parse every file, and the nested sections refuse unknown fields. The files are parsed
//! once per process; each caller gets its own copy of what they say.

use crate::tool::ToolSpec;
use serde::{Deserialize, Serialize};

/// Where a call's resource comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceBinding {
    /// The resource type, e.g. `order`.
    pub kind: String,
    /// The argument holding the resource id, e.g. `order_id`.
    pub argument: String,
}

/// A business rule over the arguments and the loaded resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "rule", rename_all = "snake_case")]
pub enum BusinessRule {
    /// `arguments[argument] ≤ resource[attribute]` when the argument is a number (null passes).
    AtMost {
        /// The argument, e.g. `amount`.
        argument: String,
        /// The resource attribute, e.g. `refundable_amount`.
        attribute: String,
        /// The stable reason when it fails.
        reason: String,
    },
}

/// The downstream HTTP contract of a tool: `"METHOD /path/{argument}?q={argument}"` templates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpContract {
    /// How the resource is loaded for authorization.
    #[serde(default)]
    pub resource: Option<String>,
    /// How the tool is performed; the arguments are the JSON body of POST and PUT.
    pub invoke: String,
    /// How an earlier attempt is looked up by its key (`{idempotency_key}`), for reconciliation.
    #[serde(default)]
    pub status: Option<String>,
}

/// One tool of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    /// The declaration the executor registers.
    #[serde(flatten)]
    pub spec: ToolSpec,
    /// The resource a call acts on, if any.
    #[serde(default)]
    pub resource: Option<ResourceBinding>,
    /// Business rules checked before the downstream is called.
    #[serde(default)]
    pub business_rules: Vec<BusinessRule>,
    /// Reasons the downstream may give for a refusal; any other reason is reported as `downstream_rejected`.
    #[serde(default)]
    pub rejection_reasons: Vec<String>,
    /// The downstream HTTP contract.
    pub downstream: HttpContract,
    /// The part the tool plays in a task (submit, poll, cancel), if it is a task tool.
    #[serde(default)]
    pub task: Option<crate::task::TaskRole>,
}

/// The catalog files, embedded.
const FILES: [(&str, &str); 9] = [
    ("delete_account", include_str!("../../../scenarios/catalog/delete_account.json")),
    ("export_account_data", include_str!("../../../scenarios/catalog/export_account_data.json")),
    ("get_order", include_str!("../../../scenarios/catalog/get_order.json")),
    ("get_weather", include_str!("../../../scenarios/catalog/get_weather.json")),
    ("refund_order", include_str!("../../../scenarios/catalog/refund_order.json")),
    ("send_email", include_str!("../../../scenarios/catalog/send_email.json")),
    ("set_preference", include_str!("../../../scenarios/catalog/set_preference.json")),
    ("task_cancel", include_str!("../../../scenarios/catalog/task_cancel.json")),
    ("task_status", include_str!("../../../scenarios/catalog/task_status.json")),
];

/// The conformance app's catalog, sorted by tool name.
pub fn catalog() -> Vec<CatalogEntry> {
    shared().to_vec()
}

/// The catalog as parsed once per process, borrowed (what [`catalog`] copies).
pub fn shared() -> &'static [CatalogEntry] {
    static PARSED: std::sync::OnceLock<Vec<CatalogEntry>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| {
        FILES
            .iter()
            .map(|(name, text)| {
                // The files are part of this crate; the unit test below parses each one.
                serde_json::from_str(text).unwrap_or_else(|error| panic!("scenarios/catalog/{name}.json: {error}"))
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_file_parses_and_is_named_after_its_tool() {
        for ((file, _), entry) in FILES.iter().zip(catalog()) {
            assert_eq!(*file, entry.spec.name);
        }
    }

    #[test]
    fn no_argument_is_named_like_the_idempotency_key_placeholder() {
        for entry in catalog() {
            let properties = entry.spec.input_schema["properties"].as_object().cloned().unwrap_or_default();
            assert!(!properties.contains_key("idempotency_key"), "{}", entry.spec.name);
        }
    }

    #[test]
    fn every_input_schema_fits_strict_mode() {
        for entry in catalog() {
            let findings = crate::lint::lint_strict(&entry.spec.input_schema);
            assert!(findings.is_empty(), "{}: {findings:?}", entry.spec.name);
        }
    }
}
