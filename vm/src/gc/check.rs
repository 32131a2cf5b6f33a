//! The heap-consistency check, for tests and fuzzing: every handle
//! reachable from the roots names a live object, the interner maps every
//! live registered string to itself (`string.rs`), and outside a cycle no
//! mark bit is left set (in generational mode, where a mark means old, the
//! generational invariant holds instead: `gc/io.rs`).

use crate::func::UpVal;
use crate::gc::Phase;
use crate::schema::{visit_object, ObjRef, Visit};
use crate::state::State;
use crate::value::Value;

/// Whether object `o`'s mark bit is set.
fn is_marked(h: &crate::heap::Heap, o: ObjRef) -> bool {
    match o {
        ObjRef::Str(x) => h.strings.is_marked(x),
        ObjRef::Table(x) => h.tables.is_marked(x),
        ObjRef::LuaFn(x) => h.lua_fns.is_marked(x),
        ObjRef::RustFn(x) => h.rust_fns.is_marked(x),
        ObjRef::Upval(x) => h.upvals.is_marked(x),
        ObjRef::Proto(x) => h.protos.is_marked(x),
        ObjRef::Thread(x) => h.threads.is_marked(x),
        ObjRef::UserData(x) => h.userdata.is_marked(x),
    }
}

impl State {
    /// Heap-consistency check: every handle reachable from the roots names
    /// a live object, the interner maps every live registered string to
    /// itself and holds no other, no short string is loose, no table key
    /// is loose, and no
    /// mark bit is left set.
    pub fn check_heap(&self) -> Result<(), String> {
        /// Every reference, weak ones included.
        struct All<'a>(&'a mut Vec<ObjRef>);
        impl Visit for All<'_> {
            fn obj(&mut self, o: ObjRef) {
                self.0.push(o);
            }
            fn weak(&mut self, v: Value) {
                self.value(v);
            }
        }
        let h = &self.heap;
        let mut seen: [Vec<bool>; ObjRef::KINDS] = [
            vec![false; h.strings.capacity_slots()],
            vec![false; h.tables.capacity_slots()],
            vec![false; h.lua_fns.capacity_slots()],
            vec![false; h.rust_fns.capacity_slots()],
            vec![false; h.upvals.capacity_slots()],
            vec![false; h.protos.capacity_slots()],
            vec![false; h.threads.capacity_slots()],
            vec![false; h.userdata.capacity_slots()],
        ];
        let mut work = Vec::new();
        self.visit_world(&mut All(&mut work));
        while let Some(o) = work.pop() {
            let i = o.index() as usize;
            if !o.is_live(h) {
                return Err(format!("dangling {} handle #{i}", o.kind_name()));
            }
            if self.gc.phase == Phase::Pause && !self.gc.gen_ages() && is_marked(h, o) {
                return Err(format!("{} #{i} left marked", o.kind_name()));
            }
            if std::mem::replace(&mut seen[o.kind()][i], true) {
                continue;
            }
            match o {
                ObjRef::Str(s) if h.is_loose(s) && h.str(s).len() <= crate::string::SHORT => {
                    return Err(format!("short string #{i} is loose"));
                }
                ObjRef::Str(s)
                    if !h.is_loose(s) && h.interner.find(&h.strings, h.str(s)) != Some(s) =>
                {
                    return Err(format!("string #{i} not interned"));
                }
                ObjRef::Table(t) => {
                    let loose = |k: Value| matches!(k, Value::Str(s) if h.is_loose(s));
                    if h.tables.get(t).iter().any(|(k, _)| loose(k)) {
                        return Err(format!("table #{i} has a loose string key"));
                    }
                }
                ObjRef::RustFn(f) if h.rust_fns.get(f).id.0 as usize >= self.natives.len() => {
                    return Err(format!("native closure #{i} has a bad id"));
                }
                ObjRef::Upval(u) => {
                    if let UpVal::Open { thread, slot } = *h.upvals.get(u) {
                        let len = if thread == self.running {
                            self.ex.stack.len()
                        } else {
                            h.threads.try_get(thread.index()).map_or(0, |t| t.ex.stack.len())
                        };
                        if slot as usize >= len {
                            return Err(format!("open upvalue #{i} beyond stack"));
                        }
                    }
                }
                _ => {}
            }
            visit_object(h, o, &mut All(&mut work));
        }
        let registered = h.strings.iter().filter(|(_, s)| s.is_registered()).count();
        if h.interner.len() != registered {
            return Err(format!(
                "interner holds {} strings, the arena {registered} registered ones",
                h.interner.len(),
            ));
        }
        if self.gc.gen_ages() {
            // Marks mean old: the generational invariant instead.
            crate::gc::io::check(&self.gc, h)?;
        }
        Ok(())
    }
}
