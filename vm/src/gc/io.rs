//! The collector's cycle as world state: hashed (as layout), saved, loaded
//! and checked with the other fields of `GcState` (`schema.rs` calls these).
//!
//! A saved state continues the very cycle that was running, so the loaded
//! state collects at the same points as the one saved. Loading trusts
//! nothing: every object the cycle names must be live, and the arenas'
//! marks, barriers and sweep cursors (`arena/marks.rs`, read with the heap)
//! must fit the phase — barriers on only while marking, sweep cursors
//! only on the arenas not swept yet, and no mark at all between cycles —
//! or the collector could free a live object.

use super::{Cycle, GcState, Phase};
use crate::arena::Marks;
use crate::heap::Heap;
use crate::persist::{RResult, Reader, WResult, Writer};
use crate::schema::{visit_object, ObjRef, Visit};
use crate::value::TableRef;

/// The phase as a byte: 0 pause, 1 propagate, 2 + k sweeping arena k.
fn phase_code(p: Phase) -> u8 {
    match p {
        Phase::Pause => 0,
        Phase::Propagate => 1,
        Phase::Sweep(k) => 2 + k,
    }
}

/// Layout words of the cycle (heap hash only).
pub(crate) fn visit<V: Visit>(gc: &GcState, v: &mut V) {
    v.layout(u64::from(gc.stepsize));
    v.layout(u64::from(phase_code(gc.phase)));
    let c = &gc.cycle;
    v.layout(c.gray.len() as u64);
    c.gray.iter().for_each(|o| v.layout((o.kind() as u64) << 32 | u64::from(o.index())));
    v.layout(c.partial.len() as u64);
    for (t, pos) in &c.partial {
        v.layout(u64::from(t.index()) << 32 | u64::from(*pos));
    }
    for list in [&c.weak_values, &c.ephemerons, &c.all_weak] {
        v.layout(list.len() as u64);
        list.iter().for_each(|t| v.layout(u64::from(t.index())));
    }
    for x in [c.live, c.work, c.bytes_at_atomic] {
        v.layout(x as u64);
    }
    v.data(u64::from(gc.minormul));
    v.data(u64::from(gc.majormul));
    v.layout(gc.gen_base as u64);
    v.layout(gc.minors);
    v.layout(gc.lastatomic as u64);
}

pub(crate) fn save(gc: &GcState, w: &mut Writer<'_>) -> WResult {
    w.u32(gc.stepsize);
    w.u8(phase_code(gc.phase));
    let c = &gc.cycle;
    w.len(c.gray.len())?;
    c.gray.iter().for_each(|&o| w.obj_ref(o));
    w.len(c.partial.len())?;
    for (t, pos) in &c.partial {
        w.u32(t.index());
        w.u32(*pos);
    }
    for list in [&c.weak_values, &c.ephemerons, &c.all_weak] {
        w.len(list.len())?;
        list.iter().for_each(|t| w.u32(t.index()));
    }
    for x in [c.live, c.work, c.bytes_at_atomic] {
        w.u64(x as u64);
    }
    w.u32(gc.minormul);
    w.u32(gc.majormul);
    w.u64(gc.gen_base as u64);
    w.u64(gc.minors);
    w.u64(gc.lastatomic as u64);
    Ok(())
}

pub(crate) fn load(gc: &mut GcState, r: &mut Reader<'_>) -> RResult<()> {
    gc.stepsize = r.u32()?.min(40);
    gc.phase = match r.u8()? {
        0 => Phase::Pause,
        1 => Phase::Propagate,
        k @ 2..=9 => Phase::Sweep(k - 2),
        k => return Err(format!("bad collector phase {k}")),
    };
    let mut c = Cycle::default();
    let n = r.count(5)?;
    c.gray = (0..n).map(|_| r.obj_ref()).collect::<RResult<_>>()?;
    let n = r.count(8)?;
    c.partial = (0..n).map(|_| Ok((r.handle()?, r.u32()?))).collect::<RResult<_>>()?;
    for list in [&mut c.weak_values, &mut c.ephemerons, &mut c.all_weak] {
        let n = r.count(4)?;
        *list = (0..n).map(|_| r.handle()).collect::<RResult<_>>()?;
    }
    c.live = r.usize()?;
    c.work = r.usize()?;
    c.bytes_at_atomic = r.usize()?;
    gc.cycle = c;
    gc.minormul = r.u32()?.min(1000);
    gc.majormul = r.u32()?.min(10_000);
    gc.gen_base = r.usize()?;
    gc.minors = r.u64()?;
    gc.lastatomic = r.usize()?;
    Ok(())
}

