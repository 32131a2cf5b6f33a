//! Pass "Transmit Table Contents Non Recursively" (seed 000), and the
//! subroutine it shares with pass 8.
//!
//! For every number `N` of the master numbering (`1..=M`, skipping the
//! holes pairing left) the master table `TM` and the client table `TC` of
//! that number are compared **non-recursively**, entry by entry:
//!
//! ```text
//! for every entry Key→Value of TM, Key sortable:      (METATABLE first)
//!     if TC[Key] is not the image of TM[Key]: send "in N, store Key→image"
//! for every entry Key→Value of TC, Key sortable:
//!     if TM[Key] == nil:                      send "in N, store Key→nil"
//! ```
//!
//! The equality and the image are `values.rs`'s (the seed's rules). The
//! metatable is the `METATABLE` key, compared like any entry (a class used
//! as a metatable goes as `class NAME`). Values are sent as
//! [`Val`](super::Val): functions and threads as nil. The subroutine
//! [`diff_table`] is the one pass 8 uses for tangible databases, without
//! the metatable.
//!
//! **Beyond the seed: iteration order.** Our tables iterate in insertion
//! order (array part, then the hash part as keys were inserted), so two
//! tables with equal contents can still be visited in different orders by
//! `pairs`, and predicted code on the client would then diverge from the
//! master. After the pass's stores are applied, the server compares, for
//! every transmitted table, the order of the client's keys with the order
//! of the master's transmittable keys (sortable keys whose image is not
//! nil). Where they differ the frame carries a *rewrite* of that table
//! ([`Sets::rewrite`](super::Sets)): the master's entries in its order,
//! from which the client rebuilds the table in place
//! (`State::table_rebuild`: same table, same metatable) so that it iterates
//! exactly in that order: the leading keys `1, 2, 3, …` in an array part of
//! exactly that size, every other entry in the hash part in order. Any
//! order a table can have is rebuilt so, whatever the master's layout (an
//! integer key in its hash part, key 1 or the key just past its array
//! included), which storing the entries into an emptied table could not
//! always do (a store lays an integer key out by the table's state: of
//! 3,000 tables built by random stores, 293 came out in another order, and
//! the server could only report them). The server still checks every rewritten table after
//! applying it and would report any whose order differs as a
//! [`DesyncReport`](super::DesyncReport) naming its number. Non-sortable
//! keys are not transmitted, so a rewrite drops any the client had.
//!
//! **Incremental frames** compare only the pairs that may differ
//! (`mod.rs`, "Incremental frames"): [`transmit_table_contents`] and
//! [`restore_order`] take the targets to compare.

use super::frame::{Key, Sets, Target, Val};
use super::values::{key_of, Applier, Compare, Refs};
use super::{ClientCtx, DesyncReport, DiffError, Pass, Reject, ServerCtx};
use crate::world::World;
use luprex_vm::raw::{is_sortable, TableRef, Value};

/// The stores that make client table `tc` equal to master table `tm`
/// (with the metatable as the first entry if `with_meta`).
pub fn diff_table(
    cmp: &Compare<'_>,
    tm: TableRef,
    tc: TableRef,
    with_meta: bool,
) -> Vec<(Key, Val)> {
    let mut out = Vec::new();
    let (m, c) = (cmp.m, cmp.c);
    if with_meta {
        let mm = m.metatable(Value::Table(tm)).map_or(Value::Nil, Value::Table);
        let cm = c.metatable(Value::Table(tc)).map_or(Value::Nil, Value::Table);
        if !cmp.same(mm, cm) {
            out.push((Key::Metatable, cmp.image(mm)));
        }
    }
    for (k, v) in m.table(tm).iter() {
        if !is_sortable(k) {
            continue;
        }
        if !cmp.same(v, cmp.client_get(tc, k)) {
            if let Some(key) = key_of(m, k) {
                out.push((key, cmp.image(v)));
            }
        }
    }
    for (k, v) in c.table(tc).iter() {
        if !is_sortable(k) || v.is_nil() {
            continue;
        }
        if cmp.master_get(tm, k).is_nil() {
            if let Some(key) = key_of(c, k) {
                out.push((key, Val::Nil));
            }
        }
    }
    out
}

/// Whether client table `tc` visits its sortable keys in the order master
/// table `tm` visits its transmittable ones.
pub fn same_order(cmp: &Compare<'_>, tm: TableRef, tc: TableRef) -> bool {
    let mut mi = cmp
        .m
        .table(tm)
        .iter()
        .filter(|&(k, v)| is_sortable(k) && !cmp.image_is_nil(v))
        .map(|e| e.0);
    let mut ci =
        cmp.c.table(tc).iter().filter(|&(k, v)| is_sortable(k) && !v.is_nil()).map(|e| e.0);
    loop {
        match (mi.next(), ci.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if cmp.same_key(a, b) => {}
            _ => return false,
        }
    }
}

