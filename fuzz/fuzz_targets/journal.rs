//! Fuzz target: the master's journal (`luprex_engine::journal`) is read
//! from disk after a crash, so any bytes must give whole records and a
//! reported cut, never a panic. The records read cover the bytes up to
//! the cut exactly, and every event read survives an encode/decode round
//! trip (what the store writes, it reads back).
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_engine::journal::read_records;

fuzz_target!(|data: &[u8]| {
    let (events, end, cut) = read_records(data);
    assert!(end <= data.len());
    match cut {
        None => assert!(end == data.len() || data.len() < 16),
        Some(c) => assert_eq!((c.at as usize, c.at as usize + c.bytes as usize), (end, data.len())),
    }
    let mut at = 16.min(data.len());
    for e in &events {
        let len = u32::from_le_bytes(data[at..at + 4].try_into().unwrap()) as usize;
        at += 8 + len;
        let bytes = postcard::to_stdvec(e).expect("an event encodes");
        let back: luprex_engine::Event = postcard::from_bytes(&bytes).expect("and decodes");
        assert!(format!("{back:?}") == format!("{e:?}"), "round trip");
    }
    assert_eq!(at, end);
});
