//! Difference transmission with 1,000 close tangibles holding 10 tables
//! each (4 entries per table: 40,000 entries): server CPU per client per
//! frame when nothing changed (incremental and full re-walk), with 1% of
//! the entries changed, the client's apply, and the frame bytes against a
//! full resend of the same state. Also the frame encoding, postcard
//! against bitcode (size and speed), for `benches/RESULTS.md`.

use criterion::{criterion_group, criterion_main, Criterion};
use luprex_engine::diff::{self, Frame, Options, Radii, Transmitter};
use luprex_engine::{Model, SourceFile, World};
use std::time::{Duration, Instant};

const N: usize = 1000;
thread_local! {
    static FIRST: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

const RADII: Radii = Radii { visibility: 2000.0, close: 2000.0 };

struct Bed {
    master: World,
    sync: World,
    client: World,
    tx: Transmitter,
}

fn bed(incremental: bool) -> Bed {
    let mut master = World::new(Model::Master).unwrap();
    master.load_sources(&[SourceFile::new("t.lua", "makeclass('thing')")]).unwrap();
    master.start().unwrap();
    let p = master.new_tangible("thing", [0.0; 3]).unwrap();
    master.make_player(p).unwrap();
    let mut ids = Vec::new();
    for i in 0..N {
        let (x, y) = ((i % 32) as f64 * 20.0, (i / 32) as f64 * 20.0);
        ids.push(master.new_tangible("thing", [x, y, 0.0]).unwrap());
    }
    // IDs come from the master's counter, consecutive.
    assert_eq!(ids[N - 1] - ids[0], N as u64 - 1);
    FIRST.with(|f| f.set(ids[0]));
    master
        .exec(
            "=fill",
            &"local n = 0
             for id = FIRST, FIRST + 999 do
               local t = gettangible(id)
               for j = 1, 10 do
                 n = n + 1
                 t['d' .. j] = {x = n, y = 'v' .. n, z = true, w = n * 0.5}
               end
             end"
            .replace("FIRST", &ids[0].to_string()),
        )
        .unwrap();
    let opts = Options { verify_state_hash: false, incremental };
    let mut b = Bed {
        master,
        sync: World::new(Model::ServerSync).unwrap(),
        client: World::new(Model::ClientSync).unwrap(),
        tx: Transmitter::new(p, RADII, opts),
    };
    let f = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap().frame;
    diff::apply(&mut b.client, &f).unwrap();
    b
}

/// Changes 1% of the 40,000 entries (400 `x` fields), a different set each
/// call.
fn change(b: &mut Bed, round: &mut i64) {
    *round += 1;
    let code = format!(
        "local r = {round}
         for k = 0, 399 do
           local id = {first} + (k * 37 + r) % 1000
           local t = gettangible(id)['d' .. (1 + (k + r) % 10)]
           t.x = t.x + 1
         end",
        first = FIRST.with(|f| f.get())
    );
    b.master.exec("=change", &code).unwrap();
}

/// [`change`], and 10 new tables stored in 10 tangibles (a change of the
/// graph's structure: passes 4 to 6 run again).
fn change_structure(b: &mut Bed, round: &mut i64) {
    change(b, round);
    let code = format!(
        "for k = 0, 9 do gettangible({first} + (k * 101 + {round}) % 1000).new = {{v = k}} end",
        first = FIRST.with(|f| f.get())
    );
    b.master.exec("=change", &code).unwrap();
}

fn report_sizes() {
    let mut b = bed(true);
    let full = {
        let mut sync = World::new(Model::ServerSync).unwrap();
        let p = b.tx.player();
        let opts = Options { verify_state_hash: false, incremental: false };
        let mut tx = Transmitter::new(p, RADII, opts);
        tx.frame(&mut b.master, &mut sync, None).unwrap().frame
    };
    // These two frames are checked against full re-walks.
    b.tx.check_incremental(true);
    let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
    assert!(t.reports.is_empty(), "{:?}", t.reports);
    let none = t.frame;
    diff::apply(&mut b.client, &none).unwrap();
    let mut round = 0;
    change(&mut b, &mut round);
    let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
    assert!(t.reports.is_empty(), "{:?}", t.reports);
    let one = t.frame;
    diff::apply(&mut b.client, &one).unwrap();
    change_structure(&mut b, &mut round);
    let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
    assert!(t.reports.is_empty(), "{:?}", t.reports);
    diff::apply(&mut b.client, &t.frame).unwrap();
    b.tx.check_incremental(false);
    let entries = one.graph.as_ref().map_or(0, |g| g.tables.iter().map(|s| s.sets.len()).sum());
    let created = full.graph.as_ref().map_or(0, |g| g.new_tables);
    for (name, f) in [("full resend", &full), ("no change", &none), ("1% changed", &one)] {
        let pc = postcard::to_stdvec(f).unwrap();
        let bc = f.encode();
        eprintln!("diff frame bytes, {name}: postcard {} B, bitcode {} B", pc.len(), bc.len());
        let t0 = Instant::now();
        for _ in 0..20 {
            let b = postcard::to_stdvec(std::hint::black_box(f)).unwrap();
            std::hint::black_box(postcard::from_bytes::<Frame>(&b).unwrap());
        }
        let p_t = t0.elapsed() / 20;
        let t0 = Instant::now();
        for _ in 0..20 {
            std::hint::black_box(Frame::decode(&std::hint::black_box(f).encode()).unwrap());
        }
        let b_t = t0.elapsed() / 20;
        eprintln!("  encode+decode: postcard {p_t:?}, bitcode {b_t:?}");
    }
    eprintln!(
        "1% frame: {entries} changed entries, {} B ({:.1} B/entry); full: {created} tables created, {} B ({:.1} B/table with its 4 entries)",
        one.encode().len(),
        one.encode().len() as f64 / entries.max(1) as f64,
        full.encode().len(),
        full.encode().len() as f64 / created.max(1) as f64,
    );
}

fn bench(c: &mut Criterion) {
    report_sizes();
    let mut g = c.benchmark_group("diff");
    g.sample_size(20);
    g.measurement_time(Duration::from_secs(5));
    for incremental in [true, false] {
        let mut b = bed(incremental);
        let name = if incremental { "incremental" } else { "full walk" };
        g.bench_function(format!("server frame, no change ({name})"), |it| {
            it.iter(|| {
                let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
                assert!(t.frame.is_empty());
                t
            })
        });
        g.bench_function(format!("client apply, no change ({name})"), |it| {
            let f = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap().frame;
            it.iter(|| diff::apply(&mut b.client, &f).unwrap())
        });
        if incremental {
            // The clock advances between frames and one tangible walks
            // back and forth (the host ticks every model in step): passes
            // 1 to 3 run in full, the table passes find nothing.
            let walker = FIRST.with(|f| f.get());
            let mut step = 0i64;
            g.bench_function(format!("server frame, tick + one walking ({name})"), |it| {
                it.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        if b.master.tangibles().get(walker).is_some_and(|t| !t.queue.is_moving()) {
                            step += 1;
                            let x = if step % 2 == 0 { 0.0 } else { 100.0 };
                            b.master.move_to(walker, [x, 0.0, 0.0], 20).unwrap();
                        }
                        for w in [&mut b.master, &mut b.sync, &mut b.client] {
                            w.tick();
                        }
                        let t0 = Instant::now();
                        let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
                        total += t0.elapsed();
                        diff::apply(&mut b.client, &t.frame).unwrap();
                    }
                    total
                })
            });
        }
        let mut round = 0;
        g.bench_function(format!("server frame, 1% changed ({name})"), |it| {
            it.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    change(&mut b, &mut round);
                    let t0 = Instant::now();
                    let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
                    total += t0.elapsed();
                    diff::apply(&mut b.client, &t.frame).unwrap();
                }
                total
            })
        });
        if incremental {
            g.bench_function(format!("server frame, 1% changed + 10 new tables ({name})"), |it| {
                it.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        change_structure(&mut b, &mut round);
                        let t0 = Instant::now();
                        let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
                        total += t0.elapsed();
                        diff::apply(&mut b.client, &t.frame).unwrap();
                    }
                    total
                })
            });
        }
        g.bench_function(format!("client apply, 1% changed ({name})"), |it| {
            it.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    change(&mut b, &mut round);
                    let t = b.tx.frame(&mut b.master, &mut b.sync, None).unwrap();
                    let t0 = Instant::now();
                    diff::apply(&mut b.client, &t.frame).unwrap();
                    total += t0.elapsed();
                }
                total
            })
        });
        assert_eq!(b.sync.state_hash(), b.client.state_hash());
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
