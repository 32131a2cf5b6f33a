//! The store's tests: random journals against a model, growth in place,
//! released chunks, page saves and the page pool.

use super::*;
use std::fmt::Debug;

/// A 16-byte element.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct P16(u64, u64);

impl Elem for P16 {
    fn from_link(link: u32) -> Self {
        P16(link as u64, 7)
    }
    fn link(self) -> u32 {
        self.0 as u32
    }
}

/// A 24-byte element: `PAGE` is then not a power of two.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct P24(u64, u64, u64);

impl Elem for P24 {
    fn from_link(link: u32) -> Self {
        P24(3, link as u64, 9)
    }
    fn link(self) -> u32 {
        self.1 as u32
    }
}

trait TestElem: Elem + PartialEq + Debug {
    fn val(x: u64) -> Self;
}
impl TestElem for u32 {
    fn val(x: u64) -> Self {
        x as u32
    }
}
impl TestElem for P16 {
    fn val(x: u64) -> Self {
        P16(x, !x)
    }
}
impl TestElem for P24 {
    fn val(x: u64) -> Self {
        P24(x, x + 1, !x)
    }
}

/// Everything a store's future behaviour depends on.
type Layout<T> = (u32, [u32; NCLASS], Vec<(u32, Vec<T>)>);

impl<T: Elem> Store<T> {
    fn debug_layout(&self) -> Layout<T> {
        let chunks =
            self.first_pages.iter().zip(&self.chunks).map(|(&f, c)| (f, c.to_vec())).collect();
        (self.pages, self.heads, chunks)
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Alloc(usize),
    Free(Addr, usize),
    Write(Addr, usize, u64),
    Fill(Addr, usize, usize, u64),
}

/// A store and a model of its live blocks (address, capacity, contents).
struct Sim<T: TestElem> {
    s: Store<T>,
    live: Vec<(Addr, usize, Vec<T>)>,
}

impl<T: TestElem> Sim<T> {
    fn new() -> Self {
        Sim { s: Store::new(), live: Vec::new() }
    }

    /// A random operation on the current state.
    fn random_op(&self, r: &mut Rng, step: u64) -> Op {
        let page = Store::<T>::PAGE;
        let n = self.live.len();
        match r.below(10) {
            0..=3 if n < 300 || r.below(3) == 0 => {
                let cap = match r.below(10) {
                    0 => page.next_power_of_two() * (1 + r.below(2)),
                    1 => (page / 2).max(1),
                    // Three times a power of two: a class of its own,
                    // small or (above a page) large.
                    2 => 3 << r.below(5),
                    3 => 3 * page.next_power_of_two() / 2,
                    _ => 1 << r.below(6),
                };
                Op::Alloc(cap)
            }
            0..=4 if n > 0 => {
                let (a, cap, _) = self.live[r.below(n)];
                Op::Free(a, cap)
            }
            5..=7 if n > 0 => {
                let (a, cap, _) = self.live[r.below(n)];
                Op::Write(a, r.below(cap), step)
            }
            _ if n > 0 => {
                let (a, cap, _) = self.live[r.below(n)];
                let from = r.below(cap);
                Op::Fill(a, from, 1 + r.below(cap - from), step)
            }
            _ => Op::Alloc(1),
        }
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Alloc(cap) => {
                let a = self.s.alloc(cap);
                assert!(self.s.slice(a, cap).iter().all(|&x| x == T::default()));
                assert!(self.live.iter().all(|l| l.0 != a), "{a:#x} allocated twice");
                self.live.push((a, cap, vec![T::default(); cap]));
            }
            Op::Free(a, cap) => {
                let i = self.live.iter().position(|l| l.0 == a).unwrap();
                self.live.swap_remove(i);
                self.s.free(a, cap);
            }
            Op::Write(a, i, v) => {
                let l = self.live.iter_mut().find(|l| l.0 == a).unwrap();
                l.2[i] = T::val(v);
                *self.s.get_mut(a, i) = T::val(v);
            }
            Op::Fill(a, from, len, v) => {
                let l = self.live.iter_mut().find(|l| l.0 == a).unwrap();
                l.2[from..from + len].fill(T::val(v));
                self.s.slice_mut(a, from + len)[from..].fill(T::val(v));
            }
        }
    }

