//! Fuzz target: the byte form of difference-frame values
//! (`raw::WireValue::read`) and their decoding into a heap
//! (`State::decode_value`) must never panic, whatever the bytes.
//!
//! The input is read as a sequence of values until it ends or is
//! malformed. Every value read must write back to exactly the bytes it was
//! read from (the byte form is canonical), and decoding it into a state
//! that knows tables 1 to 3 and host reference 7 either fails with an
//! error or gives a value that encodes back to the same wire value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use luprex_vm::raw::{State, Value, WireValue};

fuzz_target!(|data: &[u8]| {
    let mut st = State::new_bare();
    let tables: Vec<Value> = (0..3).map(|_| st.new_table()).collect();
    let host = st.new_table();
    let mut rest = data;
    while !rest.is_empty() {
        let Ok((w, n)) = WireValue::read(rest) else { return };
        assert!(n > 0 && n <= rest.len());
        let mut again = Vec::new();
        w.write(&mut again);
        assert_eq!(&again[..], &rest[..n], "the byte form is canonical");
        rest = &rest[n..];
        let decoded = st.decode_value(&w, &mut |r| match *r {
            WireValue::Table(k @ 1..=3) => Some(tables[k as usize - 1]),
            WireValue::Host(7) => Some(host),
            _ => None,
        });
        if let Ok(v) = decoded {
            let back = st.encode_value(v, &mut |o| {
                if o.raw_eq(host) {
                    return Some(WireValue::Host(7));
                }
                let k = tables.iter().position(|t| t.raw_eq(o))?;
                Some(WireValue::Table(k as u32 + 1))
            });
            assert_eq!(back, w, "decode then encode is the identity");
        }
    }
});
