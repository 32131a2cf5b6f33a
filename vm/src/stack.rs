//! The value stack of an execution state: a `Vec<Value>` that remembers
//! how far above its length its slots still hold values.
//!
//! Calls and returns move the stack's length by a frame at a time: a call
//! raises it to the callee's `top` (`base + max_stack`), a return lowers it
//! to the caller's. 5.4 writes nothing into the slots a call takes
//! (`luaD_precall` writes only missing parameters): a callee's registers
//! start as whatever earlier frames left there, and its code writes each
//! register before it reads it (the compiler allocates them as a stack).
//! Clearing them cost 7 % of the instructions of `fib` and 1.5-4 % of
//! other call-heavy programs (benches/RESULTS.md, part 12), so we do the
//! same — but a slot above a `Vec`'s length is not a value to Rust, and a
//! stale value may name an object the collector has freed. [`Stack`]
//! therefore keeps `kept`, the end of the slots that still hold values:
//!
//! **Invariant: the slots `len..kept` of the buffer hold values that name
//! no freed object** (`kept <= capacity`; when `kept <= len` nothing is
//! claimed). [`Stack::set_len_keep`] raises the length over them with one
//! store, and writes nil only above `kept`. Everything that could break the
//! invariant forgets them (`kept = 0`):
//!
//! * **lowering the length** keeps it: every slot below the length names
//!   no freed object (the rooting rule in `state.rs`), so `kept` may
//!   rise to the old length (`set_len_keep` does; [`Stack::truncate`]
//!   leaves `kept` as it is, which is also true);
//! * **a reallocation** (a push, an extension or a reservation beyond the
//!   capacity) forgets: `Vec` promises nothing of the spare capacity of a
//!   new buffer;
//! * **the collector's atomic step** forgets the running stack's
//!   (`gc.rs`): the objects only these slots name are not marked, and the
//!   sweep frees them. 5.4 clears its stack above the top in the same step
//!   (`traversethread`). Between two atomic steps, a slot above the length
//!   holds a value that was below it since the last one, hence marked then
//!   or allocated since: not freed by the sweep that follows;
//! * **a state at rest** forgets: a call from Rust that returns to the
//!   bottom of the stack (`call.rs`'s `call_at`) forgets, so that a state
//!   between two calls from Rust (when it may be snapshot, saved, loaded or
//!   hashed) has nothing above its length. What lies there is therefore
//!   not state: snapshots, saved states and the state hash do not carry
//!   it, and a state loaded or rolled back runs exactly as the original;
//! * **a stack stored in its thread** (`corolib.rs`), where the atomic step
//!   does not reach it, is stamped with the state's *stack epoch*, which
//!   both of the above advance: when it runs again it keeps its values only
//!   if the epoch is the same, no atomic step and no return to rest having
//!   come between. (Forgetting at every switch cost coroutine-ring 3.5 %
//!   of its instructions, refilling with nil.)
//!
//! Lua code cannot tell: compiled code writes a register before it reads
//! it, and what the debug library's temporaries and crafted binary chunks
//! may read is a value, as in 5.4 — the same in every run of the same
//! program.

use std::ops::{Deref, DerefMut};

use crate::value::Value;

/// Nils written at once when the stack grows past `kept`: a whole block,
/// so that the next calls that reach a little further find kept slots.
pub(crate) const NIL_BLOCK: usize = 8;

/// A thread's value stack (see the module docs). It reads as the slice of
/// its values below the length.
#[derive(Debug, Default)]
pub struct Stack {
    v: Vec<Value>,
    /// The end of the slots above the length that hold values.
    kept: usize,
    /// The state's stack epoch when the stack was stored in its thread.
    epoch: u64,
}

impl Deref for Stack {
    type Target = [Value];
    #[inline(always)]
    fn deref(&self) -> &[Value] {
        &self.v
    }
}

impl DerefMut for Stack {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Value] {
        &mut self.v
    }
}

/// A copy keeps the capacity and nothing above the length
/// ([`Stack::clone_exact`]).
impl Clone for Stack {
    fn clone(&self) -> Stack {
        self.clone_exact()
    }
}

/// The values of `v`, its capacity kept; nothing above the length.
impl From<Vec<Value>> for Stack {
    fn from(v: Vec<Value>) -> Stack {
        Stack { v, kept: 0, epoch: 0 }
    }
}

impl Stack {
    /// An empty stack with room for `n` values.
    pub fn with_capacity(n: usize) -> Stack {
        Stack { v: Vec::with_capacity(n), kept: 0, epoch: 0 }
    }

    /// A copy of the values below the length, with the same capacity
    /// (which paces the collector, `snapshot.rs`); nothing kept.
    pub fn clone_exact(&self) -> Stack {
        let mut v = Vec::with_capacity(self.v.capacity());
        v.extend_from_slice(&self.v);
        Stack { v, kept: 0, epoch: 0 }
    }

