//! Unit tests of the table: layout, lookups, traversal order, growth,
//! the journal and the raw layout round trip.

use super::*;
use crate::value::StrRef;

/// A table header is journaled as an object when it changes: it stays
/// small plain data (its contents live in the table store): 32 bytes of
/// state and the 8-byte body pointer.
#[test]
fn table_header_is_40_bytes() {
    assert_eq!(std::mem::size_of::<Table>(), 40);
}

fn s(i: u32) -> Value {
    Value::Str(StrRef::from_index(i))
}
fn int(i: i64) -> Value {
    Value::Int(i)
}
fn tbl(i: u32) -> Value {
    Value::Table(TableRef::from_index(i))
}

/// The whole traversal, through `next`.
fn keys(t: TableView<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    let mut k = Value::Nil;
    while let Some((nk, v)) = t.next(k).unwrap() {
        assert!(!v.is_nil());
        out.push(nk);
        k = nk;
    }
    out
}

fn same(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| key_eq(*x, *y))
}

#[test]
fn basic_get_set_all_key_types() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    let ks = [int(1), int(-5), int(0), s(3), tbl(3), Value::Bool(true), Value::Float(0.5)];
    for (n, k) in ks.iter().enumerate() {
        t.set(*k, int(n as i64 + 100)).unwrap();
    }
    for (n, k) in ks.iter().enumerate() {
        assert!(t.get(*k).raw_eq_interned(int(n as i64 + 100)), "{k:?}");
    }
    assert!(t.get(Value::Bool(false)).is_nil());
    assert!(t.get(s(4)).is_nil());
    assert!(t.get(tbl(4)).is_nil());
    assert!(t.get(Value::LuaFn(crate::value::LuaFnRef::from_index(3))).is_nil());
    assert!(t.get_str(StrRef::from_index(3)).raw_eq_interned(int(103)));
    assert!(t.get_int(-5).raw_eq_interned(int(101)));
    // overwrite and delete
    t.set(s(3), int(7)).unwrap();
    assert!(t.get(s(3)).raw_eq_interned(int(7)));
    t.set(s(3), Value::Nil).unwrap();
    assert!(t.get(s(3)).is_nil());
    assert!(same(
        &keys(t.view()),
        &[int(1), int(-5), int(0), tbl(3), Value::Bool(true), Value::Float(0.5)]
    ));
}

#[test]
fn nil_and_nan_keys() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    assert_eq!(t.set(Value::Nil, int(1)), Err(KeyError::NilKey));
    assert_eq!(t.set(Value::Float(f64::NAN), int(1)), Err(KeyError::NaNKey));
    assert_eq!(t.set(Value::Nil, Value::Nil), Err(KeyError::NilKey));
    assert!(t.get(Value::Nil).is_nil());
    assert!(t.get(Value::Float(f64::NAN)).is_nil());
    assert!(t.next(Value::Float(f64::NAN)).is_err());
    assert_eq!(KeyError::NilKey.to_string(), "table index is nil");
    assert_eq!(KeyError::NaNKey.to_string(), "table index is NaN");
    assert_eq!(NextError.to_string(), "invalid key to 'next'");
    assert!(t.is_empty());
}

#[test]
fn float_keys_normalize() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set(Value::Float(1.0), int(10)).unwrap();
    assert!(t.get_int(1).raw_eq_interned(int(10)));
    assert_eq!(t.array_len_raw(), 1);
    let two53 = 9007199254740992.0;
    t.set(Value::Float(two53), int(53)).unwrap();
    assert!(t.get_int(1 << 53).raw_eq_interned(int(53)));
    t.set(Value::Float(-0.0), int(0)).unwrap();
    assert!(t.get_int(0).raw_eq_interned(int(0)));
    assert!(t.get(Value::Float(0.0)).raw_eq_interned(int(0)));
    let two63 = 9223372036854775808.0;
    t.set(Value::Float(two63), int(63)).unwrap();
    assert!(t.get(Value::Float(two63)).raw_eq_interned(int(63)));
    assert!(t.get_int(i64::MIN).is_nil());
    t.set(Value::Float(-two63), int(-63)).unwrap();
    assert!(t.get_int(i64::MIN).raw_eq_interned(int(-63)));
    t.set(Value::Float(1.5), int(15)).unwrap();
    assert!(t.get(Value::Float(1.5)).raw_eq_interned(int(15)));
    let ks = keys(t.view());
    assert!(ks.iter().any(|k| matches!(k, Value::Int(i) if *i == 1 << 53)));
    assert!(ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two63)));
    assert!(!ks.iter().any(|k| matches!(k, Value::Float(f) if *f == two53)));
    // next accepts the float spelling of an integer key
    assert!(t.next(Value::Float(1.0)).is_ok());
}

#[test]
fn order_mixed_types_is_insertion_order() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    let ks = [s(9), int(100), tbl(1), s(2), Value::Bool(false), int(-1), Value::Float(2.5)];
    for k in ks {
        t.set(k, int(1)).unwrap();
    }
    assert!(same(&keys(t.view()), &ks));
    // updates do not move keys
    t.set(s(9), int(2)).unwrap();
    t.set(int(100), int(2)).unwrap();
    assert!(same(&keys(t.view()), &ks));
}

#[test]
fn array_part_first_then_hash() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set(s(1), int(1)).unwrap();
    for i in 1..=5 {
        t.set_int(i, int(i));
    }
    t.set(s(2), int(1)).unwrap();
    assert_eq!(t.array_len_raw(), 5);
    assert!(same(&keys(t.view()), &[int(1), int(2), int(3), int(4), int(5), s(1), s(2)]));
}

#[test]
fn deletion_during_traversal() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 0..50 {
        t.set(s(i), int(i as i64)).unwrap();
    }
    for i in 1..=20 {
        t.set_int(i, int(i));
    }
    let mut k = Value::Nil;
    let mut seen = 0;
    while let Some((nk, _)) = t.next(k).unwrap() {
        t.set(nk, Value::Nil).unwrap();
        seen += 1;
        k = nk;
    }
    assert_eq!(seen, 70);
    assert!(t.is_empty());
    assert!(keys(t.view()).is_empty());
}

