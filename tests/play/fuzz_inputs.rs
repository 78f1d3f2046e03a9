//! Every parser that takes user input, driven with random bytes and with random sequences of
//! the tokens it expects (which reach deeper than bytes do): FEN, PDN moves and move
//! sequences, agent specs (parsed and built), train config JSON (parsed, applied, validated)
//! and checkpoint files (random, and sound files with damaged bytes under a valid checksum).
//! Each must return a value or an error, never panic or abort. The engine protocol has the
//! same test over whole sessions in src/engine.

use checkers_zero::agents::AgentSpec;
use checkers_zero::games::Checkers;
use checkers_zero::games::checkers::{Game, Position, legal_moves, move_to_pdn, parse_fen};
use checkers_zero::net::AzModel;
use checkers_zero::nn::{Checkpoint, MAGIC};
use checkers_zero::tensor::Device;
use checkers_zero::train::alphazero::{ConfigOverrides, TrainConfig, from_json_object};
use proptest::prelude::*;

/// Random text: arbitrary bytes made into a string as a line reader would.
fn bytes_text() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..120)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Text made of `tokens`, joined with nothing or with a space.
fn tokens(vocabulary: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(vocabulary), 0..max),
        any::<bool>(),
    )
        .prop_map(|(t, spaced)| t.join(if spaced { " " } else { "" }))
}

const FEN_TOKENS: &[&str] = &[
    "B",
    "W",
    "b",
    "w",
    "K",
    "k",
    ":",
    ",",
    "-",
    ".",
    " ",
    "1",
    "12",
    "21",
    "32",
    "33",
    "0",
    "9",
    "+",
    "x",
    "é",
    "\t",
    "1-12",
    "21-32",
    "K1-3",
    "99999999999999999999",
];

const MOVE_TOKENS: &[&str] = &[
    "11", "15", "-", "x", "X", "22", "18", "9", "14", "23", "19", "0", "33", " ", "--", "xx", "1",
    "32", "é", "300", "+",
];

const SPEC_TOKENS: &[&str] = &[
    "random",
    "alphabeta",
    "mcts",
    "az",
    "td",
    "ga",
    "pso",
    "bogus",
    ":",
    ",",
    "=",
    "depth",
    "time",
    "nodes",
    "king",
    "hash",
    "searches",
    "c",
    "batch",
    "device",
    "model",
    "cpu",
    "auto",
    "0",
    "1",
    "3",
    "-1",
    "1.5",
    "nan",
    "inf",
    "x",
    "18446744073709551616",
    "99999999999",
    "65536",
    "4294967296",
    "/nonexistent.ckpt",
    "models/default.bin",
    " ",
];

const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"searches\"",
    "\"lr\"",
    "\"network\"",
    "\"threads\"",
    "\"gauntlet_opponents\"",
    "\"bogus\"",
    "\"az-tiny\"",
    "\"random;alphabeta:depth=0\"",
    "0",
    "1",
    "-1",
    "1e309",
    "0.5",
    "4294967296",
    "true",
    "null",
    "\"\"",
    " ",
];

proptest! {
    #![proptest_config(crate::common::proptest_config(300))]

    #[test]
    fn fen_text_is_a_position_or_an_error(text in prop_oneof![bytes_text(), tokens(FEN_TOKENS, 24)]) {
        if let Ok(pos) = parse_fen(&text) {
            // What was accepted is a position: it writes and reads back the same.
            let again = checkers_zero::games::checkers::to_fen(&pos);
            prop_assert_eq!(parse_fen(&again).unwrap(), pos);
        }
    }

    /// Move sequences mixing legal moves with garbage, played on one game as `play` and the
    /// engine's `position ... moves` do.
    #[test]
    fn move_sequences_play_or_refuse(
        steps in prop::collection::vec(
            prop_oneof![
                (0usize..64).prop_map(Ok),
                prop_oneof![bytes_text(), tokens(MOVE_TOKENS, 8)].prop_map(Err),
            ],
            0..40,
        )
    ) {
        let mut game = Game::new();
        for step in steps {
            let text = match step {
                Ok(i) => {
                    let legal = legal_moves(game.position());
                    if legal.is_empty() {
                        "11-15".to_string()
                    } else {
                        move_to_pdn(&legal[i % legal.len()])
                    }
                }
                Err(garbage) => garbage,
            };
            let before = game.moves().len();
            match game.play_text(&text) {
                Ok(_) => prop_assert_eq!(game.moves().len(), before + 1),
                Err(e) => {
                    prop_assert_eq!(game.moves().len(), before, "a refused move changes nothing");
                    prop_assert!(!e.0.is_empty() && !e.0.contains('\n'));
                }
            }
        }
        let _ = checkers_zero::games::checkers::parse_move(&Position::start(), "");
    }

    #[test]
    fn agent_specs_build_or_refuse(text in prop_oneof![bytes_text(), tokens(SPEC_TOKENS, 10)]) {
        if let Ok(spec) = text.parse::<AgentSpec>()
            && let Err(e) = spec.build::<Checkers>(0)
        {
            let e = e.to_string();
            prop_assert!(!e.is_empty() && !e.contains('\n'), "{:?}", e);
        }
    }

    #[test]
    fn config_json_is_a_config_or_an_error(text in prop_oneof![bytes_text(), tokens(JSON_TOKENS, 16)]) {
        if let Ok(o) = from_json_object::<ConfigOverrides>(&text) {
            let mut config = TrainConfig::cpu();
            config.apply(&o);
            let _ = config.validate();
        }
        let _ = from_json_object::<TrainConfig>(&text);
    }

    #[test]
    fn random_bytes_are_no_checkpoint(tail in prop::collection::vec(any::<u8>(), 0..200), magic in any::<bool>()) {
        let bytes = if magic { [&MAGIC[..], &tail].concat() } else { tail };
        prop_assert!(Checkpoint::<AzModel>::from_bytes(&bytes).is_err());
    }
}

