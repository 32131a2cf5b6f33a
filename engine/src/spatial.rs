//! The spatial index behind `scanradius`: a uniform grid of cubic cells.
//!
//! Every tangible has a **positional tracker** (seed 004, "Tangibles": "the
//! positional tracker, which helps us do scanradius searches"): the box of
//! grid cells it is registered in ([`Tracker`]). The grid maps each
//! occupied cell to the tangibles registered there.
//!
//! **What a tangible is registered under.** A tangible at rest (its
//! animation queue has one step) is registered in the one cell of its
//! position, and its entry carries that position, so a query tests it
//! without looking anything up. A moving tangible (more than one step) is
//! registered in every cell of the bounding box of all the steps of its
//! queue: wherever it is between now and its arrival, it is inside that
//! box, so a query that reaches its position reaches one of its cells. Its
//! entry carries no position; the query computes it from the queue at the
//! current tick. When the queue completes, the tangible settles and is
//! re-registered at its final position (`tangible.rs`). A box of more than
//! [`MAX_BOX_CELLS`] cells (a long journey) is not spread over the grid:
//! the tangible goes in the *wide* list, which every query scans.
//!
//! **Queries.** `scan` visits the cells of the query sphere's bounding box
//! (one range query of the map per row of cells, see `Grid::scan_row`; or,
//! when that box has more cells than the grid has occupied cells, the
//! occupied cells inside it), keeps the tangibles whose exact position is
//! within the radius (3-D Euclidean distance, inclusive), and returns their
//! IDs sorted and without duplicates (a moving tangible can be met in
//! several cells).
//!
//! **Determinism.** Cells are `[i32; 3]` keys of a `BTreeMap`, each cell's
//! entries a `Vec` kept in ID order, the wide list too: the index is a pure
//! function of the tangibles' animation queues, so it is rebuilt
//! identically after a load (`Grid` is never saved nor hashed: it is
//! derived data) and results never depend on the order of insertions.
//! Coordinates are finite (checked where they enter); cell coordinates
//! saturate at the `i32` range, monotonically, so huge coordinates stay
//! correct (they only share edge cells).

use std::collections::BTreeMap;

/// The edge of a grid cell, in world units. Queries cost about the number
/// of cells their radius spans plus the tangibles in them: a radius of one
/// or two cells is the sweet spot.
pub const CELL_SIZE: f64 = 16.0;

/// Boxes with more cells than this go to the wide list.
pub const MAX_BOX_CELLS: u64 = 64;

/// A cell coordinate.
pub type Cell = [i32; 3];

/// Where a tangible is registered: a box of cells (inclusive), or the wide
/// list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracker {
    /// The cells `lo..=hi` on each axis.
    Cells {
        /// The lowest corner.
        lo: Cell,
        /// The highest corner.
        hi: Cell,
    },
    /// The wide list.
    Wide,
}

/// One registration in a cell: the tangible, and its position if it is at
/// rest (else the query computes it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The tangible's ID.
    pub id: u64,
    /// Its position, if it does not move.
    pub at: Option<[f64; 3]>,
}

/// The grid: occupied cells and the wide list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    cells: BTreeMap<Cell, Vec<Entry>>,
    wide: Vec<u64>,
}

/// The cell coordinate of `x` on one axis (saturating).
fn coord(x: f64) -> i32 {
    // `as` saturates (and the caller never passes NaN).
    (x / CELL_SIZE).floor() as i32
}

/// The cell of point `p`.
pub fn cell_of(p: [f64; 3]) -> Cell {
    [coord(p[0]), coord(p[1]), coord(p[2])]
}

fn box_cells(lo: Cell, hi: Cell) -> u64 {
    (0..3).map(|a| (i64::from(hi[a]) - i64::from(lo[a]) + 1) as u64).fold(1u64, u64::saturating_mul)
}

impl Grid {
    /// An empty grid.
    pub fn new() -> Grid {
        Grid::default()
    }

