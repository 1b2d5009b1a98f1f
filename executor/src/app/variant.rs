//! How an executor of the conformance app is assembled: stages plus wrappers around its ports.
//!
//! Rule enforced here: there is one assembly, [`Variant::assemble`], used by every place that builds the app's
//! executor (the `--stdio` binary, the harness's in-process subject), so a wrapper is applied to the port it
//! names and nowhere else. The reference executor is [`Variant::REFERENCE`]; the known-bad ones differ from it
//! only in their `Variant`.

use super::{Downstream, HttpDownstream, HttpSetupError, conformance_app};
use crate::clock::Clock;
use crate::executor::{Config, ConfigError, Executor, Stages};
use crate::registry::RegistryError;
use crate::store::Store;
use std::sync::Arc;

/// How to assemble an executor: stages plus wrappers around its ports.
#[derive(Clone, Copy)]
pub struct Variant {
    /// The stages.
    pub stages: Stages,
    /// Wraps the idempotency store.
    pub store: fn(Arc<dyn Store>) -> Arc<dyn Store>,
    /// Wraps the conformance app's downstream.
    pub downstream: fn(Arc<dyn Downstream>) -> Arc<dyn Downstream>,
    /// Wraps the clock.
    pub clock: fn(Arc<dyn Clock>) -> Arc<dyn Clock>,
    /// The redirect policy of the HTTP client ([`Variant::http_downstream`]); the reference follows none.
    pub redirects: fn() -> reqwest::redirect::Policy,
    /// Which protocol versions a `hello` may name ([`crate::protocol::speaks`] for the reference).
    pub speaks: fn(&str) -> Result<(), String>,
}

/// Why an executor could not be assembled.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum AssembleError {
    /// A catalog tool could not be registered.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The configuration is out of range.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl Variant {
    /// The reference executor.
    pub const REFERENCE: Variant = Variant {
        stages: Stages::REFERENCE,
        store: same,
        downstream: same,
        clock: same,
        redirects: reqwest::redirect::Policy::none,
        speaks: crate::protocol::speaks,
    };

    /// The HTTP downstream at `base_url` with this variant's HTTP client.
    ///
    /// # Errors
    /// [`HttpSetupError`] when `base_url` cannot address a downstream or the HTTP client cannot be built.
    pub fn http_downstream(&self, base_url: &str) -> Result<HttpDownstream, HttpSetupError> {
        HttpDownstream::with_redirects(base_url, (self.redirects)())
    }

    /// The conformance app's executor of this variant, over these ports (each wrapped as the variant says).
    ///
    /// # Errors
    /// [`AssembleError`] when a catalog schema does not compile or `config` is out of range.
    pub fn assemble(
        &self,
        downstream: Arc<dyn Downstream>,
        clock: Arc<dyn Clock>,
        store: Arc<dyn Store>,
        config: Config,
    ) -> Result<Executor, AssembleError> {
        let (tools, resources) = conformance_app((self.downstream)(downstream))?;
        Ok(Executor::builder(tools)
            .stages(self.stages)
            .config(config)
            .clock((self.clock)(clock))
            .store((self.store)(store))
            .resources(resources)
            .build()?)
    }
}

fn same<T: ?Sized>(port: Arc<T>) -> Arc<T> {
    port
}
