//! The AlphaZero model file: a policy-value network with the input encoding it was trained
//! on, so a player of the file feeds it the same planes. The common checkpoint format
//! ([`Checkpoint`]) with [`AzModel`] as its architecture record.

use crate::endgame::EndgameGame;
use crate::games::{Checkers, GameName, Othello, Rules};
use crate::nn::{Architecture, Checkpoint, CheckpointError, Optimizer, PolicyHead, PolicyValueNet};
use crate::tensor::Device;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A game an AlphaZero network can play: how its policy is read off the network, and the
/// kind its model files declare (a checkers model read as Othello's is refused by name).
pub trait NetGame: EndgameGame {
    const HEAD: PolicyHead;
    /// The kind of its model files ([`ModelFile`]: the network and its lineage).
    const MODEL_KIND: &'static str;
    /// The kind of its model files before they recorded a lineage ([`AzModel`] alone),
    /// still read.
    const MODEL_KIND_V1: &'static str;
    /// The file of the network built into the program.
    const DEFAULT_MODEL: &'static [u8];
    /// The network built into the program.
    fn default_model(device: &Device) -> Result<LoadedModel<Self>, CheckpointError> {
        built_in::<Self>(Self::DEFAULT_MODEL, device)
    }
}

impl NetGame for Checkers {
    const HEAD: PolicyHead = PolicyHead::DarkSquares;
    const MODEL_KIND: &'static str = "an AlphaZero model with its lineage";
    const MODEL_KIND_V1: &'static str = "an AlphaZero model";
    const DEFAULT_MODEL: &'static [u8] = include_bytes!("../../models/default.bin");
}

impl NetGame for Othello {
    const HEAD: PolicyHead = PolicyHead::Dense {
        outputs: <Othello as Rules>::POLICY_SIZE,
    };
    const MODEL_KIND: &'static str = "an Othello AlphaZero model with its lineage";
    const MODEL_KIND_V1: &'static str = "an Othello AlphaZero model";
    const DEFAULT_MODEL: &'static [u8] = include_bytes!("../../models/othello.bin");
}

/// What rebuilds an AlphaZero network and says how to feed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct AzModel<G: NetGame = Checkers> {
    pub arch: Architecture,
    pub encoding: G::Encoding,
}

/// A model file before lineage: the network alone (run states hold this record too).
impl<G: NetGame> crate::nn::CheckpointKind for AzModel<G> {
    const KIND: &'static str = G::MODEL_KIND_V1;
}

/// Where a network came from: the run and iteration that trained it, and the model file
/// that run started from (`train --init`) with that file's hash, so that networks stacked
/// over several runs can be traced back file by file. A network whose weights are the mean of
/// others' ([`average_model_files`](super::average_model_files)) has no run of its own: it lists theirs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Lineage {
    /// The run folder, as `train` was given it; empty for a network not from `train`.
    pub run: String,
    pub iteration: u32,
    /// The model file the run's first network was read from (empty: trained from zero).
    pub parent: String,
    /// FNV-1a of the parent file's bytes, in hex (`init_hash` in the run's config).
    pub parent_hash: String,
    /// The networks whose weights this one's are the mean of (empty: trained as it is).
    pub averaged: Vec<Lineage>,
}

/// A lineage as checkpoints of format version 3 and before stored it: never a mean.
#[derive(Deserialize)]
struct LineageV3 {
    run: String,
    iteration: u32,
    parent: String,
    parent_hash: String,
}

/// A lineage as it is stored today.
#[derive(Deserialize)]
#[serde(remote = "Lineage")]
struct LineageV4 {
    run: String,
    iteration: u32,
    parent: String,
    parent_hash: String,
    averaged: Vec<Lineage>,
}

/// Reads the layout of the checkpoint being decoded (bincode cannot tell them apart).
impl<'de> Deserialize<'de> for Lineage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Lineage, D::Error> {
        if crate::nn::decoding_version() > crate::nn::NO_AVERAGE_VERSION {
            return LineageV4::deserialize(d);
        }
        let old = LineageV3::deserialize(d)?;
        Ok(Lineage {
            run: old.run,
            iteration: old.iteration,
            parent: old.parent,
            parent_hash: old.parent_hash,
            averaged: Vec::new(),
        })
    }
}

