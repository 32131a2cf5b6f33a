//! Bots: players driven by a program, over the deterministic in-process
//! network (`luprex_net::sim`).
//!
//! Two subcommands run a world with bots and no person: `luprex sim` (the
//! load and consistency check a scripter runs before serving) and `luprex
//! play` without a terminal (the README's first command, run anywhere).
//! Both are a [`SimNet`]: the master, one `ServerCore`, and N
//! `ClientCore`s whose frames travel with a seeded latency, so a run is a
//! function of the script directory and the seed.
//!
//! **What a bot does.** Each tick, a bot with fewer than two commands
//! pending acts with probability 1/8. It asks its *own predicted view*
//! (never the master: a bot knows what a player's client knows) what to
//! do:
//!
//! * if the scripts define a class `bot` with a function `choose`, the
//!   bot runs `bot.choose(me, r)` as a probe (it cannot change the world
//!   nor wait; `me` is the bot's player tangible and `r` a random integer
//!   in `0..2^31` from the bot's generator, since a probe's own `math.random`
//!   is rolled back with it). It returns `"walk", x, y`, or `"invoke", t,
//!   name, args...` (`t` a tangible), or `nil`/`"default"` for the default
//!   behaviour, or `"wait"` to do nothing this time. The protocol is
//!   documented for scripters in `docs/SCRIPTING.md` §6 and `lua/bot.lua`;
//! * the default: half the time a walk to a random point within 8 units,
//!   otherwise a random permitted method taking no arguments (`/chop`,
//!   `/pet`, `/scores`...) of a random tangible within the close radius
//!   (its own player included, other players not).
//!
//! **What is reported.** Every command, every failed (impossible) command
//! with its reason, every misprediction and desync, the prints when asked
//! (`play`), and at the end the counters and bytes. Lines that report
//! measured wall-clock times start with `time:`; every other line is the
//! same for the same seed.

use crate::tui::lookup::{class_name, no_arg_methods};
use anyhow::Context;
use luprex_engine::{Model, Plain, World, PLAYER_CLASS};
use luprex_net::sim::{Rng, SimConfig, SimNet};
use luprex_net::{
    Arg, ClientCore, ClientEvent, Command, HashCost, Outcome, Registry, ServerConfig, ServerCore,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// What a run of bots is asked to do.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub clients: usize,
    pub ticks: u64,
    pub latency_ms: u64,
    pub jitter_ms: u64,
    pub seed: u64,
    /// Print each player's prints and the master's output.
    pub prints: bool,
    /// Print each command as it is issued.
    pub commands: bool,
}

/// The totals of a run.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub commands: u64,
    pub acks: u64,
    pub impossible: u64,
    pub mispredictions: u64,
    pub desyncs: u64,
    pub checks: u64,
    pub errors: u64,
}

/// The master World of script directory `dir`; its load reports go to
/// `report` (with file and line).
pub fn load_master(dir: &Path, report: &mut dyn FnMut(String)) -> anyhow::Result<World> {
    let mut w = World::from_dir(Model::Master, dir)
        .with_context(|| format!("loading the script directory {}", dir.display()))?;
    for r in w.take_reports() {
        report(format!("script error: {r}"));
    }
    Ok(w)
}

