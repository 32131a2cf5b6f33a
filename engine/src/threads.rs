//! Threads, the schedule, commands and blocking operations (seed 004,
//! "Threads"; seed 003, "NoPredict and Blocking Operations").
//!
//! **The thread table.** Every tangible has a table of threads in its
//! protected metatable (`threads`, see `tangible.rs`): thread ID → *thread
//! info table*:
//!
//! ```text
//! threads = {
//!   [tid] = {
//!     thread   = <coroutine>,
//!     actorid  = 12 or nil,   -- the player whose command it serves
//!     print    = true/false,  -- print the results when it ends (commands)
//!     useppool = true/false,  -- new IDs come from the actor's ID pool
//!     new      = true/false,  -- not started yet: `args` holds its arguments
//!     args     = {n = 2, ...},-- while new
//!     resume   = {n = 1, ...},-- the answer of a blocking operation, until resumed
//!     waiting  = "realtime",  -- while blocked on a blocking operation
//!     waitargs = {n = 1, ...},-- and that operation's arguments
//!   },
//! }
//! ```
//!
//! A thread stays in its table from its creation until it ends, fails, is
//! killed (NoPredict, a limit) or its tangible is destroyed.
//!
//! **Thread IDs** are 64-bit and come from the same allocator as tangible
//! IDs (`tangible.rs`): a thread that serves a command (`useppool`) and
//! every thread it forks take their ID from the actor's IdPlayerPool, so a
//! command predicted on a client creates the same thread IDs as on the
//! master; a world thread takes the master's counter. IDs are never reused
//! and never collide with tangible IDs.
//!
//! **The schedule** is the set of wakeups `(time, thread id, tangible id)`
//! in the host data `engine.tangibles` (so snapshots, saves and the hash
//! cover it), ordered as tuples. Time 0 means *run now*. The scheduler
//! ([`crate::World`]'s `run_ready`) repeatedly takes the first wakeup whose
//! time is 0 or `<= now` and resumes that thread until it yields or ends;
//! so threads due in a tick run in (time, tid, tangible) order, and *run
//! now* threads (new commands, forks, answered requests) run before
//! threads waking at the tick. A thread scheduled by a thread running in
//! this pass runs in the same pass if it is due (a `fork`: time 0), never
//! if it sleeps: `sleep(n)` wakes at `now + max(n, 1)`, so `sleep(0)` is
//! `sleep(1)` (the next tick) and no thread can keep a tick busy by
//! sleeping. The scheduler runs after [`crate::World::tick`] advanced the
//! clock, after [`crate::World::invoke`] and [`crate::World::spawn`]
//! created a thread and after [`crate::World::answer`].
//!
//! **Running a thread.** While a thread runs, the host data holds a
//! `Running` record (transient: `None` at rest): its ID, tangible, actor
//! and coroutine, and what it yielded for. `sleep` and the blocking
//! operations record their request there and yield; the scheduler reads
//! it when the resume returns. `print` goes to the actor's buffer (world
//! threads: the world buffer). If the thread uses its actor's pool, the
//! World's actor is that player while it runs.
//!
//! **Contexts** (seed 003):
//! * *authoritative* (a thread in the master): a blocking operation
//!   yields; its [`Request`] goes to the host ([`crate::World::take_requests`]);
//!   the thread is out of the schedule (`waiting` set) until the host calls
//!   [`crate::World::answer`], which resumes it with the answer as the
//!   operation's results;
//! * *nonauthoritative* (a thread in ServerSync/ClientSync): a blocking
//!   operation is a **NoPredict**: the thread yields and is killed, nothing
//!   is scheduled, and the host gets a [`ThreadReport`] of kind
//!   [`ThreadReportKind::NoPredict`];
//! * *probe* (no world thread: [`crate::World::probe`], host code run by
//!   `exec`/`call`): not yieldable: `sleep`, `fork` and blocking operations
//!   raise errors.

use crate::tangible::{self, AsTangible, Keys};
use luprex_vm::raw::{Action, Error, State, TableRef, ThreadRef, Value};

type R = Result<Action, Error>;

