//! The low-level API: the VM as the standard library, the command-line
//! interpreter and the engine use it.
//!
//! The crate root speaks `mlua` ([`crate::Lua`], [`crate::Value`],
//! [`crate::Table`]...): rooted handles, conversions, closures as
//! functions. This module is the layer underneath, and the only other door
//! into the VM: everything not re-exported here or at the root is private
//! to the crate, so a change inside the VM cannot break a user that did not
//! go through one of these two doors.
//!
//! What is here:
//!
//! * **The state and its values.** [`State`] owns the heap and runs code;
//!   [`Value`] is the VM's own 16-byte `Copy` value whose objects are
//!   *unrooted* handles ([`TableRef`], [`StrRef`], [`ThreadRef`]...),
//!   valid until the collector runs (see [`State`]'s rooting rules).
//! * **Natives.** A Rust function is a [`NativeFn`] registered under a
//!   stable name; it returns an [`Action`]: return values, call a function
//!   and continue in a [`KFn`], or yield. Argument helpers (`arg`,
//!   `check_int`, `check_str`, `arg_error`...) are methods of [`State`].
//! * **Calls.** [`State::call`], [`State::call_msgh`], [`State::exec`],
//!   [`State::resume`]; errors are [`Error`] with an [`ErrorKind`].
//! * **Limits and work.** [`State::set_instruction_limit`],
//!   [`State::set_memory_limit`], [`InterruptHandle`]; a native charges the
//!   work it does with [`State::charge_work`] / [`State::charge_bytes`],
//!   or, in a loop over borrowed strings, through a [`WorkMeter`] borrowed
//!   beside a read-only [`HeapView`] ([`State::work_meter`]); exchange
//!   rates in [`WORK_BYTES`] and `limits.rs`.
//! * **Pins.** [`State::pin`] roots a value for the host ([`Pin`]).
//! * **Reads without copies.** [`State::str_bytes`] borrows a string's
//!   bytes; [`State::table`] gives a read-only [`TableView`] (raw gets,
//!   length, traversal order). Writes go through [`State::try_table_set`], [`State::raw_set_int`] and
//!   the other mutators ([`State::table_clear`] empties a table in place),
//!   which keep the collector's accounting and the snapshot journal right.
//! * **The world operations** the engine is built on: snapshot and
//!   rollback ([`State::snapshot`], [`Snapshot`]), save and load
//!   ([`State::save_state`], [`PayloadLoader`]), the 128-bit state hash
//!   ([`State::state_hash`], [`StateHasher`]), and the table-graph
//!   traversals of difference transmission ([`State::number_tables`],
//!   [`pair_tables`]), the tables written since a mark
//!   ([`State::write_mark`], [`State::tables_written_since`]) and the value
//!   encoding of difference frames ([`WireValue`], [`translate_key`]).
//! * **The embedder's data.** Host data ([`State::set_host_data`], a
//!   [`HostData`]) is world state kept beside the heap: saved, hashed and
//!   rolled back with it. App data ([`State::set_app_data`], any type, as
//!   mlua's `Lua::set_app_data`) is host configuration natives can reach
//!   (output sinks, services): never saved, hashed or rolled back.
//! * **Userdata payloads** ([`Payload`], [`Opaque`], [`Cloneable`]), the
//!   debug interface ([`debug`]), and the number and `string.format` rules
//!   the standard library shares with the VM ([`number`], [`mod@format`]).
//!
//! **Threading.** A [`State`] is neither `Send` nor `Sync`: one state
//! belongs to one thread for its whole life. Only an [`InterruptHandle`]
//! crosses threads.

pub use crate::api::{HeapStats, MsgHandler};
pub use crate::arena::Handle;
pub use crate::error::{Error, ErrorKind};
pub use crate::func::NativeId;
pub use crate::gc::{GcStats, Phase as GcPhase};
pub use crate::hash::{HashMode, PayloadHook, StateHasher};
pub use crate::limits::{
    HeapView, InterruptHandle, WorkMeter, WorkStop, CALL_COST, GRACE, LOAD_COST, SLICE, WORK_BYTES,
};
pub use crate::meta::ArithOp;
pub use crate::persist::PayloadLoader;
pub use crate::schema::{
    load_value, save_value, FieldClass, HostData, HostDataLoader, HostVisitor,
};
pub use crate::snapshot::Snapshot;
pub use crate::state::{
    Action, BudgetHook, KFn, NativeFn, Pin, ResumeRequest, State, Status, MAX_CCALLS, MAX_STACK,
    RIDX_GLOBALS, RIDX_MAINTHREAD,
};
pub use crate::strarith::string_arith_metamethods;
pub use crate::table::TableView;
pub use crate::thread::CoStatus;
pub use crate::traverse::{
    is_sortable, pair_tables, IsSpecial, Numbering, Pairing, SpecialSet, TablePair,
};
pub use crate::userdata::{Cloneable, Opaque, Payload};
pub use crate::value::{
    LuaFnRef, RustFnRef, StrRef, TableRef, ThreadRef, Type, UserDataRef, Value,
};
pub use crate::wire::{lookup_key, translate_key, WireError, WireValue};
pub use crate::writes::{WriteMark, WriteSet, Written};

/// A deterministic identity of an object for `tostring` and `%p`: the
/// object kind in the high bits and its arena index in the low 32 bits
/// (`0` for non-objects). Two live objects never share one.
pub fn object_id(v: Value) -> u64 {
    crate::heap::Heap::object_id(v)
}

/// The debug interface (`lua_getinfo`, `lua_sethook`...) for the `debug`
/// library.
pub mod debug {
    pub use crate::debug::{hookmask, DebugInfo, FrameId, HookEvent, HookFn};
}

/// Lua's number rules: conversions, numerals, formatting.
pub mod number {
    pub use crate::number::*;
}

/// `string.format`'s conversions, identical to glibc's printf.
pub mod format {
    pub use crate::format::{format_char, format_float, format_int, format_uint, Spec, MAX_WIDTH};
}
