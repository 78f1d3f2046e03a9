//! The baseline agents: alpha-beta against a plain minimax, determinism, limits, and the
//! yardstick result that alpha-beta depth 6 never loses to random over the ballots; the same
//! search playing Othello.

use crate::count_in;
use checkers_zero::agents::book::{Book, BookMove};
use checkers_zero::agents::{
    Agent, AgentGame, AgentSpec, Analysis, Distance, Limits, MoveScore, Player,
};
use checkers_zero::arena::{GameConfig, MatchConfig, OpeningSet, Series, play_game, run_match};
use checkers_zero::endgame::Value;
use checkers_zero::games::checkers::{
    Color, Game, Position, dedup_routes_of, legal_moves, parse_fen,
};
use checkers_zero::games::{Checkers, Othello, Outcome, Rules, othello};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::ops::Range;
use std::time::{Duration, Instant};

const WIN: i32 = 1_000_000;

/// Material from the side to move, in hundredths of a man (king 1.5).
fn player(spec: &str) -> Player {
    spec.parse::<AgentSpec>().unwrap().into()
}

fn material(pos: &Position) -> i32 {
    let side =
        |c: Color| pos.men(c).count_ones() as i32 * 100 + pos.kings_of(c).count_ones() as i32 * 150;
    side(pos.turn()) - side(pos.turn().opposite())
}

/// Minimax without pruning or tables: loss at ply p scores -(WIN - p); at depth 0 a position
/// whose side must capture is searched on (the capture extension).
fn minimax(pos: &Position, depth: i32, ply: i32) -> i32 {
    let moves = dedup_routes_of(legal_moves(pos));
    if moves.is_empty() {
        return -(WIN - ply);
    }
    if depth <= 0 && !moves[0].is_capture() {
        return material(pos);
    }
    moves
        .iter()
        .map(|m| -minimax(&pos.apply(m), (depth - 1).max(0), ply + 1))
        .max()
        .unwrap()
}

fn in_men(score: i32) -> f32 {
    if score.abs() >= WIN - 10_000 {
        score.signum() as f32 * (1000.0 - (WIN - score.abs()) as f32)
    } else {
        score as f32 / 100.0
    }
}

/// Positions from random games, kept only while no king exists (no repetitions possible).
fn men_only_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::start();
        for _ in 0..rng.random_range(4..40) {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            pos = pos.apply(&moves[rng.random_range(0..moves.len())]);
        }
        if pos.kings() == 0 && !legal_moves(&pos).is_empty() {
            out.push(pos);
        }
    }
    out
}

/// Quiet series over the standard ballots.
fn series(games: Option<usize>, seed: u64) -> Series {
    Series {
        games,
        openings: OpeningSet::Standard,
        seed,
        game: GameConfig::default(),
        progress: false,
    }
}

#[test]
fn alphabeta_scores_equal_plain_minimax() {
    for depth in [1u32, 3, 4] {
        let spec: AgentSpec = format!("alphabeta:depth={depth}").parse().unwrap();
        for pos in men_only_positions(60, depth as u64) {
            let mut agent = spec.build::<Checkers>(7).unwrap();
            let game = Game::from_position(pos);
            let analysis = agent.analyse(&game, &Limits::default()).unwrap();
            let roots = dedup_routes_of(legal_moves(&pos));
            assert_eq!(analysis.moves.len(), roots.len());
            for ms in &analysis.moves {
                let expected = in_men(-minimax(&pos.apply(&ms.mv), depth as i32 - 1, 1));
                assert_eq!(
                    ms.score,
                    expected,
                    "move {} at depth {depth} in {}",
                    ms.mv,
                    checkers_zero::games::checkers::to_fen(&pos)
                );
            }
            assert!(analysis.moves.iter().all(|m| !m.upper_bound));
            // select() searches with pruning but must find a move of the same best value, and
            // each other move's score is exact or marked as an upper bound.
            // A fresh agent: the analysis's exact table entries would hide the bounds.
            let mut fresh = spec.build::<Checkers>(7).unwrap();
            let chosen = fresh.select(&game, &Limits::default()).analysis.unwrap();
            let best = analysis.moves[0].score;
            let fen = checkers_zero::games::checkers::to_fen(&pos);
            assert_eq!(chosen.value, best, "depth {depth} {fen}");
            assert!(!chosen.moves[0].upper_bound, "{fen}");
            for ms in &chosen.moves {
                let exact = in_men(-minimax(&pos.apply(&ms.mv), depth as i32 - 1, 1));
                if ms.upper_bound {
                    assert!(ms.score >= exact, "{} at depth {depth} in {fen}", ms.mv);
                } else {
                    assert_eq!(ms.score, exact, "{} at depth {depth} in {fen}", ms.mv);
                }
            }
        }
    }
}

#[test]
fn alphabeta_is_deterministic_for_a_seed() {
    let config = MatchConfig {
        first: player("alphabeta:depth=4"),
        second: player("alphabeta:depth=3"),
        series: series(Some(6), 11),
    };
    let a = run_match(&config).unwrap();
    let b = run_match(&config).unwrap();
    assert_eq!(a.pdn(), b.pdn());
}

