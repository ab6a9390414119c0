//! The resident crowd's own targets: what culling saves when the camera
//! sees a tenth of the crowd, and a steady-state frame whose CPU cost and
//! upload do not grow with the crowd.

use std::fmt::Write as _;

use crate::Bench;
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::report::{self, Measured, Row, find, ms, ratio, verdict};
use crate::scene::{BenchModel, Scene};
use crate::strategies::{Idle, Immediate, Resident, ResidentDraw, Strategy, upload};

/// The share of the crowd the culling scene's camera sees.
const TENTH: f64 = 0.1;
/// The flat scene's camera frames a patch this wide around the middle of
/// the crowd (five members across; the frustum catches more behind it),
/// whatever the crowd's size.
const PATCH: f32 = 240.0;

const RESIDENT: &str = "resident";
const NO_CULLING: &str = "resident, no culling";
const COMPUTE_ONLY: &str = "resident, compute only";
const GPU: &str = "gpu";
const EMPTY: &str = "empty frame";

fn resident(
    bench: &Bench,
    model: &BenchModel,
    scene: &Scene,
    culling: bool,
    draw: ResidentDraw,
) -> Result<Resident, String> {
    upload(&bench.gpu, &bench.cache, model)
        .and_then(|m| Resident::new(&bench.gpu, &bench.cache, m, scene, culling, draw))
}

/// `scene` seen through a camera that frames the middle of the crowd,
/// narrowed until the crowd's own culling finds about `share` of the
/// members in view (asked of the GPU, so the scene is what the culling
/// sees).
fn camera_seeing(
    bench: &Bench,
    model: &BenchModel,
    scene: &Scene,
    share: f64,
) -> Result<Scene, String> {
    let mut probe = resident(bench, model, scene, true, ResidentDraw::ComputeOnly)?;
    let wanted = share * scene.members.len() as f64;
    let (mut lo, mut hi) = (0.0f32, scene.extent());
    let mut best = (scene.clone(), u32::MAX);
    for _ in 0..14 {
        let side = (lo + hi) * 0.5;
        let candidate = scene.framing_middle(side);
        probe.set_camera(candidate.camera);
        measure::draw_once(&bench.gpu, &bench.target, &mut probe, 0)?;
        let visible = probe
            .visible_members(&bench.gpu)
            .ok_or("the crowd's visible count could not be read")?;
        if (f64::from(visible) - wanted).abs() < (f64::from(best.1) - wanted).abs() {
            best = (candidate, visible);
        }
        if f64::from(visible) < wanted {
            lo = side;
        } else {
            hi = side;
        }
    }
    Ok(best.0)
}

