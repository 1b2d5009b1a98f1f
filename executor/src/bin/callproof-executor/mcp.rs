//! `callproof-executor --mcp`: the reference executor as an MCP server over stdio (protocols 2025-11-25 and
//! 2026-07-28); the messages are answered by the library's [`callproof_executor::mcp`], as over HTTP.
//!
//! Rule enforced here: stdout carries whole JSON-RPC lines, one writer, in the order answers are ready; a line
//! that is not UTF-8 is answered -32700 and reading goes on, a line over the limit is answered -32700 and ends
//! the session; every call in flight is answered before the process exits. The trusted context comes from
//! `_meta["io.callproof/context"]`, or is the fixed stdio context when absent (`Trust::Stdio`).

use crate::options::Options;
use crate::serve;
use callproof_executor::Executor;
use callproof_executor::lines::{self, LineError};
use callproof_executor::mcp::{self, Answer, PARSE_ERROR, Trust};
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Where the tools send downstream requests when `CALLPROOF_DOWNSTREAM_URL` is unset: the discard port, so
/// every call that needs the downstream fails as `downstream_unavailable` instead of reaching anything.
pub(crate) const NO_DOWNSTREAM: &str = "http://127.0.0.1:9";

/// The executor of `options` over stdio: the downstream and session from the environment (docs/mcp.md), and
/// the features its store gives it.
async fn executor(options: &Options) -> Result<(Arc<Executor>, Vec<String>, String), String> {
    let (store, durable) = serve::open_store(options).await?;
    let downstream = std::env::var("CALLPROOF_DOWNSTREAM_URL").unwrap_or_else(|_| NO_DOWNSTREAM.to_owned());
    let session = std::env::var("CALLPROOF_SESSION").unwrap_or_else(|_| "mcp".to_owned());
    let executor = Arc::new(serve::build(options, &downstream, &session, store, durable)?);
    Ok((executor, serve::store_features(options, durable), downstream))
}

/// Serves MCP on stdin/stdout until stdin ends; every call in flight is answered before the process exits.
pub(crate) async fn serve(options: Options) -> Result<(), String> {
    let (executor, features, downstream) = executor(&options).await?;
    let versions = mcp::modern::SUPPORTED.join(" and ");
    eprintln!("callproof-executor: serving MCP {versions} on stdio against {downstream}");
    let (lines, outbox) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(outbox));
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut calls = tokio::task::JoinSet::new();
    loop {
        let line = match lines::read_line(&mut stdin).await {
            Ok(Some(line)) => line,
            Ok(None) | Err(LineError::Cut | LineError::Read(_)) => break,
            Err(LineError::NotUtf8) => {
                let _ = lines.send(mcp::refusal(&Value::Null, PARSE_ERROR, "Parse error: not UTF-8"));
                continue;
            }
            Err(LineError::TooLong) => {
                let why = format!("Parse error: a line longer than {} bytes", lines::MAX_LINE_BYTES);
                let _ = lines.send(mcp::refusal(&Value::Null, PARSE_ERROR, &why));
                break;
            }
        };
        while calls.try_join_next().is_some() {}
        match mcp::answer(line.as_bytes(), &features, Trust::Stdio) {
            Answer::Nothing => {}
            Answer::Now(message) | Answer::Initialize(message) => {
                let _ = lines.send(message);
            }
            Answer::Execute(call) => {
                let (executor, lines) = (executor.clone(), lines.clone());
                calls.spawn(async move {
                    let _ = lines.send(call.run(&executor).await);
                });
            }
        }
    }
    while calls.join_next().await.is_some() {}
    drop(lines);
    writer.await.map_err(|error| format!("the stdout writer failed: {error}"))?
}

/// The one writer of stdout: whole lines, in the order they were sent.
async fn write_lines(mut outbox: mpsc::UnboundedReceiver<Value>) -> Result<(), String> {
    let mut stdout = tokio::io::stdout();
    while let Some(message) = outbox.recv().await {
        let line = format!("{message}\n");
        stdout.write_all(line.as_bytes()).await.map_err(|error| format!("cannot write to stdout: {error}"))?;
        stdout.flush().await.map_err(|error| format!("cannot write to stdout: {error}"))?;
    }
    Ok(())
}
