//! How long levels of detail take to build: `Levels::new` with the default
//! options on the demo model, the community models in ../shared/md2 (or
//! `$MD2_SHARED_MODELS`) where present, and a model at Quake II's limits
//! (2,048 vertices, 4,096 triangles, 512 frames), the median of a few
//! builds each, with what the levels came out as.
//!
//! ```text
//! cargo bench --bench levels -- --markdown docs/levels.md
//! cargo bench --bench levels --profile app-debug -- --label app-debug --markdown docs/levels.md
//! cargo bench --bench levels --profile app-debug-fast -- --label app-debug-fast --markdown docs/levels.md
//! ```
//!
//! Each profile's table replaces its own in the figures file: `release`
//! (what `cargo bench` builds), `app-debug` (every crate at opt-level 0, as
//! an application's own debug build compiles this crate), `app-debug-fast`
//! (the same with the lines the README's quick start gives an app's
//! Cargo.toml). A table at the top puts them side by side, with those of
//! the files `--also` names (the same bench run at an earlier commit, for
//! before and after).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use md2_wgpu::{
    Md2Model,
    mesh::{LevelOptions, Levels, RenderMesh, TriangleOrder},
};

fn main() {
    let mut markdown: Option<PathBuf> = None;
    let mut only: Option<String> = None;
    // Figures files of other runs (an earlier commit's) whose tables join
    // the side-by-side one.
    let mut also: Vec<PathBuf> = Vec::new();
    // What the report calls this build: the profile it was built with
    // (`--profile` is cargo's, so it is said again here).
    let mut profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
    .to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => {}
            "--markdown" => markdown = args.next().map(PathBuf::from),
            "--models" => only = args.next(),
            "--label" => profile = args.next().unwrap_or(profile),
            "--also" => also.extend(args.next().map(PathBuf::from)),
            "-h" | "--help" => {
                println!(
                    "usage: cargo bench --bench levels [-- --markdown PATH] [--label NAME] [--also PATH] [--models demo,yohko/tris.md2,...,limits]"
                );
                return;
            }
            other => {
                eprintln!("levels: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let mut models: Vec<(String, Md2Model)> =
        vec![("demo".to_string(), md2_wgpu::demo::demo_model())];
    let shared = md2_wgpu::support::shared_models_dir();
    if let Ok(files) = md2_wgpu::support::md2_files_in(&shared) {
        for (path, bytes) in files {
            // The player-sized models: the weapons build in milliseconds.
            if ["yohko/tris.md2", "ogro/ogros.MD2"].contains(&path.as_str())
                && let Ok(model) = Md2Model::from_bytes(&bytes)
            {
                models.push((path, model));
            }
        }
    }
    models.push(("limits".to_string(), md2_wgpu::support::limits_model()));
    if let Some(only) = &only {
        let keep: Vec<&str> = only.split(',').collect();
        models.retain(|(name, _)| keep.contains(&name.as_str()));
    }
    let mut report = String::new();
    let _ = writeln!(report, "# Levels of detail: build times\n");
    let _ = writeln!(
        report,
        "- profile: {profile}; machine: {}; `Levels::new` with `LevelOptions::DEFAULT` over the vertex-cache mesh, median of the builds",
        machine()
    );
    let command = match profile.as_str() {
        "release" => "cargo bench --bench levels".to_string(),
        other => format!("cargo bench --bench levels --profile {other} -- --label {other}"),
    };
    let _ = writeln!(report, "- command: `{command}`\n");
    let _ = writeln!(
        report,
        "| model | vertices, triangles, frames | builds | build time (median) | triangles per level | error per level (model units) |"
    );
    let _ = writeln!(report, "|---|---|---:|---:|---|---|");
    for (name, model) in &models {
        let mesh = RenderMesh::new(model, TriangleOrder::VertexCache);
        let mut times = Vec::new();
        let mut levels = None;
        // A few builds, fewer where one takes long.
        let started = Instant::now();
        while times.len() < 5 && (times.is_empty() || started.elapsed().as_secs_f64() < 20.0) {
            let t = Instant::now();
            let built =
                Levels::new(model, &mesh, &LevelOptions::DEFAULT).expect("the model's mesh");
            times.push(t.elapsed().as_secs_f64());
            levels = Some(built);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let levels = levels.expect("built at least once");
        let list = |f: &dyn Fn(&md2_wgpu::mesh::Level) -> String| {
            levels
                .levels()
                .iter()
                .map(f)
                .collect::<Vec<_>>()
                .join(" / ")
        };
        let line = format!(
            "| {name} | {}, {}, {} | {} | {} | {} | {} |",
            model.keyframes().vertex_count(),
            model.triangles().len(),
            model.keyframes().frame_count(),
            times.len(),
            duration(median),
            list(&|l| l.triangle_count().to_string()),
            list(&|l| format!("{:.2}", l.error)),
        );
        println!("{line}");
        let _ = writeln!(report, "{line}");
    }
    if let Some(path) = markdown {
        // The figures file keeps every profile's table: this run's replaces
        // the one of the same profile.
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let mut sections: Vec<String> = old
            .split("\n# ")
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim_start_matches("# ").to_string())
            .filter(|s| !s.contains(&format!("- profile: {profile};")))
            .collect();
        sections.retain(|s| !s.starts_with(SUMMARY));
        sections.push(report.trim_start_matches("# ").to_string());
        sections.sort();
        let others: Vec<String> = also
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .flat_map(|text| {
                text.split("\n# ")
                    .map(|s| s.trim_start_matches("# ").to_string())
                    .filter(|s| !s.starts_with(SUMMARY))
                    .collect::<Vec<_>>()
            })
            .collect();
        let summary = summary(&[others, sections.clone()].concat());
        let text = std::iter::once(summary)
            .chain(sections.iter().map(|s| format!("# {}", s.trim_end())))
            .collect::<Vec<_>>()
            .join("\n\n");
        if let Err(e) = std::fs::write(&path, text + "\n") {
            eprintln!("levels: {}: {e}", path.display());
            std::process::exit(1);
        }
        println!("figures: {}", path.display());
    }
}

/// The heading of the table that puts every profile's build times side by
/// side.
const SUMMARY: &str = "Levels of detail: build times side by side";

/// One table of every section's build times: a row per model, a column per
/// profile (the label each run gave, such as `before, release`: runs of an
/// earlier commit write their own sections into the same file).
fn summary(sections: &[String]) -> String {
    let mut labels: Vec<String> = Vec::new();
    let mut rows: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for section in sections {
        let Some(label) = section
            .lines()
            .find_map(|l| l.strip_prefix("- profile: "))
            .and_then(|l| l.split(';').next())
        else {
            continue;
        };
        labels.push(label.to_string());
        for line in section
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| model"))
        {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // | model | counts | builds | time | triangles | errors |
            let (Some(model), Some(time)) = (cells.get(1), cells.get(4)) else {
                continue;
            };
            let time = format!(
                "{time} ({} levels)",
                cells.get(5).map_or(0, |t| t.split('/').count())
            );
            match rows.iter_mut().find(|(m, _)| m == model) {
                Some((_, times)) => times.push((label.to_string(), time)),
                None => rows.push((model.to_string(), vec![(label.to_string(), time)])),
            }
        }
    }
    let mut out = format!(
        "# {SUMMARY}\n\n`Levels::new` with `LevelOptions::DEFAULT`, median build time (and the \
         levels built), by profile: each column is one run of `cargo bench --bench levels` \
         with that label, detailed below.\n\n| model | {} |\n|---|{}\n",
        labels.join(" | "),
        "---:|".repeat(labels.len())
    );
    for (model, times) in rows {
        let cells: Vec<String> = labels
            .iter()
            .map(|l| {
                times
                    .iter()
                    .find(|(label, _)| label == l)
                    .map_or("—".to_string(), |(_, t)| t.clone())
            })
            .collect();
        let _ = writeln!(out, "| {model} | {} |", cells.join(" | "));
    }
    out.trim_end().to_string()
}

fn duration(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else {
        format!("{:.1} ms", seconds * 1e3)
    }
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {threads} hardware threads")
}
