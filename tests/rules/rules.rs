//! Each rule of English checkers (WCDF), by name, on hand-built positions.

use checkers_zero::agents::AgentSpec;
use checkers_zero::arena::{GameConfig, play_game};
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::{
    Color, DrawReason, Game, Outcome, Position, WinReason, legal_moves, move_to_pdn, parse_fen,
    parse_move,
};

fn pdn_moves(fen: &str) -> Vec<String> {
    let mut v: Vec<String> = legal_moves(&parse_fen(fen).unwrap())
        .iter()
        .map(move_to_pdn)
        .collect();
    v.sort();
    v
}

#[test]
fn start_position_and_first_moves() {
    let start = Position::start();
    assert_eq!(start.turn(), Color::Black, "Black moves first");
    assert_eq!(start.pieces(Color::Black), 0xFFF, "Black on 1-12");
    assert_eq!(start.pieces(Color::White), 0xFFF0_0000, "White on 21-32");
    assert_eq!(
        pdn_moves("B:W21-32:B1-12"),
        ["10-14", "10-15", "11-15", "11-16", "12-16", "9-13", "9-14"]
    );
}

#[test]
fn men_move_forward_only_and_kings_move_both_ways() {
    // The man on 14 may go to 17 or 18 (not back to 9 or 10); the king on 18 goes any way.
    assert_eq!(
        pdn_moves("B:W32:B14,K18"),
        ["14-17", "18-15", "18-22", "18-23"]
    );
    assert_eq!(
        parse_move(&parse_fen("B:W32:B14").unwrap(), "14-10")
            .unwrap_err()
            .0,
        "14-10 is not legal: a man cannot move backwards"
    );
    // White's men move toward square 1.
    assert_eq!(pdn_moves("W:W22:B1"), ["22-17", "22-18"]);
}

#[test]
fn capture_is_compulsory() {
    let fen = "B:W18:B14,1";
    assert_eq!(
        pdn_moves(fen),
        ["14x23"],
        "the steps 1-5 and 1-6 are not allowed"
    );
    let e = parse_move(&parse_fen(fen).unwrap(), "1-6").unwrap_err();
    assert_eq!(
        e.0,
        "1-6 is not legal: capture is compulsory: 14x23 is available"
    );
}

#[test]
fn any_capture_may_be_chosen_no_majority_rule() {
    // A double jump and a single jump: either may be played.
    assert_eq!(pdn_moves("B:W10,17,19:B6,13"), ["13x22", "6x15x24"]);
}

#[test]
fn multi_jump_is_completed_by_the_same_piece() {
    let pos = parse_fen("B:W10,17,19:B6,13").unwrap();
    // Stopping after the first jump is not a move.
    let e = parse_move(&pos, "6x15").unwrap_err().0;
    assert!(
        e.contains("this piece must capture: 6x15x24 is available"),
        "{e}"
    );
    // Short and full forms name the same whole turn, which removes both pieces.
    let short = parse_move(&pos, "6x24").unwrap();
    assert_eq!(short, parse_move(&pos, "6x15x24").unwrap());
    let after = pos.apply(&short);
    assert_eq!(after.turn(), Color::White);
    assert_eq!(
        checkers_zero::games::checkers::to_fen(&after),
        "W:W17:B13,24"
    );
}

#[test]
fn crowning_ends_the_move() {
    // The man on 22 jumps 26 and lands on 31, White's back rank. As a king it could jump 27
    // next, but crowning ends the move.
    let fen = "B:W26,27:B22";
    assert_eq!(pdn_moves(fen), ["22x31"]);
    let after = parse_fen(fen)
        .unwrap()
        .apply(&legal_moves(&parse_fen(fen).unwrap())[0]);
    assert_eq!(checkers_zero::games::checkers::to_fen(&after), "W:W27:BK31");
    // A piece that was already a king jumps on through the king row.
    assert_eq!(pdn_moves("B:W26,27:BK22"), ["22x31x24"]);
}

#[test]
fn a_player_with_no_legal_move_loses() {
    // Blocked: the man on 28 can neither step nor jump.
    let blocked: Game = Game::from_position(parse_fen("B:W32:B28").unwrap());
    assert_eq!(
        blocked.outcome(),
        Some(Outcome::Win(Color::White, WinReason::NoMoves))
    );
    // No pieces left.
    let empty: Game = Game::from_position(parse_fen("B:WK1:B").unwrap());
    assert_eq!(
        empty.outcome(),
        Some(Outcome::Win(Color::White, WinReason::NoMoves))
    );
    assert_eq!(empty.outcome().unwrap().pdn_result(), "1-0");
}

