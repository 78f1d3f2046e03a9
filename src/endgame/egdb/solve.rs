//! Retrograde analysis of one pair of slices: a material and its mirror (the positions after
//! the mover's king moves), solved together.
//!
//! Men configurations are solved from the most advanced down (`Config::advance`): a man move
//! raises the advance by one, a capture or a crowning leaves the pair for a slice solved
//! before, so every such move's result is known when a configuration is solved. Inside a
//! configuration only king moves remain. They are solved backwards from the known results,
//! one distance at a time: a position is won at distance d+1 once a king move reaches a
//! position lost at d, lost at d+1 once its last king move reaches a position won at d and no
//! other move saves it; what is never reached is drawn (play can go round forever). Distances
//! count plies to the next conversion: a capture or a man move.

use super::Value;
use super::file::{pack, unpack};
use super::index::{Config, Material, kings_number, locate};
use crate::games::checkers::board::{Dir, Squares, neighbour};
use crate::games::checkers::movegen::{generate, jumpers};
use crate::games::checkers::{Color, Move, Position};
use rayon::prelude::*;
use std::collections::HashMap;

/// Value codes in the tables: 0 is "no position" (or, while solving, "not known yet").
const UNKNOWN: u8 = 0;

/// Finished slices' values, two bits a position (all that later slices read of them).
#[derive(Default)]
pub struct Known {
    slices: HashMap<Material, Vec<u8>>,
}

impl Known {
    pub fn insert(&mut self, material: Material, values: &[u8]) {
        self.slices.insert(material, pack(values));
    }

    fn get(&self, material: Material, index: u64) -> u8 {
        unpack(&self.slices[&material], index as usize)
    }
}

/// A slice being solved (or checked): its value codes and distances, all positions.
pub struct Table {
    pub material: Material,
    pub values: Vec<u8>,
    pub distances: Vec<u16>,
}

impl Table {
    fn new(material: Material) -> Table {
        let n = material.entries() as usize;
        Table {
            material,
            values: vec![UNKNOWN; n],
            distances: vec![0; n],
        }
    }
}

/// Where the values of a move's result are read: the pair's own tables, else a finished slice.
pub struct Lookup<'a> {
    pub known: &'a Known,
    pub pair: [&'a Table; 2],
}

impl Lookup<'_> {
    /// The value code and distance of `pos` for its side to move.
    pub fn probe(&self, pos: &Position) -> (u8, u16) {
        let (material, index) = locate(pos);
        for t in self.pair {
            if t.material == material {
                let i = index as usize;
                return (t.values[i], t.distances[i]);
            }
        }
        (self.known.get(material, index), 0)
    }
}

/// A move leaves its men configuration (a capture or a man move): it converts.
fn converts(pos: &Position, mv: &Move) -> bool {
    pos.is_irreversible(mv)
}

/// What a position's value and distance must be, given its moves' results: the rule every
/// entry satisfies, which `verify` checks entry by entry.
pub fn implied(pos: &Position, lookup: &Lookup, moves: &mut Vec<Move>) -> (u8, u16) {
    moves.clear();
    generate(pos, moves);
    if moves.is_empty() {
        return (Value::Loss.code(), 0);
    }
    let (mut win, mut draw, mut longest) = (None::<u16>, false, 0u16);
    for mv in moves.iter() {
        let (value, distance) = lookup.probe(&pos.apply(mv));
        let plies = if converts(pos, mv) { 1 } else { distance + 1 };
        match Value::from_code(value) {
            Some(Value::Loss) => win = Some(win.map_or(plies, |w| w.min(plies))),
            Some(Value::Draw) => draw = true,
            Some(Value::Win) => longest = longest.max(plies),
            None => return (UNKNOWN, 0),
        }
    }
    match (win, draw) {
        (Some(d), _) => (Value::Win.code(), d),
        (None, true) => (Value::Draw.code(), 0),
        (None, false) => (Value::Loss.code(), longest),
    }
}