    /// `op` with its block named by its place in `live` instead of its
    /// address: the same in every store fed the same operations.
    fn logical(&self, op: Op) -> Op {
        let at = |a: Addr| self.live.iter().position(|l| l.0 == a).unwrap() as Addr;
        match op {
            Op::Alloc(_) => op,
            Op::Free(a, cap) => Op::Free(at(a), cap),
            Op::Write(a, i, v) => Op::Write(at(a), i, v),
            Op::Fill(a, from, len, v) => Op::Fill(at(a), from, len, v),
        }
    }

    /// The inverse of [`Sim::logical`] for this store.
    fn physical(&self, op: Op) -> Op {
        let at = |i: Addr| self.live[i as usize].0;
        match op {
            Op::Alloc(_) => op,
            Op::Free(i, cap) => Op::Free(at(i), cap),
            Op::Write(i, j, v) => Op::Write(at(i), j, v),
            Op::Fill(i, from, len, v) => Op::Fill(at(i), from, len, v),
        }
    }

    fn check_live(&self) {
        for (a, cap, data) in &self.live {
            assert_eq!(self.s.slice(*a, *cap), &data[..], "block {a:#x}");
            for (i, x) in data.iter().enumerate() {
                assert_eq!(self.s.get(*a, i), *x);
            }
        }
    }

    /// The addresses of a fixed sequence of allocations from the current
    /// state, which is left unchanged (probed in a level rolled back).
    fn probe(&mut self) -> Vec<Addr> {
        let before = self.s.debug_layout();
        let d = self.s.journal_depth();
        self.s.journal_begin();
        let page = Store::<T>::PAGE;
        let caps = [1, 2, 1, (page / 2).max(1), page.next_power_of_two() * 2, 8, 1];
        let addrs = caps.iter().map(|&c| self.s.alloc(c)).collect();
        self.s.journal_rollback_to(d);
        self.s.journal_commit_to(d);
        assert_eq!(self.s.journal_depth(), d);
        assert!(self.s.debug_layout() == before, "probe changed the layout");
        addrs
    }
}

/// Applies `op` to a store without a model.
fn apply_raw<T: TestElem>(s: &mut Store<T>, op: Op) {
    match op {
        Op::Alloc(cap) => {
            s.alloc(cap);
        }
        Op::Free(a, cap) => s.free(a, cap),
        Op::Write(a, i, v) => *s.get_mut(a, i) = T::val(v),
        Op::Fill(a, from, len, v) => s.slice_mut(a, from + len)[from..].fill(T::val(v)),
    }
}

struct Snap<T: TestElem> {
    layout: Layout<T>,
    live: Vec<(Addr, usize, Vec<T>)>,
    probe: Vec<Addr>,
    log_len: usize,
    journal_len: usize,
}

