//! The model files and run folders the interface may open: listed from the folders given
//! on the command line, and looked up by the names it listed, so no request can name a
//! path outside them.

use super::error::ApiError;
use crate::games::GameName;
use std::path::{Path, PathBuf};

/// The folders the server was given.
#[derive(Clone, Debug)]
pub struct Library {
    model_dirs: Vec<PathBuf>,
    run_dirs: Vec<PathBuf>,
}

/// A run folder offered on the dashboard.
#[derive(Clone, Debug)]
pub struct RunEntry {
    /// The folder's own name (unique: a later folder of the same name is not listed).
    pub name: String,
    pub path: PathBuf,
}

/// Model files: the extensions `train` and the learners write.
const MODEL_EXTENSIONS: [&str; 2] = ["bin", "ckpt"];

impl Library {
    /// `models/` and `runs/` of the current folder where none are given.
    pub fn new(model_dirs: Vec<PathBuf>, run_dirs: Vec<PathBuf>) -> Self {
        let or_default = |dirs: Vec<PathBuf>, name: &str| {
            if dirs.is_empty() {
                vec![PathBuf::from(name)]
            } else {
                dirs
            }
        };
        Library {
            model_dirs: or_default(model_dirs, "models"),
            run_dirs: or_default(run_dirs, "runs"),
        }
    }

    /// Model names (their paths as given, e.g. `models/default.bin`): the model files in
    /// each models folder, then each run's best network.
    pub fn models(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for dir in &self.model_dirs {
            for path in sorted_entries(dir) {
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if path.is_file() && MODEL_EXTENSIONS.contains(&ext) {
                    names.push(path.display().to_string());
                }
            }
        }
        for run in self.runs() {
            let best = run.path.join("best.ckpt");
            if best.is_file() {
                names.push(best.display().to_string());
            }
        }
        names
    }

    /// The game a listed model plays, from its file's header.
    pub fn model_game(name: &str) -> GameName {
        crate::net::model_game(&crate::nn::read_header(Path::new(name)))
    }

    /// The file of a listed model.
    pub fn model_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        if self.models().iter().any(|m| m == name) {
            Ok(PathBuf::from(name))
        } else {
            Err(ApiError::not_found(format!(
                "no model {name:?}: expected one of those GET /api/info lists"
            )))
        }
    }

    /// Run folders: the folders in each runs folder that hold a metrics.jsonl or a
    /// config.json.
    pub fn runs(&self) -> Vec<RunEntry> {
        let mut runs: Vec<RunEntry> = Vec::new();
        for dir in &self.run_dirs {
            for path in sorted_entries(dir) {
                let is_run =
                    path.join("metrics.jsonl").is_file() || path.join("config.json").is_file();
                let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                if is_run && !runs.iter().any(|r| r.name == name) {
                    runs.push(RunEntry {
                        name: name.to_string(),
                        path: path.clone(),
                    });
                }
            }
        }
        runs
    }

    /// The folder of a listed run.
    pub fn run_path(&self, name: &str) -> Result<PathBuf, ApiError> {
        self.runs()
            .into_iter()
            .find(|r| r.name == name)
            .map(|r| r.path)
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "no run {name:?}: expected one of those GET /api/runs lists"
                ))
            })
    }
}

/// A folder's entries by name; none for a folder that cannot be read.
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    paths
}
