//! Errors and load reports.
//!
//! Two kinds of failure leave a World, and they are kept apart on purpose:
//!
//! * An [`EngineError`] is returned by a host call that could not do what
//!   it was asked (a Lua error in code the host ran, a script directory
//!   whose `control.lst` cannot be read, a snapshot refused by the VM).
//! * A [`LoadReport`] describes one script file that failed while the
//!   World loaded or rebuilt its classes: a file `control.lst` names but
//!   that cannot be read, a syntax error, a runtime error while the file's
//!   chunk ran, an error in a class's `init`. A bad file never stops the
//!   others: the World collects the reports and the host reads them
//!   ([`crate::World::take_reports`]). This is what a scripter editing a
//!   live world needs: one typo is reported with its file and line, and
//!   the rest of the game keeps running.
//!
//! Lua error messages carry the position where they were raised
//! (`file.lua:LINE: message`, as the reference interpreter prints them)
//! and, for errors that no `pcall` caught, the traceback.

use luprex_vm::raw;
use std::path::PathBuf;

/// An error returned by a World operation.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A Lua error raised by code the host ran in the World (or by the VM
    /// itself, e.g. a refused snapshot).
    #[error("{message}")]
    Lua {
        /// The message, `chunk:line: ...` for errors raised in Lua code.
        message: String,
        /// The traceback (`stack traceback:\n\t...`), empty if none.
        traceback: String,
    },
    /// A file of the script directory could not be read.
    #[error("cannot read '{}': {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// [`crate::World::reload`] on a World that was not loaded from a
    /// script directory.
    #[error("this world has no script directory to reload from")]
    NoScriptDir,
}

impl EngineError {
    /// The traceback of a Lua error (empty for other errors).
    pub fn traceback(&self) -> &str {
        match self {
            EngineError::Lua { traceback, .. } => traceback,
            _ => "",
        }
    }
}

impl From<raw::Error> for EngineError {
    fn from(e: raw::Error) -> Self {
        EngineError::Lua { message: e.message().to_owned(), traceback: e.traceback().to_owned() }
    }
}

/// At what step a script file failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// `control.lst` names a file that cannot be read (missing,
    /// unreadable); `line` is the line of `control.lst`.
    Read,
    /// The file does not compile; its `loadresult` is the message.
    Syntax,
    /// The file's chunk raised an error while it ran (class rebuild).
    Run,
    /// A class's `init` raised an error at world start.
    Init,
    /// After a class rebuild the environment held a value that is not a
    /// class (written with `rawset`, bypassing the guard); it was removed.
    Environment,
}

/// One script file that failed to load, run or initialise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadReport {
    /// The script file concerned (as named in `control.lst`).
    pub file: String,
    /// The line: in `file` for syntax, run and init errors raised there;
    /// in `control.lst` for [`ReportKind::Read`]. `None` if unknown.
    pub line: Option<u32>,
    /// The step that failed.
    pub kind: ReportKind,
    /// The full message, starting with its position (`file.lua:LINE: ...`,
    /// or `control.lst:LINE: ...` for a read error).
    pub message: String,
    /// The Lua traceback for run and init errors (empty otherwise).
    pub traceback: String,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The line of a `chunk:LINE: message` error raised in `chunk` (the
/// message may come from another chunk the file called: then `None`).
pub(crate) fn line_in(message: &str, chunk: &str) -> Option<u32> {
    let rest = message.strip_prefix(chunk)?.strip_prefix(':')?;
    let end = rest.find(':')?;
    rest[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::line_in;

    #[test]
    fn line_of_message() {
        assert_eq!(line_in("a.lua:12: boom", "a.lua"), Some(12));
        assert_eq!(line_in("b.lua:12: boom", "a.lua"), None);
        assert_eq!(line_in("a.lua: boom", "a.lua"), None);
        assert_eq!(line_in("a.luax:3: boom", "a.lua"), None);
    }
}