/// Random allocations, frees and writes under nested levels with random
/// rollbacks and commits. Every rollback must restore the exact layout
/// of its level (every chunk's elements, page count, free-list heads),
/// the contents of every live block, and the addresses of the next
/// allocations. At the end, a store fed only the operations that were
/// not rolled back (no journaling at all) must hold the same blocks
/// with the same contents (not at the same addresses: a large block
/// freed outside a snapshot is released, inside one it waits on its
/// free list), and a twin store fed the same operations and levels
/// (but not the probes, so its pool differs) must have the same
/// layout throughout.
fn random_journal<T: TestElem>(seed: u64, steps: u64) {
    let mut r = Rng(seed);
    let mut sim = Sim::<T>::new();
    // Fed the same operations and levels, but no probes.
    let mut twin = Store::<T>::new();
    let mut log: Vec<Op> = Vec::new();
    let mut snaps: Vec<Snap<T>> = Vec::new();
    let (mut rollbacks, mut commits) = (0, 0);
    for step in 0..steps {
        match r.below(40) {
            0 if snaps.len() < 6 => {
                sim.s.journal_begin();
                let probe = sim.probe();
                let layout = sim.s.debug_layout();
                let (live, log_len) = (sim.live.clone(), log.len());
                let journal_len = sim.s.journal_len();
                snaps.push(Snap { layout, live, probe, log_len, journal_len });
                twin.journal_begin();
            }
            1 if !snaps.is_empty() => {
                let l = r.below(snaps.len());
                sim.s.journal_rollback_to(l);
                twin.journal_rollback_to(l);
                snaps.truncate(l + 1);
                let snap = &snaps[l];
                assert!(sim.s.debug_layout() == snap.layout, "step {step}: layout");
                sim.live = snap.live.clone();
                log.truncate(snap.log_len);
                sim.check_live();
                assert_eq!(sim.s.journal_len(), snap.journal_len);
                let probe = snaps[l].probe.clone();
                assert_eq!(sim.probe(), probe, "step {step}: next allocations");
                rollbacks += 1;
            }
            2 if !snaps.is_empty() => {
                let l = r.below(snaps.len());
                sim.s.journal_commit_to(l);
                twin.journal_commit_to(l);
                snaps.truncate(l);
                commits += 1;
            }
            _ => {
                let op = sim.random_op(&mut r, step);
                log.push(sim.logical(op));
                sim.apply(op);
                apply_raw(&mut twin, op);
            }
        }
        assert_eq!(sim.s.journal_depth(), snaps.len());
        if step % 64 == 0 {
            sim.check_live();
            assert!(twin.debug_layout() == sim.s.debug_layout(), "step {step}: twin");
            assert_eq!(twin.journal_len(), sim.s.journal_len());
        }
    }
    assert!(rollbacks > 100 && commits > 100, "{rollbacks} {commits}");
    sim.check_live();
    let mut replay = Sim::<T>::new();
    for &op in &log {
        replay.apply(replay.physical(op));
    }
    replay.check_live();
    let blocks = |sim: &Sim<T>| sim.live.iter().map(|l| (l.1, l.2.clone())).collect::<Vec<_>>();
    assert!(blocks(&replay) == blocks(&sim), "replay differs");
}

#[test]
fn journal_restores_exact_layouts_u32() {
    random_journal::<u32>(0x2545_f491_4f6c_dd1d, 12_000);
}

#[test]
fn journal_restores_exact_layouts_16_bytes() {
    random_journal::<P16>(0x9e37_79b9_7f4a_7c15, 12_000);
}

#[test]
fn journal_restores_exact_layouts_24_bytes() {
    random_journal::<P24>(0xd1b5_4a32_d192_ed03, 12_000);
}

/// A large block grows where it is when no snapshot is open: same
/// address, contents kept, new elements cleared, fresh page numbers;
/// a snapshot taken afterwards journals and restores it as any chunk.
/// With a snapshot open it refuses, as it does for a small block.
#[test]
fn large_block_grows_in_place_outside_snapshots() {
    fn run<T: TestElem>() {
        let page = Store::<T>::PAGE;
        let cap = (2 * page).next_power_of_two();
        let mut s = Store::<T>::new();
        let small = s.alloc(4);
        assert!(!s.grow_in_place(small, 4, 8), "a small block");
        let a = s.alloc(cap);
        let after = s.alloc(cap);
        for i in 0..cap {
            *s.get_mut(a, i) = T::val(i as u64);
            *s.get_mut(after, i) = T::val(7);
        }
        let pages = s.pages;
        assert!(s.grow_in_place(a, cap, 2 * cap));
        assert_eq!(s.pages, pages + (2 * cap).div_ceil(page) as u32);
        assert_eq!(s.reserved_bytes(), (page + 3 * cap) * std::mem::size_of::<T>());
        for i in 0..cap {
            assert_eq!(s.get(a, i), T::val(i as u64));
            assert_eq!(s.get(after, i), T::val(7), "the next chunk untouched");
        }
        assert!(s.slice(a, 2 * cap)[cap..].iter().all(|&x| x == T::default()));
        let before = s.debug_layout();
        s.journal_begin();
        assert!(!s.grow_in_place(a, 2 * cap, 4 * cap), "a snapshot is open");
        *s.get_mut(a, 2 * cap - 1) = T::val(1);
        *s.get_mut(a, 0) = T::val(2);
        *s.get_mut(after, 0) = T::val(3);
        assert_eq!(s.journal_len(), 3);
        s.journal_rollback_to(0);
        s.journal_commit_to(0);
        assert!(s.debug_layout() == before);
    }
    run::<u32>();
    run::<P16>();
    run::<P24>();
}

