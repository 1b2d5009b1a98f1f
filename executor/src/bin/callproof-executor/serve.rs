//! The serving loop: hello → capabilities, then execute requests, many in flight, answered as they finish.
//!
//! Rule enforced here: one task per request, one writer for stdout, so answers are whole lines in whatever
//! order the calls finish; a line the executor cannot read is answered with an `error` message naming the
//! request when it can; at the end of stdin every call in flight is answered before the process exits.

use crate::options::{Options, StoreChoice};
use crate::session::SessionStore;
use callproof_executor::app::{HttpDownstream, catalog, conformance_app};
use callproof_executor::clock::SystemClock;
use callproof_executor::lines::{self, LineError, MAX_LINE_BYTES};
use callproof_executor::mutants::Variant;
use callproof_executor::store::{
    MemoryStore, PostgresOptions, PostgresStore, RedisOptions, RedisStore, SqliteOptions, SqliteStore, Store,
};
use callproof_executor::{AuthContext, Executor, Request, ToolCall};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The protocol version served.
const PROTOCOL: &str = "callproof/1";

#[derive(Deserialize)]
struct Hello {
    #[serde(rename = "type")]
    kind: String,
    protocol: String,
    session: String,
    downstream_url: String,
}

#[derive(Deserialize)]
struct Execute {
    id: String,
    call: ToolCall,
    auth: AuthContext,
    #[serde(default)]
    business_request_id: Option<String>,
    attempt: u32,
    budget_ms: u64,
}

/// Serves one harness session on stdin/stdout.
pub(crate) async fn serve(options: Options) -> Result<(), String> {
    let (store, durable) = open_store(&options).await?;
    let (lines, outbox) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(write_lines(outbox));
    let mut stdin = BufReader::new(tokio::io::stdin());

    let hello_line = read_line(&mut stdin).await?.ok_or("stdin closed before hello")?;
    let hello: Hello = match serde_json::from_str(&hello_line) {
        Ok(hello) => hello,
        Err(error) => return refuse(lines, writer, format!("the first line is not a hello message: {error}")).await,
    };
    if hello.kind != "hello" {
        return refuse(lines, writer, format!("the first message has type {:?}, not \"hello\"", hello.kind)).await;
    }
    if hello.protocol != PROTOCOL {
        let why = format!("protocol {:?} is not supported; this executor speaks {PROTOCOL:?}", hello.protocol);
        return refuse(lines, writer, why).await;
    }
    let executor = match build(&options, &hello, store, durable) {
        Ok(executor) => Arc::new(executor),
        Err(why) => return refuse(lines, writer, why).await,
    };
    let name = match options.mutant {
        Some(mutant) => format!("callproof-executor (mutant {})", mutant.name),
        None => "callproof-executor".to_owned(),
    };
    let features: Vec<&str> = if durable { vec!["durable_store"] } else { Vec::new() };
    let tools: Vec<String> = catalog().into_iter().map(|entry| entry.spec.name).collect();
    send(
        &lines,
        json!({"type": "capabilities", "protocol": PROTOCOL, "name": name,
        "version": env!("CARGO_PKG_VERSION"), "tools": tools, "features": features}),
    );
    eprintln!(
        "callproof-executor: serving {PROTOCOL} session {} against {} (store {})",
        hello.session,
        hello.downstream_url,
        options.store.shown()
    );

    let mut calls = tokio::task::JoinSet::new();
    loop {
        let line = match read_line(&mut stdin).await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(why) => {
                send(&lines, json!({"type": "error", "message": why}));
                break;
            }
        };
        while calls.try_join_next().is_some() {}
        match parse_execute(&line) {
            Ok(execute) => {
                let executor = executor.clone();
                let lines = lines.clone();
                calls.spawn(async move {
                    let request = Request {
                        call: execute.call,
                        auth: execute.auth,
                        business_request_id: execute.business_request_id,
                        attempt: execute.attempt,
                        budget: Duration::from_millis(execute.budget_ms),
                        request_id: None,
                        trace_id: None,
                    };
                    let envelope = executor.execute(request).await.to_json();
                    send(&lines, json!({"type": "result", "id": execute.id, "envelope": envelope}));
                });
            }
            Err((id, why)) => send(&lines, json!({"type": "error", "id": id, "message": why})),
        }
    }
    while calls.join_next().await.is_some() {}
    drop(lines);
    writer.await.map_err(|error| format!("the stdout writer failed: {error}"))?
}

