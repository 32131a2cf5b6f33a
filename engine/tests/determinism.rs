//! Determinism of Worlds: the same scripts and the same calls give the
//! same state hash, in this process and in a child process; a snapshot,
//! changes and a rollback give back exactly the prior state hash; a save
//! and restore keeps it.

use luprex_engine::{Model, SourceFile, World};
use std::path::{Path, PathBuf};
use std::process::Command;

const SCENARIOS: &[&str] = &["classes", "globals_guard", "reload", "global_db", "init_once"];

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
    if std::env::var_os("LUPREX_ENGINE_DET_CHILD").is_some() {
        here.iter().for_each(|l| println!("{l}"));
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["cross_process_hashes_agree", "--exact", "--nocapture", "--test-threads=1"])
        .env("LUPREX_ENGINE_DET_CHILD", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    let child: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.find("DET ").map(|i| l[i..].to_owned()))
        .collect();
    assert_eq!(child.len(), SCENARIOS.len() * 3);
    assert_eq!(child, here);
}
