//! Determinism of Worlds: the same scripts and the same calls give the
//! same state hash, in this process and in a child process; a snapshot,
//! changes and a rollback give back exactly the prior state hash; a save
//! and restore keeps it.

use luprex_engine::{Model, SourceFile, World};
use std::path::{Path, PathBuf};
use std::process::Command;
include!("../../vm/tests/support/child.rs");

const SCENARIOS: &[&str] = &[
    "classes",
    "globals_guard",
    "reload",
    "global_db",
    "init_once",
    "tangibles",
    "movement",
    "threads",
    "players",
];

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worlds").join(name)
}

/// A master loaded from `name` that then runs some game-like code.
fn world(name: &str, model: Model) -> World {
    let mut w = World::from_dir(model, scenario(name)).unwrap();
    w.take_reports();
    w
}

/// Code that changes a master world a lot: tables, strings, closures,
/// random numbers, garbage.
const WORK: &str = r#"
    local g = global("work")
    math.randomseed(7)
    g.list = g.list or {}
    for i = 1, 2000 do
      g.list[#g.list + 1] = {id = i, name = "n" .. math.random(1000), f = function() return i end}
    end
    table.sort(g.list, function(a, b) return a.name < b.name or (a.name == b.name and a.id < b.id) end)
    for i = 1, 20000 do local t = {i} end
    global.set("count", #g.list)
    print(#g.list, g.list[1].name)
"#;

fn hashes() -> Vec<String> {
    let mut out = Vec::new();
    for name in SCENARIOS {
        for model in [Model::Master, Model::ClientSync] {
            let mut w = world(name, model);
            out.push(format!("DET {name} {model:?} load {:032x}", w.state_hash()));
            if model == Model::Master {
                w.exec("=work", WORK).unwrap();
                out.push(format!("DET {name} {model:?} work {:032x}", w.state_hash()));
                if *name == "movement" {
                    tangible_work(&mut w);
                    out.extend(tangible_lines(&w));
                }
                if *name == "players" {
                    player_work(&mut w);
                    out.push(format!("DET players walks {:032x}", w.state_hash()));
                    out.extend(tangible_lines(&w));
                }
            }
        }
    }
    out
}

#[test]
fn same_scripts_same_hash() {
    for name in SCENARIOS {
        let mut a = world(name, Model::Master);
        let mut b = world(name, Model::Master);
        assert_eq!(a.state_hash(), b.state_hash(), "{name}: after load");
        a.exec("=work", WORK).unwrap();
        assert_ne!(a.state_hash(), b.state_hash(), "{name}: the work changes the state");
        b.exec("=work", WORK).unwrap();
        assert_eq!(a.state_hash(), b.state_hash(), "{name}: after the same work");
        assert_eq!(a.take_output(), b.take_output());
        a.rebuild().unwrap();
        b.rebuild().unwrap();
        assert_eq!(a.state_hash(), b.state_hash(), "{name}: after a class rebuild");
        a.exec("=gc", "collectgarbage()").unwrap();
        a.state().check_heap().unwrap();
        let s = a.save().unwrap();
        let r = World::restore(Model::Master, &s).unwrap();
        assert_eq!(r.state_hash(), a.state_hash(), "{name}: save and restore");
        assert_eq!(r.save().unwrap(), s, "{name}: a restored world saves the same bytes");
    }
}

#[test]
fn memory_sources_are_deterministic() {
    let files: Vec<SourceFile> = (0..10)
        .map(|i| {
            SourceFile::new(
                format!("f{i}.lua"),
                format!("makeclass('c{i}')\nfunction c{i}.m() return {i} end\n"),
            )
        })
        .collect();
    let mut a = World::new(Model::ServerSync).unwrap();
    let mut b = World::new(Model::ClientSync).unwrap();
    a.load_sources(&files).unwrap();
    b.load_sources(&files).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    let mut changed = files.clone();
    changed[3] = SourceFile::new("f3.lua", "makeclass('c3')\nfunction c3.m() return -3 end\n");
    a.load_sources(&changed).unwrap();
    assert_ne!(a.state_hash(), b.state_hash());
    b.load_sources(&changed).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn rollback_restores_the_exact_state() {
    let mut w = world("reload", Model::Master);
    let h0 = w.state_hash();
    let heap0 = w.state().heap_hash();
    let s = w.snapshot().unwrap();
    for round in 0..3 {
        w.exec("=work", WORK).unwrap();
        w.exec("=more", "makeclass('furnace').heat = nil; global.set('x', {1, 2, 3})").unwrap();
        w.rebuild().unwrap();
        assert_ne!(w.state_hash(), h0, "round {round}: the changes changed the state");
        w.state().check_heap().unwrap();
        w.rollback(&s).unwrap();
        w.state().check_heap().unwrap();
        assert_eq!(w.state_hash(), h0, "round {round}: rollback");
        assert_eq!(w.state().heap_hash(), heap0, "round {round}: rollback (heap layout)");
        w.exec("=t", "assert(furnace.heat() == 'version 1'); assert(global.get('x') == nil)")
            .unwrap();
        assert_eq!(w.state_hash(), h0);
    }
    // The same work after a rollback gives the same state as without one.
    w.exec("=work", WORK).unwrap();
    let after = w.state_hash();
    let mut plain = world("reload", Model::Master);
    plain.exec("=work", WORK).unwrap();
    assert_eq!(plain.state_hash(), after);
    w.release(s).unwrap();
    assert_eq!(w.state_hash(), after);
}

#[test]
fn cross_process_hashes_agree() {
    let here = hashes();
    let Some(child) =
        child_lines("cross_process_hashes_agree", "LUPREX_ENGINE_DET_CHILD", "DET ", &here)
    else {
        return;
    };
    assert!(child.len() > SCENARIOS.len() * 3 + 50, "{child:?}");
    assert_eq!(child, here);
}

// ---------------------------------------------------------------------
// Tangibles: the Rust side (host data) is covered like the Lua side.
// ---------------------------------------------------------------------

/// Admits players who walk about, leave and come back.
fn player_work(w: &mut World) {
    let ids: Vec<u64> = ["ann", "bob", "cy"].iter().map(|n| w.admit(n).unwrap().id).collect();
    for step in 0..30u64 {
        let id = ids[(step % 3) as usize];
        let to = [(step * 7 % 23) as f64, (step * 5 % 17) as f64 - 8.0, 0.0];
        w.walk(id, to).unwrap();
        w.tick();
        if step == 12 {
            w.depart(ids[1]).unwrap();
            w.admit("bob").unwrap();
        }
    }
    w.exec("=t", "assert(#scanradius(0, 0, 0, 1000) == 6)").unwrap();
}

/// Creates, moves and destroys tangibles of the movement scenario's
/// `walker` class, ticking the clock in between.
const TANGIBLE_WORK: &str = r#"
    math.randomseed(3)
    local g = global("tw")
    g.n = (g.n or 0) + 1
    for i = 1, 200 do
      local t = newtangible(walker, math.random(0, 200), math.random(0, 200), 0)
      t.n = i
      if i % 3 == 0 then
        moveto(t, math.random(0, 200), math.random(0, 200), math.random(0, 10), math.random(1, 30))
        moveto(t, math.random(0, 200), 0.5, 0, math.random(0, 5))
      end
      if i % 7 == 0 then destroy(t) end
    end
    local near = scanradius(100, 100, 0, 40)
    for i = 1, #near, 2 do moveto(near[i], 0, 0, 0, 3) end
"#;

fn tangible_work(w: &mut World) {
    w.exec("=tw", TANGIBLE_WORK).unwrap();
    for i in 0..25 {
        w.tick();
        if i % 5 == 0 {
            w.exec("=tw2", "for _, t in ipairs(scanradius(50, 50, 0, 30)) do destroy(t) end")
                .unwrap();
        }
    }
}

/// The tangibles' positions and the hash, as lines.
fn tangible_lines(w: &World) -> Vec<String> {
    let mut out = vec![format!("DET tangibles hash {:032x} now {}", w.state_hash(), w.now())];
    for id in w.tangible_ids() {
        let p = w.position(id).unwrap();
        out.push(format!("DET tangible {id} {:?}", p.map(f64::to_bits)));
    }
    out
}

#[test]
fn host_data_is_hashed() {
    let mut w = world("movement", Model::Master);
    let id = w.new_tangible("walker", [1.0, 2.0, 3.0]).unwrap();
    let h0 = w.state_hash();
    // A move touches only the Rust side: the Lua state is unchanged.
    w.move_to(id, [5.0, 2.0, 3.0], 4).unwrap();
    let h1 = w.state_hash();
    assert_ne!(h1, h0, "the animation queue is hashed");
    w.tick();
    assert_ne!(w.state_hash(), h1, "the clock is hashed");
    let mut other = world("movement", Model::Master);
    other.new_tangible("walker", [1.0, 2.0, 3.0]).unwrap();
    assert_eq!(other.state_hash(), h0);
    other.move_to(id, [5.0, 2.0, 3.0], 4).unwrap();
    other.tick();
    assert_eq!(other.state_hash(), w.state_hash());
}

#[test]
fn tangible_rollback_is_exact() {
    let mut w = world("movement", Model::Master);
    w.exec("=setup", "for i = 1, 50 do moveto(newtangible(walker, i, i, 0), 0, 0, 0, i) end")
        .unwrap();
    w.tick();
    let (h0, heap0, t0) = (w.state_hash(), w.state().heap_hash(), w.tangibles().clone());
    let s = w.snapshot().unwrap();
    for round in 0..3 {
        tangible_work(&mut w);
        assert_ne!(w.state_hash(), h0, "round {round}: the work changed the state");
        assert!(w.tangibles_consistent());
        w.rollback(&s).unwrap();
        assert_eq!(w.state_hash(), h0, "round {round}: rollback");
        assert_eq!(w.state().heap_hash(), heap0, "round {round}: rollback (heap layout)");
        assert_eq!(w.tangibles(), &t0, "round {round}: the Rust side is restored");
        assert!(w.tangibles_consistent());
        // Only-Rust-side changes are rolled back too.
        w.tick();
        w.move_to(7, [9.0, 9.0, 9.0], 0).unwrap();
        assert!(w.destroy_tangible(8));
        w.rollback(&s).unwrap();
        assert_eq!(w.state_hash(), h0);
        assert_eq!(w.position(8), Some([8.0 - 1.0 * 8.0 / 8.0, 7.0, 0.0]));
    }
    w.release(s).unwrap();
    assert_eq!(w.state_hash(), h0);
}

#[test]
fn same_tangible_calls_same_hash() {
    let mut a = world("movement", Model::Master);
    let mut b = world("movement", Model::Master);
    tangible_work(&mut a);
    assert_ne!(a.state_hash(), b.state_hash());
    tangible_work(&mut b);
    assert_eq!(tangible_lines(&a), tangible_lines(&b));
    a.tick();
    assert_ne!(a.state_hash(), b.state_hash());
    b.tick();
    assert_eq!(a.state_hash(), b.state_hash());
    // Save and restore in this process: same hash, same positions, same
    // behaviour afterwards.
    let mut r = World::restore(Model::Master, &a.save().unwrap()).unwrap();
    assert_eq!(tangible_lines(&r), tangible_lines(&a));
    assert_eq!(r.tangibles(), a.tangibles(), "the index is rebuilt exactly");
    tangible_work(&mut r);
    tangible_work(&mut a);
    assert_eq!(tangible_lines(&r), tangible_lines(&a));
}

#[test]
fn tangible_save_restores_in_a_child_process() {
    if let Some(path) = std::env::var_os("LUPREX_ENGINE_RESTORE_FILE") {
        let bytes = std::fs::read(path).unwrap();
        let mut w = World::restore(Model::Master, &bytes).unwrap();
        assert!(w.tangibles_consistent());
        tangible_lines(&w).iter().for_each(|l| println!("{l}"));
        w.tick();
        tangible_lines(&w).iter().for_each(|l| println!("AFTER {l}"));
        return;
    }
    let mut w = world("movement", Model::Master);
    tangible_work(&mut w);
    let path = std::env::temp_dir().join(format!("luprex-engine-save-{}", std::process::id()));
    std::fs::write(&path, w.save().unwrap()).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["tangible_save_restores_in_a_child_process", "--exact", "--nocapture"])
        .args(["--test-threads=1"])
        .env("LUPREX_ENGINE_RESTORE_FILE", &path)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let child: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.find("DET ").filter(|&i| !l[..i].ends_with("AFTER ")).map(|i| &l[i..]))
        .collect();
    let after: Vec<&str> =
        stdout.lines().filter_map(|l| l.find("AFTER ").map(|i| &l[i + 6..])).collect();
    let here = tangible_lines(&w);
    assert!(here.len() > 50, "a world with many tangibles");
    assert_eq!(child, here);
    w.tick();
    assert_eq!(after, tangible_lines(&w), "the restored world goes on the same way");
}

#[test]
fn id_pool_predictions_match_the_master() {
    let mut m = world("movement", Model::Master);
    let p = m.new_tangible("walker", [0.0; 3]).unwrap();
    assert!(m.make_player(p).unwrap());
    let q = m.new_tangible("walker", [1.0; 3]).unwrap();
    // The client's synchronous model, as difference transmission will
    // make it: the same tangibles, the player's pool as the master has it.
    let mut c = world("movement", Model::ClientSync);
    c.insert_tangible(p, "walker", [0.0; 3]).unwrap();
    c.insert_tangible(q, "walker", [1.0; 3]).unwrap();
    assert!(c.insert_tangible(q, "walker", [1.0; 3]).is_err(), "ids are unique");
    assert!(c.set_pool(p, m.tangibles().get(p).unwrap().pool.clone()));
    assert!(c.exec("=cmd", "newtangible(walker, 0, 0, 0)").is_err(), "no actor, no ids");
    let cmd = "local ids = {} for i = 1, 300 do ids[i] = getid(newtangible(walker, i, 0, 0)) end \
               return table.concat(ids, ',')";
    // Predicted on the client under a snapshot, then run on the master.
    let s = c.snapshot().unwrap();
    assert!(c.set_actor(Some(p)));
    let predicted = c.exec("=cmd", cmd).unwrap()[0];
    let predicted = String::from_utf8_lossy(c.state().str_bytes(match predicted {
        luprex_engine::raw::Value::Str(s) => s,
        v => panic!("{v:?}"),
    }))
    .into_owned();
    c.rollback(&s).unwrap();
    // Meanwhile the master creates tangibles for nobody in particular.
    m.exec("=other", "for i = 1, 10 do newtangible(walker, 0, 0, 0) end").unwrap();
    assert!(m.set_actor(Some(p)));
    let Some(luprex_engine::raw::Value::Str(real)) = m.exec("=cmd", cmd).unwrap().first().copied()
    else {
        panic!("no result")
    };
    assert_eq!(String::from_utf8_lossy(m.state().str_bytes(real)), predicted);
    let ids: Vec<u64> = predicted.split(',').map(|s| s.parse().unwrap()).collect();
    assert_eq!(ids.len(), 300);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // The master refilled the pool; IDs stay unique world-wide.
    let pool = m.tangibles().get(p).unwrap().pool.clone().unwrap();
    assert!(pool.available() >= luprex_engine::tangible::POOL_BLOCK);
    m.set_actor(None);
    let next = m.new_tangible("walker", [0.0; 3]).unwrap();
    assert!(!ids.contains(&next));
    let mut all = m.tangible_ids();
    all.dedup();
    assert_eq!(all.len(), m.tangibles().len());
}

#[test]
fn scanradius_matches_brute_force() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for world_no in 0..4 {
        let mut w = World::new(Model::Master).unwrap();
        w.load_sources(&[SourceFile::new("c.lua", "maketangible('thing')")]).unwrap();
        let spread = [20.0, 100.0, 1000.0, 5.0][world_no];
        let n = 300;
        for _ in 0..n {
            let p = [
                rng.float(-spread, spread),
                rng.float(-spread, spread),
                rng.float(-spread, spread) * 0.1,
            ];
            w.new_tangible("thing", p).unwrap();
        }
        for round in 0..30 {
            // Some start moving: short hops, long journeys (the wide list).
            for _ in 0..20 {
                let id = 1 + rng.next() % n;
                if w.position(id).is_none() {
                    continue;
                }
                let far = if rng.next().is_multiple_of(4) { 50.0 } else { 1.0 };
                let p = [0, 1, 2].map(|_| rng.float(-spread * far, spread * far));
                w.move_to(id, p, (rng.next() % 12) as i64).unwrap();
            }
            if round % 7 == 3 {
                let id = 1 + rng.next() % n;
                w.destroy_tangible(id);
            }
            for _ in 0..(rng.next() % 4) {
                w.tick();
            }
            assert!(w.tangibles_consistent());
            for _ in 0..10 {
                let c = [0, 1, 2].map(|_| rng.float(-spread * 1.5, spread * 1.5));
                let r = match rng.next() % 4 {
                    0 => 0.0,
                    1 => rng.float(0.0, 5.0),
                    2 => rng.float(0.0, spread),
                    _ => rng.float(0.0, spread * 100.0),
                };
                let want: Vec<u64> = w
                    .tangible_ids()
                    .into_iter()
                    .filter(|&id| {
                        let p = w.position(id).unwrap();
                        let d = [0, 1, 2].map(|k| p[k] - c[k]);
                        d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= r * r
                    })
                    .collect();
                assert_eq!(
                    w.scan_radius(c, r),
                    want,
                    "world {world_no} round {round} c {c:?} r {r}"
                );
                // A tangible's own point is found at radius 0.
                let id = w.tangible_ids()[rng.next() as usize % w.tangibles().len()];
                let p = w.position(id).unwrap();
                assert!(w.scan_radius(p, 0.0).contains(&id));
            }
        }
    }
}

/// Random tangible operations on `w` (create, move, destroy, tick,
/// players and actors).
fn random_ops(w: &mut World, rng: &mut Rng, n: usize) {
    for _ in 0..n {
        let ids = w.tangible_ids();
        let pick = |rng: &mut Rng| ids.get(rng.next() as usize % ids.len().max(1)).copied();
        match rng.next() % 8 {
            0 | 1 => {
                let p = [0, 1, 2].map(|_| rng.float(-100.0, 100.0));
                w.new_tangible("walker", p).unwrap();
            }
            2 | 3 => {
                if let Some(id) = pick(rng) {
                    let far = if rng.next().is_multiple_of(5) { 100.0 } else { 1.0 };
                    let p = [0, 1, 2].map(|_| rng.float(-50.0, 50.0) * far);
                    w.move_to(id, p, (rng.next() % 10) as i64).unwrap();
                }
            }
            4 => {
                if let Some(id) = pick(rng) {
                    w.destroy_tangible(id);
                }
            }
            5 => w.tick(),
            6 => {
                if let Some(id) = pick(rng) {
                    if w.make_player(id).unwrap() {
                        assert!(w.set_actor(Some(id)));
                    }
                }
            }
            _ => {
                w.set_actor(None);
            }
        }
    }
}

#[test]
fn nested_snapshots_of_tangibles() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut w = world("movement", Model::Master);
    random_ops(&mut w, &mut rng, 200);
    for round in 0..20 {
        let at0 = (w.state_hash(), w.tangibles().clone());
        let s0 = w.snapshot().unwrap();
        random_ops(&mut w, &mut rng, 50);
        let at1 = (w.state_hash(), w.tangibles().clone());
        let s1 = w.snapshot().unwrap();
        random_ops(&mut w, &mut rng, 50);
        match round % 3 {
            0 => {
                w.rollback(&s1).unwrap();
                assert_eq!((w.state_hash(), w.tangibles().clone()), at1, "round {round}");
                random_ops(&mut w, &mut rng, 30);
                w.rollback(&s0).unwrap();
                assert_eq!((w.state_hash(), w.tangibles().clone()), at0, "round {round}");
            }
            1 => {
                w.release(s1).unwrap();
                w.rollback(&s0).unwrap();
                assert_eq!((w.state_hash(), w.tangibles().clone()), at0, "round {round}");
            }
            _ => {
                // Rolling back the outer level discards the inner one.
                w.rollback(&s0).unwrap();
                assert_eq!((w.state_hash(), w.tangibles().clone()), at0, "round {round}");
                random_ops(&mut w, &mut rng, 30);
            }
        }
        assert!(w.tangibles_consistent(), "round {round}");
        if round % 2 == 0 {
            w.rollback(&s0).unwrap();
            assert_eq!(w.tangibles(), &at0.1);
        }
        w.release(s0).unwrap();
        assert_eq!(w.tangibles().journal_len(), 0, "the journal empties with the last level");
        random_ops(&mut w, &mut rng, 20);
    }
    assert!(w.tangibles().len() > 20);
}