fn build(options: &Options, hello: &Hello, store: Arc<dyn Store>, durable: bool) -> Result<Executor, String> {
    let variant = options.mutant.map_or(Variant::REFERENCE, |mutant| mutant.variant);
    let downstream = HttpDownstream::new(&hello.downstream_url)
        .map_err(|error| format!("cannot build an HTTP client for {}: {error}", hello.downstream_url))?;
    let downstream = (variant.downstream)(Arc::new(downstream));
    let (tools, resources) = conformance_app(downstream).map_err(|error| error.to_string())?;
    let store: Arc<dyn Store> = if durable { Arc::new(SessionStore::new(&hello.session, store)) } else { store };
    Executor::builder(tools)
        .stages(variant.stages)
        .clock((variant.clock)(Arc::new(SystemClock)))
        .store((variant.store)(store))
        .resources(resources)
        .build()
        .map_err(|error| error.to_string())
}

/// The store and whether it survives the process.
async fn open_store(options: &Options) -> Result<(Arc<dyn Store>, bool), String> {
    let failed = |error: callproof_executor::store::OpenError| format!("store {}: {error}", options.store.shown());
    Ok(match &options.store {
        StoreChoice::Memory => (Arc::new(MemoryStore::new()), false),
        StoreChoice::Sqlite(path) => {
            (Arc::new(SqliteStore::open(path, SqliteOptions::default()).await.map_err(failed)?), true)
        }
        StoreChoice::Postgres(url) => {
            let options =
                PostgresOptions { schema: options.namespace.clone(), connections: 2, ..PostgresOptions::default() };
            (Arc::new(PostgresStore::connect(url, options).await.map_err(failed)?), true)
        }
        StoreChoice::Redis(url) => {
            let prefix = format!("{}:", options.namespace);
            (
                Arc::new(
                    RedisStore::connect(url, RedisOptions { prefix, ..RedisOptions::default() })
                        .await
                        .map_err(failed)?,
                ),
                true,
            )
        }
    })
}

fn parse_execute(line: &str) -> Result<Execute, (Option<String>, String)> {
    let value: Value =
        serde_json::from_str(line).map_err(|error| (None, format!("a line that is not JSON: {error}")))?;
    let id = value.get("id").and_then(Value::as_str).map(str::to_owned);
    match value.get("type").and_then(Value::as_str) {
        Some("execute") => {}
        Some(other) => return Err((id, format!("unexpected message type {other:?}"))),
        None => return Err((id, "a message without a string `type`".to_owned())),
    }
    serde_json::from_value(value).map_err(|error| (id, format!("an execute message that does not fit: {error}")))
}

/// Answers an `error` message, lets the writer flush it, and ends the session with `why`.
async fn refuse(
    lines: mpsc::UnboundedSender<String>,
    writer: tokio::task::JoinHandle<Result<(), String>>,
    why: String,
) -> Result<(), String> {
    send(&lines, json!({"type": "error", "message": why}));
    drop(lines);
    let _ = writer.await;
    Err(why)
}

fn send(lines: &mpsc::UnboundedSender<String>, message: Value) {
    let _ = lines.send(format!("{message}\n"));
}

async fn write_lines(mut outbox: mpsc::UnboundedReceiver<String>) -> Result<(), String> {
    let mut stdout = tokio::io::stdout();
    while let Some(line) = outbox.recv().await {
        stdout.write_all(line.as_bytes()).await.map_err(|error| format!("cannot write to stdout: {error}"))?;
        stdout.flush().await.map_err(|error| format!("cannot write to stdout: {error}"))?;
    }
    Ok(())
}

/// One line of stdin without its newline; `None` at the end of stdin.
async fn read_line(reader: &mut (impl AsyncBufRead + Unpin)) -> Result<Option<String>, String> {
    lines::read_line(reader).await.map_err(|error| match error {
        LineError::Read(error) => format!("cannot read stdin: {error}"),
        LineError::Cut => "stdin ended in the middle of a line".to_owned(),
        LineError::TooLong => format!("a line longer than {MAX_LINE_BYTES} bytes"),
        LineError::NotUtf8 => "a line that is not UTF-8".to_owned(),
    })
}
