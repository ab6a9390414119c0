//! The main comparison: the crate's two paths against the CPU-interpolation
//! way and the decode-free limit, every member in view, at each crowd size.

use std::fmt::Write as _;
use std::path::Path;

use crate::Bench;
use crate::baselines::{Baseline, Source};
use crate::figures::say;
use crate::measure::{self, Entry, Table};
use crate::morph::{Morph, Weights};
use crate::report::{self, Measured, Row, find, ms, ratio, ratio_spread, verdict};
use crate::scene::{BenchModel, Scene};
use crate::strategies::{Immediate, Resident, ResidentDraw, upload};

/// Which strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Gpu,
    Resident,
    Cpu,
    Static,
    MorphLoop,
    MorphPair,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Gpu,
        Kind::Resident,
        Kind::Cpu,
        Kind::Static,
        Kind::MorphLoop,
        Kind::MorphPair,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Gpu => "gpu",
            Kind::Resident => "resident",
            Kind::Cpu => "cpu",
            Kind::Static => "static",
            Kind::MorphLoop => "morph-loop",
            Kind::MorphPair => "morph-pair",
        }
    }

    fn entry(self, bench: &Bench, model: &BenchModel, scene: &Scene) -> Entry {
        let (gpu, cache) = (&bench.gpu, &bench.cache);
        let gpu_model = || upload(gpu, cache, model);
        // Every picture shows the same crowd in the same poses, except
        // static's (frame a, not interpolated): compared all the same, it
        // shows what a strategy that drew less would look like.
        let look = Some("every member");
        let morph = |weights| {
            Entry::new(
                self.name(),
                look,
                gpu_model().and_then(|m| Morph::new(gpu, cache, &model.model, m, scene, weights)),
            )
        };
        let baseline = |source| {
            Entry::new(
                self.name(),
                look,
                gpu_model().and_then(|m| Baseline::new(gpu, cache, &model.model, m, scene, source)),
            )
        };
        match self {
            Kind::Gpu => Entry::new(
                self.name(),
                look,
                gpu_model().and_then(|m| Immediate::new(gpu, cache, m, scene)),
            ),
            Kind::Resident => Entry::new(
                self.name(),
                look,
                gpu_model()
                    .and_then(|m| Resident::new(gpu, cache, m, scene, true, ResidentDraw::All)),
            ),
            Kind::MorphLoop => morph(Weights::Loop),
            Kind::MorphPair => morph(Weights::Pair),
            Kind::Cpu => baseline(Source::Posed),
            Kind::Static => baseline(Source::Static),
        }
    }
}

/// Measures `kinds` at every crowd size for every model; prints the table,
/// the ratios and the targets at `target` instances.
pub fn run(
    bench: &Bench,
    models: &[BenchModel],
    instances: &[usize],
    kinds: &[Kind],
    target: usize,
    png: Option<&Path>,
) -> Result<Vec<Row>, String> {
    let mut table = Table::default();
    for model in models {
        for &n in instances {
            eprintln!("compare: {} × {n} ...", model.label);
            let scene = model.crowd(n)?;
            let entries = kinds
                .iter()
                .map(|k| k.entry(bench, model, &scene))
                .collect();
            let runs = measure::measure(
                &bench.gpu,
                &bench.target,
                entries,
                bench.warmup,
                bench.frames,
            );
            if let Some(dir) = png {
                save_pictures(dir, &format!("{}-{n}", model.label), &runs)?;
            }
            table.add("compare", &model.label, n, runs);
        }
    }
    let Table { rows, checks } = table;
    say!("## Every member in view: the crate's paths against the baselines\n");
    say!("{}", report::markdown(&rows));
    say!("{}", ratios(&rows));
    report::print_checks(
        "each strategy's last frame against the first strategy's",
        &checks,
    );
    say!("{}", targets(&rows, models, target));
    Ok(rows)
}