// ---------------------------------------------------------------------
// Threads: the schedule and the thread tables are world state.
// ---------------------------------------------------------------------

use luprex_engine::Plain;

/// A master of the threads scenario with sleepers 1..=3 and player 4.
fn threads_world() -> World {
    let mut w = world("threads", Model::Master);
    for i in 0..4 {
        w.new_tangible("sleeper", [i as f64, 0.0, 0.0]).unwrap();
    }
    assert!(w.make_player(4).unwrap());
    w
}

/// Commands and ticks with threads sleeping, forking, failing, asking.
fn thread_work(w: &mut World, round: i64) {
    let s = |x: &str| Plain::Str(x.into());
    for i in 0..5 {
        let t = 1 + (i + round) as u64 % 3;
        w.invoke(4, t, "nap", &[s(&format!("n{i}")), Plain::Int(i % 3), Plain::Int(3)]).unwrap();
        w.tick();
        if i == 2 {
            w.invoke(4, t, "spawn_tangible", &[]).unwrap();
            w.invoke(4, t, "ask", &[]).unwrap();
        }
    }
    for r in w.take_requests() {
        w.answer(&r, &[Plain::Int(round)]).unwrap();
    }
    w.invoke(4, 2, "forever", &[]).unwrap();
    w.invoke(4, 3, "nap", &[s("long"), Plain::Int(10), Plain::Int(3)]).unwrap();
    for _ in 0..4 {
        w.tick();
    }
    w.take_thread_reports();
}

