//! Deterministic traversals of the table graph, for difference
//! transmission: numbering the tables of a model, pairing the tables of two
//! models, and numbering what pairing left over.
//!
//! These are the passes "Number the Tables in the Client Model", "Pair Up
//! Tables in the Master and Client Models" and "Number the Remaining Tables
//! in the Master Model" of the design document *Multipass Difference
//! Transmission*. The maps they build (the document's *tnmap* and *ntmap*)
//! are native structures indexed by handle index and by number, not Lua
//! tables: nothing is allocated in the heap and the traversed state is only
//! read.
//!
//! # What is traversed
//!
//! Only **ordinary** tables are numbered and recursed into. The embedder
//! names the others (tangible databases, class tables, the globals table,
//! the registry...) with an [`IsSpecial`] predicate, normally a
//! [`SpecialSet`] (a bitset over table handle indices). A special table met
//! during the traversal is ignored: not numbered, not entered.
//!
//! An entry `key → value` is followed only if the key is **sortable** (a
//! string, a number or a boolean) and the value is a table. The metatable
//! is one more entry, `METATABLE → metatable`, visited **first**, before
//! the array part and the hash part. Tables are scanned in their traversal
//! order (`next` order: array part ascending, then the hash part in
//! insertion order), which is a function of the operations applied to them,
//! so every traversal here is a function of the graph and its history, never
//! of handle indices: two models that hold the same graph built the same way
//! number it the same way. Only table-to-table edges are followed: a table
//! reachable only through a function's upvalues, a coroutine's stack or a
//! userdata is not reached (those values cannot be transmitted anyway).
//! Weak tables are traversed like the others.
//!
//! # Roots
//!
//! Roots are values, scanned in order. A root that is an ordinary table is
//! a starting point. A root that is a **special** table is *expanded*: the
//! tables under its sortable keys (its metatable excluded) are the starting
//! points, in its traversal order. That is how the document's roots are
//! given: pass the close tangibles' databases (marked special), and the
//! traversals start at "all ordinary tables pointed to by the tangible
//! database". Expansion is one level only: a special table found by
//! expanding a root is ignored like any special table. Other root values are
//! ignored.
//!
//! # Order: breadth-first, numbering at discovery
//!
//! [`State::number_tables`] is a breadth-first search with a FIFO queue: a
//! table gets the next number (from 1) the first time it is *discovered*
//! (as a root, or as the value of a followed entry of a table being
//! scanned), and tables are scanned in number order. The queue *is* the
//! number-to-table vector, so each table is scanned exactly once.
//!
//! [`pair_tables`] processes candidate pairs in the same breadth-first
//! order (a FIFO queue of pairs where the document says "stack"). The order
//! only matters when candidates conflict (a master table reachable along
//! two paths that lead to different client tables); then the candidate
//! found first, i.e. along the shortest path from the roots, wins, and the
//! result is the same on every run. [`Pairing::number_remaining`] is the
//! same breadth-first search as the numbering.
//!
//! # Pairing rules
//!
//! The master and the client graphs are walked in lockstep. Candidate pairs
//! come from the roots (`master_roots[i]` with `client_roots[i]`: two
//! ordinary tables are a candidate; two special tables are expanded
//! together: for each sortable key of the master table, in its order, if
//! both tables hold a table under that key, those two are a candidate) and
//! from every pair made: for its metatables (if both have one), then for
//! each sortable key of the master table in its order, the two tables held
//! under that key by both. Keys are compared by **value** across the heaps:
//! numbers and booleans as they are, strings by content (a string the client
//! heap has never interned is a key it cannot hold).
//!
//! A candidate `(TM, TC)` is paired when all of these hold; otherwise it is
//! dropped:
//!
//! 1. both tables are ordinary (neither is special on its side);
//! 2. `TM` has no number yet (it was not paired already);
//! 3. `TC` has a number in the client numbering;
//! 4. `TC` is not paired yet with another master table.
//!
//! Rule 4 is not in the document's pseudo-code; we add it because without
//! it two master tables could receive the same number, and the later passes
//! (one master table per number, in the *ntmap*) would then merge two
//! distinct master tables into one client table. With it, the pairing is a
//! one-to-one correspondence between a subset of the master's reachable
//! tables and a subset of the client's numbered tables. Cycles need no
//! special care: a pair is made at most once per table (rule 2), so the
//! walk ends.
//!
//! Pairing copies the client number to the master table; the master
//! numbering is therefore partial (numbers `1..=N` of the client, with
//! holes for unpaired client tables) until [`Pairing::number_remaining`]
//! gives the master's unpaired reachable tables the numbers `N + 1`,
//! `N + 2`, ... in breadth-first order.
//!
//! # Cost
//!
//! Each pass reads every reached table's slot and entries once (pairing:
//! in both models) and keeps its bookkeeping in flat vectors indexed by
//! handle index or number, so it is bound by memory traffic (see
//! `examples/traverse_bench.rs`); the queues are known ahead, so each pass
//! prefetches the tables it will scan a few steps later (`prefetch.rs`),
//! which turns the latency of two dependent misses per table into
//! overlapped memory traffic. Pairing reads the client table's hash part
//! with a cursor that advances in step with the master's while both have
//! the same keys in the same order, which is the normal case for models
//! built by the same code, and falls back to a hash lookup otherwise.
//!
//! **Invariants:** numbers are dense from 1 in a [`Numbering`]; a
//! [`Pairing`]'s master numbering is injective (one number per table, one
//! table per number); nothing here recurses on the Rust stack (explicit
//! queues) or allocates in the VM heap.

