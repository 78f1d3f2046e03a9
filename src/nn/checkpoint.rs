//! The checkpoint file: a model's architecture, parameters and batch-norm running statistics,
//! and optionally its optimizer's state.
//!
//! Layout: the magic bytes, the format version (u32 LE), the kind of contents (a length byte
//! and that many bytes of text, [`CheckpointKind::KIND`]; since version 2), the payload's
//! length (u64 LE) and its FNV-1a 64 checksum (u64 LE), then the payload: a bincode-encoded
//! [`Checkpoint`], whose first field is the architecture. Version 1 files (no kind),
//! version 2 files (a policy-value [`Architecture`](super::Architecture) without its value
//! planes), version 3 files (a model's lineage without the networks it is the mean of) and
//! version 4 files (an architecture without its auxiliary head, a run state's samples
//! without their auxiliary targets) are still read. Every way a file can be wrong is a
//! [`CheckpointError`]; errors of [`Checkpoint::load`] name the file.

use super::{Module, Optimizer, OptimizerState};
use crate::tensor::{Device, Tensor};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Display;
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"CZ-CKPT\0";
/// Bumped whenever the layout changes; files of an unknown version are rejected by name.
pub const FORMAT_VERSION: u32 = 5;
/// The first version, without the kind of contents.
const UNTYPED_VERSION: u32 = 1;
/// The first version with the kind of contents.
const FIRST_TYPED_VERSION: u32 = 2;
/// The last version whose policy-value architecture had no value planes (they were 1).
pub(super) const ONE_VALUE_PLANE_VERSION: u32 = 2;
/// The last version whose model lineage could not be a mean of networks' (`net::Lineage`).
pub(crate) const NO_AVERAGE_VERSION: u32 = 3;
/// The last version whose policy-value architecture had no auxiliary head and whose
/// training samples no auxiliary targets.
pub(crate) const NO_AHEAD_VERSION: u32 = 4;

std::thread_local! {
    /// The format version of the payload being decoded on this thread. bincode is positional,
    /// so a record whose layout changed between versions (an architecture nested in a model
    /// file or a run state) cannot tell the layouts apart by itself: it asks this.
    static DECODING: std::cell::Cell<u32> = const { std::cell::Cell::new(FORMAT_VERSION) };
}

/// The format version of the checkpoint being decoded on this thread (the current one
/// outside a decode).
pub(crate) fn decoding_version() -> u32 {
    DECODING.with(|v| v.get())
}

/// Decodes `payload` as format `version` wrote it.
pub(crate) fn decode_as_of<T: DeserializeOwned>(
    version: u32,
    payload: &[u8],
) -> Result<(T, usize), bincode::error::DecodeError> {
    /// Puts the current version back however the decode ends.
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            DECODING.with(|v| v.set(FORMAT_VERSION));
        }
    }
    DECODING.with(|v| v.set(version));
    let _restore = Restore;
    // A damaged length field (under a recomputed checksum) would have the decoder allocate
    // whatever it says, up to exabytes, and abort the process: bincode's limit makes every
    // length it claims count against a budget (4 GiB, far above any checkpoint's size) and
    // refuses the rest as an error.
    let config = bincode::config::standard().with_limit::<{ 1 << 32 }>();
    bincode::serde::decode_from_slice(payload, config)
}

/// The kind a checkpoint declares (what it holds, e.g. "an Othello AlphaZero model with its
/// lineage"), read from its header alone ([`read_header`] reads enough);
/// None for bytes that do not start a typed checkpoint.
pub fn declared_kind(bytes: &[u8]) -> Option<&str> {
    let at = MAGIC.len();
    let version = read_u32(bytes.get(at..at + 4)?);
    if bytes.get(..at)? != MAGIC || !(FIRST_TYPED_VERSION..=FORMAT_VERSION).contains(&version) {
        return None;
    }
    let len = *bytes.get(at + 4)? as usize;
    std::str::from_utf8(bytes.get(at + 5..at + 5 + len)?).ok()
}

/// Bytes enough to hold any checkpoint's header.
const HEADER_LEN: usize = MAGIC.len() + 4 + 1 + 255;

/// The first bytes of a file (fewer if it is shorter; none if it cannot be
/// read): enough for [`declared_kind`] without reading a whole model.
pub fn read_header(path: &std::path::Path) -> Vec<u8> {
    use std::io::Read;
    let mut header = Vec::with_capacity(HEADER_LEN);
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(HEADER_LEN as u64).read_to_end(&mut header);
    }
    header
}

