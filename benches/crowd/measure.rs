//! Drawing and timing frames: strategies take turns frame by frame, so a
//! machine whose load changes over the run weighs on every one alike; one
//! more frame per strategy, untimed, counts its vertex-shader invocations
//! and is read back for the picture check.

use image::RgbaImage;
use md2_wgpu::contract::MAX_LEVELS;

use crate::Bench;
use crate::clock::{self, Mark};
use crate::gpu::{Gpu, GpuSplit, Target};
use crate::report::{Measured, Row, Summary};
use crate::scene::{BenchModel, Scene};
use crate::strategies::Strategy;

/// A strategy to measure.
pub struct Entry {
    pub label: String,
    /// Strategies with the same look draw the same picture (up to
    /// rounding); `None` for one that draws nothing worth comparing.
    pub look: Option<&'static str>,
    pub strategy: Result<Box<dyn Strategy>, String>,
}

impl Entry {
    pub fn new<S: Strategy + 'static>(
        label: impl Into<String>,
        look: Option<&'static str>,
        strategy: Result<S, String>,
    ) -> Entry {
        Entry {
            label: label.into(),
            look,
            strategy: strategy.map(|s| Box::new(s) as Box<dyn Strategy>),
        }
    }
}

/// What measuring one entry gave.
pub struct Run {
    pub label: String,
    pub look: Option<&'static str>,
    pub outcome: Result<Measured, String>,
    pub picture: Option<RgbaImage>,
}

/// One frame's timings, in milliseconds.
struct Sample {
    frame: f64,
    cpu: f64,
    renderer_cpu: f64,
    cpu_wall: f64,
    finish: f64,
    submit: f64,
    frame_cpu: Option<f64>,
    uploaded: u64,
    split: GpuSplit,
}

#[derive(Default)]
struct Samples {
    frame: Vec<f64>,
    cpu: Vec<f64>,
    renderer_cpu: Vec<f64>,
    cpu_wall: Vec<f64>,
    finish: Vec<f64>,
    submit: Vec<f64>,
    frame_cpu: Vec<f64>,
    gpu_compute: Vec<f64>,
    gpu_draws: Vec<f64>,
    most_uploaded: u64,
}

impl Samples {
    fn push(&mut self, s: Sample) {
        self.frame.push(s.frame);
        self.cpu.push(s.cpu);
        self.renderer_cpu.push(s.renderer_cpu);
        self.cpu_wall.push(s.cpu_wall);
        self.finish.push(s.finish);
        self.submit.push(s.submit);
        self.frame_cpu.extend(s.frame_cpu);
        self.gpu_compute.extend(s.split.compute);
        self.gpu_draws.extend(s.split.draws);
        self.most_uploaded = self.most_uploaded.max(s.uploaded);
    }
}

/// Draws simulated frame `frame` with `strategy`, submits it, waits for
/// the GPU, and times each part.
fn time_frame(
    gpu: &Gpu,
    target: &Target,
    strategy: &mut dyn Strategy,
    frame: u64,
) -> Result<Sample, String> {
    let start = Mark::now();
    strategy.animate(frame);
    let mut encoder = gpu
        .device()
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("md2-wgpu crowd bench frame"),
        });
    target.mark(&mut encoder, 0);
    let prepare_start = Mark::now();
    strategy.prepare(gpu, &mut encoder, frame)?;
    let prepare_end = Mark::now();
    target.mark(&mut encoder, 1);
    let (draw_start, draw_end);
    {
        let mut pass = target.begin(&mut encoder, strategy.motion_target());
        draw_start = Mark::now();
        strategy.draw(&mut pass);
        draw_end = Mark::now();
    }
    target.resolve(&mut encoder);
    let finish_start = Mark::now();
    let commands = encoder.finish();
    let submit_start = Mark::now();
    let process_start = clock::process();
    let index = gpu.queue().submit([commands]);
    let submitted = Mark::now();
    gpu.wait(index)?;
    let done = Mark::now();
    let process_end = clock::process();
    if let Some(e) = gpu.take_uncaptured() {
        return Err(e);
    }
    // Read after the timed spans: mapping the timestamps costs nothing
    // measured.
    let split = target.split(gpu);
    Ok(Sample {
        frame: submit_start.wall_ms(&done),
        cpu: start.cpu_ms(&submitted),
        renderer_cpu: prepare_start.cpu_ms(&prepare_end) + draw_start.cpu_ms(&draw_end),
        cpu_wall: start.wall_ms(&submitted),
        finish: finish_start.cpu_ms(&submit_start),
        submit: submit_start.cpu_ms(&submitted),
        frame_cpu: clock::ms_between(process_start, process_end),
        uploaded: strategy.uploaded_bytes(),
        split,
    })
}