/// Every searching agent's principal variation starts with the move it chose and is a
/// legal line from the position (alpha-beta's from its table, the tree searches' by visits).
#[test]
fn principal_variations_are_legal_lines_from_the_chosen_move() {
    let mut game = Game::new();
    for mv in ["11-15", "23-19", "8-11", "22-17"] {
        game.play_text(mv).unwrap();
    }
    for spec in [
        "alphabeta:depth=6",
        "mcts:searches=400",
        "az:searches=200,device=cpu",
    ] {
        let mut agent = AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 3).unwrap();
        let d = agent.select(&game, &Limits::default());
        let pv = d.analysis.unwrap().pv;
        assert_eq!(pv.first(), Some(&d.mv), "{spec}");
        assert!(
            pv.len() >= 2,
            "{spec}: a search this size sees past its own move: {pv:?}"
        );
        let mut line = game.clone();
        for mv in &pv {
            assert!(line.legal_moves().contains(mv), "{spec}: {pv:?}");
            line.play(*mv);
        }
    }
}

/// Alpha-beta reports once per completed depth, deeper each time, and its last report is
/// its decision's analysis.
#[test]
fn alphabeta_reports_each_depth_deepest_last() {
    let mut game = Game::new();
    game.play_text("11-15").unwrap();
    let mut agent = AgentSpec::build::<Checkers>(&"alphabeta:depth=7".parse().unwrap(), 0).unwrap();
    let mut reports: Vec<Analysis> = Vec::new();
    let listener = &mut |a: &Analysis| reports.push(a.clone());
    let d = agent.select_reporting(&game, &Limits::default(), Some(listener));
    let depths: Vec<u64> = reports
        .iter()
        .map(|a| count_in(&a.summary, "depth"))
        .collect();
    assert_eq!(depths, (1..=7).collect::<Vec<_>>());
    assert_eq!(reports.last(), d.analysis.as_ref());
}

/// A listener changes nothing of the search: with the same seed, every searching agent
/// chooses the same move and sees the same moves with and without one, even when its
/// snapshots come in the middle of the search (the tree searches' every 200 ms).
#[test]
fn reporting_does_not_change_the_choice() {
    let mut game = Game::new();
    for mv in ["11-15", "23-19", "8-11"] {
        game.play_text(mv).unwrap();
    }
    // Each tree search starts at about a second on a slow machine and grows until snapshots
    // come during it: a faster machine can finish the first size inside one report interval.
    // Alpha-beta reports each depth, so its first size always does.
    for (agent, start, options) in [
        ("alphabeta:depth", 9, ""),
        ("mcts:searches", 60000, ""),
        ("az:searches", 6000, ",device=cpu"),
    ] {
        let build = |size: u64| {
            let spec = format!("{agent}={size}{options}");
            AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 5).unwrap()
        };
        let (mut size, mut reports) = (start, 0);
        let heard = loop {
            let listener = &mut |_: &Analysis| reports += 1;
            let heard = build(size).select_reporting(&game, &Limits::default(), Some(listener));
            if reports >= 2 {
                break heard;
            }
            assert!(size < start * 64, "{agent}={size}: {reports} reports");
            (size, reports) = (size * 4, 0);
        };
        let quiet = build(size).select(&game, &Limits::default());
        let spec = format!("{agent}={size}");
        assert_eq!(quiet.mv, heard.mv, "{spec}");
        let (quiet, heard) = (quiet.analysis.unwrap(), heard.analysis.unwrap());
        assert_eq!(quiet.moves, heard.moves, "{spec}");
        assert_eq!(quiet.pv, heard.pv, "{spec}");
    }
}

/// A forced win alpha-beta sees to the end is a proven result, as many plies off as a plain
/// minimax finds; the losing side sees the same line as a proven loss. Nothing is proven
/// where the search sees no end.
#[test]
fn alphabeta_proves_wins_and_losses_with_their_plies() {
    crate::common::without_installed_databases();
    // Black's man on 7 takes the king on 10, then the lone man on 8 is run down.
    for (fen, result, plies, words) in [
        ("B:WK10,8:BK15,7", Value::Win, 5, "win in 3 moves"),
        ("W:W8:BK15,14", Value::Loss, 4, "loss in 2 moves"),
    ] {
        let pos = parse_fen(fen).unwrap();
        assert_eq!(minimax(&pos, 9, 0).abs(), WIN - plies, "{fen}");
        let mut agent =
            AgentSpec::build::<Checkers>(&"alphabeta:depth=12".parse().unwrap(), 0).unwrap();
        let a = agent
            .select(&Game::from_position(pos), &Limits::default())
            .analysis
            .unwrap();
        let proven = a.proven.unwrap_or_else(|| panic!("{fen}: {}", a.summary));
        assert_eq!(proven.result, result, "{fen}");
        assert_eq!(proven.distance, Some(Distance::End(plies as u32)), "{fen}");
        assert_eq!(proven.describe(), words, "{fen}");
        // The best move carries the same proof; a move scored by a bound carries none.
        assert_eq!(a.moves[0].proven, Some(proven), "{fen}");
        for m in a.moves.iter().filter(|m| m.upper_bound) {
            assert_eq!(m.proven, None, "{fen}");
        }
    }
    let mut agent = AgentSpec::build::<Checkers>(&"alphabeta:depth=6".parse().unwrap(), 0).unwrap();
    let a = agent
        .select(&Game::new(), &Limits::default())
        .analysis
        .unwrap();
    assert_eq!(a.proven, None, "{}", a.summary);
    assert!(a.moves.iter().all(|m| m.proven.is_none()), "{}", a.summary);
}

