//! What Quake II's entity effects cost: planar shadows under the whole
//! crowd and powerup shells on a tenth of it, against the same crowd
//! without effects, on both of the crate's paths.

use std::fmt::Write as _;

use crate::Bench;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Row, find, ratio};
use crate::scene::BenchModel;
use crate::strategies::{Immediate, Resident, ResidentDraw, upload};

/// Shells go on every this-many-th member.
const SHELL_EVERY: usize = 10;

/// The variants, as (suffix, look).
const VARIANTS: [(&str, &str); 3] = [
    ("", "no effects"),
    (", shadows", "shadows"),
    (", shells on a tenth", "shells"),
];

/// Measures both paths with and without effects at `n` instances for every
/// model; prints the table and the costs.
pub fn run(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let mut table = Table::default();
    for model in models {
        eprintln!("effects: {} × {n} ...", model.label);
        let plain = model.crowd(n)?;
        let scenes = [
            plain.clone(),
            plain.with_shadows(),
            plain.with_shells_every(SHELL_EVERY),
        ];
        let mut entries = Vec::new();
        for ((suffix, look), scene) in VARIANTS.into_iter().zip(&scenes) {
            entries.push(Entry::new(
                format!("gpu{suffix}"),
                Some(look),
                upload(gpu, cache, model).and_then(|m| Immediate::new(gpu, cache, m, scene)),
            ));
            entries.push(Entry::new(
                format!("resident{suffix}"),
                Some(look),
                upload(gpu, cache, model)
                    .and_then(|m| Resident::new(gpu, cache, m, scene, true, ResidentDraw::All)),
            ));
        }
        let runs = measure::measure(gpu, &bench.target, entries, bench.warmup, bench.frames);
        table.add("effects", &model.label, n, runs);
    }
    let Table { rows, checks } = table;
    println!("## Entity effects: planar shadows and shells\n");
    println!(
        "Every member in view. Shadows: Quake II's planar shadows of the whole crowd on the \
         ground (one more instanced draw, stencilled). Shells: a blue powerup shell on every \
         {SHELL_EVERY}th member (one more draw of those members, blended).\n"
    );
    println!("{}", report::markdown(&rows));
    println!("Picture check (the two paths draw each variant alike):\n");
    for line in &checks {
        println!("{line}");
    }
    println!();
    let mut out = String::from(
        "| model | path | frame shadows/none | frame shells/none | VS shadows/none \
         | VS shells/none |\n|---|---|---:|---:|---:|---:|\n",
    );
    for model in models {
        for path in ["gpu", "resident"] {
            let find = |suffix: &str| find(&rows, &model.label, n, &format!("{path}{suffix}"));
            let Some(none) = find(VARIANTS[0].0) else {
                continue;
            };
            let frame = |suffix| {
                find(suffix).map_or("—".into(), |m| {
                    ratio(m.frame_ms.median, none.frame_ms.median)
                })
            };
            let vs = |suffix| {
                find(suffix)
                    .and_then(|m| m.vs_invocations.zip(none.vs_invocations))
                    .map_or("—".into(), |(a, b)| ratio(a as f64, b as f64))
            };
            let _ = writeln!(
                out,
                "| {} | {path} | {} | {} | {} | {} |",
                model.label,
                frame(VARIANTS[1].0),
                frame(VARIANTS[2].0),
                vs(VARIANTS[1].0),
                vs(VARIANTS[2].0),
            );
        }
    }
    println!("Cost of each effect, against the same path without effects (no target):\n");
    println!("{out}");
    Ok(rows)
}
