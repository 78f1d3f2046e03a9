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
use crate::games::checkers::movegen::generate;
use crate::games::checkers::{Move, Position};
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

/// Solves one configuration (with its mirror): its entries, side by side, each its kings'
/// number in order.
fn solve_config(material: Material, config: Config, lookup: &Lookup) -> Vec<(u8, u16)> {
    let sides = sides(material, config);
    let k = material.kings_per_config() as usize;
    let n = sides.len() * k;
    let mut value = vec![UNKNOWN; n];
    let mut distance = vec![0u16; n];
    let mut open_moves = vec![0u8; n];
    let mut can_lose = vec![true; n];
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut layers: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    let mut moves = Vec::with_capacity(32);
    for (side, &(m, c)) in sides.iter().enumerate() {
        let other_side = (side + 1) % sides.len();
        let other_config = sides[other_side].1;
        for kings in 0..k {
            let at = side * k + kings;
            let pos = c.position(m, kings as u64);
            moves.clear();
            generate(&pos, &mut moves);
            let (mut win, mut draw, mut reversible) = (false, false, 0u8);
            for mv in &moves {
                let next = pos.apply(mv);
                if converts(&pos, mv) {
                    match Value::from_code(lookup.probe(&next).0) {
                        Some(Value::Loss) => win = true,
                        Some(Value::Draw) => draw = true,
                        Some(Value::Win) => {}
                        None => unreachable!("a converting move's result is solved first"),
                    }
                } else {
                    let kn = kings_number(&next.mirrored(), other_config) as usize;
                    edges.push(((other_side * k + kn) as u32, at as u32));
                    reversible += 1;
                }
            }
            let resolved = if moves.is_empty() {
                Some((Value::Loss, 0))
            } else if win {
                Some((Value::Win, 1))
            } else if reversible == 0 {
                Some(if draw {
                    (Value::Draw, 0)
                } else {
                    (Value::Loss, 1)
                })
            } else {
                open_moves[at] = reversible;
                can_lose[at] = !draw;
                None
            };
            if let Some((v, d)) = resolved {
                value[at] = v.code();
                distance[at] = d;
                if v != Value::Draw {
                    layers[d as usize].push(at as u32);
                }
            }
        }
    }
    // Each position's predecessors by a king move, grouped by the position they reach.
    edges.sort_unstable();
    let mut starts = vec![0u32; n + 1];
    for &(to, _) in &edges {
        starts[to as usize + 1] += 1;
    }
    for i in 0..n {
        starts[i + 1] += starts[i];
    }
    let mut d = 0;
    while d < layers.len() {
        let layer = std::mem::take(&mut layers[d]);
        for &p in &layer {
            let lost = value[p as usize] == Value::Loss.code();
            for &(_, q) in &edges[starts[p as usize] as usize..starts[p as usize + 1] as usize] {
                let q = q as usize;
                if value[q] != UNKNOWN {
                    continue;
                }
                open_moves[q] -= 1;
                let now = if lost {
                    Some(Value::Win)
                } else if open_moves[q] == 0 && can_lose[q] {
                    Some(Value::Loss)
                } else {
                    None
                };
                if let Some(v) = now {
                    value[q] = v.code();
                    distance[q] = d as u16 + 1;
                    if layers.len() <= d + 1 {
                        layers.push(Vec::new());
                    }
                    layers[d + 1].push(q as u32);
                }
            }
        }
        d += 1;
    }
    value
        .into_iter()
        .zip(distance)
        .map(|(v, d)| {
            if v == UNKNOWN {
                (Value::Draw.code(), 0)
            } else {
                (v, d)
            }
        })
        .collect()
}
