//! Checkers' part of the alpha-beta search: material as the `alphabeta` agent's evaluation,
//! and the game's search knobs (the capture extension, captures and crowning first).

use super::AgentError;
use super::alphabeta::{AgentEval, MAN, SearchGame, StaticEval};
use super::error::setting_error;
use super::kinds::{self, AgentKind};
use super::settings;
use crate::games::Checkers;
use crate::games::checkers::moves::generate;
use crate::games::checkers::{Move, Position, dedup_routes};

/// Material: man 100, king `king_value`, own minus the opponent's.
pub struct Material {
    king_weight: f32,
    king_value: i32,
}

impl Material {
    /// Material with a king worth `king_weight` men, checked as a spec's `king=` would be
    /// (evaluators may come from code).
    pub fn new(king_weight: f32) -> Result<Material, AgentError> {
        settings::KING
            .check(king_weight)
            .map_err(|e| setting_error("alphabeta", "king", e))?;
        Ok(Material {
            king_weight,
            king_value: (king_weight * MAN as f32).round() as i32,
        })
    }
}

impl StaticEval<Checkers> for Material {
    fn evaluate(&mut self, pos: &Position) -> i32 {
        let me = pos.turn();
        let material = |c| {
            pos.men(c).count_ones() as i32 * MAN
                + pos.kings_of(c).count_ones() as i32 * self.king_value
        };
        material(me) - material(me.opposite())
    }
}

impl AgentEval<Checkers> for Material {
    const KIND: &'static AgentKind = &kinds::CHECKERS_ALPHABETA;

    fn options(&self) -> Vec<(&'static str, Option<String>)> {
        vec![("king", Some(self.king_weight.to_string()))]
    }
}

impl SearchGame for Checkers {
    /// From-square by to-square of a step.
    const HISTORY_SLOTS: usize = 32 * 32;

    fn distinct_moves_into(pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        generate(pos, out);
        dedup_routes(out);
    }

    /// A pending capture: material is about to change, so it is searched out. Captures
    /// are compulsory, so the first move tells.
    fn unsettled(_pos: &Position, moves: &[Move]) -> bool {
        moves[0].is_capture()
    }

    /// Captures (all or none of a position's moves) by pieces taken, then a man's step to
    /// the crowning row.
    fn urgency(pos: &Position, mv: &Move) -> u32 {
        if mv.is_capture() {
            1 + mv.captured().count_ones()
        } else if pos.kings() & (1 << mv.from()) == 0
            && (1 << mv.to()) & pos.turn().crown_row() != 0
        {
            1
        } else {
            0
        }
    }

    /// Steps by from and to squares; captures are ordered by what they take instead.
    fn history_slot(mv: &Move) -> Option<usize> {
        (!mv.is_capture()).then(|| mv.from() as usize * 32 + mv.to() as usize)
    }
}
