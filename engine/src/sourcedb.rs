//! The source database and the script directory.
//!
//! **The source database** (seed 004, "Source Database") is a table in
//! the registry under the key `sourcedb`. Its keys are file names; each
//! maps to
//!
//! ```text
//! { name        = "furnace.lua",             -- the file name again
//!   fingerprint = "3f1c...",                 -- 32 hex: modification time and size
//!   code        = "makeclass('furnace')...", -- the whole source
//!   hash        = "9a0b...",                 -- 32 hex: 128-bit hash of code
//!   loadresult  = <function> or "furnace.lua:3: syntax error ...",
//!   sequence    = 1 }                        -- position in control.lst
//! ```
//!
//! It is part of the World: it lives in the VM state, so snapshots, saves
//! and the state hash cover it, and the network will transmit it (a
//! synchronous model is fed the master's source database and rebuilds its
//! classes from it).
//!
//! **Where the bytes come from.** All file-system access is in
//! [`ScriptDir`]: it reads `control.lst`, stats files for their
//! fingerprint and reads their bytes (counting the reads, so tests can
//! check that an unchanged file is not read again). The World itself only
//! ever receives data: a list of `(name, fingerprint)` in load order and a
//! way to get the code of a name. [`SourceFile`] is the in-memory form
//! (tests; later the network), whose fingerprint is the code's own hash.
//!
//! **The fingerprint is an input.** It is computed outside the Lua world
//! (from file metadata, by [`ScriptDir::fingerprint`]) and stored as data;
//! nothing inside the VM reads a clock or a file. Two Worlds given the same
//! fingerprints and code build identical states.
//!
//! **Update rule** (`update`): for each entry of the new list, in order:
//! same fingerprint as the stored entry → keep it (the file is not read);
//! otherwise read the code; same `hash` as stored → keep the compiled
//! `loadresult` (only the fingerprint changes); otherwise compile it
//! (`load` with chunk name `@name`, so messages read `name:LINE:`). Every
//! kept or new entry gets its new `sequence`. Entries no longer listed are
//! removed. A listed file that cannot be read is reported; if an earlier
//! version is stored, that version stays (a file caught mid-save by an
//! editor does not make its classes vanish).
//!
//! **control.lst**: one file name per line, in load order. Leading and
//! trailing blanks are trimmed; blank lines and lines starting with `#`
//! are ignored. A name listed twice is reported and loaded once (at its
//! first position).
//!
//! **Hashes.** `hash` and `fingerprint` are 128-bit SipHash-1-3 with the
//! VM's fixed key ([`StateHasher`]), written as 32 lowercase hex digits:
//! portable, the same on every machine.

use crate::error::{line_in, LoadReport, ReportKind};
use crate::registry_table;
use luprex_vm::raw::{Error, State, StateHasher, StrRef, Value};
use std::path::{Path, PathBuf};

/// Registry key of the source database.
pub(crate) const SOURCEDB: &str = "sourcedb";

/// A 128-bit fingerprint of a source file's version (modification time
/// and size for files on disk; the code's hash for sources from memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(pub u128);

impl Fingerprint {
    /// The fingerprint of a file's modification time (seconds and
    /// nanoseconds since the Unix epoch, as the file system reports it)
    /// and size.
    pub fn from_metadata(mtime_secs: i64, mtime_nanos: u32, size: u64) -> Fingerprint {
        let mut h = StateHasher::new();
        h.write(b"mtime+size");
        h.write_u64(mtime_secs as u64);
        h.write_u64(u64::from(mtime_nanos));
        h.write_u64(size);
        Fingerprint(h.finish128())
    }

    /// The fingerprint of a source held in memory: its code hash.
    pub fn of_code(code: &[u8]) -> Fingerprint {
        Fingerprint(code_hash(code))
    }

    /// 32 lowercase hex digits.
    pub fn to_hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

/// The 128-bit hash of a source's code (the `hash` field).
pub fn code_hash(code: &[u8]) -> u128 {
    let mut h = StateHasher::new();
    h.write(code);
    h.finish128()
}

/// A source file given from memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The file name (its chunk name is `@name`).
    pub name: String,
    /// The fingerprint of this version.
    pub fingerprint: Fingerprint,
    /// The code.
    pub code: Vec<u8>,
}

