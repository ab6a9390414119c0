//! The house rules of `docs/ARCHITECTURE.md`, checked on the source
//! itself: each room names only the rooms on the floors below it; no file
//! (of the library, md2-bevy or the web crate) imports (through `use`, a
//! `crate::`/`super::`/`self::` path, or a re-export) a file that imports
//! it back, however long the way round; the crowd never imports the
//! renderer; `mod.rs` files are tables of contents; no room reaches back
//! through the crate root; only `src/gpu/` names wgpu; no `#[path]`
//! includes in tests, examples or benches; the few hidden items each say
//! why they are hidden. Each rule is also shown a planted breach, which it
//! must find.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's root, where the library's `src/` is.
fn root() -> PathBuf {
    md2_wgpu_tests::workspace_dir()
}

/// `file`'s path from the workspace's root, for messages.
fn relative(file: &Path) -> String {
    file.strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string()
}

/// A file of the crate and the modules it declares.
struct Module {
    file: PathBuf,
    /// The module's path from the crate root (`[]` for lib.rs).
    path: Vec<String>,
    /// Child modules by name.
    children: BTreeMap<String, usize>,
    /// Re-exported names (`pub use ...::Name` or `as Name`), with the path
    /// they name.
    reexports: BTreeMap<String, Vec<String>>,
    /// Every path the file names (a glob's ends in `*`).
    uses: Vec<Use>,
    /// Whether the whole file is a test module (`#[cfg(test)] mod x;`).
    test: bool,
}

/// A path a file names, and whether only its tests name it (inside a
/// `#[cfg(test)]` module).
struct Use {
    path: Vec<String>,
    in_test: bool,
}