use crate::prefetch::prefetch_read;
use crate::state::State;
use crate::table::{Table, TableView, Tables};
use crate::value::{StrRef, TableRef, Value};
use std::hash::{BuildHasherDefault, Hasher};

// ---------------------------------------------------------------------------
// Special tables
// ---------------------------------------------------------------------------

/// Tells the traversals which tables are special (not numbered, not
/// entered). Implemented by [`SpecialSet`] and by any
/// `Fn(TableRef) -> bool`.
pub trait IsSpecial {
    /// Whether `t` is special.
    fn is_special(&self, t: TableRef) -> bool;
}

impl<F: Fn(TableRef) -> bool + ?Sized> IsSpecial for F {
    #[inline]
    fn is_special(&self, t: TableRef) -> bool {
        self(t)
    }
}

/// A set of special tables: a bitset over table handle indices that the
/// embedder fills with [`SpecialSet::mark`]. Handles are per State, so a
/// set belongs to one model, and must be kept up to date as special tables
/// are created (or freed and their slots reused).
#[derive(Clone, Debug, Default)]
pub struct SpecialSet {
    bits: Vec<u64>,
}

impl SpecialSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `t` special.
    pub fn mark(&mut self, t: TableRef) {
        let (w, b) = (t.index() as usize / 64, t.index() % 64);
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        self.bits[w] |= 1 << b;
    }

    /// Marks `v` special if it is a table; returns whether it was one.
    pub fn mark_value(&mut self, v: Value) -> bool {
        match v {
            Value::Table(t) => {
                self.mark(t);
                true
            }
            _ => false,
        }
    }

    /// Unmarks `t`.
    pub fn unmark(&mut self, t: TableRef) {
        let (w, b) = (t.index() as usize / 64, t.index() % 64);
        if let Some(word) = self.bits.get_mut(w) {
            *word &= !(1 << b);
        }
    }

    /// Whether `t` is marked.
    #[inline]
    pub fn contains(&self, t: TableRef) -> bool {
        let (w, b) = (t.index() as usize / 64, t.index() % 64);
        self.bits.get(w).is_some_and(|word| word & (1 << b) != 0)
    }
}

impl IsSpecial for SpecialSet {
    #[inline]
    fn is_special(&self, t: TableRef) -> bool {
        self.contains(t)
    }
}

// ---------------------------------------------------------------------------
// Keys and table scanning
// ---------------------------------------------------------------------------

/// Whether `k` is a sortable key (string, number or boolean).
#[inline]
pub fn is_sortable(k: Value) -> bool {
    matches!(k, Value::Str(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_))
}

/// Calls `f(child)` for the followed entries of `t`: the metatable first
/// (if `with_meta`), then every table value under a sortable key, in
/// traversal order.
#[inline]
fn for_each_child(t: TableView<'_>, with_meta: bool, mut f: impl FnMut(TableRef)) {
    if with_meta {
        if let Some(m) = t.meta {
            f(m);
        }
    }
    // Array keys are integers, always sortable.
    for &v in t.array() {
        if let Value::Table(c) = v {
            f(c);
        }
    }
    for (k, v) in t.hash_pairs() {
        if let Value::Table(c) = v {
            if is_sortable(k) {
                f(c);
            }
        }
    }
}