    /// The tracker for a tangible whose positions lie in the box `lo..=hi`
    /// (world coordinates).
    pub fn tracker_for(lo: [f64; 3], hi: [f64; 3]) -> Tracker {
        let (lo, hi) = (cell_of(lo), cell_of(hi));
        if box_cells(lo, hi) > MAX_BOX_CELLS {
            Tracker::Wide
        } else {
            Tracker::Cells { lo, hi }
        }
    }

    /// Registers `entry` under `tracker`.
    pub fn insert(&mut self, tracker: Tracker, entry: Entry) {
        match tracker {
            Tracker::Wide => {
                if let Err(i) = self.wide.binary_search(&entry.id) {
                    self.wide.insert(i, entry.id);
                }
            }
            Tracker::Cells { lo, hi } => for_cells(lo, hi, |c| {
                let v = self.cells.entry(c).or_default();
                match v.binary_search_by_key(&entry.id, |e| e.id) {
                    Ok(i) => v[i] = entry,
                    Err(i) => v.insert(i, entry),
                }
            }),
        }
    }

    /// Removes tangible `id` registered under `tracker`.
    pub fn remove(&mut self, tracker: Tracker, id: u64) {
        match tracker {
            Tracker::Wide => {
                if let Ok(i) = self.wide.binary_search(&id) {
                    self.wide.remove(i);
                }
            }
            Tracker::Cells { lo, hi } => for_cells(lo, hi, |c| {
                if let Some(v) = self.cells.get_mut(&c) {
                    if let Ok(i) = v.binary_search_by_key(&id, |e| e.id) {
                        v.remove(i);
                    }
                    if v.is_empty() {
                        self.cells.remove(&c);
                    }
                }
            }),
        }
    }