/// The culling scene at `n` instances for every model.
pub fn run_tenth(bench: &Bench, models: &[BenchModel], n: usize) -> Result<Vec<Row>, String> {
    let Table { rows, checks } = measure::per_model(bench, "culling", models, n, |model, full| {
        let scene = camera_seeing(bench, model, full, TENTH)?;
        let (gpu, cache) = (&bench.gpu, &bench.cache);
        let look = Some("a tenth in view");
        Ok(vec![
            Entry::new(
                RESIDENT,
                look,
                resident(bench, model, &scene, true, ResidentDraw::All),
            ),
            Entry::new(
                NO_CULLING,
                look,
                resident(bench, model, &scene, false, ResidentDraw::All),
            ),
            Entry::new(
                COMPUTE_ONLY,
                None,
                resident(bench, model, &scene, true, ResidentDraw::ComputeOnly),
            ),
            Entry::new(
                GPU,
                look,
                upload(gpu, cache, model).and_then(|m| Immediate::new(gpu, cache, m, &scene)),
            ),
        ])
    })?;
    say!("## A tenth of the crowd in view: what the resident crowd's culling saves\n");
    say!(
        "The camera frames the middle of the crowd, narrowed until the crowd's culling finds \
         about a tenth of it in view. \"no culling\" draws every member (the frustum clips \
         them); \"compute only\" records the crowd's compute pass and no draw; gpu is the \
         immediate path, which does not cull.\n"
    );
    say!("{}", report::markdown(&rows));
    report::print_checks("culling must keep every visible pixel", &checks);
    let mut out = String::new();
    for model in models {
        let find = |s| find(&rows, &model.label, n, s);
        let (Some(culled), Some(all)) = (find(RESIDENT), find(NO_CULLING)) else {
            continue;
        };
        let _ = writeln!(out, "Targets with a tenth in view, {} × {n}:", model.label);
        let share = culled.visible.map_or(f64::NAN, |v| f64::from(v) / n as f64);
        let _ = writeln!(out, "- in view: {:.1}% of the crowd", share * 100.0);
        match culled.vs_invocations.zip(all.vs_invocations) {
            Some((c, a)) => {
                let r = c as f64 / a as f64;
                let _ = writeln!(
                    out,
                    "- VS invocations <= 0.12× of the same crowd without culling: {r:.3}× \
                     ({} vs {}): {}",
                    report::count(c),
                    report::count(a),
                    verdict(r <= 0.12)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "- VS invocations: not measured (the adapter has no pipeline statistics)"
                );
            }
        }
        let r = culled.frame_ms.median / all.frame_ms.median;
        let _ = writeln!(
            out,
            "- frame time <= 0.25× of the same crowd without culling: {r:.3}× ({} ms vs {} \
             ms): {}",
            ms(culled.frame_ms.median),
            ms(all.frame_ms.median),
            verdict(r <= 0.25)
        );
        if let Some(compute) = find(COMPUTE_ONLY) {
            let _ = writeln!(
                out,
                "  of the culled frame, {} ms ({:.0}%) is the frame without its draw (compute \
                 pass, clears, submit); the draw of the visible tenth adds {} ms",
                ms(compute.frame_ms.median),
                100.0 * compute.frame_ms.median / culled.frame_ms.median,
                ms(culled.frame_ms.median - compute.frame_ms.median),
            );
        }
        out.push('\n');
    }
    say!("{out}");
    Ok(rows)
}

/// The steady-state frame at each of `sizes` (the camera sees the same few
/// members at every size): CPU time and upload against crowd size, beside
/// an empty frame (the benchmark's own encoder, pass, finish and submit).
pub fn run_flat(
    bench: &Bench,
    model: &BenchModel,
    sizes: &[usize],
    frames: usize,
) -> Result<Vec<Row>, String> {
    let mut entries = vec![Entry::new(EMPTY, None, Ok(Idle))];
    for &n in sizes {
        eprintln!("flat: {} × {n} (setting up) ...", model.label);
        let scene = model.crowd(n)?.framing_middle(PATCH);
        let strategy = resident(bench, model, &scene, true, ResidentDraw::All);
        // A crowd holds what one storage binding can: past that, several.
        let crowds = match &strategy {
            Ok(r) if r.crowd_count() > 1 => format!(" ({} crowds)", r.crowd_count()),
            _ => String::new(),
        };
        let label = format!("{RESIDENT} × {}{crowds}", report::count(n as u64));
        entries.push(Entry::new(label, None, strategy));
    }
    eprintln!("flat: measuring ...");
    let instances = std::iter::once(0).chain(sizes.iter().copied());
    let section = ("flat", model.label.as_str());
    let rows = measure::measure_rows(bench, section, entries, instances, frames);
    say!("## Steady state: the resident crowd's CPU cost and upload against its size\n");
    say!(
        "Members added once; every frame after the warm-up only advances the clock. The \
         camera frames the same patch ({PATCH} units across) in the middle of every crowd, \
         so the draw is the same size and only the compute pass grows. A crowd holds what \
         one storage binding of the device can; larger ones are split into several. \
         \"{EMPTY}\" is the benchmark's frame without a renderer: a command encoder, a \
         pass that clears the target, `finish` and the submit.\n"
    );
    say!("{}", report::markdown(&rows));
    say!("{}", flat_targets(&rows, &model.label));
    Ok(rows)
}