    /// The number of values the buffer holds without reallocating.
    #[inline(always)]
    pub fn capacity(&self) -> usize {
        self.v.capacity()
    }

    /// Forgets the values above the length (see the module docs).
    #[inline]
    pub(crate) fn forget_kept(&mut self) {
        self.kept = 0;
    }

    /// The stack stops running (stored in its thread) at the state's stack
    /// epoch `epoch` (see the module docs).
    #[inline]
    pub(crate) fn park(&mut self, epoch: u64) {
        self.epoch = epoch;
    }

    /// The stack runs again at the state's stack epoch `epoch`: what it
    /// kept stays kept only if no atomic step and no return to rest came
    /// since it was parked (the epoch is the same).
    #[inline]
    pub(crate) fn unpark(&mut self, epoch: u64) {
        if self.epoch != epoch {
            self.kept = 0;
        }
    }

    /// Forgets the values above the length if `extra` more values would
    /// not fit without reallocating.
    #[inline(always)]
    fn before_growth(&mut self, extra: usize) {
        if self.v.capacity() - self.v.len() < extra {
            self.kept = 0;
        }
    }

    /// `Vec::push` (a reallocation forgets what is kept).
    #[inline]
    pub fn push(&mut self, x: Value) {
        self.before_growth(1);
        self.v.push(x);
    }

    /// `Vec::extend_from_slice` (a reallocation forgets what is kept).
    #[inline]
    pub fn extend_from_slice(&mut self, xs: &[Value]) {
        self.before_growth(xs.len());
        self.v.extend_from_slice(xs);
    }

    /// Appends `xs`, values of another stack moved by a coroutine switch
    /// (arguments or results, usually none or one), with one test of the
    /// capacity and a copy word by word ([`crate::execute::load`]): the
    /// slice's `memcpy` was a call and a size dispatch for one value, and
    /// the values were often just written (a reallocation forgets what is
    /// kept).
    #[inline(always)]
    pub(crate) fn extend_from_words(&mut self, xs: &[Value]) {
        self.reserve(xs.len());
        // SAFETY: `xs.len()` slots were just reserved.
        unsafe { self.append_words(xs) }
    }

    /// Appends `xs`, each read word by word ([`crate::execute::load`]),
    /// without testing the capacity.
    ///
    /// # Safety
    ///
    /// The buffer has room for `xs.len()` more values (`reserve`).
    #[inline(always)]
    unsafe fn append_words(&mut self, xs: &[Value]) {
        let len = self.v.len();
        debug_assert!(self.v.capacity() - len >= xs.len());
        // SAFETY: by the contract, each write is within the capacity, and
        // the length covers the values once written.
        unsafe {
            let p = self.v.as_mut_ptr().add(len);
            for (i, x) in xs.iter().enumerate() {
                p.add(i).write(crate::execute::load(x));
            }
            self.v.set_len(len + xs.len());
        }
    }

    /// Pushes a callee and its arguments, with one test of the capacity
    /// (a reallocation forgets what is kept). The arguments come as an
    /// array, written after the one reservation without further tests: a
    /// slice's copy was a call to `memcpy`, and `push` and `extend` tested
    /// the capacity again (`callgrind`, `x = o + o` with a Lua `__add`:
    /// 29 instructions fewer per metamethod call).
    #[inline(always)]
    pub(crate) fn push_call<const N: usize>(&mut self, f: Value, args: &[Value; N]) {
        self.reserve(1 + N);
        let len = self.v.len();
        // SAFETY: `1 + N` slots are reserved past `len`: each write is
        // within the capacity, and the length covers them once written.
        unsafe {
            let p = self.v.as_mut_ptr().add(len);
            p.write(f);
            p.add(1).cast::<[Value; N]>().write(*args);
            self.v.set_len(len + 1 + N);
        }
    }

    /// Pushes a callee and its arguments for a nested call from Rust,
    /// with one test of the capacity, reading each argument word by word
    /// ([`crate::execute::load`]): a native passes values it has just
    /// built, and a plain copy reads them with 16-byte loads, which wait
    /// for narrower stores to reach the cache.
    #[inline(always)]
    pub(crate) fn push_call_words(&mut self, f: Value, args: &[Value]) {
        self.reserve(1 + args.len());
        self.v.push(f);
        // SAFETY: `1 + args.len()` slots were reserved, one taken by `f`.
        unsafe { self.append_words(args) }
    }

    /// `Vec::insert` (a reallocation forgets what is kept).
    #[inline]
    pub fn insert(&mut self, at: usize, x: Value) {
        self.before_growth(1);
        self.v.insert(at, x);
    }

    /// `Vec::reserve` (a reallocation forgets what is kept).
    #[inline]
    pub fn reserve(&mut self, extra: usize) {
        self.before_growth(extra);
        self.v.reserve(extra);
    }

