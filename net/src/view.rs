//! The view frame: difference transmission as the network layer uses it.
//!
//! **Design.** Difference transmission (seed 003's second channel)
//! compares the master with one client's server-synchronous model and
//! sends what differs within the player's view. Issue 12 writes the real
//! thing (`luprex_engine::diff`, a multipass comparison of the table
//! graph); until it lands in this branch, this module is the stand-in
//! behind the same seam: [`diff`] runs on the server (it computes a
//! [`ViewFrame`] and applies it to the server-synchronous model as it
//! goes) and [`apply`] runs on the client (it applies a frame to the
//! client-synchronous model). The protocol carries the frame as opaque
//! postcard bytes, so swapping the implementation changes no message.
//!
//! What this stand-in transmits, with the World's public API only:
//! * the **source database**, whole, first, whenever its hash
//!   ([`source_hash`]) differs (a class rebuild follows on the client);
//! * every **tangible in the view** (the player's own and those within
//!   `radius` of it in the master): its class, its motion (the position
//!   now if at rest, else the steps still to come) and its IdPlayerPool;
//! * the **removal** of tangibles that left the view or were destroyed.
//!
//! It does not transmit the script data inside Lua tangibles or the
//! threads of other players (that is issue 12's table-graph diff): the
//! "view" the tests compare is IDs, classes, positions and pools.
//!
//! **Invariants.**
//! * [`apply`] is deterministic and does the same calls in the same order
//!   on any World, so two synchronous models in equal states that apply
//!   the same frame are again in equal states (equal state hashes).
//! * [`diff`] leaves the synchronous model in the state [`apply`] gives
//!   the client (it *is* [`apply`]), so the twins stay hash-equal.
//! * After [`apply`], every tangible of the frame has the master's class,
//!   pool and motion from this tick on.

use luprex_engine::{raw::Value, IdPlayerPool, SourceFile, Step, World};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

/// One source file on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireSource {
    /// The file name.
    pub name: String,
    /// Its fingerprint.
    pub fingerprint: u128,
    /// The code.
    pub code: Vec<u8>,
}

/// One tangible as the view has it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TangibleView {
    /// The ID.
    pub id: u64,
    /// The name of its class.
    pub class: String,
    /// Its position now.
    pub pos: [f64; 3],
    /// The steps after now: `(tick, point)`.
    pub path: Vec<(i64, [f64; 3])>,
    /// The IdPlayerPool's blocks, if it is a player.
    pub pool: Option<Vec<(u64, u64)>>,
}

/// A difference frame (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewFrame {
    /// The whole source database, in load order, if it changed.
    pub sources: Option<Vec<WireSource>>,
    /// Tangibles that left the view.
    pub removed: Vec<u64>,
    /// Tangibles that entered the view or changed.
    pub upserts: Vec<TangibleView>,
}

impl ViewFrame {
    /// Whether the frame changes nothing.
    pub fn is_empty(&self) -> bool {
        self.sources.is_none() && self.removed.is_empty() && self.upserts.is_empty()
    }
}

/// Why a frame could not be applied (a desync or a bogus frame).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// The frame bytes are not a frame.
    #[error("malformed view frame: {0}")]
    Malformed(String),
    /// The World refused part of the frame.
    #[error("view frame rejected: {0}")]
    Rejected(String),
}

/// The hash of a World's source database: names, fingerprints and code
/// hashes in load order (0 for none).
pub fn source_hash(w: &mut World) -> u128 {
    let infos = w.sources();
    if infos.is_empty() {
        return 0;
    }
    let mut text = String::new();
    for s in &infos {
        let _ = writeln!(text, "{}\t{}\t{}", s.name, s.fingerprint, s.hash);
    }
    luprex_engine::code_hash(text.as_bytes())
}

/// The source database of `w` as wire sources.
pub fn wire_sources(w: &mut World) -> Vec<WireSource> {
    w.sources()
        .into_iter()
        .map(|s| WireSource {
            fingerprint: u128::from_str_radix(&s.fingerprint, 16).unwrap_or(0),
            name: s.name,
            code: s.code,
        })
        .collect()
}

