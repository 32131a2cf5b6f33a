//! The pseudo-random generator of `math.random` / `math.randomseed`, an
//! exact port of Lua 5.4.4's `lmathlib.c` (64-bit `Rand64` variant).
//!
//! # Design
//!
//! The generator is xoshiro256** over a state of four `u64` words,
//! [`RandomState`]. It is a plain `Copy` value that can be stored anywhere
//! (e.g. in the VM heap, for snapshots) and round-trips through
//! [`RandomState::to_words`] / [`RandomState::from_words`]. Nothing here
//! reads a clock or the OS: seeding is always explicit.
//!
//! * Seeding ([`RandomState::seed`]) is `setseed`: the state becomes
//!   `[n1, 0xff, n2, 0]` and 16 outputs are discarded.
//! * Floats ([`float_from_raw`]) take the top 53 bits of a raw output and
//!   scale them by 2^-53 (`I2d`), giving values in `[0, 1)`.
//! * Integers in `[low, up]` use `project`: if `up - low + 1` is a power of
//!   two the raw value is masked; otherwise it is masked with the smallest
//!   `2^b - 1 >= up - low` and redrawn until it falls in range.
//!
//! # Invariants
//!
//! * A seeded state is never all zeros (word 1 is `0xff` right after
//!   seeding, and xoshiro never reaches the zero state from a non-zero one).
//! * All arithmetic is wrapping/unsigned exactly as in C; no input panics.
//!
//! # How the glue should use this module
//!
//! `math.random(...)`: C draws the raw value *before* checking its
//! arguments, so even a call that fails with an argument error advances
//! the generator. The glue must therefore call `let rv = st.next_raw()`
//! first, then convert the arguments (`luaL_checkinteger`), then call
//! [`RandomState::value_from`] with a [`RandomArgs`] built from the argument
//! count (0, 1, 2, or more = [`RandomArgs::TooMany`]). Errors map as:
//! [`RandomError::IntervalEmpty`] is `bad argument #1 to 'random' (interval
//! is empty)`; [`RandomError::WrongArgCount`] is the plain error `wrong
//! number of arguments`. [`RandomState::random`] does both steps when the
//! arguments are already integers.
//!
//! `math.randomseed(n1 [, n2])`: `n1 = luaL_checkinteger(1)`, `n2 =
//! luaL_optinteger(2, 0)`, then [`RandomState::seed`]; return the two
//! integers it returns. `math.randomseed()` with no arguments: 5.4.4 seeds
//! with `(time(NULL), (size_t)L)` (the address of the Lua state) and
//! returns both; the glue supplies those two numbers (in a deterministic
//! sandbox, fixed ones). When the math library is opened, 5.4.4 also seeds
//! the generator that way.

/// A xoshiro256** generator state, as `RanState` in `lmathlib.c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RandomState {
    s: [u64; 4],
}

/// The arguments of a `math.random` call, already converted to integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandomArgs {
    /// `math.random()`: a float in `[0, 1)`.
    NoArgs,
    /// `math.random(m)`: an integer in `[1, m]`; `m == 0` gives a raw
    /// 64-bit integer.
    Upper(i64),
    /// `math.random(m, n)`: an integer in `[m, n]`.
    Range(i64, i64),
    /// Three or more arguments: an error.
    TooMany,
}

/// A value produced by `math.random`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RandomValue {
    /// A float in `[0, 1)`.
    Float(f64),
    /// An integer.
    Int(i64),
}

/// An error from `math.random`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandomError {
    /// Argument #1 error `interval is empty` (`low > up`).
    IntervalEmpty,
    /// Plain error `wrong number of arguments`.
    WrongArgCount,
}

impl std::fmt::Display for RandomError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::IntervalEmpty => "interval is empty",
            Self::WrongArgCount => "wrong number of arguments",
        })
    }
}

impl std::error::Error for RandomError {}

impl RandomState {
    /// A generator seeded as `math.randomseed(n1, n2)` would.
    pub fn from_seed(n1: i64, n2: i64) -> Self {
        let mut st = Self { s: [0; 4] };
        st.seed(n1, n2);
        st
    }

    /// Rebuilds a state from its four words (see [`Self::to_words`]).
    pub fn from_words(words: [u64; 4]) -> Self {
        Self { s: words }
    }

    /// The four state words, for serialization.
    pub fn to_words(&self) -> [u64; 4] {
        self.s
    }