/// A large block freed while no snapshot is open gives its memory
/// back at once, and its chunk number serves the next new chunk; freed
/// inside a snapshot it waits on its free list (a rollback gives it
/// back, contents and all) until the outermost level closes. Page
/// numbers freed by releases are reclaimed.
#[test]
fn freed_large_blocks_are_released_outside_snapshots() {
    fn run<T: TestElem>() {
        let page = Store::<T>::PAGE;
        let cap = (2 * page).next_power_of_two();
        let bytes = |n: usize| n * std::mem::size_of::<T>();
        let mut s = Store::<T>::new();
        let a = s.alloc(cap);
        let b = s.alloc(cap);
        *s.get_mut(a, 3) = T::val(5);
        s.free(a, cap);
        assert_eq!(s.reserved_bytes(), bytes(cap), "a's memory released");
        let c = s.alloc(2 * cap);
        assert_eq!(c, a, "the vacant chunk serves any class");
        assert!(s.slice(c, 2 * cap).iter().all(|&x| x == T::default()));
        s.free(c, 2 * cap);
        let small = s.alloc(4);
        assert_eq!(small, a, "and a small page too");
        // Inside a snapshot: kept, restored, released at the end.
        for i in 0..cap {
            *s.get_mut(b, i) = T::val(i as u64);
        }
        s.journal_begin();
        s.free(b, cap);
        assert_eq!(s.reserved_bytes(), bytes(page + cap));
        s.journal_rollback_to(0);
        assert!((0..cap).all(|i| s.get(b, i) == T::val(i as u64)));
        s.free(b, cap);
        s.journal_begin();
        s.journal_commit_to(1);
        assert_eq!(s.reserved_bytes(), bytes(page + cap), "an inner level closed");
        s.journal_commit_to(0);
        assert_eq!(s.reserved_bytes(), bytes(page), "released when the last closes");
        assert_eq!(s.alloc(cap), b);
        // A thousand rounds of grow-and-drop keep the page numbers bounded.
        for _ in 0..1000 {
            let x = s.alloc(cap);
            assert!(s.grow_in_place(x, cap, 4 * cap));
            s.free(x, 4 * cap);
        }
        let used = s.chunks.iter().map(|c| c.len().div_ceil(page) as u32).sum::<u32>();
        assert_eq!(used, s.used_pages);
        assert!(s.pages <= 2 * used + 4096 + (4 * cap / page) as u32, "{} pages", s.pages);
        assert_eq!(s.reserved_bytes(), bytes(page + cap));
    }
    run::<u32>();
    run::<P16>();
    run::<P24>();
}

/// A large block partially written is restored exactly, and only the
/// pages written are saved.
#[test]
fn large_block_saves_only_touched_pages() {
    fn run<T: TestElem>() {
        let page = Store::<T>::PAGE;
        let cap = (8 * page).next_power_of_two();
        let mut s = Store::<T>::new();
        let small = s.alloc(4);
        let a = s.alloc(cap);
        for i in 0..cap {
            *s.get_mut(a, i) = T::val(i as u64);
        }
        let before = s.debug_layout();
        s.journal_begin();
        *s.get_mut(a, page + 3) = T::val(1_000_000);
        *s.get_mut(a, page + 4) = T::val(1_000_001);
        assert_eq!(s.journal_len(), 1);
        *s.get_mut(a, 5 * page) = T::val(1_000_002);
        assert_eq!(s.journal_len(), 2);
        // A slice over pages 0 to 4 (written from page 2 on).
        s.slice_mut(a, 5 * page)[2 * page + 1..].fill(T::val(7));
        assert_eq!(s.journal_len(), 6, "pages 0 to 5");
        *s.get_mut(small, 1) = T::val(9);
        assert_eq!(s.journal_len(), 7);
        s.journal_begin();
        *s.get_mut(a, cap - 1) = T::val(8);
        *s.get_mut(a, page + 1) = T::val(8);
        assert_eq!(s.journal_len(), 9);
        s.journal_commit_to(1);
        assert_eq!(s.journal_len(), 8, "one inner page folded into the outer level");
        s.journal_rollback_to(0);
        assert_eq!(s.journal_len(), 0);
        assert!(s.debug_layout() == before);
        for i in 0..cap {
            assert_eq!(s.get(a, i), T::val(i as u64));
        }
        // Freed large blocks are reused; the reuse is undone too.
        s.free(a, cap);
        assert_eq!(s.journal_len(), 1);
        let b = s.alloc(cap);
        assert_eq!(b, a);
        assert!(s.slice(b, cap).iter().all(|&x| x == T::default()));
        s.journal_rollback_to(0);
        assert!(s.debug_layout() == before);
        s.journal_commit_to(0);
        assert_eq!(s.journal_depth(), 0);
    }
    run::<u32>();
    run::<P16>();
    run::<P24>();
}