/// Loads wire sources into `w` (a class rebuild follows).
pub fn load_wire_sources(w: &mut World, src: &[WireSource]) -> Result<(), ViewError> {
    let files: Vec<SourceFile> = src
        .iter()
        .map(|s| SourceFile {
            name: s.name.clone(),
            fingerprint: luprex_engine::Fingerprint(s.fingerprint),
            code: s.code.clone(),
        })
        .collect();
    w.load_sources(&files).map_err(|e| ViewError::Rejected(e.to_string()))?;
    w.take_reports();
    Ok(())
}

/// Per-tick memo of the master's side: class names by class table.
#[derive(Default)]
pub struct MasterMemo {
    classes: HashMap<luprex_engine::raw::TableRef, String>,
    /// The master's source hash this tick.
    pub source_hash: u128,
}

impl MasterMemo {
    /// A memo for this tick of `master`.
    pub fn new(master: &mut World) -> MasterMemo {
        MasterMemo { classes: HashMap::new(), source_hash: source_hash(master) }
    }
}

/// The class name of live tangible `id` (via its metatable's `__index`).
fn class_name(w: &mut World, id: u64, memo: &mut MasterMemo) -> Option<String> {
    let t = w.tangible(id)?;
    let st = w.state();
    let mt = st.metatable(Value::Table(t))?;
    let class = st.table(mt).iter().find_map(|(k, v)| match (k, v) {
        (Value::Str(s), Value::Table(c)) if st.str_bytes(s) == b"__index" => Some(c),
        _ => None,
    })?;
    if let Some(n) = memo.classes.get(&class) {
        return Some(n.clone());
    }
    let name = st.table(class).iter().find_map(|(k, v)| match (k, v) {
        (Value::Str(k), Value::Str(n)) if st.str_bytes(k) == b"__class" => {
            Some(String::from_utf8_lossy(st.str_bytes(n)).into_owned())
        }
        _ => None,
    })?;
    memo.classes.insert(class, name.clone());
    Some(name)
}

/// The motion of `id` in `w` as the view has it: position now, steps to
/// come, pool.
fn motion(w: &World, id: u64) -> Option<([f64; 3], Vec<(i64, [f64; 3])>, Option<Vec<(u64, u64)>>)> {
    let t = w.tangibles().get(id)?;
    let now = w.now();
    let path: Vec<(i64, [f64; 3])> =
        t.queue.steps().iter().filter(|s| s.tick > now).map(|s: &Step| (s.tick, s.pos)).collect();
    let pos = t.queue.position_at(now);
    Some((pos, path, t.pool.as_ref().map(|p| p.blocks().to_vec())))
}

/// Whether the sync model's tangible matches the master's view of it. A
/// moving tangible matches if its steps to come match (its position now
/// may differ in the last bits: the sync model interpolates from a
/// different first step).
fn matches(m: &TangibleView, sync: &mut World, memo: &mut MasterMemo) -> bool {
    let Some((pos, path, pool)) = motion(sync, m.id) else { return false };
    class_name(sync, m.id, memo).as_deref() == Some(m.class.as_str())
        && pool == m.pool
        && path == m.path
        && (!m.path.is_empty() || pos == m.pos)
}

/// Computes the frame that brings `sync` to the master's view around
/// `player` (radius `radius`) and applies it to `sync`. The player's own
/// tangible is always in the view. `memo` is shared by the sessions of a
/// tick; `sync_sources` is the source hash `sync` was last given.
pub fn diff(
    master: &mut World,
    memo: &mut MasterMemo,
    sync: &mut World,
    sync_sources: &mut u128,
    player: u64,
    radius: f64,
) -> Result<ViewFrame, ViewError> {
    let mut frame = ViewFrame::default();
    if *sync_sources != memo.source_hash {
        frame.sources = Some(wire_sources(master));
        *sync_sources = memo.source_hash;
    }
    let mut want: BTreeSet<u64> = BTreeSet::new();
    if let Some(center) = master.position(player) {
        want.extend(master.scan_radius(center, radius));
        want.insert(player);
    }
    for id in sync.tangible_ids() {
        if !want.contains(&id) {
            frame.removed.push(id);
        }
    }
    let mut sync_memo = MasterMemo::default();
    for &id in &want {
        let Some(class) = class_name(master, id, memo) else { continue };
        let Some((pos, path, pool)) = motion(master, id) else { continue };
        let tv = TangibleView { id, class, pos, path, pool };
        if !matches(&tv, sync, &mut sync_memo) {
            frame.upserts.push(tv);
        }
    }
    apply_frame(sync, &frame)?;
    Ok(frame)
}

