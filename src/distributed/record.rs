//! A finished self-play game as one stream record: what an actor sends and a learner checks
//! before anything of it reaches the replay buffer.
//!
//! Layout: the magic `CZGR`, the format (u16, little-endian), the FNV-1a checksum of the rest
//! (u64, little-endian), then a bincode header (game, network, model version, actor) and the
//! bincode body (the game as PDN, its samples). The header is read before the body, so a
//! record of another game is named as such rather than failing to decode as this one.

use crate::games::{Color, DrawReason, Game, NotationError, Outcome, Rules, WinReason};
use crate::nn::checksum;
use crate::selfplay::{Sample, SelfPlayGame};
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 4] = b"CZGR";
/// The record format this build writes and reads (3: samples carry their auxiliary targets).
pub const FORMAT: u16 = 3;
const PREFIX: usize = 4 + 2 + 8;
/// Records larger than this are refused before decoding (a long game is far smaller).
const MAX_RECORD: usize = 16 << 20;

/// Who played a game, with what.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordHeader {
    /// The game's name (`checkers`, `othello`).
    pub game: String,
    /// The network's shape and encoding, as the model describes itself.
    pub network: String,
    /// The version (the learner's best iteration) of the model that played it.
    pub model_version: u32,
    pub actor: String,
}

#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
struct RecordBody<G: Rules> {
    pdn: String,
    ending: Ending,
    samples: Vec<Sample<G>>,
    simulations: u64,
}

/// How a game ended: the moves show an ending by the rules; the others are imposed on the
/// last position and must be carried beside the moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Ending {
    Rules,
    /// By the self-play length cap: the learner's own rules adjudicate the last position.
    Adjudicated,
    /// By the actor's endgame databases: the winner, or none for a draw. The learner may
    /// have no databases to check it with, and trusts it as it trusts the samples' values.
    Proven(Option<Color>),
}

impl Ending {
    fn of<G: Rules>(game: &Game<G>) -> Ending {
        match game.outcome() {
            _ if !game.is_imposed() => Ending::Rules,
            Some(Outcome::Win(winner, WinReason::Proven)) => Ending::Proven(Some(winner)),
            Some(Outcome::Draw(DrawReason::Proven)) => Ending::Proven(None),
            _ => Ending::Adjudicated,
        }
    }
}