/// The source with comments, string and character literals blanked out
/// (so braces and paths inside them are not read as code), lengths kept.
fn code_only(text: &str) -> String {
    let bytes: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < bytes.len() && bytes[i] != '\n' {
                out.push(' ');
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            while i < bytes.len() && !(bytes[i] == '*' && bytes.get(i + 1) == Some(&'/')) {
                out.push(if bytes[i] == '\n' { '\n' } else { ' ' });
                i += 1;
            }
            out.push_str("  ");
            i += 2;
            continue;
        }
        if c == 'r' && (next == Some('#') || next == Some('"')) {
            // A raw string: r#"..."#, any number of hashes.
            let mut j = i + 1;
            while bytes.get(j) == Some(&'#') {
                j += 1;
            }
            if bytes.get(j) == Some(&'"') {
                let hashes = j - i - 1;
                let mut k = j + 1;
                loop {
                    if k >= bytes.len() {
                        break;
                    }
                    if bytes[k] == '"' && (0..hashes).all(|h| bytes.get(k + 1 + h) == Some(&'#')) {
                        k += 1 + hashes;
                        break;
                    }
                    k += 1;
                }
                for &ch in &bytes[i..k.min(bytes.len())] {
                    out.push(if ch == '\n' { '\n' } else { ' ' });
                }
                i = k;
                continue;
            }
        }
        if c == '"' {
            out.push(' ');
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                if bytes[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(if bytes.get(i) == Some(&'\n') {
                    '\n'
                } else {
                    ' '
                });
                i += 1;
            }
            out.push(' ');
            i += 1;
            continue;
        }
        if c == '\'' && bytes.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
            continue;
        }
        if c == '\'' && next == Some('\\') {
            // '\n', '\'', '\u{..}'
            let mut j = i + 2;
            while j < bytes.len() && bytes[j] != '\'' {
                j += 1;
            }
            for _ in i..=j.min(bytes.len() - 1) {
                out.push(' ');
            }
            i = j + 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The paths of one `use` tree (`a::{b, c::{self, d}}`), each a list of
/// segments; a glob ends in `*`; `x as y` is kept as `x` with the alias
/// reported.
fn expand_use(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    fn split_top(s: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&s[start..]);
        parts
            .into_iter()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    }
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, Option<String>)>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head = tree[..open].trim().trim_end_matches("::");
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let mut base = prefix.to_vec();
            base.extend(head.split("::").filter(|s| !s.is_empty()).map(String::from));
            for part in split_top(inner) {
                walk(&base, part, out);
            }
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
            None => (tree, None),
        };
        let mut full = prefix.to_vec();
        for segment in path.split("::").map(str::trim).filter(|s| !s.is_empty()) {
            if segment == "self" && !full.is_empty() {
                continue;
            }
            full.push(segment.to_string());
        }
        out.push((full, alias));
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// The module of `file` declared at `path`, and every module under it.
fn load(modules: &mut Vec<Module>, file: PathBuf, path: Vec<String>, test: bool) -> usize {
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let code = code_only(&text);
    let index = modules.len();
    modules.push(Module {
        file: file.clone(),
        path: path.clone(),
        children: BTreeMap::new(),
        reexports: BTreeMap::new(),
        uses: Vec::new(),
        test,
    });
    let dir = match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs") | Some("mod.rs") => file.parent().expect("a folder").to_path_buf(),
        _ => file.with_extension(""),
    };
    // Inline modules (`mod tests { .. }`) shift what `super` means inside
    // them: track the braces.
    let mut inline_depths: Vec<i32> = Vec::new();
    // Whether each open inline module is a test module, and whether the
    // attributes just read make the next item one.
    let mut inline_tests: Vec<bool> = Vec::new();
    let mut cfg_test = false;
    let mut depth = 0i32;
    let mut statement = String::new();
    let mut statement_public = false;
    for line in code.lines() {
        let trimmed = line.trim();
        let in_test = test || inline_tests.iter().any(|&t| t);
        let item_is_test = std::mem::take(&mut cfg_test);
        if trimmed.starts_with("#[") {
            cfg_test = item_is_test
                || trimmed.starts_with("#[cfg(test)]")
                || trimmed.starts_with("#[cfg(all(test");
        } else if trimmed.is_empty() {
            cfg_test = item_is_test;
        }
        let declares = trimmed
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ");
        if let Some(rest) = declares.strip_prefix("mod ") {
            let name = rest.trim_end_matches(';').trim_end_matches('{').trim();
            if rest.trim_end().ends_with(';') && inline_depths.is_empty() {
                let candidates = [
                    dir.join(format!("{name}.rs")),
                    dir.join(name).join("mod.rs"),
                ];
                let child = candidates
                    .iter()
                    .find(|c| c.exists())
                    .unwrap_or_else(|| panic!("{}: mod {name} has no file", file.display()))
                    .clone();
                let mut child_path = path.clone();
                child_path.push(name.to_string());
                let child_index = load(modules, child, child_path, in_test || item_is_test);
                modules[index]
                    .children
                    .insert(name.to_string(), child_index);
            } else if rest.contains('{') {
                inline_depths.push(depth);
                inline_tests.push(item_is_test);
            }
        }
        // `use` statements may span lines.
        let in_use = !statement.is_empty() || declares.starts_with("use ");
        if statement.is_empty() && declares.starts_with("use ") {
            statement.push_str(declares);
            statement_public = trimmed.starts_with("pub");
        } else if !statement.is_empty() {
            statement.push(' ');
            statement.push_str(trimmed);
        }
        if !statement.is_empty() && statement.contains(';') {
            let public = statement_public;
            let tree = statement
                .trim_start_matches("use ")
                .trim_end_matches(';')
                .to_string();
            let in_inline = !inline_depths.is_empty();
            for (mut p, alias) in expand_use(&tree) {
                if in_inline && p.first().is_some_and(|s| s == "super") {
                    p[0] = "self".into();
                }
                if public && !in_inline && p.last().is_some_and(|s| s != "*") {
                    let name = alias.unwrap_or_else(|| p.last().cloned().unwrap_or_default());
                    modules[index].reexports.insert(name, p.clone());
                }
                modules[index].uses.push(Use { path: p, in_test });
            }
            statement.clear();
        }
        // Paths in code: crate::a::B, super::a::B, self::a::B (the code is
        // ASCII once comments and literals are blanked).
        let b = line.as_bytes();
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b':';
        let mut i = 0;
        while i < b.len() {
            let starts = ["crate::", "super::", "self::"]
                .iter()
                .any(|p| b[i..].starts_with(p.as_bytes()));
            if starts && (i == 0 || !word(b[i - 1])) {
                let mut j = i;
                while j < b.len() && word(b[j]) {
                    j += 1;
                }
                // A macro's `crate::$room::..`: the room is the
                // invocation's word, not an import of the crate root.
                if b.get(j) == Some(&b'$') {
                    i = j;
                    continue;
                }
                let mut p: Vec<String> = line[i..j]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                if !inline_depths.is_empty() && p.first().is_some_and(|s| s == "super") {
                    p[0] = "self".into();
                }
                if !in_use {
                    modules[index].uses.push(Use { path: p, in_test });
                }
                i = j;
                continue;
            }
            i += 1;
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if inline_depths.last() == Some(&depth) {
                        inline_depths.pop();
                        inline_tests.pop();
                    }
                }
                _ => {}
            }
        }
    }
    index
}

