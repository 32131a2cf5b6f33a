//! The ignore list (`tests/lua-suite-ignore.toml`): which files of the
//! official suite are skipped, which sections are cut out of a file, and
//! which files run with different `_soft`/`_port` settings — each with the
//! reason why.
//!
//! Format:
//!
//! ```toml
//! [[skip]]            # the file is not run
//! file = "api.lua"
//! reason = "..."
//!
//! [[cut]]             # lines from the line equal to `from` up to (not
//! file = "x.lua"      # including) the line equal to `to` become empty
//! from = "do  -- a section"
//! to = "end  -- of the section"
//! reason = "..."
//!
//! [[globals]]         # per-file values of _soft / _port (default true)
//! file = "big.lua"
//! soft = false
//! reason = "..."
//! ```
//!
//! Lines are compared after trimming trailing white space. Cut lines are
//! replaced by empty lines so line numbers in messages stay those of the
//! original file.

use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// A section removed from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// First line of the section.
    pub from: String,
    /// First line kept after the section.
    pub to: String,
    /// Why.
    pub reason: String,
}

/// The `_soft` / `_port` values of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Globals {
    /// `_soft`: avoid long or memory-hungry tests.
    pub soft: bool,
    /// `_port`: avoid non-portable tests.
    pub port: bool,
}

impl Default for Globals {
    fn default() -> Globals {
        Globals { soft: true, port: true }
    }
}

/// The parsed ignore list.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Skipped files and why.
    pub skips: BTreeMap<String, String>,
    /// Cut sections per file.
    pub cuts: BTreeMap<String, Vec<Cut>>,
    /// Per-file globals.
    pub globals: BTreeMap<String, Globals>,
}

fn str_field(t: &toml::Table, key: &str, what: &str) -> Result<String> {
    match t.get(key) {
        Some(toml::Value::String(s)) => Ok(s.clone()),
        Some(_) => bail!("{what}: '{key}' must be a string"),
        None => bail!("{what}: '{key}' is missing"),
    }
}

fn bool_field(t: &toml::Table, key: &str, what: &str) -> Result<Option<bool>> {
    match t.get(key) {
        Some(toml::Value::Boolean(b)) => Ok(Some(*b)),
        Some(_) => bail!("{what}: '{key}' must be a boolean"),
        None => Ok(None),
    }
}

/// The entries of array-of-tables `key`.
fn entries<'a>(doc: &'a toml::Table, key: &str) -> Result<Vec<&'a toml::Table>> {
    match doc.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => a
            .iter()
            .map(|v| v.as_table().ok_or_else(|| anyhow!("'{key}' entries must be tables")))
            .collect(),
        Some(_) => bail!("'{key}' must be an array of tables ([[{key}]])"),
    }
}

impl Plan {
    /// Reads an ignore list.
    pub fn load(path: &Path) -> Result<Plan> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Plan::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Parses the text of an ignore list.
    pub fn parse(text: &str) -> Result<Plan> {
        let doc: toml::Table = text.parse()?;
        for key in doc.keys() {
            if !["skip", "cut", "globals"].contains(&key.as_str()) {
                bail!("unknown section '{key}'");
            }
        }
        let mut plan = Plan::default();
        for t in entries(&doc, "skip")? {
            let file = str_field(t, "file", "[[skip]]")?;
            let reason = str_field(t, "reason", "[[skip]]")?;
            plan.skips.insert(file, reason);
        }
        for t in entries(&doc, "cut")? {
            let file = str_field(t, "file", "[[cut]]")?;
            let cut = Cut {
                from: str_field(t, "from", "[[cut]]")?,
                to: str_field(t, "to", "[[cut]]")?,
                reason: str_field(t, "reason", "[[cut]]")?,
            };
            plan.cuts.entry(file).or_default().push(cut);
        }
        for t in entries(&doc, "globals")? {
            let file = str_field(t, "file", "[[globals]]")?;
            str_field(t, "reason", "[[globals]]")?;
            let mut g = Globals::default();
            if let Some(b) = bool_field(t, "soft", "[[globals]]")? {
                g.soft = b;
            }
            if let Some(b) = bool_field(t, "port", "[[globals]]")? {
                g.port = b;
            }
            plan.globals.insert(file, g);
        }
        Ok(plan)
    }

    /// The globals of `file`.
    pub fn globals_for(&self, file: &str) -> Globals {
        self.globals.get(file).copied().unwrap_or_default()
    }

    /// Applies the cuts of `file` to its source.
    pub fn apply_cuts(&self, file: &str, source: &[u8]) -> Result<Vec<u8>> {
        let Some(cuts) = self.cuts.get(file) else { return Ok(source.to_vec()) };
        let mut lines: Vec<Vec<u8>> = source.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
        for cut in cuts {
            let find = |from: usize, pat: &str| {
                (from..lines.len()).find(|&i| lines[i].trim_ascii_end() == pat.as_bytes())
            };
            let a = find(0, &cut.from)
                .ok_or_else(|| anyhow!("{file}: cut start line not found: {:?}", cut.from))?;
            let b = find(a + 1, &cut.to)
                .ok_or_else(|| anyhow!("{file}: cut end line not found: {:?}", cut.to))?;
            for l in &mut lines[a..b] {
                l.clear();
            }
        }
        Ok(lines.join(&b'\n'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_cuts() {
        let p = Plan::parse(
            r#"
            [[skip]]
            file = "api.lua"
            reason = "needs T"
            [[cut]]
            file = "a.lua"
            from = "do -- x"
            to = "end -- x"
            reason = "r"
            [[globals]]
            file = "big.lua"
            soft = false
            reason = "r"
            "#,
        )
        .unwrap();
        assert_eq!(p.skips["api.lua"], "needs T");
        assert!(!p.globals_for("big.lua").soft);
        assert!(p.globals_for("other.lua").port);
        let out = p.apply_cuts("a.lua", b"1\ndo -- x\n2\nend -- x\n3").unwrap();
        assert_eq!(out, b"1\n\n\nend -- x\n3");
        assert!(Plan::parse("[other]\n").is_err());
    }
}
