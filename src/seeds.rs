//! Seeds derived from one `--seed`, so results do not depend on thread count or on where a
//! run was interrupted and resumed.

/// A seed for one purpose (`a`, `b`) of a run, independent of thread count and of how the
/// run was split by `--resume` (splitmix64 finaliser over the mixed inputs). Trainers name
/// their draws with [`seed_for`]; this mixer also splits a game's seed among its players.
pub fn derive_seed(seed: u64, a: u64, b: u64) -> u64 {
    let mut z = seed
        .wrapping_add(a.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(b.wrapping_mul(0xD6E8_FEB8_6659_FD93));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a trainer draws a seed for: each purpose has its own stream of a run's seed, and
/// [`seed_for`]'s index tells one purpose's draws apart (an iteration, a generation, a
/// game). Declared once, so that no two trainers spell a purpose differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The first weights (a network, a population, a swarm).
    Init,
    /// Changing a population: a GA's selection and mutation, a swarm's motion.
    Variation,
    /// The games an iteration or generation plays to learn from.
    Games,
    /// A candidate's gating match against the best.
    Gating,
    /// Evaluation games against fixed opponents (a classic learner's progress).
    Evaluation,
    /// The order of training batches.
    Training,
    /// The gauntlet of the best network.
    Gauntlet,
    /// The games of one member of a population.
    Member(u64),
}

impl Purpose {
    fn code(self) -> u64 {
        match self {
            Purpose::Init => 0,
            Purpose::Variation => 1,
            Purpose::Games => 2,
            Purpose::Gating => 3,
            Purpose::Evaluation => 4,
            Purpose::Training => 5,
            Purpose::Gauntlet => 6,
            // Far above the others, so that no member's stream is another purpose's.
            Purpose::Member(i) => (1 << 32) + i,
        }
    }
}

/// The seed of `purpose`'s draw `index` (an iteration, a generation) in a run seeded by
/// `seed`.
pub fn seed_for(seed: u64, purpose: Purpose, index: u64) -> u64 {
    derive_seed(seed, purpose.code(), index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purposes_and_indices_draw_distinct_seeds() {
        let purposes = [
            Purpose::Init,
            Purpose::Variation,
            Purpose::Games,
            Purpose::Gating,
            Purpose::Evaluation,
            Purpose::Training,
            Purpose::Gauntlet,
            Purpose::Member(0),
            Purpose::Member(1),
        ];
        let mut seen = std::collections::HashSet::new();
        for p in purposes {
            for index in 0..100 {
                assert!(seen.insert(seed_for(7, p, index)), "{p:?} {index}");
            }
        }
        // Another run's seed gives another.
        assert_ne!(
            seed_for(7, Purpose::Games, 3),
            seed_for(8, Purpose::Games, 3)
        );
    }
}
