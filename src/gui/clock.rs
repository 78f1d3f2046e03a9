//! A game's clocks: a time control (minutes each, seconds added after every move, as people
//! write it: 3+2), the time each side has left, the computer's time for a move from its own
//! clock (the engine protocol's `wtime`/`btime` arithmetic), and the result of a flag fall.
//!
//! The clocks start with the game's first move (the first player's first move is untimed,
//! as on lichess) and stop when the game ends.

use crate::engine::Clocks;
use crate::games::{Color, DrawReason, Outcome, Rules, WinReason};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// The longest a side's clock may start with, and the most added a move.
const MOST_MINUTES: f64 = 300.0;
const MOST_INCREMENT_S: f64 = 300.0;

/// Minutes for each side and seconds added after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub initial: Duration,
    pub increment: Duration,
}

const EXPECTED: &str = "expected MINUTES+SECONDS such as 3+2 or 10+0 (minutes each, seconds \
     added a move), or none";

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (minutes, seconds) = text.trim().split_once('+').unwrap_or((text.trim(), "0"));
        let number = |part: &str, most: f64, what: &str| -> Result<f64, String> {
            match part.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && (0.0..=most).contains(&v) => Ok(v),
                Ok(_) => Err(format!("clock {text:?}: {what} must be 0 to {most}")),
                Err(_) => Err(format!("clock {text:?}: {EXPECTED}")),
            }
        };
        let minutes = number(minutes, MOST_MINUTES, "the minutes")?;
        let seconds = number(seconds, MOST_INCREMENT_S, "the seconds added")?;
        if minutes == 0.0 {
            return Err(format!(
                "clock {text:?}: each side needs some time (the minutes must be above 0)"
            ));
        }
        Ok(TimeControl {
            initial: Duration::from_secs_f64(minutes * 60.0),
            increment: Duration::from_secs_f64(seconds),
        })
    }
}

/// `3+2`, `0.5+0`: what [`TimeControl::from_str`] reads back.
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.initial.as_secs_f64() / 60.0;
        let seconds = self.increment.as_secs_f64();
        write!(f, "{}+{}", trimmed(minutes), trimmed(seconds))
    }
}

/// A number without a trailing `.0` and without more decimals than it needs (to a
/// thousandth).
fn trimmed(v: f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl TimeControl {
    /// PDN's `TimeControl` tag, in seconds as PGN writes it: `180+2`.
    pub fn pdn_tag(&self) -> String {
        format!(
            "{}+{}",
            trimmed(self.initial.as_secs_f64()),
            trimmed(self.increment.as_secs_f64())
        )
    }
}

/// A side's time as a clock shows it: `0:02:41.3`, as PGN's clock comments write it.
pub fn clock_text(left: Duration) -> String {
    let tenths = left.as_millis() / 100;
    let (s, tenth) = (tenths / 10, tenths % 10);
    format!("{}:{:02}:{:02}.{tenth}", s / 3600, s / 60 % 60, s % 60)
}

/// The two clocks of a game.
#[derive(Clone, Debug)]
pub struct GameClock {
    control: TimeControl,
    /// Time left, Black's then White's, as of `since`.
    left: [Duration; 2],
    /// The side whose time runs and since when; `None` before the first move and after the
    /// end.
    running: Option<(Color, Instant)>,
}

/// What the page and the archive are told of the clocks: the time each side has left when
/// the view was made, and whose runs.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ClockView {
    /// The time control, `3+2`.
    pub control: String,
    pub black_ms: u64,
    pub white_ms: u64,
    /// `black` or `white`; none before the first move and after the end.
    pub running: Option<String>,
}

impl GameClock {
    pub fn new(control: TimeControl) -> Self {
        GameClock {
            control,
            left: [control.initial; 2],
            running: None,
        }
    }

    /// The time `side` has left at `now` (zero once its flag has fallen).
    pub fn left(&self, side: Color, now: Instant) -> Duration {
        let kept = self.left[side.index()];
        match self.running {
            Some((runs, since)) if runs == side => kept.saturating_sub(now - since),
            _ => kept,
        }
    }