/// Registry key of the invoke permissions: class table → {name = true}.
pub(crate) const PERMITS: &str = "permits";

/// A plain value: what a command's arguments, a blocking operation's
/// arguments and answers, and a probe's results can be.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Plain {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A tangible, by ID (the Lua tangible in the World).
    Tangible(u64),
}

impl Plain {
    /// The Lua value (`None`: a tangible that does not exist).
    pub(crate) fn to_value(&self, st: &mut State, k: &Keys) -> Option<Value> {
        Some(match self {
            Plain::Nil => Value::Nil,
            Plain::Bool(b) => Value::Bool(*b),
            Plain::Int(i) => Value::Int(*i),
            Plain::Float(f) => Value::Float(*f),
            Plain::Str(s) => Value::Str(st.intern(s.as_bytes())),
            Plain::Tangible(id) => match st.table(k.reg).get_int(*id as i64) {
                t @ Value::Table(_) => t,
                _ => return None,
            },
        })
    }

    /// The plain value of `v`, if it is one.
    pub(crate) fn of_value(st: &State, k: &Keys, v: Value) -> Option<Plain> {
        Some(match v {
            Value::Nil => Plain::Nil,
            Value::Bool(b) => Plain::Bool(b),
            Value::Int(i) => Plain::Int(i),
            Value::Float(f) => Plain::Float(f),
            Value::Str(s) => Plain::Str(String::from_utf8_lossy(st.str_bytes(s)).into_owned()),
            v => match tangible::as_tangible(st, k, v) {
                AsTangible::Live(id, _) => Plain::Tangible(id),
                _ => return None,
            },
        })
    }
}

/// What happened to a thread that the host must know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadReportKind {
    /// The thread raised an error and was removed.
    Error,
    /// The thread ran past its instruction budget (or the World's memory
    /// limit) and was removed.
    Limit,
    /// The thread tried a blocking operation in a nonauthoritative model
    /// and was killed (NoPredict).
    NoPredict,
}

/// A thread that failed or was killed (for its actor, or the world).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadReport {
    /// The actor of the thread (`None`: a world thread).
    pub actor: Option<u64>,
    /// The tangible the thread belonged to.
    pub tangible: u64,
    /// The thread ID.
    pub thread: u64,
    /// What happened.
    pub kind: ThreadReportKind,
    /// The message (`chunk:line: ...` for errors raised in Lua code).
    pub message: String,
    /// The traceback of the thread where it failed (may be empty).
    pub traceback: String,
}

/// A blocking operation a thread of the master waits on: the host answers
/// it with [`crate::World::answer`].
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The operation (`"realtime"`, or a name given to
    /// [`crate::World::register_blocking`]).
    pub name: String,
    /// The tangible of the waiting thread.
    pub tangible: u64,
    /// The waiting thread.
    pub thread: u64,
    /// Its actor.
    pub actor: Option<u64>,
    /// The operation's arguments.
    pub args: Vec<Plain>,
}

/// The thread running now (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Running {
    pub tangible: u64,
    pub actor: Option<u64>,
    pub co: ThreadRef,
    pub useppool: bool,
    pub request: Option<Yielded>,
    /// Set when the thread used something only the master has (global
    /// data) in a synchronous model: the thread is killed as a NoPredict
    /// when its resume returns, whatever it did after.
    pub nopredict: Option<String>,
}

/// Why the running thread yielded.
#[derive(Clone, Debug)]
pub(crate) enum Yielded {
    Sleep(i64),
    Block(String, Vec<Plain>),
    NoPredict(String),
}

