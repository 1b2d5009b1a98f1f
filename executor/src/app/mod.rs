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

pub use catalog::{BusinessRule, CatalogEntry, HttpContract, ResourceBinding, catalog, shared as catalog_entries};
pub use downstream::{
    Downstream, HttpDownstream, HttpRequest, HttpResponse, HttpSetupError, MAX_RESPONSE_BYTES, SendError,
};
pub use http_tool::HttpTool;
pub use resources::HttpResources;
pub use variant::{AssembleError, Variant};

use crate::registry::{Compiled, RegistryError, Tools};
use std::sync::{Arc, OnceLock};

/// The app's tools and its system of record, both talking to `downstream`.
///
/// # Errors
/// A [`RegistryError`] if a catalog schema does not compile (the unit tests guarantee they do).
pub fn conformance_app(downstream: Arc<dyn Downstream>) -> Result<(Tools, Arc<HttpResources>), RegistryError> {
    let entries = catalog::shared();
    let resources = Arc::new(HttpResources::new(entries, downstream.clone()));
    let mut tools = Tools::new();
    for (entry, compiled) in entries.iter().zip(compiled_catalog()?) {
        tools.register_compiled(Arc::new(HttpTool::of_catalog(entry, downstream.clone())), compiled.clone())?;
    }
    Ok((tools, resources))
}

/// The catalog's declarations compiled, once per process (an executor is assembled per scenario, and per
/// schedule when exploring: compiling, serialising and hashing the schemas each time dominated assembly).
fn compiled_catalog() -> Result<&'static [Compiled], RegistryError> {
    static COMPILED: OnceLock<Result<Vec<Compiled>, RegistryError>> = OnceLock::new();
    let compiled = COMPILED.get_or_init(|| catalog::shared().iter().map(|entry| Compiled::of(&entry.spec)).collect());
    compiled.as_deref().map_err(Clone::clone)
}
