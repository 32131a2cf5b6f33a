//! `luprex-lua` reading its standard input through a pipe: what the script
//! wrote before a read that must wait for input is already out (a
//! prompt), as C's stdio flushes its output before a read goes to the
//! source; the second read, served from the input buffer, needs no flush.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const SCRIPT: &str = "io.write('name? ') print('(asked)') \
    local l = io.read() print('got ' .. l) \
    local m = io.read() print('then ' .. tostring(m))";

#[test]
fn a_prompt_is_out_before_the_read_waits() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_luprex-lua"))
        .args(["-e", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run luprex-lua");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    // Nothing is written to the child until the prompt arrives: without
    // the flush, the child waits on its input and this times out.
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("(asked)") {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(chunk) => seen.extend(chunk),
            Err(e) => {
                let _ = child.kill();
                panic!("no prompt before the read ({e}); got {:?}", String::from_utf8_lossy(&seen));
            }
        }
    }
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"bob\nalice\n").expect("write");
    drop(stdin);
    let status = child.wait().expect("wait");
    while let Ok(chunk) = rx.recv_timeout(Duration::from_secs(10)) {
        seen.extend(chunk);
    }
    assert!(status.success());
    assert_eq!(String::from_utf8_lossy(&seen), "name? (asked)\ngot bob\nthen alice\n");
}