impl std::fmt::Display for Lineage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.averaged.is_empty() {
            return write_mean(f, &self.averaged);
        }
        if self.run.is_empty() {
            f.write_str("no recorded run")?;
        } else {
            write!(f, "iteration {} of run {}", self.iteration, self.run)?;
        }
        write_parent(f, self)
    }
}

fn write_parent(f: &mut std::fmt::Formatter<'_>, l: &Lineage) -> std::fmt::Result {
    if l.parent.is_empty() {
        f.write_str(", trained from zero")
    } else {
        write!(f, ", started from {} ({})", l.parent, l.parent_hash)
    }
}

/// "the mean of N networks: iterations 20-42 of run R, started from P (hash); ...": the
/// averaged networks grouped by their run, each run's iterations as ranges.
fn write_mean(f: &mut std::fmt::Formatter<'_>, averaged: &[Lineage]) -> std::fmt::Result {
    write!(f, "the mean of {} networks: ", averaged.len())?;
    let mut runs: Vec<(&Lineage, Vec<u32>)> = Vec::new();
    for l in averaged {
        let group = runs.iter_mut().find(|(r, _)| {
            (r.averaged.is_empty() && l.averaged.is_empty())
                && (&r.run, &r.parent) == (&l.run, &l.parent)
        });
        match group {
            Some((_, iterations)) => iterations.push(l.iteration),
            None => runs.push((l, vec![l.iteration])),
        }
    }
    for (i, (l, iterations)) in runs.iter_mut().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        if !l.averaged.is_empty() || l.run.is_empty() {
            write!(f, "({l})")?;
            continue;
        }
        iterations.sort_unstable();
        iterations.dedup();
        let word = if iterations.len() == 1 {
            "iteration"
        } else {
            "iterations"
        };
        write!(f, "{word} {} of run {}", ranges(iterations), l.run)?;
        write_parent(f, l)?;
    }
    Ok(())
}

/// Sorted numbers as runs of consecutive ones: "3, 5-9, 12".
fn ranges(sorted: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        out.push(match j > i {
            true => format!("{}-{}", sorted[i], sorted[j]),
            false => sorted[i].to_string(),
        });
        i = j + 1;
    }
    out.join(", ")
}

/// What a model file holds: the model and its lineage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct ModelFile<G: NetGame = Checkers> {
    pub model: AzModel<G>,
    pub lineage: Lineage,
}

impl<G: NetGame> crate::nn::CheckpointKind for ModelFile<G> {
    const KIND: &'static str = G::MODEL_KIND;
}

impl<G: NetGame> std::fmt::Display for ModelFile<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.model, self.lineage)
    }
}

/// A model file of either layout (one without lineage gets an empty one).
pub fn model_from_bytes<G: NetGame>(
    bytes: &[u8],
) -> Result<Checkpoint<ModelFile<G>>, CheckpointError> {
    match Checkpoint::<ModelFile<G>>::from_bytes(bytes) {
        Err(CheckpointError::Kind { found, .. }) if found == G::MODEL_KIND_V1 => {
            let old = Checkpoint::<AzModel<G>>::from_bytes(bytes)?;
            Ok(Checkpoint {
                arch: ModelFile {
                    model: old.arch,
                    lineage: Lineage::default(),
                },
                params: old.params,
                buffers: old.buffers,
                optimizer: old.optimizer,
            })
        }
        other => other,
    }
}

/// Reads a model file of either layout; errors name the file.
pub fn read_model_file<G: NetGame>(
    path: &Path,
) -> Result<Checkpoint<ModelFile<G>>, CheckpointError> {
    parse_file(path, model_from_bytes)
}

/// `parse` of the bytes of the file at `path`; errors name the file.
pub(super) fn parse_file<T>(
    path: &Path,
    parse: impl FnOnce(&[u8]) -> Result<T, CheckpointError>,
) -> Result<T, CheckpointError> {
    let bytes = std::fs::read(path).map_err(crate::files::file_error("read", path))?;
    parse(&bytes).map_err(|e| CheckpointError::InFile {
        path: path.to_owned(),
        error: Box::new(e),
    })
}