#[test]
fn next_after_deleted_key_continues() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 0..5 {
        t.set(s(i), int(i as i64)).unwrap();
    }
    t.set(s(2), Value::Nil).unwrap();
    let (k, _) = t.next(s(2)).unwrap().unwrap();
    assert!(key_eq(k, s(3)));
    assert!(t.next(s(77)).is_err());
    assert!(t.next(int(77)).is_err());
    // an array slot set to nil is still a valid position
    t.set_int(1, int(1));
    t.set_int(2, int(2));
    t.set_int(1, Value::Nil);
    let (k, _) = t.next(int(1)).unwrap().unwrap();
    assert!(key_eq(k, int(2)));
}

#[test]
fn reinserted_key_goes_last() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 0..4 {
        t.set(s(i), int(1)).unwrap();
    }
    t.set(s(1), Value::Nil).unwrap();
    assert!(same(&keys(t.view()), &[s(0), s(2), s(3)]));
    t.set(s(1), int(5)).unwrap();
    assert!(same(&keys(t.view()), &[s(0), s(2), s(3), s(1)]));
    assert!(t.get(s(1)).raw_eq_interned(int(5)));
    // reinserting the last key keeps it last
    t.set(s(1), Value::Nil).unwrap();
    t.set(s(1), int(6)).unwrap();
    assert!(same(&keys(t.view()), &[s(0), s(2), s(3), s(1)]));
    // deleting and reinserting many times stays correct through rehashes
    for round in 0..100 {
        let k = s(round % 4);
        t.set(k, Value::Nil).unwrap();
        t.set(k, int(round as i64)).unwrap();
        let ks = keys(t.view());
        assert!(key_eq(*ks.last().unwrap(), k));
        assert_eq!(ks.len(), 4);
    }
    assert!(t.estimated_bytes() < 1024, "{}", t.estimated_bytes());
}

#[test]
fn array_migration_on_rehash() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    // 3, 2 go to the hash part first (not appendable)
    t.set_int(3, int(3));
    t.set(s(0), int(0)).unwrap();
    t.set_int(2, int(2));
    assert_eq!(t.array_len_raw(), 0);
    assert!(same(&keys(t.view()), &[int(3), s(0), int(2)]));
    // key 1 is appended; then a new key rehashes and absorbs 2 and 3
    t.set_int(1, int(1));
    t.set(s(1), int(1)).unwrap();
    t.set_int(4, int(4));
    assert!(t.array_len_raw() >= 4, "{}", t.array_len_raw());
    assert!(same(&keys(t.view()), &[int(1), int(2), int(3), int(4), s(0), s(1)]));
    assert_eq!(t.len(), 4);
}

#[test]
fn array_shrinks_when_sparse() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 1..=64 {
        t.set_int(i, int(i));
    }
    assert_eq!(t.array_len_raw(), 64);
    for i in 1..=62 {
        t.set_int(i, Value::Nil);
    }
    // an integer key insertion into the (empty, full) hash part rehashes
    t.set_int(1000, int(1000));
    assert_eq!(t.array_len_raw(), 0);
    assert!(same(&keys(t.view()), &[int(63), int(64), int(1000)]));
}

#[test]
fn queue_pattern_stays_small() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    let (mut head, mut tail) = (1i64, 0i64);
    for i in 0..100_000 {
        tail += 1;
        t.set_int(tail, int(i));
        if tail - head >= 10 {
            assert!(t.get_int(head).raw_eq_interned(int(head - 1)));
            t.set_int(head, Value::Nil);
            head += 1;
        }
    }
    assert!(t.estimated_bytes() < 4096, "{}", t.estimated_bytes());
    assert_eq!(keys(t.view()).len(), 10);
}

/// `hash_ints` is set by a positive integer key entering the hash part
/// (a tombstone keeps it), not by other keys, and a rebuild recomputes it.
#[test]
fn hash_ints_follows_positive_keys_in_the_hash_part() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set(s(1), int(1)).unwrap();
    t.set(int(0), int(0)).unwrap();
    t.set(int(-4), int(0)).unwrap();
    assert!(!t.hash_ints(), "no positive key");
    t.set(int(7), int(7)).unwrap();
    assert!(t.hash_ints());
    t.set(int(7), Value::Nil).unwrap();
    assert!(t.hash_ints(), "a tombstone is still a key");
    t.resize_array(0);
    assert!(!t.hash_ints(), "the rebuild dropped the tombstone");
    for i in 1..=40 {
        t.set_int(i, int(i));
    }
    assert!(!t.hash_ints(), "appends go to the array part");
    t.set(int(100), int(1)).unwrap();
    t.resize_array(10);
    assert!(t.hash_ints(), "keys 11..=40 and 100 moved to the hash part");
}

/// Appending up to a key that is a tombstone in the hash part revives that
/// entry instead of adding the key a second time.
#[test]
fn appends_over_a_tombstoned_key_keep_one_entry() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set(s(1), int(1)).unwrap();
    t.set(int(3), int(3)).unwrap();
    t.set(int(3), Value::Nil).unwrap();
    for i in 1..=6 {
        t.set_int(i, int(10 * i));
    }
    let ks = keys(t.view());
    assert_eq!(ks.len(), 7, "{ks:?}");
    assert_eq!(ks.iter().filter(|k| key_eq(**k, int(3))).count(), 1);
    for i in 1..=6 {
        assert!(t.get_int(i).raw_eq_interned(int(10 * i)));
    }
}

/// A table rebuilt from its parts (a saved state loaded) has the flag its
/// entries call for: set by a positive key, even a tombstone's.
#[test]
fn hash_ints_survives_the_parts_round_trip() {
    for (key, dead) in [(int(5), false), (int(5), true), (int(0), false), (s(2), false)] {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        t.set(s(1), int(1)).unwrap();
        t.set(key, int(9)).unwrap();
        if dead {
            t.set(key, Value::Nil).unwrap();
        }
        let want = t.hash_ints();
        let parts = t.view().to_parts();
        drop(t);
        let mut store = TableStore::default();
        let mut back = store.table_from_parts(parts).unwrap();
        assert_eq!(back.hash_ints(), want, "{key:?} dead {dead}");
        let mut m = store.view_mut(&mut back);
        for i in 1..=6 {
            m.set_int(i, int(i));
        }
        let n = keys(m.view()).len();
        // Key 5, live or a tombstone, is one of the six set.
        assert_eq!(n, if matches!(key, Value::Int(5)) { 7 } else { 8 }, "{key:?}");
    }
}

