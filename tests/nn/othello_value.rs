//! The Othello value networks' checkpoints (the tower network and the plain one).

use super::{cpu, param_values, rng};
use checkers_zero::games::othello::Position;
use checkers_zero::games::{Color, Othello, Rules};
use checkers_zero::net::ValueModel;
use checkers_zero::net::othello_value::{OthelloValueArch, OthelloValueNet};
use checkers_zero::net::towers::TowerArch;
use checkers_zero::nn::{Architecture, Checkpoint, CheckpointError, NetPreset, PolicyValueNet};
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cz-othello-value-{}-{name}", std::process::id()))
}

fn positions() -> Vec<Position> {
    // The start position, a corner taken, and a board with one empty cell.
    let at = |black: u64, white: u64, turn| Position::from_discs(black, white, turn).unwrap();
    vec![
        Othello::start(),
        at(0x0000_0000_0000_0107, 0x0000_0018_1800_0000, Color::White),
        at(
            0x5555_5555_5555_5555,
            0xAAAA_AAAA_AAAA_AAAA & !(1 << 63),
            Color::Black,
        ),
    ]
}

#[test]
fn a_saved_network_loads_with_its_weights_and_values() {
    let towers = TowerArch {
        lines: 3,
        hidden: vec![16, 8],
        ..TowerArch::default()
    };
    let plain = OthelloValueArch::Plain { hidden: vec![12] };
    for arch in [OthelloValueArch::Towers(towers), plain] {
        let mut net = OthelloValueNet::new(arch, &mut rng(1));
        // Weights changed after construction (as TD changes them) are the ones saved.
        let moved: Vec<f32> = net.weights().iter().map(|w| w * 0.5 + 0.01).collect();
        net.set_weights(&moved);
        let path = temp("round-trip.ckpt");
        net.save(&path).unwrap();
        let loaded = OthelloValueNet::load(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(loaded.arch(), net.arch());
        assert_eq!(param_values(&loaded), param_values(&net));
        assert_eq!(loaded.values(&positions()), net.values(&positions()));
    }
}

#[test]
fn another_kind_of_checkpoint_is_named_for_what_it_holds() {
    let arch = Architecture::preset(NetPreset::AzTiny);
    let path = temp("kind.ckpt");
    PolicyValueNet::new(arch, &cpu(), &mut rng(2))
        .save(&path, None)
        .unwrap();
    let err = OthelloValueNet::load(&path).map(|_| ()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(
        matches!(
            err.into_cause(),
            CheckpointError::Kind {
                expected: "an Othello value network",
                ..
            }
        ),
        "a policy-value network is not an Othello value network"
    );
}

#[test]
fn an_architecture_with_a_size_of_zero_is_an_error_not_a_panic() {
    let net = OthelloValueNet::new(OthelloValueArch::Towers(TowerArch::default()), &mut rng(3));
    let bad = OthelloValueArch::Towers(TowerArch {
        corners: 0,
        ..TowerArch::default()
    });
    let path = temp("zero.ckpt");
    Checkpoint::capture(bad, &net, None).save(&path).unwrap();
    let err = OthelloValueNet::load(&path).map(|_| ()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    let text = err.to_string();
    assert!(
        text.contains("zero.ckpt") && text.contains("a size of 0"),
        "{text}"
    );
}
