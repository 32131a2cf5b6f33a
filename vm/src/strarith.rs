//! The string library's arithmetic metamethods (`__add` ... `__unm` of
//! `lstrlib.c`), kept in the VM so that the VM can recognise them.
//!
//! In 5.4, `"10" + 1` is not a coercion of the VM: the string metatable's
//! `__add`, a C function of the string library, converts both operands
//! (`tonum`) and does the arithmetic, or tries the second operand's
//! metamethod (`trymt`). A program that sums the lines it reads therefore
//! makes one native call per addition: a frame pushed and popped, the
//! operands and the result moved through it.
//!
//! The functions live here, and the string library (a crate above the VM)
//! puts them in the string metatable through
//! [`string_arith_metamethods`], under its own native names. An
//! arithmetic instruction whose metamethod is one of them, for its own
//! event, does the conversion and the arithmetic in place
//! ([`State::string_arith_inline`]), with the code the native runs.
//!
//! **Invariant: the in-place operation is not observable.** It is taken
//! only where the call could not have been seen or stopped, as
//! `forcall.rs`'s steps: no hook is set, and the budget stays above zero
//! after charging the call's units ([`CALL_COST`]); it charges those same
//! units. It covers only the native's plain success, both operands
//! numbers or numeric strings and a result without error; a conversion
//! failure (`trymt`, the other operand's metamethod or the error) and an
//! arithmetic error (`attempt to perform 'n%0'`, raised without a
//! position inside the native) take the call. It allocates nothing: the
//! conversion reads the string's bytes, and the result is a number. The
//! stack's slots above the frame differ from the call's (the native's
//! frame leaves its operands there), which is not state (`stack.rs`).
//! A metatable whose `__add` is the library's `__sub` native is called as
//! it says: the check is per event.

use crate::error::Error;
use crate::limits::CALL_COST;
use crate::meta::{arith_num, ArithOp, NumRes};
use crate::state::{Action, NativeFn, State};
use crate::value::Value;

type R = Result<Action, Error>;

/// The string metatable's arithmetic fields: `(field, native name, function)`,
/// as the string library registers them.
pub fn string_arith_metamethods() -> [(&'static str, &'static str, NativeFn); 8] {
    [
        ("__add", "string.meta.__add", arith_add),
        ("__sub", "string.meta.__sub", arith_sub),
        ("__mul", "string.meta.__mul", arith_mul),
        ("__mod", "string.meta.__mod", arith_mod),
        ("__pow", "string.meta.__pow", arith_pow),
        ("__div", "string.meta.__div", arith_div),
        ("__idiv", "string.meta.__idiv", arith_idiv),
        ("__unm", "string.meta.__unm", arith_unm),
    ]
}

/// The native of event `op`, if the string metatable has one.
fn native_of(op: ArithOp) -> Option<NativeFn> {
    Some(match op {
        ArithOp::Add => arith_add,
        ArithOp::Sub => arith_sub,
        ArithOp::Mul => arith_mul,
        ArithOp::Mod => arith_mod,
        ArithOp::Pow => arith_pow,
        ArithOp::Div => arith_div,
        ArithOp::IDiv => arith_idiv,
        ArithOp::Unm => arith_unm,
        _ => return None,
    })
}

/// What the native computes when it succeeds without a call: both
/// operands converted and the arithmetic defined.
#[inline]
fn plain_result(st: &State, op: ArithOp, a: Value, b: Value) -> Option<Value> {
    match arith_num(op, st.str_tonum(a)?, st.str_tonum(b)?) {
        NumRes::Val(v) => Some(v),
        _ => None,
    }
}

impl State {
    /// `a op b` where `tm` is the metamethod found for it: the native's
    /// result computed in place when `tm` is this module's native for
    /// `op` and the call could not be observed (see the module docs);
    /// `None` to make the call.
    #[inline]
    pub(crate) fn string_arith_inline(
        &mut self,
        op: ArithOp,
        tm: Value,
        a: Value,
        b: Value,
    ) -> Option<Value> {
        let Value::RustFn(h) = tm else { return None };
        if self.hooks.any || self.budget <= CALL_COST {
            return None;
        }
        let f = self.heap.rust_fns.get(h).id;
        let is_it =
            native_of(op).is_some_and(|n| std::ptr::fn_addr_eq(self.natives[f.0 as usize].f, n));
        if !is_it {
            return None;
        }
        let v = plain_result(self, op, a, b)?;
        self.budget -= CALL_COST;
        Some(v)
    }
}

/// `arith` of `lstrlib.c`: coerce both operands or try the second
/// operand's metamethod (`trymt`).
fn arith(st: &mut State, op: ArithOp, event: &str) -> R {
    let (a, b) = (st.arg(1), st.arg(2));
    if let (Some(x), Some(y)) = (st.str_tonum(a), st.str_tonum(b)) {
        let v = st.arith_value(op, x, y)?;
        st.push(v);
        return Ok(Action::Return(1));
    }
    let mm = match b {
        Value::Str(_) => None,
        _ => st.get_metafield(b, event.as_bytes()),
    };
    let Some(mm) = mm else {
        let msg =
            format!("attempt to {} a '{}' with a '{}'", &event[2..], a.type_name(), b.type_name());
        return Err(st.native_error(msg));
    };
    st.set_top(2);
    st.push(mm);
    st.push(a);
    st.push(b);
    Ok(Action::Call { nargs: 2, nresults: 1, k: None })
}

fn arith_add(st: &mut State) -> R {
    arith(st, ArithOp::Add, "__add")
}

fn arith_sub(st: &mut State) -> R {
    arith(st, ArithOp::Sub, "__sub")
}

fn arith_mul(st: &mut State) -> R {
    arith(st, ArithOp::Mul, "__mul")
}

fn arith_mod(st: &mut State) -> R {
    arith(st, ArithOp::Mod, "__mod")
}

fn arith_pow(st: &mut State) -> R {
    arith(st, ArithOp::Pow, "__pow")
}

fn arith_div(st: &mut State) -> R {
    arith(st, ArithOp::Div, "__div")
}

fn arith_idiv(st: &mut State) -> R {
    arith(st, ArithOp::IDiv, "__idiv")
}

fn arith_unm(st: &mut State) -> R {
    arith(st, ArithOp::Unm, "__unm")
}