/// An array grown by appends beside a hash part fills its body block
/// before the block doubles (an array of a power of two plus the hash part
/// would round the block up to twice that), stays within the saved-state
/// bound (capacity at most twice the length: the parts round trip works
/// all along), and grows in place once the block is large.
#[test]
fn a_large_array_beside_fields_fills_its_block() {
    let mut ts = Tables::default();
    let h = ts.alloc(0, 0);
    ts.get_mut(h).set(s(1), int(1)).unwrap();
    ts.get_mut(h).set(int(0), int(0)).unwrap();
    let mut addrs = Vec::new();
    for i in 1..=20_000i64 {
        ts.get_mut(h).set_int(i, int(i));
        let t = *ts.arena.get(h);
        assert!(t.acap <= 2 * t.alen, "capacity {} for {} slots", t.acap, t.alen);
        if i % 4999 == 0 {
            let mut store = TableStore::default();
            store.table_from_parts(ts.get(h).to_parts()).unwrap();
        }
        if body_cap(t.acap as usize, t.hcap as usize) > Store::<Value>::PAGE {
            addrs.push(t.body);
        }
    }
    let t = *ts.arena.get(h);
    assert_eq!(body_cap(t.acap as usize, t.hcap as usize), 32768, "20,006 cells: not 65,536");
    addrs.dedup();
    assert_eq!(addrs.len(), 1, "the large block grew where it was");
    let view = ts.get(h);
    assert_eq!(view.len(), 20_000);
    assert!((1..=20_000).all(|i| view.get_int(i).raw_eq_interned(int(i))));
    assert!(view.get_int(0).raw_eq_interned(int(0)));
    assert_eq!(keys(view).len(), 20_002);
}

/// A map (no array part) grows block to block: its body is exactly three
/// cells a hash slot (the store's classes of three times a power of two),
/// its keys keep their insertion order and values through every growth,
/// a table with an array part beside them grows the same way, and one
/// with a tombstone takes the general rebuild, which drops it.
#[test]
fn a_growing_map_is_sized_exactly_and_keeps_its_order() {
    let mut ts = Tables::default();
    let (m, a) = (ts.alloc(0, 0), ts.alloc(0, 0));
    for i in 1..=3 {
        ts.get_mut(a).set_int(i, int(i));
    }
    for i in 1..=5_000u32 {
        ts.get_mut(m).set(s(i), int(i as i64)).unwrap();
        ts.get_mut(a).set(s(i), int(i as i64)).unwrap();
        let t = *ts.arena.get(m);
        assert_eq!(body_cap(t.acap as usize, t.hcap as usize), 3 * t.hcap as usize);
    }
    let want: Vec<Value> = (1..=5_000).map(s).collect();
    assert!(same(&keys(ts.get(m)), &want));
    let mut with_array: Vec<Value> = (1..=3).map(int).collect();
    with_array.extend(want.iter().copied());
    assert!(same(&keys(ts.get(a)), &with_array));
    for i in 1..=5_000u32 {
        assert!(ts.get(m).get(s(i)).raw_eq_interned(int(i as i64)));
        assert!(ts.get(a).get(s(i)).raw_eq_interned(int(i as i64)));
    }
    // A tombstone, then growth past the capacity: dropped, order kept.
    let hcap = ts.arena.get(m).hcap;
    ts.get_mut(m).set(s(7), Value::Nil).unwrap();
    for i in 5_001..=(hcap + 1) {
        ts.get_mut(m).set(s(i), int(i as i64)).unwrap();
    }
    let t = *ts.arena.get(m);
    assert_eq!(t.elen, hcap, "the tombstone was dropped by the rebuild");
    let want: Vec<Value> = (1..=hcap + 1).filter(|&i| i != 7).map(s).collect();
    assert!(same(&keys(ts.get(m)), &want));
    let mut store = TableStore::default();
    store.table_from_parts(ts.get(m).to_parts()).unwrap();
}

/// A key added to the hash part beside a large appended array keeps the
/// body in its block class: the array's slack makes room for the hash
/// part. (It took the next class, twice the memory, and a copy: a 5 M
/// array and `t[0]` held 256 MB where lua5.4 holds 128 MB.)
#[test]
fn a_field_beside_a_large_appended_array_keeps_its_block_class() {
    let mut ts = Tables::default();
    let h = ts.alloc(0, 0);
    for i in 1..=100_000i64 {
        ts.get_mut(h).set_int(i, int(i));
    }
    let t = *ts.arena.get(h);
    let class = body_cap(t.acap as usize, t.hcap as usize);
    ts.get_mut(h).set(int(0), int(0)).unwrap();
    ts.get_mut(h).set(s(1), int(1)).unwrap();
    let t = *ts.arena.get(h);
    assert_eq!(body_cap(t.acap as usize, t.hcap as usize), class);
    let view = ts.get(h);
    assert_eq!(view.len(), 100_000);
    assert!((0..=100_000).all(|i| view.get_int(i).raw_eq_interned(int(i))));
    assert!(view.get(s(1)).raw_eq_interned(int(1)));
}

/// A rehash that sizes a large array as Lua does (a power of two, its top
/// cells nil) beside a hash part cuts it to the room of the block class
/// its keys need, rather than doubling the block for the nil cells.
#[test]
fn a_rehashed_large_array_is_cut_to_its_keys_class() {
    let mut ts = Tables::default();
    let h = ts.alloc(0, 0);
    // In reverse: the keys go to the hash part, then rehashes move them
    // to an array of 131,072 slots, 70,000 of them used.
    for i in (1..=70_000i64).rev() {
        ts.get_mut(h).set_int(i, int(i));
    }
    for k in 1..=3 {
        ts.get_mut(h).set(s(k), int(k as i64)).unwrap();
    }
    let t = *ts.arena.get(h);
    assert!(body_cap(t.acap as usize, t.hcap as usize) <= 131_072, "{} cells", t.acap);
    let view = ts.get(h);
    assert_eq!(view.len(), 70_000);
    assert!((1..=70_000).all(|i| view.get_int(i).raw_eq_interned(int(i))));
    assert!((1..=3).all(|k| view.get(s(k)).raw_eq_interned(int(k as i64))));
}

