//! Functions: prototypes, Lua closures, Rust closures and upvalues.
//!
//! A compiled [`luprex_compiler::Proto`] tree is converted at load time into
//! one [`FnProto`] per function, each in the heap's prototype arena. The
//! conversion turns constants into [`Value`]s (interning string constants)
//! and nested prototypes into handles, so the interpreter never sees the
//! compiler's plain-data representation.
//!
//! A [`LuaClosure`] pairs a prototype with its upvalues. An upvalue is an
//! object of its own ([`UpVal`]) so that several closures can share one
//! variable. While the variable's frame is alive the upvalue is *open*: it
//! names a stack slot of a thread (`thread`, `slot`), and every read or
//! write goes to that slot. When the frame exits (RETURN, CLOSE, a
//! coroutine dying, an error unwinding) the upvalue is *closed*: the value
//! moves into the upvalue itself. Each thread keeps the list of its open
//! upvalues sorted by slot (see `thread.rs`), so closing everything at or
//! above a level is popping from the end of a vector.
//!
//! A [`RustClosure`] is a registered native (by its [`NativeId`], an index
//! into the state's table of natives, itself keyed by a stable name so that
//! a heap snapshot can be re-bound in another process) plus upvalues.
//!
//! **Invariants:** a `FnProto` is immutable after loading; an open upvalue's
//! slot is below the length of its thread's stack; a thread's open-upvalue
//! list holds each open upvalue exactly once.

use crate::value::{StrRef, ThreadRef, Value};
use crate::Handle;
use luprex_compiler::{Instruction, LocVar, UpvalDesc};
use std::cell::Cell;
use std::rc::Rc;

/// Handle to a function prototype.
pub type ProtoRef = Handle<FnProto>;
/// Handle to an upvalue.
pub type UpvalRef = Handle<UpVal>;

/// A function prototype in heap form.
#[derive(Clone, Debug)]
pub struct FnProto {
    /// The bytecode, as the dispatch loop runs it ([`Code`]). Immutable
    /// but for its lookup hints, and shared (`Rc`) by cloned heaps; its
    /// contents never move while the prototype lives, so the loop holds
    /// the running function's code (and constants) as a raw pointer for the
    /// whole activation instead of going through the arena at every
    /// instruction (see `fetch!` in `execute.rs`).
    pub code: Code,
    /// Constants, with strings interned (shared like `code`).
    pub k: Rc<[Value]>,
    /// Nested prototypes (for `CLOSURE`).
    pub protos: Box<[ProtoRef]>,
    /// Upvalue descriptors.
    pub upvals: Box<[UpvalDesc]>,
    /// Number of fixed parameters.
    pub num_params: u8,
    /// Whether the function takes `...`.
    pub is_vararg: bool,
    /// Registers needed.
    pub max_stack: u8,
    /// Chunk name (`@file`, `=name`, or the source text).
    pub source: StrRef,
    /// Line of the `function` keyword (0 for a main chunk).
    pub line_defined: u32,
    /// Line of the `end` keyword.
    pub last_line_defined: u32,
    /// Source line of each instruction.
    pub line_info: Box<[u32]>,
    /// Local variables (debug information).
    pub loc_vars: Box<[LocVar]>,
}

/// A prototype's instructions, each beside the field-lookup hint of the
/// instruction before it ([`Op`]): one pointer reaches both (a second
/// array of hints kept the loop one register short), and the running
/// instruction's hint is at the pc the loop has already advanced (no
/// address computed per dispatch). One entry more than the instructions
/// holds the last one's hint. Read as a slice of instructions (`len`,
/// `get`, `iter`, indexing).
#[derive(Clone, Debug)]
pub struct Code(Rc<[Op]>);

/// An entry of [`Code`]. The hint (see
/// [`TableView::get_str_hinted`](crate::table::TableView::get_str_hinted))
/// is where GETFIELD, GETTABUP or SELF last found its key. Speed only: a
/// hint is checked before it is trusted, so it never changes a result; it
/// is not saved, hashed or compared, and a loaded prototype starts afresh.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct Op {
    /// The instruction (in the extra last entry, a copy of the last one or
    /// a zero word, never run).
    pub(crate) i: Instruction,
    /// The lookup hint of the instruction before.
    pub(crate) hint: Cell<u32>,
}

