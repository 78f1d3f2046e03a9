use checkers_zero::game::{Position, perft};
fn main() {
    let d: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let unique = std::env::args().nth(2).is_some();
    for depth in 1..=d {
        let t = std::time::Instant::now();
        let n = perft::perft(&Position::start(), depth, unique);
        println!(
            "{depth} {n} {:.3}s {:.1} Mnps",
            t.elapsed().as_secs_f64(),
            n as f64 / t.elapsed().as_secs_f64() / 1e6
        );
    }
}
