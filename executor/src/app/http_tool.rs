//! One tool of the conformance app, performed as HTTP calls described by its catalog entry.
//!
//! Rule enforced here: every request carries the idempotency key (`Idempotency-Key`) and the time left
//! (`X-Deadline-Ms`); the downstream's answer is read by the contract (2xx applied, 409/422 refused, 429 slow
//! down, 5xx not applied, 3xx or no answer unknown) and its own words stay in private diagnostics. A
//! downstream refusal reason reaches the envelope only if the catalog lists it.

use super::catalog::{BusinessRule, CatalogEntry};
use super::downstream::{Downstream, HttpRequest, HttpResponse, SendError};
use crate::resource::{Resource, ResourceRef};
use crate::tool::{Failure, Output, Rejection, Status, StatusQuery, Tool, ToolContext, ToolFailure, ToolSpec};
use async_trait::async_trait;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Longest `Retry-After` honoured.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(3600);
/// Longest diagnostic kept from a downstream body.
const MAX_DIAGNOSTIC_BYTES: usize = 4096;

/// A catalog tool performed over HTTP.
pub struct HttpTool {
    entry: std::borrow::Cow<'static, CatalogEntry>,
    downstream: Arc<dyn Downstream>,
}

impl HttpTool {
    /// The tool of `entry`, talking to `downstream`.
    pub fn new(entry: CatalogEntry, downstream: Arc<dyn Downstream>) -> HttpTool {
        HttpTool { entry: std::borrow::Cow::Owned(entry), downstream }
    }

    /// The tool of an entry of the process's catalog, borrowed rather than copied.
    pub(crate) fn of_catalog(entry: &'static CatalogEntry, downstream: Arc<dyn Downstream>) -> HttpTool {
        HttpTool { entry: std::borrow::Cow::Borrowed(entry), downstream }
    }

    async fn exchange(
        &self,
        template: &str,
        arguments: &Value,
        ctx: &ToolContext<'_>,
    ) -> Result<HttpResponse, ToolFailure> {
        let request = build_request(template, arguments, ctx);
        ctx.mark_sent();
        self.downstream.send(request, ctx.remaining()).await.map_err(|error| {
            ToolFailure::from(match error {
                SendError::NotSent => Failure::NotSent,
                SendError::Lost => Failure::Lost,
            })
        })
    }

    /// Keeps the members the output schema declares: the downstream's record may hold internal fields.
    fn project(&self, value: Value) -> Value {
        let declared = self.entry.spec.output_schema.get("properties").and_then(Value::as_object);
        match (value, declared) {
            (Value::Object(members), Some(declared)) => {
                Value::Object(members.into_iter().filter(|(name, _)| declared.contains_key(name)).collect())
            }
            (other, _) => other,
        }
    }

    fn rejection(&self, body: &[u8], default_reason: &str) -> Rejection {
        let error = serde_json::from_slice::<Value>(body).ok().and_then(|body| body.get("error").cloned());
        let reason = error
            .as_ref()
            .and_then(|error| error.get("reason"))
            .and_then(Value::as_str)
            .filter(|reason| self.entry.rejection_reasons.iter().any(|known| known == reason))
            .unwrap_or(default_reason);
        let declared = self.entry.spec.input_schema.get("properties").and_then(Value::as_object);
        let field = error
            .as_ref()
            .and_then(|error| error.get("field"))
            .and_then(Value::as_str)
            .filter(|field| declared.is_some_and(|declared| declared.contains_key(*field)));
        Rejection { reason: reason.to_owned(), field: field.map(str::to_owned) }
    }

    /// Reads an invoke answer by the contract.
    fn interpret(&self, response: HttpResponse) -> Result<Output, ToolFailure> {
        let downstream_request_id = response.header("x-request-id").map(|id| id.chars().take(128).collect());
        let failure = |failure: Failure| ToolFailure {
            failure,
            status: Some(response.status),
            diagnostic: Some(diagnostic(&response.body)),
            downstream_request_id: downstream_request_id.clone(),
        };
        match response.status {
            200..=299 => match serde_json::from_slice::<Value>(&response.body) {
                Ok(value) => {
                    Ok(Output { value: self.project(value), downstream_request_id: downstream_request_id.clone() })
                }
                Err(_) => Err(failure(Failure::Unreadable)),
            },
            429 => Err(failure(Failure::RateLimited { retry_after: retry_after(&response) })),
            404 => Err(failure(Failure::Rejected(self.rejection(&response.body, "not_found")))),
            409 | 422 => Err(failure(Failure::Rejected(self.rejection(&response.body, "downstream_rejected")))),
            500..=599 => Err(failure(Failure::Unavailable)),
            // A redirect is not in the contract: the request arrived and nothing says whether it was applied.
            300..=399 => Err(failure(Failure::UnexpectedAnswer)),
            _ => Err(failure(Failure::Rejected(Rejection { reason: "downstream_refused".to_owned(), field: None }))),
        }
    }
}

