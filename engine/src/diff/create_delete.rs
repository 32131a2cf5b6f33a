//! Pass "Create and Delete Tangibles" (seed 000).
//!
//! The server does a scan of the visibility radius around the player in
//! the master and another in its copy of the client model, and takes the
//! set-union of the two: the *visible tangible list*. For every tangible in
//! it, in ascending ID order:
//!
//! * in both models: compare the animation queues; if they differ, send
//!   a queue correction (the whole queue);
//! * in the master only: send "create tangible" with its class name and
//!   animation queue, and nothing else (its Lua data comes in passes 7 to
//!   9 if it is close);
//! * in the client model only: send "delete tangible".
//!
//! **Invariant** (after the pass): the tangibles within the visibility
//! radius of the player are the same in both models, with the same
//! animation queues, hence the same positions. (Pass 1 already made the
//! player's position agree, so both scans are centred on the same point;
//! the clock agrees too, checked at the frame's start.)
//!
//! A master tangible whose class cannot be named (its `__index` is not a
//! class of the class database) cannot be created on a client: rather
//! than send something the client would reject, the server fails the
//! frame with a [`Reject::UnknownClass`] of this pass (and its ServerSync
//! copy is rolled back).

use super::frame::{CreateTangible, TangibleOp};
use super::player_position::{class_of, create, queue_of, set_queue, wire_queue};
use super::{DiffError, Pass, Radii, Reject};
use crate::world::World;
use std::collections::BTreeSet;

/// The server side.
pub fn create_and_delete_tangibles(
    master: &mut World,
    sync: &mut World,
    player: u64,
    radii: Radii,
) -> Result<Vec<TangibleOp>, DiffError> {
    let mpos = master.position(player).ok_or(DiffError::NoPlayer(player))?;
    let spos = sync.position(player).ok_or(DiffError::NoPlayer(player))?;
    let mut visible = BTreeSet::new();
    visible.extend(master.scan_radius(mpos, radii.visibility));
    visible.extend(sync.scan_radius(spos, radii.visibility));
    let mut ops = Vec::new();
    let mut creates = Vec::new();
    let (mt, st) = (master.tangibles(), sync.tangibles());
    for id in visible {
        match (mt.get(id), st.get(id)) {
            (Some(m), Some(s)) => {
                if m.queue != s.queue {
                    ops.push(TangibleOp::Queue(id, wire_queue(&m.queue)));
                }
            }
            (Some(m), None) => {
                creates.push(ops.len());
                ops.push(TangibleOp::Create(CreateTangible {
                    id,
                    class: String::new(),
                    queue: wire_queue(&m.queue),
                }));
            }
            (None, Some(_)) => ops.push(TangibleOp::Delete(id)),
            (None, None) => {}
        }
    }
    for i in creates {
        let TangibleOp::Create(c) = &mut ops[i] else { continue };
        c.class = class_of(master, c.id).ok_or_else(|| {
            DiffError::reject(
                Pass::CreateAndDeleteTangibles,
                Reject::UnknownClass(format!("<class of tangible {}>", c.id)),
            )
        })?;
    }
    Ok(ops)
}

/// The client side (and the server's ServerSync copy).
pub fn apply(w: &mut World, ops: &[TangibleOp]) -> Result<(), DiffError> {
    const P: Pass = Pass::CreateAndDeleteTangibles;
    for op in ops {
        match op {
            TangibleOp::Create(c) => create(w, c, P)?,
            TangibleOp::Delete(id) => {
                if !w.destroy_tangible(*id) {
                    return Err(DiffError::reject(P, Reject::UnknownTangible(*id)));
                }
            }
            TangibleOp::Queue(id, q) => {
                let q = queue_of(*id, q, P)?;
                set_queue(w, *id, q, P)?;
            }
        }
    }
    Ok(())
}
