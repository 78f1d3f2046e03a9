//! The library's layers, lowest first: a module may use modules of lower layers only (never
//! one of its own layer or above), so the code can be read, and replaced, from the bottom
//! up. The test below holds every file of src/ to it; docs/ARCHITECTURE.md draws the same.

/// Each layer's top-level modules of `src/`, lowest first. The command line (src/cli/) sits
/// above them all.
const LAYERS: &[&[&str]] = &[
    // Test support, which any module's tests may use.
    &["test_support", "test_skip"],
    &[
        "backend", "files", "input", "names", "progress", "seeds", "layers",
    ],
    &["tensor", "games", "plot", "keys"],
    &["nn", "endgame"],
    &["net", "mcts"],
    &["agents", "selfplay"],
    &["arena", "engine", "play"],
    &["train", "gui"],
    &["distributed"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules a file's code names as `crate::NAME` (comments left out).
fn uses(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, _) in line.match_indices("crate::") {
            let name: String = line[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let mut wrong = Vec::new();
    let mut seen = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if path.extension().is_none_or(|e| e != "rs")
            || ["main", "lib", "cli"].contains(&module.as_str())
        {
            continue;
        }
        let own = layer(&module).unwrap_or_else(|| panic!("src/{module} is in no layer"));
        seen += 1;
        for used in uses(&std::fs::read_to_string(&path).unwrap()) {
            match layer(&used) {
                Some(l) if l < own || used == module => {}
                _ => wrong.push(format!("{} uses crate::{used}", relative.display())),
            }
        }
    }
    assert!(seen > 100, "only {seen} files read");
    assert!(
        wrong.is_empty(),
        "imports that do not run downward: {wrong:#?}"
    );
}
