//! Generates one `#[test]` per Lua file of `tests/conformance/` and
//! `tests/differential/cases/`, so that adding a script adds a test.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn lua_files(dir: &str) -> Vec<String> {
    println!("cargo:rerun-if-changed={dir}");
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                name.strip_suffix(".lua").map(str::to_owned)
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

fn test_ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

fn write_tests(out: &Path, file: &str, runner: &str, names: &[String]) {
    let mut src = String::new();
    for name in names {
        let _ = writeln!(src, "#[test]\nfn {}_lua() {{ {runner}({name:?}); }}", test_ident(name));
    }
    fs::write(out.join(file), src).expect("write generated tests");
}

fn main() {
    let out = env::var("OUT_DIR").expect("OUT_DIR");
    let out = Path::new(&out);
    write_tests(out, "conformance_tests.rs", "run_conformance", &lua_files("tests/conformance"));
    write_tests(
        out,
        "differential_tests.rs",
        "run_differential",
        &lua_files("tests/differential/cases"),
    );
}
