//! `os.execute` runs its command as C's `system` does: through `/bin/sh`
//! under the name `sh`, so the shell's messages read as under `lua5.4`
//! (`sh: 1: cmd: not found`, not `/bin/sh: 1: ...`; found running
//! Penlight's test-utils3.lua against both).

use std::process::Command;

#[test]
fn the_shell_is_named_sh_as_under_system() {
    let out = Command::new(env!("CARGO_BIN_EXE_luprex-lua"))
        .args(["-e", "print(os.execute('luprex-surely-absent-command'))"])
        .output()
        .expect("run luprex-lua");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // dash: "sh: 1: cmd: not found"; bash: "sh: line 1: cmd: command not
    // found". Either way the shell names itself by its `argv[0]`.
    assert!(
        stderr.starts_with("sh: ") && stderr.contains("luprex-surely-absent-command"),
        "stderr: {stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "nil\texit\t127\n");
}