/// Draws one frame with `strategy`, untimed (to set a scene up).
pub fn draw_once(
    gpu: &Gpu,
    target: &Target,
    strategy: &mut dyn Strategy,
    frame: u64,
) -> Result<(), String> {
    time_frame(gpu, target, strategy, frame).map(drop)
}

/// What the last frame of a run shows.
struct Final {
    invocations: Option<u64>,
    picture: Option<RgbaImage>,
    visible: Option<u32>,
    per_level: Option<[u32; MAX_LEVELS]>,
}

/// The last frame: counted, read back, and asked what it found in view.
fn final_frame(
    gpu: &Gpu,
    target: &Target,
    strategy: &mut dyn Strategy,
    frame: u64,
    picture: bool,
) -> Result<Final, String> {
    strategy.animate(frame);
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    strategy.prepare(gpu, &mut encoder, frame)?;
    let invocations =
        target.count_vertex_invocations(gpu, encoder, strategy.motion_target(), |pass| {
            strategy.draw(pass)
        })?;
    let picture = if picture {
        Some(target.read(gpu)?)
    } else {
        None
    };
    let visible = strategy.visible_members(gpu);
    let per_level = strategy.drawn_per_level(gpu);
    if let Some(e) = gpu.take_uncaptured() {
        return Err(e);
    }
    Ok(Final {
        invocations,
        picture,
        visible,
        per_level,
    })
}