/// Queue positions ahead of the one being scanned at which the next
/// tables' arena slots, then their bodies are prefetched (see
/// `prefetch.rs`: a table's body is two dependent cache misses away,
/// header and body, through the header's body pointer, `table.rs`).
const SLOT_AHEAD: usize = 12;
const PARTS_AHEAD: usize = 4;

/// Prefetches the arena slot of table `t` (the slot may straddle two
/// cache lines).
#[inline(always)]
fn prefetch_slot(tables: &Tables, t: TableRef) {
    if let Some(slot) = tables.headers().raw_slots().get(t.index() as usize) {
        let p: *const Option<Table> = slot;
        prefetch_read(p);
        prefetch_read(p.cast::<u8>().wrapping_add(std::mem::size_of::<Option<Table>>() - 1));
    }
}

/// Prefetches for the table scanned `SLOT_AHEAD` positions later its slot,
/// and for the one `PARTS_AHEAD` later (whose slot should be cached by
/// now) its body.
#[inline(always)]
fn prefetch_ahead<T>(tables: &Tables, queue: &[T], head: usize, table: impl Fn(&T) -> TableRef) {
    if let Some(a) = queue.get(head + SLOT_AHEAD) {
        prefetch_slot(tables, table(a));
    }
    if let Some(a) = queue.get(head + PARTS_AHEAD) {
        if let Some(t) = tables.try_get(table(a).index()) {
            t.prefetch_parts();
        }
    }
}

/// The visited marks of a breadth-first search. Marking is where the
/// numbering passes assign numbers.
trait Marks {
    /// Whether `t` was visited.
    fn is_marked(&self, t: TableRef) -> bool;
    /// Records the first visit of `t` (an ordinary table).
    fn mark(&mut self, t: TableRef);
}

/// The breadth-first search shared by the numbering passes: marks every
/// reachable ordinary table once, in discovery order, using `queue`
/// (emptied first) as the FIFO; on return `queue` holds the tables in
/// discovery order.
fn bfs<S: IsSpecial + ?Sized, M: Marks>(
    st: &State,
    roots: &[Value],
    special: &S,
    marks: &mut M,
    queue: &mut Vec<TableRef>,
) {
    let tables = &st.heap.tables;
    queue.clear();
    let mut visit = |c: TableRef, queue: &mut Vec<TableRef>| {
        if !marks.is_marked(c) && !special.is_special(c) {
            marks.mark(c);
            queue.push(c);
        }
    };
    for &r in roots {
        let Value::Table(t) = r else { continue };
        if special.is_special(t) {
            for_each_child(tables.get(t), false, |c| visit(c, queue));
        } else {
            visit(t, queue);
        }
    }
    let mut head = 0;
    while let Some(&t) = queue.get(head) {
        prefetch_ahead(tables, queue, head, |&t| t);
        head += 1;
        for_each_child(tables.get(t), true, |c| visit(c, queue));
    }
}

// ---------------------------------------------------------------------------
// Numbering
// ---------------------------------------------------------------------------

/// Table numbers of one model: the document's *tnmap* (`to_num`) and
/// *ntmap* (`tables`), dense from 1.
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    /// Number of each table by handle index; 0 = unnumbered.
    to_num: Vec<u32>,
    /// `tables[n - 1]` is the table numbered `n`.
    tables: Vec<TableRef>,
}

impl Numbering {
    /// The number of `t`, if it has one.
    #[inline]
    pub fn number_of(&self, t: TableRef) -> Option<u32> {
        match self.to_num.get(t.index() as usize) {
            Some(&n) if n != 0 => Some(n),
            _ => None,
        }
    }

    /// The table numbered `n`.
    #[inline]
    pub fn table(&self, n: u32) -> Option<TableRef> {
        self.tables.get((n as usize).wrapping_sub(1)).copied()
    }

    /// How many tables are numbered (the highest number).
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// The numbered tables, in number order (`tables()[n - 1]` is number
    /// `n`).
    pub fn tables(&self) -> &[TableRef] {
        &self.tables
    }
}

