//! Managed time for `az` (`spend=managed`): its `time=` becomes a game's mean time per move
//! instead of every move's. A move whose choice is settled (the most visited move's lead
//! over the next could not be caught in the move's remaining time at the search's speed)
//! stops early, and a forced move is answered at once; what they save goes into a bank.
//! Each later move's own time is its time plus a share of the bank, and a move whose two
//! most visited moves are still close when that is up searches on, up to `EXTEND` times its
//! time more while the bank lasts. The bank never goes below zero, so a game's moves together
//! never take more than their time each (Leela Chess Zero's smart pruning and a time
//! extension for unsettled moves, in their simplest form). Where an exact solver takes over
//! at a ply known in advance (Othello's last empties), the bank is shared among the moves
//! still to search, so none of it is left unspent.

use std::time::Duration;

/// The most a move may take from the bank, in multiples of the time per move.
const EXTEND: u32 = 2;

/// Each move's own time takes this share of the bank (the rest is kept for close moves and
/// the moves after).
const SPREAD: u32 = 4;

/// At its time, a move searches on while the second most visited move has at least this
/// share of the most visited one's visits.
const CLOSE: f64 = 0.5;

/// Before this share of its time, a move does not judge its choice settled: the speed of a
/// search's first simulations says little.
const SETTLE_AFTER: f64 = 0.1;

/// A game's time: the time per move and what earlier moves saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameClock {
    per_move: Duration,
    bank: Duration,
}

/// One move's time: its own, and the most it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveClock {
    pub own: Duration,
    pub most: Duration,
}

/// Where a search stands: the visits of the root's two most visited moves, and the
/// simulations this move has run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    pub best: u64,
    pub second: u64,
    pub done: u64,
}

impl GameClock {
    pub fn new(per_move: Duration) -> GameClock {
        GameClock {
            per_move,
            bank: Duration::ZERO,
        }
    }

    /// The next move's clock, given how many moves this side will still search (this one
    /// included) where that is known: the bank is then shared among them, so nothing is left
    /// when an exact solver takes over.
    pub fn next_move(&self, searched_left: Option<u32>) -> MoveClock {
        let share = searched_left.map_or(SPREAD, |n| n.clamp(1, SPREAD));
        let own_share = self.bank / share;
        let most = self.per_move + self.bank.min((self.per_move * EXTEND).max(own_share));
        MoveClock {
            own: (self.per_move + own_share).min(most),
            most,
        }
    }

    /// A new game's clock: nothing banked.
    pub fn new_game(&mut self) {
        self.bank = Duration::ZERO;
    }

    /// Books a move that took `used`: its time in, what it used out.
    pub fn settle(&mut self, used: Duration) {
        self.bank = (self.bank + self.per_move).saturating_sub(used);
    }

    pub fn bank(&self) -> Duration {
        self.bank
    }
}

impl MoveClock {
    /// Whether the search should stop, `elapsed` into its move.
    pub fn stop(&self, elapsed: Duration, s: Standing) -> bool {
        if elapsed >= self.most {
            return true;
        }
        if elapsed >= self.own {
            return (s.second as f64) < CLOSE * s.best as f64;
        }
        let own = self.own.as_secs_f64();
        let spent = elapsed.as_secs_f64();
        if spent < SETTLE_AFTER * own || s.done == 0 {
            return false;
        }
        let still_to_come = s.done as f64 / spent * (own - spent);
        s.best.saturating_sub(s.second) as f64 > still_to_come
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn standing(best: u64, second: u64, done: u64) -> Standing {
        Standing { best, second, done }
    }

    #[test]
    fn a_settled_move_stops_early_a_close_one_searches_on_within_the_bank() {
        let mut clock = GameClock::new(100 * MS);
        let first = clock.next_move(None);
        assert_eq!(
            (first.own, first.most),
            (100 * MS, 100 * MS),
            "nothing banked yet"
        );
        // 50 ms in, 500 simulations done: 500 more could come; a lead of 600 is settled,
        // one of 400 is not.
        assert!(first.stop(50 * MS, standing(700, 100, 500)));
        assert!(!first.stop(50 * MS, standing(500, 100, 500)));
        // Too early to judge, however large the lead.
        assert!(!first.stop(5 * MS, standing(700, 0, 50)));
        // At its time, with nothing banked, every move stops.
        assert!(first.stop(100 * MS, standing(500, 400, 900)));
        clock.settle(20 * MS);
        assert_eq!(clock.bank(), 80 * MS);
        // A quarter of the bank goes into the next move's own time; close moves may take
        // all of it.
        let second = clock.next_move(None);
        assert_eq!((second.own, second.most), (120 * MS, 180 * MS));
        assert!(
            !second.stop(100 * MS, standing(500, 400, 900)),
            "before its own time"
        );
        assert!(!second.stop(120 * MS, standing(500, 400, 900)), "close: on");
        assert!(
            second.stop(120 * MS, standing(500, 200, 900)),
            "clear: stop"
        );
        assert!(
            second.stop(180 * MS, standing(500, 400, 900)),
            "the most: stop"
        );
    }

    #[test]
    fn a_games_moves_never_take_more_than_their_time_together() {
        let mut clock = GameClock::new(100 * MS);
        let mut used = Duration::ZERO;
        // Moves that stop at once, at their time, or at the most the bank allows (and a
        // few milliseconds over, as a search's last batch may).
        for i in 0..60u32 {
            let move_clock = clock.next_move(None);
            let took = match i % 3 {
                0 => 10 * MS,
                1 => move_clock.own,
                _ => move_clock.most,
            };
            used += took;
            clock.settle(took);
            assert!(used <= 100 * MS * (i + 1), "move {i}: {used:?} used");
            assert!(move_clock.own <= move_clock.most && move_clock.most <= 300 * MS);
        }
        // A move over its most is not paid back by the next ones' bank going negative.
        clock.settle(1000 * MS);
        assert_eq!(clock.bank(), Duration::ZERO);
    }

    #[test]
    fn the_bank_is_spent_before_an_exact_solver_takes_over() {
        let mut clock = GameClock::new(100 * MS);
        clock.settle(Duration::ZERO);
        clock.settle(Duration::ZERO);
        clock.settle(Duration::ZERO);
        assert_eq!(clock.bank(), 300 * MS);
        // Many moves to come: a quarter of the bank now, up to twice the time in all.
        assert_eq!(clock.next_move(Some(20)), clock.next_move(None));
        assert_eq!(
            (clock.next_move(None).own, clock.next_move(None).most),
            (175 * MS, 300 * MS)
        );
        // Two searched moves left: half each; the last one takes all of it.
        assert_eq!(
            (clock.next_move(Some(2)).own, clock.next_move(Some(2)).most),
            (250 * MS, 300 * MS)
        );
        assert_eq!(
            (clock.next_move(Some(1)).own, clock.next_move(Some(1)).most),
            (400 * MS, 400 * MS)
        );
        assert_eq!(clock.next_move(Some(0)), clock.next_move(Some(1)));
    }
}
