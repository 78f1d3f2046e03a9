//! The Othello tower value network's checkpoints.

use super::{cpu, param_values, rng};
use checkers_zero::net::ValueModel;
use checkers_zero::net::towers::{Discs, TowerArch, TowerNet};
use checkers_zero::nn::{Architecture, Checkpoint, CheckpointError, PolicyValueNet};
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cz-towers-{}-{name}", std::process::id()))
}

fn boards() -> Vec<Discs> {
    // The start position, a corner taken, and a board with one empty cell.
    vec![
        Discs {
            own: 0x0000_0008_1000_0000,
            opponent: 0x0000_0010_0800_0000,
        },
        Discs {
            own: 0x0000_0000_0000_0107,
            opponent: 0x0000_0018_1800_0000,
        },
        Discs {
            own: 0x5555_5555_5555_5555,
            opponent: 0xAAAA_AAAA_AAAA_AAAA & !(1 << 63),
        },
    ]
}

#[test]
fn a_saved_network_loads_with_its_weights_and_values() {
    let arch = TowerArch {
        lines: 3,
        hidden: vec![16, 8],
        ..TowerArch::default()
    };
    let mut net = TowerNet::new(arch, &cpu(), &mut rng(1));
    // Weights changed after construction (as TD changes them) are the ones saved.
    let moved: Vec<f32> = net.weights().iter().map(|w| w * 0.5 + 0.01).collect();
    net.set_weights(&moved);
    let path = temp("round-trip.ckpt");
    net.save(&path).unwrap();
    let loaded = TowerNet::load(&path, &cpu()).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(loaded.arch(), net.arch());
    assert_eq!(param_values(&loaded), param_values(&net));
    assert_eq!(loaded.values(&boards()), net.values(&boards()));
}

#[test]
fn another_kind_of_checkpoint_is_named_for_what_it_holds() {
    let arch = Architecture::preset("az-tiny").unwrap();
    let path = temp("kind.ckpt");
    PolicyValueNet::new(arch, &cpu(), &mut rng(2))
        .save(&path, None)
        .unwrap();
    let err = TowerNet::load(&path, &cpu()).map(|_| ()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(
        matches!(
            err.into_cause(),
            CheckpointError::Kind {
                expected: "an Othello tower value network",
                ..
            }
        ),
        "a policy-value network is not a tower network"
    );
}

#[test]
fn an_architecture_with_a_size_of_zero_is_an_error_not_a_panic() {
    let net = TowerNet::new(TowerArch::default(), &cpu(), &mut rng(3));
    let bad = TowerArch {
        corners: 0,
        ..TowerArch::default()
    };
    let path = temp("zero.ckpt");
    Checkpoint::capture(bad, &net, None).save(&path).unwrap();
    let err = TowerNet::load(&path, &cpu()).map(|_| ()).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    let text = err.to_string();
    assert!(
        text.contains("zero.ckpt") && text.contains("a size of 0"),
        "{text}"
    );
}
