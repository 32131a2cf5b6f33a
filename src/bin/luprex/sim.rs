//! `luprex sim DIR`: the world with N bots over the deterministic
//! in-process network, headless.
//!
//! This is the scripter's consistency and load check: the master and the
//! bots' clients run in one thread on simulated time (`luprex_net::sim`),
//! so a run is a function of the script directory and `--seed`, and a
//! desync (a client whose synchronous model stops matching the server's
//! twin, or whose view differs from the master's at the end) is a bug of
//! the engine or the network, never of timing. What a bot does and how a
//! script directory replaces it is in `bots.rs` and `docs/SCRIPTING.md`.
//!
//! Output: one line per command, impossible command (refused or failed on
//! the master), misprediction and desync, then a summary, the bytes, and
//! one `time:` line with the measured tick times. Everything but the
//! `time:` lines is identical for the same seed. Exit code 1 on any desync
//! or client error, 0 otherwise.

use crate::bots::{self, RunOptions};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The script directory (with its control.lst).
    pub dir: PathBuf,
    /// How many bot clients.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// How many server ticks to run (20 per simulated second).
    #[arg(long, default_value_t = 400)]
    pub ticks: u64,
    /// The least one-way latency of a frame, in milliseconds.
    #[arg(long, default_value_t = 40)]
    pub latency: u64,
    /// How much more a frame may take, at random, in milliseconds.
    #[arg(long, default_value_t = 40)]
    pub jitter: u64,
    /// The seed of the network's and the bots' generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Do not print each command (only the problems and the summary).
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let master = bots::load_master(&args.dir, &mut crate::bots::stdout_line())?;
    let opts = RunOptions {
        clients: args.clients,
        ticks: args.ticks,
        latency_ms: args.latency,
        jitter_ms: args.jitter,
        seed: args.seed,
        prints: false,
        commands: !args.quiet,
    };
    let totals = bots::run(master, &opts, &mut crate::bots::stdout_line());
    Ok(if totals.desyncs > 0 || totals.errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
