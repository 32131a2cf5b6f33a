//! Shared by the compiler's integration tests (`mod support;`): every
//! `.lua` file of the repository, and of the official suite when it is
//! unpacked at `lua-tests/testes`.

use std::path::{Path, PathBuf};

/// Every `.lua` file under the repository's Lua directories, sorted.
pub fn lua_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["tests", "benches/programs", "lua", "lua-tests/testes"] {
        collect(&root.join(dir), &mut out);
    }
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "lua") {
            out.push(p);
        }
    }
}
