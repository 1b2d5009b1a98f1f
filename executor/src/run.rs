//! One execution in flight: what the stages carry from one to the next.
//!
//! Rule enforced here: every envelope of a call is built from the call's one [`Meta`], and everything the
//! stages learn for operators goes into the call's one [`AuditRecord`], finished exactly once.

use crate::audit::{AuditNote, AuditOutcome, AuditRecord, Decision, redact};
use crate::clock::Clock;
use crate::deadline::Deadline;
use crate::decode::Decoded;
use crate::envelope::{Envelope, Meta};
use crate::error::ErrorBody;
use crate::executor::Config;
use crate::request::Request;
use crate::tool::ToolContext;
use serde_json::Value;
use std::sync::atomic::AtomicBool;

/// Everything one execution carries between stages.
pub(crate) struct Run<'r> {
    /// The call as it arrived.
    pub(crate) request: &'r Request,
    /// The executor's id for it, sent downstream as `X-Request-Id`.
    pub(crate) request_id: String,
    /// Its one absolute deadline.
    pub(crate) deadline: Deadline,
    /// The meta of every envelope it answers with.
    pub(crate) meta: Meta,
    /// Its audit record, finished by [`Run::finish`].
    pub(crate) trail: AuditRecord,
}

impl<'r> Run<'r> {
    /// A run of `request` starting now, with its deadline from the request's budget.
    pub(crate) fn start(request: &'r Request, request_id: String, clock: &dyn Clock) -> Run<'r> {
        let (deadline, started_ms) = Deadline::started(request.budget, clock);
        let meta = Meta {
            request_id: request_id.clone(),
            call_id: request.call.call_id.clone(),
            attempt: request.attempt,
            idempotency_key: None,
            replayed: false,
            reconciled: false,
        };
        let trail = AuditRecord {
            request_id: request_id.clone(),
            trace_id: request.trace_id.clone(),
            call_id: request.call.call_id.clone(),
            tool: request.call.name.chars().take(64).collect(),
            tool_version: None,
            schema_version: None,
            tenant_id: request.auth.tenant_id.clone(),
            subject_id: request.auth.subject_id.clone(),
            idempotency_key: None,
            authorization: Decision::NotEvaluated,
            approval_id: request.auth.approval_id().map(str::to_owned),
            attempt: request.attempt,
            started_ms,
            deadline_ms: deadline.wall_ms(),
            finished_ms: 0,
            outcome: AuditOutcome::Error,
            error_code: None,
            downstream_request_id: None,
            arguments_hash: None,
            arguments: None,
            notes: Vec::new(),
        };
        Run { request, request_id, deadline, meta, trail }
    }

    /// A failure envelope of this call.
    pub(crate) fn fail(&self, error: ErrorBody) -> Envelope {
        Envelope::failure(error, self.meta.clone())
    }

    /// A success or failure envelope of this call.
    pub(crate) fn envelope(&self, result: Result<Value, ErrorBody>) -> Envelope {
        match result {
            Ok(value) => Envelope::success(value, self.meta.clone()),
            Err(error) => self.fail(error),
        }
    }

    /// Keeps a note for operators.
    pub(crate) fn note(&mut self, note: AuditNote) {
        self.trail.notes.push(note);
    }

    /// Sets the idempotency key of the business operation, for the envelope and the audit record.
    pub(crate) fn set_key(&mut self, key: &str) {
        self.meta.idempotency_key = Some(key.to_owned());
        self.trail.idempotency_key = Some(key.to_owned());
    }

    /// The context a tool or the resource port gets for one request of this call.
    pub(crate) fn context<'a>(&'a self, key: Option<&'a str>, sent: &'a AtomicBool) -> ToolContext<'a> {
        ToolContext::new(&self.request.auth, key, &self.deadline, &self.request_id, sent)
    }

    /// Records what decoding established about the tool and the arguments.
    pub(crate) fn note_decoded(&mut self, decoded: &Decoded<'_>, config: &Config) {
        let spec = decoded.tool.spec();
        self.trail.tool_version = Some(spec.version.clone());
        self.trail.schema_version = Some(decoded.tool.schema_version.clone());
        self.trail.arguments_hash = Some(decoded.arguments_hash.into());
        if config.audit_arguments {
            self.trail.arguments = Some(audited_arguments(config, decoded));
        }
    }

    /// The finished audit record of the call that answered `envelope`.
    pub(crate) fn finish(self, envelope: &Envelope, clock: &dyn Clock) -> AuditRecord {
        let mut trail = self.trail;
        trail.finished_ms = clock.wall_ms();
        trail.error_code = envelope.code().map(|code| code.as_str().to_owned());
        trail.outcome = match (envelope.meta.replayed, envelope.ok) {
            (true, _) => AuditOutcome::Replayed,
            (false, true) => AuditOutcome::Ok,
            (false, false) => AuditOutcome::Error,
        };
        trail
    }
}

/// Audit arguments with sensitive and configured fields redacted (used when `audit_arguments` is on).
fn audited_arguments(config: &Config, decoded: &Decoded<'_>) -> Value {
    let mut value = decoded.arguments.clone();
    let mut paths = decoded.tool.input.sensitive_paths();
    paths.extend(config.audit_redact.iter().cloned());
    redact(&mut value, &paths);
    value
}
