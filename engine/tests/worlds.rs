//! Scenario tests: each directory of `tests/worlds/` is a script
//! directory (`control.lst` and Lua files) whose files assert their own
//! expectations; the Rust test of the same name loads it into Worlds,
//! drives the steps the scenario needs (reloads, edits, other models) and
//! calls the scenario's `check` class.

use luprex_engine::raw::Value;
use luprex_engine::{LoadReport, Model, ReportKind, World};
use std::path::{Path, PathBuf};

fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worlds").join(name)
}

/// A World of `model` loaded from scenario `name`, with no load report.
fn load(model: Model, name: &str) -> World {
    let mut w = World::from_dir(model, scenario(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reports = w.take_reports();
    assert!(reports.is_empty(), "{name}: {reports:#?}");
    w
}

/// `check.<f>()` must succeed; returns its first result as a string.
fn check(w: &mut World, f: &str) -> String {
    let r = w.call("check", f, &[]).unwrap_or_else(|e| panic!("check.{f}: {e}\n{}", e.traceback()));
    match r.first() {
        Some(Value::Str(s)) => String::from_utf8_lossy(w.state().str_bytes(*s)).into_owned(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A scratch copy of scenario `name`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("luprex-engine-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(scenario(name)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        Scratch(dir)
    }

    /// Writes file `name` with a modification time distinct from any
    /// earlier write (so its fingerprint changes even on a coarse clock).
    fn write(&self, name: &str, text: &str) {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000);
        let old = std::fs::metadata(&p).unwrap().modified().unwrap();
        f.set_modified(if old == t { t + std::time::Duration::from_secs(1) } else { t }).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn only(reports: &[LoadReport], kind: ReportKind) -> Vec<&LoadReport> {
    reports.iter().filter(|r| r.kind == kind).collect()
}

#[test]
fn classes() {
    let mut w = load(Model::Master, "classes");
    assert_eq!(
        check(&mut w, "order"),
        "furnace,torch,lamp,long_class_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,check"
    );
    check(&mut w, "remember");
    w.rebuild().unwrap();
    assert!(w.take_reports().is_empty());
    assert_eq!(check(&mut w, "same"), "true");
    assert_eq!(
        check(&mut w, "order"),
        "furnace,torch,lamp,long_class_name_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx,check"
    );
    assert_eq!(w.take_output(), "");
}

#[test]
fn globals_guard() {
    let mut w = World::from_dir(Model::Master, scenario("globals_guard")).unwrap();
    let reports = w.take_reports();
    let run = only(&reports, ReportKind::Run);
    assert_eq!(run.len(), 1, "{reports:#?}");
    assert_eq!(run[0].file, "assign.lua");
    assert_eq!(run[0].line, Some(3));
    assert!(
        run[0]
            .message
            .starts_with("assign.lua:3: cannot assign global 'counter': globals hold classes only"),
        "{}",
        run[0].message
    );
    assert!(run[0].traceback.contains("stack traceback:"), "{}", run[0].traceback);
    assert!(run[0].traceback.contains("assign.lua:3:"), "{}", run[0].traceback);
    let env = only(&reports, ReportKind::Environment);
    let mut names: Vec<&str> = env.iter().map(|r| r.file.as_str()).collect();
    names.sort();
    assert_eq!(names, ["stray", "victim"], "{reports:#?}");
    assert_eq!(reports.len(), 3, "{reports:#?}");
    assert_eq!(check(&mut w, "env"), "guarded,partial,victim,check");

    // From the host, too: errors carry chunk:line: and a traceback.
    let e = w.exec("=host", "local a = 1\nnewglobal = a").unwrap_err();
    assert!(e.to_string().starts_with("host:2: cannot assign global 'newglobal'"), "{e}");
    assert!(e.traceback().contains("stack traceback:"), "{}", e.traceback());
    assert_eq!(w.exec("=host", "return nothing_here == nil").unwrap().len(), 1);

    // A stray value written between rebuilds is reported by the next one.
    w.exec("=host", "rawset(_G, 'late_stray', 1)").unwrap();
    w.rebuild().unwrap();
    let reports = w.take_reports();
    let env = only(&reports, ReportKind::Environment);
    let names: Vec<&str> = env.iter().map(|r| r.file.as_str()).collect();
    assert_eq!(names, ["late_stray", "victim", "stray"], "{reports:#?}");
    assert!(env[0].message.starts_with("global 'late_stray' held a number that is not its class"));
    assert_eq!(check(&mut w, "env"), "guarded,partial,victim,check");
}

#[test]
fn reload() {
    let dir = Scratch::new("reload", "reload");
    let mut w = load(Model::Master, dir.0.to_str().unwrap());
    assert_eq!(check(&mut w, "before"), "ok");
    let reads = |w: &World, f: &str| w.script_dir().unwrap().reads_of(f);
    assert_eq!(reads(&w, "stable.lua"), 1);

    // Edit furnace.lua, add a new file and one with a syntax error at line
    // 3, drop extra.lua and list a file that does not exist.
    dir.write(
        "furnace.lua",
        "makeclass(\"furnace\")\nfunction furnace.heat() return \"version 2\" end\n\
         function furnace.cool() return \"cooled\" end\n",
    );
    dir.write("late.lua", "makeclass(\"late\")\nfunction late.added() return true end\n");
    dir.write("broken.lua", "makeclass(\"broken\")\nlocal x = 1\nlocal = 2\n");
    dir.write(
        "control.lst",
        "furnace.lua\nstore.lua\nbroken.lua\nstable.lua\n\n# comment\nmissing.lua\nlate.lua\ncheck.lua\n",
    );
    let before = w.script_dir().unwrap().read_log().len();
    w.reload().unwrap();
    let reports = w.take_reports();
    assert_eq!(reports.len(), 2, "{reports:#?}");
    let syntax = only(&reports, ReportKind::Syntax);
    assert_eq!(syntax.len(), 1, "{reports:#?}");
    assert_eq!(syntax[0].file, "broken.lua");
    assert_eq!(syntax[0].line, Some(3));
    assert!(syntax[0].message.starts_with("broken.lua:3: "), "{}", syntax[0].message);
    let read = only(&reports, ReportKind::Read);
    assert_eq!(read.len(), 1, "{reports:#?}");
    assert_eq!((read[0].file.as_str(), read[0].line), ("missing.lua", Some(7)));
    assert!(read[0].message.starts_with("control.lst:7: cannot read 'missing.lua': "));

    assert_eq!(check(&mut w, "after"), "ok");
    // Only the changed and new files were read.
    let mut log = w.script_dir().unwrap().read_log()[before..].to_vec();
    log.sort();
    assert_eq!(log, ["broken.lua", "furnace.lua", "late.lua"]);
    assert_eq!(reads(&w, "stable.lua"), 1);
    assert_eq!(reads(&w, "store.lua"), 1);

    // A reload with nothing changed reads nothing and changes nothing.
    let h = w.state_hash();
    let n = w.script_dir().unwrap().read_log().len();
    w.reload().unwrap();
    assert_eq!(w.script_dir().unwrap().read_log().len(), n);
    assert_eq!(w.take_reports().len(), 2, "the same two problems are reported again");
    // store.lua ran once more: loads is 3; everything else is as before.
    assert_ne!(w.state_hash(), h);
    w.exec("=t", "assert(global('store').loads == 3)").unwrap();

    // Fixing the broken file: it is read again and loads.
    dir.write("broken.lua", "makeclass(\"broken\")\nfunction broken.fine() return 1 end\n");
    w.reload().unwrap();
    let reports = w.take_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    w.exec("=t", "assert(broken.fine() == 1)").unwrap();
}

#[test]
fn global_db() {
    let mut m = load(Model::Master, "global_db");
    assert_eq!(check(&mut m, "master"), "ok");
    let mut ss = load(Model::ServerSync, "global_db");
    let mut cs = load(Model::ClientSync, "global_db");
    assert_eq!(ss.state_hash(), cs.state_hash(), "the two synchronous models are twins");
    assert_ne!(ss.state_hash(), m.state_hash());
    assert_eq!(check(&mut ss, "sync"), "ok");
    assert_eq!(check(&mut cs, "sync"), "ok");
    assert_eq!(ss.state_hash(), cs.state_hash());

    // global() at the top level of a file loads in every model; using
    // the table there fails in a synchronous model (reported, with file
    // and line) and works in the master; default() on the placeholder is
    // a no-op, so the initialisation idiom loads everywhere.
    let src = |code: &str| vec![luprex_engine::SourceFile::new("top.lua", code)];
    let code = "makeclass('top')\nlocal db = global('db')\ndefault(db, 'n', 1)\n\
                function top.f() end\nlocal n = db.n\n";
    let mut cs = World::new(Model::ClientSync).unwrap();
    cs.load_sources(&src(code)).unwrap();
    let r = cs.take_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!((r[0].kind, r[0].line), (ReportKind::Run, Some(5)));
    assert!(r[0]
        .message
        .starts_with("top.lua:5: global('db'): global data exists only on the master"));
    cs.exec("=t", "assert(top.f)").unwrap();
    let mut m = World::new(Model::Master).unwrap();
    m.load_sources(&src(code)).unwrap();
    assert!(m.take_reports().is_empty());
}

/// A command that uses global data in a synchronous model is a NoPredict,
/// even if the script catches the error; in the master it runs.
#[test]
fn global_data_is_nopredict() {
    let code = r#"local bank = maketangible("bank")
local accounts = global("accounts")
function bank.deposit(self, n)
  pcall(function() accounts.ann = (accounts.ann or 0) + n end)
  print("after")
  return accounts.ann
end
permit_invoke(bank, "deposit")
"#;
    let src = vec![luprex_engine::SourceFile::new("bank.lua", code)];
    let mut hashes = Vec::new();
    for model in [Model::Master, Model::ServerSync, Model::ClientSync] {
        let mut w = World::new(model).unwrap();
        w.load_sources(&src).unwrap();
        assert!(w.take_reports().is_empty());
        w.insert_tangible(1, "bank", [0.0; 3]).unwrap();
        w.insert_tangible(2, "bank", [0.0; 3]).unwrap();
        let pool = luprex_engine::IdPlayerPool::from_blocks(vec![(100, 200)]).unwrap();
        assert!(w.set_pool(2, Some(pool)));
        let before = w.state_hash();
        w.invoke(2, 1, "deposit", &[Plain::Int(5)]).unwrap();
        let reports = w.take_thread_reports();
        if model == Model::Master {
            assert!(reports.is_empty(), "{reports:#?}");
            assert_eq!(w.take_prints(2), "after\n5\n");
        } else {
            assert_eq!(reports.len(), 1, "{reports:#?}");
            assert_eq!(reports[0].kind, ThreadReportKind::NoPredict);
            assert!(reports[0].message.contains("global('accounts')"), "{}", reports[0].message);
            assert_eq!(w.take_prints(2), "after\n", "the thread ran on, then was killed");
            assert_ne!(w.state_hash(), before);
            hashes.push(w.state_hash());
        }
    }
    assert_eq!(hashes[0], hashes[1], "ServerSync and ClientSync stay twins");
}

#[test]
fn init_once() {
    let mut m = World::from_dir(Model::Master, scenario("init_once")).unwrap();
    let reports = m.take_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    assert_eq!(reports[0].kind, ReportKind::Init);
    assert_eq!((reports[0].file.as_str(), reports[0].line), ("alpha.lua", Some(15)));
    assert!(reports[0].message.starts_with("alpha.lua:15: faulty init"));
    assert_eq!(m.take_output(), "init zeta\ninit alpha\n");
    assert_eq!(check(&mut m, "order"), "zeta,alpha");
    assert!(m.started());

    // Not on reload, not on a second start, not after a save and restore.
    m.reload().unwrap();
    m.start().unwrap();
    assert!(m.take_reports().is_empty());
    assert_eq!(check(&mut m, "order"), "zeta,alpha");
    let mut r = World::restore(Model::Master, &m.save().unwrap()).unwrap();
    assert_eq!(r.state_hash(), m.state_hash());
    r.start().unwrap();
    assert_eq!(check(&mut r, "order"), "zeta,alpha");
    assert_eq!(m.take_output() + &r.take_output(), "");

    // Never in a synchronous model.
    let mut c = World::from_dir(Model::ClientSync, scenario("init_once")).unwrap();
    c.start().unwrap();
    assert!(c.take_reports().is_empty());
    assert!(!c.started());
    assert_eq!(c.take_output(), "");

    // A master made without start() has not run init either.
    let mut fresh = World::new(Model::Master).unwrap();
    fresh.load_dir(luprex_engine::ScriptDir::new(scenario("init_once"))).unwrap();
    assert_eq!(fresh.take_output(), "");
    fresh.start().unwrap();
    assert_eq!(fresh.take_output(), "init zeta\ninit alpha\n");
}

#[test]
fn source_database() {
    let dir = Scratch::new("reload", "sourcedb");
    let mut w = load(Model::Master, dir.0.to_str().unwrap());
    let sources = w.sources();
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["furnace.lua", "store.lua", "stable.lua", "extra.lua", "check.lua"]);
    let d = w.script_dir().unwrap();
    for (i, s) in sources.iter().enumerate() {
        assert_eq!(s.sequence, i as i64 + 1);
        let code = std::fs::read(dir.0.join(&s.name)).unwrap();
        assert_eq!(s.code, code);
        assert_eq!(s.hash, format!("{:032x}", luprex_engine::code_hash(&code)));
        assert_eq!(s.fingerprint, d.fingerprint(&s.name).unwrap().to_hex());
        assert_eq!(s.loadresult, Ok(()));
    }
    // A syntax error is stored as the loadresult; reordering control.lst
    // changes the sequence numbers without reading anything again.
    dir.write("stable.lua", "makeclass('stable')\nfunction stable.f(\n");
    dir.write("control.lst", "check.lua\nstable.lua\nfurnace.lua\n");
    let n = w.script_dir().unwrap().read_log().len();
    w.reload().unwrap();
    assert_eq!(w.script_dir().unwrap().read_log()[n..], ["stable.lua".to_owned()]);
    let sources = w.sources();
    let names: Vec<(&str, i64)> = sources.iter().map(|s| (s.name.as_str(), s.sequence)).collect();
    assert_eq!(names, [("check.lua", 1), ("stable.lua", 2), ("furnace.lua", 3)]);
    let err = sources[1].loadresult.clone().unwrap_err();
    assert!(err.starts_with("stable.lua:3: "), "{err}");
    let r = w.take_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!((r[0].kind, r[0].line, r[0].message.clone()), (ReportKind::Syntax, Some(3), err));
}

/// The examples of docs/SCRIPTING.md run as written.
#[test]
fn manual_examples() {
    let files = [
        luprex_engine::SourceFile::new(
            "furnace.lua",
            r#"local furnace = makeclass("furnace")
function furnace.new(fuel) return setmetatable({fuel = fuel}, furnace) end
function furnace:burn() self.fuel = self.fuel - 1 end
function furnace:__tostring() return "furnace(" .. self.fuel .. ")" end

local f = furnace.new(10)
f:burn()
print(f, f.__class)          --> furnace(9)   furnace
assert(makeclass("furnace") == furnace and furnace.burn)

local torch = maketangible("torch")
function torch.action.light(self) self.lit = true end
assert(maketangible("torch").action.light)

local users = global("user database")
local hashed = default(users, "hashed_passwords", {})  -- the same table at every reload
default(users, "next_id", 1)
assert(users.hashed_passwords == hashed and users.next_id == 1)

makeclass("calendar")
function calendar.init(self)
  local c = global("calendar")
  c.day = (c.day or 0) + 1
end
"#,
        ),
        luprex_engine::SourceFile::new(
            "bank.lua",
            r#"makeclass("bank")
function bank.deposit(who, amount)
  local accounts = global("accounts")
  accounts[who] = (accounts[who] or 0) + amount
  return accounts[who]
end
function bank.set_rate(r) global.set("interest rate", r) end   -- master
function bank.rate() return global.get("interest rate") or 0 end  -- anywhere
"#,
        ),
    ];
    let mut w = World::new(Model::Master).unwrap();
    w.load_sources(&files).unwrap();
    w.start().unwrap();
    w.rebuild().unwrap();
    assert!(w.take_reports().is_empty());
    assert_eq!(w.take_output(), "furnace(9)\tfurnace\nfurnace(9)\tfurnace\n");
    w.exec(
        "=t",
        "assert(bank.deposit('ann', 3) == 3 and bank.rate() == 0)
         bank.set_rate(5) assert(bank.rate() == 5)
         assert(global('calendar').day == 1)",
    )
    .unwrap();
}

/// Ticks world `w` until its clock reads `t`.
fn tick_to(w: &mut World, t: i64) {
    while w.now() < t {
        w.tick();
    }
    assert_eq!(w.now(), t);
}

#[test]
fn tangibles() {
    let mut w = load(Model::Master, "tangibles");
    assert_eq!(check(&mut w, "create"), "1,2");
    assert_eq!(w.tangible_ids(), [1, 2]);
    assert_eq!(w.position(1), Some([1.0, 2.0, 3.0]));
    assert_eq!(w.position(2), Some([-1.0, 0.5, 0.0]));
    assert_eq!(check(&mut w, "protected"), "true");
    assert_eq!(check(&mut w, "setclass"), "true");
    assert_eq!(check(&mut w, "errors"), "true");
    // The Lua tangible from the host side, and the protected metatable's
    // contents: __id, __index, __metatable, threads.
    let t = w.tangible(1).unwrap();
    assert_eq!(w.tangible_id(Value::Table(t)), Some(1));
    let r = w
        .exec(
            "=host",
            "local t = gettangible(1) local n = 0 for k in pairs(t) do n = n + 1 end return n",
        )
        .unwrap();
    assert!(
        matches!(r[0], Value::Int(5)),
        "the script's five keys (lit, __id, __index, threads, 1), nothing else"
    );
    assert!(w.tangibles_consistent());

    // A class rebuild keeps the tangibles and their classes.
    let h = w.tangibles().clone();
    w.rebuild().unwrap();
    assert!(w.take_reports().is_empty());
    assert_eq!(w.tangibles(), &h);
    w.exec("=host", "assert(gettangible(1):light() == 'lit 1')").unwrap();

    assert_eq!(check(&mut w, "destroy"), "3");
    assert_eq!(w.tangible_ids(), [2, 3]);
    assert_eq!(w.tangible(1), None);
    assert_eq!(w.position(1), None);
    assert!(!w.destroy_tangible(1));
    assert!(w.tangibles_consistent());

    // The host API: create, class, move, destroy.
    let id = w.new_tangible("lamp", [0.0, 0.0, 0.0]).unwrap();
    assert_eq!(id, 4);
    assert!(w.new_tangible("dragon", [0.0; 3]).unwrap_err().to_string().contains("no class"));
    w.set_class(id, "torch").unwrap();
    w.exec("=host", "assert(gettangible(4):light() == 'lit 4')").unwrap();
    w.move_to(id, [3.0, 4.0, 0.0], 2).unwrap();
    w.tick();
    assert_eq!(w.position(id), Some([1.5, 2.0, 0.0]));
    assert_eq!(w.scan_radius([0.0; 3], 2.5), [2, 3, 4]);
    assert!(w.destroy_tangible(id));
    assert_eq!(w.scan_radius([0.0; 3], 2.5), [2, 3]);
    assert_eq!(w.scan_radius([0.0; 3], 1.0), [3]);
    assert!(w.tangibles_consistent());

    // The special set marks the environment, the registry, the classes and
    // the tangibles, and not the script's own tables.
    let special = w.special_set();
    let st = w.state();
    assert!(special.contains(st.globals()) && special.contains(st.registry()));
    let mut w2 = w;
    for id in [2, 3] {
        let t = w2.tangible(id).unwrap();
        assert!(special.contains(t));
    }
    let r = w2.exec("=host", "return torch, global('things')").unwrap();
    let (Value::Table(torch), Value::Table(things)) = (r[0], r[1]) else { panic!("{r:?}") };
    assert!(special.contains(torch) && !special.contains(things));
}

#[test]
fn tangibles_in_a_synchronous_model() {
    // No actor in a synchronous model: no allocator.
    let mut c = load(Model::ClientSync, "tangibles");
    let e = c.exec("=host", "newtangible(torch, 0, 0, 0)").unwrap_err();
    assert!(e.to_string().contains("no actor"), "{e}");
    assert!(c.make_player(1).is_err(), "only the master grants pools");
}

#[test]
fn movement() {
    let mut w = load(Model::Master, "movement");
    assert_eq!(check(&mut w, "start"), "true");
    let steps: Vec<i64> =
        w.tangibles().get(1).unwrap().queue.steps().iter().map(|s| s.tick).collect();
    assert_eq!(steps, [0, 10, 15]);
    tick_to(&mut w, 5);
    assert_eq!(check(&mut w, "t5"), "true");
    tick_to(&mut w, 12);
    assert_eq!(check(&mut w, "t12"), "true");
    assert_eq!(w.position(1), Some([10.0, 8.0, 0.0]));
    tick_to(&mut w, 15);
    assert_eq!(w.tangibles().get(1).unwrap().queue.steps().len(), 1, "settled on arrival");
    tick_to(&mut w, 20);
    assert_eq!(check(&mut w, "t20"), "true");
    tick_to(&mut w, 21);
    assert_eq!(check(&mut w, "t21"), "true");
    tick_to(&mut w, 30);
    assert_eq!(w.position(1), Some([10.0, 20.0, 30.0]));
    assert!(w.tangibles_consistent());
    w.exec("=host", "assert(now() == 30)").unwrap();
}

/// The examples of docs/SCRIPTING.md §3 (tangibles) run as written.
#[test]
fn manual_tangible_examples() {
    let files = [luprex_engine::SourceFile::new(
        "torch.lua",
        r#"local torch = maketangible("torch")
function torch:light() self.lit = true end

function torch.place(x, y)
  local t = newtangible(torch, x, y, 0)   -- or newtangible("torch", x, y, 0)
  t.fuel = 100                             -- script data
  t:light()
  return t
end

function torch:burn_out()
  print("torch " .. getid(self) .. " burnt out")
  destroy(self)
end

function torch:warm_neighbours()
  for _, other in ipairs(scanradius(self, 5)) do
    if other ~= self then other.warm = true end
  end
end

local lamp = maketangible("lamp")
function lamp:light() return "electric" end
"#,
    )];
    let mut w = World::new(Model::Master).unwrap();
    w.load_sources(&files).unwrap();
    assert!(w.take_reports().is_empty());
    w.exec(
        "=t",
        r#"local started = now()
        assert(started == 0)
        local t = torch.place(0, 0)
        assert(t.fuel == 100 and t.lit)
        local id = getid(t)
        assert(gettangible(id) == t)
        local near = torch.place(3, 4)
        t:warm_neighbours()
        assert(near.warm and not t.warm)
        local here = scanradius(0, 0, 0, 100)   -- everything within 100 of the origin
        assert(#here == 2 and here[1] == t and here[2] == near)
        setclass(t, "lamp")
        assert(t:light() == "electric")
        setclass(t, torch)
        -- At tick 0: walk 10 units east in 10 ticks, then 20 north in 5.
        moveto(t, 10, 0, 0, 10)
        moveto(t, 10, 20, 0, 5)
        near:burn_out()
        assert(gettangible(getid(t)) == t and #scanradius(0, 0, 0, 100) == 1)
        makeclass("probe")
        function probe.at() return table.concat({position(gettangible(1))}, " ") end"#,
    )
    .unwrap();
    assert_eq!(w.take_output(), "torch 2 burnt out\n");
    let at = |w: &mut World| {
        let r = w.call("probe", "at", &[]).unwrap();
        let luprex_engine::raw::Value::Str(s) = r[0] else { panic!("{r:?}") };
        String::from_utf8_lossy(w.state().str_bytes(s)).into_owned()
    };
    tick_to(&mut w, 5);
    assert_eq!(at(&mut w), "5.0 0.0 0.0");
    tick_to(&mut w, 12);
    assert_eq!(at(&mut w), "10.0 8.0 0.0");
    tick_to(&mut w, 15);
    assert_eq!(at(&mut w), "10.0 20.0 0.0");
    tick_to(&mut w, 40);
    assert_eq!(at(&mut w), "10.0 20.0 0.0");
}

// ---------------------------------------------------------------------
// Threads (threads.rs)
// ---------------------------------------------------------------------

use luprex_engine::{Plain, ThreadReportKind};

fn log(w: &mut World) -> String {
    check(w, "log")
}

/// A master of the threads scenario with `n` sleepers (IDs 1..=n).
fn sleepers(n: usize) -> World {
    let mut w = load(Model::Master, "threads");
    for i in 0..n {
        assert_eq!(w.new_tangible("sleeper", [i as f64, 0.0, 0.0]).unwrap(), i as u64 + 1);
    }
    w
}

fn s(x: &str) -> Plain {
    Plain::Str(x.into())
}

#[test]
fn threads() {
    let mut w = sleepers(3);
    // Sleep ordering: wakeups in (time, tid, tangible) order.
    let a = w.spawn(2, "nap", &[s("a"), Plain::Int(3), Plain::Int(2)]).unwrap();
    let b = w.spawn(1, "nap", &[s("b"), Plain::Int(2), Plain::Int(3)]).unwrap();
    let c = w.spawn(3, "nap", &[s("c"), Plain::Int(0), Plain::Int(2)]).unwrap();
    assert!(a < b && b < c, "thread ids increase");
    assert_eq!(w.threads_of(2), [a]);
    assert_eq!(log(&mut w), "", "nothing logged before the first wakeup");
    assert!(w.threads_consistent());
    let sched: Vec<_> = w.tangibles().schedule().iter().copied().collect();
    assert_eq!(sched, [(1, c, 3), (2, b, 1), (3, a, 2)], "sleep(0) is the next tick");
    for _ in 0..7 {
        w.tick();
    }
    assert_eq!(log(&mut w), "c@1,b@2,c@2,a@3,b@4,a@6,b@6");
    assert!(w.threads_of(1).is_empty() && w.threads_of(2).is_empty(), "ended threads leave");
    assert!(w.tangibles().schedule().is_empty());
    assert_eq!(w.take_output(), "", "world threads do not print their results");

    // Fork: the child runs now, in the same pass, after its parent yields.
    w.spawn(1, "forker", &[]).unwrap();
    assert_eq!(log(&mut w), "forker@7,forked integer,child xy@7");
    assert_eq!(w.threads_of(1).len(), 2);
    w.tick();
    w.tick();
    w.tick();
    assert_eq!(log(&mut w), "forker woke@8,child woke@9");

    // Many threads waking in the same tick: (time, tid, tangible) order,
    // whatever the tangible.
    let mut tids = Vec::new();
    for i in 0..12u64 {
        let tan = 3 - i % 3;
        tids.push((tan, w.spawn(tan, "wake_at", &[Plain::Int(w.now() + 2), s(&format!("w{i}"))])));
    }
    w.tick();
    assert_eq!(log(&mut w), "");
    w.tick();
    let want: Vec<String> = (0..12).map(|i| format!("w{i}")).collect();
    assert_eq!(log(&mut w), want.join(","));

    // Errors: reported with chunk:line: and a traceback; the thread is removed.
    let t = w.spawn(2, "boom", &[]).unwrap();
    w.tick();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(
        (r[0].kind, r[0].thread, r[0].tangible, r[0].actor),
        (ThreadReportKind::Error, t, 2, None)
    );
    assert!(
        r[0].message.starts_with("sleeper.lua:37: attempt to index a nil value"),
        "{}",
        r[0].message
    );
    assert!(r[0].traceback.contains("sleeper.lua:37:"), "{}", r[0].traceback);
    assert!(w.threads_of(2).is_empty());

    // Destroy kills: the threads and their wakeups go.
    w.spawn(3, "nap", &[s("z"), Plain::Int(1), Plain::Int(5)]).unwrap();
    w.spawn(3, "nap", &[s("y"), Plain::Int(1), Plain::Int(5)]).unwrap();
    w.spawn(1, "nap", &[s("x"), Plain::Int(1), Plain::Int(2)]).unwrap();
    w.tick();
    assert_eq!(log(&mut w), "z@14,y@14,x@14");
    assert!(w.destroy_tangible(3));
    assert!(w.tangibles().schedule().iter().all(|e| e.2 != 3));
    w.tick();
    w.tick();
    assert_eq!(log(&mut w), "x@15");
    // A thread that destroys its own tangible ends with it.
    let t = w.new_tangible("sleeper", [0.0; 3]).unwrap();
    w.spawn(t, "suicide", &[]).unwrap();
    assert!(w.tangible(t).is_none() && w.tangibles().schedule().is_empty());
    w.tick();
    assert_eq!(log(&mut w), "");
    assert!(w.take_thread_reports().is_empty());
    assert!(w.threads_consistent());

    // Threads outside a thread: sleep and fork are errors (not yieldable).
    let e = w.exec("=host", "sleep(1)").unwrap_err();
    assert!(e.to_string().contains("sleep: not in a world thread"), "{e}");
    let e = w.exec("=host", "fork(print)").unwrap_err();
    assert!(e.to_string().contains("fork: not in a world thread"), "{e}");
    // A bare coroutine.yield or a sleep in a nested coroutine.
    w.spawn(1, "bad_yield", &[]).unwrap();
    w.spawn(1, "nested_sleep", &[]).unwrap();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 2, "{r:#?}");
    assert!(r[0].message.contains("coroutine.yield"), "{}", r[0].message);
    assert!(
        r[1].message.contains("sleep: not in a world thread (called inside a coroutine"),
        "{}",
        r[1].message
    );

    // Save and restore with sleeping threads: they go on the same way.
    w.spawn(1, "nap", &[s("p"), Plain::Int(2), Plain::Int(2)]).unwrap();
    w.tick();
    let mut r = World::restore(Model::Master, &w.save().unwrap()).unwrap();
    assert_eq!(r.state_hash(), w.state_hash());
    for _ in 0..4 {
        w.tick();
        r.tick();
    }
    assert_eq!(log(&mut w), "p@19,p@21");
    assert_eq!(log(&mut r), "p@19,p@21");
    assert_eq!(r.state_hash(), w.state_hash());
}

/// A master with sleepers 1..=3 and player 4.
fn with_player() -> World {
    let mut w = sleepers(3);
    let p = w.new_tangible("sleeper", [0.0; 3]).unwrap();
    assert!(w.make_player(p).unwrap());
    w
}

#[test]
fn print_per_actor() {
    let mut w = with_player();
    w.invoke(4, 1, "who", &[]).unwrap();
    w.spawn(2, "who", &[]).unwrap();
    assert_eq!(w.take_prints(4), "actor\t4\n");
    assert_eq!(w.take_output(), "actor\tnone\n");
    w.tick();
    assert_eq!(w.take_prints(4), "still\t4\nresult\t42\n", "a command prints its results");
    assert_eq!(w.take_output(), "still\tnone\n");
    assert_eq!(w.take_prints(4), "");
}

#[test]
fn permit_invoke() {
    let mut w = with_player();
    let h = w.state_hash();
    let refused = |w: &mut World, actor, target, f: &str, args: &[Plain], want: &str| {
        let e = w.invoke(actor, target, f, args).unwrap_err().to_string();
        assert!(e.starts_with("invoke refused: ") && e.contains(want), "{e}");
    };
    refused(
        &mut w,
        4,
        1,
        "boom",
        &[],
        "'boom' of tangible 1's class is not marked by permit_invoke",
    );
    refused(&mut w, 4, 1, "nothing", &[], "has no function 'nothing'");
    refused(&mut w, 4, 99, "who", &[], "no tangible 99");
    refused(&mut w, 1, 2, "who", &[], "actor 1 is not a player");
    refused(&mut w, 4, 1, "nap", &[Plain::Tangible(77)], "bad argument #1: no tangible");
    refused(&mut w, 4, 1, "nap", &vec![Plain::Nil; 33], "too many arguments");
    assert_eq!(w.state_hash(), h, "a refused command changes nothing");
    assert!(w.take_thread_reports().is_empty() && w.take_prints(4).is_empty());

    // A permitted command: runs as the actor, ids from its pool.
    let pool0 = w.tangibles().get(4).unwrap().pool.clone().unwrap();
    let tid = w.invoke(4, 2, "spawn_tangible", &[]).unwrap();
    assert_eq!(tid, pool0.blocks()[0].0, "the command's thread id is the pool's first id");
    assert_eq!(w.take_prints(4), format!("{}\n", tid + 1), "then the new tangible's");
    // permit_invoke survives rebuilds (files re-grant), and a permission
    // removed from the files is gone after the next rebuild.
    w.rebuild().unwrap();
    w.invoke(4, 1, "who", &[]).unwrap();
    w.exec("=t", "permit_invoke(sleeper, 'boom')").unwrap();
    w.invoke(4, 1, "boom", &[]).unwrap();
    w.rebuild().unwrap();
    refused(&mut w, 4, 1, "boom", &[], "not marked by permit_invoke");
    // Bad uses of permit_invoke.
    let e = w.exec("=t", "permit_invoke('dragon', 'x')").unwrap_err().to_string();
    assert!(e.contains("bad argument #1 to 'permit_invoke' (no class 'dragon')"), "{e}");
    let e = w.exec("=t", "permit_invoke(sleeper)").unwrap_err().to_string();
    assert!(
        e.contains("bad argument #2 to 'permit_invoke' (string expected, got no value)"),
        "{e}"
    );
}

#[test]
fn nopredict() {
    // The master: the request goes to the host; the thread resumes with
    // the answer.
    let mut m = with_player();
    m.invoke(4, 1, "ask", &[]).unwrap();
    let reqs = m.take_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!((reqs[0].name.as_str(), reqs[0].tangible, reqs[0].actor), ("realtime", 1, Some(4)));
    assert_eq!(reqs[0].args, [s("utc")]);
    assert!(m.threads_consistent());
    m.tick();
    assert_eq!(log(&mut m), "", "a waiting thread is not scheduled");
    m.answer(&reqs[0], &[s("2026-11-25T11:00:00Z")]).unwrap();
    assert_eq!(log(&mut m), "time 2026-11-25T11:00:00Z");
    assert_eq!(m.take_prints(4), "2026-11-25T11:00:00Z\n");
    assert!(m.answer(&reqs[0], &[]).is_err(), "answered once");
    assert!(m.threads_of(1).is_empty());

    // A synchronous model: NoPredict, the thread is killed, nothing waits.
    let mut c = load(Model::ClientSync, "threads");
    c.insert_tangible(1, "sleeper", [0.0; 3]).unwrap();
    c.insert_tangible(4, "sleeper", [0.0; 3]).unwrap();
    assert!(c.set_pool(4, m.tangibles().get(4).unwrap().pool.clone()));
    let tid = c.invoke(4, 1, "ask", &[]).unwrap();
    assert!(c.take_requests().is_empty());
    let r = c.take_thread_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!((r[0].kind, r[0].thread, r[0].actor), (ThreadReportKind::NoPredict, tid, Some(4)));
    assert!(r[0].message.contains("'realtime'"), "{}", r[0].message);
    assert!(c.threads_of(1).is_empty() && c.tangibles().schedule().is_empty());
    // A registered blocking operation of the host's.
    m.register_blocking("fetch");
    m.exec(
        "=t",
        "function sleeper.get(self, u) return fetch(u, 2) end permit_invoke(sleeper, 'get')",
    )
    .unwrap();
    m.invoke(4, 2, "get", &[s("url")]).unwrap();
    let reqs = m.take_requests();
    assert_eq!(
        (reqs[0].name.as_str(), reqs[0].args.clone()),
        ("fetch", vec![s("url"), Plain::Int(2)])
    );
    m.answer(&reqs[0], &[Plain::Int(200), s("body")]).unwrap();
    assert_eq!(m.take_prints(4), "200\tbody\n");
}

#[test]
fn probe() {
    let mut w = with_player();
    let h = w.state_hash();
    let r = w
        .probe("global('log').x = 1; return now(), 'a', true, nil, 2.5, gettangible(2), {}")
        .unwrap();
    assert_eq!(
        r[..6],
        [
            Plain::Int(0),
            s("a"),
            Plain::Bool(true),
            Plain::Nil,
            Plain::Float(2.5),
            Plain::Tangible(2)
        ]
    );
    assert!(matches!(&r[6], Plain::Str(t) if t.starts_with("table: ")));
    assert_eq!(w.state_hash(), h, "a probe changes nothing");
    for (code, want) in [
        ("sleep(1)", "sleep: not in a world thread (a probe or host code cannot yield)"),
        ("realtime()", "realtime: a blocking operation cannot run here: a probe"),
        ("fork(print)", "fork: not in a world thread"),
        ("newtangible(sleeper, 0, 0, 0) error('x')", "probe:1: x"),
    ] {
        let e = w.probe(code).unwrap_err().to_string();
        assert!(e.contains(want), "{code}: {e}");
        assert_eq!(w.state_hash(), h, "{code}");
    }
}

#[test]
fn limits() {
    let mut w = with_player();
    w.set_limits(luprex_engine::WorldLimits {
        per_run: 100_000,
        per_tick: 1_000_000,
        memory: Some(64 << 20),
    });
    w.spawn(2, "nap", &[s("n"), Plain::Int(1), Plain::Int(3)]).unwrap();
    // A runaway command is stopped with an error to its actor.
    w.invoke(4, 1, "forever", &[]).unwrap();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!((r[0].kind, r[0].actor, r[0].tangible), (ThreadReportKind::Limit, Some(4), 1));
    assert!(r[0].message.contains("instruction limit"), "{}", r[0].message);
    assert!(w.threads_of(1).is_empty());
    // The world ticks on.
    w.tick();
    w.tick();
    assert_eq!(log(&mut w), "n@1,n@2");
    // Several runaways in one tick: the tick budget stops the pass; the
    // rest run at the next tick.
    // The budget left is world state: a rollback restores it, and it
    // is in the hash, the save and the snapshot.
    let snap = w.snapshot().unwrap();
    let (budget, hash) = (w.tangibles().budget(), w.state_hash());
    for _ in 0..12 {
        w.invoke(4, 1, "forever", &[]).unwrap();
    }
    assert_eq!(w.take_thread_reports().len(), 10, "ten runs spend the tick's budget");
    assert_eq!(w.threads_of(1).len(), 2, "two commands wait");
    assert_eq!(w.tangibles().budget(), 0);
    let saved = w.save().unwrap();
    let restored = World::restore(Model::Master, &saved).unwrap();
    assert_eq!((restored.tangibles().budget(), restored.state_hash()), (0, w.state_hash()));
    w.rollback(&snap).unwrap();
    assert_eq!((w.tangibles().budget(), w.state_hash()), (budget, hash));
    for _ in 0..12 {
        w.invoke(4, 1, "forever", &[]).unwrap();
    }
    w.release(snap).unwrap();
    assert_eq!(w.take_thread_reports().len(), 10, "the same again after the rollback");
    assert_eq!(w.threads_of(1).len(), 2, "two commands wait");
    w.tick();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 2, "{r:#?}");
    assert_eq!(log(&mut w), "n@3");
    // Memory: a script that allocates without bound fails, the world goes on.
    w.spawn(2, "hog", &[]).unwrap();
    let r = w.take_thread_reports();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0].kind, ThreadReportKind::Limit);
    assert!(r[0].message.contains("not enough memory"), "{}", r[0].message);
    w.exec("=t", "collectgarbage()").unwrap();
    w.spawn(2, "nap", &[s("m"), Plain::Int(1), Plain::Int(1)]).unwrap();
    w.tick();
    assert_eq!(log(&mut w), "m@4");
}

/// A request taken before a save is issued again by the restored World
/// (`pending_requests`), and its answer resumes the thread there.
#[test]
fn pending_requests_survive_save() {
    let mut m = with_player();
    m.invoke(4, 1, "ask", &[]).unwrap();
    let taken = m.take_requests();
    assert_eq!(taken.len(), 1);
    assert_eq!(m.pending_requests(), taken, "the state knows what it waits on");
    let bytes = m.save().unwrap();
    let mut r = World::restore(Model::Master, &bytes).unwrap();
    assert_eq!(r.state_hash(), m.state_hash());
    let again = r.pending_requests();
    assert_eq!(again, taken);
    r.answer(&again[0], &[s("noon")]).unwrap();
    assert_eq!(r.take_prints(4), "noon\n");
    assert!(r.pending_requests().is_empty());
    assert!(r.threads_consistent());
}

// ---------------------------------------------------------------------
// Players (players.rs)
// ---------------------------------------------------------------------

fn at(w: &mut World, id: u64) -> [f64; 3] {
    w.position(id).unwrap()
}

#[test]
fn players() {
    let mut m = load(Model::Master, "players");
    let ann = m.admit("ann").unwrap();
    assert!(ann.new && ann.thread.is_some());
    assert_eq!(m.take_prints(ann.id), "welcome ann #1\n");
    assert_eq!(at(&mut m, ann.id), [10.0, 0.0, 0.0], "onjoin teleported the player");
    let pool = m.tangibles().get(ann.id).unwrap().pool.clone().unwrap();
    let hat = m.probe("return getid(gettangible(1).hat or gettangible(2).hat)").unwrap();
    let Plain::Int(hat) = hat[0] else { panic!("{hat:?}") };
    // The player is tangible 1; its pool starts at 2: the onjoin thread
    // took ID 2, the hat 3, and the pool now starts at 4.
    assert_eq!((ann.id, hat, pool.blocks()[0].0), (1, 3, 4));
    assert!(m.take_thread_reports().is_empty());

    // The built-in walk: speed 2, so 10 units take 5 ticks.
    let before = m.state_hash();
    m.walk(ann.id, [10.0, 10.0, 0.0]).unwrap();
    assert_ne!(m.state_hash(), before);
    for _ in 0..3 {
        m.tick();
    }
    assert_eq!(at(&mut m, ann.id), [10.0, 6.0, 0.0]);
    // A new walk halts where the player is and heads for the new point.
    m.walk(ann.id, [10.0, 0.0, 0.0]).unwrap();
    m.tick();
    assert_eq!(at(&mut m, ann.id), [10.0, 4.0, 0.0]);
    for _ in 0..5 {
        m.tick();
    }
    assert_eq!(at(&mut m, ann.id), [10.0, 0.0, 0.0]);
    // The hook refuses, or changes the destination.
    m.walk(ann.id, [200.0, 0.0, 0.0]).unwrap();
    assert_eq!(m.take_prints(ann.id), "a wall\n");
    m.tick();
    assert_eq!(at(&mut m, ann.id), [10.0, 0.0, 0.0]);
    m.walk(ann.id, [10.0, -4.0, 0.0]).unwrap();
    for _ in 0..2 {
        m.tick();
    }
    assert_eq!(at(&mut m, ann.id), [10.0, 4.0, 0.0], "y < 0 is mirrored");
    assert!(m.take_thread_reports().is_empty());

    // Refusals change nothing.
    let h = m.state_hash();
    assert!(m.walk(ann.id, [f64::NAN, 0.0, 0.0]).is_err());
    assert!(m.walk(hat as u64, [1.0, 0.0, 0.0]).unwrap_err().to_string().contains("not a player"));
    assert!(m.admit("").is_err() && m.admit("a\nb").is_err() && m.admit(&"x".repeat(65)).is_err());
    assert_eq!(m.state_hash(), h);

    // A second player, departures and returns.
    let bob = m.admit("bob").unwrap();
    assert!(bob.new && bob.id != ann.id);
    assert_eq!(m.take_prints(bob.id), "welcome bob #1\n");
    assert!(m.depart(ann.id).unwrap().is_some());
    assert_eq!(m.take_prints(ann.id), "bye ann\n");
    let back = m.admit("ann").unwrap();
    assert_eq!((back.id, back.new), (ann.id, false));
    assert_eq!(m.take_prints(ann.id), "welcome ann back #2\n");
    assert_eq!(m.players(), [("ann".to_owned(), ann.id), ("bob".to_owned(), bob.id)]);
    // tell(): chat reaches the other player's buffer, not the speaker's.
    m.invoke(bob.id, bob.id, "say", &[Plain::Str("hi".into())]).unwrap();
    assert_eq!(m.take_prints(ann.id), "bob: hi\n");
    assert_eq!(m.take_prints(bob.id), "said\n");
    let e = m.exec("=t", "tell(nil, 'x')").unwrap_err().to_string();
    assert!(e.contains("bad argument #1 to 'tell' (tangible expected, got nil)"), "{e}");
    assert_eq!(m.player_id("bob"), Some(bob.id));
    assert_eq!(m.player_id("carol"), None);

    // Players survive a save; a destroyed player tangible is made anew.
    let bytes = m.save().unwrap();
    let mut r = World::restore(Model::Master, &bytes).unwrap();
    assert_eq!(r.state_hash(), m.state_hash());
    assert_eq!(r.player_id("ann"), Some(ann.id));
    assert!(r.destroy_tangible(bob.id));
    assert_eq!(r.player_id("bob"), None);
    let bob2 = r.admit("bob").unwrap();
    assert!(bob2.new && bob2.id != bob.id);

    // walk() from scripts, with its errors.
    let hat2 = check(&mut m, "script_walk");
    let hat2: u64 = hat2.parse().unwrap();
    for _ in 0..10 {
        m.tick();
    }
    let p = at(&mut m, hat2);
    assert_eq!(p, [3.0, 4.0, 0.0], "5 units at 0.5 per tick: 10 ticks");

    // Only the master admits; a world with no player class cannot.
    let mut c = load(Model::ClientSync, "players");
    assert!(c.admit("ann").unwrap_err().to_string().contains("only the master"));
    let mut t = load(Model::Master, "tangibles");
    assert!(t.admit("ann").unwrap_err().to_string().contains("no class 'player'"));
}
