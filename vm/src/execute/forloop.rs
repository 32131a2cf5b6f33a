//! The numeric `for` loop's preparation (`lvm.c`'s `forprep`).
//!
//! FORPREP runs once per loop, so it lives out of the dispatch loop: it
//! converts the operands as Lua 5.4 does (strings coerce, a float limit is
//! clipped to the integer range for an integer loop), raises the
//! reference's errors (`'for' step is zero`, `bad 'for' limit (number
//! expected, got ...)`), and precomputes an integer loop's iteration count
//! into the limit's slot, so that FORLOOP counts down without overflow
//! checks. A float loop keeps its three operands as floats.

use crate::error::Error;
use crate::number::{self, F2I};
use crate::state::State;
use crate::value::Value;

/// Converts a `for` operand to a float (strings coerce, as `tonumber`).
fn for_num(st: &State, v: Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        Value::Str(s) => Some(number::str_to_number(st.heap.str(s))?.to_float()),
        _ => None,
    }
}

/// Converts a `for` limit to an integer (`luaV_tointegerns`).
fn for_int(st: &State, v: Value, mode: F2I) -> Option<i64> {
    match v {
        Value::Int(i) => Some(i),
        Value::Float(f) => number::float_to_int(f, mode),
        Value::Str(s) => match number::str_to_number(st.heap.str(s))? {
            number::Number::Int(i) => Some(i),
            number::Number::Float(f) => number::float_to_int(f, mode),
        },
        _ => None,
    }
}

impl State {
    /// `forprep`: prepares a numeric loop at `ra`; true to skip it. Out of
    /// the loop (a change of the loop's code moves its register
    /// allocation, docs/PROFILING.md item 18).
    #[inline(never)]
    pub(super) fn forprep(&mut self, ra: usize) -> Result<bool, Error> {
        // The common loop, `for i = a, b` over integers, with its count at
        // once (the registers read word by word, see `execute::load`).
        if let Some(st) = self.ex.stack.get_mut(ra..ra + 4) {
            if let (Value::Int(init), Value::Int(lim), Value::Int(1)) =
                (super::load(&st[0]), super::load(&st[1]), super::load(&st[2]))
            {
                if init > lim {
                    return Ok(true);
                }
                st[1] = Value::Int((lim as u64).wrapping_sub(init as u64) as i64);
                st[3] = Value::Int(init);
                return Ok(false);
            }
        }
        self.forprep_general(ra)
    }

    /// [`State::forprep`] for every other loop.
    #[inline(never)]
    fn forprep_general(&mut self, ra: usize) -> Result<bool, Error> {
        let st = &self.ex.stack;
        let (init, limit, step) = (st[ra], st[ra + 1], st[ra + 2]);
        if let (Value::Int(init), Value::Int(step)) = (init, step) {
            if step == 0 {
                return Err(self.rt_error("'for' step is zero"));
            }
            self.ex.stack[ra + 3] = Value::Int(init);
            let lim = match for_int(self, limit, if step < 0 { F2I::Ceil } else { F2I::Floor }) {
                Some(l) => l,
                None => {
                    let Some(fl) = for_num(self, limit) else {
                        return Err(self.for_error(limit, "limit"));
                    };
                    if fl > 0.0 {
                        if step < 0 {
                            return Ok(true);
                        }
                        i64::MAX
                    } else {
                        if step > 0 {
                            return Ok(true);
                        }
                        i64::MIN
                    }
                }
            };
            if if step > 0 { init > lim } else { init < lim } {
                return Ok(true);
            }
            let count = if step > 0 {
                let c = (lim as u64).wrapping_sub(init as u64);
                if step != 1 {
                    c / step as u64
                } else {
                    c
                }
            } else {
                let c = (init as u64).wrapping_sub(lim as u64);
                c / ((-(step + 1)) as u64 + 1)
            };
            self.ex.stack[ra + 1] = Value::Int(count as i64);
            return Ok(false);
        }
        let Some(flimit) = for_num(self, limit) else { return Err(self.for_error(limit, "limit")) };
        let Some(fstep) = for_num(self, step) else { return Err(self.for_error(step, "step")) };
        let Some(finit) = for_num(self, init) else {
            return Err(self.for_error(init, "initial value"));
        };
        if fstep == 0.0 {
            return Err(self.rt_error("'for' step is zero"));
        }
        if if 0.0 < fstep { flimit < finit } else { finit < flimit } {
            return Ok(true);
        }
        let st = &mut self.ex.stack;
        st[ra] = Value::Float(finit);
        st[ra + 1] = Value::Float(flimit);
        st[ra + 2] = Value::Float(fstep);
        st[ra + 3] = Value::Float(finit);
        Ok(false)
    }

    #[cold]
    fn for_error(&mut self, v: Value, what: &str) -> Error {
        let t = self.obj_typename(v);
        self.rt_error(format!("bad 'for' {what} (number expected, got {t})"))
    }
}
