//! The code's shape, checked: no module imports another in a circle (in any
//! of the four crates), and the machine's facade `Nes` exposes no public
//! fields. Circles are found on the module graph read from the sources: an
//! edge for every `use` and every `crate::`/`super::`/`self::`/child-module
//! path in code, following `pub use` re-exports to the module that defines
//! the item (a re-export itself is not an edge, nor is `mod x;`); test
//! modules are left out.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_of(root: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Module = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without comments, string and char literals, and
/// `#[cfg(test)] mod x { ... }` blocks.
fn clean(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('#') | Some('"')) && !prev_ident(&b, i) {
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (b.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('x' or '\n'); lifetimes ('a) are left alone.
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    drop_test_modules(&out)
}

fn prev_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

fn drop_test_modules(s: &str) -> String {
    let mut s = s.to_string();
    while let Some(at) = s.find("#[cfg(test)]") {
        let rest = &s[at + "#[cfg(test)]".len()..];
        let trimmed = rest.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ");
        let Some(open) = rest.find('{').filter(|_| is_mod) else {
            // A test-only item other than an inline module: drop the attribute.
            s.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        };
        let start = at + "#[cfg(test)]".len() + open;
        let mut depth = 0;
        let mut end = s.len();
        for (k, ch) in s[start..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        s.replace_range(at..end, "");
    }
    s
}

/// Expands a `use` tree (`a::{b, c::{d as e}}`) into paths.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    if let (Some(open), true) = (tree.find('{'), tree.ends_with('}')) {
        let mut pre = prefix.to_vec();
        pre.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from),
        );
        let inner = &tree[open + 1..tree.len() - 1];
        let (mut depth, mut item) = (0, String::new());
        for ch in inner.chars().chain(std::iter::once(',')) {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if ch == ',' && depth == 0 {
                if !item.trim().is_empty() {
                    expand(&item, &pre, out);
                }
                item.clear();
            } else {
                item.push(ch);
            }
        }
        return;
    }
    let tree = tree.split(" as ").next().unwrap_or("");
    let mut path = prefix.to_vec();
    path.extend(
        tree.split("::")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(String::from),
    );
    out.push(path);
}

/// `use` statements as (is `pub`, tree), and the text with them removed.
fn use_statements(src: &str) -> (Vec<(bool, String)>, String) {
    let mut uses = Vec::new();
    let mut rest = String::new();
    let mut i = 0;
    let bytes = src.as_bytes();
    while let Some(k) = src[i..].find("use ") {
        let at = i + k;
        let word_start =
            at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if !word_start {
            rest.push_str(&src[i..at + 4]);
            i = at + 4;
            continue;
        }
        let Some(end) = src[at..].find(';') else {
            break;
        };
        let before = src[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        uses.push((public, src[at + 4..at + end].to_string()));
        rest.push_str(&src[i..at]);
        i = at + end + 1;
    }
    rest.push_str(&src[i..]);
    (uses, rest)
}

/// Paths in code: `a::b::c` runs of identifiers.
fn code_paths(src: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        if ident(chars[i]) && (i == 0 || !(ident(chars[i - 1]) || chars[i - 1] == ':')) {
            let mut path = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && ident(chars[j]) {
                    j += 1;
                }
                path.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':')
                    && chars.get(j + 1) == Some(&':')
                    && chars.get(j + 2).is_some_and(|&c| ident(c))
                {
                    j += 2;
                } else {
                    break;
                }
            }
            if path.len() > 1 {
                out.push(path);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

struct Crate {
    files: BTreeMap<Module, String>,
    children: HashMap<Module, BTreeSet<String>>,
    aliases: HashMap<(Module, String), Vec<String>>,
}

impl Crate {
    fn start(&self, module: &Module, path: &[String]) -> Option<(Module, Vec<String>)> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some((Vec::new(), path[1..].to_vec())),
            "self" | "super" => {
                let mut cur = module.clone();
                let mut k = 0;
                while k < path.len() && matches!(path[k].as_str(), "self" | "super") {
                    if path[k] == "super" {
                        cur.pop();
                    }
                    k += 1;
                }
                Some((cur, path[k..].to_vec()))
            }
            name if self.children.get(module).is_some_and(|c| c.contains(name)) => {
                Some((module.clone(), path.to_vec()))
            }
            _ => None,
        }
    }

    fn resolve(&self, module: &Module, path: &[String], depth: u32) -> Option<Module> {
        let (mut cur, rest) = self.start(module, path)?;
        for (k, seg) in rest.iter().enumerate() {
            let mut next = cur.clone();
            next.push(seg.clone());
            if self.files.contains_key(&next) {
                cur = next;
                continue;
            }
            if let Some(alias) = self.aliases.get(&(cur.clone(), seg.clone())) {
                if depth < 20 {
                    return self.resolve(&cur, alias, depth + 1).or(Some(cur));
                }
            }
            let _ = k;
            break;
        }
        Some(cur)
    }
}

