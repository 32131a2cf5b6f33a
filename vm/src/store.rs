//! Paged block stores: where the contents of tables live.
//!
//! A [`Store<T>`] holds variable-sized *blocks* of `T` (capacities are
//! powers of two, or three times one) inside *chunks*. A block is named by an [`Addr`]
//! (`chunk << SHIFT | offset`, see [`Store::SHIFT`]), never by a pointer,
//! so the store is plain data and relocatable. The heap's tables keep
//! their contents in one `Store<Value>`, one block (the *body*: hash
//! entries, hash index, array part) per table (`table.rs`).
//!
//! # Size classes and chunks
//!
//! A page is `PAGE_BYTES` bytes: [`Store::PAGE`] elements. A block of
//! capacity `cap = 2^k` belongs to size class `k` (0 to 27), one of
//! capacity `3 * 2^j` to class `28 + j` (0 to 25); any other capacity is
//! rounded up to a power of two. The second series is for tables without
//! an array part, whose body is exactly three cells per hash slot
//! (`table.rs`): rounded up to a power of two, a quarter of every such
//! body was never used (lua5.4's nodes are 24 bytes a slot, ours 48).
//! A class with `cap <= PAGE` is *small*: its blocks are cut out of
//! one-page chunks dedicated to the class (`PAGE / cap` blocks per page,
//! at offsets that are multiples of `cap`; for `3 * 2^j` the page's last
//! `PAGE % cap` elements stay unused), so a small block never crosses a
//! page boundary. A
//! class with `cap > PAGE` is *large*: each block is a chunk of its own, of
//! exactly `cap` elements (several pages; when `PAGE` is not a power of two,
//! its last page is partial).
//!
//! Chunks are only ever appended (and truncated by a rollback), so every
//! page has a stable *global page number*: the store records the number of
//! each chunk's first page, and the running page count. The one exception
//! is a large block grown where it is ([`Store::grow_in_place`], only while
//! no snapshot is open): its chunk keeps its number, its buffer is
//! reallocated, and its pages take new numbers at the end (the old ones
//! stay unused). Every access goes
//! through the chunk table (`chunks`, one fat pointer per chunk; the page
//! numbers are kept apart, they serve only the journal), so it is kept
//! small and hot.
//!
//! # Page size
//!
//! `PAGE_BYTES` trades two costs, measured on the benchmarks
//! (`benches/RESULTS.md`): a write to a page not yet saved copies the whole
//! page, so larger pages journal more bytes per scattered write (16 KB: a
//! prediction that writes one field in each of 32 tables copies 512 KB,
//! about 20 µs); smaller pages make more chunks, hence a larger chunk
//! table and one more likely cache miss per table access (4 KB pages made
//! a scan over 130,000 entities about 1.5 times slower than 16 KB pages,
//! 64 KB pages no faster). 16 KB is the chosen balance.
//!
//! Free blocks of each size class form a LIFO free list threaded through
//! the blocks themselves (the link is stored in the block's first element,
//! [`Elem::from_link`]; the heads are a fixed array, `u32::MAX` = empty);
//! allocation is therefore a pure function of the sequence of `alloc` and
//! `free` calls and of the snapshots opened and closed between them
//! (determinism). When a small class's list is empty, a new page is cut
//! into blocks, threaded so that offset 0 is allocated first, then offset
//! `cap`, and so on. Small pages are kept while the store lives.
//!
//! # Released chunks
//!
//! A large block is freed back to the allocator when no snapshot is open:
//! its chunk keeps its number but drops its buffer, and the number goes
//! onto a LIFO list of *vacant* chunks, which the next new chunk (of any
//! class) takes while no snapshot is open, with fresh page numbers at the
//! end, as [`Store::grow_in_place`] gives. A program that builds and drops
//! a 5 M-element table at every round thus holds what `ltable.c`'s
//! `free` would leave it, not one block per class it went through. With a
//! snapshot open, a freed large block goes onto its class's free list like
//! any other (the rollback may need it back); closing the outermost level
//! releases whatever the large classes' lists then hold. So while no
//! snapshot is open, those lists are empty. Unused page numbers (those of
//! released or regrown chunks) are reclaimed by numbering the pages again
//! from zero once they outnumber the used ones, which is free of
//! consequence while no level is open.
//!
//! # The undo journal
//!
//! Like the arenas (`arena.rs`), a store keeps journal levels, one per
//! open snapshot. The unit is the page. A level records, at the snapshot,
//! the page count (pages at or above it are new: a rollback truncates
//! them), the chunk count and the free-list heads. From then on the first
//! write to an old page since the innermost snapshot — through
//! [`Store::slice_mut`], [`Store::get_mut`], or the allocator's own writes
//! (`alloc` clears a block, `free` writes a link) — saves a copy of the
//! page in the journal; a dirty bitmap, one bit per old page, makes later
//! writes free. With no snapshot open, a write costs one predictable
//! branch; with one open, a page test and a bit test.
//!
//! A rollback of the innermost level puts every saved page back — for a
//! one-page chunk by swapping the saved buffer in (no copy), for a page of
//! a large chunk by copying it back — truncates the chunks created since,
//! and restores the free-list heads: the layout (every element of every
//! chunk, hence also every future allocation) is exactly the snapshot's,
//! at a cost proportional to what changed. A rollback that swapped a buffer
//! in or dropped a chunk moves the store to a new *buffer epoch*: a pointer
//! into the store ([`Store::block_ptr`]) is valid only in the epoch it was
//! taken in (the tables' body pointers carry theirs, `table.rs`). Committing a level folds its
//! saved pages into the enclosing level, which keeps its own, older copy of
//! a page saved by both and does not need pages that are new to it; at the
//! outermost level the saved pages are dropped and journaling stops.
//!
//! # The page pool
//!
//! Page buffers that the journal retires (pages replaced by a rollback or
//! released by a commit, one-page chunks truncated by a rollback) go to a
//! pool that outlives the snapshots; the next saves and the next one-page
//! chunks take their buffers from it. After its first round, the engine's
//! predict/rollback cycle therefore makes no allocation here. The pool is
//! bounded by the store's page count (extras are dropped), so it at most
//! doubles the store's memory.
//!
//! # Bounds
//!
//! An [`Addr`] has `32 - SHIFT` bits of chunk number, where `SHIFT` is the
//! number of bits of a page offset (`Store::PAGE <= 2^SHIFT`; at most
//! [`ADDR_SHIFT`]). The last chunk number is never used, so no address is
//! [`EMPTY`]. A store thus holds fewer than `2^(32 - SHIFT)` chunks, that
//! is about `2^32 * size_of::<T>()` bytes when `PAGE` is a power of two
//! (16 GiB of `u32`, 64 GiB of 16-byte values); `alloc` panics with a clear
//! message past that, a size no memory limit the VM is run under allows.
//! Capacities are at most 2^27 elements (`alloc` panics above: the caller
//! bounds table sizes first).
//!
//! **Invariants:**
//! * a small block lies within one page; a large block is its chunk;
//! * every free block is on exactly one free list (its class's), and no
//!   live block is; no large block is free while no snapshot is open;
//! * a vacant chunk has an empty buffer and is on the vacant list, once;
//!   every vacant chunk number is below every open level's chunk count;
//! * every chunk is a whole number of pages, except possibly the last page
//!   of a large chunk when `PAGE` is not a power of two; a one-page chunk
//!   and every pool buffer hold exactly `PAGE` elements;
//! * every mutation goes through `slice_mut`/`get_mut` (or the allocator's
//!   writes, which use the same path), which journal the pages they touch;
//! * while journaling, a page below the innermost level's page count has
//!   its dirty bit set exactly when the innermost level holds a saved copy
//!   of it, and each level holds at most one copy per page; every bit is
//!   clear when no level is open.

