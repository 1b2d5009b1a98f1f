//! The tool registry: every tool with its schemas compiled once, looked up by exact name.
//!
//! Rule enforced here: schemas are compiled at registration, never per call; names match byte for byte
//! (no trimming, no case folding, no fuzzy match); a name is registered once.

use crate::canonical::{canonical_json, sha256_hex};
use crate::decode::CompiledSchema;
use crate::tool::{Tool, ToolSpec};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A registered tool and its compiled schemas.
pub struct Registered {
    /// The tool itself.
    pub implementation: Arc<dyn Tool>,
    /// Its compiled input schema.
    pub input: CompiledSchema,
    /// Its compiled output schema.
    pub output: CompiledSchema,
    /// The first 12 hex digits of SHA-256 over the canonical input schema: changes whenever the contract does.
    pub schema_version: String,
}

impl Registered {
    /// The tool's declaration.
    pub fn spec(&self) -> &ToolSpec {
        self.implementation.spec()
    }
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered").field("name", &self.spec().name).finish_non_exhaustive()
    }
}

/// Why a tool could not be registered.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// Two tools share a name.
    #[error("tool `{0}` is registered twice")]
    DuplicateName(String),
    /// The input schema does not compile.
    #[error("tool `{tool}`: input schema is invalid: {message}")]
    InvalidInputSchema {
        /// The tool.
        tool: String,
        /// The validator's complaint.
        message: String,
    },
    /// The output schema does not compile.
    #[error("tool `{tool}`: output schema is invalid: {message}")]
    InvalidOutputSchema {
        /// The tool.
        tool: String,
        /// The validator's complaint.
        message: String,
    },
}

/// What registering a declaration computes: its schemas compiled and its contract version.
#[derive(Debug, Clone)]
pub struct Compiled {
    input: CompiledSchema,
    output: CompiledSchema,
    schema_version: String,
}

impl Compiled {
    /// Compiles `spec`'s schemas and derives its `schema_version`.
    ///
    /// # Errors
    /// A schema that does not compile.
    pub fn of(spec: &ToolSpec) -> Result<Compiled, RegistryError> {
        let name = &spec.name;
        let input = CompiledSchema::compile(&spec.input_schema)
            .map_err(|message| RegistryError::InvalidInputSchema { tool: name.clone(), message })?;
        let output = CompiledSchema::compile(&spec.output_schema)
            .map_err(|message| RegistryError::InvalidOutputSchema { tool: name.clone(), message })?;
        let mut schema_version = sha256_hex(canonical_json(&spec.input_schema).as_bytes());
        schema_version.truncate(12);
        Ok(Compiled { input, output, schema_version })
    }
}

/// Tools by exact name.
#[derive(Debug, Default)]
pub struct Tools {
    by_name: BTreeMap<String, Arc<Registered>>,
}

impl Tools {
    /// An empty registry.
    pub fn new() -> Tools {
        Tools::default()
    }

    /// Compiles the tool's schemas and registers it.
    ///
    /// # Errors
    /// A duplicate name or a schema that does not compile.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        let compiled = Compiled::of(tool.spec())?;
        self.register_compiled(tool, compiled)
    }

    /// Registers `tool` with `compiled`, which [`Compiled::of`] made from this tool's own declaration (the
    /// conformance app compiles its catalog once per process and assembles executors from it).
    ///
    /// # Errors
    /// A duplicate name.
    pub(crate) fn register_compiled(&mut self, tool: Arc<dyn Tool>, compiled: Compiled) -> Result<(), RegistryError> {
        let name = tool.spec().name.clone();
        if self.by_name.contains_key(&name) {
            return Err(RegistryError::DuplicateName(name));
        }
        let Compiled { input, output, schema_version } = compiled;
        self.by_name.insert(name, Arc::new(Registered { implementation: tool, input, output, schema_version }));
        Ok(())
    }

    /// The tool with exactly this name.
    pub fn get(&self, name: &str) -> Option<&Arc<Registered>> {
        self.by_name.get(name)
    }

    /// All tools, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Registered>> {
        self.by_name.values()
    }
}