    /// The side whose time has run out at `now`, if one has.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        let (runs, _) = self.running?;
        self.left(runs, now).is_zero().then_some(runs)
    }

    /// When the running side's flag falls, if a clock runs.
    pub fn falls_at(&self) -> Option<Instant> {
        let (runs, since) = self.running?;
        since.checked_add(self.left[runs.index()])
    }

    /// `mover` has moved at `now` (its time must not have run out: see
    /// [`GameClock::flagged`]): its time is taken off and the increment added, and the other
    /// side's clock starts.
    pub fn moved(&mut self, mover: Color, now: Instant) {
        let left = self.left(mover, now);
        self.left[mover.index()] = left + self.control.increment;
        self.running = Some((mover.opposite(), now));
    }

    /// The game changed otherwise (a move taken back): the time used so far is kept off the
    /// clock that ran, and `turn`'s clock runs from now, if the clocks had started.
    pub fn restart(&mut self, turn: Color, now: Instant) {
        if let Some((runs, _)) = self.running {
            self.left[runs.index()] = self.left(runs, now);
            self.running = Some((turn, now));
        }
    }

    /// The game is over: both clocks stop as they stand at `now`.
    pub fn stop(&mut self, now: Instant) {
        if let Some((runs, _)) = self.running {
            self.left[runs.index()] = self.left(runs, now);
            self.running = None;
        }
    }

    /// How long the computer playing `mover` may think about its move at `now`: the engine
    /// protocol's share of its time left and increment.
    pub fn move_time(&self, mover: Color, now: Instant) -> Duration {
        let ms = |side| self.left(side, now).as_millis() as u64;
        let increment = self.control.increment.as_millis() as u64;
        let clocks = Clocks {
            time: [Some(ms(Color::White)), Some(ms(Color::Black))],
            increment: [increment; 2],
            moves_to_go: None,
        };
        clocks
            .move_time(mover)
            .ok()
            .flatten()
            .unwrap_or(Duration::from_millis(1))
    }

    pub fn view(&self, now: Instant) -> ClockView {
        ClockView {
            control: self.control.to_string(),
            black_ms: self.left(Color::Black, now).as_millis() as u64,
            white_ms: self.left(Color::White, now).as_millis() as u64,
            running: self.running.map(|(side, _)| side.name().to_lowercase()),
        }
    }

    /// The clocks as a view kept them, running again from `now` (a game reopened from the
    /// archive: the time it was away is not counted); `None` for a view that is not one.
    pub fn restore(view: &ClockView, now: Instant) -> Option<Self> {
        let control = view.control.parse().ok()?;
        let running = match view.running.as_deref() {
            None => None,
            Some("black") => Some((Color::Black, now)),
            Some("white") => Some((Color::White, now)),
            Some(_) => return None,
        };
        Some(GameClock {
            control,
            left: [
                Duration::from_millis(view.black_ms),
                Duration::from_millis(view.white_ms),
            ],
            running,
        })
    }

    /// The PDN tags of the clocks: the time control and each side's time left.
    pub fn pdn_tags(&self, now: Instant) -> [(&'static str, String); 3] {
        [
            ("TimeControl", self.control.pdn_tag()),
            ("BlackClock", clock_text(self.left(Color::Black, now))),
            ("WhiteClock", clock_text(self.left(Color::White, now))),
        ]
    }
}

/// Positions a cooperative search visits before it gives up proving that a side cannot win.
const HELP_BUDGET: usize = 200_000;

/// The result when `flagged`'s time runs out in `pos`: a loss, or a draw where the other side
/// cannot win by any series of legal moves. That is proven by trying every continuation
/// with both sides helping the other to win (within a budget: where it runs out, the other
/// side is taken to be able to win). In checkers a side with pieces on the board can almost
/// always still win; in Othello a side with few discs near the end often cannot.
pub fn flag_fall<G: Rules>(pos: &G::Position, flagged: Color) -> Outcome {
    let winner = flagged.opposite();
    let mut seen = HashSet::new();
    match can_win::<G>(*pos, winner, &mut seen) {
        Some(false) => Outcome::Draw(DrawReason::TimeNoWin),
        _ => Outcome::Win(winner, WinReason::Time),
    }
}