/// `entries` measured interleaved (at most two warm-up frames, then
/// `frames`): each run a row of `section` for `model`, with the member
/// count `instances` gives it, in order.
pub fn measure_rows(
    bench: &crate::Bench,
    (section, model): (&'static str, &str),
    entries: Vec<Entry>,
    instances: impl IntoIterator<Item = usize>,
    frames: usize,
) -> Vec<crate::report::Row> {
    let runs = measure(
        &bench.gpu,
        &bench.target,
        entries,
        bench.warmup.min(2),
        frames,
    );
    runs.into_iter()
        .zip(instances)
        .map(|(run, instances)| crate::report::Row {
            section,
            model: model.to_owned(),
            instances,
            strategy: run.label,
            outcome: run.outcome,
        })
        .collect()
}

/// Draws `warmup + frames` frames with every entry, taking turns frame by
/// frame, then the counted frame; summarises the measured frames.
pub fn measure(
    gpu: &Gpu,
    target: &Target,
    entries: Vec<Entry>,
    warmup: usize,
    frames: usize,
) -> Vec<Run> {
    let mut runs: Vec<(Entry, Samples)> = entries
        .into_iter()
        .map(|e| {
            let strategy = e
                .strategy
                .and_then(|s| gpu.take_uncaptured().map_or(Ok(s), Err));
            (Entry { strategy, ..e }, Samples::default())
        })
        .collect();
    let total = warmup + frames;
    let count = runs.len();
    for frame in 0..total {
        // Each frame starts with the next strategy, so none always follows
        // the same other one (whose memory traffic it would inherit).
        for turn in 0..count {
            let (entry, samples) = &mut runs[(frame + turn) % count];
            let Ok(strategy) = &mut entry.strategy else {
                continue;
            };
            match time_frame(gpu, target, strategy.as_mut(), frame as u64) {
                Ok(sample) if frame >= warmup => samples.push(sample),
                Ok(_) => {}
                // Dropping the strategy frees its memory for the others.
                Err(e) => entry.strategy = Err(e),
            }
        }
    }
    runs.into_iter()
        .map(|(entry, samples)| {
            let mut picture = None;
            let outcome = entry.strategy.and_then(|mut strategy| {
                let last = final_frame(
                    gpu,
                    target,
                    strategy.as_mut(),
                    total as u64,
                    entry.look.is_some(),
                )?;
                picture = last.picture;
                let summary =
                    |s: &[f64]| Summary::of(s).ok_or_else(|| "no measured frames".to_string());
                Ok(Measured {
                    frame_ms: summary(&samples.frame)?,
                    cpu_ms: summary(&samples.cpu)?,
                    renderer_cpu_ms: summary(&samples.renderer_cpu)?,
                    cpu_wall_ms: summary(&samples.cpu_wall)?,
                    finish_ms: summary(&samples.finish)?,
                    submit_ms: summary(&samples.submit)?,
                    frame_cpu_ms: Summary::of(&samples.frame_cpu),
                    gpu_compute_ms: Summary::of(&samples.gpu_compute),
                    gpu_draws_ms: Summary::of(&samples.gpu_draws),
                    upload_bytes: samples.most_uploaded,
                    gpu_model_bytes: strategy.gpu_model_bytes(),
                    member_gpu_bytes: strategy.member_gpu_bytes(),
                    vs_invocations: last.invocations,
                    visible: last.visible,
                    per_level: last.per_level,
                    frame_rounds: samples.frame,
                    cpu_rounds: samples.cpu,
                })
            });
            Run {
                label: entry.label,
                look: entry.look,
                outcome,
                picture,
            }
        })
        .collect()
}

/// Compares every picture with the first of the same look: what each
/// covered (the clear colour or not) and, where both covered a pixel, how
/// far its colour is; so a strategy cannot look fast by drawing less.
/// Returns one line per compared picture.
pub fn check_pictures(runs: &[Run]) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let (Some(look), Some(picture)) = (run.look, &run.picture) else {
            continue;
        };
        let Some(reference) = runs[..i]
            .iter()
            .find(|r| r.look == Some(look) && r.picture.is_some())
        else {
            continue;
        };
        let Some(expected) = &reference.picture else {
            continue;
        };
        let background = expected.get_pixel(0, 0).0;
        let covered = |p: &image::Rgba<u8>| p.0 != background;
        let (mut differing, mut both, mut difference) = (0usize, 0usize, 0u64);
        for (a, b) in expected.pixels().zip(picture.pixels()) {
            match (covered(a), covered(b)) {
                (true, true) => {
                    both += 1;
                    difference += (0..3)
                        .map(|c| u64::from(a.0[c].abs_diff(b.0[c])))
                        .sum::<u64>();
                }
                (false, false) => {}
                _ => differing += 1,
            }
        }
        let pixels = f64::from(expected.width() * expected.height());
        lines.push(format!(
            "{} vs {}: {:.3}% of pixels covered by one and not the other; \
             mean |ΔRGB| {:.2} (of 255) where both cover",
            run.label,
            reference.label,
            differing as f64 * 100.0 / pixels,
            difference as f64 / (3.0 * both.max(1) as f64),
        ));
    }
    lines
}

/// A section's rows and picture-check lines, gathered run by run.
#[derive(Default)]
pub struct Table {
    pub rows: Vec<Row>,
    pub checks: Vec<String>,
}

impl Table {
    /// Adds `runs` (of `model` × `instances`) as rows of `section`, and
    /// their picture checks.
    pub fn add(&mut self, section: &'static str, model: &str, instances: usize, runs: Vec<Run>) {
        for line in check_pictures(&runs) {
            self.checks.push(format!("- {model} × {instances}: {line}"));
        }
        self.rows.extend(runs.into_iter().map(|run| Row {
            section,
            model: model.to_string(),
            instances,
            strategy: run.label,
            outcome: run.outcome,
        }));
    }
}

/// Measures, for every model, the entries `entries_of` makes of it and its
/// crowd of `n` members in one interleaved run, as rows of `section`: a
/// section that compares its strategies at one crowd size.
pub fn per_model(
    bench: &Bench,
    section: &'static str,
    models: &[BenchModel],
    n: usize,
    mut entries_of: impl FnMut(&BenchModel, &Scene) -> Result<Vec<Entry>, String>,
) -> Result<Table, String> {
    let mut table = Table::default();
    for model in models {
        eprintln!("{section}: {} × {n} ...", model.label);
        let entries = entries_of(model, &model.crowd(n)?)?;
        let runs = measure(
            &bench.gpu,
            &bench.target,
            entries,
            bench.warmup,
            bench.frames,
        );
        table.add(section, &model.label, n, runs);
    }
    Ok(table)
}