/// Applies frame bytes to a client-synchronous model.
pub fn apply(w: &mut World, bytes: &[u8]) -> Result<(), ViewError> {
    if bytes.is_empty() {
        return Ok(());
    }
    let frame: ViewFrame =
        postcard::from_bytes(bytes).map_err(|e| ViewError::Malformed(e.to_string()))?;
    apply_frame(w, &frame)
}

/// Applies a frame (see the invariants): sources, removals, upserts.
pub fn apply_frame(w: &mut World, frame: &ViewFrame) -> Result<(), ViewError> {
    if let Some(src) = &frame.sources {
        load_wire_sources(w, src)?;
    }
    for &id in &frame.removed {
        w.destroy_tangible(id);
    }
    let mut halts = Vec::new();
    let mut memo = MasterMemo::default();
    for t in &frame.upserts {
        if w.tangibles().get(t.id).is_none() {
            w.insert_tangible(t.id, &t.class, t.pos).map_err(rejected)?;
        } else {
            if class_name(w, t.id, &mut memo).as_deref() != Some(t.class.as_str()) {
                w.set_class(t.id, &t.class).map_err(rejected)?;
            }
            if w.tangibles().get(t.id).is_some_and(|x| x.queue.is_moving()) {
                halts.push(t.id);
            }
        }
    }
    halt_all(w, &halts)?;
    for t in &frame.upserts {
        set_motion(w, t)?;
    }
    w.take_output();
    Ok(())
}

fn rejected(e: luprex_engine::EngineError) -> ViewError {
    ViewError::Rejected(e.to_string())
}

/// Halts the tangibles `ids` (one chunk: the engine has no host-side halt).
fn halt_all(w: &mut World, ids: &[u64]) -> Result<(), ViewError> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut code = String::from("local g, h = gettangible, halt\n");
    for id in ids {
        let _ = writeln!(code, "h(g({id}))");
    }
    w.exec("=view", &code).map_err(rejected)?;
    Ok(())
}

/// Gives `t.id` (at rest, or halted) the frame's motion and pool.
fn set_motion(w: &mut World, t: &TangibleView) -> Result<(), ViewError> {
    w.move_to(t.id, t.pos, 0).map_err(rejected)?;
    let mut last = w.now();
    for &(tick, pos) in &t.path {
        w.move_to(t.id, pos, tick - last).map_err(rejected)?;
        last = tick;
    }
    let pool = match &t.pool {
        Some(b) => Some(
            IdPlayerPool::from_blocks(b.clone())
                .ok_or_else(|| ViewError::Rejected(format!("bad pool of {}", t.id)))?,
        ),
        None => None,
    };
    let cur = w.tangibles().get(t.id).and_then(|x| x.pool.clone());
    if cur != pool {
        w.set_pool(t.id, pool);
    }
    Ok(())
}

/// Every tangible of `w` around `center` (`None`: all of them) as the
/// view has it: ID → (class, where it ends up). What tests compare
/// between a client's view and the master.
pub fn summary(
    w: &mut World,
    around: Option<([f64; 3], f64)>,
) -> std::collections::BTreeMap<u64, (String, [f64; 3])> {
    let ids = match around {
        Some((c, r)) => w.scan_radius(c, r),
        None => w.tangible_ids(),
    };
    let mut memo = MasterMemo::default();
    let mut out = std::collections::BTreeMap::new();
    for id in ids {
        let class = class_name(w, id, &mut memo).unwrap_or_default();
        if let Some(t) = w.tangibles().get(id) {
            out.insert(id, (class, t.queue.last().pos));
        }
    }
    out
}