    /// The IDs of the tangibles within distance `r` of `center`
    /// (inclusive), in ascending order, appended to `out` (which is
    /// cleared first). `position(id)` gives the current position of a
    /// moving tangible.
    pub fn scan(
        &self,
        center: [f64; 3],
        r: f64,
        position: impl Fn(u64) -> [f64; 3],
        out: &mut Vec<u64>,
    ) {
        out.clear();
        if r.is_nan() || r < 0.0 {
            return;
        }
        let r2 = r * r;
        let within = |p: [f64; 3]| {
            let (dx, dy, dz) = (p[0] - center[0], p[1] - center[1], p[2] - center[2]);
            dx * dx + dy * dy + dz * dz <= r2
        };
        let mut sorted = true;
        let mut last = 0u64;
        let mut take = |e: &Entry, out: &mut Vec<u64>| {
            let p = match e.at {
                Some(p) => p,
                None => position(e.id),
            };
            if within(p) {
                if e.id <= last && !out.is_empty() {
                    sorted = false;
                }
                last = e.id;
                out.push(e.id);
            }
        };
        let lo = cell_of([center[0] - r, center[1] - r, center[2] - r]);
        let hi = cell_of([center[0] + r, center[1] + r, center[2] + r]);
        if box_cells(lo, hi) <= self.cells.len() as u64 {
            for x in lo[0]..=hi[0] {
                self.scan_row(x, lo, hi, |v| v.iter().for_each(|e| take(e, out)));
            }
        } else {
            for (c, v) in &self.cells {
                if (0..3).all(|a| lo[a] <= c[a] && c[a] <= hi[a]) {
                    v.iter().for_each(|e| take(e, out));
                }
            }
        }
        for &id in &self.wide {
            take(&Entry { id, at: None }, out);
        }
        if !sorted {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// Calls `f` with the entries of every occupied cell `[x, y, z]` of the
    /// box `lo..=hi` (on `y` and `z`), in key order. One range query covers
    /// the whole row (a flat world, whose cells share one `z`, needs no
    /// other); a cell met outside `lo[2]..=hi[2]` starts a new query at the
    /// next cell inside, so a tall world costs at most two more queries per
    /// column it has cells in.
    fn scan_row(&self, x: i32, lo: Cell, hi: Cell, mut f: impl FnMut(&Vec<Entry>)) {
        let mut from = [x, lo[1], lo[2]];
        loop {
            let mut next = None;
            for (c, v) in self.cells.range(from..=[x, hi[1], hi[2]]) {
                if c[2] < lo[2] {
                    next = Some([x, c[1], lo[2]]);
                    break;
                }
                if c[2] > hi[2] {
                    next = c[1].checked_add(1).map(|y| [x, y, lo[2]]);
                    break;
                }
                f(v);
            }
            match next {
                Some(n) if n[1] <= hi[1] => from = n,
                _ => return,
            }
        }
    }

    /// Number of occupied cells (tests, statistics).
    pub fn occupied_cells(&self) -> usize {
        self.cells.len()
    }

    /// The wide list (tests).
    pub fn wide(&self) -> &[u64] {
        &self.wide
    }
}

/// Calls `f` for every cell of the box `lo..=hi`, in key order.
fn for_cells(lo: Cell, hi: Cell, mut f: impl FnMut(Cell)) {
    for x in lo[0]..=hi[0] {
        for y in lo[1]..=hi[1] {
            for z in lo[2]..=hi[2] {
                f([x, y, z]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_boxes() {
        assert_eq!(cell_of([0.0, 15.9, -0.1]), [0, 0, -1]);
        assert_eq!(cell_of([16.0, -16.0, -16.1]), [1, -1, -2]);
        assert_eq!(cell_of([1e300, -1e300, 0.0]), [i32::MAX, i32::MIN, 0]);
        assert_eq!(
            Grid::tracker_for([0.0; 3], [0.0; 3]),
            Tracker::Cells { lo: [0; 3], hi: [0; 3] }
        );
        assert_eq!(Grid::tracker_for([0.0; 3], [1e6, 0.0, 0.0]), Tracker::Wide);
    }

    #[test]
    fn insert_scan_remove() {
        let mut g = Grid::new();
        let pts = [(5u64, [1.0, 1.0, 0.0]), (2, [40.0, 0.0, 0.0]), (9, [-3.0, 0.0, 4.0])];
        for (id, p) in pts {
            g.insert(Grid::tracker_for(p, p), Entry { id, at: Some(p) });
        }
        g.insert(Tracker::Wide, Entry { id: 7, at: None });
        let mut out = Vec::new();
        g.scan([0.0; 3], 5.0, |_| [0.0, 0.0, 5.0], &mut out);
        assert_eq!(out, [5, 7, 9], "inclusive at exactly 5, wide member included");
        g.scan([0.0; 3], 4.9, |_| [100.0; 3], &mut out);
        assert_eq!(out, [5]);
        g.scan([0.0; 3], 1e9, |_| [100.0; 3], &mut out);
        assert_eq!(out, [2, 5, 7, 9]);
        g.remove(Grid::tracker_for(pts[0].1, pts[0].1), 5);
        g.remove(Tracker::Wide, 7);
        g.scan([0.0; 3], 1e9, |_| [0.0; 3], &mut out);
        assert_eq!(out, [2, 9]);
        g.scan([0.0; 3], -1.0, |_| [0.0; 3], &mut out);
        assert!(out.is_empty());
        assert_eq!(g.occupied_cells(), 2);
    }

    /// Both query strategies (rows with jumps over out-of-range `z`, and
    /// the walk of every occupied cell) against a brute-force filter, in a
    /// world with many `z` layers.
    #[test]
    fn scans_agree_with_brute_force() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut coord = |span: u64| next(span) as f64 - (span / 2) as f64;
        let mut g = Grid::new();
        let mut pts = Vec::new();
        for id in 0..1500u64 {
            let p = [coord(200), coord(200), coord(200)];
            g.insert(Grid::tracker_for(p, p), Entry { id, at: Some(p) });
            pts.push(p);
        }
        let mut out = Vec::new();
        for q in 0..400 {
            let c = [coord(240), coord(240), coord(240)];
            let r = if q % 10 == 0 { coord(600).abs() } else { coord(80).abs() };
            g.scan(c, r, |_| [f64::NAN; 3], &mut out);
            let want: Vec<u64> = (0..pts.len() as u64)
                .filter(|&i| {
                    let p = pts[i as usize];
                    let d: f64 = (0..3).map(|a| (p[a] - c[a]) * (p[a] - c[a])).sum();
                    d <= r * r
                })
                .collect();
            assert_eq!(out, want, "query {q} at {c:?} radius {r}");
        }
    }
}
