//! The shape of the [`State`], declared once, and the two visitors every
//! whole-state consumer goes through.
//!
//! # Why
//!
//! Four parts of the VM look at the whole state: the collector (`gc.rs`,
//! its roots), snapshots (`snapshot.rs`, what a rollback restores),
//! persistence (`persist.rs`, what is written, read back and validated)
//! and the hashes (`hash.rs`, what two machines compare). When each kept
//! its own list of the `State`'s fields, the lists drifted apart, and a
//! field forgotten by one of them is a silent desync between machines.
//! So the `State` is declared here, once, through [`state_schema!`], every
//! field with a *class*, and the consumers are generated from that one
//! declaration. A field without a class does not parse (see the macro).
//!
//! # The classes
//!
//! * **world** — what a program's future depends on, and what machines
//!   must agree on: the registry, globals and `_LOADED` handles, the main
//!   and running threads, the running execution state `ex`, the per-type
//!   metatables, the interned metamethod and type names, the collector's state
//!   (pacing and finalizer lists), the pins, the last API error, the
//!   warning switch and pending warning text, the debug hooks and the
//!   host data (below). Every world field's type implements
//!   [`WorldField`], and every consumer handles every world field:
//!   a snapshot copies it and a rollback restores it
//!   ([`WorldField::snapshot`], [`WorldField::rollback`]); `save_state`
//!   writes it and `load_state` reads and checks it ([`WorldField::save`],
//!   [`WorldField::load`], [`WorldField::check`]); its content, described
//!   once by [`WorldField::visit`], gives the collector its roots, the
//!   loader the handles to validate, and both hashes their stream.
//! * **heap** — the arenas and the byte accounting (`heap.bytes`): too big
//!   to copy, so each consumer has its own code for it, object by object:
//!   snapshots journal each arena, persistence writes each arena slot by
//!   slot, the hashes and the collector walk objects through the one
//!   object visitor, [`visit_object`].
//! * **host** — the embedder's configuration, which none of the four
//!   consumers touches: registered natives and their names, the
//!   persistence registry, the limits and the instruction budget, the
//!   budget hook, stdout/stderr, the `Lua` back-pointer, the binary-chunk
//!   switch, the snapshot journal itself, and two speed aids that change
//!   no answer (the string metatable's lookup hint, the collector's step
//!   count). A receiving state keeps its
//!   own (natives are re-bound by name).
//! * **scratch** — state of one operation in progress (`n_ccalls`,
//!   `in_msgh`, `closing`, the string buffer `buf`): it must be *at rest*
//!   ([`ScratchField::at_rest`]) whenever a snapshot is taken or rolled
//!   back, or the state is saved: those operations are refused otherwise
//!   (the generated `State::busy_scratch` names the first field that is
//!   not). The heap hash records whether every scratch field is at rest.
//!
//! # Deliberate differences, by field
//!
//! The classes are uniform; a few field *types* describe themselves with
//! a reason to be noted:
//!
//! * `gc` (`GcState`): the objects flagged for finalization are *weak*
//!   references ([`Visit::weak`]): hashed and validated, but not roots
//!   (they must be able to become unreachable). Its pacing (threshold,
//!   estimate, cycle count, `in_fin`) is layout: heap hash only.
//! * `free_pins` (a list of slot indices) is layout: heap hash only, so a
//!   pin released by the host changes the heap hash, not the state hash.
//! * `hooks`: the hook functions are Rust function pointers, which can be
//!   neither hashed nor saved: the hashes cover which hooks are set (count
//!   and masks), `save_state` refuses a state with a hook set, and the
//!   hooked threads are not roots (as in the reference, a hook does not
//!   keep its thread alive).
//! * `budget` is *host*: it is one half of the limits' slice accounting
//!   (`limits.rs`), whose other half (`Limits`) is host configuration;
//!   restoring one half without the other made the instruction count of a
//!   rolled-back state inconsistent. A rollback does not refund the
//!   instructions a prediction ran; neither does a load.
//!
//! # Host data
//!
//! The engine keeps data of its own that must move with the Lua world
//! (its tangibles, schedule and id pools): attached with
//! [`State::set_host_data`], it is the world field `host_data`, so it is
//! rolled back, saved, loaded, hashed and its Lua values are roots, with
//! no engine knowledge here. A type implements [`HostData`]: its content
//! through a [`HostVisitor`] (Lua values and plain data), its bytes, and
//! snapshot hooks ([`host_data_snapshot_by_clone!`] provides them for a
//! `Clone` type). On load, a loader registered by name
//! ([`State::register_host_data_loader`]) re-creates it.
//!
//! # The object visitor
//!
//! [`ObjRef`] names any collectable object (the collector's gray items and
//! the hash's discovery items are the same kind of thing), and
//! [`visit_object`] describes one object to a [`Visit`]or: its references
//! (the collector marks them, the loader checks them, the hash discovers
//! them), its content words (the hash only) and its layout words (the heap
//! hash only). The default methods ignore content, so the collector's
//! instance compiles down to the reference walk alone. The one exception:
//! the collector traverses weak tables by its own rules (ephemerons).
//!
//! # Order
//!
//! The declaration order is the order of the world fields in the saved
//! format and in the hash stream, and also the struct's layout (rustc keeps
//! the relative order of fields of equal alignment). The dispatch loop is
//! sensitive to that layout: moving the fields around cost up to 17% on
//! some programs of `benches/` (float loops; `fannkuch` when `host_data`
//! was declared last), so the hot fields (`heap`, `ex`) come first, the
//! order is the one the struct had before the schema, and `host_data` sits
//! after `ex`, where `benches/compare.sh` measured no change. Measure
//! again when adding a field.
//!
//! **Invariant:** every field of the `State` has a class; every world
//! field is snapshotted, saved, loaded, validated, hashed and rooted by
//! the code generated from its declaration (checked field by field by the
//! tests at the end of this file).

use crate::debug::Hooks;
use crate::func::{NativeId, ProtoRef, UpVal, UpvalRef};
use crate::gc::GcState;
use crate::heap::Heap;
use crate::meta::{TM_N, TM_NAMES};
use crate::persist::{RResult, Reader, WResult, Writer};
use crate::state::State;
use crate::thread::{CallInfo, Callee, ExecState};
use crate::value::{LuaFnRef, RustFnRef, StrRef, TableRef, ThreadRef, Type, UserDataRef, Value};
use std::any::Any;
use std::collections::BTreeMap;

/// The class of a field of the [`State`] (see the module docs of
/// `schema.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldClass {
    /// Rolled back, saved, hashed, rooted: the Lua world's state.
    World,
    /// The arenas: journaled, saved and walked object by object.
    Heap,
    /// The host's configuration: none of the above.
    Host,
    /// An operation's state: at rest whenever the state is snapshotted or
    /// saved.
    Scratch,
}