/// The predict/rollback cycle: the first round fills the pool; an
/// identical second round allocates no page buffer (its saves and new
/// pages, 27 of them, fit in the pool, bounded by the 40 pages).
#[test]
fn second_cycle_allocates_no_page_buffer() {
    let page = Store::<u32>::PAGE;
    let mut s = Store::<u32>::new();
    let blocks: Vec<Addr> = (0..40 * page / 16).map(|_| s.alloc(16)).collect();
    let half = &blocks[..blocks.len() / 2];
    let cycle = |s: &mut Store<u32>| {
        s.journal_begin();
        for (i, &a) in half.iter().enumerate().step_by(3) {
            *s.get_mut(a, i % 16) += 1;
        }
        s.journal_begin();
        for &a in half[..4 * page / 16].iter().step_by(5) {
            s.free(a, 16);
        }
        let new: Vec<Addr> = (0..3 * page / 8).map(|_| s.alloc(8)).collect();
        *s.get_mut(new[0], 0) = 5;
        s.journal_commit_to(1);
        s.journal_rollback_to(0);
        s.journal_commit_to(0);
    };
    let before = s.debug_layout();
    let fresh0 = s.jr.fresh;
    cycle(&mut s);
    let fresh1 = s.jr.fresh;
    assert_eq!(fresh1 - fresh0, 27, "20 + 4 saved pages and 3 new pages");
    assert!(s.debug_layout() == before);
    assert_eq!(s.pool_len(), 27);
    cycle(&mut s);
    assert_eq!(s.jr.fresh, fresh1, "second cycle allocated page buffers");
    assert!(s.debug_layout() == before);
}

/// The pool never holds more buffers than the store has pages.
#[test]
fn pool_is_bounded_by_page_count() {
    let page = Store::<u32>::PAGE;
    let mut s = Store::<u32>::new();
    let a = s.alloc(page);
    s.journal_begin();
    for _ in 0..50 {
        s.alloc(page);
    }
    *s.get_mut(a, 0) = 1;
    s.journal_rollback_to(0);
    assert_eq!(s.pages, 1);
    assert!(s.pool_len() <= 1, "{}", s.pool_len());
    s.journal_commit_to(0);
    assert!(s.pool_len() <= 1);
}

#[test]
fn small_pages_are_cut_in_order_and_lifo() {
    let page = Store::<u32>::PAGE as u32;
    let mut s = Store::<u32>::new();
    let a: Vec<Addr> = (0..page / 4 + 1).map(|_| s.alloc(4)).collect();
    for (i, &x) in a[..(page / 4) as usize].iter().enumerate() {
        assert_eq!(x, i as u32 * 4);
    }
    assert_eq!(a[(page / 4) as usize], 1 << Store::<u32>::SHIFT);
    s.free(a[3], 4);
    s.free(a[1], 4);
    assert_eq!(s.alloc(4), a[1]);
    // 3 is a class of its own (a new page), 4 and 2 + 1 are not.
    let three = s.alloc(3);
    assert_eq!(three, 2 << Store::<u32>::SHIFT);
    assert_eq!(s.alloc(3), three + 3);
    s.free(three, 3);
    assert_eq!(s.alloc(3), three);
    assert_eq!(s.alloc(4), a[3]);
    assert_eq!(s.alloc(0), EMPTY);
    assert!(s.slice(EMPTY, 0).is_empty());
    assert!(s.slice_mut(EMPTY, 0).is_empty());
    s.free(EMPTY, 0);
    assert_eq!(s.reserved_bytes(), 3 * PAGE_BYTES);
}

