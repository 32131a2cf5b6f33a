//! Snapshot and rollback (being written): an undo journal over the arenas.

/// The snapshot journal of a state (see the module docs).
#[derive(Default)]
pub(crate) struct Journal {}