/// What a bot does next, from its predicted `view` (`None`: nothing).
pub fn choose(view: &mut World, player: u64, close_radius: f64, rng: &mut Rng) -> Option<Command> {
    let r = rng.below(1 << 31);
    let code = format!(
        "local b = bot\nif type(b) == 'table' and type(b.choose) == 'function' then\n  \
         return b.choose(gettangible({player}), {r})\nend\nreturn 'default'"
    );
    match view.probe(&code) {
        Ok(vals) => match vals.first() {
            None | Some(Plain::Nil) => {}
            Some(Plain::Str(s)) if s == "default" => {}
            Some(Plain::Str(s)) if s == "wait" => return None,
            Some(Plain::Str(s)) if s == "walk" => {
                let num = |i: usize| match vals.get(i) {
                    Some(Plain::Int(n)) => Some(*n as f64),
                    Some(Plain::Float(f)) => Some(*f),
                    _ => None,
                };
                if let (Some(x), Some(y)) = (num(1), num(2)) {
                    return Some(Command::Walk { to: [x, y, num(3).unwrap_or(0.0)] });
                }
            }
            Some(Plain::Str(s)) if s == "invoke" => {
                let target = match vals.get(1) {
                    Some(Plain::Tangible(t)) => Some(*t),
                    Some(Plain::Int(t)) => u64::try_from(*t).ok(),
                    _ => None,
                };
                if let (Some(target), Some(Plain::Str(function))) = (target, vals.get(2)) {
                    let args = vals[3..].to_vec();
                    return Some(Command::Invoke { target, function: function.clone(), args });
                }
            }
            Some(_) => {}
        },
        Err(e) => tracing::debug!(error = %e, "bot.choose failed; default bot"),
    }
    default_choice(view, player, close_radius, rng)
}

/// The default bot (see the module docs).
pub fn default_choice(
    view: &mut World,
    player: u64,
    close_radius: f64,
    rng: &mut Rng,
) -> Option<Command> {
    let here = view.position(player)?;
    if rng.below(2) == 0 {
        let to = [
            here[0].round() + rng.range(-8, 8) as f64,
            here[1].round() + rng.range(-8, 8) as f64,
            here[2],
        ];
        return Some(Command::Walk { to });
    }
    let mut ids = view.scan_radius(here, close_radius);
    ids.sort_unstable();
    let mut choices = Vec::new();
    for id in ids {
        // Another player's commands are that player's to give.
        if id != player && class_name(view, id).as_deref() == Some(PLAYER_CLASS) {
            continue;
        }
        for m in no_arg_methods(view, id) {
            choices.push((id, m));
        }
    }
    if choices.is_empty() {
        let to = [
            here[0].round() + rng.range(-8, 8) as f64,
            here[1].round() + rng.range(-8, 8) as f64,
            here[2],
        ];
        return Some(Command::Walk { to });
    }
    let (target, function) = choices.swap_remove(rng.below(choices.len() as u64) as usize);
    Some(Command::Invoke { target, function, args: Vec::new() })
}

/// A command as a short line.
pub fn describe(cmd: &Command) -> String {
    match cmd {
        Command::Walk { to } => format!("walk {:.0},{:.0}", to[0], to[1]),
        Command::Invoke { target, function, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    Arg::Str(s) => format!("{s:?}"),
                    Arg::Tangible(t) => format!("#{t}"),
                    Arg::Int(i) => i.to_string(),
                    Arg::Float(f) => f.to_string(),
                    Arg::Bool(b) => b.to_string(),
                    Arg::Nil => "nil".into(),
                })
                .collect();
            format!("/{function}@{target} {}", args.join(" ")).trim_end().to_owned()
        }
    }
}

/// A report sink printing to stdout, which stops printing (silently)
/// once stdout is closed (`luprex play | head`).
pub fn stdout_line() -> impl FnMut(String) {
    let mut open = true;
    move |line| {
        use std::io::Write;
        if open {
            open = writeln!(std::io::stdout().lock(), "{line}").is_ok();
        }
    }
}

fn indent(who: &str, text: &str, out: &mut dyn FnMut(String)) {
    for line in text.strip_suffix('\n').unwrap_or(text).split('\n') {
        out(format!("  {who}| {line}"));
    }
}