/// The file that defines what `path` names, seen from module `from`:
/// through child modules as far as they go, then through re-exports.
fn resolve(modules: &[Module], from: usize, path: &[String], hops: usize) -> Option<usize> {
    if hops > 32 {
        return None;
    }
    let by_path = |p: &[String]| modules.iter().position(|m| m.path == p);
    let mut at = match path.first().map(String::as_str) {
        Some("crate") => by_path(&[])?,
        Some("self") => from,
        Some("super") => {
            let mut p = modules[from].path.clone();
            let mut k = 0;
            while path.get(k).map(String::as_str) == Some("super") {
                p.pop();
                k += 1;
            }
            let base = by_path(&p)?;
            return resolve(
                modules,
                base,
                &std::iter::once("self".to_string())
                    .chain(path[k..].iter().cloned())
                    .collect::<Vec<_>>(),
                hops + 1,
            );
        }
        Some(first) if modules[from].children.contains_key(first) => {
            let mut p = vec!["self".to_string()];
            p.extend(path.iter().cloned());
            return resolve(modules, from, &p, hops + 1);
        }
        // Another crate, or a name in scope (a glob's or the prelude's).
        _ => return None,
    };
    let mut rest = &path[1..];
    while let Some(segment) = rest.first() {
        match modules[at].children.get(segment) {
            Some(&child) => {
                at = child;
                rest = &rest[1..];
            }
            None => break,
        }
    }
    match rest.first().map(String::as_str) {
        None | Some("*") => Some(at),
        Some(item) => match modules[at].reexports.get(item) {
            Some(target) => resolve(modules, at, &target.clone(), hops + 1).or(Some(at)),
            None => Some(at),
        },
    }
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    for lib in ["src/lib.rs", "md2-bevy/src/lib.rs", "web/src/lib.rs"] {
        let modules = load_crate(root().join(lib));
        let circles = file_circles(&modules);
        assert!(
            circles.is_empty(),
            "import circles in {lib}'s crate:\n{}",
            circles.join("\n")
        );
        assert!(modules.len() > 5, "{lib}: {} files", modules.len());
    }
    // The check sees the house: it found the rooms and their imports.
    let modules = load_crate(root().join("src/lib.rs"));
    assert!(modules.len() > 60, "{} files", modules.len());
    let renderer = modules
        .iter()
        .position(|m| m.path == ["gpu", "view", "renderer"])
        .expect("the renderer's file");
    assert!(
        file_edges(&modules, false)[renderer].len() > 5,
        "the renderer imports its rooms"
    );
    // And it finds a planted circle: the seam naming the GPU model, which
    // is made from it.
    let mut planted = modules;
    plant(
        &mut planted,
        &["model", "keyframe_model"],
        "crate::gpu::GpuModel",
    );
    let found = file_circles(&planted);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("src/model/keyframe_model.rs imports")
            && found[0].contains("src/gpu/model/gpu_model.rs"),
        "{found:?}"
    );
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn only_the_gpu_half_names_wgpu() {
    let src = root().join("src");
    let mut named = Vec::new();
    for file in rust_files(&src) {
        if file.starts_with(src.join("gpu")) || file == src.join("lib.rs") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&file).expect("a source file"));
        // naga reads shaders in the contract's mirror test and in the
        // `checks` room (the real-GPU rules, for hosts too).
        let naga_allowed =
            file.ends_with("contract/mirrors.rs") || file.starts_with(src.join("checks"));
        if code.contains("wgpu::")
            || code.contains("use wgpu")
            || code.contains("naga::") && !naga_allowed
        {
            named.push(relative(&file));
        }
    }
    assert!(named.is_empty(), "wgpu or naga outside src/gpu: {named:?}");
}

