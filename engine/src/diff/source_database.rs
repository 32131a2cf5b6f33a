//! The source database (seed 004, "What gets difference transmitted").
//!
//! Seed 004: the source database is transmitted ("source code is easy to
//! difference transmit, it's just strings"); the class database is not
//! transmitted in itself but rebuilt from the source database whenever the
//! latter is transmitted; the globals database is not transmitted at all
//! (a synchronous model has no `globaldb`: `globals.rs`).
//!
//! **Design.** This pass runs first, before the tangible passes, because
//! a tangible is created with its class name and a value may be `class
//! NAME`: the client's classes must be the master's before those passes.
//! The server compares the master's list of files (in load order: name,
//! fingerprint, code hash) with the ServerSync model's. If they are equal
//! nothing is sent. Otherwise the frame carries the whole list, in order,
//! each entry with its fingerprint and, only when the client's copy of
//! that file is missing or has another code hash, its code. The client
//! rebuilds the list of [`SourceFile`]s (taking unchanged code from its own
//! database) and calls [`World::load_sources`], which updates the database
//! by the usual rule (same fingerprint: kept; same code hash: the compiled
//! chunk kept) and does a class rebuild. Both synchronous models do this
//! identically, so they stay equal; the rebuild runs the classes' chunks
//! in the synchronous models, which is deterministic.
//!
//! Published globals (`global.set`, registry `globalpub`) are not here:
//! they are Lua data and travel with the tangible databases in pass 8
//! (`tangible_differences.rs`).

use super::frame::SourceEntry;
use super::{DiffError, Pass, Reject};
use crate::sourcedb::{Fingerprint, SourceFile, SourceInfo};
use crate::world::World;

fn fingerprint(info: &SourceInfo) -> u128 {
    u128::from_str_radix(&info.fingerprint, 16).unwrap_or(0)
}

/// The server side: `None` if the ServerSync model's source database is
/// the master's (names, order, fingerprints, code hashes), else every
/// master file in order, with code where the client's copy differs.
pub fn transmit_source_database(
    master: &mut World,
    sync: &mut World,
) -> Result<Option<Vec<SourceEntry>>, DiffError> {
    let m = master.sources();
    let s = sync.sources();
    let same = m.len() == s.len()
        && m.iter()
            .zip(&s)
            .all(|(a, b)| a.name == b.name && a.fingerprint == b.fingerprint && a.hash == b.hash);
    if same {
        return Ok(None);
    }
    let out = m
        .into_iter()
        .map(|f| {
            let client_has = s.iter().any(|c| c.name == f.name && c.hash == f.hash);
            SourceEntry {
                fingerprint: fingerprint(&f),
                code: (!client_has).then_some(f.code),
                name: f.name,
            }
        })
        .collect();
    Ok(Some(out))
}

/// The client side (and the server's ServerSync copy): replaces the source
/// database and rebuilds the classes.
pub fn apply(w: &mut World, entries: Option<&[SourceEntry]>) -> Result<(), DiffError> {
    let Some(entries) = entries else { return Ok(()) };
    let have = w.sources();
    let mut files = Vec::with_capacity(entries.len());
    for e in entries {
        let code = match &e.code {
            Some(c) => c.clone(),
            None => {
                have.iter().find(|h| h.name == e.name).map(|h| h.code.clone()).ok_or_else(|| {
                    DiffError::reject(Pass::SourceDatabase, Reject::MissingSource(e.name.clone()))
                })?
            }
        };
        files.push(SourceFile {
            name: e.name.clone(),
            fingerprint: Fingerprint(e.fingerprint),
            code,
        });
    }
    w.load_sources(&files)
        .map_err(|e| DiffError::reject(Pass::SourceDatabase, Reject::Engine(e.to_string())))?;
    // Load reports belong to the master's host; a synchronous model's are
    // the same files' and are dropped here.
    let _ = w.take_reports();
    Ok(())
}
