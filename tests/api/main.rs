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

/// A listing line split into its text between paths and its `md2_wgpu::`
/// paths (`md2_wgpu::format::Md2Error` one path).
fn paths_and_text(line: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut text, mut paths, mut rest) = (Vec::new(), Vec::new(), line);
    while let Some(at) = rest.find("md2_wgpu::") {
        text.push(&rest[..at]);
        let len = rest[at..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len() - at);
        paths.push(rest[at..at + len].trim_end_matches(':'));
        rest = &rest[at + paths.last().unwrap().len()..];
    }
    text.push(rest);
    (text, paths)
}

/// Where `now` is `was` with some of its items moved from the crate root
/// into a room (`md2_wgpu::Effects` now `md2_wgpu::scene::Effects`), the
/// names of the items that moved; `None` where the lines differ otherwise.
/// A method of a front-door type whose signature names a moved type is
/// then unchanged but for the move, which the changelog names once.
fn moved_items(was: &str, now: &str) -> Option<Vec<String>> {
    let ((was_text, was_paths), (now_text, now_paths)) = (paths_and_text(was), paths_and_text(now));
    if was_text != now_text || was_paths.len() != now_paths.len() {
        return None;
    }
    let mut moved = Vec::new();
    for (w, n) in was_paths.iter().zip(&now_paths) {
        if w == n {
            continue;
        }
        let rest = w.strip_prefix("md2_wgpu::")?;
        let (room, tail) = n.strip_prefix("md2_wgpu::")?.split_once("::")?;
        if tail != rest || room.chars().any(|c| !(c.is_ascii_lowercase() || c == '_')) {
            return None;
        }
        moved.push(rest.split("::").next().unwrap_or(rest).to_string());
    }
    Some(moved)
}

