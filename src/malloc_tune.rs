//! glibc's heap trimming, tuned for an interpreter's garbage.
//!
//! glibc returns the top of its heap to the system (`brk` down) whenever a
//! `free` leaves more than `M_TRIM_THRESHOLD` (128 KB) free there, keeping
//! only `M_TOP_PAD` (128 KB by default) above the break. A collector frees
//! in bursts, and a program that builds strings of growing length
//! (`out = out .. c`, each a little longer than the one freed before)
//! frees at the top of the heap again and again: each sweep step then gave
//! a page back, and the next allocations faulted it in again. Pallene's
//! `conway` made 78,000 page faults and spent 0.27 s of its 1.7 s in the
//! kernel so; lua5.4, 270 faults. With a 1 MB pad the break moves in
//! steps of a megabyte, and the same run makes about 600 faults with no
//! system time (`benches/RESULTS.md`, part 17). The pad is at most 1 MB
//! of memory kept, not touched until used.
//!
//! Setting the pad turns off glibc's *dynamic* thresholds, though. By
//! default a `free` of a block that glibc had mapped apart (128 KB or
//! more) raises the size above which blocks are mapped apart to that
//! block's size, up to 32 MB, and the trim threshold to twice that: a
//! program that builds and drops a 2 MB table at every round then reuses
//! heap memory. With fixed thresholds each such block was mapped, faulted
//! in page by page and unmapped again: since the table store gives large
//! blocks back (`vm/src/store.rs`, "Released chunks"), Pallene's `sieve`
//! made 154,000 page faults against lua5.4's 2,900 (`benches/RESULTS.md`,
//! part 33). So [`tune`] sets both thresholds: blocks of 4 MB or more are
//! mapped apart, and a free leaves up to 8 MB at the top of the heap.
//! Where the dynamic ones end (32 MB and 64 MB) the heap kept more:
//! Pallene's `binsearch` held 53 MB against 37 MB before and lua5.4's
//! 35 MB, LuaJIT's `revcomp` 76 MB against 58 MB; at 4 and 8 MB they hold
//! 39 and 62 MB, and `sieve` makes as few faults. A 5 M-element table's
//! 128 MB block is mapped apart and unmapped when freed.
//!
//! The binaries call [`tune`] first thing; the VM, a library, leaves the
//! process's allocator to its embedder.

/// Sets glibc's top pad and thresholds (see the module docs); nothing
/// elsewhere.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets parameters of glibc's allocator, called
    // before this process allocates from another thread; any value is
    // valid for these three.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 1 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
    }
}
