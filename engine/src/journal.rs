//! Master persistence: a checkpoint and a journal of the events since.
//!
//! A persistent master must survive a crash without losing a command it
//! acknowledged. Saving the whole World after every command would cost
//! what the World weighs; instead the master keeps, in a data directory,
//!
//! * **`checkpoint.bin`**: a saved World ([`World::save`]) with a
//!   *generation* number, written to a temporary file, synced, and renamed
//!   over the old one (a rename is atomic: a crash leaves the old
//!   checkpoint or the new one, never half of one);
//! * **`journal.bin`**: the [`Event`]s applied to the master since that
//!   checkpoint, appended one record at a time. The host appends each
//!   event when it applies it and calls [`Store::flush`] before it
//!   acknowledges the commands among them, so an acknowledged command is
//!   always in the file.
//!
//! Since a World is deterministic, replaying the events on the checkpoint
//! gives the master exactly as it was ([`Store::open`]): same state hash.
//! Events carry everything from outside the World that the run needed —
//! players' commands, answers to blocking operations (the real time the
//! server read), the ticks — so the replay reads no clock and no network.
//! A reload of the scripts is not an event: the host writes a new
//! checkpoint after one ([`Store::checkpoint`]), which also starts a new,
//! empty journal; hosts checkpoint periodically too, to bound the replay.
//!
//! **Record format.** The journal starts with the magic `LPXJRNL1` and the
//! generation (u64, little-endian) of the checkpoint it follows; then
//! records, each `[length u32][crc32 u32][payload]` with the payload an
//! [`Event`] in postcard. The checkpoint is `LPXCKPT1`, the generation,
//! the length (u64) and CRC-32 of the World's bytes, then the bytes.
//!
//! **Recovery.** [`Store::open`] loads the checkpoint (a bad one is an
//! error: it is the only copy of the world) and replays the journal's
//! records in order. The first record that is truncated, fails its CRC or
//! does not decode ends the journal: everything from it on is reported
//! ([`Recovery::cut`]) and cut from the file, never silently ignored, and
//! appending resumes after the last whole record. A journal of an older
//! generation than the checkpoint (a crash between writing the new
//! checkpoint and starting its journal) holds only events the checkpoint
//! already contains, and is replaced; a newer one is an error.
//!
//! **Invariants.** The journal's events, replayed on the checkpoint, give
//! the master's state after the last flushed event; a flushed event is
//! never lost nor applied twice; recovery never panics on any bytes.

use crate::error::EngineError;
use crate::threads::{Plain, Request};
use crate::world::{Model, World};
use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const JOURNAL_MAGIC: &[u8; 8] = b"LPXJRNL1";
const CHECKPOINT_MAGIC: &[u8; 8] = b"LPXCKPT1";
/// The largest record the journal accepts (a command's arguments are
/// bounded well below this by the network layer).
pub const MAX_RECORD: usize = 1 << 20;

/// Something from outside the World that the master applied: what a replay
/// needs to redo it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// [`World::admit`].
    Admit {
        /// The player's name.
        name: String,
    },
    /// [`World::depart`].
    Depart {
        /// The player's tangible.
        player: u64,
    },
    /// [`World::invoke`].
    Invoke {
        /// The player whose command it is.
        actor: u64,
        /// The tangible it runs on.
        target: u64,
        /// The function.
        function: String,
        /// Its arguments.
        args: Vec<Plain>,
    },
    /// [`World::walk`].
    Walk {
        /// The player.
        actor: u64,
        /// Where to.
        to: [f64; 3],
    },
    /// [`World::spawn`].
    Spawn {
        /// The tangible.
        target: u64,
        /// The function of its class.
        function: String,
        /// Its arguments.
        args: Vec<Plain>,
    },
    /// [`World::answer`].
    Answer {
        /// The operation.
        name: String,
        /// The waiting thread's tangible.
        tangible: u64,
        /// The waiting thread.
        thread: u64,
        /// The answer.
        values: Vec<Plain>,
    },
    /// [`World::tick`].
    Tick,
}

