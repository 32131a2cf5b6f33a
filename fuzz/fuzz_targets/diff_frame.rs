//! Fuzz target: difference-transmission frames (`luprex_engine::diff`).
//!
//! Whatever the bytes, decoding a frame and applying it to a client model
//! must never panic, and a frame that is rejected must leave the client
//! model exactly as it was (its state hash unchanged). Two modes, chosen by
//! the first byte: arbitrary bytes as a frame; or a real frame (the first
//! frame of a small world: a player, tangibles, shared tables, a cycle,
//! published globals) with bytes overwritten at positions the input gives
//! and possibly truncated, which gets past the close-list and numbering
//! hashes into the table passes. Each input starts from the same client
//! model (a snapshot, rolled back after the input).
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_engine::diff::{self, Options, Radii, Transmitter};
use luprex_engine::{Model, SourceFile, World};
use std::cell::RefCell;

struct Fixture {
    client: World,
    base: Vec<u8>,
}

fn fixture() -> Fixture {
    let mut m = World::new(Model::Master).unwrap();
    m.load_sources(&[SourceFile::new("main.lua", "makeclass('thing')\nmakeclass('person')\n")])
        .unwrap();
    m.start().unwrap();
    let p = m.new_tangible("person", [0.0; 3]).unwrap();
    m.make_player(p).unwrap();
    let a = m.new_tangible("thing", [3.0, 0.0, 0.0]).unwrap();
    let b = m.new_tangible("thing", [5.0, 1.0, 0.0]).unwrap();
    m.exec(
        "=fx",
        &format!(
            "local a, b = gettangible({a}), gettangible({b})
             local A, B = {{n = 1, s = 'x'}}, {{2.5, true}}
             A.b = B; B.a = A; a.t = A; b.t = A; b.other = a; a.cls = thing
             setmetatable(B, thing); global.set('g', {{A}})"
        ),
    )
    .unwrap();
    let mut sync = World::new(Model::ServerSync).unwrap();
    let opts = Options { verify_state_hash: false, incremental: false };
    let mut tx = Transmitter::new(p, Radii { visibility: 50.0, close: 50.0 }, opts);
    let base = tx.frame(&mut m, &mut sync, Some("hi".into())).unwrap().frame.encode();
    Fixture { client: World::new(Model::ClientSync).unwrap(), base }
}

thread_local! {
    static FIX: RefCell<Fixture> = RefCell::new(fixture());
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    FIX.with(|f| {
        let f = &mut *f.borrow_mut();
        let bytes = if mode & 1 == 0 {
            rest.to_vec()
        } else {
            let mut b = f.base.clone();
            let mut it = rest.chunks_exact(3);
            for c in &mut it {
                let pos = u16::from_le_bytes([c[0], c[1]]) as usize % b.len();
                b[pos] = c[2];
            }
            if mode & 2 != 0 {
                let cut = it.remainder().first().map_or(0, |&x| x as usize);
                b.truncate(b.len().saturating_sub(cut));
            }
            b
        };
        let snap = f.client.snapshot().unwrap();
        let before = f.client.state_hash();
        if diff::apply_bytes(&mut f.client, &bytes).is_err() {
            assert_eq!(f.client.state_hash(), before, "a rejected frame changed the client model");
        }
        f.client.rollback(&snap).unwrap();
        f.client.release(snap).unwrap();
    });
});
