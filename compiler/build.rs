fn main() {
    lalrpop::process_src().expect("lalrpop grammar generation failed");
}