/// Solves the slice `material` and its mirror (one table when they are the same slice).
pub fn solve_pair(material: Material, known: &Known, on_done: &(dyn Fn(u64) + Sync)) -> Vec<Table> {
    let mirror = material.mirrored();
    let mut tables = vec![Table::new(material)];
    if mirror != material {
        tables.push(Table::new(mirror));
    }
    // Configurations of the first slice, each standing for itself and its mirror (when the
    // pair is one slice, the lower-numbered of a configuration and its mirror).
    let mut by_advance: Vec<Vec<Config>> = Vec::new();
    for number in 0..material.configs() {
        let Some(config) = Config::at(material, number) else {
            continue;
        };
        if mirror == material && config.mirrored().number() < number {
            continue;
        }
        let a = config.advance() as usize;
        if by_advance.len() <= a {
            by_advance.resize(a + 1, Vec::new());
        }
        by_advance[a].push(config);
    }
    let per_config = material.kings_per_config();
    for group in by_advance.iter().rev() {
        let solved: Vec<(Config, Vec<(u8, u16)>)> = {
            let lookup = Lookup {
                known,
                pair: [&tables[0], tables.last().expect("one table at least")],
            };
            group
                .par_iter()
                .map(|&config| {
                    let out = solve_config(material, config, &lookup);
                    on_done(out.len() as u64);
                    (config, out)
                })
                .collect()
        };
        for (config, entries) in solved {
            let sides = sides(material, config);
            for (side, (m, c)) in sides.iter().enumerate() {
                let table = tables
                    .iter_mut()
                    .find(|t| t.material == *m)
                    .expect("a pair table");
                let base = (c.number() * per_config) as usize;
                let part = &entries[side * per_config as usize..(side + 1) * per_config as usize];
                for (k, &(v, d)) in part.iter().enumerate() {
                    table.values[base + k] = v;
                    table.distances[base + k] = d;
                }
            }
        }
    }
    tables
}

/// The (slice, configuration) sides solved together: the configuration and its mirror, or
/// the one when it is its own mirror in its own slice.
fn sides(material: Material, config: Config) -> Vec<(Material, Config)> {
    let other = (material.mirrored(), config.mirrored());
    if other == (material, config) {
        vec![(material, config)]
    } else {
        vec![(material, config), other]
    }
}

/// A position's state while its configuration is solved.
#[derive(Clone, Copy, Default)]
struct Entry {
    value: u8,
    distance: u16,
    /// King moves whose results are not yet known.
    open: u8,
    /// No converting move draws: once every king move is known to lose, so does this.
    can_lose: bool,
}

/// Positions a first-pass task classifies (large configurations, kings only, are split).
const CHUNK: usize = 1 << 14;

/// Solves one configuration (with its mirror): its entries, side by side, each its kings'
/// number in order.
///
/// The king moves into a position are generated backwards (a king of the side that just
/// moved steps back to an empty neighbour, where that side had no capture to make) rather
/// than stored: a kings-only slice is one configuration of hundreds of millions of positions,
/// and its move list would not fit in memory.
fn solve_config(material: Material, config: Config, lookup: &Lookup) -> Vec<(u8, u16)> {
    let sides = sides(material, config);
    let k = material.kings_per_config() as usize;
    let n = sides.len() * k;
    let position = |at: usize| {
        let (m, c) = sides[at / k];
        c.position(m, (at % k) as u64)
    };
    let mut entries = vec![Entry::default(); n];
    entries
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(chunk, part)| {
            let mut moves = Vec::with_capacity(32);
            for (i, entry) in part.iter_mut().enumerate() {
                *entry = first_pass(&position(chunk * CHUNK + i), lookup, &mut moves);
            }
        });
    let mut layers: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    for (at, e) in entries.iter().enumerate() {
        if e.value != UNKNOWN && e.value != Value::Draw.code() {
            layers[e.distance as usize].push(at as u32);
        }
    }
    let mut d = 0;
    while d < layers.len() {
        let layer = std::mem::take(&mut layers[d]);
        for &p in &layer {
            let p = p as usize;
            let lost = entries[p].value == Value::Loss.code();
            let other = (p / k + 1) % sides.len();
            let other_config = sides[other].1;
            for before in unmoves(&position(p)) {
                let q = other * k + kings_number(&before, other_config) as usize;
                let e = &mut entries[q];
                if e.value != UNKNOWN {
                    continue;
                }
                e.open -= 1;
                let now = if lost {
                    Some(Value::Win)
                } else if e.open == 0 && e.can_lose {
                    Some(Value::Loss)
                } else {
                    None
                };
                if let Some(v) = now {
                    e.value = v.code();
                    e.distance = d as u16 + 1;
                    if layers.len() <= d + 1 {
                        layers.push(Vec::new());
                    }
                    layers[d + 1].push(q as u32);
                }
            }
        }
        d += 1;
    }
    entries
        .into_iter()
        .map(|e| {
            if e.value == UNKNOWN {
                (Value::Draw.code(), 0)
            } else {
                (e.value, e.distance)
            }
        })
        .collect()
}

