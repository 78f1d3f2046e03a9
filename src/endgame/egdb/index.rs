//! Where a position lives in the databases: its slice (the material) and its index inside it.
//!
//! Only positions with Black to move are stored: a position with White to move is its colour
//! mirror (`Position::mirrored`), which has Black to move. In a slice the side to move's men
//! stand on squares 1-28 (a man on 29-32 would be a king) and the other side's on 5-32, and
//! the index is, most significant first:
//!
//! - the mover's men, as a colex rank among squares 1-28;
//! - the other side's men, as a colex rank among squares 5-32;
//! - the mover's kings, as a colex rank among the squares the men leave free;
//! - the other side's kings, among the squares still free.
//!
//! So the positions with the same men (a "men configuration") lie together, and king moves,
//! the only reversible ones, stay inside it. Men placed on the same square give an index no
//! position has; such configurations are skipped and their entries mark nothing.

use crate::games::checkers::board::{Bitboard, Squares};
use crate::games::checkers::{Color, Position};

/// Squares a man of the side to move (Black) may stand on: 1-28.
pub const MOVER_MEN_SQUARES: Bitboard = 0x0FFF_FFFF;
/// Squares a man of the other side (White) may stand on: 5-32.
pub const OTHER_MEN_SQUARES: Bitboard = 0xFFFF_FFF0;

/// The most pieces a slice's index is built for (the binomial table's reach).
pub const MAX_PIECES: u32 = 12;

/// A slice's material from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    pub men: u8,
    pub kings: u8,
    pub other_men: u8,
    pub other_kings: u8,
}

impl Material {
    pub fn of(pos: &Position) -> Material {
        let (me, them) = (pos.turn(), pos.turn().opposite());
        let count = |b: Bitboard| b.count_ones() as u8;
        Material {
            men: count(pos.men(me)),
            kings: count(pos.kings_of(me)),
            other_men: count(pos.men(them)),
            other_kings: count(pos.kings_of(them)),
        }
    }

    pub fn pieces(self) -> u32 {
        (self.men + self.kings + self.other_men + self.other_kings) as u32
    }

    pub fn total_men(self) -> u32 {
        (self.men + self.other_men) as u32
    }

    /// The material seen from the other side: where the positions after this slice's king
    /// moves are stored.
    pub fn mirrored(self) -> Material {
        Material {
            men: self.other_men,
            kings: self.other_kings,
            other_men: self.men,
            other_kings: self.kings,
        }
    }

    /// Every material of `pieces` pieces in all, both sides' counts included.
    pub fn all_with(pieces: u32) -> Vec<Material> {
        let n = pieces as u8;
        let mut out = Vec::new();
        for men in 0..=n {
            for kings in 0..=n - men {
                for other_men in 0..=n - men - kings {
                    let other_kings = n - men - kings - other_men;
                    out.push(Material {
                        men,
                        kings,
                        other_men,
                        other_kings,
                    });
                }
            }
        }
        out
    }

    /// The slice's name in file names and messages: mover's men, kings, then the other's.
    pub fn name(self) -> String {
        format!(
            "{}{}{}{}",
            self.men, self.kings, self.other_men, self.other_kings
        )
    }

    /// Men configurations in the slice (some invalid: men on one square).
    pub fn configs(self) -> u64 {
        binomial(28, self.men as u32) * binomial(28, self.other_men as u32)
    }

    /// Squares left for the kings once the men stand.
    fn free(self) -> u32 {
        32 - self.total_men()
    }

    /// Positions per men configuration: both sides' kings on the free squares.
    pub fn kings_per_config(self) -> u64 {
        let free = self.free();
        binomial(free, self.kings as u32)
            * binomial(free - self.kings as u32, self.other_kings as u32)
    }

    /// Entries in the slice (its index range).
    pub fn entries(self) -> u64 {
        self.configs() * self.kings_per_config()
    }
}

/// One men configuration: the mover's and the other side's men.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub men: Bitboard,
    pub other_men: Bitboard,
}

impl Config {
    /// The configuration with the given number, or `None` where two men share a square.
    pub fn at(material: Material, number: u64) -> Option<Config> {
        let others = binomial(28, material.other_men as u32);
        let men = scatter(
            unrank(number / others, material.men as u32),
            MOVER_MEN_SQUARES,
        );
        let other_men = scatter(
            unrank(number % others, material.other_men as u32),
            OTHER_MEN_SQUARES,
        );
        (men & other_men == 0).then_some(Config { men, other_men })
    }

    pub fn number(self) -> u64 {
        let others = binomial(28, self.other_men.count_ones());
        rank(self.men, MOVER_MEN_SQUARES) * others + rank(self.other_men, OTHER_MEN_SQUARES)
    }

    /// How far the men have come: each man's rows from its own back rank. Every man move
    /// adds exactly one, and the colour mirror keeps it, so configurations solved from the
    /// highest down find every man move's result already solved.
    pub fn advance(self) -> u32 {
        let rows = |b: Bitboard| Squares(b).map(|s| (s / 4) as u32).sum::<u32>();
        rows(self.men) + 7 * self.other_men.count_ones() - rows(self.other_men)
    }

    /// The configuration seen from the other side (as in `Material::mirrored`).
    pub fn mirrored(self) -> Config {
        Config {
            men: self.other_men.reverse_bits(),
            other_men: self.men.reverse_bits(),
        }
    }

