//! Pass "Number the Tables in the Client Model" (seed 000).
//!
//! Every ordinary table reachable from the roots in the client model gets
//! a number from 1; done identically on the server (in its ServerSync
//! copy) and on the client, with no message. The traversal is the VM's
//! [`State::number_tables`](luprex_vm::raw::State::number_tables)
//! (`vm/src/traverse.rs`): breadth-first, the metatable first, only
//! sortable keys, special tables neither numbered nor entered.
//!
//! **Roots.** The published globals table (`global.set`, registry
//! `globalpub`), then the close tangibles' databases in close-list order;
//! all of them are special, so the traversal starts at the ordinary tables
//! they hold under sortable keys (the seed: "all ordinary tables pointed to
//! by the tangible database"). **Special tables** are the World's
//! ([`World::special_set`](crate::World::special_set): the environment,
//! the registry, the class tables, the live tangibles) and the published
//! globals table.
//!
//! **Where the maps live.** The seed keeps *tnmap* and *ntmap* as Lua
//! tables in the registry; ours are native vectors indexed by handle and by
//! number ([`luprex_vm::raw::Numbering`]), so numbering allocates nothing
//! in the heap and leaves the model untouched (its state hash unchanged).
//!
//! **Beyond the seed** ("a verification step involving the transmission of
//! a hash-value... we haven't done that yet"): the server sends a 64-bit
//! hash of its numbering (the count and the handle index of each table in
//! number order: the two synchronous models are equal, so their handles
//! are equal too), and the client compares it with its own
//! ([`DiffError::Desync`](super::DiffError::Desync) naming this pass).

use super::{hash_words, ClientCtx};
use luprex_vm::raw::{SpecialSet, State, Value};

/// Numbers the client model `st` from `roots`; records the numbering in
/// `cctx` and returns its hash.
pub fn number_client_tables(
    st: &State,
    roots: &[Value],
    special: &SpecialSet,
    cctx: &mut ClientCtx,
) -> u64 {
    let numbering = st.number_tables(roots, special);
    let h =
        hash_words(b"client numbering", numbering.tables().iter().map(|t| u64::from(t.index())));
    cctx.nums.set_numbering(numbering);
    h
}
