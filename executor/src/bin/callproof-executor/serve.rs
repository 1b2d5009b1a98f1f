//! The serving loop: hello → capabilities, then execute requests, many in flight, answered as they finish.
//!
//! Rule enforced here: one task per request, one writer for stdout, so answers are whole lines in whatever
//! order the calls finish; a message the executor cannot accept (not a message, `attempt` 0, a request id that
//! is still in flight) is answered with an `error` message naming the request when it can. At most
//! `--max-in-flight` calls run at once: past that, the next line is not read until one finishes (back-pressure,
//! so memory and downstream connections stay bounded). A line that cannot be read at all (not UTF-8, over the
//! limit, cut off by the end of stdin) ends the session with an exit code that is not 0, after every call in
//! flight is answered; so does the plain end of stdin, with exit 0.

use crate::options::Options;
use crate::session::SessionStore;
use callproof_executor::app::catalog;
use callproof_executor::clock::SystemClock;
use callproof_executor::lines::{self, LineError, MAX_LINE_BYTES};
use callproof_executor::protocol::{
    Capabilities, DURABLE_STORE, FromExecutor, PAUSE, STORE_OUTAGE, STORE_PROXY_ENV, ToExecutor, VERSION,
};
use callproof_executor::store::{Locator, OpenOptions, PostgresOptions, Store};
use callproof_executor::{Config, Executor};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufRead, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};

/// Serves one harness session on stdin/stdout.
pub(crate) async fn serve(options: Options) -> Result<(), String> {
    let (store, durable) = open_store(&options).await?;
    let (lines, outbox) = mpsc::unbounded_channel::<FromExecutor>();
    let writer = tokio::spawn(write_lines(outbox));
    let mut stdin = BufReader::new(tokio::io::stdin());

    let hello_line = read_line(&mut stdin).await?.ok_or("stdin closed before hello")?;
    let hello = match ToExecutor::parse(&hello_line) {
        Ok(ToExecutor::Hello(hello)) => hello,
        Ok(ToExecutor::Execute(_)) => {
            return refuse(lines, writer, "the first message has type \"execute\", not \"hello\"".to_owned()).await;
        }
        Err(error) => return refuse(lines, writer, format!("the first line is not a hello message: {error}")).await,
    };
    if let Err(why) = (options.variant.speaks)(&hello.protocol) {
        return refuse(lines, writer, why).await;
    }
    let executor = match build(&options, &hello.downstream_url, &hello.session, store, durable) {
        Ok(executor) => Arc::new(executor),
        Err(why) => return refuse(lines, writer, why).await,
    };
    send(&lines, FromExecutor::Capabilities(capabilities(&options, durable)));
    eprintln!(
        "callproof-executor: serving {VERSION} session {} against {} (store {})",
        hello.session, hello.downstream_url, options.store
    );

    let unreadable = serve_calls(&mut stdin, &executor, &lines, options.max_in_flight).await;
    drop(lines);
    writer.await.map_err(|error| format!("the stdout writer failed: {error}"))??;
    match unreadable {
        Some(message) => Err(format!("session ended: {message}")),
        None => Ok(()),
    }
}

/// Reads execute messages until the end of stdin, runs at most `max_in_flight` at once and answers each, then
/// waits for every call in flight. Returns why stdin could not be read, when that is how it ended.
async fn serve_calls(
    stdin: &mut (impl AsyncBufRead + Unpin),
    executor: &Arc<Executor>,
    lines: &mpsc::UnboundedSender<FromExecutor>,
    max_in_flight: usize,
) -> Option<String> {
    let mut calls = tokio::task::JoinSet::new();
    let slots = Arc::new(Semaphore::new(max_in_flight));
    let in_flight: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let mut unreadable = None;
    loop {
        // Back-pressure: a line is read only when a call may start.
        let Ok(slot) = slots.clone().acquire_owned().await else { break };
        let line = match read_line(stdin).await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(message) => {
                send(lines, FromExecutor::Error { id: None, message: message.clone() });
                unreadable = Some(message);
                break;
            }
        };
        while calls.try_join_next().is_some() {}
        match ToExecutor::parse(&line) {
            Ok(ToExecutor::Execute(execute)) => {
                if !lock(&in_flight).insert(execute.id.clone()) {
                    let message = format!("request id {:?} is already in flight; ids must be unique", execute.id);
                    send(lines, FromExecutor::Error { id: Some(execute.id), message });
                    continue;
                }
                let (executor, lines, in_flight) = (executor.clone(), lines.clone(), in_flight.clone());
                calls.spawn(async move {
                    let (id, request) = execute.into_request();
                    let envelope = executor.execute(request).await.to_json();
                    // Free the id before answering: the harness may reuse it as soon as it reads the answer.
                    lock(&in_flight).remove(&id);
                    send(&lines, FromExecutor::Result { id, envelope });
                    drop(slot);
                });
            }
            Ok(ToExecutor::Hello(_)) => {
                let message = "unexpected message type \"hello\" after the session started".to_owned();
                send(lines, FromExecutor::Error { id: None, message });
            }
            Err(error) => {
                send(lines, FromExecutor::Error { id: error.id().map(str::to_owned), message: error.to_string() });
            }
        }
    }
    while calls.join_next().await.is_some() {}
    unreadable
}

