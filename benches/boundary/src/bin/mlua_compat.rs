//! The host program of `vm/tests/mlua_compat/program.rs`, built twice: once
//! against mlua (Lua 5.4 in C) and once against luprex-vm, with only the
//! crate name changed. Both logs must be identical.

mod with_mlua {
    // `mlua` here is the real crate (the extern prelude name).
    include!("../../../../vm/tests/mlua_compat/program.rs");
}

mod with_luprex {
    use luprex_vm as mlua;
    include!("../../../../vm/tests/mlua_compat/program.rs");
}

fn main() {
    let a = with_mlua::run().expect("the program runs on mlua");
    let b = with_luprex::run().expect("the program runs on luprex-vm");
    let mut same = a.len() == b.len();
    for (x, y) in a.iter().zip(&b) {
        if x == y {
            println!("  {x}");
        } else {
            same = false;
            println!("! mlua:   {x}\n! luprex: {y}");
        }
    }
    println!("{} lines, {}", a.len(), if same { "identical" } else { "DIFFERENT" });
    std::process::exit(if same { 0 } else { 1 });
}