impl SourceFile {
    /// A source whose fingerprint is the hash of its code.
    pub fn new(name: impl Into<String>, code: impl Into<Vec<u8>>) -> SourceFile {
        let code = code.into();
        SourceFile { name: name.into(), fingerprint: Fingerprint::of_code(&code), code }
    }
}

/// One line of `control.lst` that names a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlEntry {
    /// The file name.
    pub name: String,
    /// Its line in `control.lst` (1-based).
    pub line: u32,
}

/// Parses `control.lst`: one name per line, blank lines and `#` comments
/// ignored.
pub fn parse_control(text: &str) -> Vec<ControlEntry> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let l = l.trim();
            (!l.is_empty() && !l.starts_with('#'))
                .then(|| ControlEntry { name: l.to_owned(), line: i as u32 + 1 })
        })
        .collect()
}

/// A script directory on disk: `control.lst` and the files it names. The
/// one place where the engine touches the file system.
#[derive(Debug)]
pub struct ScriptDir {
    root: PathBuf,
    read_log: Vec<String>,
}

impl ScriptDir {
    /// The script directory at `root`.
    pub fn new(root: impl Into<PathBuf>) -> ScriptDir {
        ScriptDir { root: root.into(), read_log: Vec::new() }
    }

    /// Its path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads and parses `control.lst`.
    pub fn control(&self) -> Result<Vec<ControlEntry>, std::io::Error> {
        let text = std::fs::read(self.root.join("control.lst"))?;
        Ok(parse_control(&String::from_utf8_lossy(&text)))
    }

    /// The fingerprint of file `name` (modification time and size; no
    /// content read).
    pub fn fingerprint(&self, name: &str) -> Result<Fingerprint, std::io::Error> {
        let md = std::fs::metadata(self.root.join(name))?;
        if !md.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        let (secs, nanos) = match md.modified()?.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
            Err(e) => (-(e.duration().as_secs() as i64), e.duration().subsec_nanos()),
        };
        Ok(Fingerprint::from_metadata(secs, nanos, md.len()))
    }

    /// Reads the bytes of file `name` (and logs the read).
    pub fn read(&mut self, name: &str) -> Result<Vec<u8>, std::io::Error> {
        self.read_log.push(name.to_owned());
        std::fs::read(self.root.join(name))
    }

    /// The names of the files read so far, in order.
    pub fn read_log(&self) -> &[String] {
        &self.read_log
    }

    /// How many times file `name` was read.
    pub fn reads_of(&self, name: &str) -> usize {
        self.read_log.iter().filter(|n| *n == name).count()
    }
}

/// One entry of a source list given to [`update`]: a name, where it was
/// listed, and its fingerprint (or why it has none).
pub(crate) struct Listed {
    pub name: String,
    /// The line in `control.lst` (None for sources from memory).
    pub line: Option<u32>,
    pub fingerprint: Result<Fingerprint, String>,
}

/// Interned field names of a source database entry.
struct Keys {
    name: StrRef,
    fingerprint: StrRef,
    code: StrRef,
    hash: StrRef,
    loadresult: StrRef,
    sequence: StrRef,
}

impl Keys {
    fn new(st: &mut State) -> Keys {
        Keys {
            name: st.intern(b"name"),
            fingerprint: st.intern(b"fingerprint"),
            code: st.intern(b"code"),
            hash: st.intern(b"hash"),
            loadresult: st.intern(b"loadresult"),
            sequence: st.intern(b"sequence"),
        }
    }
}

/// Creates the empty source database.
pub(crate) fn open(st: &mut State) {
    let db = st.new_table_sized(0, 16);
    let reg = st.registry();
    let k = st.intern(SOURCEDB.as_bytes());
    st.raw_set_str(reg, k, Value::Table(db));
}

fn read_report(name: &str, line: Option<u32>, why: &str) -> LoadReport {
    let message = match line {
        Some(l) => format!("control.lst:{l}: cannot read '{name}': {why}"),
        None => format!("{name}: cannot read: {why}"),
    };
    LoadReport {
        file: name.to_owned(),
        line,
        kind: ReportKind::Read,
        message,
        traceback: String::new(),
    }
}