use std::ptr::NonNull;

/// Bytes per page: the unit of journaling (see the module docs, "Page
/// size").
pub const PAGE_BYTES: usize = 16384;
/// The widest offset field of an [`Addr`]: a store's offset field is
/// [`Store::SHIFT`] bits, which is at most this (`Store::PAGE` may not
/// exceed `2^ADDR_SHIFT` elements).
pub const ADDR_SHIFT: u32 = 12;

/// The address of a block: `chunk << Store::SHIFT | offset` (offset in
/// elements, 0 for a large chunk).
pub type Addr = u32;

/// The address of every zero-capacity block (never dereferenced).
pub const EMPTY: Addr = u32::MAX;
/// The buffer epoch's bits: it counts modulo 2^15 (the tables keep a flag
/// beside it in 16 bits, `table.rs`).
pub const EPOCH_MASK: u16 = 0x7fff;
/// The bit above the epoch, for its holders' use (`Table::hash_ints`).
pub const HASH_INTS: u16 = 0x8000;

/// Number of power-of-two size classes: capacities 2^0 to 2^27.
const NPOW2: usize = 28;
/// Number of size classes: the powers of two, then capacities 3 * 2^0 to
/// 3 * 2^25 (classes `NPOW2 + j`).
const NCLASS: usize = NPOW2 + 26;
/// The largest capacity.
const MAX_CAP: usize = 1 << (NPOW2 - 1);
/// End of a free list, and an empty class's head.
const END: u32 = u32::MAX;

/// An element type of a store.
pub trait Elem: Copy + Default + 'static {
    /// An element that encodes a free-list link (`u32::MAX` = end).
    fn from_link(link: u32) -> Self;
    /// The link encoded by [`Elem::from_link`].
    fn link(self) -> u32;
}

impl Elem for u32 {
    fn from_link(link: u32) -> Self {
        link
    }
    fn link(self) -> u32 {
        self
    }
}