/// `az`'s temperature samples its move by visits (0: always the most visited); its
/// exploration constant and temperature are in its name, which rebuilds it.
#[test]
fn az_temperature_and_exploration_settings() {
    let game = Game::new();
    let moves_with = |spec: &str| -> Vec<String> {
        (0..12)
            .map(|seed| {
                let mut a = AgentSpec::build::<Checkers>(&spec.parse().unwrap(), seed).unwrap();
                a.select(&game, &Limits::default()).mv.to_string()
            })
            .collect()
    };
    let greedy = moves_with("az:searches=64,device=cpu");
    assert!(greedy.iter().all(|m| *m == greedy[0]), "{greedy:?}");
    let sampled = moves_with("az:searches=64,device=cpu,temperature=5");
    assert!(sampled.iter().any(|m| *m != sampled[0]), "{sampled:?}");
    let a =
        AgentSpec::build::<Checkers>(&"az:c_puct=2.5,temperature=1".parse().unwrap(), 1).unwrap();
    assert_eq!(a.name(), "az:c_puct=2.5,temperature=1");
    let e = AgentSpec::build::<Checkers>(&"az:temperature=-1".parse().unwrap(), 1)
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("az option temperature: expected a temperature"),
        "{e}"
    );
}

/// Under a clock, a forced move is played at once by both searching agents.
#[test]
fn forced_moves_take_no_time_under_a_clock() {
    let game = Game::<Checkers>::from_position(
        checkers_zero::games::checkers::parse_fen("B:W14:B9,1").unwrap(),
    );
    for spec in [
        "az:time=2000,device=cpu",
        "az:time=2000,spend=managed,device=cpu",
        "alphabeta:time=2000",
    ] {
        let mut agent = AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 1).unwrap();
        let start = Instant::now();
        let d = agent.select(&game, &Limits::default());
        assert_eq!(d.mv.to_string(), "9x18", "{spec}");
        assert!(
            start.elapsed() < Duration::from_millis(500),
            "{spec}: {:?}",
            start.elapsed()
        );
    }
}

/// With `spend=managed` the time per move is a game's mean: moves together stay within it
/// (here with room for each move's last batch of leaves on a loaded machine), and a bad
/// value is refused with the values it takes.
#[test]
fn managed_time_keeps_a_games_moves_within_their_time() {
    let spec = "az:time=60,spend=managed,device=cpu";
    let mut agent = AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 1).unwrap();
    assert_eq!(agent.name(), "az:time=60,spend=managed");
    let mut game = Game::<Checkers>::new();
    let start = Instant::now();
    for _ in 0..10 {
        let d = agent.select(&game, &Limits::default());
        game.play(d.mv);
    }
    assert!(
        start.elapsed() < Duration::from_millis(10 * (60 + 30)),
        "{:?} for 10 moves",
        start.elapsed()
    );
    refused_naming::<Checkers>("az:spend=sometimes", &["fixed", "managed"]);
}

/// Building `spec` fails with an error that names each of `words` (the values it takes).
fn refused_naming<G: AgentGame>(spec: &str, words: &[&str]) {
    let e = AgentSpec::build::<G>(&spec.parse().unwrap(), 1)
        .err()
        .unwrap();
    let e = e.to_string();
    assert!(words.iter().all(|w| e.contains(w)), "{spec}: {e}");
}

/// Othello's four opening moves are images of one another under the symmetries that keep the
/// start, so `symmetries=mean` gives them one prior, where the network alone does not; a bad
/// value is refused with the values it takes.
#[test]
fn the_mean_over_symmetries_gives_symmetric_moves_one_prior() {
    let priors = |spec: &str| {
        let mut agent = AgentSpec::build::<Othello>(&spec.parse().unwrap(), 1).unwrap();
        let d = agent.select(&Game::<Othello>::at_start(), &Limits::default());
        let analysis = d.analysis.expect("az reports its search");
        let priors: Vec<f32> = analysis.moves.iter().map(|m| m.prior.unwrap()).collect();
        assert_eq!(priors.len(), 4, "{spec}");
        let spread = priors
            .iter()
            .fold(0f32, |s, p| s.max((p - priors[0]).abs()));
        (agent.name(), spread)
    };
    let (name, spread) = priors("az:searches=16,symmetries=mean,device=cpu");
    assert_eq!(name, "az:searches=16,symmetries=mean");
    assert!(spread < 1e-6, "mean: priors apart by {spread}");
    let (_, spread) = priors("az:searches=16,device=cpu");
    assert!(spread > 1e-4, "the network alone: priors apart by {spread}");
    refused_naming::<Othello>("az:symmetries=all", &["random", "mean"]);
}

