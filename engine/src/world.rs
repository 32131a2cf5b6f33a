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
//! **Output.** `print` writes to the print buffer of the running thread's
//! actor ([`World::take_prints`]), or to the World's buffer, which the
//! host takes with [`World::take_output`]; warnings go there too. `tell(p,
//! ...)` writes to player `p`'s buffer (the buffers are the state's app
//! data, `raw::State::set_app_data`, so the native reaches them). Nothing a
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
//!   [`World::restore`] cover it all (threads: the thread tables in the
//!   tangibles' metatables, the schedule in the host data, `threads.rs`).
//!   The `World` struct holds only the model kind, the script directory
//!   reader, pending load and thread reports and requests, printed output
//!   (per actor) and the limits (host configuration). The instructions
//!   left in this tick are world state (they decide which due threads run
//!   now), so they live in the host data too.
//!
//! **Threads** ([`World::tick`], [`World::invoke`], [`World::spawn`],
//! [`World::answer`], [`World::probe`], [`World::take_prints`],
//! [`World::take_thread_reports`], [`World::take_requests`],
//! [`World::register_blocking`], [`World::set_limits`]): see `threads.rs`.
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
use crate::threads::{self, Plain, Request, ThreadReport, ThreadReportKind, Yielded};
use luprex_vm::raw::{self, CoStatus, ErrorKind, SpecialSet, State, TableRef, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
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

/// The print buffers: a writer shared by the state (as its stdout) and the
/// World. What is written goes to the buffer of `cur`, the actor of the
/// running thread (`None`: the world buffer).
#[derive(Clone, Default)]
struct OutBuf {
    world: Rc<RefCell<Vec<u8>>>,
    actors: Rc<RefCell<BTreeMap<u64, Vec<u8>>>>,
    cur: Rc<Cell<Option<u64>>>,
}

impl std::io::Write for OutBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        match self.cur.get() {
            None => self.world.borrow_mut().extend_from_slice(b),
            Some(a) => self.actors.borrow_mut().entry(a).or_default().extend_from_slice(b),
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl OutBuf {
    /// Appends `bytes` to player `actor`'s buffer.
    fn tell(&self, actor: u64, bytes: &[u8]) {
        self.actors.borrow_mut().entry(actor).or_default().extend_from_slice(bytes);
    }
}

/// `tell(player, ...)`: prints to that player's buffer (as `print`).
fn lua_tell(st: &mut State) -> Result<raw::Action, raw::Error> {
    let k = Keys::of_running(st);
    let id = match tangible::as_tangible(st, &k, st.arg(1)) {
        AsTangible::Live(id, _) => id,
        AsTangible::Destroyed(id) => {
            return Err(st.arg_error(1, &format!("tangible {id} was destroyed")))
        }
        AsTangible::No => return Err(st.arg_type_error(1, "tangible")),
    };
    let mut line = Vec::new();
    for i in 2..=st.nargs() {
        if i > 2 {
            line.push(b'\t');
        }
        let v = st.arg(i);
        line.extend_from_slice(&st.tostring_bytes(v)?);
    }
    st.charge_work(st.nargs() as u64)?;
    st.charge_bytes(line.len())?;
    line.push(b'\n');
    st.flush_stdout();
    if let Some(out) = st.app_data::<OutBuf>() {
        out.tell(id, &line);
    }
    Ok(raw::Action::Return(0))
}

/// An open snapshot of a World ([`World::snapshot`]).
#[derive(Debug)]
pub struct WorldSnapshot(raw::Snapshot);

/// The limits of a World (host configuration, not world state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldLimits {
    /// Instructions (as `raw::State::set_instruction_limit` counts them) one
    /// run of a thread may take: a command's or a wakeup's run until it
    /// yields or ends, a probe.
    pub per_run: u64,
    /// Instructions all thread runs between two ticks may take together
    /// (a tick's wakeups and the commands before the next tick). When they
    /// are spent, due threads wait for the next tick.
    pub per_tick: u64,
    /// The memory limit of the World's Lua heap, in bytes (`None`: none).
    pub memory: Option<usize>,
}

impl Default for WorldLimits {
    fn default() -> Self {
        WorldLimits { per_run: 10_000_000, per_tick: 100_000_000, memory: Some(512 << 20) }
    }
}

/// A world model: one Lua state with its classes, sources and globals.
pub struct World {
    pub(crate) st: State,
    pub(crate) model: Model,
    out: OutBuf,
    scripts: Option<ScriptDir>,
    reports: Vec<LoadReport>,
    thread_reports: Vec<ThreadReport>,
    requests: Vec<Request>,
    limits: WorldLimits,
    /// The events applied since the last [`World::take_events`], while
    /// recording ([`World::record_events`]).
    events: Option<Vec<crate::journal::Event>>,
    /// [`World::special_set`]'s cache: (tangibles version, classes), set.
    special_cache: Option<((u64, usize), SpecialSet)>,
    /// [`World::keys`]' cache. The registry tables and the interned names
    /// are made by [`World::new`], before any snapshot (so no rollback
    /// frees them) and kept alive by the natives' upvalues; only a load
    /// of a whole state replaces them ([`World::restore`] clears this).
    keys: Option<Keys>,
    /// [`World::sources_version`].
    sources_version: u64,
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
        st.set_app_data(out.clone());
        classes::open(&mut st)?;
        let lib = classes::library(&mut st);
        globals::open(&mut st, lib, model == Model::Master)?;
        sourcedb::open(&mut st);
        tangible::open(&mut st, lib)?;
        threads::open(&mut st, lib)?;
        crate::players::open(&mut st, lib)?;
        let ups = Keys::new(&mut st).upvalues();
        let id = st.native_id("tell", lua_tell);
        let v = st.new_rust_closure(id, ups);
        let k = st.intern(b"tell");
        st.raw_set_str(lib, k, v);
        threads::register_blocking(&mut st, lib, "realtime");
        let limits = WorldLimits::default();
        st.set_memory_limit(limits.memory);
        tangible::host_mut(&mut st).set_budget(limits.per_tick);
        Ok(World {
            st,
            model,
            out,
            scripts: None,
            reports: Vec::new(),
            thread_reports: Vec::new(),
            requests: Vec::new(),
            limits,
            events: None,
            special_cache: None,
            keys: None,
            sources_version: tangible::next_version(),
        })
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
        self.sources_version = tangible::next_version();
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
        self.sources_version = tangible::next_version();
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
        // Permissions are re-granted by the files' permit_invoke calls.
        if let Value::Table(p) = registry_get(st, threads::PERMITS) {
            st.table_clear(p);
        }
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
            || registry_get(&mut self.st, STARTED).raw_eq_interned(Value::Bool(true))
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
        registry_get(&mut self.st, STARTED).raw_eq_interned(Value::Bool(true))
    }

    /// The load reports collected since the last call, oldest first.
    pub fn take_reports(&mut self) -> Vec<LoadReport> {
        std::mem::take(&mut self.reports)
    }

    /// What `print` (and `warn`) wrote since the last call in the world
    /// buffer: world threads, host code, loading.
    pub fn take_output(&mut self) -> String {
        self.st.flush_stdout();
        let bytes = std::mem::take(&mut *self.out.world.borrow_mut());
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// What the threads serving player `actor`'s commands printed since
    /// the last call (and the results of its finished commands).
    pub fn take_prints(&mut self, actor: u64) -> String {
        self.st.flush_stdout();
        let bytes = self.out.actors.borrow_mut().remove(&actor).unwrap_or_default();
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

    /// A process-unique number that changes whenever the source database
    /// may have changed (a reload, [`World::load_sources`], a rollback, a
    /// restore): two calls that return the same number saw the same
    /// database. Bookkeeping for the difference transmitter, which skips
    /// comparing two databases it found equal at the same two versions.
    pub fn sources_version(&self) -> u64 {
        self.sources_version
    }

    /// The World's Lua state, read-only (views of tables and strings for
    /// hosts and tests).
    pub fn state(&self) -> &State {
        &self.st
    }

    /// The World's Lua state, writable: for the engine's own modules
    /// (difference transmission applies frames through it).
    #[allow(dead_code)] // used by the diff module (issue 12)
    pub(crate) fn state_mut(&mut self) -> &mut State {
        &mut self.st
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
        self.sources_version = tangible::next_version();
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
        w.keys = None;
        w.sources_version = tangible::next_version();
        let master = !registry_get(&mut w.st, globals::GLOBALDB).is_nil();
        let complete = [classes::CLASSDB, classes::LIBRARY, sourcedb::SOURCEDB, globals::GLOBALPUB]
            .iter()
            .all(|k| matches!(registry_get(&mut w.st, k), Value::Table(_)));
        let complete = complete
            && matches!(registry_get(&mut w.st, tangible::TANGIBLES), Value::Table(_))
            && matches!(registry_get(&mut w.st, threads::PERMITS), Value::Table(_))
            && matches!(registry_get(&mut w.st, crate::players::PLAYERS), Value::Table(_))
            && w.tangibles_consistent()
            && w.threads_consistent();
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

    pub(crate) fn keys(&mut self) -> Keys {
        match self.keys {
            Some(k) => k,
            None => *self.keys.insert(Keys::new(&mut self.st)),
        }
    }

    pub(crate) fn lua_error(message: String) -> EngineError {
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
        // Room for a typical view at once rather than nine regrowths.
        let mut out = Vec::with_capacity(256);
        self.tangibles().scan_radius(center, r, &mut out);
        out
    }

    /// As [`World::scan_radius`], into `out` (reused across queries).
    pub fn scan_radius_into(&self, center: [f64; 3], r: f64, out: &mut Vec<u64>) {
        self.tangibles().scan_radius(center, r, out);
    }

    /// Advances the simulated clock by one tick (tangibles whose animation
    /// completes settle), then runs every thread due, in schedule order
    /// (`threads.rs`). A new tick budget starts ([`WorldLimits::per_tick`]).
    pub fn tick(&mut self) {
        self.record(|| crate::journal::Event::Tick);
        let host = tangible::host_mut(&mut self.st);
        host.tick();
        host.set_budget(self.limits.per_tick);
        self.run_ready();
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
    /// tangible.
    ///
    /// Cached: the set is a function of which tangibles exist and which
    /// classes exist (class tables are never replaced or freed; a
    /// tangible's table is special from its creation to its destruction,
    /// and only then may the collector free it and reuse its handle). So
    /// the cache is keyed by the Rust tangibles' version
    /// ([`Tangibles::version`](crate::Tangibles::version): process-unique,
    /// renewed by every change of a tangible, creations and destructions
    /// included, and restored exactly by a rollback) and the number of
    /// classes. A server computing frames for many sessions in one tick
    /// walks the master's tangibles once, not once per session.
    pub fn special_set(&mut self) -> SpecialSet {
        let k = self.keys();
        let key = (tangible::host(&self.st).version(), self.st.table(k.classdb).iter().count());
        if let Some((cached, set)) = &self.special_cache {
            if *cached == key {
                return set.clone();
            }
        }
        let s = self.compute_special_set();
        self.special_cache = Some((key, s.clone()));
        s
    }

    /// [`World::special_set`], computed afresh.
    pub fn compute_special_set(&mut self) -> SpecialSet {
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

// ---------------------------------------------------------------------
// Threads, commands, blocking operations, probes, limits (threads.rs)
// ---------------------------------------------------------------------

impl World {
    /// Starts (or stops) recording the events applied to this World: every
    /// call of [`World::admit`], [`World::depart`], [`World::invoke`],
    /// [`World::walk`], [`World::spawn`], [`World::answer`] and
    /// [`World::tick`] appends its [`crate::journal::Event`] (refused calls
    /// too: they are refused again on replay). A persistent master records,
    /// and journals what [`World::take_events`] gives before acknowledging.
    pub fn record_events(&mut self, on: bool) {
        self.events = on.then(Vec::new);
    }

    /// The events recorded since the last call, oldest first.
    pub fn take_events(&mut self) -> Vec<crate::journal::Event> {
        self.events.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Records the event `e()` if recording.
    pub(crate) fn record(&mut self, e: impl FnOnce() -> crate::journal::Event) {
        if let Some(v) = self.events.as_mut() {
            v.push(e());
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> WorldLimits {
        self.limits
    }

    /// Sets the limits (the memory limit applies to the Lua heap at once;
    /// the tick budget starts afresh).
    pub fn set_limits(&mut self, limits: WorldLimits) {
        self.limits = limits;
        tangible::host_mut(&mut self.st).set_budget(limits.per_tick);
        self.st.set_memory_limit(limits.memory);
    }

    /// The threads that failed or were killed since the last call, oldest
    /// first (each names its actor: the host tells that player).
    pub fn take_thread_reports(&mut self) -> Vec<ThreadReport> {
        std::mem::take(&mut self.thread_reports)
    }

    /// The blocking operations threads of this master started since the
    /// last call; answer each with [`World::answer`].
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.requests)
    }

    /// Every request the World's threads wait on, from its state, in
    /// (tangible, thread) order: what a host re-issues after
    /// [`World::restore`] (the requests it had taken with
    /// [`World::take_requests`] before a save are not answered yet). A
    /// tangible argument that was destroyed since reads as `Nil`.
    pub fn pending_requests(&mut self) -> Vec<Request> {
        let k = self.keys();
        let mut out = Vec::new();
        for id in self.tangible_ids() {
            for tid in self.threads_of(id) {
                let Some(info) = threads::info(&self.st, &k, id, tid) else { continue };
                let Value::Str(name) = threads::field(&mut self.st, info, "waiting") else {
                    continue;
                };
                let name = String::from_utf8_lossy(self.st.str_bytes(name)).into_owned();
                let actor = match threads::field(&mut self.st, info, "actorid") {
                    Value::Int(a) => Some(a as u64),
                    _ => None,
                };
                let mut args = Vec::new();
                if let Value::Table(a) = threads::field(&mut self.st, info, "waitargs") {
                    let n = match threads::field(&mut self.st, a, "n") {
                        Value::Int(n) => n.clamp(0, 255),
                        _ => 0,
                    };
                    for i in 1..=n {
                        let v = self.st.table(a).get_int(i);
                        args.push(Plain::of_value(&self.st, &k, v).unwrap_or(Plain::Nil));
                    }
                }
                out.push(Request { name, tangible: id, thread: tid, actor, args });
            }
        }
        out
    }

    /// Registers blocking operation `name`: a library function that, in a
    /// thread of the master, sends a [`Request`] (with its arguments, plain
    /// values) to the host and waits for [`World::answer`]; in a
    /// synchronous model is a NoPredict; in a probe is an error.
    /// `realtime` is registered by every World.
    pub fn register_blocking(&mut self, name: &str) {
        let lib = classes::library(&mut self.st);
        threads::register_blocking(&mut self.st, lib, name);
    }

    /// Runs a client command (seed 003): `class.function(target, args...)`
    /// as a new thread of tangible `target`, for player `actor` (its
    /// `actor()`, its print buffer, IDs from its IdPlayerPool), then runs
    /// the scheduler. Returns the thread's ID.
    ///
    /// Refused, with an error and no change to the World, if `actor` is
    /// not a live player, `target` is not a live tangible, `function` is
    /// not a function of the target's class marked by
    /// `permit_invoke(class, function)`, an argument is a tangible that
    /// does not exist, there are more than 32 arguments, or the actor's
    /// pool has no ID for the thread.
    pub fn invoke(
        &mut self,
        actor: u64,
        target: u64,
        function: &str,
        args: &[Plain],
    ) -> Result<u64, EngineError> {
        self.record(|| crate::journal::Event::Invoke {
            actor,
            target,
            function: function.to_owned(),
            args: args.to_vec(),
        });
        let refuse = |m: String| Self::lua_error(format!("invoke refused: {m}"));
        if tangible::host(&self.st).get(actor).is_none_or(|t| t.pool.is_none()) {
            return Err(refuse(format!("actor {actor} is not a player")));
        }
        let f = self.class_function(target, function).map_err(refuse)?;
        let Value::Table(permits) = registry_get(&mut self.st, threads::PERMITS) else {
            return Err(refuse("no permissions".into()));
        };
        let Some(class) = self.class_of(target) else {
            return Err(refuse(format!("no tangible {target}")));
        };
        let kf = self.st.intern(function.as_bytes());
        let permitted = match self.st.table(permits).get(Value::Table(class)) {
            Value::Table(set) => self.st.table(set).get_str(kf).raw_eq_interned(Value::Bool(true)),
            _ => false,
        };
        if !permitted {
            return Err(refuse(format!(
                "'{function}' of tangible {target}'s class is not marked by permit_invoke"
            )));
        }
        let args = self.args_values(target, args).map_err(refuse)?;
        self.start_command(actor, target, f, &args, true).map_err(refuse)
    }

    /// Starts `f(args...)` as a new thread of `target` serving player
    /// `actor` (its ID from the actor's pool), printing its results if
    /// `print`, then runs the scheduler. The thread's ID, or why not.
    pub(crate) fn start_command(
        &mut self,
        actor: u64,
        target: u64,
        f: Value,
        args: &[Value],
        print: bool,
    ) -> Result<u64, String> {
        let k = self.keys();
        let host = tangible::host_mut(&mut self.st);
        let prev = host.actor();
        host.set_actor_for_thread(Some(actor));
        let tid = host.alloc_id(k.master);
        host.set_actor_for_thread(prev);
        let tid = tid.map_err(|e| e.to_string().replace("tangible id", "thread id"))?;
        threads::create(&mut self.st, &k, target, tid, f, args, Some(actor), print, true);
        tangible::host_mut(&mut self.st).schedule_add((0, tid, target));
        self.run_ready();
        Ok(tid)
    }

    /// Starts a world thread (no actor): `class.function(target, args...)`
    /// as a new thread of tangible `target` (no `permit_invoke` needed: the
    /// host is trusted), then runs the scheduler. The thread ID comes from
    /// the master's counter, so in a synchronous model this fails (world
    /// threads reach them from the master). Returns the thread's ID.
    pub fn spawn(
        &mut self,
        target: u64,
        function: &str,
        args: &[Plain],
    ) -> Result<u64, EngineError> {
        self.record(|| crate::journal::Event::Spawn {
            target,
            function: function.to_owned(),
            args: args.to_vec(),
        });
        let k = self.keys();
        let f = self.class_function(target, function).map_err(Self::lua_error)?;
        let args = self.args_values(target, args).map_err(Self::lua_error)?;
        let host = tangible::host_mut(&mut self.st);
        let prev = host.actor();
        host.set_actor_for_thread(None);
        let tid = host.alloc_id(k.master);
        host.set_actor_for_thread(prev);
        let tid = tid.map_err(|e| {
            Self::lua_error(format!("spawn: {}", e.to_string().replace("tangible id", "thread id")))
        })?;
        threads::create(&mut self.st, &k, target, tid, f, &args, None, false, false);
        tangible::host_mut(&mut self.st).schedule_add((0, tid, target));
        self.run_ready();
        Ok(tid)
    }

    /// Answers blocking request `req` with `values` (the operation's
    /// results in the thread), then runs the scheduler: the thread resumes
    /// now. Fails if the thread no longer waits on that operation.
    pub fn answer(&mut self, req: &Request, values: &[Plain]) -> Result<(), EngineError> {
        self.record(|| crate::journal::Event::answer(req, values.to_vec()));
        let k = self.keys();
        let Some(info) = threads::info(&self.st, &k, req.tangible, req.thread) else {
            return Err(Self::lua_error(format!("answer: no thread {}", req.thread)));
        };
        let waiting = threads::field(&mut self.st, info, "waiting");
        let name = self.st.intern(req.name.as_bytes());
        if !self.st.raw_eq(waiting, Value::Str(name)) {
            return Err(Self::lua_error(format!(
                "answer: thread {} does not wait on '{}'",
                req.thread, req.name
            )));
        }
        let mut vals = Vec::new();
        for v in values {
            vals.push(
                v.to_value(&mut self.st, &k).ok_or_else(|| {
                    Self::lua_error(format!("answer: {v:?} names no live tangible"))
                })?,
            );
        }
        let packed = threads::pack(&mut self.st, &vals);
        threads::set_field(&mut self.st, info, "resume", Value::Table(packed));
        threads::set_field(&mut self.st, info, "waiting", Value::Nil);
        threads::set_field(&mut self.st, info, "waitargs", Value::Nil);
        tangible::host_mut(&mut self.st).schedule_add((0, req.thread, req.tangible));
        self.run_ready();
        Ok(())
    }

    /// Runs `code` as a *probe* (seed 003): not yieldable (`sleep`, `fork`
    /// and blocking operations raise errors) and not allowed to change the
    /// world: it runs under a snapshot that is rolled back, so the state
    /// hash is unchanged whatever it does. Returns its results as plain
    /// values (a value that is not plain is given as `Str` of its
    /// `tostring`). Limited to [`WorldLimits::per_run`] instructions.
    pub fn probe(&mut self, code: &str) -> Result<Vec<Plain>, EngineError> {
        let s = self.st.snapshot()?;
        self.st.set_instruction_limit(Some(self.limits.per_run));
        let r = self.st.exec(code.as_bytes(), b"=probe");
        self.st.set_instruction_limit(None);
        let out = r.map(|vals| {
            let k = self.keys();
            vals.iter()
                .map(|&v| {
                    Plain::of_value(&self.st, &k, v).unwrap_or_else(|| {
                        let mut b = Vec::new();
                        self.st.tostring_raw(v, &mut b);
                        Plain::Str(String::from_utf8_lossy(&b).into_owned())
                    })
                })
                .collect()
        });
        self.st.rollback(s)?;
        self.st.release(s)?;
        Ok(out?)
    }

    /// The class table of live tangible `id`.
    fn class_of(&mut self, id: u64) -> Option<TableRef> {
        let k = self.keys();
        let t = self.st.table(k.reg).get_int(id as i64);
        let mt = self.st.metatable(t)?;
        match self.st.table(mt).get_str(k.index) {
            Value::Table(c) => Some(c),
            _ => None,
        }
    }

    /// `class.function` of live tangible `target`'s class.
    fn class_function(&mut self, target: u64, function: &str) -> Result<Value, String> {
        let class = self.class_of(target).ok_or_else(|| format!("no tangible {target}"))?;
        let kf = self.st.intern(function.as_bytes());
        match self.st.table(class).get_str(kf) {
            f @ (Value::LuaFn(_) | Value::RustFn(_)) => Ok(f),
            _ => Err(format!("tangible {target}'s class has no function '{function}'")),
        }
    }

    /// The arguments `target, args...` as Lua values.
    fn args_values(&mut self, target: u64, args: &[Plain]) -> Result<Vec<Value>, String> {
        if args.len() > 32 {
            return Err(format!("too many arguments ({}; at most 32)", args.len()));
        }
        let k = self.keys();
        let mut out = vec![self.st.table(k.reg).get_int(target as i64)];
        for (i, a) in args.iter().enumerate() {
            out.push(
                a.to_value(&mut self.st, &k)
                    .ok_or_else(|| format!("bad argument #{}: no tangible {a:?}", i + 1))?,
            );
        }
        Ok(out)
    }

    /// The scheduler: runs every due thread (time 0, or at or before now)
    /// in schedule order, while the tick budget lasts.
    fn run_ready(&mut self) {
        while tangible::host(&self.st).budget() > 0 {
            let Some(e) = tangible::host_mut(&mut self.st).pop_due() else { break };
            self.run_thread(e.1, e.2);
        }
    }

    /// Removes thread `tid` of tangible `id` from its table and the
    /// schedule.
    fn remove_thread(&mut self, id: u64, tid: u64) {
        let k = self.keys();
        if let Some(th) = threads::thread_table(&self.st, &k, id) {
            self.st.raw_set_int(th, tid as i64, Value::Nil);
        }
        tangible::host_mut(&mut self.st).unschedule_thread(tid);
    }

    /// Runs thread `tid` of tangible `id` until it yields or ends.
    fn run_thread(&mut self, tid: u64, id: u64) {
        let k = self.keys();
        let Some(info) = threads::info(&self.st, &k, id, tid) else { return };
        let Value::Thread(co) = threads::field(&mut self.st, info, "thread") else {
            self.remove_thread(id, tid);
            return;
        };
        let actor = match threads::field(&mut self.st, info, "actorid") {
            Value::Int(a) => Some(a as u64),
            _ => None,
        };
        let truthy = |v: Value| !matches!(v, Value::Nil | Value::Bool(false));
        let useppool = truthy(threads::field(&mut self.st, info, "useppool"));
        let print = truthy(threads::field(&mut self.st, info, "print"));
        let new = truthy(threads::field(&mut self.st, info, "new"));
        let base = self.st.nargs();
        let key = if new { "args" } else { "resume" };
        let mut nargs = 0;
        if let Value::Table(a) = threads::field(&mut self.st, info, key) {
            let n = match threads::field(&mut self.st, a, "n") {
                Value::Int(n) => n.max(0),
                _ => 0,
            };
            for i in 1..=n {
                let v = self.st.table(a).get_int(i);
                self.st.push(v);
            }
            nargs = n as usize;
            threads::set_field(&mut self.st, info, key, Value::Nil);
        }
        if new {
            threads::set_field(&mut self.st, info, "new", Value::Bool(false));
        }
        let host = tangible::host_mut(&mut self.st);
        let prev_actor = host.actor();
        host.set_actor_for_thread(if useppool { actor } else { None });
        host.running = Some(threads::Running {
            tangible: id,
            actor,
            co,
            useppool,
            request: None,
            nopredict: None,
        });
        self.out.cur.set(actor);
        let budget = tangible::host(&self.st).budget();
        let limit = self.limits.per_run.min(budget);
        self.st.set_instruction_limit(Some(limit));
        let r = self.st.resume(co, nargs);
        let used = limit - self.st.instructions_left().unwrap_or(0).min(limit);
        self.st.set_instruction_limit(None);
        self.st.flush_stdout();
        let host = tangible::host_mut(&mut self.st);
        host.set_budget(budget.saturating_sub(used.max(1)));
        let (request, nopredict) = match host.running.take() {
            Some(r) => (r.request, r.nopredict),
            None => (None, None),
        };
        host.set_actor_for_thread(prev_actor);
        let report = |kind, message: String, traceback: String| ThreadReport {
            actor,
            tangible: id,
            thread: tid,
            kind,
            message,
            traceback,
        };
        if let Some(what) = nopredict {
            self.remove_thread(id, tid);
            self.thread_reports.push(report(
                ThreadReportKind::NoPredict,
                format!(
                    "NoPredict: {what} is data only the master has and this is a \
                     nonauthoritative model; the thread was killed"
                ),
                String::new(),
            ));
            self.out.cur.set(None);
            self.st.set_top(base);
            return;
        }
        match r {
            Ok(Ok(n)) if self.st.thread_status(co) == CoStatus::Dead => {
                if print && n > 0 {
                    let mut line = Vec::new();
                    for i in 0..n {
                        if i > 0 {
                            line.push(b'\t');
                        }
                        let v = self.st.arg(base + i + 1);
                        self.st.tostring_raw(v, &mut line);
                    }
                    line.push(b'\n');
                    self.st.write_stdout(&line);
                    self.st.flush_stdout();
                }
                self.remove_thread(id, tid);
            }
            Ok(Ok(_)) => match request {
                Some(Yielded::Sleep(t)) => {
                    if threads::info(&self.st, &k, id, tid).is_some() {
                        let host = tangible::host_mut(&mut self.st);
                        let at = host.now().saturating_add(t.max(1));
                        host.schedule_add((at, tid, id));
                    }
                }
                Some(Yielded::Block(name, args)) => {
                    if let Some(info) = threads::info(&self.st, &k, id, tid) {
                        let v = self.st.new_string(name.as_bytes());
                        threads::set_field(&mut self.st, info, "waiting", v);
                        // The arguments stay with the thread, so that the
                        // request can be issued again after a restore.
                        let vals: Vec<Value> =
                            args.iter().filter_map(|a| a.to_value(&mut self.st, &k)).collect();
                        let packed = threads::pack(&mut self.st, &vals);
                        threads::set_field(&mut self.st, info, "waitargs", Value::Table(packed));
                        self.requests.push(Request {
                            name,
                            tangible: id,
                            thread: tid,
                            actor,
                            args,
                        });
                    }
                }
                Some(Yielded::NoPredict(name)) => {
                    self.remove_thread(id, tid);
                    self.thread_reports.push(report(
                        ThreadReportKind::NoPredict,
                        format!(
                            "NoPredict: '{name}' is a blocking operation and this is a \
                             nonauthoritative model; the thread was killed"
                        ),
                        String::new(),
                    ));
                }
                None => {
                    self.remove_thread(id, tid);
                    self.thread_reports.push(report(
                        ThreadReportKind::Error,
                        "a world thread yielded with coroutine.yield (threads wait only with \
                         sleep and blocking operations); it was killed"
                            .into(),
                        String::new(),
                    ));
                }
            },
            Ok(Err(ev)) => {
                let mut m = Vec::new();
                self.st.tostring_raw(ev, &mut m);
                let tb = self.st.traceback_of(co, None, 0, false);
                self.remove_thread(id, tid);
                let msg = String::from_utf8_lossy(&m).into_owned();
                let kind = if msg == "not enough memory" {
                    ThreadReportKind::Limit
                } else {
                    ThreadReportKind::Error
                };
                self.thread_reports.push(report(kind, msg, tb));
            }
            Err(e) => {
                let tb = self.st.traceback_of(co, None, 0, false);
                self.remove_thread(id, tid);
                let kind = match e.kind() {
                    ErrorKind::InstructionLimit | ErrorKind::Memory | ErrorKind::Interrupted => {
                        ThreadReportKind::Limit
                    }
                    _ => ThreadReportKind::Error,
                };
                self.thread_reports.push(report(kind, e.message().to_owned(), tb));
            }
        }
        self.out.cur.set(None);
        self.st.set_top(base);
    }

    /// The IDs of the threads of tangible `id`, ascending (empty if there
    /// is no such tangible).
    pub fn threads_of(&mut self, id: u64) -> Vec<u64> {
        let k = self.keys();
        let Some(th) = threads::thread_table(&self.st, &k, id) else { return Vec::new() };
        let mut v: Vec<u64> = self
            .st
            .table(th)
            .iter()
            .filter_map(|(t, _)| match t {
                Value::Int(t) => Some(t as u64),
                _ => None,
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// Whether every wakeup of the schedule names a thread of its
    /// tangible's thread table that does not wait on a blocking operation,
    /// and every thread is either scheduled or waiting.
    pub fn threads_consistent(&mut self) -> bool {
        let k = self.keys();
        let sched: Vec<(i64, u64, u64)> =
            tangible::host(&self.st).schedule().iter().copied().collect();
        let mut scheduled = std::collections::BTreeSet::new();
        for &(_, tid, id) in &sched {
            let Some(info) = threads::info(&self.st, &k, id, tid) else { return false };
            if !threads::field(&mut self.st, info, "waiting").is_nil() {
                return false;
            }
            scheduled.insert((id, tid));
        }
        for id in self.tangible_ids() {
            let Some(th) = threads::thread_table(&self.st, &k, id) else { return false };
            let entries: Vec<(Value, Value)> = self.st.table(th).iter().collect();
            for (t, info) in entries {
                let (Value::Int(tid), Value::Table(info)) = (t, info) else { return false };
                let waiting = !threads::field(&mut self.st, info, "waiting").is_nil();
                if waiting == scheduled.contains(&(id, tid as u64)) {
                    return false;
                }
            }
        }
        true
    }
}