/// The arenas' collector states, in the heap's arena order.
pub(crate) fn all_marks(heap: &Heap) -> [&Marks; ObjRef::KINDS] {
    [
        heap.strings.marks(),
        heap.tables.headers().marks(),
        heap.lua_fns.marks(),
        heap.rust_fns.marks(),
        heap.upvals.marks(),
        heap.protos.marks(),
        heap.threads.marks(),
        heap.userdata.marks(),
    ]
}

/// Checks the cycle against the heap (see the module docs).
pub(crate) fn check(gc: &GcState, heap: &Heap) -> RResult<()> {
    if gc.is_gen() && gc.lastatomic == 0 {
        return check_gen(gc, heap);
    }
    if gc.is_gen() && gc.phase != Phase::Pause {
        return Err("a generational collector outside its pause".into());
    }
    let ages = |m: &&Marks| m.gen || !m.young.is_empty() || !m.survival.is_empty();
    if all_marks(heap).iter().any(|m| ages(m) || !m.old1.is_empty()) {
        return Err("generational state outside generational mode".into());
    }
    let c = &gc.cycle;
    let live_table = |t: &TableRef| heap.tables.try_get(t.index()).is_some();
    if !c.gray.iter().all(|o| o.is_live(heap)) {
        return Err("the collector's gray list names a dead object".into());
    }
    let lists = [&c.weak_values, &c.ephemerons, &c.all_weak];
    if !c.partial.iter().map(|(t, _)| t).chain(lists.into_iter().flatten()).all(live_table) {
        return Err("the collector's cycle names a dead table".into());
    }
    let (twatch, fwd) = heap.tables.barrier_state();
    if !fwd.iter().filter_map(|&v| ObjRef::of(v)).all(|o| o.is_live(heap)) {
        return Err("the tables' barrier names a dead object".into());
    }
    let marks = all_marks(heap);
    let marking = gc.phase == Phase::Propagate;
    if twatch != marking || (!marking && !fwd.is_empty()) {
        return Err("the tables' barrier does not fit the collector's phase".into());
    }
    for (k, m) in marks.into_iter().enumerate() {
        // The tables' header arena keeps its own barrier off.
        let watch = marking && k != 1;
        let sweeping = matches!(gc.phase, Phase::Sweep(s) if k >= s as usize);
        // Outside marking, an arena the sweep is not pending on has every
        // mark clear: a stale mark would make the next cycle take an
        // object for traversed.
        let no_marks = m.clear || m.bits.iter().all(|&w| w == 0);
        // Behind a sweep cursor, the sweep has cleared every mark.
        let behind_clear = m.sweep_from.is_none_or(|from| (0..from).all(|i| !m.get(i)));
        let fits = behind_clear
            && m.watch == watch
            && m.sweep_from.is_some() == sweeping
            && (marking || m.again.is_empty())
            && (marking || sweeping || no_marks);
        if !fits {
            return Err("an arena's marks do not fit the collector's phase".into());
        }
    }
    let idle = c.gray.is_empty() && c.partial.is_empty() && lists.iter().all(|l| l.is_empty());
    if !marking && !idle {
        return Err("a cycle's marking state outside marking".into());
    }
    if marking {
        check_tricolor(gc, heap)?;
    }
    Ok(())
}

/// Checks the generational mode's state against the heap: between its
/// collections (each runs whole) the collector is in the pause with the
/// barriers on, every arena lists its births, young objects are unmarked,
/// and a marked (old) object holds only marked objects or ones the
/// barriers listed or an object listed `old1` (`gc/generational.rs`).
fn check_gen(gc: &GcState, heap: &Heap) -> RResult<()> {
    let c = &gc.cycle;
    let idle = c.gray.is_empty()
        && c.partial.is_empty()
        && [&c.weak_values, &c.ephemerons, &c.all_weak].iter().all(|l| l.is_empty());
    if gc.phase != Phase::Pause || !idle {
        return Err("a generational collector outside its pause".into());
    }
    let (twatch, fwd) = heap.tables.barrier_state();
    if !twatch || !fwd.iter().filter_map(|&v| ObjRef::of(v)).all(|o| o.is_live(heap)) {
        return Err("the tables' barrier does not fit generational mode".into());
    }
    for (k, m) in all_marks(heap).into_iter().enumerate() {
        let live = |i: &u32| ObjRef::from_kind(k, *i).is_some_and(|o| o.is_live(heap));
        let young_ok = m.young.iter().chain(&m.survival).all(|i| live(i) && !m.get(*i))
            && m.old1.iter().all(live);
        if !m.gen || m.watch != (k != 1) || m.sweep_from.is_some() || !young_ok {
            let what = ObjRef::from_kind(k, 0).map_or("?", |o| o.kind_name());
            return Err(format!(
                "the {what} arena's marks do not fit generational mode (gen {}, watch {}, \
                 sweeping {}, ages {young_ok})",
                m.gen,
                m.watch,
                m.sweep_from.is_some()
            ));
        }
    }
    check_tricolor(gc, heap)
}

