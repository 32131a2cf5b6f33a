//! The server's message decoder and session state machine on arbitrary
//! bytes: no input may panic the server, and a session the core closes is
//! always told why.
//!
//! The input is a script of operations on a `ServerCore` around the arena
//! world of the net tests, with two connections open and the first one
//! already past its handshake (so commands reach the live state):
//! `0 len bytes..` frame to session A, `1 len bytes..` frame to session B,
//! `2` tick, `3` open a new session (it becomes B), `4` B disconnects.
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_engine::{Model, World};
use luprex_net::protocol::{encode, Hello, Up, PROTOCOL_VERSION};
use luprex_net::{HashCost, Registry, ServerConfig, ServerCore};

thread_local! {
    static MASTER: Vec<u8> = {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../net/tests/worlds/arena");
        World::from_dir(Model::Master, dir).unwrap().save().unwrap()
    };
}

fuzz_target!(|data: &[u8]| {
    let master = MASTER.with(|b| World::restore(Model::Master, b).unwrap());
    let mut core =
        ServerCore::new(master, ServerConfig::default(), Registry::new(HashCost::test()));
    let a = core.open();
    let hello =
        Hello { version: PROTOCOL_VERSION, name: "fuzz".into(), secret: "pw".into(), sources: 0 };
    core.receive(a, &encode(&Up::Hello(hello)));
    let mut b = core.open();
    let mut i = 0;
    let mut ticks = 0;
    while i < data.len() {
        let op = data[i] % 5;
        i += 1;
        match op {
            0 | 1 => {
                let len = *data.get(i).unwrap_or(&0) as usize;
                i += 1;
                let end = (i + len).min(data.len());
                let frame = &data[i.min(end)..end];
                i = end;
                core.receive(if op == 0 { a } else { b }, frame);
            }
            2 if ticks < 8 => {
                ticks += 1;
                core.tick();
            }
            3 => b = core.open(),
            4 => core.disconnected(b),
            _ => {}
        }
        for (sid, reason) in core.take_closed() {
            assert!(!reason.is_empty());
            let out = core.take_outbox(sid);
            assert!(!out.is_empty(), "a closed session is told why");
            core.disconnected(sid);
        }
        let _ = core.take_outbox(a);
        let _ = core.take_outbox(b);
    }
});
