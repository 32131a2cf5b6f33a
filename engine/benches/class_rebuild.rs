//! The class rebuild (seed 004: "It should take less than a millisecond"):
//! 100 source files of 20 methods each, generated in memory, already in
//! the source database; one iteration empties every class and calls every
//! `loadresult`. Goal: under 0.2 ms.

use criterion::{criterion_group, criterion_main, Criterion};
use luprex_engine::{Model, SourceFile, World};

fn sources(files: usize, methods: usize) -> Vec<SourceFile> {
    (0..files)
        .map(|i| {
            let mut code = format!("local c = makeclass(\"class{i}\")\n");
            for m in 0..methods {
                code.push_str(&format!(
                    "function c.method{m}(self, x) return (self.v or 0) + x * {m} end\n"
                ));
            }
            SourceFile::new(format!("file{i}.lua"), code)
        })
        .collect()
}

fn class_rebuild(c: &mut Criterion) {
    let mut w = World::new(Model::Master).unwrap();
    w.load_sources(&sources(100, 20)).unwrap();
    assert!(w.take_reports().is_empty());
    w.exec("=check", "assert(class99.method19({v = 1}, 2) == 39)").unwrap();
    c.bench_function("class_rebuild_100x20", |b| {
        b.iter(|| {
            w.rebuild().unwrap();
        })
    });
    assert!(w.take_reports().is_empty());
    w.exec("=check", "assert(class42.method7({v = 1}, 2) == 15)").unwrap();
}

criterion_group!(benches, class_rebuild);
criterion_main!(benches);