/// The set of ids in flight; a panic elsewhere cannot leave it unusable, since each change is one call.
fn lock(ids: &Mutex<BTreeSet<String>>) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
    ids.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What this executor declares in answer to hello.
fn capabilities(options: &Options, durable: bool) -> Capabilities {
    let name = match options.mutant {
        Some(mutant) => format!("callproof-executor (mutant {mutant})"),
        None => "callproof-executor".to_owned(),
    };
    Capabilities {
        protocol: VERSION.to_owned(),
        name,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        tools: catalog().into_iter().map(|entry| entry.spec.name).collect(),
        features: features(options, durable),
    }
}

/// The features this executor has with `options`: it is always the process the harness started (`pause`), and
/// its store's ([`store_features`]).
fn features(options: &Options, durable: bool) -> Vec<String> {
    let mut features = vec![PAUSE.to_owned()];
    features.extend(store_features(options, durable));
    features
}

/// The features of the store of `options`, over `callproof/1` and MCP alike: a durable store is declared; a
/// PostgreSQL store honours the harness's store proxy (`store_outage`).
pub(crate) fn store_features(options: &Options, durable: bool) -> Vec<String> {
    let mut features = Vec::new();
    if durable {
        features.push(DURABLE_STORE.to_owned());
    }
    if matches!(options.store, Locator::Postgres(_)) {
        features.push(STORE_OUTAGE.to_owned());
    }
    features
}

/// The executor of `options` against the downstream at `downstream_url`, its records kept under `session` when
/// the store is `shared` with other sessions (a durable store outlives the process and may hold other runs'
/// records; a memory store is shared when one server serves several sessions).
pub(crate) fn build(
    options: &Options,
    downstream_url: &str,
    session: &str,
    store: Arc<dyn Store>,
    shared: bool,
) -> Result<Executor, String> {
    let downstream = options.variant.http_downstream(downstream_url).map_err(|error| error.to_string())?;
    let store: Arc<dyn Store> = if shared { Arc::new(SessionStore::new(session, store)) } else { store };
    options
        .variant
        .assemble(Arc::new(downstream), Arc::new(SystemClock), store, Config::default())
        .map_err(|error| error.to_string())
}

/// The store and whether it survives the process.
pub(crate) async fn open_store(options: &Options) -> Result<(Arc<dyn Store>, bool), String> {
    let open = OpenOptions {
        postgres: PostgresOptions { connections: 2, ..PostgresOptions::default() },
        ..OpenOptions::default()
    };
    // A harness that can cut the store off names a proxy to reach it through (docs/protocol.md).
    let through = match std::env::var(STORE_PROXY_ENV) {
        Ok(address) if matches!(options.store, Locator::Postgres(_)) => {
            options.store.through(&address).map_err(|why| format!("{STORE_PROXY_ENV}: {why}"))?
        }
        _ => options.store.clone(),
    };
    let store =
        through.open(&options.namespace, &open).await.map_err(|error| format!("store {}: {error}", options.store))?;
    Ok((store, options.store.is_durable()))
}

/// Answers an `error` message, lets the writer flush it, and ends the session with `why`.
async fn refuse(
    lines: mpsc::UnboundedSender<FromExecutor>,
    writer: tokio::task::JoinHandle<Result<(), String>>,
    why: String,
) -> Result<(), String> {
    send(&lines, FromExecutor::Error { id: None, message: why.clone() });
    drop(lines);
    let _ = writer.await;
    Err(why)
}

/// Queues `message` for stdout. The writer stops only when stdout is gone, and then there is no one to tell.
fn send(lines: &mpsc::UnboundedSender<FromExecutor>, message: FromExecutor) {
    let _ = lines.send(message);
}

/// The one writer of stdout: whole lines, in the order they were sent.
async fn write_lines(mut outbox: mpsc::UnboundedReceiver<FromExecutor>) -> Result<(), String> {
    let mut stdout = tokio::io::stdout();
    while let Some(message) = outbox.recv().await {
        let line = message.to_line();
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
