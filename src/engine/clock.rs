//! The engine's clock arithmetic: the time for one move from the clocks of a `go` command.

use crate::games::Color;
use std::time::Duration;

/// A `go` with clocks that leaves out the mover's.
#[derive(Debug, thiserror::Error)]
#[error("go: {mover} is to move, so its clock {key} MS is needed")]
pub struct MissingClock {
    mover: Color,
    key: &'static str,
}

/// The clocks of a `go` command: each side's time left and increment (index 0 White, 1
/// Black), and the moves until the next time control.
#[derive(Default)]
pub struct Clocks {
    pub time: [Option<u64>; 2],
    pub increment: [u64; 2],
    pub moves_to_go: Option<u64>,
}

/// Moves a game is assumed to have left when `movestogo` is not given.
const MOVES_LEFT: u64 = 30;

impl Clocks {
    /// The time for `mover`'s move: its time over the moves to go plus 3/4 of its increment,
    /// never more than half its time (so one slow move cannot lose on time), at least 1 ms.
    /// `None` where no clock is given; an error where the mover's is missing.
    pub fn move_time(&self, mover: Color) -> Result<Option<Duration>, MissingClock> {
        if self.time.iter().all(Option::is_none) {
            return Ok(None);
        }
        let side = match mover {
            Color::White => 0,
            Color::Black => 1,
        };
        let Some(left) = self.time[side] else {
            return Err(MissingClock {
                mover,
                key: ["wtime", "btime"][side],
            });
        };
        let share = left / self.moves_to_go.unwrap_or(MOVES_LEFT).max(1);
        let ms = (share + self.increment[side] * 3 / 4).min(left / 2).max(1);
        Ok(Some(Duration::from_millis(ms)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_gets_its_share_plus_most_of_the_increment_but_at_most_half_the_time() {
        let clocks = |time: [Option<u64>; 2], increment, moves_to_go| Clocks {
            time,
            increment,
            moves_to_go,
        };
        let ms = |c: &Clocks, mover| c.move_time(mover).unwrap().map(|t| t.as_millis());
        // 60 s over the default 30 moves, plus 3/4 of a 2 s increment.
        let c = clocks([Some(1000), Some(60_000)], [0, 2000], None);
        assert_eq!(ms(&c, Color::Black), Some(2000 + 1500));
        // White's 1 s with 2 moves to go: 500 ms, also half its time.
        let c = clocks([Some(1000), Some(60_000)], [0, 0], Some(2));
        assert_eq!(ms(&c, Color::White), Some(500));
        // A huge increment is capped at half the time left; a flag about to fall gets 1 ms.
        let c = clocks([Some(100), Some(0)], [10_000, 0], None);
        assert_eq!(ms(&c, Color::White), Some(50));
        assert_eq!(ms(&c, Color::Black), Some(1));
        assert_eq!(ms(&Clocks::default(), Color::White), None);
        let e = clocks([None, Some(5)], [0, 0], None).move_time(Color::White);
        assert_eq!(
            e.unwrap_err().to_string(),
            "go: White is to move, so its clock wtime MS is needed"
        );
    }
}
