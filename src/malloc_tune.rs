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
//! The binaries call [`tune`] first thing; the VM, a library, leaves the
//! process's allocator to its embedder.

/// Sets glibc's top pad (see the module docs); nothing elsewhere.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of glibc's allocator, called
    // before this process allocates from another thread; any value is
    // valid for M_TOP_PAD.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 1 << 20);
    }
}
