//! The contract of `games::Rules`, checked the same way for every game: generic
//! `contract_*` functions, instantiated for each game by `contract_tests!` at the bottom.
//! Whatever search, training and play will assume of a game is stated here once.

use checkers_zero::games::side::{Color, Outcome};
use checkers_zero::games::{Checkers, NetInput, Othello, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, HashSet};

/// Published perft counts from the start, depth 0 first: checkers counting every capture
/// route (OEIS A133046), Othello counting a pass as a move.
const CHECKERS_PERFT: &[u64] = &[1, 7, 49, 302, 1469, 7361, 36768, 179740];
const OTHELLO_PERFT: &[u64] = &[1, 4, 12, 56, 244, 1396, 8200, 55092, 390216];

/// Random games per game; enough to reach multi-jumps, kings, passes and both kinds of end.
const PLAYOUTS: u64 = 40;
/// No game here lasts longer: checkers' draw rules end a random game well before.
const MAX_ACTIONS: usize = 2000;

fn perft<G: Rules>(pos: &G::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    G::legal_moves(pos)
        .iter()
        .map(|mv| perft::<G>(&G::apply_move(pos, mv), depth - 1))
        .sum()
}

/// How a random game ended.
#[derive(Debug, PartialEq)]
enum End {
    /// By the board: no legal action.
    Rules(Outcome),
    /// By a history rule: the quiet-ply limit or repetition.
    HistoryDraw,
}

/// One seeded random game in the action view, with the draw rules counted from the trait's
/// history items as the record and the search tree are to count them. Returns every state
/// visited (the last one final) and how the game ended; checks on the way what a game
/// driver relies on.
fn playout<G: Rules>(seed: u64) -> (Vec<G::State>, End) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = G::turn_start(&G::start());
    let mut states = vec![state];
    let mut quiet = 0u32;
    // Turn-start positions since the last irreversible action: the only ones that can recur.
    let mut reversible: Vec<G::Position> = vec![G::start()];
    let mut actions = Vec::new();
    for _ in 0..MAX_ACTIONS {
        actions.clear();
        G::legal_actions(&state, &mut actions);
        let outcome = G::outcome(&state);
        assert_eq!(
            outcome.is_some(),
            actions.is_empty(),
            "the game is over exactly when no action is legal: {state:?}"
        );
        if let Some(pos) = G::position(&state) {
            assert_eq!(
                G::legal_moves(&pos).is_empty(),
                actions.is_empty(),
                "moves and actions agree on whether the game is over: {state:?}"
            );
        }
        if let Some(o) = outcome {
            assert!(
                G::position(&state).is_some(),
                "a game ends at a turn boundary"
            );
            return (states, End::Rules(o));
        }
        let action = actions[rng.random_range(0..actions.len())];
        let next = G::apply(&state, action);
        if G::is_irreversible(&state, action) {
            quiet = 0;
            reversible.clear();
        } else {
            quiet += 1;
            assert!(
                G::position(&next).is_some() && G::turn(&next) != G::turn(&state),
                "a reversible action ends the turn: {action:?} in {state:?}"
            );
        }
        state = next;
        states.push(state);
        if let Some(pos) = G::position(&state) {
            reversible.push(pos);
            let seen = reversible.iter().filter(|p| **p == pos).count();
            let repeated = G::REPETITION_DRAW.is_some_and(|n| seen >= n);
            let quiet_draw = G::QUIET_DRAW_PLIES.is_some_and(|n| quiet >= n);
            if repeated || quiet_draw {
                return (states, End::HistoryDraw);
            }
        }
    }
    panic!("a random game lasted more than {MAX_ACTIONS} actions");
}

/// Every state along the seeded playouts (turn boundaries and inside turns).
fn playout_states<G: Rules>() -> Vec<G::State> {
    (0..PLAYOUTS).flat_map(|s| playout::<G>(s).0).collect()
}

/// The distinct turn-boundary positions along the seeded playouts, in order of first visit.
fn playout_positions<G: Rules>() -> Vec<G::Position> {
    let mut seen = HashSet::new();
    playout_states::<G>()
        .iter()
        .filter_map(G::position)
        .filter(|p| seen.insert(*p))
        .collect()
}

fn legal_actions<G: Rules>(state: &G::State) -> Vec<G::Action> {
    let mut out = Vec::new();
    G::legal_actions(state, &mut out);
    out
}

fn contract_perft_from_the_start<G: Rules>(expected: &[u64]) {
    for (depth, &n) in expected.iter().enumerate() {
        let name = G::NAME.name();
        assert_eq!(
            perft::<G>(&G::start(), depth as u32),
            n,
            "{name} depth {depth}"
        );
    }
}