/// Brings the source database in line with `list` (see the module docs);
/// `fetch(name)` gives the code of a name whose fingerprint changed.
/// Returns the problems found.
pub(crate) fn update(
    st: &mut State,
    list: &[Listed],
    mut fetch: impl FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<LoadReport>, Error> {
    let keys = Keys::new(st);
    let db = registry_table(st, SOURCEDB);
    let mut reports = Vec::new();
    let mut kept: Vec<StrRef> = Vec::new();
    let mut seq = 0i64;
    for item in list {
        let name = st.intern(item.name.as_bytes());
        if kept.contains(&name) {
            let at = item.line.map_or(String::new(), |l| format!("control.lst:{l}: "));
            reports.push(LoadReport {
                file: item.name.clone(),
                line: item.line,
                kind: ReportKind::Read,
                message: format!("{at}'{}' is listed twice; loaded once", item.name),
                traceback: String::new(),
            });
            continue;
        }
        let old = match st.table(db).get_str(name) {
            Value::Table(e) => Some(e),
            _ => None,
        };
        let keep_old = |st: &mut State, kept: &mut Vec<StrRef>, seq: &mut i64| {
            if let Some(e) = old {
                *seq += 1;
                st.raw_set_str(e, keys.sequence, Value::Int(*seq));
                kept.push(name);
            }
        };
        let fp = match &item.fingerprint {
            Ok(fp) => fp.to_hex(),
            Err(why) => {
                reports.push(read_report(&item.name, item.line, why));
                keep_old(st, &mut kept, &mut seq);
                continue;
            }
        };
        if let Some(e) = old {
            if let Value::Str(s) = st.table(e).get_str(keys.fingerprint) {
                if st.str_bytes(s) == fp.as_bytes() {
                    keep_old(st, &mut kept, &mut seq);
                    continue;
                }
            }
        }
        let code = match fetch(&item.name) {
            Ok(c) => c,
            Err(why) => {
                reports.push(read_report(&item.name, item.line, &why));
                keep_old(st, &mut kept, &mut seq);
                continue;
            }
        };
        let hash = format!("{:032x}", code_hash(&code));
        let fpv = st.new_string(fp.as_bytes());
        if let Some(e) = old {
            if let Value::Str(s) = st.table(e).get_str(keys.hash) {
                if st.str_bytes(s) == hash.as_bytes() {
                    st.raw_set_str(e, keys.fingerprint, fpv);
                    keep_old(st, &mut kept, &mut seq);
                    continue;
                }
            }
        }
        let chunkname = format!("@{}", item.name);
        let loadresult = match st.load(&code, chunkname.as_bytes()) {
            Ok(f) => f,
            Err(e) => e.value(),
        };
        let e = st.new_table_sized(0, 6);
        st.raw_set_str(e, keys.name, Value::Str(name));
        st.raw_set_str(e, keys.fingerprint, fpv);
        let codev = st.new_string(&code);
        st.raw_set_str(e, keys.code, codev);
        let hashv = st.new_string(hash.as_bytes());
        st.raw_set_str(e, keys.hash, hashv);
        st.raw_set_str(e, keys.loadresult, loadresult);
        seq += 1;
        st.raw_set_str(e, keys.sequence, Value::Int(seq));
        st.raw_set_str(db, name, Value::Table(e));
        kept.push(name);
    }
    let stale: Vec<Value> = st
        .table(db)
        .iter()
        .map(|(k, _)| k)
        .filter(|k| !matches!(k, Value::Str(s) if kept.contains(s)))
        .collect();
    for k in stale {
        st.try_table_set(Value::Table(db), k, Value::Nil)?;
    }
    Ok(reports)
}

/// The entries of the source database in `sequence` order: `(name,
/// loadresult)`.
pub(crate) fn in_sequence(st: &mut State) -> Vec<(StrRef, Value)> {
    let keys = Keys::new(st);
    let db = registry_table(st, SOURCEDB);
    let mut v: Vec<(i64, StrRef, Value)> = st
        .table(db)
        .iter()
        .filter_map(|(k, e)| {
            let (Value::Str(name), Value::Table(e)) = (k, e) else { return None };
            let e = st.table(e);
            let seq = match e.get_str(keys.sequence) {
                Value::Int(i) => i,
                _ => i64::MAX,
            };
            Some((seq, name, e.get_str(keys.loadresult)))
        })
        .collect();
    v.sort_by_key(|e| e.0);
    v.into_iter().map(|(_, n, r)| (n, r)).collect()
}

/// What the source database holds about one file ([`crate::World::sources`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceInfo {
    /// The file name.
    pub name: String,
    /// The fingerprint, 32 hex digits.
    pub fingerprint: String,
    /// The hash of the code, 32 hex digits.
    pub hash: String,
    /// The position in load order (1-based).
    pub sequence: i64,
    /// The code.
    pub code: Vec<u8>,
    /// `Ok` if the `loadresult` is a function, else the syntax error.
    pub loadresult: Result<(), String>,
}

