//! The World: one Lua state and the engine structures in it.
//!
//! A [`World`] owns one `raw::State` (seed 004, "The World Model") with the
//! sandbox standard library, and is one of the models of predictive
//! re-execution (seed 003): the authoritative [`Model::Master`] on the
//! server, or a synchronous model ([`Model::ServerSync`] on the server,
//! [`Model::ClientSync`] on the client; the asynchronous model is a
//! ClientSync under a snapshot, see [`World::snapshot`]).
//!
//! **Life of a World.**
//!
//! 1. [`World::new`] makes the state: libraries, the guarded environment
//!    (`classes.rs`), the registry tables `classdb`, `sourcedb`,
//!    `globalpub`, `tangibles`, and in the master `globaldb`
//!    (`globals.rs`), and attaches the tangibles' host data.
//! 2. Sources come in: [`World::load_dir`] (a [`ScriptDir`], kept for
//!    [`World::reload`]) or [`World::load_sources`] (from memory). Either
//!    updates the source database (`sourcedb.rs`) and does a class
//!    rebuild.
//! 3. [`World::start`]: a master created fresh calls the `init` function
//!    of every class that has one, once, in class order (the order of each
//!    class's first `makeclass` during the load: files in `control.lst`
//!    order, then execution order within a file; a class made in several
//!    files takes its first file's position). The registry key
//!    `worldstarted` records that it happened, so a reload, a second
//!    `start` or a restored save never calls `init` again; synchronous
//!    models never call it (their state comes from the master).
//!    [`World::from_dir`] does 1 to 3.
//! 4. The host runs code ([`World::exec`], [`World::call`]), reloads
//!    ([`World::reload`]: re-reads only the files whose fingerprint
//!    changed, then rebuilds), snapshots and rolls back, hashes.
//!
//! **Class rebuild** ([`World::rebuild`], seed 004): empty every class
//! (the tables are kept), then call every `loadresult` in `sequence`
//! order. A file whose `loadresult` is a syntax error, or whose chunk
//! raises an error, is reported ([`LoadReport`]) and the others still
//! load. The globals database and published globals are untouched.
//!
//! **Output.** `print` writes to the World's print buffer, which the host
//! takes with [`World::take_output`]; warnings go there too. Nothing a
//! World does writes to the process's stdout or stderr. The buffer is the
//! one piece of a World outside its VM state: it is output already
//! emitted, not world state, so a rollback does not take it back.
//!
//! **Invariants.**
//! * Everything a World *is* lives in its VM state (the environment, the
//!   registry tables above, the master flag as the presence of
//!   `globaldb`, and the Rust side of tangibles — clock, ID counter and
//!   pools, animation queues, spatial index — as the host data
//!   `engine.tangibles`, `tangible.rs`), so [`World::state_hash`],
//!   [`World::snapshot`] / [`World::rollback`] and [`World::save`] /
//!   [`World::restore`] cover it all. The `World` struct holds only the
//!   model kind, the script directory reader, pending reports and printed
//!   output.
//!
//! **Tangibles** from the host: [`World::new_tangible`],
//! [`World::insert_tangible`] (an ID the master gave, for synchronous
//! models), [`World::destroy_tangible`], [`World::tangible`],
//! [`World::tangible_ids`], [`World::position`], [`World::move_to`],
//! [`World::set_class`], [`World::scan_radius`], [`World::tick`],
//! [`World::now`], [`World::make_player`], [`World::set_pool`],
//! [`World::set_actor`], [`World::tangibles`] (the Rust side, read-only)
//! and [`World::special_set`].
//! * No clock, no OS randomness, no iteration over a hash map: two Worlds
//!   given the same sources (and fingerprints) and the same calls have the
//!   same state hash, in any process.
//! * Every error that leaves a World from Lua code carries `chunk:line:`
//!   and, if no `pcall` caught it, a traceback.

use crate::classes;
use crate::error::{line_in, EngineError, LoadReport, ReportKind};
use crate::globals;
use crate::registry_get;
use crate::sourcedb::{self, Listed, ScriptDir, SourceFile, SourceInfo};
use crate::tangible::{self, AsTangible, ClassError, Keys, Tangibles};
use luprex_vm::raw::{self, SpecialSet, State, TableRef, Value};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