/// A game of random moves from the start, `plies` long at most, stopped early where `stop`
/// holds; `None` where it ends with fewer than two legal moves (no choice to test).
fn random_game<G: AgentGame>(
    rng: &mut StdRng,
    plies: Range<u32>,
    stop: impl Fn(&Game<G>) -> bool,
) -> Option<Game<G>> {
    let mut game = Game::<G>::at_start();
    for _ in 0..rng.random_range(plies) {
        let moves = game.legal_moves();
        if moves.is_empty() || stop(&game) {
            break;
        }
        game.play(moves[rng.random_range(0..moves.len())]);
    }
    (game.legal_moves().len() >= 2).then_some(game)
}

/// `judge`'s score of every move of `game`'s position (an alpha-beta spec), and the best.
fn judged(judge: &str, game: &Game) -> (Vec<MoveScore>, f32) {
    let mut agent = AgentSpec::build::<Checkers>(&judge.parse().unwrap(), 9).unwrap();
    let scores = agent.analyse(game, &Limits::default()).unwrap().moves;
    let best = scores.iter().map(|m| m.score).fold(f32::MIN, f32::max);
    (scores, best)
}

/// `az` on one simulation with neither the tactical check nor the hand-off in endings: the
/// network's search alone (a later `check` or `endgame` replaces those here).
const ALONE: &str = "az:searches=1,check=0,endgame=0,device=cpu";

/// With `check=D`, az plays only moves that the check's alpha-beta (`judge`, depth D)
/// scores within `margin` of the best; its network alone, on one simulation, plays others
/// somewhere among the same positions.
fn the_check_passes_over_moves_alpha_beta_finds_losing(judge: &str, check: &str, margin: f32) {
    let mut rng = StdRng::seed_from_u64(5);
    let (mut checked, mut blunders) = (0, 0);
    for _ in 0..60 {
        let Some(game) = random_game::<Checkers>(&mut rng, 8..40, |_| false) else {
            continue;
        };
        let build = |spec: &str| AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 9).unwrap();
        let (scores, best) = judged(judge, &game);
        let sound = |mv| {
            scores
                .iter()
                .any(|m| m.mv == mv && m.score >= best - margin)
        };
        let choice = |spec: &str| build(spec).select(&game, &Limits::default()).mv;
        let with = choice(&format!("{ALONE},{check},egdb=none"));
        assert!(sound(with), "{check}: {} in {game:?}", with);
        checked += 1;
        blunders += usize::from(!sound(choice(&format!("{ALONE},egdb=none"))));
    }
    assert!(checked > 40, "{checked} positions checked");
    assert!(
        blunders > 0,
        "{judge}: the network alone never fell {margin} behind"
    );
}

#[test]
fn the_tactical_check_passes_over_moves_that_lose_material() {
    the_check_passes_over_moves_alpha_beta_finds_losing(
        "alphabeta:depth=4,egdb=none",
        "check=4",
        1.0,
    );
}

/// `check_eval=strongest`: the check searches with checkers' patterns instead.
#[test]
fn the_strongest_check_passes_over_moves_the_patterns_find_losing() {
    the_check_passes_over_moves_alpha_beta_finds_losing(
        "alphabeta:eval=patterns,depth=4,egdb=none",
        "check=4,check_eval=strongest",
        1.0,
    );
}

/// `check_margin`: a narrower margin passes over smaller falls.
#[test]
fn a_narrower_check_passes_over_smaller_falls() {
    the_check_passes_over_moves_alpha_beta_finds_losing(
        "alphabeta:eval=patterns,depth=4,egdb=none",
        "check=4,check_eval=strongest,check_margin=0.25",
        0.25,
    );
}

/// `check_prior=1`: the root's priors are the check's distribution, so on two simulations
/// (the root, then the child with the highest prior) az plays a move the check scores best,
/// or one sharing its first hop; without it, somewhere among the same positions it does not.
#[test]
fn the_check_prior_sends_the_search_to_the_checks_best_moves() {
    let build = |spec: &str| AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 9).unwrap();
    let two = "az:searches=2,check=4,check_eval=strongest,endgame=0,device=cpu,egdb=none";
    let mut rng = StdRng::seed_from_u64(7);
    let (mut checked, mut elsewhere) = (0, 0);
    for _ in 0..40 {
        let Some(game) = random_game::<Checkers>(&mut rng, 8..40, |_| false) else {
            continue;
        };
        let (scores, best) = judged("alphabeta:eval=patterns,depth=4,egdb=none", &game);
        let first = |mv| Checkers::actions_of(game.position(), &mv)[0];
        let on_best =
            |mv| (scores.iter()).any(|m| m.score >= best - 1e-4 && first(m.mv) == first(mv));
        let choice = |spec: &str| build(spec).select(&game, &Limits::default()).mv;
        let guided = choice(&format!("{two},check_prior=1"));
        assert!(
            on_best(guided),
            "{} in {game:?}",
            Checkers::format_move(&guided)
        );
        checked += 1;
        elsewhere += usize::from(!on_best(choice(&format!("{two},check_margin=10"))));
    }
    assert!(checked > 25, "{checked} positions checked");
    assert!(
        elsewhere > 0,
        "the network alone always chose the check's best"
    );
    refused_naming::<Checkers>("az:check=0,check_prior=0.5", &["check_prior", "check=D"]);
    refused_naming::<Checkers>("az:check_prior=2", &["check_prior", "from 0 to 1"]);
}