    /// Lowers the length to `n` (nothing if it is not above it). The
    /// values above stay, but are not kept (see the module docs).
    #[inline(always)]
    pub fn truncate(&mut self, n: usize) {
        self.v.truncate(n);
    }

    /// `Vec::resize`.
    pub fn resize(&mut self, n: usize, x: Value) {
        let len = self.v.len();
        if n > len {
            self.before_growth(n - len);
        }
        self.v.resize(n, x);
    }

    /// Sets the length to `n`, new slots nil: `resize(n, nil)`, written so
    /// that the nils are stored as constants. (`Vec::resize` is not
    /// inlined and copies its fill value from a stack temporary with
    /// 16-byte loads that cannot be store-forwarded from the 8-byte store
    /// that wrote it: a stall per slot, 28% of `fib` once.)
    #[inline(always)]
    pub(crate) fn set_len_nil(&mut self, n: usize) {
        let len = self.v.len();
        if n <= len {
            self.v.truncate(n);
        } else {
            let k = n - len;
            self.reserve(k);
            for slot in &mut self.v.spare_capacity_mut()[..k] {
                slot.write(Value::Nil);
            }
            // SAFETY: `reserve` made room for `k` more values and the loop
            // initialized the `k` slots above the length (a nil is a valid
            // `Value`, its unused payload bytes are padding).
            unsafe { self.v.set_len(n) };
        }
    }

    /// Sets the length to `n`: the slots below the old length keep their
    /// values, and so do those above it up to `kept` (see the module
    /// docs); the rest are nil. The old length's slots are kept from then
    /// on. One test and two stores, unless the stack grows past `kept`.
    #[inline(always)]
    pub(crate) fn set_len_keep(&mut self, n: usize) {
        let kept = self.kept.max(self.v.len());
        if n <= kept {
            self.kept = kept;
            // SAFETY: `n <= kept <= capacity`, and the slots below `kept`
            // are initialized: below the old length as the vector's, above
            // it by the invariant of the module docs.
            unsafe { self.v.set_len(n) }
        } else {
            self.grow_keep(n);
        }
    }

    /// Sets the stack to a Lua frame's extent, `top`, its arguments ending
    /// at `args_end` and its fixed parameters at `params_end`: missing
    /// parameters nil, the registers above them kept ([`set_len_keep`]),
    /// as 5.4's `luaD_precall`.
    ///
    /// [`set_len_keep`]: Stack::set_len_keep
    #[inline(always)]
    pub(crate) fn enter_frame(&mut self, args_end: usize, params_end: usize, top: usize) {
        self.set_len_keep(top);
        let mut s = args_end;
        while s < params_end {
            self.v[s] = Value::Nil;
            s += 1;
        }
    }

    /// [`Stack::enter_frame`] with the nils above `kept` written inline, in
    /// blocks of [`NIL_BLOCK`] slots, when the capacity allows: for the
    /// paths outside the dispatch loop (`push_lua_frame`, which calls from
    /// Rust take), where the first call after a return to rest always
    /// grows past `kept` and the out-of-line call to `grow_keep` cost
    /// 4 ns a call from Rust (`benches/boundary`).
    #[inline(always)]
    pub(crate) fn enter_frame_filling(&mut self, args_end: usize, params_end: usize, top: usize) {
        let kept = self.kept.max(self.v.len());
        if top > kept && top + NIL_BLOCK <= self.v.capacity() {
            self.kept = self.fill_nil_blocks(kept, top);
        }
        self.enter_frame(args_end, params_end, top);
    }

    /// Writes nil into whole blocks of [`NIL_BLOCK`] slots from `from`
    /// until past `top`, and returns where the nils end. `from` is at
    /// least the length and `top + NIL_BLOCK` at most the capacity.
    #[inline(always)]
    fn fill_nil_blocks(&mut self, from: usize, top: usize) -> usize {
        assert!(from >= self.v.len() && top + NIL_BLOCK <= self.v.capacity());
        let p = self.v.as_mut_ptr();
        let mut i = from;
        while i < top {
            for j in 0..NIL_BLOCK {
                // SAFETY: `i < top` at every block, so `i + j < top +
                // NIL_BLOCK <= capacity` (asserted): a slot of the
                // allocation, above the length, written (not read) as a
                // valid `Value`.
                unsafe { p.add(i + j).write(Value::Nil) };
            }
            i += NIL_BLOCK;
        }
        i
    }