#[test]
fn no_path_includes_in_tests_examples_or_benches() {
    let mut found = Vec::new();
    for dir in ["tests", "examples", "benches"] {
        for file in rust_files(&root().join(dir)) {
            let code = code_only(&std::fs::read_to_string(&file).expect("a source file"));
            if code.contains("#[path") {
                found.push(relative(&file));
            }
        }
    }
    assert!(found.is_empty(), "#[path] includes: {found:?}");
}

#[test]
fn each_hidden_item_says_why() {
    let mut hidden = Vec::new();
    for file in rust_files(&root().join("src")) {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() == "#[doc(hidden)]" {
                let above = i.checked_sub(1).map(|k| lines[k].trim()).unwrap_or("");
                assert!(
                    above.starts_with("///") || above.starts_with("//"),
                    "{}:{}: a hidden item without a word on why",
                    file.display(),
                    i + 1
                );
                hidden.push(format!("{}:{}", file.display(), i + 1));
            }
        }
    }
    // The checks' two, and the root's 0.1.0 paths (one release) and test harness.
    assert!(hidden.len() <= 4, "hidden items: {hidden:?}");
}

/// The `crate::` paths in `code` (comments and literals blanked) whose
/// first name is not one of `rooms`: items named through the crate root's
/// re-exports, the front door an app uses, instead of the room that holds
/// them. `use crate::{a, B}` groups count name by name.
fn through_the_root(code: &str, rooms: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while let Some(k) = code[i..].find("crate::") {
        let at = i + k;
        i = at + "crate::".len();
        // `$crate::` (a macro's own crate) counts; `mycrate::` does not.
        if at > 0 && word(bytes[at - 1]) {
            continue;
        }
        let names: Vec<&str> = if code[i..].starts_with('{') {
            let end = code[i..].find('}').map_or(code.len(), |e| i + e);
            code[i + 1..end]
                .split(',')
                .map(|n| n.trim().split("::").next().unwrap_or("").trim())
                .collect()
        } else {
            let end = code[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(code.len(), |e| i + e);
            vec![&code[i..end]]
        };
        for name in names {
            if !name.is_empty() && !rooms.contains(name) {
                found.push(name.to_string());
            }
        }
    }
    found
}

/// The rooms `src/lib.rs` declares (`mod x;`, `pub mod x;`).
fn rooms() -> BTreeSet<String> {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).expect("lib.rs");
    code_only(&lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim().trim_start_matches("pub ");
            l.strip_prefix("mod ")
                .map(|r| r.trim_end_matches(';').trim().to_string())
        })
        .collect()
}

#[test]
fn no_room_reaches_back_through_the_crate_root() {
    let rooms = rooms();
    assert!(
        rooms.contains("format") && rooms.contains("gpu"),
        "{rooms:?}"
    );
    let mut found = Vec::new();
    for file in rust_files(&root().join("src")) {
        if file.ends_with("src/lib.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a source file");
        for name in through_the_root(&code_only(&text), &rooms) {
            found.push(format!("{}: crate::{name}", file.display()));
        }
    }
    assert!(
        found.is_empty(),
        "named through the crate root's re-exports instead of their rooms:\n  {}",
        found.join("\n  ")
    );
    // The rule finds what it is meant to: a planted path through the root,
    // a group, and a macro's `$crate::`; rooms and comments pass.
    let planted = "use crate::gpu::GpuModel;\n\
                   let x = crate::MeshError::Empty;\n\
                   use crate::{format, Md2Model};\n\
                   $crate::SHELL_ALPHA\n\
                   // crate::InComment\n";
    assert_eq!(
        through_the_root(&code_only(planted), &rooms),
        ["MeshError", "Md2Model", "SHELL_ALPHA"]
    );
}

