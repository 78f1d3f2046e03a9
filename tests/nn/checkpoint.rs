//! Checkpoint round trips and every way a file can be rejected.

use super::{cpu, param_values, rng};
use checkers_zero::nn::{
    Architecture, Body, Checkpoint, CheckpointError, Ctx, FORMAT_VERSION, MAGIC, Module, Optimizer,
    PolicyValueNet, alphazero_loss, checksum,
};
use checkers_zero::tensor::{Tensor, Var};
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("cz-nn-{}-{name}", std::process::id()))
}

fn tiny() -> Architecture {
    Architecture {
        name: "ckpt-test".into(),
        input_planes: 5,
        channels: 8,
        blocks: 2,
        body: Body::Residual,
        value_planes: 1,
        aux: 0,
    }
}

/// A fixed batch: positions, visit distributions, results.
fn batch(planes: usize) -> (Tensor, Tensor, Tensor) {
    let (dev, mut r) = (cpu(), rng(5));
    let x = Tensor::randn(&[6, planes, 8, 8], 1.0, &mut r, &dev);
    let pi = Tensor::randn(&[6, 128], 1.0, &mut r, &dev).softmax(-1);
    let z = Tensor::randn(&[6], 0.5, &mut r, &dev).tanh();
    (x, pi, z)
}

fn train_step(
    net: &mut PolicyValueNet,
    opt: &mut Optimizer,
    (x, pi, z): &(Tensor, Tensor, Tensor),
) {
    let ctx = Ctx::training();
    let (logits, v) = net.forward(&ctx, &Var::constant(x.clone()));
    let loss = alphazero_loss(&logits, &v, pi, z);
    let grads = ctx.param_grads(net, &loss.total.backward());
    opt.step(net, &grads);
}

#[test]
fn round_trip_is_bitwise() {
    let data = batch(5);
    let mut net = PolicyValueNet::new(tiny(), &cpu(), &mut rng(1));
    let mut opt = Optimizer::adam(1e-3, 1e-4, &net);
    for _ in 0..2 {
        train_step(&mut net, &mut opt, &data);
    }
    let path = temp("round-trip.ckpt");
    net.save(&path, Some(&opt)).unwrap();
    let (mut loaded, opt2) = PolicyValueNet::load(&path, &cpu()).unwrap();
    let mut opt2 = opt2.expect("the optimizer was saved");
    assert_eq!(loaded.arch(), net.arch());
    assert_eq!(param_values(&loaded), param_values(&net));

    // Evaluation mode reads the running statistics, which must have come back too.
    net.set_train(false);
    loaded.set_train(false);
    let (p1, v1) = net.predict(&data.0);
    let (p2, v2) = loaded.predict(&data.0);
    assert_eq!(p1.to_vec(), p2.to_vec());
    assert_eq!(v1.to_vec(), v2.to_vec());

    // The optimizer's moments and step count came back: one more step agrees bit for bit.
    net.set_train(true);
    loaded.set_train(true);
    train_step(&mut net, &mut opt, &data);
    train_step(&mut loaded, &mut opt2, &data);
    assert_eq!(opt2.steps(), 3);
    assert_eq!(param_values(&loaded), param_values(&net));
    std::fs::remove_file(&path).unwrap();
}

/// Saves a checkpoint without optimizer state and returns its bytes.
fn saved_bytes(name: &str) -> (PathBuf, Vec<u8>) {
    let net = PolicyValueNet::new(tiny(), &cpu(), &mut rng(2));
    let path = temp(name);
    net.save(&path, None).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn load_err(path: &PathBuf, bytes: &[u8]) -> CheckpointError {
    std::fs::write(path, bytes).unwrap();
    let err = match PolicyValueNet::load(path, &cpu()) {
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains(&path.display().to_string()),
                "names the file: {text}"
            );
            e.into_cause()
        }
        Ok(_) => panic!("a bad checkpoint was accepted"),
    };
    let msg = err.to_string();
    assert!(
        !msg.contains('\n') && !msg.is_empty(),
        "one-line message: {msg:?}"
    );
    err
}

/// The payload of a file saved today of `tiny()` as format `version` wrote it: the
/// architecture without its auxiliary outputs up to version 4, and without its value planes
/// too up to version 2.
fn payload_as_of(version: u32, current: &[u8]) -> Vec<u8> {
    // The header: magic, version, the kind (a length byte and its text), length, checksum.
    let kind_len = current[MAGIC.len() + 4] as usize;
    assert_eq!(
        &current[MAGIC.len() + 5..MAGIC.len() + 5 + kind_len],
        b"a policy-value network"
    );
    let payload_at = MAGIC.len() + 4 + 1 + kind_len + 16;
    // The architecture leads the payload: the name (its length, then its bytes), the input
    // planes, channels and blocks (one byte each), the body, the value planes, then the
    // auxiliary outputs.
    let value_planes_at = 1 + "ckpt-test".len() + 3 + 1;
    let mut payload = current[payload_at..].to_vec();
    assert_eq!(payload[value_planes_at], 1, "the value planes' byte");
    assert_eq!(
        payload[value_planes_at + 1],
        0,
        "the auxiliary outputs' byte"
    );
    if version <= 4 {
        payload.remove(value_planes_at + 1);
    }
    if version <= 2 {
        payload.remove(value_planes_at);
    }
    payload
}

