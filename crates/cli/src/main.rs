//! `switchboard`: the command-line face of the gateway (thin: parse, build, call the crates).

/// Many small allocations per call cross tokio's worker threads; glibc malloc serialised
/// them on its arena locks, mimalloc doubled an idle session's memory
/// (docs/benchmarks/history.md, issue 13).
/// jemalloc's background threads (on by default here) give freed pages back while idle.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's figures for `/metrics` (`switchboard_heap_allocated_bytes`, `_resident_bytes`).
#[cfg(not(target_env = "msvc"))]
fn heap_figures() -> Option<switchboard_metrics::HeapFigures> {
    use tikv_jemalloc_ctl::{epoch, stats};
    epoch::advance().ok()?;
    Some(switchboard_metrics::HeapFigures {
        allocated: stats::allocated::read().ok()? as u64,
        resident: stats::resident::read().ok()? as u64,
    })
}

mod admin;
mod args;
mod audit_cmds;
mod audit_rows;
mod commands;
mod config_cmds;
mod control;
mod data_folder;
mod end_users;
mod identity;
mod inputs;
mod logging;
mod login;
mod policy;
mod policy_cmds;
mod remote;
mod sandbox_cmds;
mod serve;
mod setup;
mod table;
mod tenancy_cmds;
mod watch;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // `switchboard __sandbox`: this process is the helper that starts a confined server.
    switchboard_sandbox::run_if_helper();
    let mut cli = args::Cli::parse();
    if matches!(
        cli.command,
        args::Command::Serve { .. } | args::Command::Stdio
    ) && let Err(e) = switchboard_sandbox::make_undumpable()
    {
        eprintln!("warning: cannot make the gateway non-dumpable: {e}");
    }
    #[cfg(not(target_env = "msvc"))]
    switchboard_metrics::set_heap_reader(heap_figures);
    // Dropped after the runtime: it sends the last spans from its own thread.
    let _traces = logging::init_logging(&cli);
    cli.global.data = match data_folder::resolve(cli.global.data_given.as_deref()) {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = cli.global.threads {
        runtime.worker_threads(usize::from(threads));
    }
    let runtime = match runtime.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
