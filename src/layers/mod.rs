//! The library's layers, lowest first: a module may use modules of lower layers only (never
//! one of its own layer or above), so the code can be read, and replaced, from the bottom
//! up. The first test below holds every file of src/ to it (docs/ARCHITECTURE.md draws the
//! same); the second, that no module imports one that imports it back, inside a layer too.

mod imports;

use imports::{Start, imports};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Each layer's top-level modules of `src/`, lowest first. The command line (src/cli/) sits
/// above them all.
const LAYERS: &[&[&str]] = &[
    // Test support, which any module's tests may use.
    &["test_support", "test_skip"],
    &[
        "backend", "charts", "cpu_time", "dates", "errors", "files", "input", "names", "progress",
        "seeds", "layers",
    ],
    &["tensor", "games", "plot", "keys", "events", "health"],
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

/// The top-level modules a file's code names as `crate::NAME`.
fn uses(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for import in imports(text) {
        if let (Start::Root, Some(name)) = (import.start, import.names.first())
            && !found.contains(name)
        {
            found.push(name.clone());
        }
    }
    found
}

/// Every `.rs` file under src/: its path from src/ and its text.
fn sources() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = vec![src.clone()];
    let mut files = Vec::new();
    while let Some(path) = paths.pop() {
        if path.is_dir() {
            paths.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            files.push((path.strip_prefix(&src).unwrap().to_path_buf(), text));
        }
    }
    files.sort();
    files
}

#[test]
fn every_module_uses_only_lower_layers() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (relative, text) in sources() {
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if ["main", "lib", "cli"].contains(&module.as_str()) {
            continue;
        }
        let own = layer(&module).unwrap_or_else(|| panic!("src/{module} is in no layer"));
        seen += 1;
        for used in uses(&text) {
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

/// The module a file of src/ is, as its path of names (`backend/gpu/mod.rs` is the folder's
/// module, `["backend", "gpu"]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut names: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if names.last().is_some_and(|n| n == "mod") {
        names.pop();
    }
    names
}

/// No module imports one that imports it back, directly or through others.
///
/// A module is a file of src/ (a folder's mod.rs is the folder; lib.rs and main.rs, which
/// only declare modules, are left out). It imports the module each of its `crate::` and
/// `super::` paths reaches: the deepest file the path's names lead to (`crate::games::Checkers`
/// is games/mod.rs, `super::reduce::Params` the sibling reduce.rs). Not imports: paths to the
/// module itself or into its own folder (a folder's mod.rs declares its children, `mod x;`,
/// re-exports and calls them, while they build on what it holds, `super::X`: a parent and its
/// children are one unit), and paths in a file's tests (`#[cfg(test)] mod tests`, which may
/// try a module with those above it, as the integration tests do). Every other path counts,
/// to a sibling or anywhere else.
#[test]
fn no_module_imports_itself_round_a_circle() {
    let files: Vec<(Vec<String>, PathBuf, String)> = sources()
        .into_iter()
        .map(|(relative, text)| (module_of(&relative), relative, text))
        .filter(|(_, relative, _)| !["main.rs", "lib.rs"].contains(&&*relative.to_string_lossy()))
        .collect();
    let index: HashMap<&[String], usize> = files
        .iter()
        .enumerate()
        .map(|(i, (module, _, _))| (module.as_slice(), i))
        .collect();
    let edges: Vec<Vec<usize>> = files
        .iter()
        .map(|(module, _, text)| {
            let mut to = Vec::new();
            for import in imports(text).into_iter().filter(|i| !i.in_tests) {
                let mut path = match import.start {
                    Start::Root => Vec::new(),
                    Start::Up(up) if up <= module.len() => module[..module.len() - up].to_vec(),
                    Start::Up(_) => continue,
                };
                let mut reached = index.get(path.as_slice()).copied();
                for name in import.names {
                    path.push(name);
                    match index.get(path.as_slice()) {
                        Some(&i) => reached = Some(i),
                        None => break,
                    }
                }
                if let Some(i) = reached
                    && !files[i].0.starts_with(module)
                    && !to.contains(&i)
                {
                    to.push(i);
                }
            }
            to
        })
        .collect();
    assert!(files.len() > 100, "only {} files read", files.len());
    let circles: Vec<String> = strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|circle| {
            circle
                .iter()
                .flat_map(|&a| {
                    let files = &files;
                    edges[a]
                        .iter()
                        .filter(|b| circle.contains(b))
                        .map(move |&b| {
                            format!(
                                "src/{} -> src/{}",
                                files[a].1.display(),
                                files[b].1.display()
                            )
                        })
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    assert!(
        circles.is_empty(),
        "modules that import each other (each circle's imports): {circles:#?}"
    );
}

/// The strongly connected components of a graph given as each node's successors (Tarjan).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Walk<'a> {
        edges: &'a [Vec<usize>],
        order: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(w: &mut Walk, v: usize) {
        w.order[v] = Some(w.next);
        w.low[v] = w.next;
        w.next += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &u in &w.edges[v] {
            match w.order[u] {
                None => {
                    visit(w, u);
                    w.low[v] = w.low[v].min(w.low[u]);
                }
                Some(o) if w.on_stack[u] => w.low[v] = w.low[v].min(o),
                Some(_) => {}
            }
        }
        if Some(w.low[v]) == w.order[v] {
            let mut component = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack[u] = false;
                component.push(u);
                if u == v {
                    break;
                }
            }
            w.found.push(component);
        }
    }
    let n = edges.len();
    let mut w = Walk {
        edges,
        order: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if w.order[v].is_none() {
            visit(&mut w, v);
        }
    }
    w.found
}