/// Declares the [`State`](crate::State): every field preceded by its class,
/// `[world]`, `[heap]`, `[host]` or `[scratch]`. Generates the flat struct,
/// `State::FIELDS` (name and class of every field, in order) and the
/// consumers of the world and scratch classes (see `schema.rs`).
///
/// An unclassified field is a syntax error:
///
/// ```compile_fail
/// const FIELDS: &[(&str, luprex_vm::raw::FieldClass)] = luprex_vm::state_schema!(@fields
///     pub struct S {
///         [world] pub registry: u32,
///         natives: Vec<u8>,
///     }
/// );
/// ```
///
/// and so is an unknown class:
///
/// ```compile_fail
/// const FIELDS: &[(&str, luprex_vm::raw::FieldClass)] = luprex_vm::state_schema!(@fields
///     pub struct S {
///         [planet] pub registry: u32,
///     }
/// );
/// ```
///
/// while classified fields parse (`@fields` runs the same parser as the
/// `State`'s declaration and yields only the field list):
///
/// ```
/// const FIELDS: &[(&str, luprex_vm::raw::FieldClass)] = luprex_vm::state_schema!(@fields
///     pub struct S {
///         [world] pub registry: u32,
///         [host] natives: Vec<u8>,
///     }
/// );
/// assert_eq!(FIELDS[1], ("natives", luprex_vm::raw::FieldClass::Host));
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! state_schema {
    (@$mode:ident $(#[$sm:meta])* $v:vis struct $S:ident { $($body:tt)* }) => {
        $crate::state_schema!{@munch $mode [$(#[$sm])* $v struct $S] [] [] [] [] ; $($body)*}
    };
    (@munch $mode:ident $hdr:tt [$($all:tt)*] [$($w:tt)*] [$($s:tt)*] $h:tt ;
        $(#[$m:meta])* [world] $fv:vis $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::state_schema!{@munch $mode $hdr [$($all)* $(#[$m])* $fv $name : $ty = World,]
            [$($w)* $name : $ty,] [$($s)*] $h ; $($rest)*}
    };
    (@munch $mode:ident $hdr:tt [$($all:tt)*] $w:tt $s:tt [$($h:tt)*] ;
        $(#[$m:meta])* [heap] $fv:vis $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::state_schema!{@munch $mode $hdr [$($all)* $(#[$m])* $fv $name : $ty = Heap,]
            $w $s [$($h)* $name : $ty,] ; $($rest)*}
    };
    (@munch $mode:ident $hdr:tt [$($all:tt)*] $w:tt $s:tt $h:tt ;
        $(#[$m:meta])* [host] $fv:vis $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::state_schema!{@munch $mode $hdr [$($all)* $(#[$m])* $fv $name : $ty = Host,]
            $w $s $h ; $($rest)*}
    };
    (@munch $mode:ident $hdr:tt [$($all:tt)*] $w:tt [$($s:tt)*] $h:tt ;
        $(#[$m:meta])* [scratch] $fv:vis $name:ident : $ty:ty, $($rest:tt)*) => {
        $crate::state_schema!{@munch $mode $hdr [$($all)* $(#[$m])* $fv $name : $ty = Scratch,]
            $w [$($s)* $name : $ty,] $h ; $($rest)*}
    };
    (@munch fields $hdr:tt
        [$($(#[$m:meta])* $fv:vis $name:ident : $ty:ty = $class:ident,)*] $w:tt $s:tt $h:tt ;) => {
        &[$((stringify!($name), $crate::raw::FieldClass::$class)),*]
    };
    (@munch state [$($hdr:tt)*]
        [$($(#[$m:meta])* $fv:vis $name:ident : $ty:ty = $class:ident,)*]
        [$($wn:ident : $wt:ty,)*] [$($sn:ident : $st:ty,)*] [$hn:ident : $ht:ty,] ;) => {
        $($hdr)* {
            $($(#[$m])* $fv $name: $ty,)*
        }

        impl State {
            /// Every field of the state with its class, in declaration
            /// order (see `schema.rs`).
            pub const FIELDS: &'static [(&'static str, $crate::raw::FieldClass)] =
                &[$((stringify!($name), $crate::raw::FieldClass::$class)),*];

            /// Describes every world field, in declaration order.
            pub(crate) fn visit_world<V: $crate::schema::Visit>(&self, v: &mut V) {
                $($crate::schema::WorldField::visit(&self.$wn, v);)*
            }

            /// Every world field borrowed, beside the heap borrowed
            /// mutably: the collector marks the roots the fields hold as
            /// [`State::visit_world`] meets them, without a list.
            pub(crate) fn world_and_heap(&mut self) -> (WorldRefs<'_>, &mut $ht) {
                (WorldRefs { $($wn: &self.$wn,)* }, &mut self.$hn)
            }

            /// Writes every world field, in declaration order.
            pub(crate) fn save_world(&self, w: &mut $crate::persist::Writer<'_>)
                -> $crate::persist::WResult {
                $($crate::schema::WorldField::save(&self.$wn, w)?;)*
                Ok(())
            }

            /// A snapshot level's copy of every world field.
            pub(crate) fn snapshot_world(&self) -> $crate::schema::WorldSaved {
                $crate::schema::WorldSaved {
                    $($wn: $crate::schema::WorldField::snapshot(&self.$wn),)*
                }
            }

            /// Restores every world field from a snapshot level's copy.
            pub(crate) fn rollback_world(&mut self, s: &$crate::schema::WorldSaved) {
                $($crate::schema::WorldField::rollback(&mut self.$wn, &s.$wn);)*
            }

            /// A snapshot level is closed, keeping the current state.
            pub(crate) fn release_world(&mut self, s: $crate::schema::WorldSaved) {
                $($crate::schema::WorldField::release(&mut self.$wn, s.$wn);)*
            }

            /// Replaces every world field by a loaded one.
            pub(crate) fn install_world(&mut self, w: $crate::schema::World) {
                $(self.$wn = w.$wn;)*
            }

            /// The first scratch field that is not at rest, if any.
            pub(crate) fn busy_scratch(&self) -> Option<&'static str> {
                $(if !$crate::schema::ScratchField::at_rest(&self.$sn) {
                    return Some(stringify!($sn));
                })*
                None
            }
        }

        /// The world fields of a state, borrowed
        /// ([`State::world_and_heap`]).
        pub(crate) struct WorldRefs<'a> {
            $($wn: &'a $wt,)*
        }

        impl WorldRefs<'_> {
            /// [`State::visit_world`] of the borrowed fields.
            pub(crate) fn visit<V: $crate::schema::Visit>(&self, v: &mut V) {
                $($crate::schema::WorldField::visit(self.$wn, v);)*
            }
        }

        /// The world fields of a state, by value (a decoded state).
        pub(crate) struct World {
            $(pub(crate) $wn: $wt,)*
        }

        /// A snapshot level's copy of the world fields.
        pub(crate) struct WorldSaved {
            $($wn: <$wt as $crate::schema::WorldField>::Saved,)*
        }

        impl World {
            /// Reads every world field, in declaration order.
            pub(crate) fn load(r: &mut $crate::persist::Reader<'_>)
                -> $crate::persist::RResult<World> {
                Ok(World { $($wn: $crate::schema::WorldField::load(r)?,)* })
            }

            /// Describes every world field, in declaration order.
            pub(crate) fn visit<V: $crate::schema::Visit>(&self, v: &mut V) {
                $($crate::schema::WorldField::visit(&self.$wn, v);)*
            }

            /// The field-specific checks of every world field.
            pub(crate) fn check(&self, heap: &$crate::heap::Heap) -> $crate::persist::RResult<()> {
                $($crate::schema::WorldField::check(&self.$wn, heap)?;)*
                Ok(())
            }
        }
    };
}

pub(crate) use crate::state::{World, WorldSaved};

// ---------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------

/// A collectable object: its kind and handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjRef {
    /// A string.
    Str(StrRef),
    /// A table.
    Table(TableRef),
    /// A Lua closure.
    LuaFn(LuaFnRef),
    /// A Rust closure.
    RustFn(RustFnRef),
    /// An upvalue.
    Upval(UpvalRef),
    /// A prototype.
    Proto(ProtoRef),
    /// A thread.
    Thread(ThreadRef),
    /// A full userdata.
    UserData(UserDataRef),
}

impl ObjRef {
    /// Number of object kinds.
    pub const KINDS: usize = 8;

    /// The object a value refers to, if it is collectable.
    #[inline(always)]
    pub fn of(v: Value) -> Option<ObjRef> {
        Some(match v {
            Value::Str(h) => ObjRef::Str(h),
            Value::Table(h) => ObjRef::Table(h),
            Value::LuaFn(h) => ObjRef::LuaFn(h),
            Value::RustFn(h) => ObjRef::RustFn(h),
            Value::Thread(h) => ObjRef::Thread(h),
            Value::UserData(h) => ObjRef::UserData(h),
            _ => return None,
        })
    }

    /// The kind, `0..KINDS` (strings, tables, Lua closures, Rust closures,
    /// upvalues, prototypes, threads, userdata: the arenas' order).
    #[inline]
    pub fn kind(self) -> usize {
        match self {
            ObjRef::Str(_) => 0,
            ObjRef::Table(_) => 1,
            ObjRef::LuaFn(_) => 2,
            ObjRef::RustFn(_) => 3,
            ObjRef::Upval(_) => 4,
            ObjRef::Proto(_) => 5,
            ObjRef::Thread(_) => 6,
            ObjRef::UserData(_) => 7,
        }
    }

    /// The object of kind `kind` ([`ObjRef::kind`]) in slot `idx`, if the
    /// kind is one.
    pub fn from_kind(kind: usize, idx: u32) -> Option<ObjRef> {
        use crate::arena::Handle;
        Some(match kind {
            0 => ObjRef::Str(Handle::from_index(idx)),
            1 => ObjRef::Table(Handle::from_index(idx)),
            2 => ObjRef::LuaFn(Handle::from_index(idx)),
            3 => ObjRef::RustFn(Handle::from_index(idx)),
            4 => ObjRef::Upval(Handle::from_index(idx)),
            5 => ObjRef::Proto(Handle::from_index(idx)),
            6 => ObjRef::Thread(Handle::from_index(idx)),
            7 => ObjRef::UserData(Handle::from_index(idx)),
            _ => return None,
        })
    }

    /// The handle's slot index.
    #[inline]
    pub fn index(self) -> u32 {
        match self {
            ObjRef::Str(h) => h.index(),
            ObjRef::Table(h) => h.index(),
            ObjRef::LuaFn(h) => h.index(),
            ObjRef::RustFn(h) => h.index(),
            ObjRef::Upval(h) => h.index(),
            ObjRef::Proto(h) => h.index(),
            ObjRef::Thread(h) => h.index(),
            ObjRef::UserData(h) => h.index(),
        }
    }

    /// What a handle of this kind is called in messages.
    pub fn kind_name(self) -> &'static str {
        ["string", "table", "Lua function", "Rust function", "upvalue", "prototype", "thread"]
            .get(self.kind())
            .copied()
            .unwrap_or("userdata")
    }

    /// Whether the object is a live slot of its arena in `heap`.
    pub fn is_live(self, heap: &Heap) -> bool {
        let i = self.index();
        match self {
            ObjRef::Str(_) => heap.strings.try_get(i).is_some(),
            ObjRef::Table(_) => heap.tables.headers().try_get(i).is_some(),
            ObjRef::LuaFn(_) => heap.lua_fns.try_get(i).is_some(),
            ObjRef::RustFn(_) => heap.rust_fns.try_get(i).is_some(),
            ObjRef::Upval(_) => heap.upvals.try_get(i).is_some(),
            ObjRef::Proto(_) => heap.protos.try_get(i).is_some(),
            ObjRef::Thread(_) => heap.threads.try_get(i).is_some(),
            ObjRef::UserData(_) => heap.userdata.try_get(i).is_some(),
        }
    }
}

/// A consumer of object and field descriptions (see the module docs). Only
/// [`Visit::obj`] is required: the defaults ignore content and layout.
pub(crate) trait Visit {
    /// A reference to an object (strings included).
    fn obj(&mut self, o: ObjRef);
    /// A Lua value: a reference if collectable, content otherwise.
    #[inline(always)]
    fn value(&mut self, v: Value) {
        if let Some(o) = ObjRef::of(v) {
            self.obj(o);
        }
    }
    /// A value held weakly: not a root, but hashed and validated.
    #[inline(always)]
    fn weak(&mut self, _v: Value) {}
    /// The names a state interns for its whole life (metamethod and type
    /// names): references like any other, which a minor collection may
    /// skip, since they are old (`gc/generational.rs`).
    #[inline(always)]
    fn fixed_names(&mut self, names: &[StrRef]) {
        names.iter().for_each(|&s| self.obj(ObjRef::Str(s)));
    }
    /// An optional table (a metatable).
    #[inline(always)]
    fn opt_table(&mut self, t: Option<TableRef>) {
        if let Some(t) = t {
            self.obj(ObjRef::Table(t));
        }
    }
    /// A word of content (hashed by both hashes).
    #[inline(always)]
    fn data(&mut self, _x: u64) {}
    /// Bytes of content.
    #[inline(always)]
    fn bytes(&mut self, _b: &[u8]) {}
    /// A word of layout (heap hash only).
    #[inline(always)]
    fn layout(&mut self, _x: u64) {}
    /// Whether [`Visit::layout`] does anything (lets a walk skip computing
    /// layout words).
    #[inline(always)]
    fn wants_layout(&self) -> bool {
        false
    }
    /// The end of a sequence whose length was not given first.
    #[inline(always)]
    fn end(&mut self) {}
    /// A Rust closure's native.
    #[inline(always)]
    fn native(&mut self, _id: NativeId) {}
    /// A userdata's payload.
    #[inline(always)]
    fn payload(&mut self, _d: &dyn Any) {}
}

/// A visitor collecting the references.
pub(crate) struct Refs<'a>(pub(crate) &'a mut Vec<ObjRef>);

impl Visit for Refs<'_> {
    #[inline(always)]
    fn obj(&mut self, o: ObjRef) {
        self.0.push(o);
    }
}

/// A count of elements.
#[inline(always)]
fn count<V: Visit + ?Sized>(v: &mut V, n: usize) {
    v.data(n as u64);
}

fn values<V: Visit + ?Sized>(v: &mut V, vs: &[Value]) {
    count(v, vs.len());
    vs.iter().for_each(|&x| v.value(x));
}

/// Describes object `o` of `heap` to `v`: its references, content and
/// layout, in a fixed order (the hash stream of its body). Strings have no
/// body (the hash writes their content where they are referenced).
pub(crate) fn visit_object<V: Visit>(heap: &Heap, o: ObjRef, v: &mut V) {
    match o {
        ObjRef::Str(_) => {}
        ObjRef::Table(h) => {
            let t = heap.tables.get(h);
            v.opt_table(t.meta);
            let arr = t.array();
            v.data(arr.len() as u64);
            v.layout(t.estimated_bytes() as u64);
            v.layout(u64::from(t.flags));
            // Positions as `TableView::next_at` numbers them (heap hash).
            let layout = v.wants_layout();
            for (i, &x) in arr.iter().enumerate() {
                if !x.is_nil() {
                    if layout {
                        v.layout(i as u64 + 1);
                    }
                    v.value(Value::Int(i as i64 + 1));
                    v.value(x);
                }
            }
            if layout {
                let mut pos = arr.len();
                while let Some((next, k, x)) = t.next_at(pos) {
                    v.layout(next as u64);
                    v.value(k);
                    v.value(x);
                    pos = next;
                }
            } else {
                for (k, x) in t.hash_pairs() {
                    v.value(k);
                    v.value(x);
                }
            }
            v.end();
        }
        ObjRef::LuaFn(h) => {
            let c = heap.lua_fns.get(h);
            v.obj(ObjRef::Proto(c.proto));
            count(v, c.upvals.len());
            c.upvals.iter().for_each(|&u| v.obj(ObjRef::Upval(u)));
        }
        ObjRef::RustFn(h) => {
            let c = heap.rust_fns.get(h);
            v.native(c.id);
            values(v, &c.upvalues);
        }
        ObjRef::Upval(h) => match *heap.upvals.get(h) {
            UpVal::Open { thread, slot } => {
                v.data(0);
                v.obj(ObjRef::Thread(thread));
                v.data(u64::from(slot));
            }
            UpVal::Closed(x) => {
                v.data(1);
                v.value(x);
            }
        },
        ObjRef::Proto(h) => {
            let p = heap.protos.get(h);
            count(v, p.code.len());
            p.code.iter().for_each(|i| v.data(u64::from(i.0)));
            values(v, &p.k);
            count(v, p.protos.len());
            p.protos.iter().for_each(|&q| v.obj(ObjRef::Proto(q)));
            count(v, p.upvals.len());
            for u in p.upvals.iter() {
                v.bytes(&u.name);
                v.data(u64::from(u.in_stack));
                v.data(u64::from(u.index));
                v.data(u64::from(u.kind));
            }
            v.data(u64::from(p.num_params));
            v.data(u64::from(p.is_vararg));
            v.data(u64::from(p.max_stack));
            v.obj(ObjRef::Str(p.source));
            v.data(u64::from(p.line_defined));
            v.data(u64::from(p.last_line_defined));
            count(v, p.line_info.len());
            p.line_info.iter().for_each(|&l| v.data(u64::from(l)));
            count(v, p.loc_vars.len());
            for lv in p.loc_vars.iter() {
                v.bytes(&lv.name);
                v.data(u64::from(lv.start_pc));
                v.data(u64::from(lv.end_pc));
            }
        }
        ObjRef::Thread(h) => {
            let th = heap.threads.get(h);
            v.data(u64::from(th.status.code()));
            v.data(u64::from(th.started));
            v.data(u64::from(th.is_main));
            v.value(th.error);
            // The running thread's own object holds an empty execution
            // state; its real one is the world field `ex`.
            visit_exec(&th.ex, v);
        }
        ObjRef::UserData(h) => {
            let u = heap.userdata.get(h);
            v.opt_table(u.meta);
            values(v, &u.user_values);
            v.payload(u.data.as_any());
        }
    }
}

/// Describes an execution state (a thread's, or the running one).
pub(crate) fn visit_exec<V: Visit + ?Sized>(ex: &ExecState, v: &mut V) {
    values(v, &ex.stack);
    count(v, ex.frames.len());
    ex.frames.iter().for_each(|ci| visit_frame(ci, v));
    count(v, ex.open_upvals.len());
    for &(slot, u) in &ex.open_upvals {
        v.data(u64::from(slot));
        v.obj(ObjRef::Upval(u));
    }
    count(v, ex.tbc.len());
    ex.tbc.iter().for_each(|&s| v.data(u64::from(s)));
    v.data(u64::from(ex.open_top));
    v.data(u64::from(ex.nny));
}

fn visit_frame<V: Visit + ?Sized>(ci: &CallInfo, v: &mut V) {
    for x in [ci.func, ci.base, ci.top, ci.pc, ci.nextra, ci.errlevel] {
        v.data(u64::from(x));
    }
    v.data(ci.nresults as i64 as u64);
    v.data(u64::from(ci.status));
    let (tag, a, b) = ci.ret.code();
    v.data(u64::from(tag) | (u64::from(a) << 8) | (u64::from(b) << 16));
    match ci.callee {
        Callee::Lua(f) => v.obj(ObjRef::LuaFn(f)),
        Callee::Rust(f) => v.obj(ObjRef::RustFn(f)),
    }
    // Continuations are function pointers: their presence and context.
    match ci.k {
        Some((_, ctx)) => {
            v.data(1);
            v.data(ctx as u64);
        }
        None => v.data(0),
    }
}

// ---------------------------------------------------------------------------
// World fields
// ---------------------------------------------------------------------------

/// What every consumer does with a world field of this type (see the
/// module docs).
pub(crate) trait WorldField: Sized {
    /// What a snapshot level keeps of it.
    type Saved;
    /// Describes the content: references (roots, validated after a load),
    /// content and layout (the hashes).
    fn visit<V: Visit>(&self, v: &mut V);
    /// Writes it for `save_state`.
    fn save(&self, w: &mut Writer<'_>) -> WResult;
    /// Reads what [`WorldField::save`] wrote (checked later).
    fn load(r: &mut Reader<'_>) -> RResult<Self>;
    /// Checks beyond the liveness of its references, against the loaded
    /// heap.
    fn check(&self, _heap: &Heap) -> RResult<()> {
        Ok(())
    }
    /// The copy a snapshot level keeps.
    fn snapshot(&self) -> Self::Saved;
    /// Restores exactly the state of [`WorldField::snapshot`].
    fn rollback(&mut self, saved: &Self::Saved);
    /// The level of `saved` is closed, keeping the current state.
    fn release(&mut self, _saved: Self::Saved) {}
}

/// Implements the snapshot methods of [`WorldField`] by copy.
macro_rules! snapshot_by_copy {
    () => {
        type Saved = Self;
        fn snapshot(&self) -> Self {
            *self
        }
        fn rollback(&mut self, saved: &Self) {
            *self = *saved;
        }
    };
}

/// Implements the snapshot methods of [`WorldField`] by clone.
macro_rules! snapshot_by_clone {
    () => {
        type Saved = Self;
        fn snapshot(&self) -> Self {
            self.clone()
        }
        fn rollback(&mut self, saved: &Self) {
            self.clone_from(saved);
        }
    };
}

impl WorldField for TableRef {
    snapshot_by_copy!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.obj(ObjRef::Table(*self));
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.u32(self.index());
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.handle()
    }
}

impl WorldField for ThreadRef {
    snapshot_by_copy!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.obj(ObjRef::Thread(*self));
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.u32(self.index());
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.handle()
    }
}

impl WorldField for Value {
    snapshot_by_copy!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.value(*self);
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.value(*self);
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.value()
    }
}

impl WorldField for bool {
    snapshot_by_copy!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.data(u64::from(*self));
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.u8(u8::from(*self));
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.bool()
    }
}

/// The per-type metatables.
impl WorldField for [Option<TableRef>; 8] {
    snapshot_by_copy!();
    fn visit<V: Visit>(&self, v: &mut V) {
        self.iter().for_each(|&m| v.opt_table(m));
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        self.iter().for_each(|&m| w.opt_table(m));
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        let mut a = [None; 8];
        for m in &mut a {
            *m = r.opt_table()?;
        }
        Ok(a)
    }
}

/// Implements [`WorldField`] for an array of `$n` interned strings that
/// must be the strings `$names` (checked on load; `$what` names one in the
/// error).
macro_rules! interned_names {
    ($n:expr, $names:expr, $what:literal) => {
        impl WorldField for [StrRef; $n] {
            snapshot_by_copy!();
            fn visit<V: Visit>(&self, v: &mut V) {
                v.fixed_names(self);
            }
            fn save(&self, w: &mut Writer<'_>) -> WResult {
                self.iter().for_each(|s| w.u32(s.index()));
                Ok(())
            }
            fn load(r: &mut Reader<'_>) -> RResult<Self> {
                let mut a = [StrRef::from_index(0); $n];
                for s in &mut a {
                    *s = r.handle()?;
                }
                Ok(a)
            }
            fn check(&self, heap: &Heap) -> RResult<()> {
                for (i, (name, want)) in self.iter().zip($names).enumerate() {
                    let ok = heap.strings.try_get(name.index()).map(|x| x.as_bytes());
                    if ok != Some(want.as_bytes()) {
                        return Err(format!(
                            concat!($what, " {} is not the string it should be"),
                            i
                        ));
                    }
                }
                Ok(())
            }
        }
    };
}

interned_names!(TM_N, TM_NAMES, "metamethod name");
interned_names!(Type::N, Type::ALL.map(Type::name), "type name");

/// Pinned values.
impl WorldField for Vec<Value> {
    snapshot_by_clone!();
    fn visit<V: Visit>(&self, v: &mut V) {
        values(v, self);
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.values(self)
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.values()
    }
}

/// Slot indices (the free pin slots): layout.
impl WorldField for Vec<u32> {
    snapshot_by_clone!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.layout(self.len() as u64);
        self.iter().for_each(|&i| v.layout(u64::from(i)));
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.len(self.len())?;
        self.iter().for_each(|&i| w.u32(i));
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        let n = r.count(4)?;
        (0..n).map(|_| r.u32()).collect()
    }
}

/// Bytes (the pending warning text).
impl WorldField for Vec<u8> {
    snapshot_by_clone!();
    fn visit<V: Visit>(&self, v: &mut V) {
        v.bytes(self);
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.bytes(self)
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        Ok(r.bytes()?.to_vec())
    }
}

/// The running execution state, copied with its capacities (they pace the
/// collector, see `snapshot.rs`).
impl WorldField for ExecState {
    type Saved = ExecState;
    fn visit<V: Visit>(&self, v: &mut V) {
        visit_exec(self, v);
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.exec(self)
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        r.exec()
    }
    fn snapshot(&self) -> ExecState {
        crate::snapshot::exec_exact(self)
    }
    fn rollback(&mut self, saved: &ExecState) {
        *self = crate::snapshot::exec_exact(saved);
    }
}

/// The collector's state. Objects flagged for finalization are weak; the
/// pacing is layout.
impl WorldField for GcState {
    snapshot_by_clone!();
    fn visit<V: Visit>(&self, v: &mut V) {
        count(v, self.tobefnz.len());
        self.tobefnz.iter().for_each(|&o| v.value(o));
        count(v, self.finobj.len());
        self.finobj.iter().for_each(|&o| v.weak(o));
        v.data(u64::from(self.pause));
        v.data(u64::from(self.stepmul));
        v.data(u64::from(self.running));
        v.bytes(self.mode.as_bytes());
        for x in [self.threshold as u64, self.estimate as u64, self.cycles] {
            v.layout(x);
        }
        v.layout(u64::from(self.in_fin));
        crate::gc::io::visit(self, v);
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.u64(self.threshold as u64);
        w.u64(self.estimate as u64);
        w.u32(self.pause);
        w.u32(self.stepmul);
        w.u8(u8::from(self.running));
        w.u8(match self.mode {
            "incremental" => 1,
            _ => 0,
        });
        w.values(&self.finobj)?;
        let tobefnz: Vec<Value> = self.tobefnz.iter().copied().collect();
        w.values(&tobefnz)?;
        w.u8(u8::from(self.in_fin));
        w.u64(self.cycles);
        crate::gc::io::save(self, w)
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        let mut gc = GcState::new();
        gc.threshold = r.usize()?;
        gc.estimate = r.usize()?;
        gc.pause = r.u32()?;
        gc.stepmul = r.u32()?;
        gc.running = r.bool()?;
        gc.mode = if r.bool()? { "incremental" } else { "generational" };
        gc.finobj = r.values()?;
        gc.tobefnz = r.values()?.into();
        gc.in_fin = r.bool()?;
        gc.cycles = r.u64()?;
        crate::gc::io::load(&mut gc, r)?;
        for v in &gc.finobj {
            if !gc.finset.insert(Heap::object_id(*v)) {
                return Err("an object flagged for finalization twice".into());
            }
        }
        Ok(gc)
    }
    fn check(&self, heap: &Heap) -> RResult<()> {
        for &v in self.finobj.iter().chain(self.tobefnz.iter()) {
            if !matches!(v, Value::Table(_) | Value::UserData(_)) {
                return Err("a finalizer list holds a value that is not a table or userdata".into());
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        if !self.tobefnz.iter().all(|v| seen.insert(Heap::object_id(*v))) {
            return Err("an object due for finalization twice".into());
        }
        if self.in_fin {
            return Err("a snapshot taken while finalizers ran".into());
        }
        crate::gc::io::check(self, heap)
    }
}

/// The debug hooks: function pointers, so the hashes see which are set,
/// and a state with a hook cannot be saved.
impl WorldField for Hooks {
    snapshot_by_clone!();
    fn visit<V: Visit>(&self, v: &mut V) {
        self.describe(|x| v.data(x));
    }
    fn save(&self, _w: &mut Writer<'_>) -> WResult {
        if self.any {
            return Err("cannot save the state while a debug hook is set".into());
        }
        Ok(())
    }
    fn load(_r: &mut Reader<'_>) -> RResult<Self> {
        Ok(Hooks::default())
    }
}

// ---------------------------------------------------------------------------
// Scratch fields
// ---------------------------------------------------------------------------

/// A scratch field: when is it at rest (see the module docs).
pub(crate) trait ScratchField {
    /// Whether it holds nothing of an operation in progress.
    fn at_rest(&self) -> bool;
}

/// A nesting count: at rest at zero.
impl ScratchField for u32 {
    fn at_rest(&self) -> bool {
        *self == 0
    }
}

/// A flag of an operation in progress: at rest when clear.
impl ScratchField for bool {
    fn at_rest(&self) -> bool {
        !*self
    }
}

/// A scratch buffer: its content is never read before it is written.
impl ScratchField for Vec<u8> {
    fn at_rest(&self) -> bool {
        true
    }
}

/// A scratch buffer of objects, emptied after each use.
impl ScratchField for Vec<ObjRef> {
    fn at_rest(&self) -> bool {
        self.is_empty()
    }
}

// ---------------------------------------------------------------------------
// Host data
// ---------------------------------------------------------------------------

/// Data of the host that moves with the Lua world (see the module docs):
/// rolled back by snapshots, saved and loaded, covered by both hashes, and
/// its Lua values are roots.
pub trait HostData: Any {
    /// The stable name: its key among the state's host data, and the name
    /// its loader is registered under ([`State::register_host_data_loader`]).
    fn name(&self) -> &'static str;
    /// The data as `&dyn Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// The data as `&mut dyn Any`, for downcasting.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Describes the content: every Lua value it holds (roots of the
    /// collector, checked after a load, hashed by discovery like the rest
    /// of the state) and the plain data both hashes cover. Must be a
    /// deterministic function of the content.
    fn visit(&self, v: &mut HostVisitor<'_>);
    /// Appends the bytes its loader re-creates it from (Lua values with
    /// [`save_value`]: the heap's layout is saved exactly, so a handle
    /// names the same object after a load); an error makes `save_state`
    /// fail naming the data.
    fn save(&self, out: &mut Vec<u8>) -> Result<(), String>;
    /// What a snapshot level keeps to restore it.
    fn snapshot(&self) -> Box<dyn Any>;
    /// Restores exactly the state [`HostData::snapshot`] saw.
    fn rollback(&mut self, saved: &dyn Any);
    /// The snapshot level of `saved` is closed, keeping the current state.
    fn release(&mut self, _saved: Box<dyn Any>) {}
}

/// Implements [`HostData`]'s `as_any`, `as_any_mut`, `snapshot` and
/// `rollback` for a `Clone` type (write it inside the `impl` block).
#[macro_export]
macro_rules! host_data_snapshot_by_clone {
    () => {
        fn as_any(&self) -> &dyn ::std::any::Any {
            self
        }
        fn as_any_mut(&mut self) -> &mut dyn ::std::any::Any {
            self
        }
        fn snapshot(&self) -> ::std::boxed::Box<dyn ::std::any::Any> {
            ::std::boxed::Box::new(::std::clone::Clone::clone(self))
        }
        fn rollback(&mut self, saved: &dyn ::std::any::Any) {
            if let Some(s) = saved.downcast_ref::<Self>() {
                ::std::clone::Clone::clone_from(self, s);
            }
        }
    };
}

/// A loader of host data: re-creates it from the bytes its
/// [`HostData::save`] wrote, or `None` if they are not valid.
pub type HostDataLoader = fn(&[u8]) -> Option<Box<dyn HostData>>;

/// What a [`HostData`] describes its content to.
pub struct HostVisitor<'a> {
    v: &'a mut dyn Visit,
}

impl HostVisitor<'_> {
    /// A Lua value held by the data.
    pub fn value(&mut self, v: Value) {
        self.v.value(v);
    }
    /// A word of plain data.
    pub fn u64(&mut self, x: u64) {
        self.v.data(x);
    }
    /// Plain bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.v.bytes(b);
    }
}

/// Appends a Lua value for [`HostData::save`]: a tag byte, then the number's
/// bits or the object's handle index (the heap's layout is saved exactly, so
/// a handle names the same object after a load; [`State::load_state`]
/// checks every value a loaded host data shows its visitor).
pub fn save_value(out: &mut Vec<u8>, v: Value) {
    let (tag, word) = match v {
        Value::Nil => (0, None),
        Value::Bool(b) => (1 + u8::from(b), None),
        Value::Int(i) => (3, Some(i as u64)),
        Value::Float(f) => (4, Some(f.to_bits())),
        Value::Str(h) => (5, Some(u64::from(h.index()))),
        Value::Table(h) => (6, Some(u64::from(h.index()))),
        Value::LuaFn(h) => (7, Some(u64::from(h.index()))),
        Value::RustFn(h) => (8, Some(u64::from(h.index()))),
        Value::Thread(h) => (9, Some(u64::from(h.index()))),
        Value::UserData(h) => (10, Some(u64::from(h.index()))),
    };
    out.push(tag);
    if let Some(w) = word {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

/// Reads a value written by [`save_value`] from the front of `bytes`,
/// advancing it; `None` if the bytes are not one.
pub fn load_value(bytes: &mut &[u8]) -> Option<Value> {
    let (&tag, rest) = bytes.split_first()?;
    if tag <= 2 {
        *bytes = rest;
        return Some(match tag {
            0 => Value::Nil,
            t => Value::Bool(t == 2),
        });
    }
    let w = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
    let idx = || u32::try_from(w).ok();
    let v = match tag {
        3 => Value::Int(w as i64),
        4 => Value::Float(f64::from_bits(w)),
        5 => Value::Str(crate::Handle::from_index(idx()?)),
        6 => Value::Table(crate::Handle::from_index(idx()?)),
        7 => Value::LuaFn(crate::Handle::from_index(idx()?)),
        8 => Value::RustFn(crate::Handle::from_index(idx()?)),
        9 => Value::Thread(crate::Handle::from_index(idx()?)),
        10 => Value::UserData(crate::Handle::from_index(idx()?)),
        _ => return None,
    };
    *bytes = &rest[8..];
    Some(v)
}

/// The host data of a state, by name.
#[derive(Default)]
pub(crate) struct HostDataMap(pub(crate) BTreeMap<&'static str, Box<dyn HostData>>);

impl WorldField for HostDataMap {
    type Saved = Vec<Box<dyn Any>>;
    fn visit<V: Visit>(&self, v: &mut V) {
        count(v, self.0.len());
        for (name, d) in &self.0 {
            v.bytes(name.as_bytes());
            d.visit(&mut HostVisitor { v });
            v.end();
        }
    }
    fn save(&self, w: &mut Writer<'_>) -> WResult {
        w.len(self.0.len())?;
        for (name, d) in &self.0 {
            let mut out = Vec::new();
            d.save(&mut out).map_err(|e| format!("host data '{name}' cannot be saved: {e}"))?;
            w.bytes(name.as_bytes())?;
            w.bytes(&out)?;
        }
        Ok(())
    }
    fn load(r: &mut Reader<'_>) -> RResult<Self> {
        let n = r.count(8)?;
        let mut map = BTreeMap::new();
        for _ in 0..n {
            let name = r.bytes()?;
            let bytes = r.bytes()?;
            let lossy = || String::from_utf8_lossy(name).into_owned();
            let Some((&key, load)) = r.host_data_loader(name) else {
                return Err(format!("no host data loader registered for '{}'", lossy()));
            };
            let d = load(bytes).ok_or_else(|| format!("corrupt host data '{}'", lossy()))?;
            if d.name() != key {
                return Err(format!("the loader of host data '{key}' made '{}'", d.name()));
            }
            if map.insert(key, d).is_some() {
                return Err(format!("host data '{key}' twice"));
            }
        }
        Ok(HostDataMap(map))
    }
    fn snapshot(&self) -> Vec<Box<dyn Any>> {
        self.0.values().map(|d| d.snapshot()).collect()
    }
    fn rollback(&mut self, saved: &Vec<Box<dyn Any>>) {
        // The set of host data is fixed while a snapshot is open.
        self.0.values_mut().zip(saved).for_each(|(d, s)| d.rollback(&**s));
    }
    fn release(&mut self, saved: Vec<Box<dyn Any>>) {
        self.0.values_mut().zip(saved).for_each(|(d, s)| d.release(s));
    }
}

impl State {
    /// Attaches host data (see [`HostData`]), replacing the data of the
    /// same name. Refused while a snapshot is open (the set of host data
    /// is fixed while one is).
    pub fn set_host_data<T: HostData>(&mut self, data: T) -> Result<(), crate::Error> {
        if self.snapshot_depth() > 0 {
            let mut e = crate::Error::from_value(Value::Nil);
            e.message = "cannot attach host data while snapshots are open".into();
            return Err(e.with_kind(crate::error::ErrorKind::Snapshot));
        }
        self.host_data.0.insert(data.name(), Box::new(data));
        Ok(())
    }

    /// The host data of type `T`, if attached.
    pub fn host_data<T: HostData>(&self) -> Option<&T> {
        self.host_data.0.values().find_map(|d| d.as_any().downcast_ref::<T>())
    }

    /// The host data of type `T`, mutably, if attached.
    pub fn host_data_mut<T: HostData>(&mut self) -> Option<&mut T> {
        self.host_data.0.values_mut().find_map(|d| d.as_any_mut().downcast_mut::<T>())
    }

    /// Registers the loader that re-creates host data named `name` from
    /// its bytes on [`State::load_state`].
    pub fn register_host_data_loader(&mut self, name: &'static str, load: HostDataLoader) {
        self.persist.host_loaders.insert(name, load);
    }
}

#[cfg(test)]
mod tests {
    //! Every world field, changed alone, is seen by a hash, restored by a
    //! rollback and carried by save/load; every scratch field out of rest
    //! makes snapshots and saves refused; host fields are none of the
    //! consumers' business.

    use super::*;
    use crate::thread::{CoStatus, Thread};

    /// Host data for the tests: a number and a Lua value.
    #[derive(Clone)]
    struct Probe {
        n: i64,
        v: Value,
    }

    impl HostData for Probe {
        fn name(&self) -> &'static str {
            "probe"
        }
        fn visit(&self, v: &mut HostVisitor<'_>) {
            v.u64(self.n as u64);
            v.value(self.v);
        }
        fn save(&self, out: &mut Vec<u8>) -> Result<(), String> {
            out.extend_from_slice(&self.n.to_le_bytes());
            save_value(out, self.v);
            Ok(())
        }
        crate::host_data_snapshot_by_clone!();
    }

    fn load_probe(b: &[u8]) -> Option<Box<dyn HostData>> {
        let n = i64::from_le_bytes(b.get(..8)?.try_into().ok()?);
        let mut rest = &b[8..];
        let v = load_value(&mut rest)?;
        rest.is_empty().then(|| Box::new(Probe { n, v }) as Box<dyn HostData>)
    }

    fn fresh() -> State {
        let mut st = State::new();
        st.set_stdout(Box::new(std::io::sink()));
        st.set_stderr(Box::new(std::io::sink()));
        st.register_host_data_loader("probe", load_probe);
        st
    }

    /// A small world with host data and two released pins.
    fn base() -> State {
        let mut st = fresh();
        let f = st.load(b"T = {1, 2, x = 'y'} S = 'str'", b"=base").unwrap();
        st.call(f, &[]).unwrap();
        let t = st.heap.new_table(0, 0);
        st.set_host_data(Probe { n: 1, v: Value::Table(t) }).unwrap();
        let (a, b) = (st.pin(Value::Int(1)), st.pin(Value::Int(2)));
        st.unpin(a);
        st.unpin(b);
        st.collect_garbage();
        st
    }

    fn hashes(st: &State) -> (u128, u128) {
        (st.state_hash(), st.heap_hash())
    }

    fn no_hook(_: &mut State, _: crate::debug::HookEvent, _: Option<u32>) -> Result<(), Error> {
        Ok(())
    }

    use crate::Error;

    /// A change of world field `name` alone (`main_thread` and `running`
    /// agree at rest: both move to a new main thread).
    fn perturb(name: &str) -> Option<fn(&mut State)> {
        fn new_main(st: &mut State) {
            let old = st.main_thread;
            let th = st.heap.threads.get_mut(old);
            th.is_main = false;
            th.status = CoStatus::Dead;
            let t = Thread {
                status: CoStatus::Running,
                started: true,
                ex: ExecState::default(),
                is_main: true,
                error: Value::Nil,
            };
            let t = st.heap.new_thread(t);
            st.main_thread = t;
            st.running = t;
        }
        Some(match name {
            "registry" => |st| st.registry = st.heap.new_table(0, 0),
            "globals" => |st| st.globals = st.heap.new_table(0, 0),
            "loaded" => |st| st.loaded = st.heap.new_table(0, 0),
            "type_meta" => |st| st.type_meta[3] = Some(st.heap.new_table(0, 0)),
            "main_thread" | "running" => new_main,
            "ex" => |st| st.ex.stack.push(Value::Int(42)),
            "tm_names" => |st| st.tm_names.swap(0, 1),
            "type_names" => |st| st.type_names.swap(0, 1),
            "pins" => |st| st.pins.push(Value::Int(5)),
            "free_pins" => |st| st.free_pins.reverse(),
            "last_error" => |st| st.last_error = Value::Int(9),
            "gc" => |st| st.gc.pause = 150,
            "warn_on" => |st| st.warn_on = !st.warn_on,
            "warn_buf" => |st| st.warn_buf.extend_from_slice(b"pending"),
            "hooks" => |st| st.set_hook(st.main_thread, Some(no_hook), 1, 0),
            "host_data" => |st| st.host_data_mut::<Probe>().unwrap().n += 1,
            _ => return None,
        })
    }

    /// World fields whose change `save_state`/`load_state` refuses (rather
    /// than carries): hooks are function pointers; the metamethod and type
    /// names must be the right strings.
    const REFUSED: &[&str] = &["hooks", "tm_names", "type_names"];

    #[test]
    fn every_world_field_is_hashed_rolled_back_and_saved() {
        let mut world = 0;
        for &(name, class) in State::FIELDS {
            if class != FieldClass::World {
                continue;
            }
            world += 1;
            let change = perturb(name)
                .unwrap_or_else(|| panic!("world field `{name}` has no test perturbation"));
            let mut st = base();
            let h0 = hashes(&st);
            let snap = st.snapshot().unwrap();
            change(&mut st);
            let h1 = hashes(&st);
            assert!(h1.0 != h0.0 || h1.1 != h0.1, "`{name}`: no hash covers it");
            let carried = st.save_state().and_then(|bytes| {
                let mut r = fresh();
                r.load_state(&bytes).map(|()| hashes(&r))
            });
            match carried {
                Ok(h) => {
                    assert!(!REFUSED.contains(&name), "`{name}`: expected a refusal");
                    assert_eq!(h, h1, "`{name}`: not carried by save/load");
                }
                Err(e) => assert!(REFUSED.contains(&name), "`{name}`: refused: {e}"),
            }
            st.rollback(snap).unwrap();
            assert_eq!(hashes(&st), h0, "`{name}`: not restored by rollback");
            st.check_heap().unwrap();
        }
        assert!(world >= 16, "the world class lost fields: {world}");
    }

    #[test]
    fn scratch_fields_out_of_rest_refuse_snapshots_and_saves() {
        type Change = (&'static str, fn(&mut State));
        let changes: &[Change] = &[
            ("n_ccalls", |st| st.n_ccalls = 1),
            ("ccall_mark", |st| st.ccall_mark = 1),
            ("ccall_base", |st| st.ccall_base = 1),
            ("loop_resumes", |st| {
                let t = st.main_thread;
                st.loop_resumes.push(crate::coswitch::LoopResume::for_test(t))
            }),
            ("in_msgh", |st| st.in_msgh = 1),
            ("closing", |st| st.closing = true),
            ("gc_roots", |st| st.gc_roots.push(ObjRef::Table(st.registry()))),
        ];
        for &(name, class) in State::FIELDS {
            if class != FieldClass::Scratch || name == "buf" {
                continue;
            }
            let (_, change) = changes
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("scratch field `{name}` has no test change"));
            let mut st = base();
            let h = st.heap_hash();
            change(&mut st);
            assert_eq!(st.busy_scratch(), Some(name));
            assert_ne!(st.heap_hash(), h, "`{name}`: the heap hash does not see it");
            assert!(st.snapshot().is_err(), "`{name}`: snapshot taken");
            assert!(st.save_state().is_err(), "`{name}`: state saved");
            st.n_ccalls = 0;
            st.ccall_mark = 0;
            st.ccall_base = 0;
            st.loop_resumes.clear();
            st.in_msgh = 0;
            st.closing = false;
            st.gc_roots.clear();
        }
    }

    #[test]
    fn host_fields_are_not_covered() {
        let mut st = base();
        let h0 = hashes(&st);
        let snap = st.snapshot().unwrap();
        st.budget = 17;
        st.allow_binary_chunks = false;
        st.set_memory_limit(Some(1 << 30));
        st.native_id("schema.test", |_| Ok(crate::raw::Action::Return(0)));
        assert_eq!(hashes(&st), h0);
        st.rollback(snap).unwrap();
        assert_eq!(st.budget, 17, "the budget is the host's meter");
        assert!(!st.allow_binary_chunks);
        let bytes = st.save_state().unwrap();
        let mut r = fresh();
        r.load_state(&bytes).unwrap();
        assert!(r.allow_binary_chunks, "host configuration is the receiver's");
    }

    #[test]
    fn every_field_is_classified_once() {
        let mut names: Vec<&str> = State::FIELDS.iter().map(|f| f.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), State::FIELDS.len());
        assert_eq!(State::FIELDS.iter().filter(|f| f.1 == FieldClass::Heap).count(), 1);
    }
}