#[async_trait]
impl Tool for HttpTool {
    fn spec(&self) -> &ToolSpec {
        &self.entry.spec
    }

    fn resource(&self, arguments: &Value) -> Option<ResourceRef> {
        let binding = self.entry.resource.as_ref()?;
        let id = arguments.get(&binding.argument)?.as_str()?;
        Some(ResourceRef::new(&binding.kind, id))
    }

    fn check_business_rules(&self, arguments: &Value, resource: Option<&Resource>) -> Result<(), Rejection> {
        for rule in &self.entry.business_rules {
            match rule {
                BusinessRule::AtMost { argument, attribute, reason } => {
                    let wanted = arguments.get(argument).and_then(Value::as_f64);
                    let limit =
                        resource.and_then(|resource| resource.attributes.get(attribute)).and_then(Value::as_f64);
                    if let (Some(wanted), Some(limit)) = (wanted, limit)
                        && wanted > limit
                    {
                        return Err(Rejection::field(reason, argument));
                    }
                }
            }
        }
        Ok(())
    }

    async fn invoke(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Output, ToolFailure> {
        let response = self.exchange(&self.entry.downstream.invoke, arguments, ctx).await?;
        self.interpret(response)
    }

    fn status_query(&self) -> Option<&dyn StatusQuery> {
        self.entry.downstream.status.as_ref().map(|_| self as &dyn StatusQuery)
    }

    fn task_role(&self) -> Option<crate::task::TaskRole> {
        self.entry.task
    }
}

#[async_trait]
impl StatusQuery for HttpTool {
    async fn status(&self, ctx: &ToolContext<'_>, arguments: &Value) -> Result<Status, ToolFailure> {
        // Only reachable through `status_query`, which offers it only when the catalog has a template.
        let Some(template) = &self.entry.downstream.status else {
            return Err(Failure::NotSent.into());
        };
        let response = self.exchange(template, arguments, ctx).await?;
        let unreadable = || ToolFailure {
            failure: Failure::Unreadable,
            status: Some(response.status),
            diagnostic: Some(diagnostic(&response.body)),
            downstream_request_id: None,
        };
        match response.status {
            404 => Ok(Status::NotFound),
            200 => {
                let body: Value = serde_json::from_slice(&response.body).map_err(|_| unreadable())?;
                match body.get("status").and_then(Value::as_str) {
                    Some("completed") => {
                        Ok(Status::Completed(self.project(body.get("result").cloned().unwrap_or(Value::Null))))
                    }
                    Some("pending") => Ok(Status::Pending),
                    Some("not_found") => Ok(Status::NotFound),
                    Some("rejected") => Ok(Status::Rejected(self.rejection(&response.body, "downstream_rejected"))),
                    _ => Err(unreadable()),
                }
            }
            _ => Err(ToolFailure { failure: Failure::Unavailable, ..unreadable() }),
        }
    }
}

/// Expands `"METHOD /path/{argument}?q={argument}"`; `{idempotency_key}` is the idempotency key (a name no
/// argument of the catalog uses). POST and PUT send the
/// arguments as the JSON body.
pub(crate) fn build_request(template: &str, arguments: &Value, ctx: &ToolContext<'_>) -> HttpRequest {
    let (method, path) = template.split_once(' ').unwrap_or(("GET", template));
    let mut path_and_query = String::with_capacity(path.len() + 32);
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        path_and_query.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else { break };
        let name = &rest[open + 1..open + close];
        let value = match name {
            "idempotency_key" => ctx.idempotency_key.map(str::to_owned).unwrap_or_default(),
            _ => match arguments.get(name) {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            },
        };
        percent_encode(&value, &mut path_and_query);
        rest = &rest[open + close + 1..];
    }
    path_and_query.push_str(rest);
    let mut headers = vec![
        ("x-deadline-ms".to_owned(), ctx.remaining().as_millis().to_string()),
        ("x-tenant-id".to_owned(), ctx.auth.tenant_id.clone()),
        ("x-subject-id".to_owned(), ctx.auth.subject_id.clone()),
        ("x-request-id".to_owned(), ctx.request_id.to_owned()),
    ];
    if let Some(key) = ctx.idempotency_key {
        headers.push(("idempotency-key".to_owned(), key.to_owned()));
    }
    let body = matches!(method, "POST" | "PUT").then(|| arguments.to_string().into_bytes());
    HttpRequest { method: method.to_owned(), path_and_query, headers, body }
}

fn percent_encode(text: &str, out: &mut String) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

fn retry_after(response: &HttpResponse) -> Option<Duration> {
    let seconds: u64 = response.header("retry-after")?.trim().parse().ok()?;
    Some(Duration::from_secs(seconds).min(MAX_RETRY_AFTER))
}

fn diagnostic(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(MAX_DIAGNOSTIC_BYTES)]).into_owned()
}
