//! `luprex`: the engine binary, what a game scripter runs with a script
//! directory (issue 14).
//!
//! The binary is a thin shell over the engine crates: every subcommand is
//! one module with an `Args` struct (clap derive) and a `run` function
//! returning the process's exit code, and `main` only parses the command
//! line, starts logging and dispatches. A new subcommand (`serve`, `play`,
//! `connect`, `sim`, once the network exists) is one more variant of
//! [`Command`], one more module and one more arm in [`run`]; nothing else
//! changes.
//!
//! Errors: `anyhow` is used here and only here (the libraries return typed
//! errors). A subcommand returns `Err` for failures of the run itself (an
//! unreadable directory): `main` prints them as `luprex: ...` and exits 2.
//! Findings that are the subcommand's answer (`check` found errors in the
//! scripts) are printed by the subcommand, which returns exit code 1.
//!
//! Logging goes through `tracing` to stderr, at the level of `--log`
//! (default `warn`, so that `check` prints only its findings); the server
//! subcommands will log connections and errors at `info`.
//!
//! The terminal client's user interface (`tui`) is here too, independent
//! of the network, and the web view (`web`); `play` and `connect` drive
//! either through the client loop they share (`session.rs`). `serve` is the
//! persistent master (`serve.rs`).

mod bots;
mod check;
mod connect;
#[path = "../../malloc_tune.rs"]
mod malloc_tune;
mod play;
mod serve;
mod session;
mod sim;
mod tui;
mod web;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The Luprex engine: multiplayer worlds whose game logic is Lua.
#[derive(Parser, Debug)]
#[command(name = "luprex", version, about)]
struct Cli {
    /// Log level of the diagnostics on stderr (error, warn, info, debug, trace).
    #[arg(long, global = true, default_value = "warn")]
    log: tracing::Level,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Loads and compiles every source of a script directory; prints every
    /// error with its file and line; exits 1 if there is any.
    Check(check::Args),
    /// Serves a script directory: the persistent master World (checkpoint
    /// and journal in a data directory) and the network listener.
    Serve(serve::Args),
    /// Runs a script directory's world and plays it in the terminal (a
    /// server and a client in one process), or in a web browser with
    /// `--web ADDR`; without either, bots play it for a while and what
    /// happens is printed.
    Play(play::Args),
    /// The terminal client: plays on the server at ADDR (in a web browser
    /// with `--web ADDR`).
    Connect(connect::Args),
    /// Headless: the master and N bots over the deterministic simulated
    /// network; reports commands, mispredictions, desyncs, bytes, times.
    Sim(sim::Args),
}

fn main() -> ExitCode {
    malloc_tune::tune();
    let cli = Cli::parse();
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_max_level(cli.log).init();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("luprex: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs one subcommand.
fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Check(args) => check::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Connect(args) => connect::run(&args),
        Command::Sim(args) => sim::run(&args),
    }
}
