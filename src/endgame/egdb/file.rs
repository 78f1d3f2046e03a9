//! A slice's file: its values (two bits a position) and distances, in blocks compressed one by
//! one, so a probe decompresses one block of a memory-mapped file.
//!
//! Layout (integers little-endian):
//!
//! ```text
//! magic "CZ-EGDB\0" | format u32 | rules: length u16 + text | material: 4 bytes
//! entries u64 | block entries u32 | distance bytes u8 | longest distance u16
//! wins, losses, draws: u64 each
//! blocks u32, then per block: values' length u32, distances' length u32,
//!                             values' checksum u64, distances' checksum u64
//! checksum of everything above u64
//! every block's values (lz4), then every block's distances (lz4)
//! ```

use super::index::Material;
use super::{EgdbError, Value};
use crate::files::{checksum, file_error};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"CZ-EGDB\0";
pub const FORMAT: u32 = 1;
/// The rules the values are of; a folder built under other rules is refused.
pub const RULES: &str = "English checkers, values without the 40-move rule";
/// Positions a block holds.
pub const BLOCK: usize = 1 << 14;

/// What a slice file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub material: Material,
    pub entries: u64,
    /// Wins, losses and draws for the side to move, over the valid positions.
    pub counts: [u64; 3],
    /// The longest distance to conversion, in plies.
    pub longest: u16,
}

impl Summary {
    pub fn positions(&self) -> u64 {
        self.counts.iter().sum()
    }
}

/// Per block: where its two parts lie in the data and their checksums.
#[derive(Clone, Copy, Debug)]
struct BlockInfo {
    values: (usize, usize),
    distances: (usize, usize),
    values_sum: u64,
    distances_sum: u64,
}

/// Encodes a solved slice. `values` holds one `Value` code a position (0 where no position
/// is), `distances` its plies to conversion.
pub fn encode(material: Material, values: &[u8], distances: &[u16]) -> Vec<u8> {
    let mut counts = [0u64; 3];
    for &v in values {
        if let Some(value) = Value::from_code(v) {
            counts[value as usize] += 1;
        }
    }
    let longest = distances.iter().copied().max().unwrap_or(0);
    let wide = longest > u8::MAX as u16;
    let blocks = values.len().div_ceil(BLOCK);
    let mut data_values = Vec::new();
    let mut data_distances = Vec::new();
    let mut table = Vec::with_capacity(blocks * 24);
    for b in 0..blocks {
        let range = b * BLOCK..((b + 1) * BLOCK).min(values.len());
        let packed = pack(&values[range.clone()]);
        let dist: Vec<u8> = if wide {
            distances[range]
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .collect()
        } else {
            distances[range].iter().map(|&d| d as u8).collect()
        };
        let (v, d) = (lz4_flex::compress(&packed), lz4_flex::compress(&dist));
        table.extend((v.len() as u32).to_le_bytes());
        table.extend((d.len() as u32).to_le_bytes());
        table.extend(checksum(&v).to_le_bytes());
        table.extend(checksum(&d).to_le_bytes());
        data_values.extend(v);
        data_distances.extend(d);
    }
    let mut out = Vec::new();
    out.extend(MAGIC);
    out.extend(FORMAT.to_le_bytes());
    out.extend((RULES.len() as u16).to_le_bytes());
    out.extend(RULES.as_bytes());
    out.extend([
        material.men,
        material.kings,
        material.other_men,
        material.other_kings,
    ]);
    out.extend((values.len() as u64).to_le_bytes());
    out.extend((BLOCK as u32).to_le_bytes());
    out.push(if wide { 2 } else { 1 });
    out.extend(longest.to_le_bytes());
    for c in counts {
        out.extend(c.to_le_bytes());
    }
    out.extend((blocks as u32).to_le_bytes());
    out.extend(table);
    out.extend(checksum(&out).to_le_bytes());
    out.extend(data_values);
    out.extend(data_distances);
    out
}

/// Value codes four to a byte, the first in the lowest bits: how files and the builder's
/// finished slices hold them.
pub fn pack(values: &[u8]) -> Vec<u8> {
    let mut packed = vec![0u8; values.len().div_ceil(4)];
    for (i, &v) in values.iter().enumerate() {
        packed[i / 4] |= v << (2 * (i % 4));
    }
    packed
}

/// The `i`-th value code of [`pack`]ed codes.
pub fn unpack(packed: &[u8], i: usize) -> u8 {
    (packed[i / 4] >> (2 * (i % 4))) & 3
}

/// A decompressed block as it is stored.
pub struct RawBlock {
    values: Vec<u8>,
    distances: Vec<u8>,
    wide: bool,
}

impl RawBlock {
    /// The value code of the block's `i`-th position.
    pub fn value(&self, i: usize) -> u8 {
        unpack(&self.values, i)
    }

    pub fn distance(&self, i: usize) -> u16 {
        if self.wide {
            u16::from_le_bytes([self.distances[2 * i], self.distances[2 * i + 1]])
        } else {
            self.distances[i].into()
        }
    }
}

/// An opened slice file: its bytes mapped, header checked.
pub struct SliceFile {
    map: memmap2::Mmap,
    pub summary: Summary,
    distance_bytes: usize,
    data: usize,
    blocks: Vec<BlockInfo>,
}

/// Reads header fields in order, failing with "truncated" when the bytes end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(out)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