    /// [`Stack::set_len_keep`] past `kept`: nil from `kept` (from the
    /// length, if the buffer moves) up to `n`, in blocks of
    /// [`NIL_BLOCK`] slots that stay kept.
    #[cold]
    #[inline(never)]
    fn grow_keep(&mut self, n: usize) {
        let len = self.v.len();
        if n + NIL_BLOCK > self.v.capacity() {
            self.reserve(n + NIL_BLOCK - len);
        }
        let from = self.kept.max(len);
        self.kept = self.fill_nil_blocks(from, n);
        // SAFETY: `n <= capacity`; the slots from the length up to `from`
        // were kept (initialized), those from `from` past `n` were just
        // written.
        unsafe { self.v.set_len(n) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.raw_eq_interned(*y))
    }

    fn stack(len: usize, spare: usize) -> Stack {
        let mut st = Stack::with_capacity(len + spare);
        for i in 0..len {
            st.push(Value::Int(i as i64 + 1));
        }
        st
    }

    /// `set_len_keep` brings back exactly the values below the highest
    /// length since the last reallocation or `forget_kept`, and nil above.
    #[test]
    fn set_len_keep_brings_back_the_old_values_and_nil_above() {
        let steps: &[usize] =
            if cfg!(miri) { &[3, 9, 1, 20] } else { &[3, 9, 1, 20, 0, 40, 2, 41] };
        for len in 0..12 {
            for spare in [0, 1, NIL_BLOCK, 3 * NIL_BLOCK] {
                let mut st = stack(len, spare);
                // The model: every value ever below the length, by slot.
                let mut model: Vec<Value> = st.to_vec();
                for &n in steps {
                    let (cap, old) = (st.capacity(), st.len());
                    st.set_len_keep(n);
                    if st.capacity() != cap {
                        // A new buffer: only what was below the length.
                        model.truncate(old);
                    }
                    let want: Vec<Value> =
                        (0..n).map(|i| model.get(i).copied().unwrap_or(Value::Nil)).collect();
                    assert!(same(&st, &want), "len {len} spare {spare} to {n}: {st:?}");
                    model.resize(model.len().max(n), Value::Nil);
                    // Write the new slots, as a callee would.
                    for (i, slot) in st.iter_mut().enumerate() {
                        if slot.is_nil() {
                            *slot = Value::Int(100 + i as i64);
                            model[i] = *slot;
                        }
                    }
                }
            }
        }
    }

    /// `enter_frame_filling` and `enter_frame` give the same stack: the
    /// arguments, nil for missing parameters, kept values above, nil past
    /// what was kept; and both leave the same slots kept.
    #[test]
    fn both_ways_of_entering_a_frame_agree() {
        for spare in [0, 3, NIL_BLOCK, 4 * NIL_BLOCK] {
            for kept_to in [2, 6, 13] {
                for (args, params, top) in [(3, 3, 9), (3, 5, 9), (4, 2, 20), (2, 2, 2)] {
                    let build = || {
                        let mut st = stack(kept_to, spare);
                        st.set_len_keep(1);
                        for s in st.iter_mut() {
                            *s = Value::Int(-1);
                        }
                        st.set_len_keep(args);
                        st
                    };
                    let (mut a, mut b) = (build(), build());
                    a.enter_frame(args, params, top);
                    b.enter_frame_filling(args, params, top);
                    assert!(same(&a, &b), "{a:?} {b:?}");
                    a.set_len_keep(0);
                    b.set_len_keep(0);
                    let end = a.kept.min(b.kept).min(a.capacity()).min(b.capacity());
                    a.set_len_keep(end);
                    b.set_len_keep(end);
                    assert!(same(&a, &b), "kept: {a:?} {b:?}");
                }
            }
        }
    }

    /// `extend_from_words` leaves the stack `extend_from_slice` leaves:
    /// the same values, the same capacity (which paces the collector),
    /// and the same slots kept above the length (none after a
    /// reallocation).
    #[test]
    fn extending_word_by_word_is_extending() {
        for len in [0, 1, 5] {
            for spare in [0, 1, 2, 8] {
                for n in [0, 1, 2, 3, 9] {
                    let xs: Vec<Value> = (0..n).map(|i| Value::Int(50 + i as i64)).collect();
                    let build = || {
                        let mut st = stack(len + 2, spare);
                        st.set_len_keep(len);
                        st
                    };
                    let (mut a, mut b) = (build(), build());
                    a.extend_from_words(&xs);
                    b.extend_from_slice(&xs);
                    assert!(same(&a, &b), "len {len} spare {spare} n {n}: {a:?} {b:?}");
                    assert_eq!((a.capacity(), a.kept), (b.capacity(), b.kept));
                }
            }
        }
    }

    /// After `forget_kept`, raising the length gives nils.
    #[test]
    fn forgotten_slots_come_back_nil() {
        let mut st = stack(10, 10);
        st.set_len_keep(2);
        st.forget_kept();
        st.set_len_keep(10);
        assert!(st[..2].iter().all(|v| !v.is_nil()));
        assert!(st[2..].iter().all(|v| v.is_nil()));
    }
}