#[test]
fn thread_rollback_is_exact() {
    let mut w = threads_world();
    w.set_limits(luprex_engine::WorldLimits { per_run: 50_000, ..Default::default() });
    thread_work(&mut w, 0);
    assert!(!w.tangibles().schedule().is_empty(), "threads sleep across the snapshot");
    let (h0, heap0) = (w.state_hash(), w.state().heap_hash());
    let s = w.snapshot().unwrap();
    for round in 1..4 {
        thread_work(&mut w, round);
        assert_ne!(w.state_hash(), h0);
        w.rollback(&s).unwrap();
        assert_eq!(w.state_hash(), h0, "round {round}");
        assert_eq!(w.state().heap_hash(), heap0, "round {round} (heap layout)");
        assert!(w.threads_consistent() && w.tangibles_consistent());
    }
    w.release(s).unwrap();
    assert_eq!(w.tangibles().journal_len(), 0);
}

#[test]
fn master_and_replica_agree() {
    let mut m = threads_world();
    m.set_limits(luprex_engine::WorldLimits { per_run: 50_000, ..Default::default() });
    thread_work(&mut m, 0);
    let mut r = World::restore(Model::Master, &m.save().unwrap()).unwrap();
    r.set_limits(m.limits());
    assert_eq!(r.state_hash(), m.state_hash());
    m.take_prints(4);
    for round in 1..4 {
        thread_work(&mut m, round);
        thread_work(&mut r, round);
        assert_eq!(r.state_hash(), m.state_hash(), "round {round}");
        assert_eq!(r.take_prints(4), m.take_prints(4));
    }
    // The two synchronous models of one client, fed the same commands.
    let pool = m.tangibles().get(4).unwrap().pool.clone();
    let mut twins = [Model::ServerSync, Model::ClientSync].map(|model| {
        let mut w = world("threads", model);
        for id in 1..=4 {
            w.insert_tangible(id, "sleeper", [0.0; 3]).unwrap();
        }
        assert!(w.set_pool(4, pool.clone()));
        w
    });
    for w in &mut twins {
        for i in 0..6 {
            w.invoke(4, 1 + i % 3, "who", &[]).unwrap();
            w.tick();
        }
        w.invoke(4, 1, "ask", &[]).unwrap();
        assert_eq!(w.take_thread_reports().len(), 1, "NoPredict");
        w.invoke(4, 2, "who", &[]).unwrap();
        assert_eq!(w.tangibles().schedule().len(), 1, "a command sleeps");
    }
    assert_eq!(twins[0].state_hash(), twins[1].state_hash());
    assert_eq!(twins[0].take_prints(4), twins[1].take_prints(4));
}