/// Building the same large array over and over (a new table each round,
/// the last one freed) reaches a steady state: the blocks the growth
/// freed serve the next round, none is added after the first rounds. (Growing
/// in place while a block of the class waited on its free list added a
/// chunk per round: awfy-sieve held 664 MB.)
#[test]
fn rebuilding_a_large_array_reuses_its_blocks() {
    let mut store = TableStore::default();
    let mut sizes = Vec::new();
    for _ in 0..6 {
        let mut t = store.new_table(0, 0);
        let mut m = store.view_mut(&mut t);
        for i in 1..=5000 {
            m.set_int(i, Value::Bool(true));
        }
        drop(m);
        store.free_table(&t);
        sizes.push(store.vals.reserved_bytes());
    }
    assert!(sizes[2..].iter().all(|&b| b == sizes[2]), "{sizes:?}");
}

#[test]
fn sequence_building_uses_array() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 1..=1000 {
        assert_eq!(t.len(), i - 1);
        t.set_int(t.len() + 1, int(i));
    }
    assert_eq!(t.array_len_raw(), 1000);
    assert_eq!(t.len(), 1000);
    // pop from the end
    for i in (1..=1000).rev() {
        assert_eq!(t.len(), i);
        t.set_int(i, Value::Nil);
    }
    assert_eq!(t.len(), 0);
    assert!(t.is_empty());
}

#[test]
fn len_borders() {
    // constructor-like: new(n, 0) then set 1..n
    let mut owned = OwnedTable::new(3, 0);
    let mut t = owned.view_mut();
    assert_eq!(t.len(), 0);
    for i in 1..=3 {
        t.set_int(i, int(i));
    }
    assert_eq!(t.len(), 3);
    t.set_int(3, Value::Nil);
    assert_eq!(t.len(), 2);
    t.set_int(2, Value::Nil);
    assert_eq!(t.len(), 1);
    // continue into the hash part
    let mut owned = OwnedTable::new(2, 0);
    let mut t = owned.view_mut();
    t.set_int(1, int(1));
    t.set_int(2, int(2));
    t.set(s(0), int(0)).unwrap();
    t.set_int(3, int(3));
    t.set_int(4, int(4));
    t.set_int(5, int(5));
    assert_eq!(t.len(), 5);
    // only hash keys
    let mut owned = OwnedTable::new(0, 4);
    let mut t = owned.view_mut();
    t.set_int(2, int(2));
    assert_eq!(t.len(), 0);
    t.set_int(1, int(1));
    assert_eq!(t.len(), 2);
    // a border is always returned
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in [1, 2, 3, 5, 8, 9, 10, 20] {
        t.set_int(i, int(i));
    }
    let n = t.len();
    assert!(n == 0 || !t.get_int(n).is_nil());
    assert!(t.get_int(n + 1).is_nil());
    // max integer border
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set_int(1, int(1));
    t.set_int(2, int(1));
    t.set_int(i64::MAX, int(1));
    let n = t.len();
    assert!(t.get_int(n + 1).is_nil() && !t.get_int(n).is_nil());
}

#[test]
fn flags_reset_on_string_assignment() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.flags = 0xff;
    t.set_int(1, int(1));
    assert_eq!(t.flags, 0xff);
    t.set(tbl(1), int(1)).unwrap();
    assert_eq!(t.flags, 0xff);
    t.set_str(StrRef::from_index(1), int(1));
    assert_eq!(t.flags, 0);
    t.flags = 0xff;
    t.set(s(5), Value::Nil).unwrap();
    assert_eq!(t.flags, 0);
    t.flags = 0xff;
    t.set(s(1), int(2)).unwrap();
    assert_eq!(t.flags, 0);
}

#[test]
fn retain_and_refs() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 1..=4 {
        t.set_int(i, tbl(i as u32));
    }
    for i in 0..6 {
        t.set(s(i), tbl(10 + i)).unwrap();
    }
    t.meta = Some(TableRef::from_index(99));
    let mut n = 0;
    t.view().for_each_ref(|_| n += 1);
    assert_eq!(n, 1 + 4 + 12);
    assert_eq!(t.iter().count(), 10);
    // drop the odd ones
    t.retain(|_, v| matches!(v, Value::Table(h) if h.index() % 2 == 0));
    assert!(same(&keys(t.view()), &[int(2), int(4), s(0), s(2), s(4)]));
    // dropped keys are still valid positions for next
    assert!(t.next(s(1)).unwrap().is_some());
    let mut n = 0;
    t.view().for_each_ref(|_| n += 1);
    assert_eq!(n, 1 + 2 + 6);
}

#[test]
fn resize_array_grow_and_shrink() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    t.set(s(0), int(0)).unwrap();
    t.set_int(3, int(3));
    t.set_int(2, int(2));
    t.resize_array(4);
    assert_eq!(t.array_len_raw(), 4);
    assert!(same(&keys(t.view()), &[int(2), int(3), s(0)]));
    t.set_int(4, int(4));
    t.resize_array(1);
    assert!(same(&keys(t.view()), &[s(0), int(2), int(3), int(4)]));
    t.resize_array(0);
    assert_eq!(t.array_len_raw(), 0);
    assert!(same(&keys(t.view()), &[s(0), int(2), int(3), int(4)]));
}

#[test]
fn array_accessors() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 1..=5 {
        t.set_int(i, int(6 - i));
    }
    t.array_mut().sort_by_key(|v| match v {
        Value::Int(i) => *i,
        _ => 0,
    });
    assert!(t.get_int(1).raw_eq_interned(int(1)));
    assert_eq!(t.array().len(), 5);
}