/// Writes each run's last frame into `dir`.
pub fn save_pictures(dir: &Path, name: &str, runs: &[measure::Run]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for run in runs {
        if let Some(picture) = &run.picture {
            let file = format!("crowd-{name}-{}.png", run.label.replace([' ', ','], "-"));
            let path = dir.join(file);
            picture
                .save(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The ratios between strategies, per (model, instances). Frame and CPU
/// ratios are taken round by round (the strategies draw each round in turn,
/// under the same load): the median, and the smallest and largest round.
fn ratios(rows: &[Row]) -> String {
    let mut out = String::from(
        "| model | instances | CPU cpu/gpu | frame cpu/gpu | frame gpu/static \
         | frame CPU-work gpu/static | frame resident/gpu | CPU resident/gpu \
         | renderer CPU resident/gpu | upload cpu/gpu | vertex data static/gpu \
         | frame morph-loop/gpu | frame morph-pair/gpu | vertex data morph/gpu |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for row in rows {
        let key = (row.model.as_str(), row.instances);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let find = |s| find(rows, key.0, key.1, s);
        let (gpu, resident, cpu, stat) =
            (find("gpu"), find("resident"), find("cpu"), find("static"));
        let (morph_loop, morph_pair) = (find("morph-loop"), find("morph-pair"));
        let pair = |a: Option<&Measured>, b: Option<&Measured>, f: fn(&Measured) -> f64| {
            a.zip(b)
                .map_or_else(|| "—".to_string(), |(a, b)| ratio(f(a), f(b)))
        };
        let rounds = |a: Option<&Measured>, b: Option<&Measured>, f: fn(&Measured) -> &[f64]| {
            a.zip(b)
                .map_or_else(|| "—".to_string(), |(a, b)| ratio_spread(f(a), f(b)))
        };
        fn frames(m: &Measured) -> &[f64] {
            &m.frame_rounds
        }
        fn cpus(m: &Measured) -> &[f64] {
            &m.cpu_rounds
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            key.0,
            key.1,
            rounds(cpu, gpu, cpus),
            rounds(cpu, gpu, frames),
            rounds(gpu, stat, frames),
            pair(gpu, stat, |m| m.frame_cpu_ms.map_or(f64::NAN, |s| s.median)),
            rounds(resident, gpu, frames),
            rounds(resident, gpu, cpus),
            pair(resident, gpu, |m| m.renderer_cpu_ms.median),
            pair(cpu, gpu, |m| m.upload_bytes as f64),
            pair(stat, gpu, |m| m.gpu_model_bytes as f64),
            rounds(morph_loop, gpu, frames),
            rounds(morph_pair, gpu, frames),
            pair(morph_pair, gpu, |m| m.gpu_model_bytes as f64),
        );
    }
    out
}

/// The issues' targets with every member in view, at `n` instances.
fn targets(rows: &[Row], models: &[BenchModel], n: usize) -> String {
    let mut out = String::new();
    for model in models {
        let label = model.label.as_str();
        let find = |s| find(rows, label, n, s);
        let (gpu, resident, cpu, stat) =
            (find("gpu"), find("resident"), find("cpu"), find("static"));
        if gpu.is_none() {
            let _ = writeln!(
                out,
                "Targets, {label}: not evaluated ({n} instances was not measured with gpu).\n"
            );
            continue;
        }
        let _ = writeln!(
            out,
            "Targets at {n} instances, every member in view, {label}:"
        );
        if let Some((c, g)) = cpu.zip(gpu) {
            let r = c.cpu_ms.median / g.cpu_ms.median;
            let _ = writeln!(
                out,
                "- gpu: CPU time per frame >= 50× below cpu: {r:.1}× ({} ms vs {} ms): {}",
                ms(g.cpu_ms.median),
                ms(c.cpu_ms.median),
                verdict(r >= 50.0)
            );
            // The frame's CPU time also holds the application's clock
            // sampling and wgpu's fixed cost per frame (finish, submit):
            // the renderers' own parts say what each way of drawing costs.
            let _ = writeln!(
                out,
                "  renderer parts alone: {} (gpu's prepare + render {} ms, cpu's interpolation \
                 + upload + draw {} ms); gpu's frame also holds finish {} ms and submit {} ms",
                ratio(c.renderer_cpu_ms.median, g.renderer_cpu_ms.median),
                ms(g.renderer_cpu_ms.median),
                ms(c.renderer_cpu_ms.median),
                ms(g.finish_ms.median),
                ms(g.submit_ms.median),
            );
        }
        if let Some((g, s)) = gpu.zip(stat) {
            let r = g.frame_ms.median / s.frame_ms.median;
            let _ = writeln!(
                out,
                "- gpu: frame time within 1.25× of static: {r:.2}× ({} ms vs {} ms): {}",
                ms(g.frame_ms.median),
                ms(s.frame_ms.median),
                verdict(r <= 1.25)
            );
            // Both run the vertex shader equally often: any gap is the
            // work per invocation (the decode and the blend of two frames).
            let _ = writeln!(
                out,
                "  VS invocations gpu/static {}, frame CPU-work gpu/static {}",
                g.vs_invocations
                    .zip(s.vs_invocations)
                    .map_or("—".into(), |(a, b)| ratio(a as f64, b as f64)),
                g.frame_cpu_ms
                    .zip(s.frame_cpu_ms)
                    .map_or("—".into(), |(a, b)| ratio(a.median, b.median)),
            );
            // Every frame of every vertex, packed as the file has it.
            let cells = model.model.vertices().len() as f64;
            let per = g.gpu_model_bytes as f64 / cells;
            let r = s.gpu_model_bytes as f64 / g.gpu_model_bytes as f64;
            let _ = writeln!(
                out,
                "- gpu: vertex data 4 bytes per vertex per frame, 6× less than static: \
                 {per} bytes, {r:.2}× less ({} vs {}): {}",
                report::bytes(g.gpu_model_bytes),
                report::bytes(s.gpu_model_bytes),
                verdict(per == 4.0 && r >= 6.0)
            );
        }
        if let Some((r, g)) = resident.zip(gpu) {
            let x = r.frame_ms.median / g.frame_ms.median;
            let _ = writeln!(
                out,
                "- resident: frame time within 1.1× of gpu: {x:.2}× ({} ms vs {} ms; frame \
                 CPU-work {}): {}",
                ms(r.frame_ms.median),
                ms(g.frame_ms.median),
                r.frame_cpu_ms
                    .zip(g.frame_cpu_ms)
                    .map_or("—".into(), |(a, b)| ratio(a.median, b.median)),
                verdict(x <= 1.1)
            );
        }
        out.push('\n');
    }
    out
}