/// The strongly connected components of more than one node of the graph
/// `edges` (Tarjan's algorithm): its circles.
fn circles(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in self.edges[v].iter() {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.components.push(component);
                }
            }
        }
    }
    let n = edges.len();
    let mut t = Tarjan {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.components
}

/// The crate whose root file is `lib`, file by file.
fn load_crate(lib: PathBuf) -> Vec<Module> {
    let mut modules = Vec::new();
    load(&mut modules, lib, Vec::new(), false);
    modules
}

/// Which file imports which: `edges[i]` holds the files module `i` names
/// (leaving out what only its tests name where `with_tests` is false).
/// Declaring a module is not importing it; a parent that re-exports its
/// children and defines nothing they use cannot close a circle.
fn file_edges(modules: &[Module], with_tests: bool) -> Vec<BTreeSet<usize>> {
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); modules.len()];
    for (i, m) in modules.iter().enumerate() {
        for u in m.uses.iter().filter(|u| with_tests || !u.in_test) {
            if let Some(target) = resolve(modules, i, &u.path, 0)
                && target != i
            {
                edges[i].insert(target);
            }
        }
    }
    edges
}

/// The file circles of `modules`, each as lines `a imports b, c`. What
/// only a file's tests name is left out: a test module names what it tests
/// and nothing names it, so it closes no circle.
fn file_circles(modules: &[Module]) -> Vec<String> {
    let edges = file_edges(modules, false);
    let name = |i: usize| relative(&modules[i].file);
    circles(&edges)
        .iter()
        .map(|c| {
            let mut files: Vec<String> = c
                .iter()
                .map(|&i| {
                    let within: Vec<String> = edges[i]
                        .iter()
                        .filter(|j| c.contains(j))
                        .map(|&j| name(j))
                        .collect();
                    format!("  {} imports {}", name(i), within.join(", "))
                })
                .collect();
            files.sort();
            files.join("\n")
        })
        .collect()
}

/// The floors of `docs/ARCHITECTURE.md`, lowest first: a room names only
/// rooms on floors below its own.
const FLOORS: &[&[&str]] = &[
    &["model", "checks"],
    &["mesh"],
    &["contract"],
    &["anim"],
    &["scene"],
    &["crowd"],
    &["format"],
    &["skins", "gltf"],
    &["demo"],
    &["gpu"],
    &["support", "old_paths"],
];

fn floor_of(room: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&room))
}

/// Every import between rooms that does not go down a floor, as
/// `room -> room (file names path)`, tests left out: a test module names
/// what it tests, and nothing names it, so it closes no circle. Rooms on
/// no floor are breaches too.
fn floor_breaches(modules: &[Module]) -> Vec<String> {
    let edges = file_edges(modules, false);
    let mut breaches = BTreeSet::new();
    for (i, targets) in edges.iter().enumerate() {
        let (Some(from), false) = (modules[i].path.first(), modules[i].test) else {
            continue;
        };
        for &j in targets {
            let Some(to) = modules[j].path.first() else {
                continue;
            };
            if from == to {
                continue;
            }
            let ok = matches!((floor_of(from), floor_of(to)), (Some(a), Some(b)) if b < a);
            if !ok {
                breaches.insert(format!(
                    "{from} -> {to} ({} names {})",
                    relative(&modules[i].file),
                    modules[j].path.join("::")
                ));
            }
        }
    }
    breaches.into_iter().collect()
}

/// Plants `path` among the names the file at module path `at` uses, as
/// code (not a test's).
fn plant(modules: &mut [Module], at: &[&str], path: &str) {
    let m = modules
        .iter_mut()
        .find(|m| m.path == at)
        .unwrap_or_else(|| panic!("no module {at:?}"));
    m.uses.push(Use {
        path: path.split("::").map(String::from).collect(),
        in_test: false,
    });
}

