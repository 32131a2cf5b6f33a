//! Pass "Number the Remaining Tables in the Master Model" (seed 000).
//!
//! Every master table reachable from the roots that pairing left without a
//! number gets the next one from `N + 1` (`N`: the size of the client
//! numbering), breadth-first ([`Pairing::number_remaining`]). Then the
//! frame tells the client to create empty tables numbered `N + 1..=M`;
//! after that every master table of the numbering has a client table of
//! the same number.
//!
//! **Created tables and the collector.** The new tables are not referenced
//! by anything until pass 7 stores them; allocation through the API never
//! collects (`vm/src/state.rs`, "Rooting"), and nothing runs Lua code
//! between this pass and pass 7, so they cannot be collected in between.
//!
//! **A bound on creation** (the client's defence against a malformed
//! frame): every created table is reachable in the master, and the client
//! held no reference to it, so the frame must store a reference to each of
//! them: a frame creating more tables than it has `table N` values is
//! rejected before anything is created ([`Reject::TooManyTables`]).

use super::frame::{Graph, Val};
use super::{ClientCtx, DiffError, Pass, Reject};
use crate::world::World;
use luprex_vm::raw::{Pairing, SpecialSet, State, Value};

/// The server side: numbers the remaining master tables; returns how many
/// tables the client must create.
pub fn number_remaining_tables(
    master: &State,
    roots: &[Value],
    special: &SpecialSet,
    pairing: &mut Pairing,
) -> u32 {
    let r = pairing.number_remaining(master, roots, special);
    r.end - r.start
}

/// Rejects a graph that creates more tables than it references.
pub fn check_referenced(g: &Graph) -> Result<(), DiffError> {
    let refs = [&g.tables, &g.reorder, &g.dbs, &g.db_reorder]
        .iter()
        .flat_map(|v| v.iter())
        .flat_map(|s| s.sets.iter())
        .filter(|(_, v)| matches!(v, Val::Table(_)))
        .count();
    if g.new_tables as usize > refs {
        return Err(DiffError::reject(
            Pass::NumberRemainingTables,
            Reject::TooManyTables(g.new_tables),
        ));
    }
    Ok(())
}

/// The client side (and the server's copy): creates `count` empty tables
/// numbered after the client numbering.
pub fn apply(w: &mut World, count: u32, cctx: &mut ClientCtx) {
    for _ in 0..count {
        let t = w.state_mut().new_table_sized(0, 0);
        cctx.nums.push_created(t);
    }
}
