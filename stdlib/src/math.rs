//! The `math` library, a port of Lua 5.4.4's `lmathlib.c`.
//!
//! # Design
//!
//! Each function is a small native that reproduces its C counterpart's
//! argument handling exactly, because that decides integer-versus-float
//! results: `lua_isinteger` is true only for *integer values* (a numeric
//! string is not one), so `math.floor("3")` goes through the float path
//! (and still returns the integer 3, as `pushnumint` does), while
//! `math.abs("-3")` returns the float `3.0`. `luaL_checknumber` converts
//! integers and numeric strings to a float (`num`).
//!
//! Transcendental functions use Rust's `f64` methods, which call the
//! platform's libm (glibc on Linux), so results match lua5.4 bit for bit.
//!
//! Like Debian's `lua5.4` (built with `LUA_COMPAT_5_3`, hence
//! `LUA_COMPAT_MATHLIB`), the library also has the deprecated `atan2`,
//! `cosh`, `sinh`, `tanh`, `pow`, `frexp`, `ldexp` and `log10`.
//!
//! # The generator state lives in the VM heap
//!
//! `math.random` and `math.randomseed` share one upvalue: a table whose
//! array part holds the four xoshiro256** words as integers (see
//! [`crate::random`]). Every call reads the words, advances the generator
//! and writes them back, so a heap snapshot captures the generator and a
//! restored world continues the same sequence. A second upvalue records
//! the seeding mode (`true` for [`Seeding::Deterministic`]).
//!
//! * [`Seeding::Deterministic`] seeds as `math.randomseed(0)` would, and
//!   `math.randomseed()` without arguments reseeds from two draws of the
//!   generator itself: deterministic across processes, but not a reset.
//! * [`Seeding::FromEnvironment`] seeds like `lua.c`: the time in seconds
//!   and an address-like number; `math.randomseed()` does the same again.
//!
//! # Invariants
//!
//! * No input panics: integer arithmetic wraps as in C (`math.abs` of
//!   `math.mininteger` is `math.mininteger`), `fmod` special-cases `-1`
//!   and `0` before dividing.
//! * The state table always holds four integers (a seeded state is never
//!   all zeros).

use crate::random::{RandomArgs, RandomError, RandomState, RandomValue};
use luprex_vm::raw::number::{float_to_int, F2I};
use luprex_vm::raw::TableRef;
use luprex_vm::raw::{Action, Error, NativeFn, State, Value};

type R = Result<Action, Error>;

/// How `math.random`'s generator is seeded when the library opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seeding {
    /// A fixed seed (sandboxed worlds: deterministic across processes).
    Deterministic,
    /// From the clock and process, as lua.c does (standalone scripts).
    FromEnvironment,
}

/// The seed of [`Seeding::Deterministic`] (`math.randomseed(0)`).
const FIXED_SEED: (i64, i64) = (0, 0);

