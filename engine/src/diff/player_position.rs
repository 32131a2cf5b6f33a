//! Pass "Update Player Position" (seed 000).
//!
//! The following passes scan around the player, so client and server must
//! first agree on where the player is: its position is the last step of
//! its animation queue, so this pass difference transmits the player's
//! animation queue. It also transmits the player tangible's other non-Lua
//! data: the IdPlayerPool (the blocks of IDs the player's commands
//! allocate from, `tangible.rs`) and the print text.
//!
//! **Design.** The server compares the master's Rust tangible of the
//! player with the ServerSync model's; a differing queue is sent whole (a
//! queue is a handful of steps), a differing pool is sent whole. If the
//! client model does not have the player at all (the first frame), the
//! pass creates it (ID, class name, queue), as pass 2 creates tangibles.
//!
//! **Print text.** In our engine `print` output is not world state: a
//! World keeps it in a buffer outside the VM state (`world.rs`, "Output"),
//! so it is not compared. The host passes the master's output for this
//! player ([`crate::World::take_prints`]) to the transmitter, which carries
//! it in the frame; [`super::apply`] hands it back ([`super::Applied`]).
//!
//! **Invariant:** after this pass the player exists in the client model
//! with the master's animation queue and IdPlayerPool. This pass touches
//! no other tangible.

use super::frame::{CreateTangible, PlayerUpdate, WireStep};
use super::values::{class_name_of, Refs};
use super::{DiffError, Pass, Reject};
use crate::tangible::{AnimationQueue, IdPlayerPool, Step};
use crate::world::World;

/// A queue's wire form.
pub(crate) fn wire_queue(q: &AnimationQueue) -> Vec<WireStep> {
    q.steps().iter().map(|s| WireStep { tick: s.tick, pos: s.pos }).collect()
}

/// The class name of master tangible `id`, for a create message.
pub(crate) fn class_of(w: &mut World, id: u64) -> Option<String> {
    let refs = Refs::new(w.state_mut());
    let t = w.tangible(id)?;
    let s = class_name_of(w.state(), &refs, t)?;
    String::from_utf8(w.state().str_bytes(s).to_vec()).ok()
}

/// The server side.
pub fn update_player_position(
    master: &mut World,
    sync: &mut World,
    player: u64,
    print: Option<String>,
) -> Result<PlayerUpdate, DiffError> {
    let m = master.tangibles().get(player).cloned().ok_or(DiffError::NoPlayer(player))?;
    let s = sync.tangibles().get(player).cloned();
    let mut up = PlayerUpdate { id: player, print, ..PlayerUpdate::default() };
    let wq = wire_queue(&m.queue);
    match &s {
        None => {
            let class = class_of(master, player).ok_or(DiffError::NoPlayer(player))?;
            up.create = Some(CreateTangible { id: player, class, queue: wq });
        }
        Some(s) if s.queue != m.queue => up.queue = Some(wq),
        Some(_) => {}
    }
    if s.as_ref().map_or(m.pool.is_some(), |s| s.pool != m.pool) {
        up.pool = Some(m.pool.as_ref().map(|p| p.blocks().to_vec()));
    }
    Ok(up)
}

/// An animation queue of the frame, validated.
pub(crate) fn queue_of(
    id: u64,
    steps: &[WireStep],
    pass: Pass,
) -> Result<AnimationQueue, DiffError> {
    let steps = steps.iter().map(|s| Step { tick: s.tick, pos: s.pos }).collect();
    AnimationQueue::from_steps(steps).ok_or(DiffError::reject(pass, Reject::BadQueue(id)))
}

/// Creates tangible `c` in `w` with its queue.
pub(crate) fn create(w: &mut World, c: &CreateTangible, pass: Pass) -> Result<(), DiffError> {
    let q = queue_of(c.id, &c.queue, pass)?;
    if w.tangibles().get(c.id).is_some() {
        return Err(DiffError::reject(pass, Reject::TangibleExists(c.id)));
    }
    w.insert_tangible(c.id, &c.class, q.last().pos).map_err(|_| {
        if w.tangibles().get(c.id).is_none() && c.id > 0 && c.id <= i64::MAX as u64 {
            DiffError::reject(pass, Reject::UnknownClass(c.class.clone()))
        } else {
            DiffError::reject(pass, Reject::TangibleExists(c.id))
        }
    })?;
    set_queue(w, c.id, q, pass)
}

/// Sets the queue of tangible `id`.
pub(crate) fn set_queue(
    w: &mut World,
    id: u64,
    q: AnimationQueue,
    pass: Pass,
) -> Result<(), DiffError> {
    if w.tangibles().get(id).is_none() {
        return Err(DiffError::reject(pass, Reject::UnknownTangible(id)));
    }
    if !w.set_queue(id, q) {
        return Err(DiffError::reject(pass, Reject::BadQueue(id)));
    }
    Ok(())
}

/// The client side (and the server's ServerSync copy).
pub fn apply(w: &mut World, up: &PlayerUpdate) -> Result<(), DiffError> {
    const P: Pass = Pass::UpdatePlayerPosition;
    if let Some(c) = &up.create {
        if c.id != up.id {
            return Err(DiffError::reject(P, Reject::UnknownTangible(c.id)));
        }
        create(w, c, P)?;
    }
    if let Some(q) = &up.queue {
        let q = queue_of(up.id, q, P)?;
        set_queue(w, up.id, q, P)?;
    }
    if let Some(pool) = &up.pool {
        let pool = match pool {
            None => None,
            Some(b) => Some(
                IdPlayerPool::from_blocks(b.clone())
                    .ok_or(DiffError::reject(P, Reject::BadPool(up.id)))?,
            ),
        };
        if !w.set_pool(up.id, pool) {
            return Err(DiffError::reject(P, Reject::UnknownTangible(up.id)));
        }
    }
    Ok(())
}

impl World {
    /// Replaces the animation queue of tangible `id` by the master's
    /// (difference transmission). False if there is no such tangible or
    /// the queue cannot be this World's at its current tick.
    pub(crate) fn set_queue(&mut self, id: u64, q: AnimationQueue) -> bool {
        crate::tangible::host_mut(self.state_mut()).set_queue(id, q)
    }
}
