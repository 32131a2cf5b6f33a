//! Host data (`State::set_host_data`): covered with the heap by snapshots,
//! save/load, both hashes and the collector.

use luprex_vm::raw::ErrorKind;
use luprex_vm::raw::{load_value, save_value, HostData, HostVisitor, State, Value};

/// An engine-like record: a counter, a list of ids and a Lua value.
#[derive(Clone, Debug)]
struct World {
    tick: i64,
    ids: Vec<u32>,
    obj: Value,
}

impl PartialEq for World {
    fn eq(&self, o: &World) -> bool {
        (self.tick, &self.ids, format!("{:?}", self.obj))
            == (o.tick, &o.ids, format!("{:?}", o.obj))
    }
}

impl HostData for World {
    fn name(&self) -> &'static str {
        "test.world"
    }
    fn visit(&self, v: &mut HostVisitor<'_>) {
        v.u64(self.tick as u64);
        v.u64(self.ids.len() as u64);
        self.ids.iter().for_each(|&i| v.u64(u64::from(i)));
        v.value(self.obj);
    }
    fn save(&self, out: &mut Vec<u8>) -> Result<(), String> {
        out.extend_from_slice(&self.tick.to_le_bytes());
        out.extend_from_slice(&(self.ids.len() as u32).to_le_bytes());
        self.ids.iter().for_each(|i| out.extend_from_slice(&i.to_le_bytes()));
        save_value(out, self.obj);
        Ok(())
    }
    luprex_vm::host_data_snapshot_by_clone!();
}

fn load_world(b: &[u8]) -> Option<Box<dyn HostData>> {
    let tick = i64::from_le_bytes(b.get(..8)?.try_into().ok()?);
    let n = u32::from_le_bytes(b.get(8..12)?.try_into().ok()?) as usize;
    let mut rest = &b[12..];
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(u32::from_le_bytes(rest.get(..4)?.try_into().ok()?));
        rest = &rest[4..];
    }
    let obj = load_value(&mut rest)?;
    rest.is_empty().then(|| Box::new(World { tick, ids, obj }) as Box<dyn HostData>)
}

fn fresh() -> State {
    let mut st = State::new();
    st.set_stdout(Box::new(std::io::sink()));
    st.set_stderr(Box::new(std::io::sink()));
    st.register_host_data_loader("test.world", load_world);
    st
}

fn run(st: &mut State, src: &str) -> Vec<Value> {
    let f = st.load(src.as_bytes(), b"=test").unwrap();
    st.call(f, &[]).unwrap()
}

/// A state whose host data holds a table that nothing else references.
fn built() -> State {
    let mut st = fresh();
    let t = run(&mut st, "local t = {name = 'castle', hp = 10} return t")[0];
    st.set_host_data(World { tick: 1, ids: vec![3, 4], obj: t }).unwrap();
    st.collect_garbage();
    st
}

fn world(st: &mut State) -> &mut World {
    st.host_data_mut::<World>().unwrap()
}

fn hashes(st: &State) -> (u128, u128) {
    (st.state_hash(), st.heap_hash())
}

#[test]
fn rollback_restores_host_data_exactly() {
    let mut st = built();
    let h0 = hashes(&st);
    let w0 = st.host_data::<World>().unwrap().clone();
    let s0 = st.snapshot().unwrap();
    world(&mut st).tick = 2;
    world(&mut st).ids.push(9);
    let h1 = hashes(&st);
    assert_ne!(h1, h0);
    let w1 = st.host_data::<World>().unwrap().clone();
    let s1 = st.snapshot().unwrap();
    let t = run(&mut st, "return {}")[0];
    world(&mut st).obj = t;
    world(&mut st).tick = 3;
    assert_ne!(hashes(&st), h1);
    st.rollback(s1).unwrap();
    assert_eq!(hashes(&st), h1);
    assert_eq!(st.host_data::<World>(), Some(&w1));
    st.rollback(s0).unwrap();
    assert_eq!(hashes(&st), h0);
    assert_eq!(st.host_data::<World>(), Some(&w0));
    // Released levels keep the current data.
    world(&mut st).tick = 7;
    st.release(s0).unwrap();
    assert_eq!(st.host_data::<World>().unwrap().tick, 7);
    st.check_heap().unwrap();
}