/// The cached special set is always the set computed afresh: across
/// tangibles made and destroyed (by the host and by scripts), new classes,
/// collections (handles reused), snapshots and rollbacks.
#[test]
fn special_set_cache_is_exact() {
    let mut w = world("movement", Model::Master);
    let same = |w: &mut World, what: &str| {
        let cached = format!("{:?}", w.special_set());
        assert_eq!(cached, format!("{:?}", w.compute_special_set()), "{what}");
        assert_eq!(format!("{:?}", w.special_set()), cached, "{what} (cache hit)");
    };
    same(&mut w, "start");
    let mut ids = Vec::new();
    for i in 0..20 {
        ids.push(w.new_tangible("walker", [i as f64, 0.0, 0.0]).unwrap());
    }
    same(&mut w, "created");
    let s = w.snapshot().unwrap();
    for id in ids.drain(..10) {
        assert!(w.destroy_tangible(id));
    }
    w.exec("=t", "for i = 1, 5 do newtangible('walker', i, 1, 0) end makeclass('late')").unwrap();
    w.exec("=t", "collectgarbage() for i = 1, 200 do local t = {i} end").unwrap();
    same(&mut w, "destroyed, made by a script, a new class, collected");
    w.rollback(&s).unwrap();
    same(&mut w, "rolled back");
    w.release(s).unwrap();
    w.exec("=t", "makeclass('later')").unwrap();
    same(&mut w, "only a new class");
    w.exec("=t", &format!("destroy(gettangible({}))", ids[0])).unwrap();
    w.exec("=t", "collectgarbage()").unwrap();
    same(&mut w, "destroyed by a script");
}
