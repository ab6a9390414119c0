//! What levels of detail save: a resident crowd that reaches the horizon,
//! with and without levels, and a crowd all close to the camera (where
//! every member is at full detail and levels can only cost), on both paths.

use std::fmt::Write as _;

use md2_wgpu::contract::{GpuModelOptions, MAX_LEVELS};

use crate::Bench;
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Measured, Row, count, find, ms, ratio, ratio_spread};
use crate::scene::{BenchModel, Scene};
use crate::strategies::{Immediate, Resident, ResidentDraw, upload_with};

/// The two uploads compared, as (suffix, options).
const UPLOADS: [(&str, GpuModelOptions); 2] = [
    (", full detail", GpuModelOptions::DEFAULT),
    (", levels", GpuModelOptions::WITH_LEVELS),
];

/// The crowd size of the close scene.
pub const CLOSE: usize = 4000;

/// Measures the horizon scene (each of `sizes` resident members in one
/// crowd, `frames` measured frames) and the close one ([`CLOSE`] members,
/// both paths) for every model, with and without levels; prints the
/// tables.
pub fn run(
    bench: &Bench,
    models: &[BenchModel],
    sizes: &[usize],
    frames: usize,
) -> Result<Vec<Row>, String> {
    let (gpu, cache) = (&bench.gpu, &bench.cache);
    let mut table = Table::default();
    let mut levels_of = Vec::new();
    for model in models {
        let with_levels = upload_with(gpu, cache, model, GpuModelOptions::WITH_LEVELS)?;
        let levels = with_levels.level_choice().levels().to_vec();
        levels_of.push((
            model.label.clone(),
            levels.clone(),
            with_levels.level_choice().build_time(),
        ));
        // The resident path drawing `scene` with the model uploaded with
        // `options`.
        let resident = |options, scene: &Scene| {
            upload_with(gpu, cache, model, options)
                .and_then(|m| Resident::new(gpu, cache, m, scene, true, ResidentDraw::All))
        };

        for &n in sizes {
            eprintln!("horizon: {} × {n} ...", model.label);
            let scene = model.horizon(n)?;
            let entries = UPLOADS
                .iter()
                .map(|&(suffix, options)| {
                    Entry::new(format!("resident{suffix}"), None, resident(options, &scene))
                })
                .collect();
            let runs = measure::measure(gpu, &bench.target, entries, bench.warmup.min(1), frames);
            table.add("horizon", &model.label, n, runs);
        }

        // Close enough that the first coarser level is never chosen.
        let first_error = levels.get(1).map_or(0.0, |l| l.error);
        let probe = model.close(CLOSE, 1.0)?;
        let reach = 0.8 * first_error * probe.camera.pixels_per_unit();
        eprintln!(
            "horizon: {} × {CLOSE}, all within {reach:.0} units ...",
            model.label
        );
        let close = model.close(CLOSE, reach.max(100.0))?;
        let mut entries = Vec::new();
        for &(suffix, options) in &UPLOADS {
            entries.push(Entry::new(
                format!("gpu{suffix}"),
                Some("close"),
                upload_with(gpu, cache, model, options)
                    .and_then(|m| Immediate::new(gpu, cache, m, &close)),
            ));
            entries.push(Entry::new(
                format!("resident{suffix}"),
                Some("close"),
                resident(options, &close),
            ));
        }
        let runs = measure::measure(gpu, &bench.target, entries, bench.warmup, bench.frames);
        table.add("close", &model.label, CLOSE, runs);
    }
    let Table { rows, checks } = table;
    print(&rows, &checks, &levels_of, sizes);
    Ok(rows)
}

