//! The conformance app: the fixed set of tools every executor under test implements against the mocked
//! downstream (refund_order, get_order, get_weather, set_preference, send_email, delete_account, and the task
//! tools export_account_data, task_status, task_cancel).
//!
//! Rule enforced here: the reference executor implements the app exactly as scenarios/catalog/ and
//! docs/conformance-app.md describe it, with real HTTP calls through the [`Downstream`] port, so the harness
//! can swap the network for an in-process world without touching a tool.

mod catalog;
mod downstream;
mod http_tool;
mod resources;
mod variant;

pub use catalog::{BusinessRule, CatalogEntry, HttpContract, ResourceBinding, catalog};
pub use downstream::{
    Downstream, HttpDownstream, HttpRequest, HttpResponse, HttpSetupError, MAX_RESPONSE_BYTES, SendError,
};
pub use http_tool::HttpTool;
pub use resources::HttpResources;
pub use variant::{AssembleError, Variant};

use crate::registry::{RegistryError, Tools};
use std::sync::Arc;

/// The app's tools and its system of record, both talking to `downstream`.
///
/// # Errors
/// A [`RegistryError`] if a catalog schema does not compile (the unit tests guarantee they do).
pub fn conformance_app(downstream: Arc<dyn Downstream>) -> Result<(Tools, Arc<HttpResources>), RegistryError> {
    let entries = catalog();
    let resources = Arc::new(HttpResources::new(&entries, downstream.clone()));
    let mut tools = Tools::new();
    for entry in entries {
        tools.register(Arc::new(HttpTool::new(entry, downstream.clone())))?;
    }
    Ok((tools, resources))
}
