//! The standalone interpreter (being written).
fn main() {}