fn print(
    rows: &[Row],
    checks: &[String],
    levels_of: &[(String, Vec<md2_wgpu::mesh::Level>, std::time::Duration)],
    sizes: &[usize],
) {
    say!("## Levels of detail\n");
    say!(
        "Each model uploaded at full detail only, and with `GpuModelOptions::WITH_LEVELS`; \
         every member drawn at the coarsest level whose error stays within 1 pixel \
         (`level_error_pixels`, the default) on the 1280×720 target.\n"
    );
    let mut out = String::from(
        "| model | triangles per level | error per level (units) | build (this machine) |\n\
         |---|---|---|---:|\n",
    );
    for (label, levels, time) in levels_of {
        let triangles: Vec<String> = levels
            .iter()
            .map(|l| l.triangle_count().to_string())
            .collect();
        let errors: Vec<String> = levels.iter().map(|l| format!("{:.2}", l.error)).collect();
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} ms |",
            triangles.join(" / "),
            errors.join(" / "),
            ms(time.as_secs_f64() * 1000.0)
        );
    }
    say!("{out}");
    say!("{}", report::markdown(rows));
    let sizes_said: Vec<String> = sizes.iter().map(|&n| count(n as u64)).collect();
    say!(
        "Horizon: {} resident members in one crowd on a square field, the camera at head \
         height at one edge looking across (targets: vertex-shader runs at most 0.3× and frame \
         time at most 0.5× of full detail). Close: {CLOSE} members all within the distance \
         where the first coarser level would be chosen (target: frame within 1.05×: levels \
         cost nothing). Frame ratios round by round: median (smallest–largest round).\n",
        sizes_said.join(" and ")
    );
    let mut out = String::from(
        "| scene | model | path | members per level (levels on) | VS levels/full | frame levels/full \
         | frame CPU-work levels/full |\n|---|---|---|---|---:|---:|---:|\n",
    );
    let scenes = sizes
        .iter()
        .map(|&n| ("horizon", n))
        .chain([("close", CLOSE)]);
    for (scene, instances) in scenes {
        for (label, ..) in levels_of {
            for path in ["gpu", "resident"] {
                let find = |suffix: &str| find(rows, label, instances, &format!("{path}{suffix}"));
                let (Some(full), Some(lod)) = (find(UPLOADS[0].0), find(UPLOADS[1].0)) else {
                    continue;
                };
                if !rows.iter().any(|r| r.section == scene && r.model == *label) {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "| {scene}, {} | {label} | {path} | {} | {} | {} | {} |",
                    count(instances as u64),
                    per_level(lod),
                    lod.vs_invocations
                        .zip(full.vs_invocations)
                        .map_or("—".into(), |(a, b)| ratio(a as f64, b as f64)),
                    ratio_spread(&lod.frame_rounds, &full.frame_rounds),
                    lod.frame_cpu_ms
                        .zip(full.frame_cpu_ms)
                        .map_or("—".into(), |(a, b)| ratio(a.median, b.median)),
                );
            }
        }
    }
    say!("{out}");
    say!(
        "GPU memory per member of the horizon crowds: the member records, and what the view \
         keeps of them (visible records, work words), room to grow included \
         (`Md2Crowd::gpu_bytes` + `low_level::crowd_view_bytes`; target: at most 160 bytes).\n"
    );
    let mut out =
        String::from("| model | members | upload | bytes per member |\n|---|---:|---|---:|\n");
    for &n in sizes {
        for (label, ..) in levels_of {
            for (suffix, _) in UPLOADS {
                let Some(m) = find(rows, label, n, &format!("resident{suffix}")) else {
                    continue;
                };
                let Some(bytes) = m.member_gpu_bytes else {
                    continue;
                };
                let _ = writeln!(
                    out,
                    "| {label} | {} | {} | {:.1} |",
                    count(n as u64),
                    suffix.trim_start_matches(", "),
                    bytes as f64 / n as f64
                );
            }
        }
    }
    say!("{out}");
    report::print_checks("the close scene: levels must not change it", checks);
}

/// "12 / 340 / 1,200 / 38,000".
fn per_level(m: &Measured) -> String {
    m.per_level.map_or("—".into(), |levels| {
        levels[..MAX_LEVELS]
            .iter()
            .map(|&c| count(u64::from(c)))
            .collect::<Vec<_>>()
            .join(" / ")
    })
}
