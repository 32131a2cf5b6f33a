//! Pass "Pair Up Tables in the Master and Client Models" (seed 000).
//!
//! Server only, no message. The master and the ServerSync copy are walked
//! in lockstep from corresponding roots (the published globals with the
//! published globals, each close tangible's database with the same
//! tangible's), and a master table is given the number of the client
//! table it corresponds to. This is [`luprex_vm::raw::pair_tables`]
//! (`vm/src/traverse.rs`), which implements the seed's stack of likely
//! pairs and its three sanity checks (both ordinary; master not numbered
//! yet; client numbered) plus a fourth: the client table is not paired yet
//! with another master table, so the pairing stays one-to-one and no two
//! master tables can be merged into one client table. Candidates are taken
//! breadth-first, so when two paths disagree the shorter wins, the same on
//! every run.
//!
//! After this pass the master numbering is partial: numbers `1..=N` of the
//! paired tables, with holes for client tables nothing paired (they are
//! obsolete: the seed's "T1's portion of the graph is now out of date").

use super::values::ClientNumbers;
use luprex_vm::raw::{Pairing, SpecialSet, State, Value};

/// Pairs the master's tables with the ServerSync copy's.
pub fn pair_tables(
    master: &State,
    master_roots: &[Value],
    master_special: &SpecialSet,
    sync: &State,
    sync_roots: &[Value],
    sync_special: &SpecialSet,
    client: &ClientNumbers,
) -> Pairing {
    luprex_vm::raw::pair_tables(
        master,
        master_roots,
        master_special,
        sync,
        sync_roots,
        sync_special,
        client.numbering(),
    )
}