/// Which of the models of predictive re-execution a World is (seed 003).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// The authoritative world on the server: all tangibles, all globals,
    /// all source code. The only model with a globals database.
    Master,
    /// The server's record of what one client knows (driven by command
    /// acknowledgements; compared with the master for difference
    /// transmission).
    ServerSync,
    /// The client's confirmed view of the world; its twin is the
    /// client's ServerSync, and both always have the same state hash.
    ClientSync,
}

/// Registry key set when a master has run its classes' `init`.
const STARTED: &str = "worldstarted";

/// The print buffer: a writer shared by the state (as its stdout) and the
/// World.
#[derive(Clone, Default)]
struct OutBuf(Rc<RefCell<Vec<u8>>>);

impl std::io::Write for OutBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An open snapshot of a World ([`World::snapshot`]).
#[derive(Debug)]
pub struct WorldSnapshot(raw::Snapshot);

/// A world model: one Lua state with its classes, sources and globals.
pub struct World {
    st: State,
    model: Model,
    out: OutBuf,
    scripts: Option<ScriptDir>,
    reports: Vec<LoadReport>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World").field("model", &self.model).finish_non_exhaustive()
    }
}

impl World {
    /// A World with no scripts yet: the sandbox library, the engine's
    /// functions, the guarded environment and the registry tables.
    pub fn new(model: Model) -> Result<World, EngineError> {
        let mut st = State::new();
        luprex_stdlib::open_sandbox(&mut st)?;
        let out = OutBuf::default();
        st.set_stdout(Box::new(out.clone()));
        st.set_stderr(Box::new(out.clone()));
        classes::open(&mut st)?;
        let lib = classes::library(&mut st);
        globals::open(&mut st, lib, model == Model::Master)?;
        sourcedb::open(&mut st);
        tangible::open(&mut st, lib)?;
        Ok(World { st, model, out, scripts: None, reports: Vec::new() })
    }

    /// A World loaded from script directory `dir` and started
    /// ([`World::new`], [`World::load_dir`], [`World::start`]). Problems
    /// with individual files are in [`World::take_reports`]; only an
    /// unreadable `control.lst` is an error.
    pub fn from_dir(model: Model, dir: impl Into<PathBuf>) -> Result<World, EngineError> {
        let mut w = World::new(model)?;
        w.load_dir(ScriptDir::new(dir))?;
        w.start()?;
        Ok(w)
    }

    /// The model kind.
    pub fn model(&self) -> Model {
        self.model
    }

    /// Attaches script directory `dir` and loads it (as [`World::reload`]).
    pub fn load_dir(&mut self, dir: ScriptDir) -> Result<(), EngineError> {
        self.scripts = Some(dir);
        self.reload()
    }

    /// The attached script directory, if any (its read log tells which
    /// files were read).
    pub fn script_dir(&self) -> Option<&ScriptDir> {
        self.scripts.as_ref()
    }

    /// Re-reads the script directory: `control.lst` (so added and removed
    /// entries are picked up), the fingerprint of every listed file, and
    /// the contents of only the files whose fingerprint changed; then a
    /// class rebuild. Fails only if there is no script directory or its
    /// `control.lst` cannot be read.
    pub fn reload(&mut self) -> Result<(), EngineError> {
        let dir = self.scripts.as_mut().ok_or(EngineError::NoScriptDir)?;
        let control = dir
            .control()
            .map_err(|source| EngineError::Io { path: dir.root().join("control.lst"), source })?;
        let list: Vec<Listed> = control
            .into_iter()
            .map(|c| Listed {
                fingerprint: dir.fingerprint(&c.name).map_err(|e| e.to_string()),
                name: c.name,
                line: Some(c.line),
            })
            .collect();
        let reports = sourcedb::update(&mut self.st, &list, |name| {
            dir.read(name).map_err(|e| e.to_string())
        })?;
        self.reports.extend(reports);
        self.rebuild()
    }