    /// The position of the configuration with its kings number `kings` (Black to move).
    pub fn position(self, material: Material, kings: u64) -> Position {
        let free = !(self.men | self.other_men);
        let theirs = binomial(
            free.count_ones() - material.kings as u32,
            material.other_kings as u32,
        );
        let mine = scatter(unrank(kings / theirs, material.kings as u32), free);
        let other = scatter(
            unrank(kings % theirs, material.other_kings as u32),
            free & !mine,
        );
        Position::from_bitboards(
            self.men | mine,
            self.other_men | other,
            mine | other,
            Color::Black,
        )
        .expect("disjoint by construction")
    }
}

/// The slice and index of a position, whichever side is to move.
pub fn locate(pos: &Position) -> (Material, u64) {
    let pos = match pos.turn() {
        Color::Black => *pos,
        Color::White => pos.mirrored(),
    };
    let material = Material::of(&pos);
    let config = Config {
        men: pos.men(Color::Black),
        other_men: pos.men(Color::White),
    };
    (
        material,
        config.number() * material.kings_per_config() + kings_number(&pos, config),
    )
}

/// A position of `pieces` pieces drawn uniformly from the databases' (either side to move).
pub fn random_position(pieces: u32, rng: &mut impl rand::Rng) -> Position {
    let slices = Material::all_with(pieces);
    let total: u64 = slices.iter().map(|m| m.entries()).sum();
    loop {
        let mut at = rng.random_range(0..total);
        let material = *slices
            .iter()
            .find(|m| {
                let inside = at < m.entries();
                if !inside {
                    at -= m.entries();
                }
                inside
            })
            .expect("at < total");
        let per = material.kings_per_config();
        if let Some(config) = Config::at(material, at / per) {
            let pos = config.position(material, at % per);
            return if rng.random() { pos } else { pos.mirrored() };
        }
    }
}

/// The kings' part of a (Black to move) position's index within its configuration.
pub fn kings_number(pos: &Position, config: Config) -> u64 {
    let free = !(config.men | config.other_men);
    let mine = pos.kings_of(Color::Black);
    let other = pos.kings_of(Color::White);
    let theirs = binomial(free.count_ones() - mine.count_ones(), other.count_ones());
    rank(mine, free) * theirs + rank(other, free & !mine)
}

/// n choose k for n <= 32, k <= MAX_PIECES (0 when k > n).
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

static BINOMIAL: [[u64; MAX_PIECES as usize + 1]; 33] = {
    let mut t = [[0u64; MAX_PIECES as usize + 1]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES as usize {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The colex rank of `set` among the squares of `universe` (each square of `set` numbered by
/// how many squares of `universe` lie below it).
fn rank(set: Bitboard, universe: Bitboard) -> u64 {
    Squares(set)
        .enumerate()
        .map(|(i, sq)| {
            let below = (universe & ((1u32 << sq) - 1)).count_ones();
            binomial(below, i as u32 + 1)
        })
        .sum()
}

/// The `k`-subset of 0..32 with colex rank `r`, as a bit set of positions.
fn unrank(mut r: u64, k: u32) -> u32 {
    let mut out = 0u32;
    for i in (1..=k).rev() {
        // The largest c with C(c, i) <= r.
        let mut c = i - 1;
        while binomial(c + 1, i) <= r {
            c += 1;
        }
        r -= binomial(c, i);
        out |= 1 << c;
    }
    out
}

/// Puts the bits of `positions` onto the squares of `universe`: bit j goes to the j-th lowest
/// square of `universe`.
fn scatter(positions: u32, universe: Bitboard) -> Bitboard {
    // Walks both sets together, lowest first, without allocating: it runs once for every
    // position a build solves.
    let (mut out, mut rest, mut j) = (0, universe, 0u32);
    while rest != 0 {
        let low = rest & rest.wrapping_neg();
        if positions & (1 << j) != 0 {
            out |= low;
        }
        rest &= rest - 1;
        j += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_of_a_slice_locates_back_to_itself() {
        for material in [
            Material {
                men: 1,
                kings: 1,
                other_men: 1,
                other_kings: 0,
            },
            Material {
                men: 0,
                kings: 2,
                other_men: 0,
                other_kings: 1,
            },
            Material {
                men: 2,
                kings: 0,
                other_men: 1,
                other_kings: 1,
            },
        ] {
            let mut valid = 0;
            for number in 0..material.configs() {
                let Some(config) = Config::at(material, number) else {
                    continue;
                };
                assert_eq!(config.number(), number);
                for k in 0..material.kings_per_config() {
                    let pos = config.position(material, k);
                    let index = number * material.kings_per_config() + k;
                    assert_eq!(locate(&pos), (material, index));
                    assert_eq!(locate(&pos.mirrored()), (material, index));
                    valid += 1;
                }
            }
            assert!(valid > 0);
        }
    }

    #[test]
    fn mirroring_a_configuration_keeps_its_advance() {
        let material = Material {
            men: 2,
            kings: 0,
            other_men: 1,
            other_kings: 0,
        };
        for number in 0..material.configs() {
            if let Some(c) = Config::at(material, number) {
                assert_eq!(c.mirrored().advance(), c.advance());
                assert_eq!(c.mirrored().mirrored(), c);
            }
        }
    }
}
