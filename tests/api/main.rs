//! md2-wgpu's public API held to what the repository says of it: the
//! committed listing (`docs/api/current.txt`) is exactly what rustdoc
//! finds in the sources, and every item of the last release's listing
//! (`docs/api/0.1.0.txt`) that is gone or changed is named in the
//! changelog's section for the next release. A renamed type, a retyped
//! field, a changed constant or a removed re-export fails here until the
//! listing is accepted and the changelog says so.
//!
//! The listing comes from rustdoc's JSON output (`-Z unstable-options`,
//! on stable through `RUSTC_BOOTSTRAP=1`), built into a target directory
//! of its own (`<target>/api`). Accept a changed API, once the changelog
//! says what changed, with `MD2_ACCEPT=1 cargo test --test api`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use md2_wgpu_tests::{target_dir, workspace_dir};

/// The listing rustdoc gives today.
fn listing() -> &'static [String] {
    static LISTING: OnceLock<Vec<String>> = OnceLock::new();
    LISTING.get_or_init(|| {
        let target = target_dir().join("api");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .current_dir(workspace_dir())
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["rustdoc", "-q", "-p", "md2-wgpu", "--lib", "--all-features"])
            .arg("--target-dir")
            .arg(&target)
            .args(["--", "-Z", "unstable-options", "--output-format", "json"])
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "rustdoc's JSON of md2-wgpu: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json = std::fs::read_to_string(target.join("doc").join("md2_wgpu.json"))
            .expect("rustdoc wrote its JSON");
        md2_wgpu_tests::api::listing(&json).expect("the JSON renders")
    })
}

fn api_dir() -> PathBuf {
    workspace_dir().join("docs").join("api")
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_public_api_is_the_committed_listing() {
    let path = api_dir().join("current.txt");
    let now = listing();
    if std::env::var("MD2_ACCEPT").is_ok_and(|v| v == "1") {
        std::fs::write(&path, now.join("\n") + "\n").unwrap();
        eprintln!("MD2_ACCEPT=1: wrote {}", path.display());
        return;
    }
    let committed = read_lines(&path);
    let (was, is): (BTreeSet<_>, BTreeSet<_>) = (committed.iter().collect(), now.iter().collect());
    let gone: Vec<_> = was.difference(&is).collect();
    let new: Vec<_> = is.difference(&was).collect();
    assert!(
        gone.is_empty() && new.is_empty(),
        "the public API differs from {}:\n  gone:\n    {}\n  new:\n    {}\n\
         Say what changed in CHANGELOG.md, then accept it with \
         MD2_ACCEPT=1 cargo test --test api",
        path.display(),
        gone.iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n    "),
        new.iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n    ")
    );
}

/// A listing line's kind and path (for an `impl` line, the trait's path
/// and the type's).
fn kind_and_paths(line: &str) -> (&str, Vec<String>) {
    let mut words = line.splitn(2, ' ');
    let kind = words.next().unwrap_or("");
    let rest = words.next().unwrap_or("");
    let path_of = |text: &str| -> String {
        let path: String = text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        path.trim_end_matches(':').to_string()
    };
    if kind == "impl" {
        let rest = rest.trim_start_matches('!');
        let (tr, ty) = rest.split_once(" for ").unwrap_or((rest, ""));
        return (kind, vec![path_of(tr), path_of(ty)]);
    }
    (kind, vec![path_of(rest)])
}

fn last(path: &str) -> &str {
    path.rsplit("::").next().unwrap_or(path)
}

/// The names a changelog may use for a listing line's item: its own (the
/// last segment of its path; the trait of an `impl` line), and where the
/// type it belongs to is itself gone (renamed, removed), the type's.
fn item_names(line: &str, gone_types: &BTreeSet<String>) -> Vec<String> {
    let (kind, paths) = kind_and_paths(line);
    let mut names = Vec::new();
    let owner = if kind == "impl" {
        names.push(last(&paths[0]).to_string());
        paths[1].clone()
    } else {
        names.push(last(&paths[0]).to_string());
        paths[0]
            .rsplit_once("::")
            .map_or(String::new(), |(o, _)| o.to_string())
    };
    if gone_types.contains(&owner) {
        names.push(last(&owner).to_string());
    }
    names
}

fn named(changelog: &str, name: &str) -> bool {
    [
        format!("`{name}"),
        format!("{name}`"),
        format!("::{name}"),
        format!("{name}::"),
    ]
    .iter()
    .any(|form| changelog.contains(form.as_str()))
}

/// The changelog's section for the next release.
fn unreleased() -> String {
    let text = std::fs::read_to_string(workspace_dir().join("CHANGELOG.md")).unwrap();
    let start = text.find("## [Unreleased]").expect("an Unreleased section");
    let rest = &text[start + 1..];
    let end = rest.find("\n## [").map_or(rest.len(), |i| i + 1);
    rest[..end].to_string()
}

#[test]
fn every_item_gone_or_changed_since_0_1_0_is_named_in_the_changelog() {
    let released = read_lines(&api_dir().join("0.1.0.txt"));
    let now: BTreeSet<&String> = listing().iter().collect();
    let changelog = unreleased();
    let gone: Vec<&String> = released.iter().filter(|l| !now.contains(l)).collect();
    let gone_types: BTreeSet<String> = gone
        .iter()
        .filter_map(|line| {
            let (kind, paths) = kind_and_paths(line);
            ["struct", "enum", "trait", "mod"]
                .contains(&kind)
                .then(|| paths[0].clone())
        })
        .collect();
    let mut unnamed = BTreeSet::new();
    for line in gone {
        let names = item_names(line, &gone_types);
        if !names.iter().any(|name| named(&changelog, name)) {
            unnamed.insert(format!("{}: {line}", names.join(" or ")));
        }
    }
    assert!(
        unnamed.is_empty(),
        "gone or changed since 0.1.0, and not named in CHANGELOG.md's [Unreleased] \
         section:\n  {}",
        unnamed.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

#[test]
fn the_listing_names_items_as_an_app_writes_them() {
    let now = listing();
    for expected in [
        "struct md2_wgpu::Md2Renderer",
        "fn md2_wgpu::pose_wgsl(u32) -> String",
        "impl Send for md2_wgpu::Md2Renderer",
    ] {
        assert!(now.iter().any(|l| l == expected), "{expected}");
    }
    assert!(
        now.iter()
            .any(|l| l.starts_with("fn md2_wgpu::Md2Renderer::prepare(&mut self, &wgpu::Device")),
        "methods with their receivers and wgpu's types by crate and name"
    );
    let none = BTreeSet::new();
    assert_eq!(
        item_names(
            "field md2_wgpu::contract::PoseBindings::normals: u32",
            &none
        ),
        ["normals"]
    );
    assert_eq!(
        item_names("impl Send for md2_wgpu::Md2Crowd", &none),
        ["Send"]
    );
    let gone = BTreeSet::from(["md2_wgpu::DetailLevel".to_string()]);
    assert_eq!(
        item_names("impl Send for md2_wgpu::DetailLevel", &gone),
        ["Send", "DetailLevel"]
    );
    assert_eq!(
        item_names("field md2_wgpu::DetailLevel::error: f32", &gone),
        ["error", "DetailLevel"]
    );
    assert_eq!(
        item_names(
            "variant md2_wgpu::CrowdError::NotFinite { what: &'static str }",
            &none
        ),
        ["NotFinite"]
    );
}
