//! A host program written for mlua compiles against luprex-vm with only the
//! crate name changed, and does what it says.

use luprex_vm as mlua;

include!("mlua_compat/program.rs");

#[test]
fn mlua_program_runs() {
    let log = run().unwrap();
    let text = log.join("\n");
    expect_test::expect_file!["mlua_compat/expected.txt"].assert_eq(&(text + "\n"));
}