/// Whether some series of legal moves from `pos` ends in `side`'s win; `None` where the
/// budget ran out first.
fn can_win<G: Rules>(
    pos: G::Position,
    side: Color,
    seen: &mut HashSet<G::Position>,
) -> Option<bool> {
    if !seen.insert(pos) {
        return Some(false); // searched already from here
    }
    if seen.len() > HELP_BUDGET {
        return None;
    }
    if let Some(outcome) = G::outcome(&G::turn_start(&pos)) {
        return Some(outcome.winner() == Some(side));
    }
    let mut complete = true;
    for mv in G::legal_moves(&pos) {
        match can_win::<G>(G::apply_move(&pos, &mv), side, seen) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => complete = false,
        }
    }
    complete.then_some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Checkers, Othello};

    #[test]
    fn time_controls_read_as_people_write_them_and_refuse_the_rest() {
        let tc: TimeControl = "3+2".parse().unwrap();
        assert_eq!(tc.initial, Duration::from_secs(180));
        assert_eq!(tc.increment, Duration::from_secs(2));
        assert_eq!(
            (tc.to_string(), tc.pdn_tag()),
            ("3+2".into(), "180+2".into())
        );
        let tc: TimeControl = "0.5".parse().unwrap();
        assert_eq!(
            (tc.to_string(), tc.pdn_tag()),
            ("0.5+0".into(), "30+0".into())
        );
        for bad in [
            "", "fast", "3+x", "-1+0", "0+5", "301+0", "3+301", "inf+0", "3+2+1",
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err();
            assert!(e.starts_with(&format!("clock {bad:?}: ")), "{bad}: {e}");
        }
    }

    #[test]
    fn a_move_takes_its_time_off_and_adds_the_increment_and_a_flag_falls_at_zero() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut clock = GameClock::new("1+2".parse().unwrap());
        // Nothing runs before the first move.
        assert_eq!(clock.left(Color::Black, t0 + s(30)), s(60));
        assert_eq!(clock.falls_at(), None);
        clock.moved(Color::Black, t0 + s(30));
        assert_eq!(clock.left(Color::Black, t0 + s(40)), s(62));
        assert_eq!(clock.left(Color::White, t0 + s(40)), s(50));
        assert_eq!(clock.falls_at(), Some(t0 + s(90)));
        assert_eq!(clock.flagged(t0 + s(89)), None);
        clock.moved(Color::White, t0 + s(50));
        assert_eq!(clock.left(Color::White, t0 + s(50)), s(42));
        // A move taken back: Black's 5 s are kept off, and White's clock runs again.
        clock.restart(Color::White, t0 + s(55));
        assert_eq!(clock.left(Color::Black, t0 + s(100)), s(57));
        assert_eq!(clock.flagged(t0 + s(97)), Some(Color::White));
        let view = clock.view(t0 + s(60));
        assert_eq!((view.black_ms, view.white_ms), (57_000, 37_000));
        assert_eq!(view.running.as_deref(), Some("white"));
        assert_eq!(clock.pdn_tags(t0 + s(60))[2].1, "0:00:37.0");
        // Back from the archive, White's clock runs from the reopening.
        let back = GameClock::restore(&view, t0 + s(1000)).unwrap();
        assert_eq!(back.left(Color::White, t0 + s(1010)), s(27));
        clock.stop(t0 + s(61));
        assert_eq!(
            (clock.falls_at(), clock.left(Color::White, t0 + s(999))),
            (None, s(36))
        );
    }

    #[test]
    fn the_computer_thinks_its_share_of_its_own_clock() {
        let t0 = Instant::now();
        let mut clock = GameClock::new("1+2".parse().unwrap());
        clock.moved(Color::Black, t0);
        // 60 s over 30 moves, and 3/4 of the 2 s increment.
        assert_eq!(
            clock.move_time(Color::White, t0),
            Duration::from_millis(3500)
        );
        assert_eq!(
            clock.move_time(Color::White, t0 + Duration::from_secs(60)),
            Duration::from_millis(1)
        );
    }

    #[test]
    fn a_flag_falls_as_a_loss_unless_the_other_side_cannot_win() {
        let start = Checkers::start();
        assert_eq!(
            flag_fall::<Checkers>(&start, Color::Black),
            Outcome::Win(Color::White, WinReason::Time)
        );
        // Othello, one empty square left: White has one disc and whatever is played it
        // cannot end with more discs than Black.
        let mut squares = vec!['X'; 64];
        squares[0] = 'O';
        squares[63] = '-';
        let text: String = squares.into_iter().collect::<String>() + " X";
        let pos = Othello::parse_position(&text).unwrap();
        assert_eq!(
            flag_fall::<Othello>(&pos, Color::Black),
            Outcome::Draw(DrawReason::TimeNoWin)
        );
        assert_eq!(
            flag_fall::<Othello>(&pos, Color::White),
            Outcome::Win(Color::Black, WinReason::Time)
        );
    }
}
