//! Pass "Transmit Tangible Differences" (seed 000), and the published
//! globals.
//!
//! For each close tangible, its master database (the Lua tangible table)
//! is compared with the client's by the subroutine of pass 7
//! ([`diff_table`]), **without the metatable**: a tangible's metatable is
//! the engine's (its ID, its class, its threads) and is handled by pass 9.
//! Its entries' values are any transmittable values, in particular the
//! ordinary tables numbered by passes 4 to 6 and other tangibles.
//!
//! **Published globals** (`global.set`, registry `globalpub`, seed 003:
//! "data that needs to be broadcast to all clients") are transmitted here
//! the same way, as one more database: it is a root of the numbering
//! (before the close tangibles), so the tables it holds are numbered,
//! paired and transmitted by passes 4 to 7, and its own entries are
//! compared here (target [`Target::Published`]). So every client receives
//! the published globals whatever its position. The globals database
//! (`globaldb`) is never transmitted: it is master-only (seed 004).
//!
//! Order: the published globals first, then the close tangibles in
//! ascending ID order; each database's key order is then restored like a
//! table's (`table_contents.rs`).

use super::frame::{Sets, Target};
use super::table_contents::diff_table;
use super::values::{Compare, Refs};
use luprex_vm::raw::TableRef;

/// The (target, master table, client table) of every database of pass 8.
pub fn db_targets(
    mrefs: &Refs,
    srefs: &Refs,
    close: &[u64],
    m_tans: &[TableRef],
    s_tans: &[TableRef],
) -> Vec<(Target, TableRef, TableRef)> {
    let mut v = vec![(Target::Published, mrefs.globalpub, srefs.globalpub)];
    for ((&id, &tm), &tc) in close.iter().zip(m_tans).zip(s_tans) {
        v.push((Target::Tangible(id), tm, tc));
    }
    v
}

/// The server side.
pub fn transmit_tangible_differences(
    cmp: &Compare<'_>,
    targets: &[(Target, TableRef, TableRef)],
) -> Vec<Sets> {
    let mut out = Vec::new();
    for &(target, tm, tc) in targets {
        let sets = diff_table(cmp, tm, tc, false);
        if !sets.is_empty() {
            out.push(Sets { target, rewrite: false, sets });
        }
    }
    out
}
