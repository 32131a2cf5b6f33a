//! Pass "Generate the Close Tangible List" (seed 000).
//!
//! Only tangibles within the *close radius* (smaller than the visibility
//! radius) have their Lua data updated. The server scans the close radius
//! around the player in the master: the *close tangible list* (ascending
//! IDs). Pass 2's invariant says the same scan of the client model gives
//! the same list; the seed verifies it twice, and so do we:
//!
//! 1. the server does the same scan in its own copy of the client model
//!    (the ServerSync World) and compares the lists; a difference is a
//!    [`DesyncReport`] naming the first divergent tangible, and the frame
//!    fails (the later passes would compare tangibles one side lacks);
//! 2. the frame carries a hash of the list (64 bits of the VM's keyed
//!    128-bit SipHash over the IDs and their count); the client does its
//!    own scan with the frame's close radius and checks the hash
//!    ([`DiffError::Desync`] otherwise).
//!
//! After this pass both sides hold the same close list, which passes 4 to
//! 9 use for their roots. (The server's ServerSync copy takes the list it
//! checked rather than scanning a third time.)

use super::{hash_words, ClientCtx, DesyncReport, DiffError, Pass, ServerCtx};
use crate::world::World;

/// The hash of a close list.
pub fn close_hash(ids: &[u64]) -> u64 {
    hash_words(b"close tangible list", ids.iter().copied())
}

/// The server side: the hash of the master's list, after checking it
/// against the ServerSync copy's; records the list in `cctx` (the server's
/// copy needs no third scan: the two lists are equal).
pub fn generate_close_tangible_list(
    master: &mut World,
    sync: &mut World,
    player: u64,
    close: f64,
    _sctx: &mut ServerCtx,
    cctx: &mut ClientCtx,
) -> Result<u64, DiffError> {
    let mpos = master.position(player).ok_or(DiffError::NoPlayer(player))?;
    let spos = sync.position(player).ok_or(DiffError::NoPlayer(player))?;
    let m = master.scan_radius(mpos, close);
    let s = sync.scan_radius(spos, close);
    if m != s {
        let first = m.iter().zip(&s).find(|(a, b)| a != b).map(|(a, b)| *a.min(b));
        let first = first.or_else(|| m.get(s.len()).or(s.get(m.len())).copied());
        return Err(DiffError::Desync(DesyncReport {
            pass: Pass::CloseTangibleList,
            table: None,
            tangible: first,
            detail: format!("master close list {m:?}, server's client model {s:?}"),
        }));
    }
    let h = close_hash(&m);
    cctx.close = m;
    Ok(h)
}

/// The client side: scans, checks the hash and records the list.
pub fn apply(
    w: &mut World,
    player: u64,
    close: f64,
    hash: u64,
    cctx: &mut ClientCtx,
) -> Result<(), DiffError> {
    let pos = w.position(player).ok_or(DiffError::Desync(DesyncReport {
        pass: Pass::CloseTangibleList,
        table: None,
        tangible: Some(player),
        detail: "no player tangible in the client model".into(),
    }))?;
    let ids = if close.is_nan() || close < 0.0 { Vec::new() } else { w.scan_radius(pos, close) };
    let h = close_hash(&ids);
    if h != hash {
        return Err(DiffError::Desync(DesyncReport {
            pass: Pass::CloseTangibleList,
            table: None,
            tangible: ids.first().copied(),
            detail: format!(
                "close list hash {h:016x} of {} tangibles differs from the server's {hash:016x}",
                ids.len()
            ),
        }));
    }
    cctx.close = ids;
    Ok(())
}
