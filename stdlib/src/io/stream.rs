//! A buffered byte stream with the semantics of a C `FILE*` as `liolib.c`
//! uses it: one read-ahead buffer (so `read("n")` can look one byte ahead
//! and give it back, like `ungetc`), one write buffer with the three
//! `setvbuf` modes, and the `ferror`/`errno` pair that `luaL_fileresult`
//! reports.
//!
//! # Design
//!
//! A [`Stream`] reads from and writes to a [`Source`]: a regular file, or
//! the process's standard input. (Standard output and error are not
//! `Stream`s: the glue sends them through the `State`'s writers so that
//! `print` and `io.write` share one buffer.)
//!
//! * Reading fills `rbuf` with up to [`BUFSIZ`] bytes; `rbuf[rpos..]` is the
//!   data not yet consumed. Pending writes are flushed before a read.
//! * Writing first gives back unread read-ahead (seeking the file back by
//!   that many bytes, as glibc does when a stream switches direction), then
//!   buffers according to the mode: `No` writes through, `Line` flushes
//!   when a newline was written, `Full` flushes when the buffer reaches its
//!   size.
//! * `seek` flushes, accounts for the read-ahead and discards it.
//! * End of file is sticky until [`Stream::clear_error`] (C's `clearerr`,
//!   which `g_read` calls at the start of every read), so a terminal's
//!   end-of-file ends one `read` call but not the next.
//!
//! # Invariants
//!
//! * Access-mode violations fail like glibc: reading a write-only stream
//!   or writing a read-only one sets the error with `EBADF`.
//! * No operation allocates more than it reads: `read(n)` with a huge `n`
//!   grows its buffer only as data arrives.
//! * Nothing panics; every OS error becomes an [`OsError`] with the errno
//!   and strerror text of Linux.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

/// Size of a read chunk and the default buffer size (glibc's `BUFSIZ`-ish
/// block size for regular files).
pub const BUFSIZ: usize = 4096;

/// `EBADF`: the errno of an access-mode violation.
pub const EBADF: i32 = 9;
/// `ESPIPE`: seeking a stream that cannot seek.
pub const ESPIPE: i32 = 29;

/// An OS error as C sees it: `errno` and `strerror(errno)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OsError {
    /// The errno value (Linux numbering).
    pub errno: i32,
    /// `strerror(errno)`.
    pub message: String,
}

impl OsError {
    /// An error with a known errno and text.
    pub fn new(errno: i32, message: &str) -> OsError {
        OsError { errno, message: message.to_owned() }
    }

    /// `EBADF`.
    pub fn bad_fd() -> OsError {
        OsError::new(EBADF, "Bad file descriptor")
    }

    /// `ESPIPE`.
    pub fn illegal_seek() -> OsError {
        OsError::new(ESPIPE, "Illegal seek")
    }
}

impl From<std::io::Error> for OsError {
    /// Takes the errno and strips std's ` (os error N)` suffix, leaving the
    /// `strerror` text.
    fn from(e: std::io::Error) -> OsError {
        let text = e.to_string();
        match e.raw_os_error() {
            Some(code) => {
                let suffix = format!(" (os error {code})");
                let msg = text.strip_suffix(&suffix).unwrap_or(&text);
                OsError { errno: code, message: msg.to_owned() }
            }
            None => OsError { errno: 5, message: text },
        }
    }
}

/// The `setvbuf` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufMode {
    /// `"no"`: unbuffered.
    No,
    /// `"full"`: flushed when the buffer is full.
    Full,
    /// `"line"`: flushed when a newline is written.
    Line,
}

/// Where a [`Stream`] reads and writes.
#[derive(Debug)]
pub enum Source {
    /// A regular file (or anything `File` can open, or a duplicated
    /// descriptor).
    File(File),
    /// The process's standard input through std (read only), when its
    /// descriptor could not be duplicated.
    Stdin,
}

/// A buffered stream (see the module docs).
#[derive(Debug)]
pub struct Stream {
    source: Source,
    standard: bool,
    readable: bool,
    writable: bool,
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    mode: BufMode,
    size: usize,
    eof: bool,
    error: Option<OsError>,
}

impl Stream {
    /// A stream over `source` with the given access rights, fully buffered.
    pub fn new(source: Source, readable: bool, writable: bool) -> Stream {
        Stream {
            source,
            standard: false,
            readable,
            writable,
            rbuf: Vec::new(),
            rpos: 0,
            wbuf: Vec::new(),
            mode: BufMode::Full,
            size: BUFSIZ,
            eof: false,
            error: None,
        }
    }

    /// The standard input: a duplicate of descriptor 0 (so it can seek
    /// when it is a file, sharing the offset with the process's stdin),
    /// or std's stdin if it cannot be duplicated.
    pub fn stdin() -> Stream {
        use std::os::fd::AsFd;
        let source = match std::io::stdin().as_fd().try_clone_to_owned() {
            Ok(fd) => Source::File(File::from(fd)),
            Err(_) => Source::Stdin,
        };
        let mut s = Stream::new(source, true, false);
        s.standard = true;
        s
    }

