//! One crossing, for profilers: `prof l2r|r2l|raw_l2r|raw_r2l [n]`.
use luprex_vm::{Function, Lua};

fn main() {
    let mut a = std::env::args().skip(1);
    let which = a.next().unwrap_or_else(|| "l2r".into());
    let n: i64 = a.next().map(|s| s.parse().unwrap()).unwrap_or(1_000_000);
    let lua = Lua::new();
    let r = match which.as_str() {
        "l2r" => {
            let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
            lua.globals().set("add1", add1).unwrap();
            let src =
                format!("local add1 = add1 local s = 0 for i = 1, {n} do s = add1(s) end return s");
            let chunk: Function = lua.load(src).into_function().unwrap();
            chunk.call::<i64>(()).unwrap()
        }
        "r2l" => {
            let f: Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
            let mut s = 0i64;
            for _ in 0..n {
                s = f.call::<i64>(s).unwrap();
            }
            s
        }
        "raw_l2r" => {
            use luprex_vm::raw::{Action, Error, State, Value};
            fn add1(st: &mut State) -> Result<Action, Error> {
                let x = st.check_int(1)?;
                st.push(Value::Int(x + 1));
                Ok(Action::Return(1))
            }
            let mut st = State::new();
            let f = st.register_native("add1", add1);
            st.set_global("add1", f);
            let src =
                format!("local add1 = add1 local s = 0 for i = 1, {n} do s = add1(s) end return s");
            match st.exec(src.as_bytes(), b"=bench").unwrap()[..] {
                [Value::Int(r)] => r,
                _ => panic!(),
            }
        }
        "mlua_l2r" => {
            let lua = mlua::Lua::new();
            let add1 = lua.create_function(|_, x: i64| Ok(x + 1)).unwrap();
            lua.globals().set("add1", add1).unwrap();
            let src =
                format!("local add1 = add1 local s = 0 for i = 1, {n} do s = add1(s) end return s");
            lua.load(src).eval::<i64>().unwrap()
        }
        "mlua_r2l" => {
            let lua = mlua::Lua::new();
            let f: mlua::Function = lua.load("return function(x) return x + 1 end").eval().unwrap();
            let mut s = 0i64;
            for _ in 0..n {
                s = f.call::<i64>(s).unwrap();
            }
            s
        }
        _ => panic!("which?"),
    };
    assert_eq!(r, n);
}
