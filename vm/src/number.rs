//! PLACEHOLDER (being written): number conversions.
/// Exact integer/float equality.
pub fn int_eq_float(i: i64, f: f64) -> bool {
    f == i as f64 && (f as i64) == i
}