/// The game a model file is for, by the kind its first bytes declare (its header is
/// enough: [`crate::nn::read_header`]): Othello for either of Othello's kinds, else checkers
/// (whose reader then names any other kind of file for what it is).
pub fn model_game(bytes: &[u8]) -> GameName {
    match crate::nn::declared_kind(bytes) {
        Some(kind) if [Othello::MODEL_KIND, Othello::MODEL_KIND_V1].contains(&kind) => {
            GameName::Othello
        }
        _ => GameName::Checkers,
    }
}

impl<G: NetGame> std::fmt::Display for AzModel<G> {
    /// `az-tiny (...) for checkers`, and the encoding's options where they are not the
    /// default, as its keys: `, encoding history=2 legal_hops=true`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} for {}", self.arch, G::NAME.name())?;
        if self.encoding != G::Encoding::default()
            && let Ok(serde_json::Value::Object(keys)) = serde_json::to_value(self.encoding)
        {
            f.write_str(", encoding")?;
            for (key, value) in keys {
                write!(f, " {key}={value}")?;
            }
        }
        Ok(())
    }
}

impl<G: NetGame> AzModel<G> {
    /// `preset` fed by `encoding` (the preset's input planes follow the encoding).
    pub fn new(arch: Architecture, encoding: G::Encoding) -> Self {
        AzModel {
            arch: arch.with_input_planes(G::planes(&encoding)),
            encoding,
        }
    }

    /// A freshly initialised network of this model, in training mode.
    pub fn build(&self, device: &Device, rng: &mut impl rand::Rng) -> PolicyValueNet {
        PolicyValueNet::with_head(self.arch.clone(), G::HEAD, device, rng)
    }

    /// Rebuilds the network recorded in `ckpt` (in training mode) and its optimizer, if saved.
    pub fn restore<A>(
        &self,
        ckpt: &Checkpoint<A>,
        device: &Device,
    ) -> Result<(PolicyValueNet, Option<Optimizer>), CheckpointError>
    where
        A: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Display,
    {
        PolicyValueNet::from_checkpoint(&self.arch, G::HEAD, ckpt, device)
    }
}

/// Writes `net` (fed by `encoding`), where it came from and optionally its optimizer to
/// `path`, atomically.
pub fn save_model<G: NetGame>(
    path: &Path,
    net: &PolicyValueNet,
    encoding: G::Encoding,
    lineage: &Lineage,
    optimizer: Option<&Optimizer>,
) -> Result<(), CheckpointError> {
    let file = ModelFile::<G> {
        model: AzModel {
            arch: net.arch().clone(),
            encoding,
        },
        lineage: lineage.clone(),
    };
    Checkpoint::capture(file, net, optimizer).save(path)
}

/// A network, the encoding that feeds it and its saved optimizer, if any.
pub type LoadedModel<G = Checkers> = (PolicyValueNet, <G as Rules>::Encoding, Option<Optimizer>);

/// Reads a model file: the network (in training mode), its encoding and saved optimizer.
pub fn load_model<G: NetGame>(
    path: &Path,
    device: &Device,
) -> Result<LoadedModel<G>, CheckpointError> {
    rebuild(read_model_file::<G>(path)?, device)
}

/// A network shipped inside the program (models/default.bin for checkers, models/othello.bin
/// for Othello: the best networks of the learning runs in docs/RESULTS.md), so `az` plays
/// right after a build, from any folder.
fn built_in<G: NetGame>(bytes: &[u8], device: &Device) -> Result<LoadedModel<G>, CheckpointError> {
    rebuild(model_from_bytes::<G>(bytes)?, device)
}