/// Opens the library: the `math` global and `package.loaded.math`.
pub fn open(st: &mut State, seeding: Seeding) -> Result<(), Error> {
    let t = st.new_table_sized(0, 48);
    let fns: &[(&str, &'static str, NativeFn)] = &[
        ("abs", "math.abs", abs),
        ("acos", "math.acos", acos),
        ("asin", "math.asin", asin),
        ("atan", "math.atan", atan),
        ("ceil", "math.ceil", ceil),
        ("cos", "math.cos", cos),
        ("deg", "math.deg", deg),
        ("exp", "math.exp", exp),
        ("tointeger", "math.tointeger", tointeger),
        ("floor", "math.floor", floor),
        ("fmod", "math.fmod", fmod),
        ("ult", "math.ult", ult),
        ("log", "math.log", log),
        ("max", "math.max", max),
        ("min", "math.min", min),
        ("modf", "math.modf", modf),
        ("rad", "math.rad", rad),
        ("sin", "math.sin", sin),
        ("sqrt", "math.sqrt", sqrt),
        ("tan", "math.tan", tan),
        ("type", "math.type", type_),
        ("atan2", "math.atan2", atan),
        ("cosh", "math.cosh", cosh),
        ("sinh", "math.sinh", sinh),
        ("tanh", "math.tanh", tanh),
        ("pow", "math.pow", pow),
        ("frexp", "math.frexp", frexp),
        ("ldexp", "math.ldexp", ldexp),
        ("log10", "math.log10", log10),
    ];
    for &(field, name, f) in fns {
        st.set_native_field(t, field, name, f);
    }
    set_field(st, t, "pi", Value::Float(std::f64::consts::PI));
    set_field(st, t, "huge", Value::Float(f64::INFINITY));
    set_field(st, t, "maxinteger", Value::Int(i64::MAX));
    set_field(st, t, "mininteger", Value::Int(i64::MIN));
    open_random(st, t, seeding);
    st.set_global("math", Value::Table(t));
    let loaded = st.loaded_table();
    let k = st.intern(b"math");
    st.raw_set_str(loaded, k, Value::Table(t));
    Ok(())
}

fn set_field(st: &mut State, t: TableRef, field: &str, v: Value) {
    let k = st.intern(field.as_bytes());
    st.raw_set_str(t, k, v);
}

/// Creates the generator state table and the two random functions.
fn open_random(st: &mut State, t: TableRef, seeding: Seeding) {
    let state = st.new_table_sized(4, 0);
    let deterministic = seeding == Seeding::Deterministic;
    let (n1, n2) = if deterministic { FIXED_SEED } else { environment_seed(st) };
    store_state(st, state, &RandomState::from_seed(n1, n2));
    let ups = vec![Value::Table(state), Value::Bool(deterministic)];
    for (field, name, f) in [
        ("random", "math.random", random as NativeFn),
        ("randomseed", "math.randomseed", randomseed as NativeFn),
    ] {
        let id = st.native_id(name, f);
        let v = st.new_rust_closure(id, ups.clone());
        set_field(st, t, field, v);
    }
}

/// `randseed` of lua.c: the time in seconds and an address-like number.
fn environment_seed(st: &State) -> (i64, i64) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let addr = st as *const State as usize;
    (secs as i64, addr as i64)
}

// ----- helpers ---------------------------------------------------------

fn ret1(st: &mut State, v: Value) -> R {
    st.push(v);
    Ok(Action::Return(1))
}

/// `luaL_checknumber`: the argument as a float (integers and numeric
/// strings convert).
fn num(st: &mut State, i: usize) -> Result<f64, Error> {
    Ok(match st.check_number(i)? {
        Value::Int(n) => n as f64,
        Value::Float(f) => f,
        _ => 0.0,
    })
}

/// `luaL_optnumber`.
fn opt_num(st: &mut State, i: usize, default: f64) -> Result<f64, Error> {
    if st.arg(i).is_nil() {
        Ok(default)
    } else {
        num(st, i)
    }
}

/// `pushnumint`: an integer if the (integral) float fits
/// (`lua_numbertointeger`), else the float.
fn num_or_int(d: f64) -> Value {
    float_to_int(d, F2I::Exact).map_or(Value::Float(d), Value::Int)
}

/// A native computing a float from one float argument.
fn float1(st: &mut State, f: fn(f64) -> f64) -> R {
    let x = num(st, 1)?;
    ret1(st, Value::Float(f(x)))
}

// ----- the functions ---------------------------------------------------

fn abs(st: &mut State) -> R {
    if let Value::Int(n) = st.arg(1) {
        return ret1(st, Value::Int(n.wrapping_abs()));
    }
    float1(st, f64::abs)
}

fn sin(st: &mut State) -> R {
    float1(st, f64::sin)
}

fn cos(st: &mut State) -> R {
    float1(st, f64::cos)
}

fn tan(st: &mut State) -> R {
    float1(st, f64::tan)
}

fn asin(st: &mut State) -> R {
    float1(st, f64::asin)
}

fn acos(st: &mut State) -> R {
    float1(st, f64::acos)
}

fn atan(st: &mut State) -> R {
    let y = num(st, 1)?;
    let x = opt_num(st, 2, 1.0)?;
    ret1(st, Value::Float(y.atan2(x)))
}

fn tointeger(st: &mut State) -> R {
    let v = st.arg(1);
    match st.to_integer(v) {
        Some(n) => ret1(st, Value::Int(n)),
        None => {
            st.check_any(1)?;
            ret1(st, Value::Nil)
        }
    }
}

/// 2^63, exact as a double: integers as floats lie in [-2^63, 2^63).
const TWO_63: f64 = -(i64::MIN as f64);