/// Ops applied identically twice give identical traversals.
#[test]
fn deterministic_order() {
    let run = || {
        let mut owned = OwnedTable::new(0, 0);
        let mut t = owned.view_mut();
        let mut rng = Rng(42);
        for _ in 0..20_000 {
            let k = random_key(&mut rng);
            let v = if rng.below(4) == 0 { Value::Nil } else { int(rng.below(100) as i64) };
            t.set(k, v).unwrap();
        }
        keys(t.view())
    };
    let a = run();
    let b = run();
    assert!(!a.is_empty());
    assert!(same(&a, &b));
}

/// splitmix64.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_key(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0..=3 => int(rng.below(80) as i64 + 1),
        4 => int(rng.below(40) as i64 - 20),
        5..=6 => s(rng.below(60) as u32),
        7 => Value::Float(rng.below(20) as f64 + 0.25),
        8 => tbl(rng.below(10) as u32),
        _ => Value::Bool(rng.below(2) == 0),
    }
}

/// The reference model: live keys with their insertion epoch.
#[derive(Default)]
struct Model {
    /// (key, value, epoch) for every live key.
    live: Vec<(Value, Value, u64)>,
    epoch: u64,
}

impl Model {
    fn pos(&self, k: Value) -> Option<usize> {
        self.live.iter().position(|(x, _, _)| key_eq(*x, k))
    }
    fn get(&self, k: Value) -> Value {
        self.pos(k).map_or(Value::Nil, |p| self.live[p].1)
    }
    /// Keys that left the array part get fresh epochs, ascending.
    fn spill(&mut self, old_alen: usize, new_alen: usize) {
        if new_alen < old_alen {
            let mut spilled: Vec<usize> = (0..self.live.len())
                .filter(|&p| {
                    matches!(self.live[p].0, Value::Int(i)
                    if i as u64 > new_alen as u64 && i as u64 <= old_alen as u64)
                })
                .collect();
            spilled.sort_by_key(|&p| match self.live[p].0 {
                Value::Int(i) => i,
                _ => 0,
            });
            for p in spilled {
                self.epoch += 1;
                self.live[p].2 = self.epoch;
            }
        }
    }
    fn set(&mut self, k: Value, v: Value) {
        match (self.pos(k), v.is_nil()) {
            (Some(p), true) => {
                self.live.remove(p);
            }
            (Some(p), false) => self.live[p].1 = v,
            (None, true) => {}
            (None, false) => {
                self.epoch += 1;
                self.live.push((k, v, self.epoch));
            }
        }
    }
    /// The expected traversal given the table's array size.
    fn order(&self, alen: usize) -> Vec<Value> {
        let in_array =
            |k: Value| matches!(k, Value::Int(i) if (i as u64).wrapping_sub(1) < alen as u64);
        let mut arr: Vec<i64> = self
            .live
            .iter()
            .filter_map(|(k, _, _)| match k {
                Value::Int(i) if in_array(*k) => Some(*i),
                _ => None,
            })
            .collect();
        arr.sort();
        let mut hash: Vec<&(Value, Value, u64)> =
            self.live.iter().filter(|(k, _, _)| !in_array(*k)).collect();
        hash.sort_by_key(|e| e.2);
        arr.into_iter().map(int).chain(hash.into_iter().map(|e| e.0)).collect()
    }
}

fn normalized(k: Value) -> Value {
    match normalize(k) {
        Norm::Int(i) => int(i),
        _ => k,
    }
}

#[test]
fn randomized_against_model() {
    let mut rng = Rng(0x1234_5678);
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    let mut m = Model::default();
    for step in 0..100_000 {
        let k = normalized(random_key(&mut rng));
        let op = rng.below(10);
        let old_alen = t.array_len_raw();
        if op < 6 {
            let v = int(rng.below(1000) as i64);
            t.set(k, v).unwrap();
            // The inserted key's epoch comes after any spilled keys.
            let new_alen = t.array_len_raw();
            let was_absent = m.pos(k).is_none();
            if was_absent {
                m.spill(old_alen, new_alen);
                m.set(k, v);
            } else {
                m.set(k, v);
                m.spill(old_alen, new_alen);
            }
        } else if op < 9 {
            t.set(k, Value::Nil).unwrap();
            m.set(k, Value::Nil);
            assert_eq!(t.array_len_raw(), old_alen);
        } else {
            assert!(t.get(k).raw_eq_interned(m.get(k)), "step {step}: get {k:?}");
        }
        if step % 97 == 0 || step > 99_000 {
            let want = m.order(t.array_len_raw());
            let got = keys(t.view());
            assert!(same(&got, &want), "step {step}:\n got {got:?}\nwant {want:?}");
            for (k, v, _) in &m.live {
                assert!(t.get(*k).raw_eq_interned(*v));
            }
            let n = t.len();
            assert!(n == 0 || !t.get_int(n).is_nil(), "step {step}: len {n}");
            assert!(t.get_int(n + 1).is_nil(), "step {step}: len {n}");
            assert_eq!(t.iter().count(), m.live.len());
        }
    }
}

/// A sequence that starts at key 2 grows through rehashes that move hash
/// keys into the array within the same block (`TableMut::rebuild`'s
/// in-place path): every value survives, key 1 stays absent, and the
/// cells the array left behind read as nil.
#[test]
fn array_grows_from_key_two_in_place() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    // Key 4101 is the one whose insertion moved keys 4097..=4100 from the
    // hash part into an array of 8192 (the array of 4096 was at capacity).
    let last = 4101;
    for i in 2..=last {
        t.set_int(i, int(i * 3));
    }
    assert_eq!(t.array_len_raw(), 8192);
    assert!(t.get_int(1).is_nil());
    for i in 2..=last {
        assert!(t.get_int(i).raw_eq_interned(int(i * 3)), "key {i}");
    }
    for i in last + 1..=8192 {
        assert!(t.get_int(i).is_nil(), "key {i}");
    }
    let want: Vec<Value> = (2..=last).map(int).collect();
    assert!(same(&keys(t.view()), &want));
}

