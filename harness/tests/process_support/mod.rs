//! Shared by the tests that run executors as processes: the reference binary, the `callproof` binary, the
//! machine's PostgreSQL (with a loud SKIPPED line when it is unreachable), and temporary folders.
//!
//! PostgreSQL comes from `CALLPROOF_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`); each
//! test gets a fresh schema, dropped afterwards. When the database cannot be reached the test prints a SKIPPED
//! line and passes, unless `CALLPROOF_REQUIRE_SERVICES=1`, as the store tests of the executor crate do.
#![allow(dead_code)]

use callproof_executor::store::url_without_password;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable naming the PostgreSQL database.
pub(crate) const POSTGRES_URL_VAR: &str = "CALLPROOF_POSTGRES_URL";
/// Set to 1 to fail instead of skipping when a service is unreachable.
pub(crate) const REQUIRE_VAR: &str = "CALLPROOF_REQUIRE_SERVICES";

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `callproof` binary of this build.
pub(crate) fn callproof() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_callproof"))
}

/// The reference executor binary, built once per test process (it belongs to another package, so cargo does
/// not build it for this package's tests by itself).
pub(crate) fn executor_binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let status = Command::new(env!("CARGO"))
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "callproof-executor",
                    "--bin",
                    "callproof-executor",
                    "--features",
                    "mutants",
                ])
                .current_dir(repo())
                .status()
                .expect("cargo runs");
            assert!(status.success(), "cargo build of callproof-executor failed");
            let binary = callproof().with_file_name(format!("callproof-executor{}", std::env::consts::EXE_SUFFIX));
            assert!(binary.exists(), "{} was not built", binary.display());
            binary
        })
        .clone()
}

/// `"<reference binary> --stdio <args>"`, quoted for the command splitter.
pub(crate) fn reference_command(args: &str) -> String {
    format!("'{}' --stdio {args}", executor_binary().display())
}

/// What a `callproof` run printed and how it ended.
#[derive(Debug)]
pub(crate) struct Ran {
    /// The exit code.
    pub(crate) code: i32,
    /// stdout.
    pub(crate) stdout: String,
    /// stderr.
    pub(crate) stderr: String,
}

impl Ran {
    /// The JSON line on stderr that explains a non-zero exit.
    pub(crate) fn reason(&self) -> serde_json::Value {
        let line = self.stderr.lines().rev().find(|line| line.starts_with('{')).unwrap_or_else(|| {
            panic!("no JSON reason line on stderr:\n{}", self.stderr);
        });
        serde_json::from_str(line).expect("the reason line is JSON")
    }

    /// What a failed run says about itself: stderr, then (with `--format json`) each scenario that did not
    /// pass with its failed checks' first violation, so a failure under load names the scenario it hit.
    pub(crate) fn explain(&self) -> String {
        let mut out = format!("exit code {}\nstderr:\n{}", self.code, self.stderr);
        let Ok(report) = serde_json::from_str::<serde_json::Value>(&self.stdout) else { return out };
        for scenario in report["scenarios"].as_array().into_iter().flatten() {
            if ["pass", "skip", "expected-fail"].iter().any(|status| scenario["status"] == *status) {
                continue;
            }
            out.push_str(&format!("\n{} ({}): {}", scenario["id"], scenario["status"], scenario["reason"]));
            for check in scenario["checks"].as_array().into_iter().flatten().filter(|c| c["status"] == "fail") {
                out.push_str(&format!("\n  {}: {}", check["id"], check["violations"][0]["message"]));
            }
        }
        out
    }

    /// stdout as JSON (with `--format json`).
    pub(crate) fn report(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is not JSON ({error}):\n{}", self.stdout))
    }
}

/// Runs `callproof` with `args` from the repository root.
pub(crate) fn run_callproof(args: &[&str]) -> Ran {
    run_callproof_in(&repo(), args)
}