/// What a checkpoint holds, written in its header so that a file of another kind (a model
/// where a run state is wanted, an AlphaZero model given to a TD agent) is named for what it
/// is instead of being called damaged. The text is stored: changing it makes older files of
/// that kind unreadable.
pub trait CheckpointKind {
    const KIND: &'static str;
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    #[error("not a checkers-zero checkpoint: the file does not start with the magic bytes")]
    BadMagic,
    #[error("checkpoint format version {found}, but this build reads version {expected}")]
    Version { found: u32, expected: u32 },
    #[error("checkpoint is truncated: {found} bytes where {expected} were expected")]
    Truncated { found: u64, expected: u64 },
    #[error("checkpoint is damaged: {0}")]
    Damaged(String),
    #[error("checkpoint holds {file}, but the model is {model}")]
    Architecture { file: String, model: String },
    #[error("checkpoint does not match the model: {0}")]
    Mismatch(String),
    #[error("the file holds {found}, not {expected}")]
    Kind {
        found: String,
        expected: &'static str,
    },
    /// Any of the above, of the file at `path`.
    #[error("{}: {error}", path.display())]
    InFile {
        path: PathBuf,
        error: Box<CheckpointError>,
    },
}

impl CheckpointError {
    /// The error without the file it was found in, borrowed.
    pub fn cause(&self) -> &CheckpointError {
        match self {
            CheckpointError::InFile { error, .. } => error.cause(),
            e => e,
        }
    }

    /// The error without the file it was found in.
    pub fn into_cause(self) -> CheckpointError {
        match self {
            CheckpointError::InFile { error, .. } => error.into_cause(),
            e => e,
        }
    }
}

/// A tensor's shape and data on the host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorData {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl TensorData {
    pub fn from_tensor(t: &Tensor) -> TensorData {
        TensorData {
            shape: t.shape().to_vec(),
            data: t.to_vec(),
        }
    }

    /// Uploads to `device`, checking that the saved shape is `shape`; `what` names the tensor in
    /// the error.
    pub fn to_tensor(
        &self,
        shape: &[usize],
        device: &Device,
        what: &str,
    ) -> Result<Tensor, CheckpointError> {
        if self.shape != shape || self.data.len() != crate::tensor::numel(shape) {
            return Err(CheckpointError::Mismatch(format!(
                "{what} has shape {:?} ({} values) in the file, {shape:?} in the model",
                self.shape,
                self.data.len()
            )));
        }
        Ok(Tensor::from_vec(self.data.clone(), shape, device))
    }
}

/// The contents of a checkpoint file; `A` describes the architecture (e.g.
/// [`Architecture`](super::Architecture)).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Checkpoint<A> {
    pub arch: A,
    /// In the model's parameter visit order.
    pub params: Vec<TensorData>,
    /// In the model's buffer visit order.
    pub buffers: Vec<TensorData>,
    pub optimizer: Option<OptimizerState>,
}

/// The checksum of every file format here (FNV-1a 64).
pub use crate::files::checksum;

fn read_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().expect("4 bytes"))
}

fn read_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().expect("8 bytes"))
}

impl<A: Serialize + DeserializeOwned + PartialEq + Display> Checkpoint<A> {
    /// Downloads a model's state (and its optimizer's).
    pub fn capture<M: Module + ?Sized>(
        arch: A,
        model: &M,
        optimizer: Option<&Optimizer>,
    ) -> Checkpoint<A> {
        let (mut params, mut buffers) = (Vec::new(), Vec::new());
        model.params(&mut |p| params.push(TensorData::from_tensor(p.value())));
        model.buffers(&mut |t| buffers.push(TensorData::from_tensor(t)));
        Checkpoint {
            arch,
            params,
            buffers,
            optimizer: optimizer.map(Optimizer::state),
        }
    }