/// The module circles of the crate whose sources are in `root`.
fn circles(root: &Path) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    rust_files(root, &mut paths);
    let files: BTreeMap<Module, String> = paths
        .iter()
        .map(|p| {
            (
                module_of(root, p),
                clean(&std::fs::read_to_string(p).unwrap()),
            )
        })
        .filter(|(m, _)| m.first().map(String::as_str) != Some("bin"))
        .collect();
    let mut children = HashMap::new();
    let mut aliases = HashMap::new();
    let mut uses = HashMap::new();
    let mut code = HashMap::new();
    for (module, src) in &files {
        let mut kids = BTreeSet::new();
        for (k, _) in src.match_indices("mod ") {
            let tail = &src[k + 4..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if tail[name.len()..].trim_start().starts_with(';') && !name.is_empty() {
                kids.insert(name);
            }
        }
        children.insert(module.clone(), kids);
        let (statements, rest) = use_statements(src);
        let mut private = Vec::new();
        for (public, tree) in statements {
            let mut expanded = Vec::new();
            expand(&tree, &[], &mut expanded);
            for path in expanded {
                if public {
                    if let Some(last) = path.last() {
                        aliases.insert((module.clone(), last.clone()), path.clone());
                    }
                } else {
                    private.push(path);
                }
            }
        }
        uses.insert(module.clone(), private);
        code.insert(module.clone(), code_paths(&rest));
    }
    let krate = Crate {
        files,
        children,
        aliases,
    };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for module in krate.files.keys() {
        let targets = edges.entry(module.clone()).or_default();
        for path in uses[module].iter().chain(&code[module]) {
            if let Some(t) = krate.resolve(module, path, 0) {
                if &t != module && krate.files.contains_key(&t) {
                    targets.insert(t);
                }
            }
        }
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            c.into_iter()
                .map(|m| {
                    if m.is_empty() {
                        "<root>".into()
                    } else {
                        m.join("::")
                    }
                })
                .collect()
        })
        .collect()
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: HashMap<&'a Module, usize>,
        low: HashMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in &s.edges[v] {
            let w = s.edges.get_key_value(w).map(|(k, _)| k).unwrap();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let mut s = State {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_module_imports_in_a_circle() {
    let mut found = Vec::new();
    for dir in ["src", "emu/src", "profiler/src", "gfc/src"] {
        for circle in circles(&repo().join(dir)) {
            found.push(format!("{dir}: {}", circle.join(", ")));
        }
    }
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

/// The checker itself finds a circle, through a re-export and a child path.
#[test]
fn the_circle_check_finds_a_circle() {
    let dir = std::env::temp_dir().join(format!("nesprof-arch-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\npub use b::Thing;\n").unwrap();
    std::fs::write(
        dir.join("a/mod.rs"),
        "use crate::Thing; // via the re-export\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("b.rs"),
        "pub struct Thing;\nfn f() { crate::a::g(); }\n",
    )
    .unwrap();
    let found = circles(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:?}");
    let mut circle = found[0].clone();
    circle.sort();
    assert_eq!(circle, ["a", "b"]);
}

#[test]
fn nes_exposes_no_public_fields() {
    let text = std::fs::read_to_string(repo().join("emu/src/nes.rs")).unwrap();
    let start = text.find("pub struct Nes {").expect("struct Nes");
    let body = &text[start..start + text[start..].find("\n}").unwrap()];
    let public: Vec<&str> = body
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| l.starts_with("pub ") && !l.starts_with("pub(crate)"))
        .collect();
    assert!(public.is_empty(), "public fields of Nes: {public:?}");
}
