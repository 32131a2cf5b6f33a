//! scanradius over 10,000 tangibles spread on a plane so that a query's
//! radius holds about 50 of them (goal: under 5 µs per query), from the
//! host (`World::scan_radius_into`) and from Lua (`scanradius`, which
//! also builds the result array). Also what a snapshot and rollback cost
//! with that many tangibles (the host data is copied per snapshot).

use criterion::{criterion_group, criterion_main, Criterion};
use luprex_engine::{Model, SourceFile, World};

const N: usize = 10_000;
const R: f64 = 16.0;

/// The side of the square where N tangibles put ~50 in a disc of radius R.
fn side() -> f64 {
    (N as f64 * std::f64::consts::PI * R * R / 50.0).sqrt()
}

fn world() -> World {
    let mut w = World::new(Model::Master).unwrap();
    w.load_sources(&[SourceFile::new("t.lua", "maketangible('thing')")]).unwrap();
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut rnd = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let l = side();
    for _ in 0..N {
        w.new_tangible("thing", [rnd() * l, rnd() * l, 0.0]).unwrap();
    }
    // A tenth of them walking somewhere nearby.
    for id in (1..=N as u64).step_by(10) {
        let p = w.position(id).unwrap();
        w.move_to(id, [p[0] + 20.0, p[1] - 10.0, 0.0], 1000).unwrap();
    }
    w.tick();
    w
}

fn scanradius(c: &mut Criterion) {
    let mut w = world();
    let l = side();
    let centers: Vec<[f64; 3]> = (0..64)
        .map(|i| {
            [
                R + (i * 37 % 64) as f64 / 64.0 * (l - 2.0 * R),
                R + i as f64 / 64.0 * (l - 2.0 * R),
                0.0,
            ]
        })
        .collect();
    let mut out = Vec::new();
    let total: usize = centers.iter().map(|&c| w.scan_radius(c, R).len()).sum();
    println!("average hits per query: {:.1}", total as f64 / centers.len() as f64);
    let mut i = 0;
    c.bench_function("scanradius_10k_r16_host", |b| {
        b.iter(|| {
            i = (i + 1) % centers.len();
            w.scan_radius_into(centers[i], R, &mut out);
            out.len()
        })
    });
    w.exec(
        "=setup",
        &format!(
            "makeclass('thing').centers = {{}} for i = 1, 64 do thing.centers[i] = \
             {{{R} + (i * 37 % 64) / 64 * ({l} - 2 * {R}), {R} + i / 64 * ({l} - 2 * {R})}} end \
             function thing.scan64() local n = 0 for _, c in ipairs(thing.centers) do \
             n = n + #scanradius(c[1], c[2], 0, {R}) end return n end"
        ),
    )
    .unwrap();
    c.bench_function("scanradius_10k_r16_lua_x64", |b| {
        b.iter(|| w.call("thing", "scan64", &[]).unwrap().len())
    });
    w.exec("=gc", "collectgarbage()").unwrap();
    let s = w.snapshot().unwrap();
    c.bench_function("snapshot_move_rollback_10k", |b| {
        b.iter(|| {
            w.move_to(5, [1.0, 2.0, 0.0], 3).unwrap();
            w.tick();
            w.rollback(&s).unwrap();
        })
    });
    w.release(s).unwrap();
}

criterion_group!(benches, scanradius);
criterion_main!(benches);
