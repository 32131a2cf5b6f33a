//! A table's layout as plain data, for writing a table to bytes and
//! reading it back (`persist.rs`): [`TableParts`] and
//! [`TableStore::table_from_parts`], which validates a layout and rebuilds
//! the probe index from the entries, allocating nothing unless the layout
//! is valid.

use super::*;

// --------------------------------------------------------------------
// Raw layout, for writing a table to bytes (`persist.rs`)
// --------------------------------------------------------------------

/// A table's layout as plain data: everything that makes two tables behave
/// identically (contents, traversal order with tombstones and dead entries,
/// logical capacities), but not the probe index, which
/// [`TableStore::table_from_parts`] rebuilds from the entries.
#[derive(Clone, Debug, Default)]
pub struct TableParts {
    /// The metatable.
    pub meta: Option<TableRef>,
    /// The metamethod-absence cache.
    pub flags: u8,
    /// The array part (slot `i` holds key `i + 1`).
    pub array: Vec<Value>,
    /// The array part's logical capacity.
    pub array_cap: usize,
    /// The hash part's entries in order: `(key, nil)` is a tombstone,
    /// `(nil, nil)` a dead entry.
    pub entries: Vec<(Value, Value)>,
    /// The hash part's capacity in entries (0 or a power of two, at least 1).
    pub hash_cap: usize,
}

impl TableStore {
    /// Rebuilds a table from its layout, checking every invariant of the
    /// module docs that lookups and traversal rely on: capacities in range
    /// (the array's logical capacity at most twice its length, as growth
    /// leaves it), keys normalized (no NaN, no integral float), no key
    /// twice, no integer key of the array part's range in the hash part,
    /// dead entries without a value. The probe index is rebuilt from the
    /// entries, so a lookup finds exactly the keys listed. Handles are not
    /// checked here. Nothing is allocated unless the layout is valid.
    pub fn table_from_parts(&mut self, p: TableParts) -> Result<Table, String> {
        let n = p.array.len();
        if p.array_cap < n || p.array_cap > MAX_ARRAY || p.array_cap > (2 * n).max(1) {
            return Err(format!("array capacity {} for {} slots", p.array_cap, n));
        }
        let cap = p.hash_cap;
        let cap_ok = cap == 0 || (cap.is_power_of_two() && cap >= MIN_HASH);
        let cap_bound = (1 << 20usize).max(4 * (p.entries.len() + 1));
        if !cap_ok || cap > cap_bound || p.entries.len() > cap {
            return Err(format!("hash capacity {cap} for {} entries", p.entries.len()));
        }
        let mut seen = OwnedTable::new(0, 0);
        for &(key, val) in &p.entries {
            check_part_key(key, val, n)?;
            if !key.is_nil() {
                let mut s = seen.view_mut();
                if !s.get(key).is_nil() {
                    return Err("a key twice in the hash part".into());
                }
                s.set(key, Value::Bool(true)).map_err(|e| e.to_string())?;
            }
        }
        let mut index = Index::new();
        build_index(&p.entries, cap, &mut index);
        let mut t = Table {
            meta: p.meta,
            flags: p.flags,
            alen: n as u32,
            acap: p.array_cap as u32,
            hcap: cap as u32,
            shift: shift_for(cap),
            ..Table::default()
        };
        let body = self.alloc_body(p.array_cap, cap);
        t.set_body(self, body);
        let mut m = self.view_mut(&mut t);
        m.write_hash(&p.entries, &index);
        if n > 0 {
            let base = 3 * cap;
            m.s.vals.slice_mut(m.t.body, base + n)[base..].copy_from_slice(&p.array);
        }
        drop(m);
        Ok(t)
    }
}

/// Checks one hash-part entry of a [`TableParts`] (array part of `n` slots).
fn check_part_key(key: Value, val: Value, n: usize) -> Result<(), String> {
    match normalize(key) {
        Norm::Nil if val.is_nil() => Ok(()),
        Norm::Nil => Err("a dead entry with a value".into()),
        Norm::NaN => Err("a NaN key".into()),
        Norm::Int(i) if !matches!(key, Value::Int(_)) => {
            Err(format!("float key {i} not normalized"))
        }
        Norm::Int(i) if (i as u64).wrapping_sub(1) < n as u64 => {
            Err(format!("key {i} in the hash part of a table with {n} array slots"))
        }
        _ => Ok(()),
    }
}
