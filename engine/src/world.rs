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
//!    `globalpub`, and in the master `globaldb` (`globals.rs`).
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
//!   `globaldb`), so [`World::state_hash`], [`World::snapshot`] /
//!   [`World::rollback`] and [`World::save`] / [`World::restore`] cover it
//!   all. The Rust side holds only the model kind, the script directory
//!   reader, pending reports and printed output.
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
use luprex_vm::raw::{self, State, Value};
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
        if !complete || master != (model == Model::Master) {
            return Err(EngineError::Lua {
                message: format!("the saved state is not a {model:?} world"),
                traceback: String::new(),
            });
        }
        Ok(w)
    }
}