    /// Replaces the source database by `files` (in load order, given from
    /// memory: tests, and later the network) and rebuilds the classes.
    /// Entries whose fingerprint is unchanged keep their compiled
    /// `loadresult`.
    pub fn load_sources(&mut self, files: &[SourceFile]) -> Result<(), EngineError> {
        let list: Vec<Listed> = files
            .iter()
            .map(|f| Listed { name: f.name.clone(), line: None, fingerprint: Ok(f.fingerprint) })
            .collect();
        let reports = sourcedb::update(&mut self.st, &list, |name| {
            files
                .iter()
                .find(|f| f.name == name)
                .map(|f| f.code.clone())
                .ok_or_else(|| "no such source".to_owned())
        })?;
        self.reports.extend(reports);
        self.rebuild()
    }

    /// The class rebuild: empties every class, then calls every
    /// `loadresult` of the source database in `sequence` order. Failing
    /// files are reported; the others load.
    pub fn rebuild(&mut self) -> Result<(), EngineError> {
        let st = &mut self.st;
        let stray = classes::begin_rebuild(st)?;
        // The loadresults stay reachable from `sourcedb` while they run.
        for (name, lr) in sourcedb::in_sequence(st) {
            let name = |st: &State| String::from_utf8_lossy(st.str_bytes(name)).into_owned();
            match lr {
                Value::LuaFn(_) | Value::RustFn(_) => {
                    if let Err(e) = st.call(lr, &[]) {
                        let name = name(st);
                        self.reports.push(LoadReport {
                            line: line_in(e.message(), &name),
                            file: name,
                            kind: ReportKind::Run,
                            message: e.message().to_owned(),
                            traceback: e.traceback().to_owned(),
                        });
                    }
                }
                msg => {
                    let name = name(st);
                    self.reports.push(sourcedb::syntax_report(st, &name, msg));
                }
            }
        }
        for (global, message) in stray.into_iter().chain(classes::check_environment(st)?) {
            self.reports.push(LoadReport {
                file: global,
                line: None,
                kind: ReportKind::Environment,
                message,
                traceback: String::new(),
            });
        }
        Ok(())
    }

