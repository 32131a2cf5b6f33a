// Test support shared by the cross-process tests of several crates
// (included with `include!`): run this same test binary as a child and
// compare what it prints, and a small deterministic generator.

/// Lines of the cross-process check: if `env` is set, this process is the
/// child: it prints `here` and returns `None`. Otherwise it runs `test`
/// (this test's name) in a child with `env` set and returns the child's
/// lines that contain `tag`, from the tag on.
#[allow(dead_code)]
fn child_lines(test: &str, env: &str, tag: &str, here: &[String]) -> Option<Vec<String>> {
    if std::env::var_os(env).is_some() {
        here.iter().for_each(|l| println!("{l}"));
        return None;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(env, "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "child failed: {}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout).unwrap();
    Some(lines.lines().filter_map(|l| l.find(tag).map(|i| l[i..].to_owned())).collect())
}

/// A xorshift generator (the tests' own, deterministic).
#[allow(dead_code)]
struct Rng(u64);

#[allow(dead_code)]
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