/// Whether `o` is garbage the sweep has not reached yet: unmarked, at or
/// above its arena's sweep cursor. Such an object may name objects already
/// freed; nothing reads it but the sweep.
pub(crate) fn is_garbage(heap: &Heap, o: ObjRef) -> bool {
    let m = all_marks(heap)[o.kind()];
    m.sweep_from.is_some_and(|c| o.index() >= c) && !m.get(o.index())
}

/// Every reference, weak ones (objects flagged for finalization) included:
/// a weakly held object must not be swept either while it is held.
pub(crate) struct AllRefs<'a>(pub(crate) &'a mut Vec<ObjRef>);

impl Visit for AllRefs<'_> {
    fn obj(&mut self, o: ObjRef) {
        self.0.push(o);
    }
    fn weak(&mut self, v: crate::value::Value) {
        self.value(v);
    }
}

/// While a sweep is pending, no object reachable from `roots` (weak
/// references included, see [`AllRefs`]) may be garbage, or the sweep
/// would free it: checked by a walk of the live graph, which also finds
/// every reference it follows alive.
pub(crate) fn check_sweep(heap: &Heap, roots: Vec<ObjRef>) -> RResult<()> {
    if all_marks(heap).iter().all(|m| m.sweep_from.is_none()) {
        return Ok(());
    }
    let mut seen: Vec<Vec<bool>> =
        all_marks(heap).iter().map(|m| vec![false; m.bits.len() * 64]).collect();
    let mut work = roots;
    let mut children = Vec::new();
    while let Some(o) = work.pop() {
        if !o.is_live(heap) || is_garbage(heap, o) {
            return Err(format!("reachable {} #{} would be swept", o.kind_name(), o.index()));
        }
        let Some(s) = seen[o.kind()].get_mut(o.index() as usize) else {
            return Err("a reference beyond its arena".into());
        };
        if std::mem::replace(s, true) {
            continue;
        }
        children.clear();
        visit_object(heap, o, &mut AllRefs(&mut children));
        work.extend_from_slice(&children);
    }
    Ok(())
}

/// While marking: no traversed object holds an unmarked object that
/// nothing will mark. A marked object that is neither gray nor a table
/// being traversed in chunks has been traversed: each object it refers to
/// is marked, listed by the tables' barrier, or listed by its arena's
/// barrier (an object changed since it was marked is unmarked and listed
/// to be marked again: `again`, drained at the next step). Weak tables
/// are exempt (their weak parts may hold unmarked objects by design).
fn check_tricolor(gc: &GcState, heap: &Heap) -> RResult<()> {
    let c = &gc.cycle;
    let (_, fwd) = heap.tables.barrier_state();
    let marks = all_marks(heap);
    // Generational mode: the objects listed `old1` are traversed again at
    // the next minor collection.
    let again = marks
        .iter()
        .enumerate()
        .flat_map(|(k, m)| m.again.iter().chain(&m.old1).map(move |&i| (k, i)));
    let pending: std::collections::BTreeSet<(usize, u32)> = (c.gray.iter().copied())
        .chain(c.partial.iter().map(|&(t, _)| ObjRef::Table(t)))
        .chain(fwd.iter().filter_map(|&v| ObjRef::of(v)))
        .map(|o| (o.kind(), o.index()))
        .chain(again)
        .collect();
    let marked = |o: ObjRef| marks[o.kind()].get(o.index());
    let mut children = Vec::new();
    for (k, m) in marks.iter().enumerate() {
        for i in 0..(m.bits.len() * 64) as u32 {
            if !m.get(i) || pending.contains(&(k, i)) {
                continue;
            }
            let Some(o) = ObjRef::from_kind(k, i) else { continue };
            if !o.is_live(heap) {
                return Err("a mark on a free slot".into());
            }
            if is_weak_table(heap, o) {
                continue;
            }
            children.clear();
            visit_object(heap, o, &mut AllRefs(&mut children));
            let ok =
                children.iter().all(|&ch| marked(ch) || pending.contains(&(ch.kind(), ch.index())));
            if !ok {
                return Err("a traversed object holds an unmarked one".into());
            }
        }
    }
    Ok(())
}

/// Whether `o` is a table with a `__mode` in its metatable.
fn is_weak_table(heap: &Heap, o: ObjRef) -> bool {
    let ObjRef::Table(t) = o else { return false };
    let Some(mt) = heap.tables.get(t).meta else { return false };
    heap.tables.get(mt).iter().any(|(k, _)| match k {
        crate::value::Value::Str(s) => heap.str(s) == b"__mode",
        _ => false,
    })
}