/// A file of format `version` around `payload` (version 1 without the kind).
fn file_of(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend(version.to_le_bytes());
    if version > 1 {
        let kind = b"a policy-value network";
        bytes.push(kind.len() as u8);
        bytes.extend(kind);
    }
    bytes.extend((payload.len() as u64).to_le_bytes());
    bytes.extend(checksum(payload).to_le_bytes());
    bytes.extend(payload);
    bytes
}

/// Files of the first format version, which did not record what they hold, of the second,
/// whose architectures had no value planes, and of the third and fourth, whose architectures
/// had no auxiliary head, still load: as one value plane and no head, every weight where it
/// was.
#[test]
fn files_of_every_earlier_version_still_load() {
    let (path, current) = saved_bytes("old.ckpt");
    let (net, _) = PolicyValueNet::load(&path, &cpu()).unwrap();
    for version in 1..FORMAT_VERSION {
        std::fs::write(&path, file_of(version, &payload_as_of(version, &current))).unwrap();
        let (loaded, _) = PolicyValueNet::load(&path, &cpu()).unwrap();
        assert_eq!(loaded.arch(), &tiny(), "version {version}");
        assert_eq!(
            param_values(&loaded),
            param_values(&net),
            "version {version}"
        );
    }
    // A payload under a later version than its own is not a valid file: the layouts differ.
    for (version, payload_version) in [(3, 2), (FORMAT_VERSION, 4)] {
        let payload = payload_as_of(payload_version, &current);
        std::fs::write(&path, file_of(version, &payload)).unwrap();
        let e = PolicyValueNet::load(&path, &cpu()).err().unwrap();
        assert!(matches!(e.cause(), CheckpointError::Damaged(_)), "{e}");
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bad_files_are_clear_errors() {
    let (path, good) = saved_bytes("bad.ckpt");
    let (loaded, opt) = PolicyValueNet::load(&path, &cpu()).unwrap();
    assert!(opt.is_none());
    assert_eq!(loaded.arch(), &tiny());

    let mut wrong_magic = good.clone();
    wrong_magic[0] = b'X';
    assert!(matches!(
        load_err(&path, &wrong_magic),
        CheckpointError::BadMagic
    ));
    assert!(matches!(
        load_err(&path, b"{\"json\": true}"),
        CheckpointError::BadMagic
    ));

    let mut newer = good.clone();
    newer[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = load_err(&path, &newer);
    assert!(
        matches!(e, CheckpointError::Version { found, expected } if found == FORMAT_VERSION + 1 && expected == FORMAT_VERSION)
    );

    for cut in [0, 5, 20, good.len() / 2, good.len() - 1] {
        let e = load_err(&path, &good[..cut]);
        assert!(
            matches!(e, CheckpointError::Truncated { found, .. } if found == cut as u64),
            "cut at {cut}: {e}"
        );
    }

    let mut flipped = good.clone();
    let mid = good.len() / 2;
    flipped[mid] ^= 0x10;
    assert!(matches!(
        load_err(&path, &flipped),
        CheckpointError::Damaged(_)
    ));
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        load_err(&path, &longer),
        CheckpointError::Damaged(_)
    ));

    let missing = temp("does-not-exist.ckpt");
    assert!(matches!(
        PolicyValueNet::load(&missing, &cpu()),
        Err(CheckpointError::File(_))
    ));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn architecture_mismatch_is_rejected_and_leaves_the_model_alone() {
    let (path, _) = saved_bytes("arch.ckpt");
    let ckpt = Checkpoint::<Architecture>::load(&path).unwrap();
    let other = Architecture {
        channels: 4,
        ..tiny()
    };
    let mut net = PolicyValueNet::new(other.clone(), &cpu(), &mut rng(3));
    let before = param_values(&net);
    let e = ckpt.restore(&mut net, &other).unwrap_err();
    assert!(matches!(e, CheckpointError::Architecture { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "checkpoint holds ckpt-test (5 input planes, 8 channels, 2 residual blocks), \
         but the model is ckpt-test (5 input planes, 4 channels, 2 residual blocks)"
    );
    // Same description, different layers: caught by the shapes, before anything is written.
    let e = ckpt.restore(&mut net, &tiny()).unwrap_err();
    assert!(matches!(e, CheckpointError::Mismatch(_)), "{e}");
    assert_eq!(param_values(&net), before);
    std::fs::remove_file(&path).unwrap();
}

/// A network with more value planes round-trips, and says so in its description.
#[test]
fn value_planes_are_saved_and_described() {
    let wide = tiny().with_value_planes(3);
    let net = PolicyValueNet::new(wide.clone(), &cpu(), &mut rng(6));
    let path = temp("wide.ckpt");
    net.save(&path, None).unwrap();
    let (loaded, _) = PolicyValueNet::load(&path, &cpu()).unwrap();
    assert_eq!(loaded.arch(), &wide);
    assert_eq!(param_values(&loaded), param_values(&net));
    assert_eq!(
        wide.to_string(),
        "ckpt-test (5 input planes, 8 channels, 2 residual blocks, 3 value planes)"
    );
    std::fs::remove_file(&path).unwrap();
}