impl SliceFile {
    /// Maps a slice file and checks its header, its length and every block's checksum, so a
    /// damaged file is refused here rather than misread later.
    pub fn open(path: &Path) -> Result<SliceFile, EgdbError> {
        let damaged = |why: &str| EgdbError::Damaged(path.display().to_string(), why.to_string());
        let file = std::fs::File::open(path).map_err(file_error("open", path))?;
        // SAFETY: the databases are written once, by rename, and never changed in place; a
        // file replaced while mapped keeps its old contents for this mapping.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(file_error("map", path))?;
        let mut r = Reader { bytes: &map, at: 0 };
        let truncated = || damaged("it ends inside its header");
        if r.take(8).ok_or_else(truncated)? != MAGIC {
            return Err(EgdbError::NotDatabase(path.display().to_string()));
        }
        let format = r.u32().ok_or_else(truncated)?;
        if format != FORMAT {
            return Err(EgdbError::Format(path.display().to_string(), format));
        }
        let rules_len = r.u16().ok_or_else(truncated)? as usize;
        let rules = r.take(rules_len).ok_or_else(truncated)?;
        if rules != RULES.as_bytes() {
            return Err(EgdbError::Rules(
                path.display().to_string(),
                String::from_utf8_lossy(rules).into_owned(),
            ));
        }
        let m = r.take(4).ok_or_else(truncated)?;
        let material = Material {
            men: m[0],
            kings: m[1],
            other_men: m[2],
            other_kings: m[3],
        };
        let entries = r.u64().ok_or_else(truncated)?;
        let block = r.u32().ok_or_else(truncated)? as usize;
        let distance_bytes = r.u8().ok_or_else(truncated)? as usize;
        let longest = r.u16().ok_or_else(truncated)?;
        let mut counts = [0u64; 3];
        for c in &mut counts {
            *c = r.u64().ok_or_else(truncated)?;
        }
        let blocks = r.u32().ok_or_else(truncated)? as usize;
        if block != BLOCK
            || !(1..=2).contains(&distance_bytes)
            || material.pieces() > super::index::MAX_PIECES
            || entries != material.entries()
            || blocks != (entries as usize).div_ceil(BLOCK)
        {
            return Err(damaged("its header does not describe a slice"));
        }
        let mut lengths = Vec::with_capacity(blocks);
        for _ in 0..blocks {
            let v = r.u32().ok_or_else(truncated)? as usize;
            let d = r.u32().ok_or_else(truncated)? as usize;
            let (vs, ds) = (
                r.u64().ok_or_else(truncated)?,
                r.u64().ok_or_else(truncated)?,
            );
            lengths.push((v, d, vs, ds));
        }
        let header = r.at;
        let sum = r.u64().ok_or_else(truncated)?;
        if checksum(&map[..header]) != sum {
            return Err(damaged("its header's checksum does not match"));
        }
        let data = r.at;
        let values_total: usize = lengths.iter().map(|l| l.0).sum();
        let distances_total: usize = lengths.iter().map(|l| l.1).sum();
        if map.len() != data + values_total + distances_total {
            return Err(damaged("its length is not the one its header gives"));
        }
        let (mut v_at, mut d_at) = (0, values_total);
        let mut infos = Vec::with_capacity(blocks);
        for (v, d, vs, ds) in lengths {
            infos.push(BlockInfo {
                values: (v_at, v),
                distances: (d_at, d),
                values_sum: vs,
                distances_sum: ds,
            });
            v_at += v;
            d_at += d;
        }
        let file = SliceFile {
            summary: Summary {
                material,
                entries,
                counts,
                longest,
            },
            map,
            distance_bytes,
            data,
            blocks: infos,
        };
        for info in &file.blocks {
            if checksum(file.bytes(info.values)) != info.values_sum
                || checksum(file.bytes(info.distances)) != info.distances_sum
            {
                return Err(damaged("a block's checksum does not match"));
            }
        }
        Ok(file)
    }

    fn bytes(&self, (at, len): (usize, usize)) -> &[u8] {
        &self.map[self.data + at..self.data + at + len]
    }

    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Block `b` as stored, decompressed: its values, four to a byte, and its distances (a
    /// probe reads one entry of each; checked when the file was opened).
    pub fn block(&self, b: usize) -> Result<RawBlock, EgdbError> {
        let n = self.block_len(b);
        Ok(RawBlock {
            values: self.decompress(self.blocks[b].values, n.div_ceil(4))?,
            distances: self.decompress(self.blocks[b].distances, n * self.distance_bytes)?,
            wide: self.distance_bytes == 2,
        })
    }

    /// Block `b`'s values, one code a position.
    pub fn values(&self, b: usize) -> Result<Vec<u8>, EgdbError> {
        let raw = self.block(b)?;
        Ok((0..self.block_len(b)).map(|i| raw.value(i)).collect())
    }

    /// Block `b`'s distances.
    pub fn distances(&self, b: usize) -> Result<Vec<u16>, EgdbError> {
        let raw = self.block(b)?;
        Ok((0..self.block_len(b)).map(|i| raw.distance(i)).collect())
    }

    fn block_len(&self, b: usize) -> usize {
        BLOCK.min(self.summary.entries as usize - b * BLOCK)
    }

    fn decompress(&self, part: (usize, usize), len: usize) -> Result<Vec<u8>, EgdbError> {
        lz4_flex::decompress(self.bytes(part), len)
            .ok()
            .filter(|out| out.len() == len)
            .ok_or_else(|| {
                EgdbError::Damaged(
                    format!("the slice {}", self.summary.material.name()),
                    "a block does not decompress".into(),
                )
            })
    }
}
