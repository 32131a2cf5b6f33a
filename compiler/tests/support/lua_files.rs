//! Shared by the compiler's integration tests (`mod support;`): every
//! `.lua` file of the repository, and of the official suite when it is
//! unpacked at `lua-tests/testes`.
#![allow(dead_code)]

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

/// Every `.lua` file the repository itself holds, wherever it is (not those
/// of git-ignored directories: build output, the official suite, the
/// public benchmarks, fuzzing corpora), sorted.
pub fn repo_lua_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ignored = ["target", "lua-tests", "benches/public", "fuzz/corpus", "fuzz/artifacts"];
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(&root).unwrap_or(&p);
            let hidden = rel.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden || ignored.iter().any(|i| rel == Path::new(i)) {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "lua") {
                out.push(p);
            }
        }
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
