//! `callproof-executor --stdio`: the reference executor as a process that speaks the adapter protocol
//! `callproof/1` (docs/protocol.md) on stdin and stdout; `--mcp`: the same as an MCP server (docs/mcp.md), and
//! `--mcp-http` over Streamable HTTP.
//! Kept thin: options, then the serving loop.
//!
//! Rule enforced here: stdout carries protocol lines and nothing else; every log line goes to stderr.

mod http;
mod mcp;
mod options;
mod serve;
mod session;

use std::process::ExitCode;

fn main() -> ExitCode {
    let options = match options::parse(std::env::args().skip(1)) {
        Ok(options::Parsed::Run(options)) => *options,
        Ok(options::Parsed::Help) => {
            eprint!("{}", options::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(options::Parsed::Version) => {
            eprintln!("callproof-executor {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("callproof-executor: {message}\n\n{}", options::USAGE);
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("callproof-executor: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = match options.mode {
        options::Mode::Stdio => runtime.block_on(serve::serve(options)),
        options::Mode::Mcp => runtime.block_on(mcp::serve(options)),
        options::Mode::McpHttp(ref address) => {
            let address = address.clone();
            runtime.block_on(http::serve(options, address))
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("callproof-executor: {message}");
            ExitCode::FAILURE
        }
    }
}