    /// Whether bytes read from the source wait in the buffer: a read can
    /// then be served without asking the source.
    pub fn has_buffered(&self) -> bool {
        self.rpos < self.rbuf.len()
    }

    /// Whether this is the standard input.
    pub fn is_stdin(&self) -> bool {
        self.standard
    }

    /// `clearerr`: forgets the error and end-of-file flags.
    pub fn clear_error(&mut self) {
        self.error = None;
        self.eof = false;
    }

    /// `ferror` plus `errno`: the error of the last operations, if any.
    pub fn error(&self) -> Option<&OsError> {
        self.error.as_ref()
    }

    fn fail(&mut self, e: OsError) {
        self.error = Some(e);
    }

    // ----- reading -------------------------------------------------------

    /// Checks that the stream may read and flushes pending writes.
    fn begin_read(&mut self) -> bool {
        if !self.readable {
            self.fail(OsError::bad_fd());
            return false;
        }
        if !self.wbuf.is_empty() {
            if let Err(e) = self.flush_buffer() {
                self.fail(e);
                return false;
            }
        }
        true
    }

    /// Makes sure unread bytes are buffered; false at end of file or error.
    fn fill(&mut self) -> bool {
        if self.rpos < self.rbuf.len() {
            return true;
        }
        if self.eof || self.error.is_some() {
            return false;
        }
        self.rbuf.resize(BUFSIZ, 0);
        self.rpos = 0;
        let r = loop {
            let r = match &mut self.source {
                Source::File(f) => f.read(&mut self.rbuf),
                Source::Stdin => std::io::stdin().read(&mut self.rbuf),
            };
            match r {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match r {
            Ok(0) => {
                self.rbuf.clear();
                self.eof = true;
                false
            }
            Ok(n) => {
                self.rbuf.truncate(n);
                true
            }
            Err(e) => {
                self.rbuf.clear();
                self.fail(e.into());
                false
            }
        }
    }

    /// The next byte without consuming it.
    fn peek(&mut self) -> Option<u8> {
        if self.fill() {
            Some(self.rbuf[self.rpos])
        } else {
            None
        }
    }

    /// `read(0)`: true unless at end of file.
    pub fn test_eof(&mut self) -> bool {
        self.begin_read() && self.peek().is_some()
    }

    /// `read("l")` / `read("L")`: a line, with its newline if `keep_nl`.
    /// Succeeds if a newline or any byte was read. Appends to `out`, a
    /// buffer the caller reuses.
    pub fn read_line(&mut self, keep_nl: bool, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        if !self.begin_read() {
            return false;
        }
        while self.fill() {
            let avail = &self.rbuf[self.rpos..];
            match memchr::memchr(b'\n', avail) {
                Some(i) => {
                    out.extend_from_slice(&avail[..i]);
                    if keep_nl {
                        out.push(b'\n');
                    }
                    self.rpos += i + 1;
                    return true;
                }
                None => {
                    out.extend_from_slice(avail);
                    self.rpos = self.rbuf.len();
                }
            }
        }
        out.len() > start
    }

    /// `read(n)`: up to `n` bytes; succeeds if any byte was read.
    pub fn read_chars(&mut self, n: u64) -> (Vec<u8>, bool) {
        let mut out = Vec::new();
        if !self.begin_read() {
            return (out, false);
        }
        let mut left = n;
        while left > 0 && self.fill() {
            let avail = &self.rbuf[self.rpos..];
            let take = avail.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            out.extend_from_slice(&avail[..take]);
            self.rpos += take;
            left -= take as u64;
        }
        let ok = !out.is_empty();
        (out, ok)
    }

    /// `read("a")`: the rest of the stream (always succeeds).
    pub fn read_all(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        if !self.begin_read() {
            return out;
        }
        while self.fill() {
            out.extend_from_slice(&self.rbuf[self.rpos..]);
            self.rpos = self.rbuf.len();
        }
        out
    }

    /// `read("n")`: the longest prefix of a numeral, as `l_getn` reads it
    /// (see `read_numeral`); the glue converts it.
    pub fn read_numeral(&mut self) -> Vec<u8> {
        if !self.begin_read() {
            return Vec::new();
        }
        read_numeral(self)
    }

    // ----- writing -------------------------------------------------------

    /// Writes `data` (buffered according to the mode). On failure the
    /// error is set and false returned.
    pub fn write(&mut self, data: &[u8]) -> bool {
        if !self.writable {
            self.fail(OsError::bad_fd());
            return false;
        }
        if let Err(e) = self.drop_read_ahead() {
            self.fail(e);
            return false;
        }
        self.wbuf.extend_from_slice(data);
        let due = match self.mode {
            BufMode::No => true,
            BufMode::Line => memchr::memchr(b'\n', data).is_some(),
            BufMode::Full => self.wbuf.len() >= self.size,
        };
        if due {
            if let Err(e) = self.flush_buffer() {
                self.fail(e);
                return false;
            }
        }
        true
    }

    /// Gives unread read-ahead back to the file (seeks back over it).
    fn drop_read_ahead(&mut self) -> Result<(), OsError> {
        let unread = self.rbuf.len() - self.rpos;
        self.rbuf.clear();
        self.rpos = 0;
        if unread > 0 {
            if let Source::File(f) = &mut self.source {
                f.seek(SeekFrom::Current(-(unread as i64)))?;
            }
        }
        Ok(())
    }

    /// Writes the write buffer out.
    fn flush_buffer(&mut self) -> Result<(), OsError> {
        if self.wbuf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.wbuf);
        match &mut self.source {
            Source::File(f) => f.write_all(&data)?,
            Source::Stdin => return Err(OsError::bad_fd()),
        }
        Ok(())
    }

    /// `fflush`.
    pub fn flush(&mut self) -> Result<(), OsError> {
        let r = self.flush_buffer();
        if let Err(e) = &r {
            self.fail(e.clone());
        }
        r
    }

    /// `fseek` + `ftell`: moves to `offset` from `whence` and returns the
    /// new position.
    pub fn seek(&mut self, whence: Whence, offset: i64) -> Result<u64, OsError> {
        self.flush_buffer()?;
        let unread = (self.rbuf.len() - self.rpos) as i64;
        let Source::File(f) = &mut self.source else { return Err(OsError::illegal_seek()) };
        let to = match whence {
            Whence::Set => {
                let o = u64::try_from(offset).map_err(|_| OsError::new(22, "Invalid argument"))?;
                SeekFrom::Start(o)
            }
            Whence::Cur => SeekFrom::Current(
                offset.checked_sub(unread).ok_or_else(|| OsError::new(22, "Invalid argument"))?,
            ),
            Whence::End => SeekFrom::End(offset),
        };
        let pos = f.seek(to)?;
        self.rbuf.clear();
        self.rpos = 0;
        self.eof = false;
        Ok(pos)
    }

    /// `setvbuf`: flushes pending output and changes the mode.
    pub fn set_buffering(&mut self, mode: BufMode, size: usize) -> Result<(), OsError> {
        self.flush_buffer()?;
        self.mode = mode;
        self.size = size.max(1);
        Ok(())
    }

    /// `fclose`: flushes and releases the file (by dropping the stream).
    pub fn close(mut self) -> Result<(), OsError> {
        let r = self.flush_buffer();
        if let Source::File(f) = std::mem::replace(&mut self.source, Source::Stdin) {
            drop(f);
        }
        r
    }
}

impl Drop for Stream {
    /// Flushes pending output (as `exit` flushes every open `FILE*`).
    fn drop(&mut self) {
        let _ = self.flush_buffer();
    }
}

/// The `whence` of `seek`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whence {
    /// `"set"`: from the start.
    Set,
    /// `"cur"`: from the current position.
    Cur,
    /// `"end"`: from the end.
    End,
}