impl State {
    /// Numbers every ordinary table reachable from `roots` (see the module
    /// docs for roots, followed entries and the breadth-first order):
    /// "Number the Tables in the Client Model".
    pub fn number_tables<S: IsSpecial + ?Sized>(&self, roots: &[Value], special: &S) -> Numbering {
        let mut marks = NumberMarks { to_num: vec![0; self.heap.tables.capacity_slots()], n: 0 };
        let mut tables = Vec::new();
        bfs(self, roots, special, &mut marks, &mut tables);
        Numbering { to_num: marks.to_num, tables }
    }
}

/// Numbering marks: the number itself (the queue is the number order).
struct NumberMarks {
    to_num: Vec<u32>,
    n: u32,
}

impl Marks for NumberMarks {
    #[inline]
    fn is_marked(&self, t: TableRef) -> bool {
        self.to_num[t.index() as usize] != 0
    }

    #[inline]
    fn mark(&mut self, t: TableRef) {
        self.n += 1;
        self.to_num[t.index() as usize] = self.n;
    }
}

// ---------------------------------------------------------------------------
// Pairing
// ---------------------------------------------------------------------------

/// A map keyed by table handle index, with a fixed hash (lookups only,
/// never iterated: nothing depends on its order).
type IndexMap = hashbrown::HashMap<u32, u32, BuildHasherDefault<IndexHasher>>;

/// The hash of [`IndexMap`]: a multiplicative mix of the index.
#[derive(Default)]
struct IndexHasher(u64);

impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        let h = (self.0 ^ u64::from(i)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
}

/// One pair made by [`pair_tables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablePair {
    /// The shared number (the client table's number).
    pub number: u32,
    /// The master table.
    pub master: TableRef,
    /// The client table.
    pub client: TableRef,
}

/// The result of [`pair_tables`]: the master model's (partial) numbering,
/// and the pairs in the order they were made.
#[derive(Clone, Debug, Default)]
pub struct Pairing {
    /// Master number by master handle index (absent: none). Sparse: a
    /// frame numbers the tables near one player, a small part of a master
    /// world's heap, and a dense vector over the whole heap cost more to
    /// zero than the traversal itself.
    to_num: IndexMap,
    /// `tables[n - 1]`: the master table numbered `n`, if any.
    /// handle index + 1 (0: no table), 4 bytes per number.
    tables: Vec<u32>,
    /// Pairs, in pairing order.
    pairs: Vec<TablePair>,
    /// Numbers `1..=client_len` come from the client numbering.
    client_len: u32,
}

impl Pairing {
    /// The master number of master table `t` (paired, or numbered by
    /// [`Pairing::number_remaining`]).
    #[inline]
    pub fn number_of(&self, t: TableRef) -> Option<u32> {
        self.to_num.get(&t.index()).copied()
    }

    /// The master table numbered `n`, if any.
    pub fn table(&self, n: u32) -> Option<TableRef> {
        let i = *self.tables.get((n as usize).wrapping_sub(1))?;
        i.checked_sub(1).map(TableRef::from_index)
    }

    /// The pairs, in the order they were made.
    pub fn pairs(&self) -> &[TablePair] {
        &self.pairs
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The client numbering's size `N`: numbers up to `N` are client numbers
    /// (paired, or holes), numbers above were assigned by
    /// [`Pairing::number_remaining`].
    pub fn client_len(&self) -> u32 {
        self.client_len
    }

    /// The highest master number assigned (`N` plus the remaining tables
    /// numbered so far).
    pub fn max_number(&self) -> u32 {
        self.tables.len() as u32
    }

    /// "Number the Remaining Tables in the Master Model": gives every
    /// ordinary table reachable from `roots` in `master` that has no number
    /// the next number from `N + 1`, in breadth-first discovery order (the
    /// traversal goes through paired tables too). Returns the range of new
    /// numbers: the client must create that many empty tables.
    pub fn number_remaining<S: IsSpecial + ?Sized>(
        &mut self,
        master: &State,
        roots: &[Value],
        special: &S,
    ) -> std::ops::Range<u32> {
        let first = self.tables.len() as u32 + 1;
        let cap = master.heap.tables.capacity_slots();
        let mut marks = RemainingMarks {
            seen: vec![0; cap.div_ceil(64)],
            to_num: &mut self.to_num,
            tables: &mut self.tables,
        };
        bfs(master, roots, special, &mut marks, &mut Vec::new());
        first..self.tables.len() as u32 + 1
    }
}

/// Marks of [`Pairing::number_remaining`]: a visited bitset (paired tables
/// are traversed too); the first visit of an unnumbered table numbers it.
struct RemainingMarks<'a> {
    seen: Vec<u64>,
    to_num: &'a mut IndexMap,
    tables: &'a mut Vec<u32>,
}