/// Runs `callproof` with `args` from `folder`.
pub(crate) fn run_callproof_in(folder: &Path, args: &[&str]) -> Ran {
    let output = Command::new(callproof()).args(args).current_dir(folder).output().expect("callproof runs");
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A name no other test of any process on this machine uses (lowercase, a valid PostgreSQL schema).
pub(crate) fn unique_name(prefix: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    format!("{prefix}_{}_{}_{}", std::process::id(), SERIAL.fetch_add(1, Ordering::Relaxed), nanos % 1_000_000_000)
}

/// A temporary directory, removed on drop.
pub(crate) struct TempDir {
    /// Its path.
    pub(crate) path: PathBuf,
}

impl TempDir {
    /// A new empty directory.
    pub(crate) fn new() -> TempDir {
        let path = std::env::temp_dir().join(unique_name("callproof_test"));
        std::fs::create_dir_all(&path).expect("create a temporary directory");
        TempDir { path }
    }

    /// A path inside it.
    pub(crate) fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether `python3` (the first on PATH; `scripts/test` puts target/python-venv there) has `jsonschema`, as the
/// Python executors need. When it has not, prints a loud SKIPPED line for `test` and answers false, or panics
/// when `CALLPROOF_REQUIRE_SERVICES=1`.
pub(crate) fn python_with_jsonschema(test: &str) -> bool {
    let why = match Command::new("python3")
        .args(["-c", "import jsonschema, sys; assert sys.version_info >= (3, 9)"])
        .output()
    {
        Ok(output) if output.status.success() => return true,
        Ok(output) => {
            format!("python3 with jsonschema is not available ({})", String::from_utf8_lossy(&output.stderr).trim())
        }
        Err(error) => format!("python3 cannot be run ({error})"),
    };
    let fix = "python3 -m pip install -r examples/python/requirements.txt";
    assert!(!services_required(), "{test}: {why} and {REQUIRE_VAR}=1: {fix}");
    // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why} ({fix}; set {REQUIRE_VAR}=1 to fail instead)");
    false
}

/// The PostgreSQL URL in use.
pub(crate) fn postgres_url() -> String {
    std::env::var(POSTGRES_URL_VAR).unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

fn services_required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|value| value == "1")
}

/// A fresh PostgreSQL schema for the executor processes of one test, dropped on drop.
pub(crate) struct Postgres {
    /// The URL.
    pub(crate) url: String,
    /// The schema (the executor's `--namespace`).
    pub(crate) schema: String,
}

impl Postgres {
    /// A fresh schema name on a reachable server, or `None` after a SKIPPED line.
    ///
    /// # Panics
    /// When the server is unreachable and `CALLPROOF_REQUIRE_SERVICES=1`.
    pub(crate) async fn open(test: &str) -> Option<Postgres> {
        let url = postgres_url();
        match tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
            Ok((_client, connection)) => {
                drop(connection);
                Some(Postgres { url, schema: unique_name("cp_conform") })
            }
            Err(error) => {
                let shown = url_without_password(&url);
                assert!(!services_required(), "PostgreSQL not reachable at {shown} ({error}) and {REQUIRE_VAR}=1");
                // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED: {test}: PostgreSQL not reachable at {shown} ({error}) (set {REQUIRE_VAR}=1 to fail instead)"
                );
                None
            }
        }
    }

    /// The executor's store arguments.
    /// `host:port` of the server, for the harness's store proxy (`conform --store-address`).
    pub(crate) fn address(&self) -> String {
        let rest = self.url.split_once("://").map_or(self.url.as_str(), |(_, rest)| rest);
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        if host.contains(':') { host.to_owned() } else { format!("{host}:5432") }
    }

    pub(crate) fn store_args(&self) -> String {
        format!("--store 'postgres:{}' --namespace {}", self.url, self.schema)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let (url, schema) = (self.url.clone(), self.schema.clone());
        // Drop runs inside the test's runtime, which cannot block on async work: clean up on a thread of its own.
        let cleanup = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async {
                if let Ok((client, connection)) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await {
                    tokio::spawn(connection);
                    let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE")).await;
                }
            });
        });
        let _ = cleanup.join();
    }
}

/// A fixture file's path.
pub(crate) fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(path)
}