fn contract_playouts_end_with_a_legal_outcome<G: Rules>() {
    let ends: Vec<End> = (0..PLAYOUTS).map(|s| playout::<G>(s).1).collect();
    // Random play must reach the board's own end, or the checks above saw no final state.
    assert!(
        ends.iter()
            .any(|e| matches!(e, End::Rules(Outcome::Win(..)))),
        "{ends:?}"
    );
    if G::REPETITION_DRAW.is_none() && G::QUIET_DRAW_PLIES.is_none() {
        assert!(!ends.contains(&End::HistoryDraw));
    }
    // The same seed plays the same game.
    assert_eq!(playout::<G>(7).0, playout::<G>(7).0);
}

/// A turn's complete action sequences from a turn boundary, with the positions they reach.
fn turns<G: Rules>(pos: &G::Position) -> HashSet<(Vec<G::Action>, G::Position)> {
    let mut out = HashSet::new();
    let mut stack = vec![(G::turn_start(pos), Vec::new())];
    while let Some((state, done)) = stack.pop() {
        for action in legal_actions::<G>(&state) {
            let next = G::apply(&state, action);
            let mut seq = done.clone();
            seq.push(action);
            match G::position(&next) {
                Some(p) => assert!(out.insert((seq, p)), "one sequence per turn"),
                None => {
                    assert_eq!(G::turn(&next), G::turn(&state), "a turn keeps its mover");
                    stack.push((next, seq));
                }
            }
        }
    }
    out
}

fn contract_actions_make_up_moves<G: Rules>() {
    for pos in playout_positions::<G>() {
        let moves = G::legal_moves(&pos);
        let from_moves: HashSet<(Vec<G::Action>, G::Position)> = moves
            .iter()
            .map(|mv| (G::actions_of(&pos, mv), G::apply_move(&pos, mv)))
            .collect();
        assert_eq!(
            from_moves.len(),
            moves.len(),
            "distinct moves, distinct actions"
        );
        assert_eq!(turns::<G>(&pos), from_moves, "{}", G::format_position(&pos));
    }
}

fn assert_one_line(e: &impl std::fmt::Display) {
    let text = e.to_string();
    assert!(!text.is_empty() && !text.contains('\n'), "{text:?}");
}

fn contract_notation_round_trips<G: Rules>() {
    let mut checked = 0;
    for pos in playout_positions::<G>() {
        for mv in G::legal_moves(&pos) {
            let text = G::format_move(&mv);
            assert_eq!(G::parse_move(&pos, &text), Ok(mv), "{text}");
            checked += 1;
        }
        for bad in ["", "z9", "pass pass", "1-2-3-4-5-6-7-8-9-10-11-12-13-99"] {
            match G::parse_move(&pos, bad) {
                Err(e) => assert_one_line(&e),
                Ok(mv) => panic!("{bad:?} parsed as {mv:?}"),
            }
        }
    }
    assert!(checked > 1000, "only {checked} moves checked");
}

fn contract_text_form_round_trips<G: Rules>() {
    for pos in playout_positions::<G>() {
        let text = G::format_position(&pos);
        assert_eq!(G::parse_position(&text), Ok(pos), "{text}");
        assert!(!text.contains('\n'), "{text:?}");
    }
    for bad in ["", "B:W:B:W", "X O"] {
        match G::parse_position(bad) {
            Err(e) => assert_one_line(&e),
            Ok(p) => panic!("{bad:?} parsed as {p:?}"),
        }
    }
}

fn contract_hash_tells_positions_apart<G: Rules>() {
    let positions = playout_positions::<G>();
    let hashes: HashSet<u64> = positions.iter().map(G::hash).collect();
    assert_eq!(
        hashes.len(),
        positions.len(),
        "a 64-bit collision is not expected"
    );
}

fn contract_policy_index_is_a_bijection_on_legal_actions<G: Rules>() {
    for state in playout_states::<G>() {
        let mut seen = HashSet::new();
        for action in legal_actions::<G>(&state) {
            let i = G::policy_index(&state, action);
            assert!(i < G::POLICY_SIZE, "{action:?}: index {i}");
            assert!(seen.insert(i), "{action:?} shares index {i} in {state:?}");
            assert_eq!(G::action_at(&state, i), action, "index {i} in {state:?}");
        }
    }
}

fn contract_encoding_fills_the_planes_and_tells_positions_apart<G: Rules>() {
    let enc = G::Encoding::default();
    let len = G::planes(&enc) * G::BOARD[0] * G::BOARD[1];
    // What the network sees, per side to move (the view is the mover's), to each position.
    let mut views: HashMap<(Color, Vec<u32>), G::Position> = HashMap::new();
    for pos in playout_positions::<G>() {
        let state = G::turn_start(&pos);
        let actions = legal_actions::<G>(&state);
        let input = NetInput::<G> {
            state: &state,
            quiet: 0,
            history: &[],
            actions: &actions,
        };
        let mut out = vec![f32::NAN; len];
        G::encode(&enc, &input, &mut out);
        assert!(out.iter().all(|x| x.is_finite()), "every value written");
        let key = (G::turn(&state), out.iter().map(|x| x.to_bits()).collect());
        if let Some(other) = views.insert(key, pos) {
            panic!("{pos:?} and {other:?} look the same to the network");
        }
    }
}

