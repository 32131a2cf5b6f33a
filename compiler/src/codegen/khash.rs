//! The hash of the constant cache's number keys.
//!
//! A data file of a million numbers makes the constant cache (`state.rs`)
//! a map of hundreds of thousands of entries, looked up once per numeral:
//! with std's SipHash, hashing was a tenth of the whole load. The keys are
//! 16 bytes (a type tag and 64 bits), so a single folded multiply (the
//! 64×64→128-bit product of the key mixed with two seeds, its halves
//! xor-ed; the construction of `foldhash`) hashes them well in both the
//! high bits (hashbrown's control bytes) and the low bits (its bucket
//! index).
//!
//! The source is untrusted, so a fixed hash would let a chunk be crafted
//! whose numerals all collide, making the load quadratic. The seeds are
//! therefore secret: each cache draws them from std's `RandomState` (keys
//! from the operating system's randomness), so the colliding set cannot be
//! computed in advance. Nothing observable depends on the seeds: the map is
//! only looked up, never iterated, so the bytecode stays the same for the
//! same source. (String constants keep std's SipHash: they are fewer, and
//! comparing their bytes costs more than hashing them.)

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// Builds [`KHasher`]s with the seeds drawn when it was made.
#[derive(Clone, Debug)]
pub(crate) struct KHashState {
    seeds: [u64; 2],
}

impl KHashState {
    /// Fresh secret seeds.
    pub fn new() -> KHashState {
        let rs = RandomState::new();
        KHashState {
            seeds: [
                rs.hash_one(0x243F_6A88_85A3_08D3u64) | 1,
                rs.hash_one(0x1319_8A2E_0370_7344u64),
            ],
        }
    }
}

impl BuildHasher for KHashState {
    type Hasher = KHasher;
    fn build_hasher(&self) -> KHasher {
        KHasher { seeds: self.seeds, acc: 0 }
    }
}

/// The product of the 64-bit halves of a 128-bit multiplication, folded.
fn folded_multiply(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// Hashes the small integers a number key is written as (`write_u8` for
/// its tag, `write_u64` for its bits); other writes are folded in byte by
/// byte, correctly but slowly (they do not happen).
pub(crate) struct KHasher {
    seeds: [u64; 2],
    acc: u64,
}

impl Hasher for KHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.acc =
            folded_multiply(self.acc ^ i ^ self.seeds[0], self.seeds[1] ^ 0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        folded_multiply(self.acc, self.seeds[0])
    }
}
