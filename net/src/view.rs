//! What the network layer needs to know about a World's view: source
//! hashes and source caches, and view summaries.
//!
//! **Design.** Difference transmission itself is `luprex_engine::diff`
//! (issue 12): the server's `diff::Transmitter` computes each session's
//! frame and applies it to the ServerSync model, the client applies it with
//! `diff::apply_bytes`. This module holds the small things around it:
//! * [`source_hash`]: the hash of a World's source database, which the
//!   handshake compares so that a returning client's cached sources are
//!   not sent again; [`wire_sources`] / [`load_wire_sources`] are that
//!   cache;
//! * [`summary`]: a World's tangibles as IDs, class names and where they
//!   end up (their last animation step), which the tests and bots use to
//!   compare a client's view with the master's.
//!
//! **Invariants.** Nothing here changes a World except
//! [`load_wire_sources`]; no std hash map is iterated.

use luprex_engine::{raw::Value, SourceFile, World};
use std::collections::HashMap;
use std::fmt::Write as _;

/// One source file of a cache.
#[derive(Clone, Debug, PartialEq)]
pub struct WireSource {
    /// The file name.
    pub name: String,
    /// Its fingerprint.
    pub fingerprint: u128,
    /// The code.
    pub code: Vec<u8>,
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

/// Loads cached sources into `w` (a class rebuild follows).
pub fn load_wire_sources(w: &mut World, src: &[WireSource]) -> Result<(), String> {
    let files: Vec<SourceFile> = src
        .iter()
        .map(|s| SourceFile {
            name: s.name.clone(),
            fingerprint: luprex_engine::Fingerprint(s.fingerprint),
            code: s.code.clone(),
        })
        .collect();
    w.load_sources(&files).map_err(|e| e.to_string())?;
    w.take_reports();
    Ok(())
}

/// Class names by class table (valid while no Lua runs).
#[derive(Default)]
struct MasterMemo {
    classes: HashMap<luprex_engine::raw::TableRef, String>,
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