/// A hash part that grows beside a large array moves the array up within
/// its block, overlapping itself; shrinking the array afterwards spills its
/// upper keys to the hash part and leaves no stale value behind.
#[test]
fn hash_growth_beside_array_moves_it_in_place() {
    let mut owned = OwnedTable::new(0, 0);
    let mut t = owned.view_mut();
    for i in 1..=1000 {
        t.set_int(i, int(i));
    }
    for j in 0..8 {
        t.set(s(j), int(-(j as i64))).unwrap();
    }
    for i in 1..=1000 {
        assert!(t.get_int(i).raw_eq_interned(int(i)), "key {i}");
    }
    for j in 0..8 {
        assert!(t.get(s(j)).raw_eq_interned(int(-(j as i64))));
    }
    t.resize_array(600);
    assert_eq!(t.array_len_raw(), 600);
    for i in 1..=1000 {
        assert!(t.get_int(i).raw_eq_interned(int(i)), "key {i} after the shrink");
    }
    assert_eq!(keys(t.view()).len(), 1008);
}

// --------------------------------------------------------------------
// `Tables::set_str_simple`: string-key assignment without a `TableMut`
// --------------------------------------------------------------------

fn sr(i: u32) -> StrRef {
    StrRef::from_index(i)
}

/// A heap table with string keys `ks` (values 1, 2, ...) in a hash part
/// of capacity `hcap`.
fn str_table(ts: &mut Tables, hcap: usize, ks: &[u32]) -> TableRef {
    let h = ts.alloc(0, hcap);
    let mut t = ts.get_mut(h);
    for (n, &k) in ks.iter().enumerate() {
        t.set_str(sr(k), int(n as i64 + 1));
    }
    assert_eq!(t.hcap as usize, hcap);
    h
}

/// The entries' cells (dead ones included), for exact comparisons.
fn raw_ents(t: TableView<'_>) -> Vec<Value> {
    t.ents()[..2 * t.elen as usize].to_vec()
}

fn same_cells(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.raw_eq_interned(*y))
}

/// A table of string keys 1, 2, 3 with hash capacity `hcap`, key `dead`
/// set to nil (a tombstone), and every metamethod-absence bit set.
fn tombstoned(hcap: usize, dead: u32) -> (Tables, TableRef) {
    let mut ts = Tables::default();
    let h = str_table(&mut ts, hcap, &[1, 2, 3]);
    ts.get_mut(h).set_str(sr(dead), Value::Nil);
    ts.arena.get_mut(h).flags = 0xff;
    (ts, h)
}

#[test]
fn set_str_simple_revives_last_tombstone_in_place() {
    for hcap in [4, 8] {
        let (mut ts, h) = tombstoned(hcap, 3);
        assert!(ts.set_str_simple(h, sr(3), int(30)));
        let t = ts.get(h);
        assert_eq!((t.elen, t.flags), (3, 0));
        assert!(same(&keys(t), &[s(1), s(2), s(3)]));
        assert!(t.get_str(sr(3)).raw_eq_interned(int(30)));
    }
}

#[test]
fn set_str_simple_revives_by_append() {
    // hcap 4 is scanned (the index slot is looked up apart), 8 probed.
    for hcap in [4, 8] {
        let (mut ts, h) = tombstoned(hcap, 1);
        assert!(ts.set_str_simple(h, sr(1), int(10)));
        let t = ts.get(h);
        assert_eq!((t.elen, t.flags), (4, 0));
        // The old entry is dead (nil key), the key went last.
        assert!(t.ents()[0].is_nil() && t.ents()[1].is_nil());
        assert!(same(&keys(t), &[s(2), s(3), s(1)]));
        assert!(t.get_str(sr(1)).raw_eq_interned(int(10)));
        assert!(t.next(s(1)).unwrap().is_none());
        assert!(t.next(s(3)).unwrap().unwrap().0.raw_eq_interned(s(1)));
        // The index slot names the new entry: delete and revive again.
        ts.get_mut(h).set_str(sr(1), Value::Nil);
        assert!(ts.get(h).get_str(sr(1)).is_nil());
        assert!(ts.set_str_simple(h, sr(1), int(11)));
        assert_eq!(ts.get(h).elen, 4, "the tombstone was last: in place");
        assert!(same(&keys(ts.get(h)), &[s(2), s(3), s(1)]));
        assert!(ts.get(h).get_str(sr(1)).raw_eq_interned(int(11)));
    }
}

#[test]
fn set_str_simple_leaves_a_full_hash_part_to_the_general_path() {
    let mut ts = Tables::default();
    let h = str_table(&mut ts, 4, &[1, 2, 3, 4]);
    ts.get_mut(h).set_str(sr(2), Value::Nil);
    let before = (ts.layout_digest(), raw_ents(ts.get(h)));
    // A re-insertion into a full hash part needs a rehash: not done.
    assert!(!ts.set_str_simple(h, sr(2), int(20)));
    // So does an insertion.
    assert!(!ts.set_str_simple(h, sr(9), int(90)));
    assert_eq!(before.0, ts.layout_digest());
    assert!(same_cells(&before.1, &raw_ents(ts.get(h))));
    // Nil to the tombstone, or to an absent key, stores nothing.
    assert!(ts.set_str_simple(h, sr(2), Value::Nil));
    assert!(ts.set_str_simple(h, sr(9), Value::Nil));
    assert!(same_cells(&before.1, &raw_ents(ts.get(h))));
    // The general path rehashes and puts the key last.
    ts.get_mut(h).set_str(sr(2), int(20));
    assert!(same(&keys(ts.get(h)), &[s(1), s(3), s(4), s(2)]));
}

#[test]
fn set_str_simple_declines_hooks_and_newindex() {
    let mut ts = Tables::default();
    let h = str_table(&mut ts, 8, &[1, 2, 3]);
    ts.get_mut(h).set_str(sr(1), Value::Nil);
    // A metatable not known to lack `__newindex`.
    let mt = ts.alloc(0, 0);
    ts.get_mut(h).meta = Some(mt);
    assert!(!ts.set_str_simple(h, sr(1), int(10)));
    assert!(!ts.set_str_simple(h, sr(9), int(90)));
    ts.cache_tm_absent(mt, 1 << crate::meta::TM_NEWINDEX);
    assert!(ts.set_str_simple(h, sr(9), int(90)));
    // An open snapshot (a hook): the general path journals.
    ts.journal_begin();
    assert!(!ts.set_str_simple(h, sr(1), int(10)));
    assert!(!ts.set_str_simple(h, sr(2), int(20)));
    ts.journal_commit_to(0);
    assert!(ts.set_str_simple(h, sr(1), int(10)));
    assert!(same(&keys(ts.get(h)), &[s(2), s(3), s(9), s(1)]));
}