impl Code {
    /// `code` with fresh hints.
    pub fn new(code: &[Instruction]) -> Code {
        let extra = code.last().copied().unwrap_or(Instruction(0));
        let ops = code.iter().copied().chain(std::iter::once(extra));
        Code(ops.map(|i| Op { i, hint: Cell::new(0) }).collect())
    }

    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.0.len() - 1
    }

    /// Whether there is no instruction.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Instruction `pc`, if any.
    pub fn get(&self, pc: usize) -> Option<&Instruction> {
        self.0[..self.len()].get(pc).map(|op| &op.i)
    }

    /// The instructions in order.
    pub fn iter(&self) -> impl Iterator<Item = &Instruction> {
        self.0[..self.len()].iter().map(|op| &op.i)
    }

    /// The instructions, copied.
    pub fn to_vec(&self) -> Vec<Instruction> {
        self.iter().copied().collect()
    }

    /// The first entry, for the dispatch loop (`fetch!`, `hint!`).
    pub(crate) fn as_ptr(&self) -> *const Op {
        self.0.as_ptr()
    }
}

impl std::ops::Index<usize> for Code {
    type Output = Instruction;
    fn index(&self, pc: usize) -> &Instruction {
        &self.0[..self.len()][pc].i
    }
}

impl FnProto {
    /// Source line of instruction `pc`, if known.
    pub fn line_at(&self, pc: usize) -> Option<u32> {
        self.line_info.get(pc).copied()
    }

    /// Name of the `n`-th (1-based) local variable active at `pc`, as
    /// `luaF_getlocalname`.
    pub fn local_name(&self, mut n: usize, pc: usize) -> Option<&[u8]> {
        for lv in self.loc_vars.iter() {
            if lv.start_pc as usize > pc {
                break;
            }
            if pc < lv.end_pc as usize {
                n -= 1;
                if n == 0 {
                    return Some(&lv.name);
                }
            }
        }
        None
    }

    /// Rough byte size, for the collector's accounting.
    pub fn estimated_bytes(&self) -> usize {
        std::mem::size_of::<FnProto>()
            + self.code.len() * 8
            + self.k.len() * 16
            + self.protos.len() * 4
            + self.upvals.len() * 40
            + self.line_info.len() * 4
            + self.loc_vars.len() * 40
    }
}

/// A Lua function: a prototype and its upvalues.
///
/// Besides the prototype's handle, a closure keeps what a call needs from
/// it: shares of its code and constants and its frame size. A call then
/// reads the closure alone, one arena look-up instead of two in a row
/// (closure, then prototype) on the path of every call and return. The
/// copies are derived from the prototype, immutable as it is, and never
/// saved, hashed or compared: [`LuaClosure::new`] is the only way to make
/// one, and loading a saved state rebuilds them.
///
/// A closure takes a whole 64-byte line of its arena (56 bytes of fields,
/// aligned to 64): the loop finds a closure from its handle on every call
/// and return, and a power-of-two slot is a shift where 56 bytes was a
/// multiply, three cycles on the chain from a callee to its first
/// instruction (benches/RESULTS.md part 36).
#[derive(Clone, Debug)]
#[repr(align(64))]
pub struct LuaClosure {
    /// The prototype.
    pub proto: ProtoRef,
    /// One upvalue per descriptor of the prototype.
    pub upvals: Box<[UpvalRef]>,
    /// The prototype's `code`.
    pub(crate) code: Code,
    /// The prototype's `k`.
    pub(crate) k: Rc<[Value]>,
    /// The prototype's `max_stack`.
    pub(crate) max_stack: u8,
    /// The prototype's `is_vararg`.
    pub(crate) is_vararg: bool,
    /// The prototype's `num_params`.
    pub(crate) num_params: u8,
}

// An arena slot is an `Option`, which the fields' niches keep at 64 bytes.
const _: () = assert!(std::mem::size_of::<Option<LuaClosure>>() == 64);

impl LuaClosure {
    /// A closure of prototype `p` (whose handle is `proto`).
    pub fn new(proto: ProtoRef, p: &FnProto, upvals: Box<[UpvalRef]>) -> LuaClosure {
        // The dispatch loop reads upvalues unchecked, trusting this.
        assert_eq!(upvals.len(), p.upvals.len(), "luprex-vm: closure with wrong upvalue count");
        LuaClosure {
            proto,
            upvals,
            code: p.code.clone(),
            k: p.k.clone(),
            max_stack: p.max_stack,
            is_vararg: p.is_vararg,
            num_params: p.num_params,
        }
    }
}

/// Index of a registered native function in the state's native table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NativeId(pub u32);

/// A Rust function value: a registered native plus upvalues.
#[derive(Clone, Debug)]
pub struct RustClosure {
    /// Which native.
    pub id: NativeId,
    /// Upvalues (`lua_upvalueindex`-like), readable by the native.
    pub upvalues: Vec<Value>,
}

/// A captured variable.
#[derive(Clone, Copy, Debug)]
pub enum UpVal {
    /// Still on a stack: `thread`'s stack slot `slot`.
    Open {
        /// The thread whose stack holds the variable.
        thread: ThreadRef,
        /// The absolute stack slot.
        slot: u32,
    },
    /// The variable's own storage, after its frame exited.
    Closed(Value),
}