/// What a position's converting moves decide, and how many king moves are left open.
fn first_pass(pos: &Position, lookup: &Lookup, moves: &mut Vec<Move>) -> Entry {
    moves.clear();
    generate(pos, moves);
    let (mut win, mut draw, mut reversible) = (false, false, 0u8);
    for mv in moves.iter() {
        if converts(pos, mv) {
            match Value::from_code(lookup.probe(&pos.apply(mv)).0) {
                Some(Value::Loss) => win = true,
                Some(Value::Draw) => draw = true,
                Some(Value::Win) => {}
                None => unreachable!("a converting move's result is solved first"),
            }
        } else {
            reversible += 1;
        }
    }
    let resolved = |v: Value, distance| Entry {
        value: v.code(),
        distance,
        ..Entry::default()
    };
    if moves.is_empty() {
        resolved(Value::Loss, 0)
    } else if win {
        resolved(Value::Win, 1)
    } else if reversible == 0 {
        if draw {
            resolved(Value::Draw, 0)
        } else {
            resolved(Value::Loss, 1)
        }
    } else {
        Entry {
            value: UNKNOWN,
            distance: 0,
            open: reversible,
            can_lose: !draw,
        }
    }
}

/// The positions (Black to move, stored orientation) whose king moves lead to `pos` (Black
/// to move): in its mirror White is to move and Black has just moved, so one of Black's
/// kings steps back to an empty neighbour; the step was legal only where Black had no
/// capture to make.
fn unmoves(pos: &Position) -> impl Iterator<Item = Position> {
    let after = pos.mirrored();
    let (black, white, kings) = (
        after.pieces(Color::Black),
        after.pieces(Color::White),
        after.kings(),
    );
    let empty = after.empty();
    Squares(after.kings_of(Color::Black)).flat_map(move |to| {
        Dir::ALL.into_iter().filter_map(move |dir| {
            let from = neighbour(to, dir)?;
            if empty & (1 << from) == 0 {
                return None;
            }
            let step = (1u32 << to) | (1u32 << from);
            let before = Position::from_bitboards(black ^ step, white, kings ^ step, Color::Black)?;
            (jumpers(&before) == 0).then_some(before)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::egdb::random_position;
    use rand::{Rng, SeedableRng};

    /// Black to move: the orientation positions are stored and solved in.
    fn stored(pos: Position) -> Position {
        match pos.turn() {
            Color::Black => pos,
            Color::White => pos.mirrored(),
        }
    }

    #[test]
    fn unmoves_are_exactly_the_king_moves_into_a_position() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut checked = 0;
        for _ in 0..3000 {
            let pieces = rng.random_range(2..=9);
            let pos = stored(random_position(pieces, &mut rng));
            let mut moves = Vec::new();
            // Every king move out of a position is an unmove of where it leads ...
            generate(&pos, &mut moves);
            for mv in moves.iter().filter(|mv| !converts(&pos, mv)) {
                let after = pos.apply(mv).mirrored();
                assert!(unmoves(&after).any(|b| b == pos), "{pos:?} {mv:?}");
                checked += 1;
            }
            // ... and every unmove of a position has a king move leading to it.
            for before in unmoves(&pos) {
                moves.clear();
                generate(&before, &mut moves);
                assert!(
                    moves
                        .iter()
                        .any(|mv| !converts(&before, mv) && before.apply(mv).mirrored() == pos),
                    "{before:?} does not reach {pos:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 3000, "{checked}");
    }
}
