//! perft from the initial position against the published counts (OEIS A133046 and the
//! route-folded "unique" counts).

use checkers_zero::games::checkers::{Position, perft};

const ROUTES: [u64; 13] = [
    1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128, 388623673,
];
/// Identical to ROUTES below depth 12 except where two routes over the same pieces first occur.
const UNIQUE_12: u64 = 388617999;

#[test]
fn perft_depths_1_to_11_count_every_route() {
    for depth in 1..=11 {
        assert_eq!(
            perft::perft_parallel(&Position::start(), depth, false),
            ROUTES[depth as usize],
            "depth {depth}"
        );
    }
}

#[test]
fn perft_depths_1_to_11_unique_routes() {
    // The published unique counts equal the route counts through depth 11.
    for depth in 1..=11 {
        assert_eq!(
            perft::perft_parallel(&Position::start(), depth, true),
            ROUTES[depth as usize],
            "depth {depth}"
        );
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "depth 12 runs in release builds only")]
fn perft_depth_12_both_modes() {
    assert_eq!(
        perft::perft_parallel(&Position::start(), 12, false),
        ROUTES[12]
    );
    assert_eq!(
        perft::perft_parallel(&Position::start(), 12, true),
        UNIQUE_12
    );
}

#[test]
fn serial_parallel_and_divide_agree() {
    let start = Position::start();
    let serial = perft::perft(&start, 8, false);
    assert_eq!(serial, ROUTES[8]);
    assert_eq!(
        perft::divide(&start, 8, false)
            .iter()
            .map(|d| d.1)
            .sum::<u64>(),
        serial
    );
}