/// Every entry of the source database, in `sequence` order.
pub(crate) fn infos(st: &mut State) -> Vec<SourceInfo> {
    let keys = Keys::new(st);
    let db = registry_table(st, SOURCEDB);
    let text = |st: &State, v: Value| match v {
        Value::Str(s) => String::from_utf8_lossy(st.str_bytes(s)).into_owned(),
        _ => String::new(),
    };
    let mut v: Vec<SourceInfo> = st
        .table(db)
        .iter()
        .filter_map(|(_, e)| {
            let Value::Table(e) = e else { return None };
            let e = st.table(e);
            Some(SourceInfo {
                name: text(st, e.get_str(keys.name)),
                fingerprint: text(st, e.get_str(keys.fingerprint)),
                hash: text(st, e.get_str(keys.hash)),
                sequence: match e.get_str(keys.sequence) {
                    Value::Int(i) => i,
                    _ => 0,
                },
                code: match e.get_str(keys.code) {
                    Value::Str(s) => st.str_bytes(s).to_vec(),
                    _ => Vec::new(),
                },
                loadresult: match e.get_str(keys.loadresult) {
                    Value::LuaFn(_) | Value::RustFn(_) => Ok(()),
                    other => Err(text(st, other)),
                },
            })
        })
        .collect();
    v.sort_by_key(|i| i.sequence);
    v
}

/// The report for a file whose `loadresult` is an error message.
pub(crate) fn syntax_report(st: &State, name: &str, msg: Value) -> LoadReport {
    let message = match msg {
        Value::Str(s) => String::from_utf8_lossy(st.str_bytes(s)).into_owned(),
        other => format!("{name}: loadresult is a {}", other.type_name()),
    };
    LoadReport {
        file: name.to_owned(),
        line: line_in(&message, name),
        kind: ReportKind::Syntax,
        message,
        traceback: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_lst_format() {
        let text = "# header\n\na.lua\n  b.lua  \n#c.lua\n\t\nsub/d.lua\r\n";
        let got = parse_control(text);
        let want = [("a.lua", 3), ("b.lua", 4), ("sub/d.lua", 7)];
        assert_eq!(got.len(), want.len());
        for (g, (n, l)) in got.iter().zip(want) {
            assert_eq!((g.name.as_str(), g.line), (n, l));
        }
    }

    #[test]
    fn fingerprints_and_hashes() {
        assert_eq!(Fingerprint::of_code(b"x").0, code_hash(b"x"));
        assert_ne!(code_hash(b"x"), code_hash(b"y"));
        let a = Fingerprint::from_metadata(1_700_000_000, 5, 100);
        assert_ne!(a, Fingerprint::from_metadata(1_700_000_000, 6, 100));
        assert_ne!(a, Fingerprint::from_metadata(1_700_000_000, 5, 101));
        assert_eq!(a, Fingerprint::from_metadata(1_700_000_000, 5, 100));
        assert_eq!(a.to_hex().len(), 32);
        // Fixed across machines and runs: the VM's SipHash with its fixed key.
        assert_eq!(format!("{:032x}", code_hash(b"")), format!("{:032x}", code_hash(b"")));
    }
}
