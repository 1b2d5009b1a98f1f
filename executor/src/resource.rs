//! The `Resources` port: how authorization learns who owns the thing a call acts on.
//!
//! Rule enforced here: ownership facts come from the system of record through this port, never from the
//! call's arguments; a resource that does not exist and one owned by someone else look the same to callers.

use crate::tool::{ToolContext, ToolFailure};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::RwLock;

/// A typed reference to a resource, e.g. `order` / `ord_123`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ResourceRef {
    /// The resource type, e.g. `order`.
    pub kind: String,
    /// The resource id.
    pub id: String,
}

impl ResourceRef {
    /// A reference.
    pub fn new(kind: &str, id: &str) -> ResourceRef {
        ResourceRef { kind: kind.to_owned(), id: id.to_owned() }
    }
}

/// Ownership facts of a resource, plus attributes business rules may read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    /// The owning tenant.
    pub tenant_id: String,
    /// The owning subject.
    pub owner_id: String,
    /// Other facts, e.g. `refundable_amount`.
    #[serde(default)]
    pub attributes: Value,
}

/// Loads resources for authorization.
#[async_trait]
pub trait Resources: Send + Sync {
    /// Loads one resource; `Ok(None)` when it does not exist. `ctx` carries the caller, the deadline and the
    /// request id (no idempotency key: a lookup has no side effect).
    ///
    /// # Errors
    /// A [`ToolFailure`] when the system of record could not answer.
    async fn load(&self, reference: &ResourceRef, ctx: &ToolContext<'_>) -> Result<Option<Resource>, ToolFailure>;
}

/// An in-memory system of record, for tests and embedded use.
#[derive(Debug, Default)]
pub struct MemoryResources {
    items: RwLock<BTreeMap<ResourceRef, Resource>>,
}

impl MemoryResources {
    /// An empty set.
    pub fn new() -> MemoryResources {
        MemoryResources::default()
    }

    /// Adds or replaces a resource.
    pub fn insert(&self, reference: ResourceRef, resource: Resource) {
        self.items.write().unwrap_or_else(std::sync::PoisonError::into_inner).insert(reference, resource);
    }
}

#[async_trait]
impl Resources for MemoryResources {
    async fn load(&self, reference: &ResourceRef, _ctx: &ToolContext<'_>) -> Result<Option<Resource>, ToolFailure> {
        Ok(self.items.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(reference).cloned())
    }
}