/// `floor(x)` as an integer for a float `x` in [-2^63, 2^63), without
/// libm's `floor` call: truncation (`as`, exact in that range) corrected
/// down by one for negative non-integers. `None` outside the range and
/// for NaN, where `math.floor` returns a float.
#[inline]
fn floor_to_int(x: f64) -> Option<i64> {
    if !(-TWO_63..TWO_63).contains(&x) {
        return None;
    }
    let t = x as i64;
    Some(if (t as f64) > x { t - 1 } else { t })
}

/// `ceil(x)` as an integer, as [`floor_to_int`]: `-floor(-x)` would
/// overflow at -2^63, so truncation is corrected up instead.
#[inline]
fn ceil_to_int(x: f64) -> Option<i64> {
    // (-2^63, 2^63): -2^63 itself, an integer, is left to the float path.
    if !(x > -TWO_63 && x < TWO_63) {
        return None;
    }
    let t = x as i64;
    Some(if (t as f64) < x { t + 1 } else { t })
}

/// `math.floor` and `math.ceil`: an integer argument as it is, else the
/// number rounded by `to_int` (no libm call) or, outside the integer
/// range, by libm's `round`, as an integer if it fits.
fn round_by(st: &mut State, to_int: fn(f64) -> Option<i64>, round: fn(f64) -> f64) -> R {
    let x = match st.arg(1) {
        v @ Value::Int(_) => return ret1(st, v),
        Value::Float(f) => f,
        _ => num(st, 1)?,
    };
    ret1(st, to_int(x).map_or_else(|| num_or_int(round(x)), Value::Int))
}

fn floor(st: &mut State) -> R {
    round_by(st, floor_to_int, f64::floor)
}

fn ceil(st: &mut State) -> R {
    round_by(st, ceil_to_int, f64::ceil)
}

fn fmod(st: &mut State) -> R {
    if let (Value::Int(a), Value::Int(d)) = (st.arg(1), st.arg(2)) {
        if (d as u64).wrapping_add(1) <= 1 {
            if d == 0 {
                return Err(st.arg_error(2, "zero"));
            }
            return ret1(st, Value::Int(0));
        }
        return ret1(st, Value::Int(a % d));
    }
    let a = num(st, 1)?;
    let b = num(st, 2)?;
    ret1(st, Value::Float(a % b))
}

fn modf(st: &mut State) -> R {
    if let v @ Value::Int(_) = st.arg(1) {
        st.push(v);
        st.push(Value::Float(0.0));
        return Ok(Action::Return(2));
    }
    let n = num(st, 1)?;
    let ip = if n < 0.0 { n.ceil() } else { n.floor() };
    st.push(num_or_int(ip));
    st.push(Value::Float(if n == ip { 0.0 } else { n - ip }));
    Ok(Action::Return(2))
}

fn sqrt(st: &mut State) -> R {
    float1(st, f64::sqrt)
}

fn ult(st: &mut State) -> R {
    let a = st.check_int(1)?;
    let b = st.check_int(2)?;
    ret1(st, Value::Bool((a as u64) < (b as u64)))
}

fn log(st: &mut State) -> R {
    let x = num(st, 1)?;
    let res = if st.arg(2).is_nil() {
        x.ln()
    } else {
        let base = num(st, 2)?;
        if base == 2.0 {
            x.log2()
        } else if base == 10.0 {
            x.log10()
        } else {
            x.ln() / base.ln()
        }
    };
    ret1(st, Value::Float(res))
}

fn exp(st: &mut State) -> R {
    float1(st, f64::exp)
}

fn deg(st: &mut State) -> R {
    float1(st, |x| x * (180.0 / std::f64::consts::PI))
}

fn rad(st: &mut State) -> R {
    float1(st, |x| x * (std::f64::consts::PI / 180.0))
}

/// `math.min` / `math.max`: the argument that wins `lua_compare(LT)`.
fn min_max(st: &mut State, want_max: bool) -> R {
    let n = st.nargs();
    if n < 1 {
        return Err(st.arg_error(1, "value expected"));
    }
    let mut best = st.arg(1);
    for i in 2..=n {
        let v = st.arg(i);
        let (a, b) = if want_max { (best, v) } else { (v, best) };
        if st.less_value(a, b, false)? {
            best = v;
        }
    }
    ret1(st, best)
}