/// A sound model file, in memory.
fn sound_model() -> Vec<u8> {
    let (net, encoding, _) =
        <checkers_zero::games::Checkers as checkers_zero::net::NetGame>::default_model(
            &Device::Cpu,
        )
        .unwrap();
    let model: AzModel = AzModel {
        arch: net.arch().clone(),
        encoding,
    };
    Checkpoint::capture(model, &net, None).to_bytes()
}

/// FNV-1a 64, the file format's checksum, so damaged payloads get past it to the decoder.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

proptest! {
    #![proptest_config(crate::common::proptest_config(200))]

    /// Damage inside the payload (lengths, shapes, tags) under a recomputed checksum reaches
    /// the decoder and the restore, which refuse it or build a network of the saved shape.
    #[test]
    fn damaged_payloads_are_refused_or_restored(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let bytes = sound_model();
        let mut payload = bytes[payload_start(&bytes)..].to_vec();
        // Most damage goes near the front, where the architecture and lengths are.
        let front = payload.len().min(256);
        for (at, value) in edits {
            payload[at.index(front)] = value;
        }
        if let Some(cut) = cut {
            payload.truncate(cut.index(payload.len()));
        }
        let file = with_payload(&bytes, &payload);
        if let Ok(ckpt) = Checkpoint::<AzModel>::from_bytes(&file) {
            let _ = ckpt.arch.restore(&ckpt, &Device::Cpu);
        }
    }
}

/// Where a checkpoint's payload starts: after the magic, the version, the kind's length byte
/// and text, and the payload's length and checksum.
fn payload_start(bytes: &[u8]) -> usize {
    MAGIC.len() + 4 + 1 + bytes[MAGIC.len() + 4] as usize + 16
}

/// `bytes`' header with `payload` in place of its own, its length and checksum recomputed.
fn with_payload(bytes: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut file = bytes[..payload_start(bytes) - 16].to_vec();
    file.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    file.extend_from_slice(&fnv(payload).to_le_bytes());
    file.extend_from_slice(payload);
    file
}

/// A length that claims exabytes is refused as damage rather than allocated (which aborts
/// the process).
#[test]
fn a_huge_length_is_refused_not_allocated() {
    let bytes = sound_model();
    let payload = &bytes[payload_start(&bytes)..];
    // The architecture's name comes first; its length is one varint byte ("dark-tiny"). In
    // its place: bincode's marker of a u64 varint and 2^59.
    assert_eq!(payload[0], 9);
    let mut damaged = vec![0xFD];
    damaged.extend_from_slice(&(1u64 << 59).to_le_bytes());
    damaged.extend_from_slice(&payload[1..]);
    let err = Checkpoint::<AzModel>::from_bytes(&with_payload(&bytes, &damaged))
        .err()
        .unwrap();
    assert!(err.to_string().contains("damaged"), "{err}");
}

#[test]
fn the_sound_model_round_trips() {
    let bytes = sound_model();
    let ckpt = Checkpoint::<AzModel>::from_bytes(&bytes).unwrap();
    ckpt.arch.restore(&ckpt, &Device::Cpu).unwrap();
}