/// Each game's default policy temperature: checkers' flattens the network's priors (1.5),
/// Othello's keeps them as they are; the root's reported priors show which was used.
#[test]
fn each_game_has_its_own_default_policy_temperature() {
    fn priors<G: AgentGame>(extra: &str) -> Vec<f32> {
        let spec = format!("az:searches=8,check=0,endgame=0,device=cpu{extra}");
        let mut agent = AgentSpec::build::<G>(&spec.parse().unwrap(), 1).unwrap();
        let analysis = agent.analyse(&Game::<G>::at_start(), &Limits::default());
        (analysis.unwrap().moves.iter())
            .map(|m| m.prior.unwrap())
            .collect()
    }
    assert_eq!(
        priors::<Checkers>(""),
        priors::<Checkers>(",policy_temp=1.5")
    );
    assert_ne!(priors::<Checkers>(""), priors::<Checkers>(",policy_temp=1"));
    assert_eq!(priors::<Othello>(""), priors::<Othello>(",policy_temp=1"));
    assert_ne!(priors::<Othello>(""), priors::<Othello>(",policy_temp=1.5"));
    refused_naming::<Checkers>("az:policy_temp=0", &["policy_temp", "more than 0"]);
}

/// With `book=FILE`, az plays the book's move in a position the book holds, whatever its
/// search would choose, unless its tactical check finds the move losing; elsewhere it
/// searches as without the book.
#[test]
fn a_book_move_is_played_unless_the_check_finds_it_losing() {
    let dir = std::env::temp_dir().join(format!("cz-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let build = |spec: &str| AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 9).unwrap();
    let choice = |spec: &str, game: &Game| build(spec).select(game, &Limits::default()).mv;
    let judge = "alphabeta:depth=4,egdb=none";
    let mut rng = StdRng::seed_from_u64(11);
    let (mut played, mut refused) = (0, 0);
    for _ in 0..60 {
        let Some(game) = random_game::<Checkers>(&mut rng, 8..40, |_| false) else {
            continue;
        };
        let (scores, best) = judged(judge, &game);
        let alone = choice(ALONE, &game);
        // A sound move the search does not choose, and a move that loses a man or more.
        let other = scores
            .iter()
            .find(|m| m.score >= best - 1.0 && m.mv != alone);
        let losing = scores.iter().find(|m| m.score < best - 1.0);
        let book_of = |mv, name: &str| {
            let mut book = Book::<Checkers>::default();
            let entry = BookMove {
                mv,
                visits: 1000,
                value: 0.0,
            };
            book.insert(*game.position(), entry);
            let path = dir.join(format!("{name}.tsv"));
            std::fs::write(&path, book.to_text()).unwrap();
            format!("book={}", path.display())
        };
        if let Some(other) = other {
            let book = book_of(other.mv, "sound");
            assert_eq!(choice(&format!("{ALONE},{book}"), &game), other.mv);
            // After its move, a position the book lacks is searched as before.
            let mut next = game.clone();
            next.play(other.mv);
            if !next.legal_moves().is_empty() {
                let with = choice(&format!("{ALONE},{book}"), &next);
                assert_eq!(with, choice(ALONE, &next));
            }
            played += 1;
        }
        if let Some(losing) = losing {
            let book = book_of(losing.mv, "losing");
            assert_eq!(choice(&format!("{ALONE},{book}"), &game), losing.mv);
            let checked = format!("{ALONE},{book},check=4,egdb=none");
            assert_eq!(
                choice(&checked, &game),
                choice(&format!("{ALONE},check=4,egdb=none"), &game),
                "the check let the book's {} through in {game:?}",
                losing.mv
            );
            refused += 1;
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        played > 20 && refused > 5,
        "{played} played, {refused} refused"
    );
}

/// With `endgame=N`, az moves as the game's alpha-beta (`alphabeta`, the same seed and
/// limits) wherever N or fewer pieces (Othello: empty squares) are left, and as its own
/// search elsewhere; its network alone moves otherwise somewhere among the same endings.
fn the_endgame_handoff_moves_as_alpha_beta<G: AgentGame>(n: u32, handoff: &str, alphabeta: &str) {
    let mut rng = StdRng::seed_from_u64(3);
    let build = |spec: &str| AgentSpec::build::<G>(&spec.parse().unwrap(), 9).unwrap();
    let (mut endings, mut differ) = (0, 0);
    for _ in 0..40 {
        let ending = |g: &Game<G>| G::left(g.position()) <= n;
        let Some(game) = random_game(&mut rng, 10..200, ending) else {
            continue;
        };
        let choice = |spec: &str| build(spec).select(&game, &Limits::default()).mv;
        let plain = choice(ALONE);
        let with = choice(handoff);
        if G::left(game.position()) <= n {
            assert_eq!(with, choice(alphabeta), "{game:?}");
            endings += 1;
            differ += usize::from(plain != with);
        } else {
            assert_eq!(with, plain, "{game:?}");
        }
    }
    assert!(endings > 10, "{endings} endings");
    assert!(
        differ > 0,
        "the network alone moved as alpha-beta in every ending"
    );
}

#[test]
fn the_endgame_handoff_moves_as_alpha_beta_in_endings() {
    the_endgame_handoff_moves_as_alpha_beta::<Checkers>(
        10,
        "az:searches=1,check=0,endgame=10,egdb=none,device=cpu",
        "alphabeta:eval=patterns,egdb=none",
    );
    the_endgame_handoff_moves_as_alpha_beta::<Othello>(
        24,
        "az:searches=1,endgame=24,device=cpu",
        "alphabeta:eval=patterns",
    );
    refused_naming::<Checkers>("az:endgame=65", &["endgame", "0", "64"]);
}

/// Where a spec leaves them out, checkers' `az` plays with the classic check at depth 10
/// and the hand-off from 10 pieces, which move it off its network's choice somewhere;
/// Othello's plays its network's search alone.
#[test]
fn each_game_has_its_own_default_check_and_hand_off() {
    fn same_choices<G: AgentGame>(
        default: &str,
        explicit: &str,
        alone: &str,
        plies: Range<u32>,
    ) -> usize {
        let mut rng = StdRng::seed_from_u64(4);
        let build = |spec: &str| AgentSpec::build::<G>(&spec.parse().unwrap(), 9).unwrap();
        let mut differ_from_alone = 0;
        for _ in 0..30 {
            let Some(game) = random_game::<G>(&mut rng, plies.clone(), |_| false) else {
                continue;
            };
            let choice = |spec: &str| build(spec).select(&game, &Limits::default()).mv;
            let chosen = choice(default);
            assert_eq!(
                chosen,
                choice(explicit),
                "{default} against {explicit}: {game:?}"
            );
            differ_from_alone += usize::from(chosen != choice(alone));
        }
        differ_from_alone
    }
    let checkers = same_choices::<Checkers>(
        "az:searches=1,egdb=none,device=cpu",
        "az:searches=1,check=10,check_eval=strongest,endgame=10,egdb=none,device=cpu",
        &format!("{ALONE},egdb=none"),
        8..120,
    );
    assert!(
        checkers > 0,
        "checkers' defaults never moved off the network's choice"
    );
    let othello = same_choices::<Othello>("az:searches=1,device=cpu", ALONE, ALONE, 4..50);
    assert_eq!(
        othello, 0,
        "Othello's defaults moved off the network's choice"
    );
}

/// With `mix=0.5`, a one-simulation search's value (the root's evaluation) is the mean of
/// the network's and the squashed score of the game's alpha-beta judging the root itself.
fn the_mix_blends_alpha_betas_judgement<G: AgentGame>(az: &str, alphabeta: &str) {
    let mut rng = StdRng::seed_from_u64(5);
    let build = |spec: &str| AgentSpec::build::<G>(&spec.parse().unwrap(), 9).unwrap();
    let mut judged = 0;
    for _ in 0..20 {
        // Short of the endings an oracle solves (Othello: 16 empties), whose values are exact.
        let Some(game) = random_game::<G>(&mut rng, 4..40, |_| false) else {
            continue;
        };
        let value = |spec: &str| {
            build(spec)
                .select(&game, &Limits::default())
                .analysis
                .unwrap()
                .value
        };
        let network = value(&format!("{az},mix=0"));
        let mixed = value(&format!("{az},mix=0.5,mix_depth=2"));
        let score = build(alphabeta).judge(game.position(), 2).unwrap();
        let want = 0.5 * network + 0.5 * (score * G::MIX_SCALE).tanh();
        assert!(
            (mixed - want).abs() < 1e-4,
            "{mixed} against {want}: {game:?}"
        );
        judged += usize::from((mixed - network).abs() > 1e-3);
    }
    assert!(judged > 5, "alpha-beta's judgement moved {judged} values");
}

#[test]
fn the_mix_blends_alpha_betas_judgement_into_leaf_values() {
    the_mix_blends_alpha_betas_judgement::<Checkers>(
        &format!("{ALONE},egdb=none"),
        "alphabeta:eval=patterns,egdb=none",
    );
    the_mix_blends_alpha_betas_judgement::<Othello>(
        "az:searches=1,device=cpu",
        "alphabeta:eval=patterns",
    );
    refused_naming::<Checkers>("az:mix=1.5", &["mix", "0", "1"]);
}

fn searched_nodes(summary: &str) -> u64 {
    count_in(summary, "nodes")
}

#[test]
fn limits_are_respected() {
    let game = Game::new();
    let mut agent = "alphabeta:depth=64"
        .parse::<AgentSpec>()
        .unwrap()
        .build::<Checkers>(0)
        .unwrap();
    let start = Instant::now();
    let d = agent.select(
        &game,
        &Limits {
            movetime: Some(Duration::from_millis(100)),
            ..Limits::default()
        },
    );
    // Generous bound: the check is that the clock stops the search at all, not its speed.
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(legal_moves(game.position()).contains(&d.mv));
    let d = agent.select(
        &game,
        &Limits {
            nodes: Some(5000),
            ..Limits::default()
        },
    );
    let summary = d.analysis.unwrap().summary;
    assert!(searched_nodes(&summary) <= 5000, "{summary}");
}

#[test]
fn alphabeta_depth_6_never_loses_to_random_over_the_ballots() {
    let config = MatchConfig {
        first: player("alphabeta:depth=6"),
        second: player("random"),
        series: series(None, 2026),
    };
    let report = run_match(&config).unwrap();
    let tally = report.tally(None);
    assert_eq!(tally.games(), 314, "157 ballots from both sides");
    assert_eq!(tally.losses, 0, "{}", report.summary());
}

#[test]
fn deeper_alphabeta_beats_shallower() {
    let config = MatchConfig {
        first: player("alphabeta:depth=6"),
        second: player("alphabeta:depth=2"),
        series: series(Some(40), 5),
    };
    let t = run_match(&config).unwrap().tally(None);
    assert!(t.score() > 0.6, "depth 6 vs depth 2: {}", t.summary());
}

#[test]
fn tournament_cross_table_and_elo_order() {
    use checkers_zero::arena::{TournamentConfig, run_tournament};
    let config = TournamentConfig {
        players: ["random", "alphabeta:depth=1", "alphabeta:depth=4"]
            .iter()
            .map(|s| player(s))
            .collect(),
        series: series(Some(16), 9),
    };
    let report = run_tournament(&config).unwrap();
    assert_eq!(report.pairs.len(), 3);
    assert!(report.pairs.iter().all(|(_, _, t)| t.games() == 16));
    // random is the anchor; deeper search rates higher.
    assert_eq!(report.anchor, 0);
    assert_eq!(report.ratings[0].elo, 0.0);
    assert!(
        report.ratings[2].elo > report.ratings[1].elo && report.ratings[1].elo > 0.0,
        "{}",
        report.table()
    );
    let table = report.table();
    assert!(
        table.contains("0 (anchor)") && table.lines().count() == 5,
        "{table}"
    );
    assert_eq!(report.pdn.matches("[Event").count(), 48);
}

#[test]
fn gauntlet_rows_add_up_and_print_as_json_lines() {
    use checkers_zero::arena::{GauntletConfig, run_gauntlet};
    let config = GauntletConfig {
        player: player("alphabeta:depth=1"),
        opponents: ["random", "alphabeta:depth=1,king=2"]
            .iter()
            .map(|s| player(s))
            .collect(),
        series: series(Some(6), 3),
    };
    let report = run_gauntlet(&config).unwrap();
    assert_eq!(report.player, "alphabeta:depth=1");
    assert_eq!(report.rows.len(), 2);
    for r in &report.rows {
        let t = r.tally;
        assert_eq!(t.wins + t.draws + t.losses, 6);
        assert_eq!(
            (r.as_black.games(), r.as_white.games()),
            (3, 3),
            "colours alternate"
        );
        assert_eq!(r.as_black.wins + r.as_white.wins, t.wins);
        assert_eq!(r.as_black.losses + r.as_white.losses, t.losses);
    }
    assert_eq!(report.pdn.matches("[Event").count(), 12);

    let json = report.json_lines();
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2);
    for (line, row) in lines.iter().zip(&report.rows) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["opponent"], row.opponent.as_str());
        let count = |k: &str| v[k].as_u64().unwrap();
        assert_eq!(count("games"), 6);
        assert_eq!(count("wins") + count("draws") + count("losses"), 6);
        let score = v["score"].as_f64().unwrap();
        assert!(v["score_low"].as_f64().unwrap() <= score);
        assert!(score <= v["score_high"].as_f64().unwrap());
        // JSON has no infinity: a perfect or zero score leaves the Elo null.
        assert_eq!(v["elo"].is_null(), score == 0.0 || score == 1.0, "{line}");
    }

    let table = report.to_string();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(table.contains("alphabeta:depth=1,king=2"), "{table}");

    let none = GauntletConfig {
        opponents: Vec::new(),
        ..config
    };
    assert!(
        run_gauntlet(&none)
            .unwrap_err()
            .to_string()
            .contains("at least one opponent")
    );
}