/// A line's key for finding the line it may have moved to: every module
/// segment after `md2_wgpu::` dropped.
fn move_key(line: &str) -> String {
    let (text, paths) = paths_and_text(line);
    let mut key = String::new();
    for (i, t) in text.iter().enumerate() {
        key.push_str(t);
        if let Some(path) = paths.get(i) {
            let kept: Vec<&str> = path
                .split("::")
                .skip(1)
                .skip_while(|s| s.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                .collect();
            key.push_str(&kept.join("::"));
        }
    }
    key
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
    let mut by_key: std::collections::BTreeMap<String, Vec<&String>> = Default::default();
    for line in listing() {
        by_key.entry(move_key(line)).or_default().push(line);
    }
    let mut unnamed = BTreeSet::new();
    for line in gone {
        // Unchanged but for items moved into rooms: the moves are named.
        let moves = by_key.get(&move_key(line)).into_iter().flatten();
        let moved = moves.filter_map(|now| moved_items(line, now)).next();
        if let Some(moved) = moved {
            let unnamed_moves: Vec<_> = moved.iter().filter(|m| !named(&changelog, m)).collect();
            if unnamed_moves.is_empty() {
                continue;
            }
        }
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
        "fn md2_wgpu::contract::pose_wgsl(u32) -> String",
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
    assert_eq!(
        moved_items(
            "fn md2_wgpu::Md2Crowd::remove(&mut self, md2_wgpu::CrowdHandle) -> Result<u8, md2_wgpu::CrowdError>",
            "fn md2_wgpu::Md2Crowd::remove(&mut self, md2_wgpu::gpu::CrowdHandle) -> Result<u8, md2_wgpu::scene::CrowdError>"
        ),
        Some(vec!["CrowdHandle".to_string(), "CrowdError".to_string()])
    );
    assert_eq!(
        moved_items(
            "fn md2_wgpu::Clip::len(&self) -> u32",
            "fn md2_wgpu::Clip::len(&self) -> u64"
        ),
        None,
        "a changed signature is not a move"
    );
    assert_eq!(
        moved_items(
            "fn md2_wgpu::Clip::x(&self) -> md2_wgpu::Pose",
            "fn md2_wgpu::Clip::x(&self) -> md2_wgpu::anim::Frame"
        ),
        None,
        "a renamed type is not a move"
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
            "variant md2_wgpu::scene::CrowdError::NotFinite { what: &'static str }",
            &none
        ),
        ["NotFinite"]
    );
}

/// A listing line's item path, where it names an item (not an `impl`).
fn item_path(line: &str) -> Option<(&str, &str)> {
    let (kind, rest) = line.split_once(' ')?;
    if ["impl", "reexport"].contains(&kind) {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    Some((kind, rest[..end].trim_end_matches(':')))
}

/// The crate root is a front door, not the whole house: at most 30 names
/// (rooms, the crates the API speaks in, and what a first program names),
/// everything else in its room. 0.1.0's root paths, deprecated and hidden
/// for one release, are not in the listing.
#[test]
fn the_crate_root_names_at_most_30_things() {
    let mut names = BTreeSet::new();
    for line in listing() {
        if line.starts_with("reexport md2_wgpu::") && line.ends_with("(another crate)") {
            names.insert(line.to_string());
            continue;
        }
        if let Some((_, path)) = item_path(line) {
            let mut segments = path.split("::");
            if segments.next() == Some("md2_wgpu") && segments.clone().count() == 1 {
                names.insert(path.to_string());
            }
        }
    }
    assert!(
        names.len() <= 30,
        "{} names at the crate root:\n  {}",
        names.len(),
        names.into_iter().collect::<Vec<_>>().join("\n  ")
    );
    assert!(names.contains("md2_wgpu::Md2Renderer"), "{names:?}");
}

/// No public type has more than 15 public methods (deprecated ones, kept
/// for one release, aside): a type with more is doing two jobs.
#[test]
fn no_public_type_has_more_than_15_methods() {
    let mut methods: std::collections::BTreeMap<&str, usize> = Default::default();
    for line in listing() {
        if line.ends_with("#[deprecated]") {
            continue;
        }
        let Some(("fn", path)) = item_path(line) else {
            continue;
        };
        let Some((owner, _)) = path.rsplit_once("::") else {
            continue;
        };
        // Methods belong to a type, whose name is capitalised; free
        // functions to a module.
        if owner
            .rsplit("::")
            .next()
            .is_some_and(|name| name.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            *methods.entry(owner).or_default() += 1;
        }
    }
    let wide: Vec<String> = methods
        .iter()
        .filter(|&(_, &n)| n > 15)
        .map(|(owner, n)| format!("{owner}: {n}"))
        .collect();
    assert!(
        wide.is_empty(),
        "types with more than 15 public methods:\n  {}",
        wide.join("\n  ")
    );
    assert!(
        methods.get("md2_wgpu::Md2Renderer").is_some_and(|&n| n > 5),
        "{methods:?}"
    );
}

/// Every name 0.1.0's root had that moved into a room still builds at the
/// root, deprecated, for one release (the deprecation is what an app
/// sees; this is that nothing broke).
#[test]
// The moved modules are named by `use`, which a path alone does not use.
#[allow(deprecated, unused_imports)]
fn the_old_root_paths_still_build() {
    // Each name, as an app of 0.1.0 wrote it: a type, a value, a module.
    macro_rules! types {
        ($($t:ty),* $(,)?) => {$(let _: Option<$t> = None;)*};
    }
    macro_rules! values {
        ($($v:expr),* $(,)?) => {$(let _ = $v;)*};
    }
    types!(
        md2_wgpu::Animation,
        md2_wgpu::ClipClock,
        md2_wgpu::Corner,
        md2_wgpu::Crossfade,
        md2_wgpu::CrowdError,
        md2_wgpu::Effects,
        md2_wgpu::ExtraRecord,
        md2_wgpu::Fade,
        md2_wgpu::Frame,
        md2_wgpu::FrameLerp,
        md2_wgpu::GlCmd,
        md2_wgpu::GlCmdKind,
        md2_wgpu::GlVertex,
        md2_wgpu::GpuModelOptions,
        md2_wgpu::InstanceError,
        md2_wgpu::InstancePolicy,
        md2_wgpu::InstanceRecord,
        md2_wgpu::Level,
        md2_wgpu::LevelOptions,
        md2_wgpu::Levels,
        md2_wgpu::LevelsFileError,
        md2_wgpu::Md2Error,
        md2_wgpu::Md2Header,
        md2_wgpu::Md2Parts,
        md2_wgpu::Md2Previous,
        md2_wgpu::Md2Warning,
        md2_wgpu::MeshError,
        md2_wgpu::ModelDataError,
        md2_wgpu::PackedVertex,
        md2_wgpu::PlanarShadow,
        md2_wgpu::Playback,
        md2_wgpu::Playing,
        md2_wgpu::Pose,
        md2_wgpu::PoseWords,
        md2_wgpu::QuakeModelError,
        md2_wgpu::ReferenceError,
        md2_wgpu::RenderMesh,
        md2_wgpu::Section,
        md2_wgpu::ShadowStencil,
        md2_wgpu::SkinName,
        md2_wgpu::TexCoord,
        md2_wgpu::TranslucentOrder,
        md2_wgpu::Triangle,
        md2_wgpu::TriangleOrder,
        md2_wgpu::VertexCacheStats
    );
    values!(
        md2_wgpu::ANORMS,
        md2_wgpu::FALLBACK_NORMAL_INDEX,
        md2_wgpu::MAX_FADE_SECONDS,
        md2_wgpu::MAX_GPU_FRAMES,
        md2_wgpu::MAX_GPU_SKINS,
        md2_wgpu::MAX_LEVELS,
        md2_wgpu::MD2_POSE_WGSL,
        md2_wgpu::MD2_RENDERER_WGSL,
        md2_wgpu::MIN_LIGHT,
        md2_wgpu::QUAKE2_FPS,
        md2_wgpu::QUAKE_TO_Y_UP,
        md2_wgpu::SHELL_ALPHA,
        md2_wgpu::SHELL_OFFSET,
        md2_wgpu::TICKS_PER_SECOND,
        md2_wgpu::nearest_normal_index,
        md2_wgpu::normal_from_index,
        md2_wgpu::pose_wgsl,
        md2_wgpu::quake_to_y_up,
        md2_wgpu::stand_on_ground
    );
    use md2_wgpu::{
        animations as _, clock as _, fields as _, mdl as _, playback as _, quake_flags as _,
        reference as _,
    };
    #[cfg(feature = "gpu")]
    {
        types!(
            md2_wgpu::ColorOutput,
            md2_wgpu::CrowdHandle,
            md2_wgpu::GpuModelBuffers<'static>,
            md2_wgpu::GpuModelBytes,
            md2_wgpu::MaterialError,
            md2_wgpu::Md2Batch,
            md2_wgpu::Md2Cache,
            md2_wgpu::Md2Material,
            md2_wgpu::Md2MaterialDescriptor,
            md2_wgpu::Md2Phase,
            md2_wgpu::PrepareError,
            md2_wgpu::PrepareReport,
            md2_wgpu::Readback,
            md2_wgpu::SetupError,
            md2_wgpu::VisibleMembers
        );
        values!(
            md2_wgpu::adapter_limits,
            md2_wgpu::required_downlevel_flags,
            md2_wgpu::required_limits
        );
        use md2_wgpu::low_level as _;
    }
    assert_eq!(md2_wgpu::MAX_LEVELS, md2_wgpu::contract::MAX_LEVELS);
    assert_eq!(
        md2_wgpu::normal_from_index(5),
        md2_wgpu::model::normal_from_index(5)
    );
    assert_eq!(md2_wgpu::pose_wgsl(1), md2_wgpu::contract::pose_wgsl(1));
}