    /// World start: in a master that has not started yet, calls
    /// `class.init(class)` for every class that has an `init` function, in
    /// class order, once. Errors are reported (kind
    /// [`ReportKind::Init`]) and the other classes still start. Does
    /// nothing in a synchronous model or a master that started already.
    pub fn start(&mut self) -> Result<(), EngineError> {
        if self.model != Model::Master
            || registry_get(&mut self.st, STARTED).raw_eq(Value::Bool(true))
        {
            return Ok(());
        }
        let k = self.st.intern(STARTED.as_bytes());
        let reg = self.st.registry();
        self.st.raw_set_str(reg, k, Value::Bool(true));
        let kinit = self.st.intern(b"init");
        // The classes stay reachable from the environment and `classdb`.
        for (_, c) in classes::classes_in_order(&self.st) {
            let init = self.st.table(c).get_str(kinit);
            if !matches!(init, Value::LuaFn(_) | Value::RustFn(_)) {
                continue;
            }
            if let Err(e) = self.st.call(init, &[Value::Table(c)]) {
                let file = self.st.function_info(init).short_src;
                self.reports.push(LoadReport {
                    line: line_in(e.message(), &file),
                    file,
                    kind: ReportKind::Init,
                    message: e.message().to_owned(),
                    traceback: e.traceback().to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Whether this World's classes have been started (`init` called).
    pub fn started(&mut self) -> bool {
        registry_get(&mut self.st, STARTED).raw_eq(Value::Bool(true))
    }

    /// The load reports collected since the last call, oldest first.
    pub fn take_reports(&mut self) -> Vec<LoadReport> {
        std::mem::take(&mut self.reports)
    }

    /// What `print` (and `warn`) wrote since the last call.
    pub fn take_output(&mut self) -> String {
        self.st.flush_stdout();
        let bytes = std::mem::take(&mut *self.out.0.borrow_mut());
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Runs a chunk of Lua in the World (host commands, tests); `name` is
    /// its chunk name as in `load` (`=name` or `@file`). Returns its
    /// results; they are unrooted handles, valid until Lua runs again.
    pub fn exec(&mut self, name: &str, code: &str) -> Result<Vec<Value>, EngineError> {
        Ok(self.st.exec(code.as_bytes(), name.as_bytes())?)
    }

    /// Calls `class.function(args...)` (raw field of the class in the
    /// environment). Results as for [`World::exec`].
    pub fn call(
        &mut self,
        class: &str,
        function: &str,
        args: &[Value],
    ) -> Result<Vec<Value>, EngineError> {
        let env = self.st.globals();
        let kc = self.st.intern(class.as_bytes());
        let Value::Table(c) = self.st.table(env).get_str(kc) else {
            return Err(EngineError::Lua {
                message: format!("no class '{class}'"),
                traceback: String::new(),
            });
        };
        let kf = self.st.intern(function.as_bytes());
        let f = self.st.table(c).get_str(kf);
        if !matches!(f, Value::LuaFn(_) | Value::RustFn(_)) {
            return Err(EngineError::Lua {
                message: format!("class '{class}' has no function '{function}'"),
                traceback: String::new(),
            });
        }
        Ok(self.st.call(f, args)?)
    }

    /// The source database, in load order (for hosts and tools: what is
    /// loaded, which files failed to compile).
    pub fn sources(&mut self) -> Vec<SourceInfo> {
        sourcedb::infos(&mut self.st)
    }

    /// The World's Lua state, read-only (views of tables and strings for
    /// hosts and tests).
    pub fn state(&self) -> &State {
        &self.st
    }

    /// The 128-bit hash of the World's whole VM state (`raw::State::
    /// state_hash`): equal for Worlds in equal states, in any process.
    pub fn state_hash(&self) -> u128 {
        self.st.state_hash()
    }

    /// Opens a snapshot (seed 004, "Snapshot"): everything done to the
    /// World afterwards can be undone by [`World::rollback`].
    pub fn snapshot(&mut self) -> Result<WorldSnapshot, EngineError> {
        Ok(WorldSnapshot(self.st.snapshot()?))
    }

    /// Restores the World to snapshot `s` (which stays open, for the next
    /// round of predictions).
    pub fn rollback(&mut self, s: &WorldSnapshot) -> Result<(), EngineError> {
        Ok(self.st.rollback(s.0)?)
    }

    /// Closes snapshot `s`, keeping the current state.
    pub fn release(&mut self, s: WorldSnapshot) -> Result<(), EngineError> {
        Ok(self.st.release(s.0)?)
    }

    /// The whole World as bytes (the VM state; the model kind and the
    /// script directory are the host's to remember).
    pub fn save(&self) -> Result<Vec<u8>, EngineError> {
        Ok(self.st.save_state()?)
    }

    /// A World of kind `model` restored from [`World::save`]'s bytes. It
    /// is not started again (a started master stays started).
    pub fn restore(model: Model, bytes: &[u8]) -> Result<World, EngineError> {
        let mut w = World::new(model)?;
        w.st.load_state(bytes)?;
        let master = !registry_get(&mut w.st, globals::GLOBALDB).is_nil();
        let complete = [classes::CLASSDB, classes::LIBRARY, sourcedb::SOURCEDB, globals::GLOBALPUB]
            .iter()
            .all(|k| matches!(registry_get(&mut w.st, k), Value::Table(_)));
        let complete = complete
            && matches!(registry_get(&mut w.st, tangible::TANGIBLES), Value::Table(_))
            && w.tangibles_consistent();
        if !complete || master != (model == Model::Master) {
            return Err(EngineError::Lua {
                message: format!("the saved state is not a {model:?} world"),
                traceback: String::new(),
            });
        }
        Ok(w)
    }

    // -----------------------------------------------------------------
    // Tangibles (tangible.rs)
    // -----------------------------------------------------------------

    fn keys(&mut self) -> Keys {
        Keys::new(&mut self.st)
    }

    fn lua_error(message: String) -> EngineError {
        EngineError::Lua { message, traceback: String::new() }
    }

    /// The Rust side of the World's tangibles, its clock and allocators
    /// (read-only).
    pub fn tangibles(&self) -> &Tangibles {
        tangible::host(&self.st)
    }

    /// Creates a tangible of class `class` (a class of the environment) at
    /// `pos`, as `newtangible` does; returns its ID. In a synchronous model
    /// the ID comes from the actor's IdPlayerPool (see
    /// [`World::set_actor`]).
    pub fn new_tangible(&mut self, class: &str, pos: [f64; 3]) -> Result<u64, EngineError> {
        if !pos.iter().all(|c| c.is_finite()) {
            return Err(Self::lua_error("newtangible: coordinate is not finite".into()));
        }
        let k = self.keys();
        let name = Value::Str(self.st.intern(class.as_bytes()));
        let c = match tangible::resolve_class(&self.st, &k, name) {
            Ok(c) => c,
            Err(ClassError::NoClass(n)) => return Err(Self::lua_error(format!("no class '{n}'"))),
            Err(_) => return Err(Self::lua_error(format!("no class '{class}'"))),
        };
        tangible::create(&mut self.st, &k, c, pos)
            .map(|(id, _)| id)
            .map_err(|m| Self::lua_error(format!("newtangible: {m}")))
    }

    /// Creates tangible `id` — an ID the master allocated — of class `class`
    /// at `pos`, in any model: how difference transmission will bring the
    /// master's tangibles into a synchronous model. Fails if the ID is in
    /// use or not a valid ID.
    pub fn insert_tangible(
        &mut self,
        id: u64,
        class: &str,
        pos: [f64; 3],
    ) -> Result<(), EngineError> {
        if !pos.iter().all(|c| c.is_finite()) {
            return Err(Self::lua_error("coordinate is not finite".into()));
        }
        if !tangible::host(&self.st).id_is_free(id) {
            return Err(Self::lua_error(format!("tangible id {id} is in use or not valid")));
        }
        let k = self.keys();
        let name = Value::Str(self.st.intern(class.as_bytes()));
        let c = tangible::resolve_class(&self.st, &k, name)
            .map_err(|_| Self::lua_error(format!("no class '{class}'")))?;
        tangible::make(&mut self.st, &k, c, pos, id);
        Ok(())
    }

    /// Sets (or removes) the IdPlayerPool of tangible `id` as the master
    /// has it, in any model (difference transmission). False if there is
    /// no such tangible.
    pub fn set_pool(&mut self, id: u64, pool: Option<tangible::IdPlayerPool>) -> bool {
        tangible::host_mut(&mut self.st).set_pool(id, pool)
    }

    /// Destroys tangible `id` (registry, index, host data); false if there
    /// is no such tangible.
    pub fn destroy_tangible(&mut self, id: u64) -> bool {
        let k = self.keys();
        tangible::destroy(&mut self.st, &k, id)
    }

    /// The Lua tangible of `id` (an unrooted handle, valid until Lua runs
    /// again), if it exists.
    pub fn tangible(&mut self, id: u64) -> Option<TableRef> {
        tangible::host(&self.st).get(id)?;
        let reg = self.keys().reg;
        match self.st.table(reg).get_int(id as i64) {
            Value::Table(t) => Some(t),
            _ => None,
        }
    }

    /// The ID of Lua tangible `v`, if it is a live tangible.
    pub fn tangible_id(&mut self, v: Value) -> Option<u64> {
        let k = self.keys();
        match tangible::as_tangible(&self.st, &k, v) {
            AsTangible::Live(id, _) => Some(id),
            _ => None,
        }
    }

    /// The IDs of every tangible, ascending.
    pub fn tangible_ids(&self) -> Vec<u64> {
        self.tangibles().iter().map(|t| t.id).collect()
    }

    /// The position of tangible `id` at the current tick.
    pub fn position(&self, id: u64) -> Option<[f64; 3]> {
        self.tangibles().position(id)
    }

    /// Queues an animation step of `id` to `pos`, arriving `ticks` after
    /// its last step (as `moveto`).
    pub fn move_to(&mut self, id: u64, pos: [f64; 3], ticks: i64) -> Result<(), EngineError> {
        if !pos.iter().all(|c| c.is_finite()) || ticks < 0 {
            return Err(Self::lua_error("moveto: bad coordinates or ticks".into()));
        }
        if !tangible::host_mut(&mut self.st).move_to(id, pos, ticks) {
            return Err(Self::lua_error(format!("moveto: no tangible {id} or tick overflow")));
        }
        Ok(())
    }

    /// Changes the class of tangible `id` (as `setclass`).
    pub fn set_class(&mut self, id: u64, class: &str) -> Result<(), EngineError> {
        let k = self.keys();
        let name = Value::Str(self.st.intern(class.as_bytes()));
        let c = tangible::resolve_class(&self.st, &k, name)
            .map_err(|_| Self::lua_error(format!("no class '{class}'")))?;
        let t = self.tangible(id).ok_or_else(|| Self::lua_error(format!("no tangible {id}")))?;
        tangible::set_class(&mut self.st, &k, t, c);
        Ok(())
    }

    /// The IDs of the tangibles within distance `r` of `center` at the
    /// current tick (3-D Euclidean, inclusive), ascending.
    pub fn scan_radius(&self, center: [f64; 3], r: f64) -> Vec<u64> {
        let mut out = Vec::new();
        self.tangibles().scan_radius(center, r, &mut out);
        out
    }

    /// As [`World::scan_radius`], into `out` (reused across queries).
    pub fn scan_radius_into(&self, center: [f64; 3], r: f64, out: &mut Vec<u64>) {
        self.tangibles().scan_radius(center, r, out);
    }

    /// Advances the simulated clock by one tick (tangibles whose animation
    /// completes settle).
    pub fn tick(&mut self) {
        tangible::host_mut(&mut self.st).tick();
    }

    /// The current tick.
    pub fn now(&self) -> i64 {
        self.tangibles().now()
    }

    /// Makes tangible `id` a player: gives it an IdPlayerPool of
    /// [`tangible::POOL_BLOCKS`] blocks from the master's counter. Master
    /// only; false if there is no such tangible or it is a player already.
    pub fn make_player(&mut self, id: u64) -> Result<bool, EngineError> {
        if self.model != Model::Master {
            return Err(Self::lua_error("only the master grants id pools".into()));
        }
        tangible::host_mut(&mut self.st).make_player(id).map_err(|e| Self::lua_error(e.to_string()))
    }

    /// Sets the actor: the player whose commands run now, whose
    /// IdPlayerPool every new tangible's ID comes from (`None`: the
    /// master's counter; in a synchronous model, no allocator). False if
    /// `actor` is not a player.
    pub fn set_actor(&mut self, actor: Option<u64>) -> bool {
        tangible::host_mut(&mut self.st).set_actor(actor)
    }

    /// The tables the table-graph traversal must skip (seed 000): the
    /// environment, the registry, every class table and every Lua
    /// tangible. Computed afresh (handles are reused after collection).
    pub fn special_set(&mut self) -> SpecialSet {
        let mut s = SpecialSet::new();
        s.mark(self.st.globals());
        s.mark(self.st.registry());
        let k = self.keys();
        for (_, c) in self.st.table(k.classdb).iter() {
            s.mark_value(c);
        }
        for (_, t) in self.st.table(k.reg).iter() {
            s.mark_value(t);
        }
        s
    }

    /// Whether the registry's `tangibles` and the Rust tangibles name the
    /// same IDs, and the spatial index is what the queues give.
    pub fn tangibles_consistent(&mut self) -> bool {
        let k = self.keys();
        let lua: Vec<u64> = self
            .st
            .table(k.reg)
            .iter()
            .filter_map(|(id, t)| match (id, t) {
                (Value::Int(i), Value::Table(_)) => Some(i as u64),
                _ => None,
            })
            .collect();
        let mut lua = lua;
        lua.sort_unstable();
        lua == self.tangible_ids() && self.tangibles().index_is_consistent()
    }
}