impl Marks for RemainingMarks<'_> {
    #[inline]
    fn is_marked(&self, t: TableRef) -> bool {
        let i = t.index() as usize;
        self.seen[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    fn mark(&mut self, t: TableRef) {
        let i = t.index() as usize;
        self.seen[i / 64] |= 1 << (i % 64);
        if let hashbrown::hash_map::Entry::Vacant(e) = self.to_num.entry(t.index()) {
            self.tables.push(t.index() + 1);
            e.insert(self.tables.len() as u32);
        }
    }
}

/// Maps master strings to client strings by content, caching the answers
/// by master handle index.
struct KeyMap<'a> {
    master: &'a State,
    client: &'a State,
    /// 0 = not looked up, 1 = absent from the client, `i + 2` = client
    /// string `i`.
    cache: Vec<u32>,
}

impl KeyMap<'_> {
    /// The client's value for master key `k`, or `None` if the client heap
    /// cannot hold it.
    #[inline]
    fn translate(&mut self, k: Value) -> Option<Value> {
        crate::wire::key_across(k, |s| self.string(s))
    }

    /// Whether master key `k` and client key `ck` are the same sortable
    /// key.
    #[inline]
    fn same(&mut self, k: Value, ck: Value) -> bool {
        match (k, ck) {
            (Value::Str(a), Value::Str(b)) => self.string(a) == Some(b),
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }
    }

    /// Client table `ctab` at master key `k` (nil if the client cannot
    /// hold the key).
    #[inline]
    fn lookup(&mut self, ctab: TableView<'_>, k: Value) -> Value {
        match self.translate(k) {
            Some(Value::Int(i)) => ctab.get_int(i),
            Some(Value::Str(s)) => ctab.get_str(s),
            Some(k) => ctab.get(k),
            None => Value::Nil,
        }
    }

    #[inline]
    fn string(&mut self, s: StrRef) -> Option<StrRef> {
        match self.cache.get(s.index() as usize) {
            Some(1) => None,
            Some(&n) if n > 1 => Some(StrRef::from_index(n - 2)),
            _ => self.string_slow(s),
        }
    }

    /// [`KeyMap::string`] on a cache miss: looks the content up in the
    /// client's interner.
    #[cold]
    fn string_slow(&mut self, s: StrRef) -> Option<StrRef> {
        let i = s.index() as usize;
        if i >= self.cache.len() {
            self.cache.resize(i + 1, 0);
        }
        let c = crate::wire::find_string(self.master, s, self.client);
        self.cache[i] = c.map_or(1, |c| c.index() + 2);
        c
    }
}

/// One model's side of the lockstep walk.
struct Side<'a, S: IsSpecial + ?Sized> {
    state: &'a State,
    roots: &'a [Value],
    special: &'a S,
}

/// The lockstep walk's state.
struct Pairer<'a, SM: IsSpecial + ?Sized, SC: IsSpecial + ?Sized> {
    master: Side<'a, SM>,
    client: Side<'a, SC>,
    numbers: &'a Numbering,
    keys: KeyMap<'a>,
    out: Pairing,
    /// Candidates, FIFO, with the client table's number.
    queue: Vec<TablePair>,
}