/// The master's transmittable entries of `tm` in its order.
pub fn entries_in_order(cmp: &Compare<'_>, tm: TableRef) -> Vec<(Key, Val)> {
    cmp.m
        .table(tm)
        .iter()
        .filter(|&(k, v)| is_sortable(k) && !cmp.image_is_nil(v))
        .filter_map(|(k, v)| Some((key_of(cmp.m, k)?, cmp.image(v))))
        .collect()
}

/// The (target, master table, client table) of every table of pass 7.
pub fn table_targets(cmp: &Compare<'_>) -> Vec<(Target, TableRef, TableRef)> {
    (1..=cmp.max_number())
        .filter_map(|n| Some((Target::Table(n), cmp.master_table(n)?, cmp.cnums.table(n)?)))
        .collect()
}

/// The server side of pass 7, over `targets` ([`table_targets`], or the
/// incremental frame's subset of them: `mod.rs`).
pub fn transmit_table_contents(
    cmp: &Compare<'_>,
    targets: &[(Target, TableRef, TableRef)],
) -> Vec<Sets> {
    let mut out = Vec::new();
    for &(target, tm, tc) in targets {
        let sets = diff_table(cmp, tm, tc, true);
        if !sets.is_empty() {
            out.push(Sets { target, rewrite: false, sets });
        }
    }
    out
}

/// Rewrites for the targets whose key order differs (after the stores
/// were applied): each carries the master's entries in its order, and the
/// client rebuilds the table from them with `State::table_rebuild`, which
/// lays the leading keys `1, 2, 3, …` out in an array part of exactly that
/// size and every other entry in the hash part in order, so the table
/// iterates exactly in the master's order whatever the master's layout
/// (an integer key in the master's hash part, say key 2 re-inserted after
/// a string key, or key `n + 1` stored while the array was too sparse to
/// grow, included).
pub fn restore_order(cmp: &Compare<'_>, targets: &[(Target, TableRef, TableRef)]) -> Vec<Sets> {
    targets
        .iter()
        .filter(|&&(_, tm, tc)| !same_order(cmp, tm, tc))
        .map(|&(target, tm, _)| Sets { target, rewrite: true, sets: entries_in_order(cmp, tm) })
        .collect()
}

/// After the rewrites were applied: reports every rewritten target whose
/// order (or contents) still differs.
pub fn verify_order(
    cmp: &Compare<'_>,
    targets: &[(Target, TableRef, TableRef)],
    rewritten: &[Sets],
    pass: Pass,
    sctx: &mut ServerCtx,
) {
    for &(target, tm, tc) in targets {
        if !rewritten.iter().any(|s| s.target == target) {
            continue;
        }
        if !same_order(cmp, tm, tc) || !diff_table(cmp, tm, tc, false).is_empty() {
            let (table, tangible) = match target {
                Target::Table(n) => (Some(n), None),
                Target::Tangible(id) => (None, Some(id)),
                Target::Published => (None, None),
            };
            sctx.reports.push(DesyncReport {
                pass,
                table,
                tangible,
                detail: "key order still differs from the master's after a rewrite".into(),
            });
        }
    }
}

/// The client side (and the server's copy) of passes 7 and 8: applies
/// `sets` in order.
pub fn apply_sets(
    w: &mut World,
    refs: &Refs,
    sets: &[Sets],
    cctx: &ClientCtx,
    pass: Pass,
) -> Result<(), DiffError> {
    let ap = Applier { refs, nums: &cctx.nums, pass };
    for s in sets {
        let (t, meta) = match s.target {
            Target::Table(n) => {
                (cctx.nums.table(n).ok_or(DiffError::reject(pass, Reject::UnknownTable(n)))?, true)
            }
            Target::Tangible(id) => {
                (w.tangible(id).ok_or(DiffError::reject(pass, Reject::UnknownTangible(id)))?, false)
            }
            Target::Published => (refs.globalpub, false),
        };
        if s.rewrite {
            // The whole contents in the master's order, laid out so that
            // the table iterates in exactly that order.
            let mut entries = Vec::with_capacity(s.sets.len());
            for (k, v) in &s.sets {
                entries.push((ap.key(w, k)?, ap.value(w, v)?));
            }
            w.state_mut().table_rebuild(t, &entries).map_err(|_| ap.bad_key())?;
            continue;
        }
        for (k, v) in &s.sets {
            ap.set(w, t, k, v, meta)?;
        }
    }
    Ok(())
}