fn contract_symmetries_preserve_the_rules<G: Rules>(expected: &[u64]) {
    let identity = G::SYMMETRIES[0];
    for state in playout_states::<G>() {
        assert_eq!(G::transform_state(identity, &state), state);
        let legal = legal_actions::<G>(&state);
        for &sym in G::SYMMETRIES {
            let image = G::transform_state(sym, &state);
            assert_eq!(G::position(&image).is_some(), G::position(&state).is_some());
            let mapped: HashSet<G::Action> =
                legal.iter().map(|&a| G::transform_action(sym, a)).collect();
            let image_legal: HashSet<G::Action> = legal_actions::<G>(&image).into_iter().collect();
            assert_eq!(mapped, image_legal, "{sym:?} of {state:?}");
            assert_eq!(mapped.len(), legal.len(), "{sym:?} is one-to-one");
            // A symmetry that hands the move to the other side swaps the colours.
            let swapped = G::turn(&image) != G::turn(&state);
            let expected = G::outcome(&state).map(|o| match o {
                Outcome::Win(c, why) if swapped => Outcome::Win(c.opposite(), why),
                o => o,
            });
            assert_eq!(G::outcome(&image), expected, "{sym:?} of {state:?}");
            for &a in &legal {
                let applied = G::apply(&image, G::transform_action(sym, a));
                assert_eq!(applied, G::transform_state(sym, &G::apply(&state, a)));
            }
        }
    }
    for &sym in G::SYMMETRIES {
        let image = G::transform_state(sym, &G::turn_start(&G::start()));
        let start = G::position(&image).expect("the start's image is a turn boundary");
        for (depth, &n) in expected.iter().enumerate() {
            assert_eq!(perft::<G>(&start, depth as u32), n, "{sym:?} depth {depth}");
        }
    }
}

/// The material lead is nothing at the start, one side's gain the other's loss, and inside
/// (-1, 1) everywhere.
fn contract_material_lead_is_one_sides_gain_and_the_others_loss<G: Rules>() {
    assert_eq!(G::material_lead(&G::start(), Color::Black), 0.0);
    for pos in playout_positions::<G>() {
        let black = G::material_lead(&pos, Color::Black);
        let white = G::material_lead(&pos, Color::White);
        assert!(
            black.abs() < 1.0 && black == -white,
            "{}",
            G::format_position(&pos)
        );
    }
}

macro_rules! contract_tests {
    ($module:ident, $game:ty, $perft:expr) => {
        mod $module {
            use super::*;

            #[test]
            fn perft_from_the_start() {
                contract_perft_from_the_start::<$game>($perft);
            }

            #[test]
            fn playouts_end_with_a_legal_outcome() {
                contract_playouts_end_with_a_legal_outcome::<$game>();
            }

            #[test]
            fn actions_make_up_moves() {
                contract_actions_make_up_moves::<$game>();
            }

            #[test]
            fn notation_round_trips() {
                contract_notation_round_trips::<$game>();
            }

            #[test]
            fn text_form_round_trips() {
                contract_text_form_round_trips::<$game>();
            }

            #[test]
            fn hash_tells_positions_apart() {
                contract_hash_tells_positions_apart::<$game>();
            }

            #[test]
            fn policy_index_is_a_bijection_on_legal_actions() {
                contract_policy_index_is_a_bijection_on_legal_actions::<$game>();
            }

            #[test]
            fn encoding_fills_the_planes_and_tells_positions_apart() {
                contract_encoding_fills_the_planes_and_tells_positions_apart::<$game>();
            }

            #[test]
            fn material_lead_is_one_sides_gain_and_the_others_loss() {
                contract_material_lead_is_one_sides_gain_and_the_others_loss::<$game>();
            }

            #[test]
            fn symmetries_preserve_the_rules() {
                contract_symmetries_preserve_the_rules::<$game>($perft);
            }
        }
    };
}

contract_tests!(checkers, Checkers, CHECKERS_PERFT);
contract_tests!(othello, Othello, OTHELLO_PERFT);

/// Checkers counts a king as one and a half men, Othello each disc, before the squashing.
#[test]
fn material_is_men_and_kings_or_discs() {
    let pos = Checkers::parse_position("W:WK14,K19:B12,K28").unwrap();
    // The expected values computed at run time, as the leads are (constant folding may
    // round tanh differently).
    let squash = |lead: f32| std::hint::black_box(lead).tanh();
    assert_eq!(Checkers::material_lead(&pos, Color::White), squash(0.25));
    let start = Othello::start();
    let first = Othello::legal_moves(&start)[0];
    let after = Othello::apply_move(&start, &first);
    assert_eq!(
        Othello::material_lead(&after, Color::Black),
        squash(3.0 / 16.0)
    );
}