impl<SM: IsSpecial + ?Sized, SC: IsSpecial + ?Sized> Pairer<'_, SM, SC> {
    /// Whether master table `tm` and client number `n` are both still
    /// unpaired (rules 2 and 4 of the module docs, which can change while
    /// a candidate waits in the queue).
    #[inline]
    fn both_unpaired(&self, tm: TableRef, n: u32) -> bool {
        self.out.tables[n as usize - 1] == 0 && !self.out.to_num.contains_key(&tm.index())
    }

    /// Queues a candidate if it passes the four rules now. Rules 1 and 3
    /// never change; rules 2 and 4 only become harder to pass, so they are
    /// checked again when the candidate is popped.
    #[inline(always)]
    fn push(&mut self, tm: TableRef, tc: TableRef) {
        let Some(n) = self.numbers.number_of(tc) else { return };
        if self.both_unpaired(tm, n)
            && !self.master.special.is_special(tm)
            && !self.client.special.is_special(tc)
        {
            self.queue.push(TablePair { number: n, master: tm, client: tc });
        }
    }

    /// Queues the candidates under the common keys of `tm` and `tc`: the
    /// metatables (if `with_meta`), the array parts, then the master's hash
    /// part in order. The client's hash part is read with a cursor that
    /// advances one live entry per master entry: when the client entry at
    /// the cursor has the master entry's key (the common case: models built
    /// by the same code hold the same keys in the same order), its value is
    /// used without a hash probe; otherwise the key is looked up.
    fn expand(&mut self, tm: TableRef, tc: TableRef, with_meta: bool) {
        let (master, client) = (self.master.state, self.client.state);
        let mtab = master.heap.tables.get(tm);
        let ctab = client.heap.tables.get(tc);
        if with_meta {
            if let (Some(a), Some(b)) = (mtab.meta, ctab.meta) {
                self.push(a, b);
            }
        }
        for (i, &v) in mtab.array().iter().enumerate() {
            if let (Value::Table(cm), Value::Table(cc)) = (v, ctab.get_int(i as i64 + 1)) {
                self.push(cm, cc);
            }
        }
        let mut cursor = ctab.hash_pairs();
        for (k, v) in mtab.hash_pairs() {
            let at_cursor = cursor.next();
            let Value::Table(cm) = v else { continue };
            if !is_sortable(k) {
                continue;
            }
            let cv = match at_cursor {
                Some((ck, cv)) if self.keys.same(k, ck) => cv,
                _ => self.keys.lookup(ctab, k),
            };
            if let Value::Table(cc) = cv {
                self.push(cm, cc);
            }
        }
    }

    fn seed(&mut self) {
        let (mr, cr) = (self.master.roots, self.client.roots);
        for (&m, &c) in mr.iter().zip(cr) {
            let (Value::Table(tm), Value::Table(tc)) = (m, c) else { continue };
            let sm = self.master.special.is_special(tm);
            let sc = self.client.special.is_special(tc);
            match (sm, sc) {
                (true, true) => self.expand(tm, tc, false),
                (false, false) => self.push(tm, tc),
                _ => {}
            }
        }
    }

    fn run(&mut self) {
        let mut head = 0;
        let (mt, ct) = (&self.master.state.heap.tables, &self.client.state.heap.tables);
        while let Some(&pair) = self.queue.get(head) {
            prefetch_ahead(mt, &self.queue, head, |p| p.master);
            prefetch_ahead(ct, &self.queue, head, |p| p.client);
            head += 1;
            let TablePair { number: n, master: tm, client: tc } = pair;
            if !self.both_unpaired(tm, n) {
                continue;
            }
            self.out.to_num.insert(tm.index(), n);
            self.out.tables[n as usize - 1] = tm.index() + 1;
            self.out.pairs.push(pair);
            self.expand(tm, tc, true);
        }
    }
}

/// "Pair Up Tables in the Master and Client Models": walks `master` and
/// `client` in lockstep from corresponding roots (`master_roots[i]` with
/// `client_roots[i]`) and pairs equivalent tables, giving each paired master
/// table its client table's number from `client_numbers` (the client
/// numbering, computed from `client_roots`). Each model has its own special
/// set. See the module docs for the candidates, the four rules and the
/// order.
pub fn pair_tables<SM: IsSpecial + ?Sized, SC: IsSpecial + ?Sized>(
    master: &State,
    master_roots: &[Value],
    master_special: &SM,
    client: &State,
    client_roots: &[Value],
    client_special: &SC,
    client_numbers: &Numbering,
) -> Pairing {
    let n = client_numbers.len();
    let out = Pairing {
        to_num: IndexMap::default(),
        tables: vec![0; n],
        pairs: Vec::new(),
        client_len: n as u32,
    };
    let mut p = Pairer {
        master: Side { state: master, roots: master_roots, special: master_special },
        client: Side { state: client, roots: client_roots, special: client_special },
        numbers: client_numbers,
        keys: KeyMap { master, client, cache: Vec::new() },
        out,
        queue: Vec::new(),
    };
    p.seed();
    p.run();
    p.out
}