#[test]
fn host_data_is_fixed_while_snapshots_are_open() {
    let mut st = built();
    let s = st.snapshot().unwrap();
    let e = st.set_host_data(World { tick: 0, ids: vec![], obj: Value::Nil }).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Snapshot);
    st.release(s).unwrap();
}

#[test]
fn save_and_load_give_the_same_hashes() {
    let mut a = built();
    world(&mut a).tick = 41;
    let bytes = a.save_state().unwrap();
    let mut b = fresh();
    b.load_state(&bytes).unwrap();
    assert_eq!(hashes(&b), hashes(&a));
    assert_eq!(b.host_data::<World>(), a.host_data::<World>());
    // And the loaded data names the same table.
    let Value::Table(t) = b.host_data::<World>().unwrap().obj else { panic!("not a table") };
    let hp = b.intern(b"hp");
    assert!(matches!(b.table(t).get_str(hp), Value::Int(10)));
    // Running the same code on both keeps them equal.
    for st in [&mut a, &mut b] {
        run(st, "X = {} collectgarbage()");
        st.host_data_mut::<World>().unwrap().tick += 1;
    }
    assert_eq!(hashes(&b), hashes(&a));
}

#[test]
fn a_table_held_only_by_host_data_survives_collection() {
    let mut st = built();
    for _ in 0..3 {
        run(&mut st, "for i = 1, 1000 do local g = {i} end");
        st.collect_garbage();
    }
    st.check_heap().unwrap();
    let Value::Table(t) = st.host_data::<World>().unwrap().obj else { panic!("not a table") };
    let name = st.intern(b"name");
    let Value::Str(s) = st.table(t).get_str(name) else { panic!("collected") };
    assert_eq!(st.str_bytes(s), b"castle");
    // Once the host data lets go, the table is garbage.
    let before = st.heap_stats().tables;
    world(&mut st).obj = Value::Nil;
    st.collect_garbage();
    assert_eq!(st.heap_stats().tables, before - 1);
}

/// The offset of the host data's bytes in a saved state: after its name.
fn payload_offset(bytes: &[u8]) -> usize {
    let name = b"test.world";
    bytes.windows(name.len()).rposition(|w| w == name).unwrap() + name.len() + 4
}

#[test]
fn corrupt_or_unknown_host_data_is_refused_leaving_the_state_unchanged() {
    let a = built();
    let bytes = a.save_state().unwrap();
    let mut b = fresh();
    run(&mut b, "Y = 1");
    let before = hashes(&b);
    // A truncated payload: the loader says no.
    let mut bad = bytes.clone();
    let off = payload_offset(&bad);
    bad[off - 4] = 3; // its length
    let e = b.load_state(&bad).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Snapshot);
    // A handle naming no live object: validation says no.
    let mut bad = bytes.clone();
    let off = payload_offset(&bad) + 8 + 4 + 8 + 1;
    bad[off..off + 4].copy_from_slice(&0x00ff_ffffu32.to_le_bytes());
    let e = b.load_state(&bad).unwrap_err();
    assert!(e.to_string().contains("names no live object"), "{e}");
    // No loader registered under the name.
    let mut c = State::new();
    let e = c.load_state(&bytes).unwrap_err();
    assert!(e.to_string().contains("test.world"), "{e}");
    // Every truncation and single-byte corruption is an error or a
    // consistent state, never a panic.
    for n in (0..bytes.len()).step_by(7) {
        assert!(b.load_state(&bytes[..n]).is_err());
    }
    assert_eq!(hashes(&b), before);
    let off = payload_offset(&bytes);
    for i in off - 4..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x5a;
        let mut d = fresh();
        if d.load_state(&bad).is_ok() {
            d.check_heap().unwrap();
            let _ = hashes(&d);
        }
    }
}
