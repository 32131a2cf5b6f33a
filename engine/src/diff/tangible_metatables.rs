//! Pass "Compare Tangible Metatables" (seed 000).
//!
//! A tangible's metatable is where the engine keeps its ID, its class
//! (`__index`), its protection string and its thread table (`tangible.rs`,
//! `threads.rs`); none of it is transmitted by the table passes. The only
//! transmittable datum in it is the class: for each close tangible, the
//! server compares the class *name* of the master's and the client's
//! tangible and, if they differ, sends the master's name. The client sets
//! the class with [`World::set_class`] (which requires a class of that
//! name in its class database, brought there by the source database pass).
//!
//! A master tangible whose class cannot be named is skipped and reported
//! ([`DesyncReport`]): there is nothing a client could be told.

use super::values::{class_name_of, Refs};
use super::{DesyncReport, DiffError, Pass, Reject, ServerCtx};
use crate::world::World;

/// The class name of tangible `id` in `w`.
fn class_bytes(w: &mut World, refs: &Refs, id: u64) -> Option<Vec<u8>> {
    let t = w.tangible(id)?;
    class_name_of(w.state(), refs, t).map(|s| w.state().str_bytes(s).to_vec())
}

/// The server side: `(tangible, class name)` for every close tangible
/// whose class differs.
pub fn compare_tangible_metatables(
    master: &mut World,
    sync: &mut World,
    close: &[u64],
    sctx: &mut ServerCtx,
) -> Vec<(u64, String)> {
    let mr = Refs::new(master.state_mut());
    let sr = Refs::new(sync.state_mut());
    let mut out = Vec::new();
    for &id in close {
        let m = class_bytes(master, &mr, id);
        let s = class_bytes(sync, &sr, id);
        match m {
            Some(m) if Some(&m) != s.as_ref() => match String::from_utf8(m) {
                Ok(name) => out.push((id, name)),
                Err(_) => sctx.reports.push(DesyncReport {
                    pass: Pass::TangibleMetatables,
                    table: None,
                    tangible: Some(id),
                    detail: "class name is not UTF-8".into(),
                }),
            },
            None => sctx.reports.push(DesyncReport {
                pass: Pass::TangibleMetatables,
                table: None,
                tangible: Some(id),
                detail: "the master tangible's class has no name".into(),
            }),
            Some(_) => {}
        }
    }
    out
}

/// The client side (and the server's copy).
pub fn apply(w: &mut World, classes: &[(u64, String)]) -> Result<(), DiffError> {
    const P: Pass = Pass::TangibleMetatables;
    for (id, name) in classes {
        if w.tangibles().get(*id).is_none() {
            return Err(DiffError::reject(P, Reject::UnknownTangible(*id)));
        }
        w.set_class(*id, name)
            .map_err(|_| DiffError::reject(P, Reject::UnknownClass(name.clone())))?;
    }
    Ok(())
}