/// The ids (`group/name`) of the committed scenarios that kill the executor somewhere: an executor whose store
/// does not survive a restart may lose a record in them, which `conform` reports as an expected failure.
pub(crate) fn crash_scenarios() -> Vec<String> {
    fn walk(root: &Path, dir: &Path, found: &mut Vec<String>) {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).expect("scenarios/ is readable").map(|entry| entry.expect("entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, found);
            } else if path.extension().is_some_and(|ext| ext == "toml") {
                let text = std::fs::read_to_string(&path).expect("a scenario file");
                if text.contains("kind = \"kill_") {
                    let id = path.strip_prefix(root).expect("under scenarios/").with_extension("");
                    found.push(id.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    let root = repo().join("scenarios");
    let mut found = Vec::new();
    walk(&root, &root, &mut found);
    assert!(found.iter().any(|id| id == "idempotency/crash_after_commit"), "the crash scenarios are found: {found:?}");
    found
}

/// Runs `callproof mcp --format json` with `args`: the exit code and the report.
pub(crate) fn mcp_report(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["mcp", "--format", "json"];
    all.extend_from_slice(args);
    let ran = run_callproof(&all);
    let report = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|error| panic!("not a JSON report ({error}):\n{}\nstderr:\n{}", ran.stdout, ran.stderr));
    (ran.code, report)
}

/// Every check's status in a `callproof mcp` JSON report, by id.
pub(crate) fn mcp_statuses(report: &serde_json::Value) -> std::collections::BTreeMap<String, String> {
    let checks = report["checks"].as_array().expect("checks");
    let status = |check: &serde_json::Value| {
        (check["id"].as_str().expect("id").to_owned(), check["status"].as_str().expect("status").to_owned())
    };
    checks.iter().map(status).collect()
}

/// How to install the Python SDK example server (examples/mcp-python) into target/mcp-python-venv.
pub(crate) const INSTALL_MCP_PYTHON: &str = "scripts/test, or: python3 -m venv target/mcp-python-venv && \
     target/mcp-python-venv/bin/pip install -r examples/mcp-python/requirements.txt";
/// How to build the TypeScript SDK example server (examples/mcp-typescript).
pub(crate) const INSTALL_MCP_TYPESCRIPT: &str =
    "scripts/test, or: cd examples/mcp-typescript && npm ci && npm run build";

/// Whether `needs` (a path in the repository) exists for `what`; when not, a loud SKIPPED line naming how to
/// `install` it, and a failure instead under `CALLPROOF_REQUIRE_SERVICES=1` (CI).
pub(crate) fn present(needs: &str, what: &str, install: &str) -> bool {
    if repo().join(needs).exists() {
        return true;
    }
    let require = std::env::var(REQUIRE_VAR).as_deref() == Ok("1");
    assert!(!require, "{what}: {needs} is missing and {REQUIRE_VAR}=1: {install}");
    // Straight to the terminal: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {what}: {needs} is missing ({install}; set {REQUIRE_VAR}=1 to fail instead)"
    );
    false
}

/// The URL a child prints on stderr after `marker`; the rest of stderr is drained.
pub(crate) fn served_url(child: &mut std::process::Child, marker: &str) -> String {
    use std::io::BufRead;
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    let url = loop {
        line.clear();
        assert_ne!(stderr.read_line(&mut line).expect("stderr reads"), 0, "exited before serving");
        if let Some((_, rest)) = line.split_once(marker) {
            break rest.split_whitespace().next().expect("a URL").to_owned();
        }
    };
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    url
}

/// `callproof-executor --mcp-http` on a free loopback port with a memory store, verifying tokens signed with
/// `key`, its tools sending downstream to `downstream` (none: the discard port); the child and its URL.
pub(crate) fn spawn_http_reference(key: &str, downstream: Option<&str>) -> (std::process::Child, String) {
    let mut command = std::process::Command::new(executor_binary());
    command
        .args(["--mcp-http", "127.0.0.1:0", "--store", "memory"])
        .env("CALLPROOF_TOKEN_KEY", key)
        .env_remove("CALLPROOF_MCP_URL")
        .env_remove("CALLPROOF_DOWNSTREAM_URL")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    if let Some(downstream) = downstream {
        command.env("CALLPROOF_DOWNSTREAM_URL", downstream);
    }
    let mut child = command.spawn().expect("the executor starts");
    let url = served_url(&mut child, " over Streamable HTTP at ");
    (child, url)
}

/// The first port of the range [`server_port`] takes from.
const SERVER_PORTS_FROM: u32 = 20_000;
/// How many ports that range holds: it ends below 32768, where Linux's ephemeral range starts.
const SERVER_PORTS: u32 = 12_000;

/// A loopback port for a server a test starts itself (it is told the port), taken below the kernel's ephemeral
/// range. A port found by binding 0 and releasing it can be handed by the next `bind(0)` (another test's wiremock
/// or store relay, which all bind 0) to that server before ours binds it; the test then talks to the wrong server
/// (once, in CI: a Python SDK server's `initialize` answered by a mocked downstream's 404). Below the ephemeral
/// range no `bind(0)` lands; the start is spread by process id and call count so parallel tests rarely try the
/// same port, and each candidate is checked free.
pub(crate) fn server_port() -> u16 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let spread = u64::from(std::process::id()).wrapping_mul(7_919).wrapping_add(NEXT.fetch_add(97, Ordering::Relaxed));
    let start = u32::try_from(spread % u64::from(SERVER_PORTS)).expect("below SERVER_PORTS");
    (0..SERVER_PORTS)
        .map(|step| SERVER_PORTS_FROM + (start + step) % SERVER_PORTS)
        .filter_map(|port| u16::try_from(port).ok())
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free loopback port below the ephemeral range")
}