    pub fn to_bytes(&self) -> Vec<u8>
    where
        A: CheckpointKind,
    {
        let payload = bincode::serde::encode_to_vec(self, bincode::config::standard())
            .expect("a checkpoint holds only plain data, which always encodes");
        let kind = A::KIND.as_bytes();
        let kind_len = u8::try_from(kind.len()).expect("a kind name is short");
        let mut out = Vec::with_capacity(MAGIC.len() + 21 + kind.len() + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(kind_len);
        out.extend_from_slice(kind);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint<A>, CheckpointError>
    where
        A: CheckpointKind,
    {
        let truncated = |expected: usize| CheckpointError::Truncated {
            found: bytes.len() as u64,
            expected: expected as u64,
        };
        if bytes.len() < MAGIC.len() {
            return Err(if MAGIC.starts_with(bytes) {
                truncated(MAGIC.len() + 4)
            } else {
                CheckpointError::BadMagic
            });
        }
        if bytes[..MAGIC.len()] != MAGIC {
            return Err(CheckpointError::BadMagic);
        }
        let mut at = MAGIC.len();
        let version = read_u32(bytes.get(at..at + 4).ok_or(truncated(at + 4))?);
        at += 4;
        match version {
            UNTYPED_VERSION => {}
            FIRST_TYPED_VERSION..=FORMAT_VERSION => {
                let len = *bytes.get(at).ok_or(truncated(at + 1))? as usize;
                let kind = bytes
                    .get(at + 1..at + 1 + len)
                    .ok_or(truncated(at + 1 + len))?;
                at += 1 + len;
                if kind != A::KIND.as_bytes() {
                    return Err(CheckpointError::Kind {
                        found: String::from_utf8_lossy(kind).into_owned(),
                        expected: A::KIND,
                    });
                }
            }
            found => {
                return Err(CheckpointError::Version {
                    found,
                    expected: FORMAT_VERSION,
                });
            }
        }
        let header = bytes.get(at..at + 16).ok_or(truncated(at + 16))?;
        let (len, sum) = (read_u64(&header[..8]), read_u64(&header[8..]));
        let payload = &bytes[at + 16..];
        match (payload.len() as u64).cmp(&len) {
            std::cmp::Ordering::Less => {
                return Err(CheckpointError::Truncated {
                    found: bytes.len() as u64,
                    expected: ((at + 16) as u64).saturating_add(len),
                });
            }
            std::cmp::Ordering::Greater => {
                return Err(CheckpointError::Damaged(format!(
                    "{} bytes follow the payload",
                    payload.len() as u64 - len
                )));
            }
            std::cmp::Ordering::Equal => {}
        }
        if checksum(payload) != sum {
            return Err(CheckpointError::Damaged(
                "the checksum does not match the contents".into(),
            ));
        }
        let (ckpt, used) = decode_as_of(version, payload).map_err(|e| {
            let untyped = if version == UNTYPED_VERSION {
                format!(
                    "; a version {UNTYPED_VERSION} file does not record what it holds, so it \
                         may be another kind of checkpoint than {}",
                    A::KIND
                )
            } else {
                String::new()
            };
            CheckpointError::Damaged(format!("cannot decode the contents ({e}){untyped}"))
        })?;
        if used != payload.len() {
            return Err(CheckpointError::Damaged(format!(
                "{} undecoded bytes at the end",
                payload.len() - used
            )));
        }
        Ok(ckpt)
    }

    /// Writes the file atomically (a killed run leaves the old file or the new one).
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError>
    where
        A: CheckpointKind,
    {
        crate::files::write_atomic(path, &self.to_bytes())
            .map_err(|e| crate::files::file_error("write", path)(e).into())
    }

    pub fn load(path: &Path) -> Result<Checkpoint<A>, CheckpointError>
    where
        A: CheckpointKind,
    {
        let bytes = std::fs::read(path).map_err(crate::files::file_error("read", path))?;
        Checkpoint::from_bytes(&bytes).map_err(|e| CheckpointError::InFile {
            path: path.to_owned(),
            error: Box::new(e),
        })
    }

    /// Loads the parameters and buffers into `model`, whose architecture is `model_arch`. The
    /// model is changed only if everything matches.
    pub fn restore<M: Module + ?Sized>(
        &self,
        model: &mut M,
        model_arch: &A,
    ) -> Result<(), CheckpointError> {
        if self.arch != *model_arch {
            return Err(CheckpointError::Architecture {
                file: self.arch.to_string(),
                model: model_arch.to_string(),
            });
        }
        let mut params = Vec::new();
        model.params(&mut |p| params.push((p.shape().to_vec(), p.value().device())));
        let mut buffers = Vec::new();
        model.buffers(&mut |t| buffers.push((t.shape().to_vec(), t.device())));
        let params = upload_all(&self.params, &params, "parameter")?;
        let buffers = upload_all(&self.buffers, &buffers, "buffer")?;
        let mut params = params.into_iter();
        model.params_mut(&mut |p| p.set(params.next().expect("counted")));
        let mut buffers = buffers.into_iter();
        model.buffers_mut(&mut |t| *t = buffers.next().expect("counted"));
        Ok(())
    }

    /// The saved optimizer, rebuilt for `model` (after [`restore`](Self::restore)).
    pub fn optimizer<M: Module + ?Sized>(
        &self,
        model: &M,
    ) -> Result<Option<Optimizer>, CheckpointError> {
        self.optimizer
            .as_ref()
            .map(|s| Optimizer::from_state(s, model))
            .transpose()
    }
}

/// Uploads saved tensors, checking their count and shapes against `want` (shape, device).
pub(super) fn upload_all(
    saved: &[TensorData],
    want: &[(Vec<usize>, Device)],
    what: &str,
) -> Result<Vec<Tensor>, CheckpointError> {
    if saved.len() != want.len() {
        return Err(CheckpointError::Mismatch(format!(
            "{} {what}s in the file, {} in the model",
            saved.len(),
            want.len()
        )));
    }
    saved
        .iter()
        .zip(want)
        .enumerate()
        .map(|(i, (t, (shape, device)))| t.to_tensor(shape, device, &format!("{what} {i}")))
        .collect()
}
