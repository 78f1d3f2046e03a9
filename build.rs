//! Embeds the browser interface's files (web/) in the binary: writes the list of them, each
//! with `include_bytes!`, for src/gui/assets.rs. A file added to web/ is served without
//! any change to the code.

use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=web");
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let mut names: Vec<String> = std::fs::read_dir(&web)
        .expect("the web/ folder of the repository")
        .map(|e| e.expect("a readable web/ entry").file_name())
        .map(|n| n.into_string().expect("web/ file names are UTF-8"))
        .filter(|n| !n.starts_with('.'))
        .collect();
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