// --- Othello: the same search with its own evaluation ---

fn othello_agent(spec: &str, seed: u64) -> Box<dyn Agent<Othello>> {
    spec.parse::<AgentSpec>().unwrap().build(seed).unwrap()
}

#[test]
fn othello_alphabeta_beats_random_from_the_start() {
    for depth in [2, 4] {
        let spec = format!("alphabeta:depth={depth}");
        let mut score = 0.0;
        for seed in 0..20 {
            let mut searcher = othello_agent(&spec, seed);
            let mut random = othello_agent("random", 1000 + seed);
            // Colours alternate game by game.
            let searcher_plays = if seed % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let (black, white) = match searcher_plays {
                Color::Black => (&mut searcher, &mut random),
                Color::White => (&mut random, &mut searcher),
            };
            let game = play_game(
                black.as_mut(),
                white.as_mut(),
                Game::<Othello>::at_start(),
                GameConfig::default(),
            );
            score += match game.outcome().unwrap() {
                Outcome::Win(winner, _) if winner == searcher_plays => 1.0,
                Outcome::Win(..) => 0.0,
                Outcome::Draw(_) => 0.5,
            };
        }
        eprintln!("Othello alphabeta depth {depth} against random: {score}/20");
        assert!(score >= 18.0, "depth {depth}: {score}/20");
    }
}

