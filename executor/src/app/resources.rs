//! The conformance app's system of record: resources loaded from the downstream for authorization.
//!
//! Rule enforced here: ownership facts (`tenant_id`, `owner_id`) come from the downstream's record of the
//! resource; a 404 means "no such resource" and is answered exactly like a foreign one by the ownership check.

use super::catalog::CatalogEntry;
use super::downstream::Downstream;
use super::http_tool::build_request;
use crate::resource::{Resource, ResourceRef, Resources};
use crate::tool::{Failure, ToolContext, ToolFailure};
use async_trait::async_trait;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Loads the app's resources over HTTP, by the catalog's `downstream.resource` templates.
pub struct HttpResources {
    /// Resource kind → (argument name, request template).
    templates: BTreeMap<String, (String, String)>,
    downstream: Arc<dyn Downstream>,
}

impl HttpResources {
    /// The resources of every catalog entry that declares one.
    pub fn new(catalog: &[CatalogEntry], downstream: Arc<dyn Downstream>) -> HttpResources {
        let templates = catalog
            .iter()
            .filter_map(|entry| {
                let binding = entry.resource.as_ref()?;
                let template = entry.downstream.resource.clone()?;
                Some((binding.kind.clone(), (binding.argument.clone(), template)))
            })
            .collect();
        HttpResources { templates, downstream }
    }
}

#[async_trait]
impl Resources for HttpResources {
    async fn load(&self, reference: &ResourceRef, ctx: &ToolContext<'_>) -> Result<Option<Resource>, ToolFailure> {
        let Some((argument, template)) = self.templates.get(&reference.kind) else {
            return Ok(None);
        };
        let mut arguments = Map::new();
        arguments.insert(argument.clone(), Value::String(reference.id.clone()));
        let request = build_request(template, &Value::Object(arguments), ctx);
        let response =
            self.downstream.send(request, ctx.remaining()).await.map_err(|_| ToolFailure::from(Failure::Lost))?;
        match response.status {
            404 => Ok(None),
            200..=299 => {
                let unreadable = || ToolFailure::from(Failure::Unreadable);
                let attributes: Value = serde_json::from_slice(&response.body).map_err(|_| unreadable())?;
                let field = |name: &str| attributes.get(name).and_then(Value::as_str).map(str::to_owned);
                let (Some(tenant_id), Some(owner_id)) = (field("tenant_id"), field("owner_id")) else {
                    return Err(unreadable());
                };
                Ok(Some(Resource { tenant_id, owner_id, attributes }))
            }
            _ => Err(ToolFailure { status: Some(response.status), ..Failure::Unavailable.into() }),
        }
    }
}
