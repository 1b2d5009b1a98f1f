//! `callproof mcp`: the MCP profile against one server, a process over stdio or a Streamable HTTP endpoint
//! (docs/mcp.md, Part 2).
//!
//! Rule enforced here: stdout carries the report (human or JSON) and nothing else; without `--call` or
//! `--call-all` only tools the server annotates read-only are called, and the report lists the others as
//! skipped.

use super::Error;
use super::output::{self, Format};
use callproof_harness::mcp::revision::Revision;
use callproof_harness::mcp::{self, Bearer, Calls, Options, Server};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// What `--help` says about exit codes.
pub(crate) const EXIT_CODES: &str = "Exit codes: 0 no MUST check failed (SHOULD failures are warnings); 1 a \
                                     MUST check failed; 2 usage error (nothing is run); 3 the server could not \
                                     be started.";

/// `callproof mcp --server COMMAND | --url URL [--call TOOL]... [--call-all] ...`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).multiple(false).args(["server", "url"])))]
pub(crate) struct Args {
    /// The MCP server command, e.g. "python3 server.py"; started once, spoken to over stdin/stdout.
    #[arg(long, value_name = "COMMAND")]
    server: Option<String>,
    /// Or the Streamable HTTP endpoint of a running MCP server, e.g. http://127.0.0.1:8000/mcp (a POST per
    /// message; http:// only).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// With --url: sent as `Authorization: Bearer TOKEN` on every request. Says the server requires a token, so
    /// the checks mcp-auth-required and mcp-auth-invalid-token are judged. Visible in the process list: prefer
    /// --bearer-file. Never printed in the report.
    #[arg(long, value_name = "TOKEN", conflicts_with = "bearer_file")]
    bearer: Option<String>,
    /// With --url: the bearer token read from FILE (its final line break dropped).
    #[arg(long, value_name = "FILE")]
    bearer_file: Option<PathBuf>,
    /// With --url and --bearer: a second identity's token. A task the first identity created is polled with it
    /// (mcp-tasks-auth-binding: the answer must be the one for an unknown task id). Never printed in the report.
    #[arg(long, value_name = "TOKEN", conflicts_with = "bearer_second_file")]
    bearer_second: Option<String>,
    /// With --url and --bearer: the second identity's token read from FILE (its final line break dropped).
    #[arg(long, value_name = "FILE")]
    bearer_second_file: Option<PathBuf>,
    /// Also call TOOL with generated valid and invalid inputs (repeatable). Without it only tools annotated
    /// readOnlyHint: true are called: a lax server may execute an invalid input.
    #[arg(long, value_name = "TOOL")]
    call: Vec<String>,
    /// Call every tool with generated valid and invalid inputs.
    #[arg(long, conflicts_with = "call")]
    call_all: bool,
    /// The bound on every request, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// How the report is printed on stdout.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// A JSON object added to the `_meta` of every tools/call, e.g. the context a server needs to let a call past
    /// its own authorization ('{"io.callproof/context":{...}}'), so that what its decoding accepted is seen to
    /// run. Keys under io.modelcontextprotocol/ are the profile's own and refused.
    #[arg(long, value_name = "JSON")]
    meta: Option<String>,
    /// The MCP revision to speak: auto asks the server (server/discover first) and falls back to 2025-11-25.
    #[arg(long, value_enum, value_name = "REVISION", default_value = "auto")]
    mcp_revision: Revision,
}

/// Runs the profile and prints the report.
pub(crate) fn run(args: Args) -> Result<ExitCode, Error> {
    let calls = match (args.call_all, args.call.is_empty()) {
        (true, _) => Calls::All,
        (false, true) => Calls::ReadOnly,
        (false, false) => Calls::Named(args.call.into_iter().collect()),
    };
    let server = match (args.server, args.url) {
        (Some(command), _) => Server::Command(command),
        (None, Some(url)) => Server::Url(url),
        // clap's group requires one of them.
        (None, None) => return Err(Error::Usage("give --server COMMAND or --url URL".to_owned())),
    };
    let second = token(args.bearer_second.as_deref(), args.bearer_second_file.as_deref(), "--bearer-second")?;
    let bearer = token(args.bearer.as_deref(), args.bearer_file.as_deref(), "--bearer")?;
    if bearer.is_some() && matches!(server, Server::Command(_)) {
        let why = "--bearer and --bearer-file are for --url: a server over stdio takes its credentials from the \
                   environment it is started with";
        return Err(Error::Usage(why.to_owned()));
    }
    if second.is_some() && bearer.is_none() {
        let why = "--bearer-second and --bearer-second-file are a second identity beside --bearer or --bearer-file \
                   (with --url)";
        return Err(Error::Usage(why.to_owned()));
    }
    let timeout = Duration::from_millis(args.timeout);
    let meta = meta(args.meta.as_deref())?;
    let options = Options { server, calls, timeout, revision: args.mcp_revision, bearer, meta };
    let runtime = super::runtime()?;
    let report = runtime.block_on(mcp::profile::run_with(&options, second.as_ref()))?;
    match args.format {
        Format::Human => output::print(&output::paint_footer(&report.human())),
        Format::Json => output::line(&report.to_json()),
    }
    Ok(ExitCode::from(report.exit_code()))
}

/// The object of `--meta`: JSON, an object, and none of the keys the revision sets.
fn meta(text: Option<&str>) -> Result<Map<String, Value>, Error> {
    let Some(text) = text else { return Ok(Map::new()) };
    let meta = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(meta)) => meta,
        Ok(other) => return Err(Error::Usage(format!("--meta must be a JSON object, not {other}"))),
        Err(error) => return Err(Error::Usage(format!("--meta is not JSON: {error}"))),
    };
    match meta.keys().find(|key| key.starts_with("io.modelcontextprotocol/")) {
        Some(key) => Err(Error::Usage(format!("--meta: `{key}` is set by the profile itself (--mcp-revision)"))),
        None => Ok(meta),
    }
}

/// The token of `--bearer` or `--bearer-file` (or their `-second` forms); an error names the file, never the
/// token.
fn token(text: Option<&str>, file: Option<&std::path::Path>, flag: &str) -> Result<Option<Bearer>, Error> {
    let (text, from) = match (text, file) {
        (Some(text), _) => (text.to_owned(), flag.to_owned()),
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file)
                .map_err(|error| Error::Usage(format!("cannot read {flag}-file {}: {error}", file.display())))?;
            (text, format!("{flag}-file {}", file.display()))
        }
        (None, None) => return Ok(None),
    };
    Bearer::new(&text).map(Some).map_err(|why| Error::Usage(format!("{from}: {why}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        match meta(Some(text)) {
            Err(Error::Usage(why)) => why,
            other => panic!("{text} was not refused: {other:?}"),
        }
    }

    #[test]
    fn meta_is_a_json_object_without_the_profiles_own_keys() {
        assert!(meta(None).expect("no --meta").is_empty());
        let context = meta(Some(r#"{"io.callproof/context":{"auth":{"subject_id":"u"}}}"#)).expect("an object");
        assert_eq!(context["io.callproof/context"]["auth"]["subject_id"], "u");
        assert!(refused("{").starts_with("--meta is not JSON"));
        assert!(refused("[1]").contains("must be a JSON object, not [1]"));
        assert!(refused(r#"{"io.modelcontextprotocol/protocolVersion":"x"}"#).contains("set by the profile itself"));
    }
}
