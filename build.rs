//! Embeds the browser interface's files (web/, with its subfolders) in the binary: writes
//! the list of them, each by its path under web/ (`vendor/uplot/uPlot.esm.js`) with
//! `include_bytes!`, for src/gui/assets.rs. A file added to web/ is served without any
//! change to the code.

use std::fmt::Write;
use std::path::Path;

/// The files under `dir`, as paths under `web` joined by `/`, leaving out hidden entries.
fn files(web: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("a readable web/ folder") {
        let path = entry.expect("a readable web/ entry").path();
        let name = path.file_name().and_then(|n| n.to_str());
        if name.expect("web/ file names are UTF-8").starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files(web, &path, out);
        } else {
            let relative = path.strip_prefix(web).expect("under web/");
            let parts: Vec<&str> = relative.iter().map(|p| p.to_str().unwrap()).collect();
            out.push(parts.join("/"));
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=web");
    // Read when the script runs, not when it was compiled: a build script compiled for one
    // checkout (a worktree sharing the target folder) must embed this checkout's files.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let web = Path::new(&manifest).join("web");
    let mut names = Vec::new();
    files(&web, &web, &mut names);
    names.sort();
    let mut out = String::from("&[\n");
    for name in names {
        let path = web.join(&name);
        writeln!(out, "    ({name:?}, include_bytes!({:?})),", path.display()).unwrap();
    }
    out.push(']');
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("web_assets.rs");
    std::fs::write(dest, out).expect("writing the asset list");
}