/// Runs `master` with `opts.clients` bots for `opts.ticks` ticks over the
/// simulated network; every report line goes to `out`.
pub fn run(master: World, opts: &RunOptions, out: &mut dyn FnMut(String)) -> Totals {
    let cfg = ServerConfig { max_queued_commands: 1000, ..ServerConfig::default() };
    let close = cfg.close_radius;
    let tick_ms = u64::from(1000 / cfg.tick_hz.max(1));
    let server = ServerCore::new(master, cfg, Registry::new(HashCost::test()));
    let sim = SimConfig {
        seed: opts.seed,
        min_ms: opts.latency_ms,
        max_ms: opts.latency_ms + opts.jitter_ms,
    };
    let mut net = SimNet::new(server, sim);
    let mut rng = Rng::new(opts.seed ^ 0xB075);
    let mut t = Totals::default();
    // names[i] is client i's name.
    let mut names: Vec<String> = Vec::new();
    for name in (1..=opts.clients).map(|i| format!("bot{i}")) {
        match ClientCore::new(&name, "bot", Vec::new()) {
            Ok(core) => {
                net.connect(core);
                names.push(name);
            }
            Err(e) => out(format!("{name}: cannot start: {e}")),
        }
        net.run_ms(tick_ms);
    }
    let mut seqs: Vec<BTreeMap<u64, Command>> = vec![BTreeMap::new(); net.clients.len()];
    let mut tick_times = Vec::with_capacity(opts.ticks as usize);
    let drain = |net: &mut SimNet,
                 seqs: &mut [BTreeMap<u64, Command>],
                 tick: u64,
                 t: &mut Totals,
                 out: &mut dyn FnMut(String)| {
        if opts.prints {
            let text = net.server.master().take_output();
            if !text.is_empty() {
                indent("world", &text, out);
            }
        }
        for (i, c) in net.clients.iter_mut().enumerate() {
            let who = &names[i];
            for ev in c.core.take_events() {
                match ev {
                    ClientEvent::Welcome { player } => {
                        out(format!("tick {tick}: {who} joined as #{player}"))
                    }
                    ClientEvent::Acked { seq, outcome } => {
                        t.acks += 1;
                        let cmd = seqs[i].remove(&seq);
                        if let Outcome::Failed(why) = outcome {
                            t.impossible += 1;
                            let what = cmd.as_ref().map_or(String::new(), describe);
                            out(format!("tick {tick}: {who} impossible: {what}: {why}"));
                        }
                    }
                    ClientEvent::Misprediction { seq, .. } => {
                        t.mispredictions += 1;
                        out(format!("tick {tick}: {who} mispredicted command {seq}"));
                    }
                    ClientEvent::Desync { tick: at } => {
                        t.desyncs += 1;
                        out(format!("tick {tick}: {who} DESYNC at batch tick {at}"));
                    }
                }
            }
            if opts.prints {
                let text = c.core.take_prints();
                if !text.is_empty() {
                    indent(who, &text, out);
                }
            }
        }
    };
    for tick in 0..opts.ticks {
        for i in 0..net.clients.len() {
            let c = &mut net.clients[i];
            if !c.connected || !c.core.is_live() || c.core.pending() >= 2 || rng.below(8) != 0 {
                continue;
            }
            let player = c.core.player();
            let Some(cmd) = choose(c.core.view(), player, close, &mut rng) else { continue };
            if opts.commands {
                out(format!("tick {tick}: {} {}", names[i], describe(&cmd)));
            }
            if let Some(seq) = net.command(i, cmd.clone()) {
                t.commands += 1;
                seqs[i].insert(seq, cmd);
            }
        }
        let start = Instant::now();
        net.run_ms(tick_ms);
        tick_times.push(start.elapsed());
        drain(&mut net, &mut seqs, tick, &mut t, out);
    }
    let settled = net.settle(60_000);
    net.server.check_next();
    net.run_ms(500);
    drain(&mut net, &mut seqs, opts.ticks, &mut t, out);
    if !settled {
        out("the traffic did not settle within 60 s of simulated time".into());
    }
    let mut bytes_down = 0;
    for (c, name) in net.clients.iter().zip(&names) {
        let s = c.core.stats();
        t.checks += s.checks;
        bytes_down += s.bytes_down;
        if let Some(e) = &c.error {
            t.errors += 1;
            out(format!("{name}: error: {e}"));
            if e.contains("desync") {
                t.desyncs += 1;
            }
        }
    }
    // The views at the end. The world goes on (trees regrow), so a view may
    // be a batch behind: a difference counts only if it persists.
    let mut diffs: Vec<(usize, Vec<String>)> = Vec::new();
    for attempt in 0..6 {
        if attempt > 0 {
            net.run_ms(tick_ms * 4 + opts.latency_ms * 2 + opts.jitter_ms * 2);
        }
        diffs.clear();
        for i in 0..net.clients.len() {
            if net.clients[i].connected && net.clients[i].core.is_live() {
                let d = view_differences(&mut net, i, close);
                if !d.is_empty() {
                    diffs.push((i, d));
                }
            }
        }
        if diffs.is_empty() {
            break;
        }
    }
    for (i, d) in diffs {
        t.desyncs += 1;
        out(format!(
            "{}: DESYNC: its view differs from the master's at the end: {}",
            names[i],
            d.join("; ")
        ));
    }
    let st = net.server.stats().clone();
    out(format!(
        "summary: {} clients, {} ticks, seed {}: {} commands, {} acknowledged, {} impossible, \
         {} mispredictions, {} state checks, {} desyncs, {} errors",
        net.clients.len(),
        opts.ticks,
        opts.seed,
        t.commands,
        t.acks,
        t.impossible,
        t.mispredictions,
        t.checks,
        t.desyncs,
        t.errors
    ));
    out(format!(
        "bytes: {} down ({} per client per tick), master ran {} commands in {} ticks",
        bytes_down,
        bytes_down / (net.clients.len() as u64 * opts.ticks.max(1)).max(1),
        st.commands,
        st.ticks
    ));
    out(time_line(&mut tick_times));
    t
}