#[test]
fn othello_alphabeta_takes_the_corner_that_wins_at_once() {
    // Black c1 and c3, White b1 and b2: a1 flips both White discs (ending the game),
    // a3 flips only b2.
    let pos =
        othello::Position::from_discs((1 << 2) | (1 << 18), (1 << 1) | (1 << 9), Color::Black)
            .unwrap();
    assert!(pos.legal_moves().len() >= 2);
    for depth in 1..=4 {
        let mut agent = othello_agent(&format!("alphabeta:depth={depth}"), 3);
        let d = agent.select(&Game::from_position(pos), &Limits::default());
        assert_eq!(d.mv, othello::Move::Play(0), "a1 at depth {depth}");
        let analysis = d.analysis.unwrap();
        assert_eq!(
            analysis.value, 999.0,
            "a win in one ply: {}",
            analysis.summary
        );
    }
}

#[test]
fn othello_alphabeta_passes_when_it_must_and_searches_through_passes() {
    // Black a1, White b1, c1 empty: White must pass, then Black plays c1 and wins.
    let white_to_move = othello::Position::from_discs(1, 2, Color::White).unwrap();
    let game = Game::from_position(white_to_move);
    let mut agent = othello_agent("alphabeta:depth=3", 0);
    let d = agent.select(&game, &Limits::default());
    assert_eq!(d.mv, othello::Move::Pass);
    assert_eq!(d.analysis.unwrap().value, -998.0, "lost in two plies");
    let analysis = agent.analyse(&game, &Limits::default()).unwrap();
    assert_eq!(analysis.moves.len(), 1);
    // Whole games between two searchers: every move legal, passes among them.
    let mut passes = 0;
    for seed in 0..8 {
        let mut agents = [
            othello_agent("alphabeta:depth=3", seed),
            othello_agent("alphabeta:depth=1", seed + 10),
        ];
        let mut game = Game::<Othello>::at_start();
        while game.outcome().is_none() {
            let agent = &mut agents[game.turn().index()];
            let mv = agent.select(&game, &Limits::default()).mv;
            assert!(
                game.position().is_legal(mv),
                "{mv:?} in {:?}",
                game.position()
            );
            passes += usize::from(mv == othello::Move::Pass);
            game.play(mv);
        }
    }
    assert!(passes > 0, "no game had a pass");
}