/// Random string-key assignments through `set_str_simple` (the general
/// path when it declines) leave exactly the cells and header
/// `TableMut::set_str` leaves.
#[test]
fn set_str_simple_matches_set_str() {
    let mut rng = Rng(0x5eed);
    for hint in [0, 3, 6, 20] {
        let (mut a, mut b) = (Tables::default(), Tables::default());
        let (ha, hb) = (a.alloc(0, hint), b.alloc(0, hint));
        let (mut fast, mut general) = (0, 0);
        for step in 0..20_000 {
            let k = sr(rng.below(24) as u32);
            let v = if rng.below(3) == 0 { Value::Nil } else { int(rng.below(100) as i64) };
            a.arena.get_mut(ha).flags = 0x5a;
            b.arena.get_mut(hb).flags = 0x5a;
            if a.set_str_simple(ha, k, v) {
                fast += 1;
            } else {
                general += 1;
                a.get_mut(ha).set_str(k, v);
            }
            b.get_mut(hb).set_str(k, v);
            let (ta, tb) = (a.get(ha), b.get(hb));
            assert_eq!(*ta.header(), *tb.header(), "step {step}");
            assert_eq!(a.layout_digest(), b.layout_digest(), "step {step}");
            assert!(same_cells(&raw_ents(ta), &raw_ents(tb)), "step {step}");
            assert!(same(&keys(ta), &keys(tb)), "step {step}");
        }
        assert!(fast > 1000 && general > 10, "{fast} {general}");
    }
}

/// Tables `a` and `b`, four array slots each (one page of the store),
/// `a[i] = 10 * i`, `b[i] = 100 * i`.
fn two_small_tables() -> (Tables, TableRef, TableRef) {
    let mut ts = Tables::default();
    let (a, b) = (ts.alloc(4, 0), ts.alloc(4, 0));
    for i in 1..=4 {
        ts.get_mut(a).set(int(i), int(10 * i)).unwrap();
        ts.get_mut(b).set(int(i), int(100 * i)).unwrap();
    }
    (ts, a, b)
}

/// A rollback that swaps a saved page's buffer back in starts a new buffer
/// epoch: a table whose header it did not put back (only cells were
/// written) reads and writes its body through the store, not through its
/// body pointer, which names the buffer swapped out (now in the pool,
/// holding the undone writes); a header it put back takes its pointer
/// again.
/// (With more headers than a rollback refreshes eagerly: the store is then
/// left stale, and the loop runs its tested instance.)
#[test]
fn a_rollback_retires_the_body_pointers_into_swapped_pages() {
    let (mut ts, a, b) = two_small_tables();
    for _ in 0..EAGER_REFRESH {
        ts.alloc(0, 0);
    }
    let before = ts.store.vals.epoch();
    ts.journal_begin();
    ts.get_mut(b).set(int(2), int(99)).unwrap();
    ts.journal_rollback_to(0);
    ts.journal_commit_to(0);
    assert_ne!(ts.store.vals.epoch(), before, "the page's buffer was swapped back in");
    assert!(ts.stale(), "too many headers to take every pointer again");
    assert_ne!(ts.arena.get(b).bp_epoch(), ts.store.vals.epoch(), "b's header was not put back");
    assert!(ts.get(b).get_int(2).raw_eq_interned(int(200)));
    assert!(ts.get(a).get_int(1).raw_eq_interned(int(10)));
    // The loop's in-place stores too.
    // SAFETY: `b` is live.
    let slot = unsafe { ts.array_slot_for_set::<false>(b, 0, int(7)) }.unwrap();
    *slot = int(7);
    assert!(ts.get(b).get_int(1).raw_eq_interned(int(7)));
    // A header the rollback put back is current again.
    ts.journal_begin();
    ts.get_mut(a).set(int(5), int(50)).unwrap(); // an append: the header changes
    ts.journal_rollback_to(0);
    ts.journal_commit_to(0);
    assert_eq!(ts.arena.get(a).bp_epoch(), ts.store.vals.epoch());
    assert!(ts.arena.get(a).bp_ok(&ts.store));
}

/// A rollback that moves a buffer in a heap of few tables takes every
/// body pointer again, so that the store holds no stale one and the loop
/// runs its fresh instance (body pointers untested); a rollback that moved
/// nothing leaves the store as it was; a commit too.
#[test]
fn a_rollback_in_a_small_heap_leaves_no_stale_pointer() {
    let (mut ts, a, b) = two_small_tables();
    let before = ts.store.vals.epoch();
    ts.journal_begin();
    ts.get_mut(b).set(int(2), int(99)).unwrap();
    ts.journal_rollback_to(0);
    assert_ne!(ts.store.vals.epoch(), before, "the page's buffer was swapped back in");
    assert!(!ts.stale());
    for h in [a, b] {
        let t = ts.arena.get(h);
        assert_eq!(t.bp_epoch(), ts.store.vals.epoch(), "every header took its pointer again");
        assert!(t.bp_ok(&ts.store));
    }
    // SAFETY: `b` is live, and the store holds no stale pointer.
    let view = unsafe { ts.get_live_in::<true>(b) };
    assert!(view.get_int(2).raw_eq_interned(int(200)));
    // Nothing written: nothing swapped, the epoch and the store stay.
    let epoch = ts.store.vals.epoch();
    ts.journal_rollback_to(0);
    ts.journal_commit_to(0);
    assert_eq!(ts.store.vals.epoch(), epoch);
    assert!(!ts.stale());
    // In a big heap the store goes stale.
    for _ in 0..EAGER_REFRESH {
        ts.alloc(0, 0);
    }
    ts.journal_begin();
    ts.get_mut(a).set(int(1), int(5)).unwrap();
    ts.journal_rollback_to(0);
    ts.journal_commit_to(0);
    assert!(ts.stale());
    assert!(ts.get(a).get_int(1).raw_eq_interned(int(10)));
}