/// Maximum length of a numeral read by `read("n")` (`L_MAXLENNUM`).
pub const MAX_NUMERAL: usize = 200;

/// The state of `l_getn`'s reader: the look-ahead byte and the buffer.
struct Numeral<'a> {
    s: &'a mut Stream,
    c: Option<u8>,
    buf: Vec<u8>,
    overflow: bool,
}

impl Numeral<'_> {
    /// `nextc`: accepts the look-ahead byte and reads the next one.
    fn next(&mut self) -> bool {
        if self.buf.len() >= MAX_NUMERAL {
            self.overflow = true;
            return false;
        }
        if let Some(c) = self.c {
            self.buf.push(c);
        }
        self.s.rpos += 1;
        self.c = self.s.peek();
        true
    }

    /// `test2`: accepts the look-ahead byte if it is in `set`.
    fn test2(&mut self, set: &[u8; 2]) -> bool {
        match self.c {
            Some(c) if c == set[0] || c == set[1] => self.next(),
            _ => false,
        }
    }

    /// `readdigits`: accepts (hex) digits; returns how many.
    fn digits(&mut self, hex: bool) -> usize {
        let mut n = 0;
        while let Some(c) = self.c {
            let ok = if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
            if !ok || !self.next() {
                break;
            }
            n += 1;
        }
        n
    }
}

/// `l_getn`'s scan: skips white space, then accepts the longest prefix of
/// a numeral (sign, `0x`, digits, point, exponent). Returns the bytes read,
/// or an empty buffer if the numeral was longer than [`MAX_NUMERAL`] (the
/// bytes stay consumed, as in C).
fn read_numeral(s: &mut Stream) -> Vec<u8> {
    let mut c = s.peek();
    while matches!(c, Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) {
        s.rpos += 1;
        c = s.peek();
    }
    let mut rn = Numeral { s, c, buf: Vec::new(), overflow: false };
    let mut count = 0;
    let mut hex = false;
    rn.test2(b"-+");
    if rn.test2(b"00") {
        if rn.test2(b"xX") {
            hex = true;
        } else {
            count = 1;
        }
    }
    count += rn.digits(hex);
    if rn.test2(b"..") {
        count += rn.digits(hex);
    }
    if count > 0 && rn.test2(if hex { b"pP" } else { b"eE" }) {
        rn.test2(b"-+");
        rn.digits(false);
    }
    if rn.overflow {
        Vec::new()
    } else {
        rn.buf
    }
}
