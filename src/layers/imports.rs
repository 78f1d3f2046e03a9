//! The paths a source file names: every path that starts at `crate::` or `super::`, in `use`
//! declarations and in code, with `{...}` groups expanded. Comments and the insides of string
//! and character literals are left out first, so that a doc line or a message naming a path
//! does not count, and braces are counted only in code.

/// Where a path starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// `crate::` (or a macro's `$crate::`).
    Root,
    /// `super::` this many times from the file's own module: the `super::`s that only leave
    /// an inline module of the file (`mod tests { use super::*; }`) are taken off, and a
    /// path that does not leave the file is not listed.
    Up(usize),
}

/// One path a file names.
#[derive(Debug, PartialEq, Eq)]
pub struct Import {
    pub start: Start,
    /// The names after the start (`self` left out): modules first, then perhaps an item.
    pub names: Vec<String>,
    /// Whether it is in a file's tests (an inline module under `#[cfg(test)]`).
    pub in_tests: bool,
}

/// Every path `source` names, in order.
pub fn imports(source: &str) -> Vec<Import> {
    let code = code_only(source);
    let s = code.as_bytes();
    let mut found = Vec::new();
    // Braces open, and the depth inside each inline module the scan is in, with whether it
    // holds tests.
    let mut depth = 0;
    let mut inline: Vec<(usize, bool)> = Vec::new();
    let mut module_named = None;
    let mut i = 0;
    while i < s.len() {
        let word_start = i == 0 || !is_ident(s[i - 1]);
        if word_start && (s[i..].starts_with(b"crate::") || s[i..].starts_with(b"super::")) {
            let mut supers: usize = 0;
            let root = s[i..].starts_with(b"crate::");
            if root {
                i += 7;
            }
            while !root && s[i..].starts_with(b"super::") {
                supers += 1;
                i += 7;
            }
            let mut paths = Vec::new();
            tree(s, &mut i, Vec::new(), &mut paths);
            let start = match supers.checked_sub(inline.len()) {
                _ if root => Start::Root,
                Some(up) if up > 0 => Start::Up(up),
                _ => continue,
            };
            let in_tests = inline.iter().any(|&(_, tests)| tests);
            found.extend(paths.into_iter().map(|names| Import {
                start,
                names,
                in_tests,
            }));
            continue;
        }
        match s[i] {
            b'{' => {
                depth += 1;
                if let Some(tests) = module_named.take() {
                    inline.push((depth, tests));
                }
            }
            b'}' => {
                if inline.last().is_some_and(|&(d, _)| d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            b';' => module_named = None,
            b'm' if word_start && s[i..].starts_with(b"mod ") => {
                let before = String::from_utf8_lossy(&s[..i]);
                module_named = Some(before.trim_end().ends_with("#[cfg(test)]"));
            }
            _ => {}
        }
        i += 1;
    }
    found
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn skip_space(s: &[u8], i: &mut usize) {
    while s.get(*i).is_some_and(u8::is_ascii_whitespace) {
        *i += 1;
    }
}

/// Reads the use tree at `s[*i..]` (`a::b`, `a::{b, c::{d, e}}`, `a::*`, `a::f(...)`), adding
/// the names of each path in it, after `path`, to `out`.
fn tree(s: &[u8], i: &mut usize, mut path: Vec<String>, out: &mut Vec<Vec<String>>) {
    loop {
        skip_space(s, i);
        if s.get(*i) == Some(&b'{') {
            *i += 1;
            group(s, i, &path, out);
            return;
        }
        let start = *i;
        while s.get(*i).copied().is_some_and(is_ident) {
            *i += 1;
        }
        let name = String::from_utf8_lossy(&s[start..*i]);
        if name.is_empty() {
            break;
        }
        if name != "self" {
            path.push(name.into_owned());
        }
        if !s[*i..].starts_with(b"::") {
            break;
        }
        *i += 2;
    }
    out.push(path);
}

/// Reads the trees of a `{...}` group up to its closing brace, each after `path`.
fn group(s: &[u8], i: &mut usize, path: &[String], out: &mut Vec<Vec<String>>) {
    loop {
        skip_space(s, i);
        match s.get(*i) {
            None => return,
            Some(b'}') => {
                *i += 1;
                return;
            }
            Some(b',') => *i += 1,
            Some(_) => {
                tree(s, i, path.to_vec(), out);
                // What follows a tree in a group (`as name`) names no module.
                while !matches!(s.get(*i), None | Some(b',' | b'}')) {
                    *i += 1;
                }
            }
        }
    }
}

/// `source` without its comments, and with its string and character literals emptied.
fn code_only(source: &str) -> String {
    let c: Vec<char> = source.chars().collect();
    let ident = |k: usize| c[k].is_alphanumeric() || c[k] == '_';
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        if rest.starts_with(&['/', '/']) {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut open = 0;
            while i < c.len() {
                if c[i..].starts_with(&['/', '*']) {
                    open += 1;
                    i += 2;
                } else if c[i..].starts_with(&['*', '/']) {
                    open -= 1;
                    i += 2;
                    if open == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if let Some(hashes) = raw_string_at(&c, i)
            .filter(|_| i == 0 || !ident(i - 1) || (c[i - 1] == 'b' && (i < 2 || !ident(i - 2))))
        {
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            while i < c.len() && !c[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if c[i] == '\'' && (c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime, `'a`, has no closing quote).
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The number of `#`s of the raw string `r#"...` starting at `c[i]`, if one does.
fn raw_string_at(c: &[char], i: usize) -> Option<usize> {
    if c[i] != 'r' {
        return None;
    }
    let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
    (c.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

#[test]
fn reads_paths_in_code_and_groups_but_not_in_comments_or_text() {
    let source = r##"
        //! crate::doc::line
        use crate::games::{Checkers, othello::{self, Move as M}};
        use super::super::{Tensor, ops};
        fn f() -> u8 { let _ = "crate::text {"; let _ = r#"super::raw"#; b'{' }
        impl<'a> X<'a> { fn g() { crate::agents::kinds::ALL.len(); } }
        #[cfg(test)]
        mod tests {
            use super::*;
            use super::super::sibling;
        }
    "##;
    let read: Vec<(Start, String, bool)> = imports(source)
        .into_iter()
        .map(|i| (i.start, i.names.join("::"), i.in_tests))
        .collect();
    assert_eq!(
        read,
        [
            (Start::Root, "games::Checkers".into(), false),
            (Start::Root, "games::othello".into(), false),
            (Start::Root, "games::othello::Move".into(), false),
            (Start::Up(2), "Tensor".into(), false),
            (Start::Up(2), "ops".into(), false),
            (Start::Root, "agents::kinds::ALL".into(), false),
            (Start::Up(1), "sibling".into(), true),
        ]
    );
}