    /// `setseed`: reseeds the generator and returns the two integers that
    /// `math.randomseed` returns (`n1`, `n2`).
    pub fn seed(&mut self, n1: i64, n2: i64) -> (i64, i64) {
        self.s = [n1 as u64, 0xff, n2 as u64, 0];
        for _ in 0..16 {
            self.next_raw();
        }
        (n1, n2)
    }

    /// `nextrand`: the next raw 64-bit output of xoshiro256**.
    pub fn next_raw(&mut self) -> u64 {
        let [s0, s1, s2, s3] = self.s;
        let s2 = s2 ^ s0;
        let s3 = s3 ^ s1;
        let res = s1.wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        self.s = [s0 ^ s3, s1 ^ s2, s2 ^ (s1 << 17), s3.rotate_left(45)];
        res
    }

    /// `math.random` with integer arguments: draws a raw value, then
    /// computes the result (see [`Self::value_from`]).
    pub fn random(&mut self, args: RandomArgs) -> Result<RandomValue, RandomError> {
        let rv = self.next_raw();
        self.value_from(rv, args)
    }

    /// The result of `math.random` given the raw value `rv` already drawn
    /// for this call. May draw more values (rejection sampling).
    pub fn value_from(&mut self, rv: u64, args: RandomArgs) -> Result<RandomValue, RandomError> {
        let (low, up) = match args {
            RandomArgs::NoArgs => return Ok(RandomValue::Float(float_from_raw(rv))),
            RandomArgs::Upper(0) => return Ok(RandomValue::Int(rv as i64)),
            RandomArgs::Upper(up) => (1, up),
            RandomArgs::Range(low, up) => (low, up),
            RandomArgs::TooMany => return Err(RandomError::WrongArgCount),
        };
        if low > up {
            return Err(RandomError::IntervalEmpty);
        }
        let p = self.project(rv, (up as u64).wrapping_sub(low as u64));
        Ok(RandomValue::Int(p.wrapping_add(low as u64) as i64))
    }

    /// `project`: maps `ran` uniformly into `[0, n]`, drawing new values
    /// while the masked value is out of range.
    pub fn project(&mut self, ran: u64, n: u64) -> u64 {
        if n & n.wrapping_add(1) == 0 {
            return ran & n;
        }
        // The smallest `2^b - 1` not below `n` (C's six shifts and ors);
        // `n > 0` here, as 0 is `2^0 - 1`, answered above.
        let lim = u64::MAX >> n.leading_zeros();
        let mut ran = ran;
        loop {
            ran &= lim;
            if ran <= n {
                return ran;
            }
            ran = self.next_raw();
        }
    }
}

/// `I2d`: converts a raw output to a float in `[0, 1)` using its top 53
/// bits.
pub fn float_from_raw(rv: u64) -> f64 {
    (rv >> 11) as f64 * (0.5 / (1u64 << 52) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ser(r: Result<RandomValue, RandomError>) -> String {
        match r {
            Ok(RandomValue::Int(i)) => format!("i:{i}"),
            Ok(RandomValue::Float(f)) => format!("f:{:016x}", f.to_bits()),
            Err(RandomError::IntervalEmpty) => "A:1:interval is empty".into(),
            Err(RandomError::WrongArgCount) => "E:wrong number of arguments".into(),
        }
    }

    #[test]
    fn generated_sequences() {
        let data = include_str!("../testdata/random.txt");
        let mut st = RandomState::from_seed(0, 0);
        let mut n = 0;
        for line in data.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let num = |i: usize| f[i].parse::<i64>().unwrap();
            let got = match f[0] {
                "S" => {
                    let (a, b) = st.seed(num(1), num(2));
                    format!("{a} {b}")
                }
                "R0" => ser(st.random(RandomArgs::NoArgs)),
                "R1" => ser(st.random(RandomArgs::Upper(num(1)))),
                "R2" => ser(st.random(RandomArgs::Range(num(1), num(2)))),
                "R3" => ser(st.random(RandomArgs::TooMany)),
                "W" => {
                    let w = st.to_words();
                    st = RandomState::from_words(w);
                    continue;
                }
                k => panic!("unknown kind {k}"),
            };
            assert_eq!(got, f[f.len() - 1], "line {line}");
            n += 1;
        }
        assert!(n > 1000, "only {n} cases");
    }

    #[test]
    fn floats_are_in_unit_interval() {
        assert_eq!(float_from_raw(0), 0.0);
        assert!(float_from_raw(u64::MAX) < 1.0);
    }
}