/// Why a record was refused.
#[derive(Debug, thiserror::Error)]
pub enum Rejection {
    #[error("not a game record (no CZGR header)")]
    Garbage,
    #[error("record format {0}, this learner reads format {FORMAT}")]
    Format(u16),
    #[error("bad checksum")]
    Checksum,
    #[error("a record of {0} bytes, over the limit")]
    TooLarge(usize),
    #[error("undecodable: {0}")]
    Undecodable(#[source] bincode::error::DecodeError),
    #[error("undecodable: bytes after the body")]
    Trailing,
    #[error("a game of {found}, this run learns {want}")]
    OtherGame { found: String, want: String },
    #[error("played by another network ({found}), this run trains {want}")]
    OtherNetwork { found: String, want: String },
    #[error("its moves do not replay: {0}")]
    Unreplayable(#[source] NotationError),
    #[error("its moves do not replay: {0}")]
    BadGame(&'static str),
    #[error("bad training samples: {0}")]
    BadSamples(String),
}

impl Rejection {
    /// A short key to count rejections by.
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::Garbage => "garbage",
            Rejection::Format(_) => "format",
            Rejection::Checksum => "checksum",
            Rejection::TooLarge(_) => "too large",
            Rejection::Undecodable(_) | Rejection::Trailing => "undecodable",
            Rejection::OtherGame { .. } => "other game",
            Rejection::OtherNetwork { .. } => "other network",
            Rejection::Unreplayable(_) | Rejection::BadGame(_) => "bad game",
            Rejection::BadSamples(_) => "bad samples",
        }
    }
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_RECORD>()
}

/// The record of `game`.
pub fn encode<G: Rules>(header: &RecordHeader, game: &SelfPlayGame<G>) -> Vec<u8> {
    let body = RecordBody::<G> {
        pdn: game.game.to_pdn(&[]),
        ending: Ending::of(&game.game),
        samples: game.samples.clone(),
        simulations: game.simulations,
    };
    let mut payload =
        bincode::serde::encode_to_vec(header, bincode_config()).expect("plain data encodes");
    payload.extend(bincode::serde::encode_to_vec(&body, bincode_config()).expect("plain data"));
    let mut out = Vec::with_capacity(PREFIX + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend(payload);
    out
}

/// The header of a record whose frame (magic, format, checksum) is sound, and the body's bytes.
pub fn header(bytes: &[u8]) -> Result<(RecordHeader, &[u8]), Rejection> {
    if bytes.len() < PREFIX || &bytes[..4] != MAGIC {
        return Err(Rejection::Garbage);
    }
    if bytes.len() > MAX_RECORD {
        return Err(Rejection::TooLarge(bytes.len()));
    }
    let format = u16::from_le_bytes([bytes[4], bytes[5]]);
    if format != FORMAT {
        return Err(Rejection::Format(format));
    }
    let sum = u64::from_le_bytes(bytes[6..PREFIX].try_into().expect("8 bytes"));
    let payload = &bytes[PREFIX..];
    if checksum(payload) != sum {
        return Err(Rejection::Checksum);
    }
    let (header, used): (RecordHeader, usize) =
        bincode::serde::decode_from_slice(payload, bincode_config())
            .map_err(Rejection::Undecodable)?;
    Ok((header, &payload[used..]))
}

/// A record checked against the run's game and network: its header and the game with its
/// samples (`index` numbers it among the iteration's games).
pub fn decode<G: Rules>(
    bytes: &[u8],
    network: &str,
    index: u64,
) -> Result<(RecordHeader, SelfPlayGame<G>), Rejection> {
    let (header, body_bytes) = header(bytes)?;
    if header.game != G::NAME.name() {
        return Err(Rejection::OtherGame {
            found: header.game,
            want: G::NAME.name().into(),
        });
    }
    if header.network != network {
        return Err(Rejection::OtherNetwork {
            found: header.network,
            want: network.into(),
        });
    }
    let (body, used): (RecordBody<G>, usize) =
        bincode::serde::decode_from_slice(body_bytes, bincode_config())
            .map_err(Rejection::Undecodable)?;
    if used != body_bytes.len() {
        return Err(Rejection::Trailing);
    }
    let mut game = Game::<G>::from_pdn(&body.pdn).map_err(Rejection::Unreplayable)?;
    match (game.outcome(), body.ending) {
        (Some(_), Ending::Rules) => {}
        (None, Ending::Rules) => return Err(Rejection::BadGame("the game is not finished")),
        (Some(_), _) => return Err(Rejection::BadGame("ended again after it ended")),
        (None, Ending::Adjudicated) => game.impose(G::adjudicate(game.position())),
        (None, Ending::Proven(Some(winner))) => {
            game.impose(Outcome::Win(winner, WinReason::Proven))
        }
        (None, Ending::Proven(None)) => game.impose(Outcome::Draw(DrawReason::Proven)),
    }
    check_samples(&body.samples).map_err(Rejection::BadSamples)?;
    Ok((
        header,
        SelfPlayGame {
            index,
            game,
            samples: body.samples,
            simulations: body.simulations,
        },
    ))
}

/// Samples a network can train on: policy indices in range, probabilities and values finite
/// and in their ranges (a record passing the checksum may still come from a broken actor).
fn check_samples<G: Rules>(samples: &[Sample<G>]) -> Result<(), String> {
    for (i, s) in samples.iter().enumerate() {
        let bad = |what: &str| Err(format!("sample {i}: {what}"));
        if s.policy.is_empty() {
            return bad("an empty policy");
        }
        if let Some(&(a, _)) = s.policy.iter().find(|(a, _)| *a as usize >= G::POLICY_SIZE) {
            return bad(&format!("policy index {a} of {}", G::POLICY_SIZE));
        }
        if s.policy.iter().any(|&(_, p)| !(0.0..=1.0).contains(&p)) {
            return bad("a probability outside [0, 1]");
        }
        let total: f32 = s.policy.iter().map(|&(_, p)| p).sum();
        if (total - 1.0).abs() > 1e-3 {
            return bad(&format!("policy sums to {total}"));
        }
        let mut values = [s.z, s.q].into_iter().chain(s.ahead.into_iter().flatten());
        if !values.all(|v| (-1.0..=1.0).contains(&v)) {
            return bad("a value outside [-1, 1]");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Checkers;
    use crate::selfplay::{SelfPlayConfig, material_games};
    use crate::train::alphazero::TrainConfig;

    /// Finished self-play games with a material evaluator and a tiny search: one ended by
    /// the rules, one by the length cap, and that one again ended as databases end games, by
    /// a win and by a draw.
    fn games() -> Vec<SelfPlayGame<Checkers>> {
        let mut out = Vec::new();
        for max_plies in [400, 30] {
            let config = SelfPlayConfig {
                max_plies,
                ..TrainConfig {
                    searches: 8,
                    fast_searches: 4,
                    ..TrainConfig::cpu()
                }
                .self_play()
            };
            out.extend(material_games(&config, 1, 7));
        }
        for proven in [
            Outcome::Win(Color::White, WinReason::Proven),
            Outcome::Draw(DrawReason::Proven),
        ] {
            let mut g = out[1].clone();
            g.game.impose(proven);
            out.push(g);
        }
        out
    }

    fn header_for(network: &str) -> RecordHeader {
        RecordHeader {
            game: "checkers".into(),
            network: network.into(),
            model_version: 3,
            actor: "a1".into(),
        }
    }

    #[test]
    fn a_record_round_trips() {
        for g in games() {
            let bytes = encode(&header_for("net"), &g);
            let (h, back) = decode::<Checkers>(&bytes, "net", 9).unwrap();
            assert_eq!(h, header_for("net"));
            assert_eq!(back.game.moves(), g.game.moves());
            assert_eq!(
                back.game.outcome(),
                g.game.outcome(),
                "{:?}",
                g.game.outcome()
            );
            assert_eq!(back.samples, g.samples);
            assert_eq!((back.index, back.simulations), (9, g.simulations));
        }
    }

    #[test]
    fn bad_records_are_refused_with_their_reason() {
        let g = &games()[0];
        let good = encode(&header_for("net"), g);
        let kind = |bytes: &[u8]| decode::<Checkers>(bytes, "net", 0).unwrap_err().kind();
        assert_eq!(kind(b"hello"), "garbage");
        assert_eq!(kind(&[]), "garbage");
        let mut old = good.clone();
        old[4] = 0;
        assert_eq!(kind(&old), "format");
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(kind(&flipped), "checksum");
        assert_eq!(
            decode::<Checkers>(&good, "another net", 0)
                .unwrap_err()
                .kind(),
            "other network"
        );
        let othello = encode(
            &RecordHeader {
                game: "othello".into(),
                ..header_for("net")
            },
            g,
        );
        assert_eq!(kind(&othello), "other game");
        let mut twice = g.clone();
        twice.game.impose(Outcome::Draw(DrawReason::Proven));
        assert_eq!(kind(&encode(&header_for("net"), &twice)), "bad game");
        // A sound frame around a body that is not one.
        let mut payload =
            bincode::serde::encode_to_vec(header_for("net"), bincode_config()).unwrap();
        payload.extend([0xff; 7]);
        let mut junk = Vec::from(&MAGIC[..]);
        junk.extend(FORMAT.to_le_bytes());
        junk.extend(checksum(&payload).to_le_bytes());
        junk.extend(payload);
        assert_eq!(kind(&junk), "undecodable");
    }

    #[test]
    fn samples_out_of_range_are_refused() {
        let mut g = games().remove(0);
        g.samples[0].policy[0].0 = u16::MAX;
        let bytes = encode(&header_for("net"), &g);
        let e = decode::<Checkers>(&bytes, "net", 0).unwrap_err();
        assert_eq!(e.kind(), "bad samples", "{e}");
        let mut g = games().remove(0);
        g.samples[0].z = f32::NAN;
        let e = decode::<Checkers>(&encode(&header_for("net"), &g), "net", 0).unwrap_err();
        assert_eq!(e.kind(), "bad samples", "{e}");
    }
}