/// Opens the thread functions in the library `lib` and creates the
/// registry table of permissions.
pub(crate) fn open(st: &mut State, lib: TableRef) -> Result<(), Error> {
    let permits = st.new_table_sized(0, 4);
    let kp = st.intern(PERMITS.as_bytes());
    let reg = st.registry();
    st.raw_set_str(reg, kp, Value::Table(permits));
    let ups = Keys::new(st).upvalues();
    let fns: [(&'static str, luprex_vm::raw::NativeFn); 4] = [
        ("sleep", lua_sleep),
        ("actor", lua_actor),
        ("fork", lua_fork),
        ("permit_invoke", lua_permit_invoke),
    ];
    for (name, f) in fns {
        let id = st.native_id(name, f);
        let v = st.new_rust_closure(id, ups.clone());
        let k = st.intern(name.as_bytes());
        st.raw_set_str(lib, k, v);
    }
    st.native_id("engine.blocking", lua_blocking);
    Ok(())
}

/// Registers blocking operation `name` as a library function of `lib`.
pub(crate) fn register_blocking(st: &mut State, lib: TableRef, name: &str) {
    let mut ups = Keys::new(st).upvalues();
    ups.push(Value::Str(st.intern(name.as_bytes())));
    let id = st.native_id("engine.blocking", lua_blocking);
    let v = st.new_rust_closure(id, ups);
    let k = st.intern(name.as_bytes());
    st.raw_set_str(lib, k, v);
}

/// `t[name]` (raw) for a field name.
pub(crate) fn field(st: &mut State, t: TableRef, name: &str) -> Value {
    let k = st.intern(name.as_bytes());
    st.table(t).get_str(k)
}

/// `t[name] = v` (raw).
pub(crate) fn set_field(st: &mut State, t: TableRef, name: &str, v: Value) {
    let k = st.intern(name.as_bytes());
    st.raw_set_str(t, k, v);
}

/// The thread table of live tangible `id`.
pub(crate) fn thread_table(st: &State, k: &Keys, id: u64) -> Option<TableRef> {
    let t = st.table(k.reg).get_int(id as i64);
    let mt = st.metatable(t)?;
    match st.table(mt).get_str(k.threads) {
        Value::Table(th) => Some(th),
        _ => None,
    }
}

/// The info table of thread `tid` of tangible `id`.
pub(crate) fn info(st: &State, k: &Keys, id: u64, tid: u64) -> Option<TableRef> {
    let th = thread_table(st, k, id)?;
    match st.table(th).get_int(tid as i64) {
        Value::Table(i) => Some(i),
        _ => None,
    }
}

/// A packed argument list `{n = #args, ...}`.
pub(crate) fn pack(st: &mut State, args: &[Value]) -> TableRef {
    let t = st.new_table_sized(args.len(), 1);
    for (i, a) in args.iter().enumerate() {
        st.raw_set_int(t, i as i64 + 1, *a);
    }
    set_field(st, t, "n", Value::Int(args.len() as i64));
    t
}

/// Creates thread `tid` of tangible `id` running `f(args...)` and puts it
/// in the tangible's thread table (not in the schedule).
#[allow(clippy::too_many_arguments)]
pub(crate) fn create(
    st: &mut State,
    k: &Keys,
    id: u64,
    tid: u64,
    f: Value,
    args: &[Value],
    actor: Option<u64>,
    print: bool,
    useppool: bool,
) -> bool {
    let Some(th) = thread_table(st, k, id) else { return false };
    let co = st.new_thread(f);
    let info = st.new_table_sized(0, 8);
    set_field(st, info, "thread", Value::Thread(co));
    set_field(st, info, "actorid", actor.map_or(Value::Nil, |a| Value::Int(a as i64)));
    set_field(st, info, "print", Value::Bool(print));
    set_field(st, info, "useppool", Value::Bool(useppool));
    set_field(st, info, "new", Value::Bool(true));
    let packed = pack(st, args);
    set_field(st, info, "args", Value::Table(packed));
    st.raw_set_int(th, tid as i64, Value::Table(info));
    true
}

/// The running world thread, if the running coroutine is one.
fn running_here(st: &State) -> Option<&Running> {
    let r = tangible::host(st).running.as_ref()?;
    (r.co == st.running_thread()).then_some(r)
}

/// If a world thread is running (in any coroutine of it), flags it as a
/// NoPredict for `what`; whether it was flagged.
pub(crate) fn flag_nopredict(st: &mut State, what: &str) -> bool {
    match tangible::host_mut(st).running.as_mut() {
        Some(r) => {
            r.nopredict.get_or_insert_with(|| what.to_owned());
            true
        }
        None => false,
    }
}

/// Why a yielding function cannot run here.
fn not_here(st: &mut State, f: &str) -> Error {
    let msg = if tangible::host(st).running.is_some() {
        format!(
            "{f}: not in a world thread (called inside a coroutine the thread created; only \
             the thread itself can wait)"
        )
    } else {
        format!("{f}: not in a world thread (a probe or host code cannot yield)")
    };
    st.native_error(msg)
}

/// `sleep(ticks)`.
fn lua_sleep(st: &mut State) -> R {
    let ticks = if st.arg_is_none(1) { 0 } else { st.check_int(1)? };
    if ticks < 0 {
        return Err(st.arg_error(1, "ticks must not be negative"));
    }
    if running_here(st).is_none() {
        return Err(not_here(st, "sleep"));
    }
    if let Some(r) = tangible::host_mut(st).running.as_mut() {
        r.request = Some(Yielded::Sleep(ticks));
    }
    Ok(Action::Yield { nvalues: 0, k: None })
}

/// `actor()`.
fn lua_actor(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let a = tangible::host(st).running.as_ref().and_then(|r| r.actor);
    let v = a.map_or(Value::Nil, |a| st.table(k.reg).get_int(a as i64));
    st.push(v);
    Ok(Action::Return(1))
}

/// `fork(f, ...)`.
fn lua_fork(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let f = st.arg(1);
    if !f.is_function() {
        return Err(st.arg_type_error(1, "function"));
    }
    let Some(r) = running_here(st).cloned() else { return Err(not_here(st, "fork")) };
    let tid = match tangible::host_mut(st).alloc_id(k.master) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("fork: {}", e.to_string().replace("tangible id", "thread id"));
            return Err(st.native_error(msg));
        }
    };
    let args: Vec<Value> = (2..=st.nargs()).map(|i| st.arg(i)).collect();
    if !create(st, &k, r.tangible, tid, f, &args, r.actor, false, r.useppool) {
        return Err(st.native_error("fork: the thread's tangible was destroyed"));
    }
    tangible::host_mut(st).schedule_add((0, tid, r.tangible));
    st.push(Value::Int(tid as i64));
    Ok(Action::Return(1))
}