/// One journal level (one snapshot).
#[derive(Clone, Copy)]
struct Level {
    /// Page count at the snapshot: pages at or above it are new.
    pages: u32,
    /// Chunk count at the snapshot.
    chunks: u32,
    /// Free-list heads at the snapshot.
    heads: [u32; NCLASS],
    /// Where this level's saved pages start in `entries`.
    start: usize,
}

/// A page's content at the snapshot.
struct Saved<T> {
    /// Global page number.
    page: u32,
    /// The chunk holding the page.
    chunk: u32,
    /// The page's elements (`PAGE` long; only the chunk's part of a partial
    /// last page is meaningful).
    buf: Box<[T]>,
}

/// The undo journal of a store (see the module docs).
struct Jr<T> {
    /// Open levels, outermost first.
    levels: Vec<Level>,
    /// Saved pages of every level, level after level.
    entries: Vec<Saved<T>>,
    /// One bit per page below `limit`: saved since the innermost snapshot.
    dirty: Vec<u64>,
    /// `pages` of the innermost level (0 when no level is open).
    limit: u32,
    /// Retired page buffers (`PAGE` elements each), at most the store's
    /// page count.
    pool: Vec<Box<[T]>>,
    /// Page buffers allocated so far (tests check the pool with it).
    #[cfg(test)]
    fresh: usize,
}

impl<T> Jr<T> {
    #[inline(always)]
    fn is_dirty(&self, page: u32) -> bool {
        self.dirty[(page / 64) as usize] & (1 << (page % 64)) != 0
    }

    fn set_bit(&mut self, page: u32, on: bool) {
        let (w, b) = ((page / 64) as usize, page % 64);
        if on {
            self.dirty[w] |= 1 << b;
        } else {
            self.dirty[w] &= !(1 << b);
        }
    }

    /// Sets or clears the dirty bits of the entries `from..to`.
    fn mark_entries(&mut self, from: usize, to: usize, on: bool) {
        for i in from..to {
            let page = self.entries[i].page;
            self.set_bit(page, on);
        }
    }

    /// Keeps a retired page buffer if the pool has room (`bound` pages).
    fn retire(&mut self, buf: Box<[T]>, bound: u32) {
        if self.pool.len() < bound as usize {
            self.pool.push(buf);
        }
    }
}

/// A chunk's buffer: a boxed slice held by its raw pointer, so that
/// pointers into it ([`Store::block_ptr`]) stay valid across every later
/// access until the buffer is replaced (a rollback swapping a saved page
/// in, which starts a new buffer epoch) or dropped.
///
/// A `Box<[T]>` would not do: each access through the box reasserts its
/// uniqueness, which ends the validity of any pointer derived from it
/// earlier. Here every access, the slices of `Deref`/`DerefMut` and the
/// cached pointers alike, derives from the one raw pointer taken when the
/// chunk was made. Dropped (or turned back into a box, [`Chunk::into_box`])
/// when the chunk goes or its buffer is swapped out.
struct Chunk<T> {
    ptr: NonNull<[T]>,
}

// SAFETY: a chunk owns its buffer as the `Box<[T]>` it was made from
// does; it shares nothing, so it may move to or be shared with another
// thread whenever a box of `T` may.
unsafe impl<T: Send> Send for Chunk<T> {}
// SAFETY: as above; `&Chunk` gives only `&[T]`.
unsafe impl<T: Sync> Sync for Chunk<T> {}

impl<T> Chunk<T> {
    fn new(b: Box<[T]>) -> Chunk<T> {
        Chunk { ptr: NonNull::from(Box::leak(b)) }
    }

    /// The buffer back as a box (for the page pool).
    fn into_box(self) -> Box<[T]> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: `ptr` came from `Box::leak` of a box that nothing else
        // owns (`Chunk::new`), and `me` will not free it again.
        unsafe { Box::from_raw(me.ptr.as_ptr()) }
    }

    /// Element `i`'s address (`i` at most the length).
    #[inline(always)]
    fn elem_ptr(&self, i: usize) -> *mut T {
        debug_assert!(i <= self.ptr.len());
        self.ptr.cast::<T>().as_ptr().wrapping_add(i)
    }
}

impl<T> Drop for Chunk<T> {
    fn drop(&mut self) {
        // SAFETY: as in `into_box`: the chunk owns the leaked box.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

impl<T> std::ops::Deref for Chunk<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: the chunk owns the buffer, initialized (it was a box);
        // `&self` keeps it alive and allows no `&mut` to it meanwhile.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T> std::ops::DerefMut for Chunk<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` is exclusive.
        unsafe { self.ptr.as_mut() }
    }
}