fn min(st: &mut State) -> R {
    min_max(st, false)
}

fn max(st: &mut State) -> R {
    min_max(st, true)
}

fn type_(st: &mut State) -> R {
    let name: &[u8] = match st.arg(1) {
        Value::Int(_) => b"integer",
        Value::Float(_) => b"float",
        _ => {
            st.check_any(1)?;
            return ret1(st, Value::Nil);
        }
    };
    let s = st.new_string(name);
    ret1(st, s)
}

// ----- deprecated functions (LUA_COMPAT_MATHLIB) -----------------------

fn cosh(st: &mut State) -> R {
    float1(st, f64::cosh)
}

fn sinh(st: &mut State) -> R {
    float1(st, f64::sinh)
}

fn tanh(st: &mut State) -> R {
    float1(st, f64::tanh)
}

fn pow(st: &mut State) -> R {
    let x = num(st, 1)?;
    let y = num(st, 2)?;
    ret1(st, Value::Float(x.powf(y)))
}

fn log10(st: &mut State) -> R {
    float1(st, f64::log10)
}

/// `frexp`: mantissa in `[0.5, 1)` and exponent, as C's `frexp`.
fn frexp(st: &mut State) -> R {
    let x = num(st, 1)?;
    let (m, e) = frexp_f64(x);
    st.push(Value::Float(m));
    st.push(Value::Int(i64::from(e)));
    Ok(Action::Return(2))
}

fn frexp_f64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp_f64(x * f64::from_bits(0x4350_0000_0000_0000)); // 2^54
        return (m, e - 54);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

fn ldexp(st: &mut State) -> R {
    let x = num(st, 1)?;
    let e = st.check_int(2)? as i32;
    ret1(st, Value::Float(ldexp_f64(x, e)))
}

