//! The weights file of a pattern evaluation (Othello's and checkers'): one table of `i16`
//! weights per stage of the game, stored as its nonzero entries. Each game's file has its
//! own four-byte magic, so one game's weights are never read as the other's.

/// A weights file that cannot be read, and why.
#[derive(Debug, thiserror::Error)]
#[error("{game} pattern weights: {why}")]
pub struct WeightsError {
    game: &'static str,
    why: String,
}

/// The format's version (one for every game's file).
const VERSION: u32 = 1;

/// Where a game's file differs: its magic, and the shape its layout gives the tables.
pub struct Format {
    pub game: &'static str,
    pub magic: &'static [u8; 4],
    pub stages: usize,
    pub per_stage: usize,
}

impl Format {
    /// The file: magic, version, stages, entries a stage, the count of nonzero weights, then
    /// each as its position over all stages (u32) and its value (i16), little-endian.
    pub fn to_bytes(&self, tables: &[Vec<i16>]) -> Vec<u8> {
        let per = self.per_stage;
        let nonzero: Vec<(u32, i16)> = (tables.iter().enumerate())
            .flat_map(|(s, t)| {
                (t.iter().enumerate())
                    .filter(|(_, w)| **w != 0)
                    .map(move |(i, w)| ((s * per + i) as u32, *w))
            })
            .collect();
        let mut out = Vec::with_capacity(20 + 6 * nonzero.len());
        out.extend_from_slice(self.magic);
        for n in [
            VERSION,
            self.stages as u32,
            per as u32,
            nonzero.len() as u32,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for (i, w) in nonzero {
            out.extend_from_slice(&i.to_le_bytes());
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// The tables of a file [`to_bytes`](Self::to_bytes) wrote for this format.
    pub fn from_bytes(&self, bytes: &[u8]) -> Result<Vec<Vec<i16>>, WeightsError> {
        let bad = |why: String| WeightsError {
            game: self.game,
            why,
        };
        let word = |at: usize| -> Result<u32, WeightsError> {
            let b = bytes
                .get(at..at + 4)
                .ok_or_else(|| bad("the file is cut short".into()))?;
            Ok(u32::from_le_bytes(b.try_into().expect("four bytes")))
        };
        if bytes.get(..4) != Some(self.magic) {
            let magic = String::from_utf8_lossy(self.magic);
            return Err(bad(format!(
                "not a file of {} pattern weights (no {magic} header)",
                self.game
            )));
        }
        let per = self.per_stage;
        if (word(4)?, word(8)?, word(12)?) != (VERSION, self.stages as u32, per as u32) {
            return Err(bad(
                "written for another layout of patterns or stages".into()
            ));
        }
        let count = word(16)? as usize;
        let body = bytes.get(20..).unwrap_or_default();
        if body.len() != 6 * count {
            return Err(bad("its length does not match its count of weights".into()));
        }
        let mut tables = vec![vec![0; per]; self.stages];
        for entry in body.chunks_exact(6) {
            let at = u32::from_le_bytes(entry[..4].try_into().expect("four bytes")) as usize;
            let value = i16::from_le_bytes(entry[4..].try_into().expect("two bytes"));
            let table = tables
                .get_mut(at / per)
                .ok_or_else(|| bad("a weight past the end".into()))?;
            table[at % per] = value;
        }
        Ok(tables)
    }
}

/// Weights fitted as floats, in the search's units, rounded into a file's `i16`s.
pub fn rounded(tables: &[Vec<f32>], unit: f32) -> Vec<Vec<i16>> {
    (tables.iter())
        .map(|t| {
            (t.iter())
                .map(|&x| (x * unit).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16)
                .collect()
        })
        .collect()
}