/// A paged block store (see the module docs).
pub struct Store<T> {
    /// The chunks: one page of small blocks, or one large block each (the
    /// hot table of every access, kept to a fat pointer per chunk).
    chunks: Vec<Chunk<T>>,
    /// Global number of each chunk's first page (journaling only).
    first_pages: Vec<u32>,
    /// Number of pages of all chunks.
    pages: u32,
    /// Elements of all chunks.
    elems: usize,
    /// Pages of the chunks that hold a buffer (at most `pages`).
    used_pages: u32,
    /// Chunks whose buffers were released, the last released first out
    /// (see the module docs, "Released chunks").
    vacant: Vec<u32>,
    /// Free-list heads, one per size class (`END`: empty).
    heads: [u32; NCLASS],
    /// Whether a snapshot is open (the one branch of the hot paths).
    on: bool,
    /// The buffer epoch: bumped (wrapping) by every rollback that gives a
    /// one-page chunk its saved buffer back or drops chunks. A pointer
    /// into the store ([`Store::block_ptr`]) taken at epoch `e` is valid
    /// while the epoch is `e`, and nothing else moves a chunk's buffer
    /// but [`Store::grow_in_place`], whose one pointer (into a large block,
    /// alone in its chunk) its owner takes again at once, and the release
    /// of a freed large block (whose owner holds no pointer any more).
    epoch: u16,
    /// Whether a pointer taken in an older epoch may still be held: set
    /// and cleared by the pointers' owner (`Tables::refresh_bps`), which
    /// alone knows whether it took every pointer again. While it is
    /// clear, every pointer held is current and needs no epoch test.
    stale: bool,
    jr: Jr<T>,
}

impl<T: Elem> Default for Store<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Elem> Store<T> {
    /// Elements per page.
    pub const PAGE: usize = PAGE_BYTES / std::mem::size_of::<T>();

    /// Bits of an [`Addr`] that hold the offset inside the chunk: enough for
    /// every offset below [`Store::PAGE`].
    pub const SHIFT: u32 = usize::BITS - (Self::PAGE - 1).leading_zeros();

    /// Offset bits of an address.
    const MASK: u32 = (1 << Self::SHIFT) - 1;

    /// Chunks a store can hold (the last chunk number is never used, so
    /// that no address is `EMPTY`).
    const MAX_CHUNKS: u64 = (1u64 << (32 - Self::SHIFT)) - 1;

    /// An empty store.
    pub fn new() -> Self {
        // The element size must fit `PAGE_BYTES` (checked at compile time).
        const { assert!(Self::PAGE >= 1 && Self::SHIFT <= ADDR_SHIFT, "element too large") };
        Store {
            chunks: Vec::new(),
            first_pages: Vec::new(),
            pages: 0,
            elems: 0,
            used_pages: 0,
            vacant: Vec::new(),
            heads: [END; NCLASS],
            on: false,
            epoch: 0,
            stale: false,
            jr: Jr {
                levels: Vec::new(),
                entries: Vec::new(),
                dirty: Vec::new(),
                limit: 0,
                pool: Vec::new(),
                #[cfg(test)]
                fresh: 0,
            },
        }
    }

    /// Chunk index and offset of address `a`.
    #[inline(always)]
    fn split(a: Addr) -> (usize, usize) {
        ((a >> Self::SHIFT) as usize, (a & Self::MASK) as usize)
    }

    /// The size class of capacity `cap`: its own if it is three times a
    /// power of two, else that of `cap` rounded up to a power of two.
    #[inline]
    fn class(cap: usize) -> usize {
        assert!(cap <= MAX_CAP, "luprex-vm: store block of {cap} elements (at most 2^27)");
        let tz = cap.trailing_zeros() as usize;
        if cap >> tz == 3 {
            NPOW2 + tz
        } else {
            cap.next_power_of_two().trailing_zeros() as usize
        }
    }

    /// The capacity of size class `k`.
    #[inline]
    fn class_cap(k: usize) -> usize {
        if k < NPOW2 {
            1 << k
        } else {
            3 << (k - NPOW2)
        }
    }

    /// Allocates a block of capacity `cap` (a power of two or three times
    /// one, at least 1, at most 2^27), every element `T::default()`.
    /// Another `cap` is rounded up to a power of two; `cap` 0 gives
    /// [`EMPTY`]. Panics if `cap` exceeds 2^27 or the store is full (see
    /// the module docs' bounds).
    pub fn alloc(&mut self, cap: usize) -> Addr {
        if cap == 0 {
            return EMPTY;
        }
        let k = Self::class(cap);
        let a = self.heads[k];
        if a == END {
            return self.grow(k);
        }
        let next = self.get(a, 0).link();
        self.heads[k] = next;
        if next != END {
            self.prefetch(next);
        }
        self.slice_mut(a, Self::class_cap(k)).fill(T::default());
        a
    }

    /// Asks the processor to bring the first cell of block `a` (the next
    /// block of a free list) into the cache. A free block was usually freed
    /// by a sweep long before, and reading its link to pop it was a cache
    /// miss on every allocation in a row (most of `alloc_body`'s time in
    /// AWFY's Havlak); fetched one allocation ahead, it overlaps with the
    /// work between the two.
    #[inline(always)]
    fn prefetch(&self, a: Addr) {
        let (c, off) = Self::split(a);
        if let Some(chunk) = self.chunks.get(c) {
            crate::prefetch::prefetch_read(chunk.elem_ptr(off));
        }
    }