#[test]
fn each_room_names_only_the_floors_below_it() {
    let modules = load_crate(root().join("src/lib.rs"));
    // Every room the crate declares stands on a floor, and every floor's
    // room exists.
    let declared = rooms();
    let floored: BTreeSet<String> = FLOORS
        .iter()
        .flat_map(|f| f.iter().map(|r| r.to_string()))
        .collect();
    assert_eq!(
        declared, floored,
        "the rooms of src/lib.rs and the floors of FLOORS"
    );
    let breaches = floor_breaches(&modules);
    assert!(
        breaches.is_empty(),
        "imports that do not go down a floor (docs/ARCHITECTURE.md), so rooms could close a circle:\n  {}",
        breaches.join("\n  ")
    );
    // The rule finds what it is meant to: the contract naming the scene
    // above it, as `contract/pack.rs` once did.
    let mut planted = load_crate(root().join("src/lib.rs"));
    plant(
        &mut planted,
        &["contract", "records"],
        "crate::scene::Md2Instance",
    );
    assert_eq!(
        floor_breaches(&planted),
        ["contract -> scene (src/contract/records.rs names scene::instance)"]
    );
}

#[test]
fn the_crowd_never_imports_the_renderer() {
    let reaches = |modules: &[Module]| -> Vec<String> {
        let edges = file_edges(modules, true);
        let mut found = Vec::new();
        for (i, targets) in edges.iter().enumerate() {
            if !modules[i]
                .path
                .starts_with(&["gpu".to_string(), "crowd".to_string()])
            {
                continue;
            }
            for &j in targets {
                if modules[j]
                    .path
                    .starts_with(&["gpu".to_string(), "view".to_string()])
                {
                    found.push(format!(
                        "{} names {}",
                        modules[i].path.join("::"),
                        modules[j].path.join("::")
                    ));
                }
            }
        }
        found
    };
    let modules = load_crate(root().join("src/lib.rs"));
    assert!(reaches(&modules).is_empty(), "{:?}", reaches(&modules));
    let mut planted = load_crate(root().join("src/lib.rs"));
    plant(
        &mut planted,
        &["gpu", "crowd", "md2_crowd"],
        "crate::gpu::Md2Renderer",
    );
    assert_eq!(
        reaches(&planted),
        ["gpu::crowd::md2_crowd names gpu::view::renderer"]
    );
}

/// The lines of a `mod.rs` (comments and literals blanked) that are not
/// module lines, `use` and re-exports, attributes or blank.
fn more_than_a_table_of_contents(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    // Depth inside an attribute's brackets, and whether a `use` statement
    // is still open: both may span lines.
    let mut attribute = 0i32;
    let mut in_use = false;
    for line in code.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if attribute > 0 || trimmed.starts_with("#[") || trimmed.starts_with("#![") {
            attribute += trimmed.matches('[').count() as i32 - trimmed.matches(']').count() as i32;
            continue;
        }
        let item = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .fold(trimmed, |t, p| t.strip_prefix(p).unwrap_or(t));
        if in_use || item.starts_with("use ") {
            in_use = !trimmed.ends_with(';');
            continue;
        }
        if item.starts_with("mod ") && item.ends_with(';') {
            continue;
        }
        found.push(trimmed.to_string());
    }
    found
}

#[test]
fn mod_files_are_tables_of_contents() {
    let mut found = Vec::new();
    for dir in ["src", "md2-bevy/src", "web/src"] {
        for file in rust_files(&root().join(dir)) {
            if !file.ends_with("mod.rs") {
                continue;
            }
            let code = code_only(&std::fs::read_to_string(&file).expect("a source file"));
            for line in more_than_a_table_of_contents(&code) {
                found.push(format!("{}: {line}", relative(&file)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "mod.rs files hold module lines, re-exports and docs; these belong in a file of their own:\n  {}",
        found.join("\n  ")
    );
    // The rule finds what it is meant to, and passes what a table of
    // contents holds.
    let planted = "#![cfg_attr(not(feature = \"wgpu\"), allow(\n    dead_code,\n))]\nmod a;\n\
                   #[cfg(test)]\npub(crate) mod b;\npub use a::{\n    X,\n    Y,\n};\n\
                   const N: u32 = 4;\nfn helper() {}\n";
    assert_eq!(
        more_than_a_table_of_contents(&code_only(planted)),
        ["const N: u32 = 4;", "fn helper() {}"]
    );
}