/// `scalbn` (musl's algorithm): `x * 2^n` with a single rounding.
fn ldexp_f64(x: f64, n: i32) -> f64 {
    let two = |k: i32| f64::from_bits(((k + 1023) as u64) << 52);
    let (mut y, mut n) = (x, n);
    if n > 1023 {
        y *= two(1023);
        n -= 1023;
        if n > 1023 {
            y *= two(1023);
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        // Keep the final factor below 2^-53 to avoid double rounding.
        y *= two(-1022) * two(53);
        n += 1022 - 53;
        if n < -1022 {
            y *= two(-1022) * two(53);
            n = (n + 1022 - 53).max(-1022);
        }
    }
    y * two(n)
}

// ----- random ------------------------------------------------------------

/// The state table of the running random native (upvalue 0).
fn state_table(st: &State) -> Option<TableRef> {
    match st.native_upvalue(0) {
        Value::Table(t) => Some(t),
        _ => None,
    }
}

fn load_state(st: &State, t: TableRef) -> RandomState {
    let tab = st.table(t);
    let word = |v: Option<&Value>| match v {
        Some(&Value::Int(n)) => n as u64,
        _ => 0,
    };
    // The four words are the array part's first slots (the state table is
    // made so); anything else reads as `get_int` would.
    if let Some(a) = tab.array().get(..4) {
        return RandomState::from_words([
            word(a.first()),
            word(a.get(1)),
            word(a.get(2)),
            word(a.get(3)),
        ]);
    }
    let w = |i| word(Some(&tab.get_int(i)));
    RandomState::from_words([w(1), w(2), w(3), w(4)])
}

fn store_state(st: &mut State, t: TableRef, rs: &RandomState) {
    let vals = rs.to_words().map(|w| Value::Int(w as i64));
    if !st.set_ints_in_array(t, 1, &vals) {
        for (i, v) in vals.into_iter().enumerate() {
            st.raw_set_int(t, i as i64 + 1, v);
        }
    }
}

/// `math.random`'s arguments.
fn random_args(st: &mut State) -> Result<RandomArgs, Error> {
    Ok(match st.nargs() {
        0 => RandomArgs::NoArgs,
        1 => RandomArgs::Upper(st.check_int(1)?),
        2 => {
            let low = st.check_int(1)?;
            RandomArgs::Range(low, st.check_int(2)?)
        }
        _ => RandomArgs::TooMany,
    })
}

fn random(st: &mut State) -> R {
    let Some(t) = state_table(st) else { return Err(st.native_error("invalid random state")) };
    let mut rs = load_state(st, t);
    let rv = rs.next_raw();
    // The draw happens before the arguments are checked (as in C): the
    // state is stored once, after the projection or before an error.
    let v = match random_args(st).map(|args| rs.value_from(rv, args)) {
        Ok(Ok(RandomValue::Float(f))) => Value::Float(f),
        Ok(Ok(RandomValue::Int(i))) => Value::Int(i),
        Ok(Err(e)) => {
            store_state(st, t, &rs);
            return Err(match e {
                RandomError::IntervalEmpty => st.arg_error(1, "interval is empty"),
                e @ RandomError::WrongArgCount => st.native_error(e.to_string()),
            });
        }
        Err(e) => {
            store_state(st, t, &rs);
            return Err(e);
        }
    };
    store_state(st, t, &rs);
    ret1(st, v)
}

fn randomseed(st: &mut State) -> R {
    let Some(t) = state_table(st) else { return Err(st.native_error("invalid random state")) };
    let mut rs = load_state(st, t);
    let (n1, n2) = if st.arg_is_none(1) {
        if st.native_upvalue(1).truthy() {
            (rs.next_raw() as i64, rs.next_raw() as i64)
        } else {
            environment_seed(st)
        }
    } else {
        let n1 = st.check_int(1)?;
        (n1, st.opt_int(2, 0)?)
    };
    let (a, b) = rs.seed(n1, n2);
    store_state(st, t, &rs);
    st.push(Value::Int(a));
    st.push(Value::Int(b));
    Ok(Action::Return(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp_f64(8.0), (0.5, 4));
        assert_eq!(frexp_f64(-3.0), (-0.75, 2));
        assert_eq!(frexp_f64(0.0), (0.0, 0));
        assert_eq!(frexp_f64(f64::MIN_POSITIVE / 4.0), (0.5, -1023));
    }

    #[test]
    fn ldexp_matches_c() {
        assert_eq!(ldexp_f64(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp_f64(1.0, -1074), f64::from_bits(1));
        assert_eq!(ldexp_f64(1.0, -1075), 0.0);
        assert_eq!(ldexp_f64(0.75, 3), 6.0);
        assert_eq!(ldexp_f64(f64::MAX, -2000), f64::MAX / 2f64.powi(1000) / 2f64.powi(1000));
    }

    #[test]
    fn int_conversion_bounds() {
        assert!(matches!(num_or_int(-0.0), Value::Int(0)));
        assert!(matches!(num_or_int(9.3e18), Value::Float(_)));
        assert!(matches!(num_or_int(-9_223_372_036_854_775_808.0), Value::Int(i64::MIN)));
    }

    /// The libm-free paths of `math.floor` and `math.ceil` agree with
    /// `floor`/`ceil` followed by the exact conversion, at the range's
    /// edges, around integers of both signs, and on special values.
    #[test]
    fn floor_ceil_to_int_match_libm() {
        let two63 = TWO_63;
        assert_eq!(two63, 2f64.powi(63));
        let mut xs = vec![0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, -1e-300, 1e-300];
        xs.extend([2.0 - f64::EPSILON, 4503599627370495.5, -4503599627370495.5]);
        xs.extend([4503599627370496.0, -4503599627370497.0, f64::MIN_POSITIVE]);
        xs.extend([two63, -two63, two63 * 2.0, -two63 * 2.0, f64::MAX, f64::MIN]);
        xs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        for k in [-two63, two63] {
            let (down, up) = (f64::from_bits(k.to_bits() - 1), f64::from_bits(k.to_bits() + 1));
            xs.extend([down, up, -down, -up]);
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            xs.push(f64::from_bits(seed));
            xs.push((seed as i64 >> (seed % 60)) as f64 / 7.0);
        }
        let exact = |d: f64| float_to_int(d, F2I::Exact);
        let small = |x: f64| x.abs() < 4503599627370496.0;
        for x in xs {
            match floor_to_int(x) {
                Some(n) => assert_eq!(Some(n), exact(x.floor()), "floor {x:e}"),
                None => assert!(!small(x), "floor {x:e} left to libm"),
            }
            match ceil_to_int(x) {
                Some(n) => assert_eq!(Some(n), exact(x.ceil()), "ceil {x:e}"),
                None => assert!(!small(x), "ceil {x:e} left to libm"),
            }
        }
    }
}