#[test]
fn othello_alphabeta_spec_and_limits() {
    let agent = othello_agent("alphabeta", 0);
    assert_eq!(agent.name(), "alphabeta");
    assert_eq!(
        othello_agent("alphabeta:nodes=500,hash=2", 0).name(),
        "alphabeta:nodes=500,hash=2"
    );
    let mut agent = othello_agent("alphabeta:depth=64", 0);
    let d = agent.select(
        &Game::<Othello>::at_start(),
        &Limits {
            nodes: Some(2000),
            ..Limits::default()
        },
    );
    assert!(othello::Position::start().is_legal(d.mv));
    let summary = d.analysis.unwrap().summary;
    assert!(searched_nodes(&summary) <= 2000, "{summary}");
}

/// Several lines (MultiPV): alpha-beta values each of its best moves exactly, as a search of
/// every move with a full window does, best first, and plays the same move as with one
/// line; the tree searches give their most visited moves, the chosen one first.
#[test]
fn several_lines_value_each_of_the_best_moves() {
    let mut game = Game::new();
    for mv in ["11-15", "23-19", "8-11"] {
        game.play_text(mv).unwrap();
    }
    let build = |spec: &str| AgentSpec::build::<Checkers>(&spec.parse().unwrap(), 0).unwrap();
    let three = Limits {
        lines: 3,
        ..Limits::default()
    };
    let d = build("alphabeta:depth=5").select(&game, &three);
    let a = d.analysis.unwrap();
    assert_eq!(a.lines.len(), 3, "{}", a.summary);
    assert_eq!(a.lines[0].pv[0], d.mv);
    assert!(a.lines.windows(2).all(|w| w[0].value >= w[1].value));
    let exact = build("alphabeta:depth=5")
        .analyse(&game, &Limits::default())
        .unwrap();
    for line in &a.lines {
        let m = exact.moves.iter().find(|m| m.mv == line.pv[0]).unwrap();
        assert_eq!(m.score, line.value, "{}", line.pv[0]);
    }
    let mut best: Vec<f32> = exact.moves.iter().map(|m| m.score).collect();
    best.sort_by(|x, y| y.total_cmp(x));
    let values: Vec<f32> = a.lines.iter().map(|l| l.value).collect();
    assert_eq!(values, best[..3]);
    assert_eq!(
        build("alphabeta:depth=5")
            .select(&game, &Limits::default())
            .mv,
        d.mv
    );
    assert!(
        build("alphabeta:depth=5")
            .select(&game, &Limits::default())
            .analysis
            .unwrap()
            .lines
            .is_empty()
    );

    for spec in ["az:searches=64,device=cpu", "mcts:searches=200"] {
        let d = build(spec).select(&game, &three);
        let a = d.analysis.unwrap();
        assert_eq!(a.lines.len(), 3, "{spec}");
        assert_eq!(a.lines[0].pv[0], d.mv, "{spec}");
        let firsts: std::collections::HashSet<_> = a.lines.iter().map(|l| l.pv[0]).collect();
        assert_eq!(firsts.len(), 3, "{spec}: three different moves");
    }
}