impl Event {
    /// The answer event of request `req`.
    pub fn answer(req: &Request, values: Vec<Plain>) -> Event {
        Event::Answer { name: req.name.clone(), tangible: req.tangible, thread: req.thread, values }
    }
}

impl World {
    /// Applies event `e` by the call it records. The result is that call's:
    /// a refused command is refused again, identically, on replay.
    pub fn apply_event(&mut self, e: &Event) -> Result<(), EngineError> {
        match e {
            Event::Admit { name } => self.admit(name).map(drop),
            Event::Depart { player } => self.depart(*player).map(drop),
            Event::Invoke { actor, target, function, args } => {
                self.invoke(*actor, *target, function, args).map(drop)
            }
            Event::Walk { actor, to } => self.walk(*actor, *to).map(drop),
            Event::Spawn { target, function, args } => {
                self.spawn(*target, function, args).map(drop)
            }
            Event::Answer { name, tangible, thread, values } => {
                let req = Request {
                    name: name.clone(),
                    tangible: *tangible,
                    thread: *thread,
                    actor: None,
                    args: Vec::new(),
                };
                self.answer(&req, values)
            }
            Event::Tick => {
                self.tick();
                Ok(())
            }
        }
    }
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The checkpoint is damaged (it is the only copy of the world).
    #[error("{path}: damaged checkpoint: {why}")]
    BadCheckpoint {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The journal does not belong to the checkpoint.
    #[error("{path}: {why}")]
    BadJournal {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The World refused the checkpoint's bytes.
    #[error("checkpoint: {0}")]
    World(#[from] EngineError),
}

/// A journal tail that recovery cut off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TailCut {
    /// Where the journal now ends (bytes).
    pub at: u64,
    /// How many bytes were cut.
    pub bytes: u64,
    /// Why the record at `at` was not whole.
    pub why: String,
}

impl std::fmt::Display for TailCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "journal tail cut at byte {} ({} bytes): {}", self.at, self.bytes, self.why)
    }
}

/// What [`Store::open`] found.
#[derive(Debug)]
pub struct Recovery {
    /// The master, checkpoint plus replayed events.
    pub world: World,
    /// The events replayed.
    pub replayed: usize,
    /// The replayed events whose call failed (a refused command: it failed
    /// the same way when it was first applied).
    pub refused: usize,
    /// The damaged tail that was cut, if any.
    pub cut: Option<TailCut>,
    /// Whether a stale journal (older generation) was replaced.
    pub stale_journal: bool,
}

/// A master's data directory: the checkpoint and the journal.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    generation: u64,
    journal: BufWriter<File>,
    /// Events appended since the checkpoint.
    events: u64,
}

impl Store {
    fn checkpoint_path(dir: &Path) -> PathBuf {
        dir.join("checkpoint.bin")
    }

    fn journal_path(dir: &Path) -> PathBuf {
        dir.join("journal.bin")
    }

    /// Whether `dir` holds a checkpoint.
    pub fn exists(dir: &Path) -> bool {
        Self::checkpoint_path(dir).is_file()
    }

    /// Starts a store in `dir` (created if needed) from `world`: writes its
    /// checkpoint and an empty journal, replacing what was there.
    pub fn create(dir: &Path, world: &World) -> Result<Store, StoreError> {
        fs::create_dir_all(dir).map_err(|source| StoreError::Io { path: dir.into(), source })?;
        let generation = match Self::read_checkpoint(dir) {
            Ok((g, _)) => g + 1,
            Err(_) => 1,
        };
        Self::write_checkpoint(dir, generation, world)?;
        let journal = Self::new_journal(dir, generation)?;
        Ok(Store { dir: dir.into(), generation, journal, events: 0 })
    }