    /// Makes a chunk for class `k`, whose list is empty, and returns its
    /// first block (already cleared); the other blocks of a new page go
    /// onto the free list. The chunk is the last vacant one while no
    /// snapshot is open, else a new one at the end.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, k: usize) -> Addr {
        let reused = if self.on { None } else { self.vacant.pop() };
        let c = reused.map_or(self.chunks.len(), |c| c as usize);
        assert!(
            (c as u64) < Self::MAX_CHUNKS,
            "luprex-vm: table store full ({c} chunks of {} bytes)",
            PAGE_BYTES
        );
        let base = (c as u32) << Self::SHIFT;
        let cap = Self::class_cap(k);
        let (data, npages) = if cap <= Self::PAGE {
            let mut data = self.page_buf();
            data.fill(T::default());
            let n = Self::PAGE / cap;
            for i in 1..n {
                let next = if i + 1 < n { base + ((i + 1) * cap) as u32 } else { END };
                data[i * cap] = T::from_link(next);
            }
            if n > 1 {
                self.heads[k] = base + cap as u32;
            }
            (data, 1)
        } else {
            (vec![T::default(); cap].into_boxed_slice(), cap.div_ceil(Self::PAGE) as u32)
        };
        self.elems += data.len();
        if reused.is_some() {
            self.chunks[c] = Chunk::new(data);
            self.first_pages[c] = self.pages;
        } else {
            self.chunks.push(Chunk::new(data));
            self.first_pages.push(self.pages);
        }
        self.pages += npages;
        self.used_pages += npages;
        if !self.on {
            self.reclaim_page_numbers();
        }
        base
    }

    /// Pages of a chunk of `len` elements.
    fn pages_of(len: usize) -> u32 {
        len.div_ceil(Self::PAGE) as u32
    }

    /// Releases chunk `c`'s buffer (a large block's, freed while no
    /// snapshot is open) and makes the chunk vacant.
    fn release(&mut self, c: usize) {
        debug_assert!(!self.on && self.chunks[c].len() > Self::PAGE);
        let old = std::mem::replace(&mut self.chunks[c], Chunk::new(Box::default()));
        self.elems -= old.len();
        self.used_pages -= Self::pages_of(old.len());
        self.vacant.push(c as u32);
    }

    /// Releases every block of the large classes' free lists (when the
    /// outermost snapshot closes).
    fn release_free_large(&mut self) {
        for k in 0..NCLASS {
            if Self::class_cap(k) <= Self::PAGE {
                continue;
            }
            while self.heads[k] != END {
                let a = self.heads[k];
                self.heads[k] = self.get(a, 0).link();
                self.release(Self::split(a).0);
            }
        }
    }

    /// Numbers the pages again from zero, chunk after chunk, once the
    /// unused numbers outnumber the used ones (no level may be open: page
    /// numbers serve the journal only).
    fn reclaim_page_numbers(&mut self) {
        debug_assert!(!self.on);
        if self.pages <= 2 * self.used_pages + 4096 {
            return;
        }
        let mut next = 0;
        for (first, chunk) in self.first_pages.iter_mut().zip(&self.chunks) {
            *first = next;
            next += Self::pages_of(chunk.len());
        }
        self.pages = next;
    }

    /// A page buffer from the pool, or a new one (contents unspecified).
    fn page_buf(&mut self) -> Box<[T]> {
        match self.jr.pool.pop() {
            Some(b) => b,
            None => {
                #[cfg(test)]
                {
                    self.jr.fresh += 1;
                }
                vec![T::default(); Self::PAGE].into_boxed_slice()
            }
        }
    }

    /// Grows large block `a` of capacity `cap` to capacity `new_cap` where
    /// it is, when no snapshot is open: its chunk's buffer is reallocated
    /// (for a large buffer the allocator remaps its pages instead of
    /// copying them) and the new elements are `T::default()`. The chunk
    /// keeps its number, so `a` stays the block's address; its pages are
    /// numbered anew at the end (the old numbers are left unused: page
    /// numbers serve the journal only, and none is open). The buffer
    /// moves, so the owner of the block (alone in its chunk) must take
    /// its pointer again ([`Store::block_ptr`]); no other pointer can
    /// point into it. False, nothing done, if a snapshot is open or either
    /// capacity is small: the caller then moves the block. (No free block
    /// of a large class waits while no snapshot is open, "Released
    /// chunks"; before they were released, growing in place while one
    /// waited left it unused, and a program building the same large array
    /// over and over added a chunk at every round: awfy-sieve 1.04 -> 1.48
    /// of lua5.4's time.)
    ///
    /// Growing a table's array this way costs what `realloc` costs
    /// `ltable.c`: allocating the next class and copying into it kept
    /// every smaller class's block on its free list (a table grown to
    /// 2^24 slots held 2^25 slots of blocks) and touched twice the pages.
    pub fn grow_in_place(&mut self, a: Addr, cap: usize, new_cap: usize) -> bool {
        if self.on
            || cap <= Self::PAGE
            || new_cap <= cap
            || !cap.is_power_of_two()
            || Self::class(new_cap) == Self::class(cap)
        {
            return false;
        }
        let new_cap = new_cap.next_power_of_two();
        debug_assert!(self.heads[Self::class(new_cap)] == END);
        let (c, off) = Self::split(a);
        debug_assert!(off == 0 && self.chunks[c].len() == cap.next_power_of_two());
        let old = std::mem::replace(&mut self.chunks[c], Chunk::new(Box::default()));
        let mut v = old.into_box().into_vec();
        let old_len = v.len();
        v.reserve_exact(new_cap - old_len);
        v.resize(new_cap, T::default());
        self.chunks[c] = Chunk::new(v.into_boxed_slice());
        self.elems += new_cap - old_len;
        self.first_pages[c] = self.pages;
        self.pages += Self::pages_of(new_cap);
        self.used_pages += Self::pages_of(new_cap) - Self::pages_of(old_len);
        self.reclaim_page_numbers();
        true
    }

    /// Frees block `a` of capacity `cap` (as passed to `alloc`). A large
    /// block's memory goes back to the allocator if no snapshot is open
    /// (see the module docs, "Released chunks").
    pub fn free(&mut self, a: Addr, cap: usize) {
        if cap == 0 {
            return;
        }
        let k = Self::class(cap);
        if !self.on && Self::class_cap(k) > Self::PAGE {
            self.release(Self::split(a).0);
            return;
        }
        *self.get_mut(a, 0) = T::from_link(self.heads[k]);
        self.heads[k] = a;
    }

    /// The first `len` elements of block `a` (`len` 0: empty, whatever `a`).
    #[inline(always)]
    pub fn slice(&self, a: Addr, len: usize) -> &[T] {
        if len == 0 {
            return &[];
        }
        let (c, off) = Self::split(a);
        &self.chunks[c][off..off + len]
    }

    /// The first `len` elements of block `a`, mutable; journals the pages
    /// they cover.
    #[inline]
    pub fn slice_mut(&mut self, a: Addr, len: usize) -> &mut [T] {
        if len == 0 {
            return &mut [];
        }
        let (c, off) = Self::split(a);
        if self.on {
            let first = off / Self::PAGE;
            let last = (off + len - 1) / Self::PAGE;
            for p in first..=last {
                self.touch(c, p);
            }
        }
        &mut self.chunks[c][off..off + len]
    }

    /// Elements `start..start + len` of block `a`, mutable: journals the
    /// pages of that range only (a `slice_mut` of a block's tail).
    pub fn slice_mut_range(&mut self, a: Addr, start: usize, len: usize) -> &mut [T] {
        if len == 0 {
            return &mut [];
        }
        let (c, off) = Self::split(a);
        let off = off + start;
        if self.on {
            for p in off / Self::PAGE..=(off + len - 1) / Self::PAGE {
                self.touch(c, p);
            }
        }
        &mut self.chunks[c][off..off + len]
    }

    /// [`Store::slice_mut`] when no snapshot is open ([`Store::journaling`]
    /// false: the caller checked), so there are no pages to journal.
    #[inline(always)]
    pub fn slice_mut_unjournaled(&mut self, a: Addr, len: usize) -> &mut [T] {
        debug_assert!(!self.on);
        if len == 0 {
            return &mut [];
        }
        let (c, off) = Self::split(a);
        &mut self.chunks[c][off..off + len]
    }

    /// The address of block `a`'s first element, valid while the block is
    /// allocated and the buffer epoch ([`Store::epoch`]) stays what it is
    /// now (see [`Chunk`]); null for [`EMPTY`]. Reads and writes through
    /// it are the caller's to justify (`table.rs` caches it in each
    /// table's header).
    #[inline]
    pub fn block_ptr(&self, a: Addr) -> *mut T {
        if a == EMPTY {
            return std::ptr::null_mut();
        }
        let (c, off) = Self::split(a);
        self.chunks[c].elem_ptr(off)
    }

    /// [`Store::block_ptr`] out of line (a cold path).
    #[cold]
    #[inline(never)]
    pub fn block_ptr_cold(&self, a: Addr) -> *mut T {
        self.block_ptr(a)
    }

    /// The buffer epoch (see the field's docs).
    #[inline(always)]
    pub fn epoch(&self) -> u16 {
        self.epoch
    }

    /// Whether a pointer of an older epoch may still be held (see the
    /// field's docs).
    #[inline(always)]
    pub fn stale(&self) -> bool {
        self.stale
    }

    /// Records whether every pointer held was taken in the current epoch
    /// (`false`) or some may be older (`true`).
    pub fn set_stale(&mut self, stale: bool) {
        self.stale = stale;
    }

    /// Sets the buffer epoch (tests of its wrap).
    #[cfg(test)]
    pub(crate) fn set_epoch(&mut self, e: u16) {
        self.epoch = e & EPOCH_MASK;
    }

    /// Copies the first `len` elements of block `src` to block `dst` (two
    /// distinct blocks), journaling the pages written.
    pub fn copy_block(&mut self, src: Addr, dst: Addr, len: usize) {
        self.copy_cells(src, 0, dst, 0, len);
    }

    /// Copies elements `from..from + len` of block `src` to `to..to + len`
    /// of block `dst` (two distinct blocks), journaling the pages written.
    pub fn copy_cells(&mut self, src: Addr, from: usize, dst: Addr, to: usize, len: usize) {
        if len == 0 {
            return;
        }
        self.slice_mut(dst, to + len);
        let ((cs, os), (cd, od)) = (Self::split(src), Self::split(dst));
        let (os, od) = (os + from, od + to);
        if cs == cd {
            self.chunks[cs].copy_within(os..os + len, od);
        } else if cs < cd {
            let (lo, hi) = self.chunks.split_at_mut(cd);
            hi[0][od..od + len].copy_from_slice(&lo[cs][os..os + len]);
        } else {
            let (lo, hi) = self.chunks.split_at_mut(cs);
            lo[cd][od..od + len].copy_from_slice(&hi[0][os..os + len]);
        }
    }

    /// Moves elements `from..from + len` of block `a` to `to..to + len`
    /// (the ranges may overlap), journaling the pages written.
    pub fn move_cells(&mut self, a: Addr, from: usize, to: usize, len: usize) {
        if len == 0 || from == to {
            return;
        }
        self.slice_mut(a, to + len);
        let (c, off) = Self::split(a);
        self.chunks[c].copy_within(off + from..off + from + len, off + to);
    }

    /// Element `i` of block `a`.
    #[inline(always)]
    pub fn get(&self, a: Addr, i: usize) -> T {
        let (c, off) = Self::split(a);
        self.chunks[c][off + i]
    }

    /// Element `i` of block `a`, mutable; journals its page.
    #[inline(always)]
    pub fn get_mut(&mut self, a: Addr, i: usize) -> &mut T {
        let (c, off) = Self::split(a);
        let off = off + i;
        if self.on {
            self.touch(c, off / Self::PAGE);
        }
        &mut self.chunks[c][off]
    }

    /// Journals the page of element `i` of block `a` if a snapshot is open
    /// (what [`Store::get_mut`] does before it writes).
    #[inline]
    pub fn journal_at(&mut self, a: Addr, i: usize) {
        if self.on {
            let (c, off) = Self::split(a);
            self.touch(c, (off + i) / Self::PAGE);
        }
    }

    /// Whether a snapshot is open (writes must be journaled).
    #[inline(always)]
    pub fn journaling(&self) -> bool {
        self.on
    }

    /// Saves page `p` of chunk `c` if it is old and not saved at the
    /// innermost level.
    #[inline(always)]
    fn touch(&mut self, c: usize, p: usize) {
        let page = self.first_pages[c] + p as u32;
        if page < self.jr.limit && !self.jr.is_dirty(page) {
            self.save(c, page);
        }
    }

    /// Saves a copy of global page `page` (of chunk `c`) in the innermost
    /// level.
    #[cold]
    #[inline(never)]
    fn save(&mut self, c: usize, page: u32) {
        let mut buf = self.page_buf();
        let chunk = &self.chunks[c];
        let start = (page - self.first_pages[c]) as usize * Self::PAGE;
        let end = chunk.len().min(start + Self::PAGE);
        buf[..end - start].copy_from_slice(&chunk[start..end]);
        self.jr.set_bit(page, true);
        self.jr.entries.push(Saved { page, chunk: c as u32, buf });
    }

    /// A digest of the store's whole layout: page count, free-list heads
    /// and every element of every chunk (`elem` digests one element). Equal
    /// digests mean the same future allocations; tests compare it across a
    /// rollback.
    pub fn layout_digest(&self, elem: impl Fn(&T) -> u64) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |x: u64| h = (h ^ x).wrapping_mul(0x0000_0100_0000_01b3);
        mix(u64::from(self.pages));
        self.heads.iter().for_each(|&x| mix(u64::from(x)));
        for chunk in &self.chunks {
            mix(chunk.len() as u64);
            chunk.iter().for_each(|e| mix(elem(e)));
        }
        h
    }

    /// Bytes reserved by chunks (for reports; not the collector's figure).
    pub fn reserved_bytes(&self) -> usize {
        self.elems * std::mem::size_of::<T>()
    }

    /// Number of retired page buffers kept for reuse (see the module docs).
    #[cfg(test)]
    pub fn pool_len(&self) -> usize {
        self.jr.pool.len()
    }

    /// Opens a journal level.
    pub fn journal_begin(&mut self) {
        let jr = &mut self.jr;
        if let Some(top) = jr.levels.last() {
            jr.mark_entries(top.start, jr.entries.len(), false);
        }
        jr.levels.push(Level {
            pages: self.pages,
            chunks: self.chunks.len() as u32,
            heads: self.heads,
            start: jr.entries.len(),
        });
        jr.limit = self.pages;
        let words = (self.pages as usize).div_ceil(64);
        if jr.dirty.len() < words {
            jr.dirty.resize(words, 0);
        }
        self.on = true;
    }

    /// Undoes every change since level `level` was opened and closes the
    /// levels above it; `level` stays open.
    pub fn journal_rollback_to(&mut self, level: usize) {
        let Some(target) = self.jr.levels.get(level) else {
            return;
        };
        let keep_below = target.pages;
        while self.jr.levels.len() > level {
            self.rollback_top(keep_below);
            if self.jr.levels.len() == level + 1 {
                break;
            }
            self.jr.levels.pop();
        }
        self.jr.limit = keep_below;
    }

    /// Undoes the innermost level's changes; the level stays open. Saved
    /// pages at or above `keep_below` (new to the level being rolled back
    /// to, hence about to be truncated) are not put back.
    fn rollback_top(&mut self, keep_below: u32) {
        let Some(&top) = self.jr.levels.last() else {
            return;
        };
        let bound = self.pages;
        let mut moved = self.chunks.len() > top.chunks as usize;
        let Jr { entries, dirty, pool, .. } = &mut self.jr;
        for s in entries.drain(top.start..) {
            dirty[(s.page / 64) as usize] &= !(1 << (s.page % 64));
            let buf = if s.page < keep_below {
                let c = s.chunk as usize;
                let (buf, swapped) =
                    restore(&mut self.chunks[c], self.first_pages[c], s.page, s.buf, Self::PAGE);
                moved |= swapped;
                buf
            } else {
                s.buf
            };
            if pool.len() < bound as usize {
                pool.push(buf);
            }
        }
        if moved {
            self.epoch = self.epoch.wrapping_add(1) & EPOCH_MASK;
        }
        self.first_pages.truncate(top.chunks as usize);
        for chunk in self.chunks.drain(top.chunks as usize..) {
            self.elems -= chunk.len();
            self.used_pages -= Self::pages_of(chunk.len());
            if chunk.len() == Self::PAGE && pool.len() < bound as usize {
                pool.push(chunk.into_box());
            }
        }
        self.pages = top.pages;
        pool.truncate(self.pages as usize);
        self.heads = top.heads;
    }

    /// Closes level `level` and those above it, keeping the current state.
    pub fn journal_commit_to(&mut self, level: usize) {
        while self.jr.levels.len() > level {
            self.commit_top();
        }
    }

    /// Folds the innermost level into its parent (or ends journaling).
    fn commit_top(&mut self) {
        let bound = self.pages;
        let jr = &mut self.jr;
        let Some(top) = jr.levels.pop() else {
            return;
        };
        jr.mark_entries(top.start, jr.entries.len(), false);
        let Some(parent) = jr.levels.last() else {
            while let Some(s) = jr.entries.pop() {
                jr.retire(s.buf, bound);
            }
            jr.limit = 0;
            self.on = false;
            self.release_free_large();
            return;
        };
        let (pstart, plimit) = (parent.start, parent.pages);
        jr.limit = plimit;
        jr.mark_entries(pstart, top.start, true);
        // Keep, at the front of the moved entries, those the parent needs.
        let mut w = top.start;
        for r in top.start..jr.entries.len() {
            let page = jr.entries[r].page;
            if page < plimit && !jr.is_dirty(page) {
                jr.set_bit(page, true);
                jr.entries.swap(w, r);
                w += 1;
            }
        }
        while jr.entries.len() > w {
            if let Some(s) = jr.entries.pop() {
                jr.retire(s.buf, bound);
            }
        }
    }

    /// Number of open levels.
    #[cfg(test)]
    pub fn journal_depth(&self) -> usize {
        self.jr.levels.len()
    }

    /// Number of pages saved by the open levels.
    pub fn journal_len(&self) -> usize {
        self.jr.entries.len()
    }
}

/// Puts saved page `page` back into `chunk` (whose first page is
/// `first_page`); returns the buffer to retire and whether it was the
/// chunk's own (a one-page chunk, whose buffer is swapped: the caller then
/// moves to a new buffer epoch) rather than the saved copy.
fn restore<T: Copy>(
    chunk: &mut Chunk<T>,
    first_page: u32,
    page: u32,
    buf: Box<[T]>,
    per_page: usize,
) -> (Box<[T]>, bool) {
    if chunk.len() == per_page {
        return (std::mem::replace(chunk, Chunk::new(buf)).into_box(), true);
    }
    let start = (page - first_page) as usize * per_page;
    let end = chunk.len().min(start + per_page);
    chunk[start..end].copy_from_slice(&buf[..end - start]);
    (buf, false)
}

#[cfg(test)]
mod tests;