#[test]
fn threefold_repetition_is_a_draw() {
    let mut game: Game = Game::from_position(parse_fen("B:WK32:BK1").unwrap());
    let cycle = ["1-6", "32-27", "6-1", "27-32"];
    for (i, mv) in cycle.iter().chain(cycle.iter()).enumerate() {
        assert_eq!(game.outcome(), None, "not over before ply {i}");
        game.play_text(mv).unwrap();
    }
    // The start position has now occurred three times with Black to move.
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    game.undo();
    assert_eq!(
        game.outcome(),
        None,
        "a second occurrence is not yet a draw"
    );
}

/// Finds a walk of king moves that never captures, never lets the opponent capture and never
/// repeats a position three times, so only the 40-move rule can end it.
fn quiet_king_walk(game: &mut Game, plies: usize) -> bool {
    if plies == 0 {
        return true;
    }
    for mv in game.legal_moves() {
        let next = game.position().apply(&mv);
        let gives_capture = legal_moves(&next).first().is_some_and(|m| m.is_capture());
        if mv.is_capture() || gives_capture {
            continue;
        }
        game.play(mv);
        if game.repetitions() < 3 && quiet_king_walk(game, plies - 1) {
            return true;
        }
        game.undo();
    }
    false
}

#[test]
fn forty_move_rule_is_a_draw() {
    let mut game: Game = Game::from_position(parse_fen("B:WK32,K31:BK1,K2").unwrap());
    assert!(quiet_king_walk(&mut game, 79));
    assert_eq!(game.quiet_plies(), 79);
    assert_eq!(game.outcome(), None, "39.5 moves each is not yet a draw");
    assert!(quiet_king_walk(&mut game, 1));
    assert_eq!(game.quiet_plies(), 80);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::FortyMoveRule))
    );
}

#[test]
fn man_moves_and_captures_restart_the_forty_move_count() {
    let mut game: Game = Game::from_position(parse_fen("B:W18,K32:B14,K1").unwrap());
    game.play_text("14x23").unwrap();
    assert_eq!(game.quiet_plies(), 0, "capture");
    game.play_text("32-28").unwrap();
    game.play_text("1-6").unwrap();
    assert_eq!(game.quiet_plies(), 2, "king moves count");
    game.play_text("28-24").unwrap();
    game.play_text("23-26").unwrap();
    assert_eq!(game.quiet_plies(), 0, "man move");
}

#[test]
fn length_cap_adjudicates_only_when_asked() {
    let spec: AgentSpec = "random".parse().unwrap();
    let (mut a, mut b) = (
        spec.build::<Checkers>(1).unwrap(),
        spec.build::<Checkers>(2).unwrap(),
    );
    let capped = play_game(
        a.as_mut(),
        b.as_mut(),
        Game::new(),
        GameConfig {
            max_plies: Some(12),
            exact_endings: false,
        },
    );
    assert_eq!(capped.ply(), 12);
    assert!(matches!(
        capped.outcome(),
        Some(Outcome::Draw(DrawReason::Adjudication) | Outcome::Win(_, WinReason::Adjudication))
    ));
    let full = play_game(a.as_mut(), b.as_mut(), Game::new(), GameConfig::default());
    assert!(matches!(
        full.outcome(),
        Some(
            Outcome::Win(_, WinReason::NoMoves)
                | Outcome::Draw(DrawReason::Repetition | DrawReason::FortyMoveRule)
        )
    ));
}

#[test]
fn adjudication_counts_pieces_then_kings() {
    use checkers_zero::games::checkers::adjudicate;
    let more_pieces = parse_fen("B:W30,31:BK1,2,3").unwrap();
    assert_eq!(
        adjudicate(&more_pieces),
        Outcome::Win(Color::Black, WinReason::Adjudication)
    );
    let more_kings = parse_fen("B:WK30,K31:BK1,2").unwrap();
    assert_eq!(
        adjudicate(&more_kings),
        Outcome::Win(Color::White, WinReason::Adjudication)
    );
    let level = parse_fen("B:WK30,31:BK1,2").unwrap();
    assert_eq!(adjudicate(&level), Outcome::Draw(DrawReason::Adjudication));
}