    /// Opens the store in `dir`: loads the checkpoint as a master, replays
    /// the journal (cutting a damaged tail), and is ready to append.
    pub fn open(dir: &Path) -> Result<(Store, Recovery), StoreError> {
        let (generation, bytes) = Self::read_checkpoint(dir)?;
        let world = World::restore(Model::Master, &bytes)?;
        let path = Self::journal_path(dir);
        let io = |source| StoreError::Io { path: path.clone(), source };
        let mut data = Vec::new();
        let mut stale = false;
        match File::open(&path) {
            Ok(mut f) => {
                f.read_to_end(&mut data).map_err(io)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => stale = true,
            Err(e) => return Err(io(e)),
        }
        if !stale {
            match journal_generation(&data) {
                Some(g) if g == generation => {}
                Some(g) if g < generation => stale = true,
                Some(g) => {
                    return Err(StoreError::BadJournal {
                        path,
                        why: format!("journal of generation {g} after checkpoint {generation}"),
                    })
                }
                // A journal too short for its header: cut to nothing.
                None => stale = true,
            }
        }
        let mut rec = Recovery { world, replayed: 0, refused: 0, cut: None, stale_journal: stale };
        if stale {
            let journal = Self::new_journal(dir, generation)?;
            let store = Store { dir: dir.into(), generation, journal, events: 0 };
            return Ok((store, rec));
        }
        let (events, end, cut) = read_records(&data);
        for e in &events {
            if rec_apply(&mut rec.world, e) {
                rec.refused += 1;
            }
            rec.replayed += 1;
        }
        rec.cut = cut;
        let f = OpenOptions::new().write(true).open(&path).map_err(io)?;
        f.set_len(end as u64).map_err(io)?;
        let mut f = f;
        f.seek(SeekFrom::End(0)).map_err(io)?;
        f.sync_data().map_err(io)?;
        let events = events.len() as u64;
        let store = Store { dir: dir.into(), generation, journal: BufWriter::new(f), events };
        Ok((store, rec))
    }

    /// Appends event `e` (buffered: [`Store::flush`] makes it durable).
    pub fn append(&mut self, e: &Event) -> Result<(), StoreError> {
        let payload = postcard::to_stdvec(e).map_err(|err| StoreError::BadJournal {
            path: Self::journal_path(&self.dir),
            why: format!("cannot encode an event: {err}"),
        })?;
        if payload.len() > MAX_RECORD {
            return Err(StoreError::BadJournal {
                path: Self::journal_path(&self.dir),
                why: format!("an event of {} bytes is over the record limit", payload.len()),
            });
        }
        let mut head = [0u8; 8];
        head[..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        head[4..].copy_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        let path = Self::journal_path(&self.dir);
        let io = |source| StoreError::Io { path: path.clone(), source };
        self.journal.write_all(&head).map_err(io)?;
        self.journal.write_all(&payload).map_err(io)?;
        self.events += 1;
        Ok(())
    }

    /// Writes the appended events to the file; with `sync`, also to the
    /// disk (`fsync`). Call it before acknowledging their commands: after
    /// a flush a killed process loses none of them; after a synced flush,
    /// neither does a power cut.
    pub fn flush(&mut self, sync: bool) -> Result<(), StoreError> {
        let path = Self::journal_path(&self.dir);
        let io = |source| StoreError::Io { path: path.clone(), source };
        self.journal.flush().map_err(io)?;
        if sync {
            self.journal.get_ref().sync_data().map_err(io)?;
        }
        Ok(())
    }

    /// Writes a new checkpoint of `world` (which must be the master with
    /// every appended event applied) and starts an empty journal.
    pub fn checkpoint(&mut self, world: &World) -> Result<(), StoreError> {
        self.flush(false)?;
        let generation = self.generation + 1;
        Self::write_checkpoint(&self.dir, generation, world)?;
        self.journal = Self::new_journal(&self.dir, generation)?;
        self.generation = generation;
        self.events = 0;
        Ok(())
    }

    /// Events appended since the last checkpoint.
    pub fn events_since_checkpoint(&self) -> u64 {
        self.events
    }

    /// The checkpoint's generation.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write_checkpoint(dir: &Path, generation: u64, world: &World) -> Result<(), StoreError> {
        let bytes = world.save()?;
        let mut out = Vec::with_capacity(bytes.len() + 28);
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.extend_from_slice(&generation.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
        out.extend_from_slice(&bytes);
        write_atomically(&Self::checkpoint_path(dir), &out)
    }

    fn read_checkpoint(dir: &Path) -> Result<(u64, Vec<u8>), StoreError> {
        let path = Self::checkpoint_path(dir);
        let data =
            fs::read(&path).map_err(|source| StoreError::Io { path: path.clone(), source })?;
        let bad = |why: &str| StoreError::BadCheckpoint { path: path.clone(), why: why.into() };
        if data.len() < 28 || &data[..8] != CHECKPOINT_MAGIC {
            return Err(bad("no checkpoint header"));
        }
        let word = |i: usize| u64::from_le_bytes(data[i..i + 8].try_into().unwrap_or([0; 8]));
        let (generation, len) = (word(8), word(16));
        let crc = u32::from_le_bytes(data[24..28].try_into().unwrap_or([0; 4]));
        let body = &data[28..];
        if body.len() as u64 != len {
            return Err(bad("truncated"));
        }
        if crc32fast::hash(body) != crc {
            return Err(bad("CRC mismatch"));
        }
        Ok((generation, body.to_vec()))
    }

    fn new_journal(dir: &Path, generation: u64) -> Result<BufWriter<File>, StoreError> {
        let path = Self::journal_path(dir);
        let mut head = Vec::with_capacity(16);
        head.extend_from_slice(JOURNAL_MAGIC);
        head.extend_from_slice(&generation.to_le_bytes());
        write_atomically(&path, &head)?;
        let io = |source| StoreError::Io { path: path.clone(), source };
        let f = OpenOptions::new().append(true).open(&path).map_err(io)?;
        Ok(BufWriter::new(f))
    }
}

/// Applies a replayed event; whether its call was refused.
fn rec_apply(w: &mut World, e: &Event) -> bool {
    let refused = w.apply_event(e).is_err();
    // Reports and output were delivered before the crash.
    w.take_thread_reports();
    w.take_requests();
    w.take_output();
    refused
}

/// The generation in a journal's header.
fn journal_generation(data: &[u8]) -> Option<u64> {
    if data.len() < 16 || &data[..8] != JOURNAL_MAGIC {
        return None;
    }
    Some(u64::from_le_bytes(data[8..16].try_into().ok()?))
}

/// The whole records of a journal (after its header), where they end, and
/// the damaged tail if any.
pub fn read_records(data: &[u8]) -> (Vec<Event>, usize, Option<TailCut>) {
    let mut events = Vec::new();
    let mut at = 16.min(data.len());
    let cut = loop {
        if at == data.len() {
            break None;
        }
        let why = match record_at(data, at) {
            Ok((e, next)) => {
                events.push(e);
                at = next;
                continue;
            }
            Err(why) => why,
        };
        break Some(TailCut { at: at as u64, bytes: (data.len() - at) as u64, why });
    };
    (events, at, cut)
}

/// The record at `at`: its event and where the next starts.
fn record_at(data: &[u8], at: usize) -> Result<(Event, usize), String> {
    let head = data.get(at..at + 8).ok_or("truncated record header")?;
    let len = u32::from_le_bytes(head[..4].try_into().unwrap_or([0; 4])) as usize;
    let crc = u32::from_le_bytes(head[4..].try_into().unwrap_or([0; 4]));
    if len > MAX_RECORD {
        return Err(format!("record length {len} over the limit"));
    }
    let payload = data.get(at + 8..at + 8 + len).ok_or("truncated record")?;
    if crc32fast::hash(payload) != crc {
        return Err("CRC mismatch".into());
    }
    let (e, rest): (Event, _) =
        postcard::take_from_bytes(payload).map_err(|e| format!("undecodable event: {e}"))?;
    if !rest.is_empty() {
        return Err(format!("{} stray bytes after the event", rest.len()));
    }
    Ok((e, at + 8 + len))
}

/// Writes `path` through a synced temporary file and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = path.with_extension("tmp");
    let io = |source| StoreError::Io { path: tmp.clone(), source };
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    fs::rename(&tmp, path).map_err(|source| StoreError::Io { path: path.into(), source })?;
    if let Some(dir) = path.parent() {
        // Make the rename durable (best effort: not every platform can
        // open a directory).
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}