/// Each rollback that swaps a page's buffer back in moves the epoch by
/// one, and it wraps after 32,768 of them (15 bits), the tables reading
/// right all along.
#[test]
fn the_buffer_epoch_counts_the_rollbacks_that_move_a_buffer() {
    let (mut ts, a, _) = two_small_tables();
    let start = ts.store.vals.epoch();
    for round in 0..=u32::from(EPOCH_MASK) {
        ts.journal_begin();
        ts.get_mut(a).set(int(1), int(1000 + i64::from(round))).unwrap();
        ts.journal_rollback_to(0);
        ts.journal_commit_to(0);
        let moved = ts.store.vals.epoch().wrapping_sub(start) & EPOCH_MASK;
        assert_eq!(u32::from(moved), (round + 1) % 32768, "each rollback moved a buffer");
        assert!(ts.get(a).get_int(1).raw_eq_interned(int(10)));
    }
    assert_eq!(ts.store.vals.epoch(), start, "the epoch came round");
}

/// The rollback that wraps the epoch makes every live header take its
/// pointer again: a pointer left from the epoch's last round (here made
/// up: a header of epoch 0 whose pointer is wrong) would otherwise be
/// taken for a current one once the epoch is 0 again.
#[test]
fn the_rollback_that_wraps_the_epoch_refreshes_every_header() {
    let (mut ts, a, b) = two_small_tables();
    ts.store.vals.set_epoch(EPOCH_MASK);
    for h in [a, b] {
        let t = ts.arena.cache_mut(h.index()).unwrap();
        t.refresh_bp(&ts.store);
    }
    // `a`'s header from the last round: epoch 0, a pointer into nothing.
    let t = ts.arena.cache_mut(a.index()).unwrap();
    (t.ep, t.bp) = (0, BodyPtr(std::ptr::null_mut()));
    ts.journal_begin();
    ts.get_mut(b).set(int(1), int(7)).unwrap();
    ts.journal_rollback_to(0);
    ts.journal_commit_to(0);
    assert_eq!(ts.store.vals.epoch(), 0, "the rollback wrapped the epoch");
    assert!(ts.arena.get(a).bp_ok(&ts.store));
    assert!(ts.get(a).get_int(3).raw_eq_interned(int(30)));
}

/// `set_list_simple` copies a constructor's values into the array part
/// it covers, and declines (nothing changed) when the array is too short,
/// a snapshot is open, or the barrier is on and the table is marked.
#[test]
fn set_list_simple_writes_the_array_or_declines() {
    let mut ts = Tables::default();
    let h = ts.alloc(4, 0);
    assert!(ts.set_list_simple(h, 1, &[int(2), Value::Nil, tbl(7)]));
    let arr: Vec<Value> = ts.get(h).array().to_vec();
    assert!(same_cells(&arr, &[Value::Nil, int(2), Value::Nil, tbl(7)]));
    assert!(!ts.set_list_simple(h, 2, &[int(1), int(2), int(3)]), "past the array part");
    ts.journal_begin();
    assert!(!ts.set_list_simple(h, 0, &[int(9)]), "a snapshot is open");
    ts.journal_commit_to(0);
    ts.arena.mark(h);
    ts.set_watch(true);
    assert!(!ts.set_list_simple(h, 0, &[int(9)]), "the barrier owes a marked table");
    ts.set_watch(false);
    assert!(ts.set_list_simple(h, 0, &[int(9)]));
    assert!(ts.get(h).array()[0].raw_eq_interned(int(9)));
}

/// `set_meta` serves the barrier as a write through `get_mut` does: while
/// the collector marks, a marked table lists a new metatable (once).
#[test]
fn set_meta_lists_a_new_metatable_of_a_marked_table() {
    let mut ts = Tables::default();
    let (h, m) = (ts.alloc(0, 0), ts.alloc(0, 0));
    ts.set_meta(h, Some(m));
    assert_eq!(ts.get(h).meta, Some(m));
    ts.arena.mark(h);
    ts.set_watch(true);
    ts.set_meta(h, None);
    assert_eq!(ts.get(h).meta, None);
    assert!(ts.barrier_state().1.is_empty());
    ts.set_meta(h, Some(m));
    ts.set_meta(h, Some(m));
    assert!(same_cells(ts.barrier_state().1, &[Value::Table(m)]));
}

/// An array grown to a size asked for in a table without a hash part
/// (`grow_array`, or `rebuild` when the block class stays) is exactly that
/// size, with the old values, nil in the new slots and no hash part; the
/// table loads from its parts, and a rollback restores the array it had.
#[test]
fn an_array_grown_without_a_hash_part_is_sized_exactly() {
    for (start, grow) in [(0usize, 4usize), (0, 1), (3, 4), (3, 9), (8, 100), (0, 3000)] {
        let mut ts = Tables::default();
        let h = ts.alloc(start, 0);
        for i in 1..=start as i64 {
            ts.get_mut(h).set_int(i, int(i));
        }
        ts.journal_begin();
        ts.get_mut(h).resize_array(grow);
        let t = *ts.arena.get(h);
        assert_eq!((t.alen as usize, t.acap as usize, t.hcap, t.elen), (grow, grow, 0, 0));
        assert!(!t.hash_ints());
        let view = ts.get(h);
        for i in 1..=grow as i64 {
            let want = if i <= start as i64 { int(i) } else { Value::Nil };
            assert!(view.get_int(i).raw_eq_interned(want), "{start} -> {grow}: t[{i}]");
        }
        let want: Vec<Value> = (1..=start as i64).map(int).collect();
        assert!(same(&keys(ts.get(h)), &want));
        let mut store = TableStore::default();
        store.table_from_parts(ts.get(h).to_parts()).unwrap();
        ts.journal_rollback_to(0);
        let t = *ts.arena.get(h);
        assert_eq!((t.alen as usize, t.hcap), (start, 0), "{start} -> {grow}: rolled back");
        assert!(same(&keys(ts.get(h)), &want));
    }
}