/// The steady-state targets, with the CPU time taken apart.
fn flat_targets(rows: &[Row], model: &str) -> String {
    let empty = rows
        .iter()
        .find(|r| r.strategy == EMPTY)
        .and_then(Row::measured);
    let measured: Vec<(usize, &Measured)> = rows
        .iter()
        .filter(|r| r.strategy != EMPTY)
        .filter_map(|r| Some((r.instances, r.measured()?)))
        .collect();
    let mut out = format!("Targets, resident steady state, {model}:\n");
    for (n, m) in &measured {
        let n = report::count(*n as u64);
        let _ = writeln!(
            out,
            "- {n} members: CPU per frame <= 0.05 ms: {} ms: {}",
            ms(m.cpu_ms.median),
            verdict(m.cpu_ms.median <= 0.05),
        );
        let _ = writeln!(
            out,
            "  - the crate's calls (prepare, prepare_crowds, render): {} ms: {}",
            ms(m.renderer_cpu_ms.median),
            verdict(m.renderer_cpu_ms.median <= 0.05),
        );
        let _ = writeln!(
            out,
            "  - finish {} ms (wgpu validates the recorded passes and encodes them for the \
             driver), submit {} ms, the rest (encoder, pass, clocks) {} ms",
            ms(m.finish_ms.median),
            ms(m.submit_ms.median),
            ms(m.cpu_ms.median
                - m.renderer_cpu_ms.median
                - m.finish_ms.median
                - m.submit_ms.median),
        );
        if let Some(e) = empty {
            let _ = writeln!(
                out,
                "  - an empty frame costs {} ms (finish {} ms, submit {} ms): the crowd adds \
                 {} ms to the frame, {} ms of it in finish and submit",
                ms(e.cpu_ms.median),
                ms(e.finish_ms.median),
                ms(e.submit_ms.median),
                ms(m.cpu_ms.median - e.cpu_ms.median),
                ms(m.finish_ms.median + m.submit_ms.median
                    - e.finish_ms.median
                    - e.submit_ms.median),
            );
        }
        let _ = writeln!(
            out,
            "- {n} members: upload <= 256 bytes per frame: {} bytes: {}",
            m.upload_bytes,
            verdict(m.upload_bytes <= 256)
        );
    }
    let smallest = measured.iter().min_by_key(|(n, _)| *n);
    let largest = measured.iter().max_by_key(|(n, _)| *n);
    if let (Some((a, small)), Some((b, large))) = (smallest, largest)
        && a != b
    {
        let (a, b) = (report::count(*a as u64), report::count(*b as u64));
        for (what, f) in [
            (
                "CPU",
                (|m: &Measured| m.cpu_ms.median) as fn(&Measured) -> f64,
            ),
            ("the crate's calls", |m: &Measured| m.renderer_cpu_ms.median),
        ] {
            let r = f(large) / f(small);
            let _ = writeln!(
                out,
                "- {what} flat, {b} vs {a} members within 2×: {} ({} ms vs {} ms): {}",
                ratio(f(large), f(small)),
                ms(f(large)),
                ms(f(small)),
                verdict((0.5..=2.0).contains(&r))
            );
        }
        let _ = writeln!(
            out,
            "- frame time {b} vs {a} members: {} ({} ms vs {} ms; the camera sees {} vs {} \
             members: the difference is the compute pass over every member)",
            ratio(large.frame_ms.median, small.frame_ms.median),
            ms(large.frame_ms.median),
            ms(small.frame_ms.median),
            large
                .visible
                .map_or("—".into(), |v| report::count(v.into())),
            small
                .visible
                .map_or("—".into(), |v| report::count(v.into())),
        );
    }
    out
}