#[test]
fn classes_of_three_times_a_power_of_two() {
    // Rounding: exact for 2^k and 3 * 2^j, else up to a power of two.
    let class = Store::<u32>::class;
    assert_eq!(Store::<u32>::class_cap(class(12)), 12);
    assert_eq!(Store::<u32>::class_cap(class(16)), 16);
    assert_eq!(Store::<u32>::class_cap(class(13)), 16);
    assert_eq!(Store::<u32>::class_cap(class(5)), 8);
    assert_eq!(Store::<u32>::class_cap(class(3 << 25)), 3 << 25);
    assert_ne!(class(12), class(16));
    // A small one cuts its page in whole blocks; a large one is a chunk of
    // its own, released when freed outside a snapshot.
    let page = Store::<u32>::PAGE;
    let mut s = Store::<u32>::new();
    let cap = 3 << 7;
    let blocks: Vec<Addr> = (0..page / cap + 1).map(|_| s.alloc(cap)).collect();
    assert_eq!(blocks[page / cap], 1 << Store::<u32>::SHIFT, "a page holds {} blocks", page / cap);
    let big = 3 * page;
    let b = s.alloc(big);
    s.slice_mut(b, big)[big - 1] = 7;
    let before = s.reserved_bytes();
    s.free(b, big);
    assert_eq!(s.reserved_bytes(), before - big * 4);
    // A large block of this kind does not grow in place.
    let b = s.alloc(big);
    assert!(!s.grow_in_place(b, big, 4 * page));
}

#[test]
fn rollback_past_the_outer_level_is_harmless() {
    let mut s = Store::<u32>::new();
    let a = s.alloc(2);
    s.journal_rollback_to(0);
    s.journal_commit_to(0);
    assert_eq!(s.journal_depth(), 0);
    s.journal_begin();
    *s.get_mut(a, 1) = 3;
    s.journal_rollback_to(1);
    assert_eq!(s.get(a, 1), 3);
    s.journal_rollback_to(0);
    assert_eq!(s.get(a, 1), 0);
    assert_eq!(s.journal_depth(), 1);
}
/// `copy_block` between blocks of one page, of two pages, and between
/// large chunks in both directions, journaled like any write.
#[test]
fn copy_block_copies_and_journals() {
    let mut s: Store<u32> = Store::new();
    let page = Store::<u32>::PAGE;
    let a = s.alloc(4);
    let b = s.alloc(4);
    s.slice_mut(a, 4).copy_from_slice(&[1, 2, 3, 4]);
    s.copy_block(a, b, 3);
    assert_eq!(s.slice(b, 4), &[1, 2, 3, 0]);
    let big1 = s.alloc(page * 2);
    let big2 = s.alloc(page * 2);
    for (i, x) in s.slice_mut(big2, page * 2).iter_mut().enumerate() {
        *x = i as u32;
    }
    s.journal_begin();
    let before = s.debug_layout();
    s.copy_block(big2, big1, page + 1);
    s.copy_block(big1, a, 4);
    assert_eq!(s.slice(a, 4), &[0, 1, 2, 3]);
    assert_eq!(s.get(big1, page), page as u32);
    assert_eq!(s.journal_len(), 3, "two pages of big1 and a's page");
    s.journal_rollback_to(0);
    assert!(s.debug_layout() == before);
    s.journal_commit_to(0);
}

/// `copy_cells` with offsets and `move_cells` over overlapping ranges
/// (both directions), journaled like any write.
#[test]
fn copy_and_move_cells_with_offsets() {
    let mut s: Store<u32> = Store::new();
    let a = s.alloc(8);
    let b = s.alloc(8);
    s.slice_mut(a, 8).copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
    s.copy_cells(a, 2, b, 5, 3);
    assert_eq!(s.slice(b, 8), &[0, 0, 0, 0, 0, 3, 4, 5]);
    s.journal_begin();
    let before = s.debug_layout();
    s.move_cells(a, 0, 3, 5);
    assert_eq!(s.slice(a, 8), &[1, 2, 3, 1, 2, 3, 4, 5]);
    s.move_cells(a, 3, 1, 5);
    assert_eq!(s.slice(a, 8), &[1, 1, 2, 3, 4, 5, 4, 5]);
    assert_eq!(s.journal_len(), 1);
    s.journal_rollback_to(0);
    assert!(s.debug_layout() == before);
    s.journal_commit_to(0);
}
