//! What the application's own shading costs: the built-in look against the
//! same look written as a material, and against the built-in look with
//! motion vectors (a second colour target, and every instance's previous
//! transform and pose), on both of the crate's paths.

use std::fmt::Write as _;

use crate::Bench;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Row, find, ratio, ratio_spread};
use crate::scene::BenchModel;
use crate::strategies::{Immediate, Resident, ResidentDraw, Shading, upload};

/// The variants, as (suffix, shading).
const VARIANTS: [(&str, Shading); 3] = [
    ("", Shading::Builtin),
    (", material", Shading::Material),
    (", motion", Shading::Motion),
];

/// Measures both paths in every shading at `n` instances for every model;
/// prints the table and the costs against the built-in look.
pub fn run(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let mut table = Table::default();
    for model in models {
        eprintln!("shading: {} × {n} ...", model.label);
        let scene = model.crowd(n)?;
        let mut entries = Vec::new();
        for (suffix, shading) in VARIANTS {
            // Every variant draws the same colour picture: the material is
            // the built-in look again, and motion vectors go to a target
            // of their own.
            let look = Some("the built-in look");
            entries.push(Entry::new(
                format!("gpu{suffix}"),
                look,
                upload(gpu, cache, model)
                    .and_then(|m| Immediate::shaded(gpu, cache, m, &scene, shading)),
            ));
            entries.push(Entry::new(
                format!("resident{suffix}"),
                look,
                upload(gpu, cache, model).and_then(|m| {
                    Resident::shaded(gpu, cache, m, &scene, (true, ResidentDraw::All), shading)
                }),
            ));
        }
        let runs = measure::measure(gpu, &bench.target, entries, bench.warmup, bench.frames);
        table.add("shading", &model.label, n, runs);
    }
    let Table { rows, checks } = table;
    println!("## The application's shading: materials and motion vectors\n");
    println!(
        "Every member in view. Material: the built-in look written again as an application's \
         WGSL function (`support::QUAKE_AGAIN_WGSL`), so the pictures must agree and the cost \
         is the material path's own. Motion: the built-in look plus the built-in motion target \
         (Rg16Float), every instance drawn with its previous transform and pose.\n"
    );
    println!("{}", report::markdown(&rows));
    println!("Picture check (every variant draws the same colour picture):\n");
    for line in &checks {
        println!("{line}");
    }
    println!();
    let mut out = String::from(
        "| model | path | frame material/built-in | frame motion/built-in \
         | frame CPU-work material/built-in | frame CPU-work motion/built-in \
         | VS material/built-in | VS motion/built-in |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for model in models {
        for path in ["gpu", "resident"] {
            let find = |suffix: &str| find(&rows, &model.label, n, &format!("{path}{suffix}"));
            let Some(builtin) = find(VARIANTS[0].0) else {
                continue;
            };
            let frame = |suffix| {
                find(suffix).map_or("—".into(), |m| {
                    ratio_spread(&m.frame_rounds, &builtin.frame_rounds)
                })
            };
            let work = |suffix| {
                find(suffix)
                    .and_then(|m| m.frame_cpu_ms.zip(builtin.frame_cpu_ms))
                    .map_or("—".into(), |(a, b)| ratio(a.median, b.median))
            };
            let vs = |suffix| {
                find(suffix)
                    .and_then(|m| m.vs_invocations.zip(builtin.vs_invocations))
                    .map_or("—".into(), |(a, b)| ratio(a as f64, b as f64))
            };
            let _ = writeln!(
                out,
                "| {} | {path} | {} | {} | {} | {} | {} | {} |",
                model.label,
                frame(VARIANTS[1].0),
                frame(VARIANTS[2].0),
                work(VARIANTS[1].0),
                work(VARIANTS[2].0),
                vs(VARIANTS[1].0),
                vs(VARIANTS[2].0),
            );
        }
    }
    println!(
        "Cost of each, against the same path with the built-in look (targets: a material \
         within 1.05× of the frame with the same vertex-shader runs; motion within 1.5×). \
         Frame ratios are taken round by round: median (smallest–largest round).\n"
    );
    println!("{out}");
    Ok(rows)
}