/// How client `i`'s view differs from the master's (at most 3 entries):
/// the final positions within its view radius, and the classes within its
/// close radius (beyond it a client gets motion, not Lua data, so a
/// class change there is not transmitted by design).
fn view_differences(net: &mut SimNet, i: usize, close: f64) -> Vec<String> {
    let (mine, master) = net.views(i);
    let player = net.clients[i].core.player();
    let Some(me) = net.server.master().position(player) else { return Vec::new() };
    let near = |p: [f64; 3]| {
        ((p[0] - me[0]).powi(2) + (p[1] - me[1]).powi(2) + (p[2] - me[2]).powi(2)).sqrt()
            <= close - 1.0
    };
    let keys: std::collections::BTreeSet<&u64> = mine.keys().chain(master.keys()).collect();
    keys.into_iter()
        .filter(|k| match (mine.get(k), master.get(k)) {
            (Some((c1, p1)), Some((c2, p2))) => p1 != p2 || (c1 != c2 && near(*p2)),
            (Some((_, p)), None) | (None, Some((_, p))) => near(*p),
            (None, None) => false,
        })
        .take(3)
        .map(|k| format!("#{k}: {:?} vs master {:?}", mine.get(k), master.get(k)))
        .collect()
}

/// `time:` the measured tick times (wall clock; varies between runs).
fn time_line(times: &mut [Duration]) -> String {
    if times.is_empty() {
        return "time: no ticks".into();
    }
    times.sort_unstable();
    let total: Duration = times.iter().sum();
    let pick = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    format!(
        "time: per tick (server + clients) mean {:.0} µs, median {:.0} µs, p99 {:.0} µs, max {:.0} µs; total {:.2} s",
        total.as_secs_f64() * 1e6 / times.len() as f64,
        pick(0.5).as_secs_f64() * 1e6,
        pick(0.99).as_secs_f64() * 1e6,
        pick(1.0).as_secs_f64() * 1e6,
        total.as_secs_f64()
    )
}
