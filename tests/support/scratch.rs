//! A scratch copy of the demo world `lua/`, for tests that run the binary
//! on it and may edit it (the real one is never touched).

use std::path::{Path, PathBuf};

/// Copies the files of `lua/` into a fresh temporary folder named after
/// `tag` and this process; returns it.
pub fn scratch_world(tag: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("lua");
    let dst = std::env::temp_dir().join(format!("luprex-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dst);
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    }
    dst
}