/// `permit_invoke(class, name)`.
fn lua_permit_invoke(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let class = tangible::check_class(st, &k, 1)?;
    let Value::Str(name) = st.arg(2) else { return Err(st.arg_type_error(2, "string")) };
    let Value::Table(permits) = crate::registry_get(st, PERMITS) else {
        return Err(st.native_error("permit_invoke: no permission table"));
    };
    let set = match st.table(permits).get(Value::Table(class)) {
        Value::Table(s) => s,
        _ => {
            let s = st.new_table_sized(0, 4);
            st.try_table_set(Value::Table(permits), Value::Table(class), Value::Table(s))?;
            s
        }
    };
    st.raw_set_str(set, name, Value::Bool(true));
    Ok(Action::Return(0))
}

/// A blocking operation (upvalue 9: its name).
fn lua_blocking(st: &mut State) -> R {
    let k = Keys::of_running(st);
    let name = match st.native_upvalue(9) {
        Value::Str(s) => String::from_utf8_lossy(st.str_bytes(s)).into_owned(),
        _ => "blocking operation".to_owned(),
    };
    let mut args = Vec::new();
    for i in 1..=st.nargs() {
        match Plain::of_value(st, &k, st.arg(i)) {
            Some(p) => args.push(p),
            None => {
                return Err(st.arg_error(
                    i,
                    "plain value expected (nil, boolean, number, string or tangible)",
                ))
            }
        }
    }
    if running_here(st).is_none() {
        let msg = format!(
            "{name}: a blocking operation cannot run here: a probe (or host code) is not \
             yieldable"
        );
        return Err(st.native_error(msg));
    }
    let y = if k.master { Yielded::Block(name, args) } else { Yielded::NoPredict(name) };
    if let Some(r) = tangible::host_mut(st).running.as_mut() {
        r.request = Some(y);
    }
    Ok(Action::Yield { nvalues: 0, k: None })
}