fn rebuild<G: NetGame>(
    ckpt: Checkpoint<ModelFile<G>>,
    device: &Device,
) -> Result<LoadedModel<G>, CheckpointError> {
    let (net, optimizer) = ckpt.arch.model.restore(&ckpt, device)?;
    Ok((net, ckpt.arch.model.encoding, optimizer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::checkers::encoding::Encoding;
    use crate::nn::NetPreset;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn hop_policy_indices_follow_the_dark_square_heads_order() {
        use crate::games::checkers::Color;
        use crate::games::checkers::board::row_col;
        use crate::games::checkers::encoding::{frame_dir, frame_square, hop_at, policy_index};
        let dark = crate::nn::dark_square_index();
        assert_eq!(dark.len(), <Checkers as Rules>::POLICY_SIZE);
        for turn in [Color::Black, Color::White] {
            for (i, &flat) in dark.iter().enumerate() {
                let hop = hop_at(i, turn);
                assert_eq!(policy_index(hop, turn), i);
                let (r, c) = row_col(frame_square(hop.from, turn));
                let d = frame_dir(hop.dir, turn).index();
                assert_eq!(
                    flat as usize,
                    d * 64 + r as usize * 8 + c as usize,
                    "index {i}"
                );
            }
        }
    }

    #[test]
    fn the_built_in_networks_are_small_trained_cpu_preset_models() {
        for file in ["models/default.bin", "models/othello.bin"] {
            let bytes = std::fs::metadata(file).unwrap().len();
            assert!(bytes < 1 << 20, "{file} is {bytes} bytes");
        }
        let (net, encoding, optimizer) = Checkers::default_model(&Device::Cpu).unwrap();
        assert_eq!(net.arch().name, "dark-tiny");
        assert_eq!(encoding, Encoding::default());
        assert!(optimizer.is_none(), "a model to play carries no optimizer");
        let (net, _, optimizer) = Othello::default_model(&Device::Cpu).unwrap();
        assert_eq!(net.arch().name, "az-tiny");
        assert!(optimizer.is_none(), "a model to play carries no optimizer");
    }

    /// Files of format version 4, whose architecture had no auxiliary head, and of version
    /// 3, whose lineage also had no averaged networks, read with none; a payload under
    /// another version than its own is refused (the layouts differ).
    #[test]
    fn version_3_and_4_model_files_still_load() {
        use crate::nn::{MAGIC, checksum};
        let model = AzModel::<Checkers>::new(
            Architecture::preset(NetPreset::DarkTiny),
            Encoding::default(),
        );
        let net = model.build(&Device::Cpu, &mut StdRng::seed_from_u64(1));
        let record = ModelFile::<Checkers> {
            model,
            lineage: Lineage {
                run: "runs/a".into(),
                iteration: 2,
                parent: "p.ckpt".into(),
                parent_hash: "0a".into(),
                averaged: Vec::new(),
            },
        };
        let today = Checkpoint::capture(record.clone(), &net, None).to_bytes();
        // The header: magic, version, the kind (a length byte and its text), length,
        // checksum. The payload opens with the record: the architecture first, whose last
        // field is the auxiliary head's outputs (none: one byte), and last the list of
        // averaged networks (empty: one byte).
        let kind_at = MAGIC.len() + 4;
        let payload_at = kind_at + 1 + today[kind_at] as usize + 16;
        let encoded = bincode::serde::encode_to_vec(&record, bincode::config::standard()).unwrap();
        let arch =
            bincode::serde::encode_to_vec(&record.model.arch, bincode::config::standard()).unwrap();
        assert_eq!(&today[payload_at..payload_at + encoded.len()], &encoded[..]);
        assert_eq!((arch.last(), encoded.last()), (Some(&0), Some(&0)));
        let mut version_4 = today[payload_at..].to_vec();
        version_4.remove(arch.len() - 1);
        let mut version_3 = version_4.clone();
        version_3.remove(encoded.len() - 2);
        let file_of = |version: u32, payload: &[u8]| {
            let mut bytes = MAGIC.to_vec();
            bytes.extend(version.to_le_bytes());
            bytes.extend(&today[kind_at..payload_at - 16]);
            bytes.extend((payload.len() as u64).to_le_bytes());
            bytes.extend(checksum(payload).to_le_bytes());
            bytes.extend(payload);
            bytes
        };
        for (version, payload) in [(3, &version_3), (4, &version_4)] {
            let read = model_from_bytes::<Checkers>(&file_of(version, payload)).unwrap();
            assert_eq!(read.arch, record, "version {version}");
            assert_eq!(
                read.params,
                Checkpoint::capture(record.clone(), &net, None).params
            );
        }
        for (version, payload) in [(4, &version_3), (5, &version_4)] {
            assert!(
                matches!(
                    model_from_bytes::<Checkers>(&file_of(version, payload)),
                    Err(CheckpointError::Damaged(_))
                ),
                "version {version}"
            );
        }
    }

    #[test]
    fn a_mean_lists_its_networks_by_run_with_their_iterations_as_ranges() {
        let of = |run: &str, iteration, parent: &str| Lineage {
            run: run.into(),
            iteration,
            parent: parent.into(),
            parent_hash: if parent.is_empty() { "" } else { "0a" }.into(),
            averaged: Vec::new(),
        };
        let inner = Lineage {
            averaged: vec![of("runs/c", 1, ""), of("runs/c", 2, "")],
            ..Lineage::default()
        };
        let mean = Lineage {
            averaged: vec![
                of("runs/a", 21, "p.ckpt"),
                of("runs/b", 5, ""),
                of("runs/a", 20, "p.ckpt"),
                of("runs/a", 24, "p.ckpt"),
                inner,
                of("runs/a", 22, "p.ckpt"),
                of("runs/a", 7, "q.ckpt"),
            ],
            ..Lineage::default()
        };
        assert_eq!(
            mean.to_string(),
            "the mean of 7 networks: iterations 20-22, 24 of run runs/a, started from p.ckpt \
             (0a); iteration 5 of run runs/b, trained from zero; (the mean of 2 networks: \
             iterations 1-2 of run runs/c, trained from zero); iteration 7 of run runs/a, \
             started from q.ckpt (0a)"
        );
    }

    #[test]
    fn a_model_is_described_in_words_with_its_encodings_keys_where_not_the_default() {
        let arch = Architecture::preset(NetPreset::AzTiny);
        let plain = AzModel::<Checkers>::new(arch.clone(), Encoding::default()).to_string();
        assert!(plain.ends_with(" for checkers"), "{plain}");
        let encoding = Encoding {
            history: 2,
            legal_hops: true,
        };
        let more = AzModel::<Checkers>::new(arch, encoding).to_string();
        assert!(
            more.ends_with(" for checkers, encoding history=2 legal_hops=true"),
            "{more}"
        );
    }

    #[test]
    fn a_model_file_keeps_the_encoding_and_the_weights() {
        let dir = std::env::temp_dir().join(format!("cz-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.ckpt");
        let encoding = Encoding {
            history: 1,
            legal_hops: true,
        };
        let model = AzModel::<Checkers>::new(Architecture::preset(NetPreset::AzTiny), encoding);
        let net = PolicyValueNet::new(
            model.arch.clone(),
            &Device::Cpu,
            &mut StdRng::seed_from_u64(5),
        );
        let lineage = Lineage {
            run: "runs/a".into(),
            iteration: 7,
            parent: "models/default.bin".into(),
            parent_hash: "00ff".into(),
            averaged: Vec::new(),
        };
        save_model::<Checkers>(&path, &net, encoding, &lineage, None).unwrap();
        assert_eq!(
            read_model_file::<Checkers>(&path).unwrap().arch.lineage,
            lineage
        );
        assert_eq!(
            lineage.to_string(),
            "iteration 7 of run runs/a, started from models/default.bin (00ff)"
        );
        // A file from before lineage reads with an empty one, the same network.
        let old = Checkpoint::capture(model.clone(), &net, None).to_bytes();
        let read = model_from_bytes::<Checkers>(&old).unwrap();
        assert_eq!(
            (&read.arch.model, &read.arch.lineage),
            (&model, &Lineage::default())
        );
        // Another game's files of either layout are refused by kind.
        assert!(matches!(
            model_from_bytes::<Othello>(&old),
            Err(CheckpointError::Kind { .. })
        ));
        let (back, enc, opt) = load_model::<Checkers>(&path, &Device::Cpu).unwrap();
        assert_eq!(enc, encoding);
        assert_eq!(back.arch().input_planes, 16);
        assert!(opt.is_none());
        let x = crate::tensor::Tensor::from_vec(vec![0.5; 16 * 64], &[1, 16, 8, 8], &Device::Cpu);
        let (mut a, mut b) = (net, back);
        a.set_train(false);
        b.set_train(false);
        use crate::nn::Module;
        assert_eq!(a.predict(&x).1.to_vec(), b.predict(&x).1.to_vec());
        std::fs::remove_dir_all(&dir).ok();
    }
}
