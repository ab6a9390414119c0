//! Headless crowd benchmark: the crate's GPU decode and interpolation
//! against the CPU-interpolation way and the decode-free limit, in one run,
//! on one adapter.
//!
//! ```text
//! cargo bench --bench crowd [-- --instances 1000,4000,16000 --frames 60 --json PATH]
//! ```
//!
//! Every strategy draws the same crowd into a 1280×720 sRGB target with a
//! depth buffer: each member with its own animation, phase, place, heading,
//! skin and tint (seeded, so runs agree), the camera framing them all. See
//! `crowd/strategies.rs` for the three strategies. The strategies take turns
//! frame by frame; after warm-up frames each frame is timed for:
//!
//! - CPU time: everything the application thread does for the frame, from
//!   animating the crowd to the return of `queue.submit`, on the thread's
//!   own CPU clock (time the thread was preempted does not count);
//! - frame time: from the submit to the GPU having finished, waited for with
//!   `device.poll`, wall clock; frames do not overlap;
//! - frame CPU-work: CPU time every thread of the process ran during the
//!   frame time. On a software adapter (lavapipe) that is the rasteriser's
//!   work, which a busy machine inflates far less than the frame time.
//!
//! The last frame of every strategy is read back and compared (what each
//! covered), so a strategy cannot look fast by drawing less.
//!
//! The defaults are sized for a small machine with a software rasteriser
//! (lavapipe on 2 cores: about 2 minutes, most of it drawing); `--help`
//! lists the flags that raise them.

mod clock;
mod gpu;
mod probe;
mod report;
mod scene;
mod strategies;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use gpu::{Gpu, Target};
use report::{Measured, Row, Summary};
use scene::{BenchModel, Crowd};
use strategies::Kind;

/// The crowd's seed: the same crowd in every run and every strategy.
pub const SEED: u64 = 0x6d64_325f_6372_6f77;

const USAGE: &str = "\
usage: cargo bench --bench crowd [-- OPTIONS]

  --instances LIST     crowd sizes, comma-separated (default 1000,4000)
  --frames N           measured frames per run (default 16)
  --warmup N           frames drawn before measuring (default 4)
  --strategies LIST    any of gpu,cpu,static (default all three)
  --models LIST        demo, yohko (../shared/md2/yohko/tris.md2 with
                       Yohko.pcx, skipped when absent) or MD2 paths, each
                       with --skin unless it is demo/yohko (default demo,yohko)
  --skin PATH          the skin for MD2 paths given to --models
  --json PATH          also write the rows as a JSON list
  --png DIR            write each run's last frame as a PNG into DIR
  --probe-max N        scale probe: double from 1,000 up to N (default 1000000)
  --probe-seconds S    stop the probe once a frame takes longer than S seconds
                       (default 10: the next count is twice the work)
  --no-probe           skip the scale probe
  --target N           the instance count the targets are checked at (default 4000)
  --wall-clock         time CPU work by the wall clock only, not the thread's CPU
                       clock (needed under valgrind: rustix#1559)";

struct Options {
    instances: Vec<usize>,
    frames: usize,
    warmup: usize,
    strategies: Vec<Kind>,
    models: Vec<String>,
    skin: Option<PathBuf>,
    json: Option<PathBuf>,
    png: Option<PathBuf>,
    probe: bool,
    probe_max: usize,
    probe_seconds: f64,
    target: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            instances: vec![1000, 4000],
            frames: 16,
            warmup: 4,
            strategies: Kind::ALL.to_vec(),
            models: vec!["demo".into(), "yohko".into()],
            skin: None,
            json: None,
            png: None,
            probe: true,
            probe_max: 1_000_000,
            probe_seconds: 10.0,
            target: 4000,
        }
    }
}

const MAX_INSTANCES: usize = 1_000_000;

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let mut args = args.into_iter();
    let count = |v: &str, what: &str, max: usize| -> Result<usize, String> {
        v.trim()
            .replace('_', "")
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| format!("{what} wants a whole number from 1 to {max}, not {v:?}"))
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            // cargo bench passes --bench to harness = false benchmarks.
            "--bench" => {}
            "-h" | "--help" => return Ok(None),
            "--instances" => {
                o.instances = value()?
                    .split(',')
                    .map(|v| count(v, "--instances", MAX_INSTANCES))
                    .collect::<Result<_, _>>()?;
            }
            "--frames" => o.frames = count(&value()?, "--frames", 100_000)?,
            "--warmup" => {
                let v = value()?;
                o.warmup = v
                    .parse()
                    .map_err(|_| format!("--warmup wants a whole number, not {v:?}"))?;
            }
            "--strategies" => {
                o.strategies = value()?
                    .split(',')
                    .map(|s| {
                        Kind::parse(s.trim())
                            .ok_or_else(|| format!("unknown strategy {s:?} (gpu, cpu, static)"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--models" => o.models = value()?.split(',').map(str::to_string).collect(),
            "--skin" => o.skin = Some(PathBuf::from(value()?)),
            "--json" => o.json = Some(PathBuf::from(value()?)),
            "--png" => o.png = Some(PathBuf::from(value()?)),
            "--probe-max" => o.probe_max = count(&value()?, "--probe-max", MAX_INSTANCES)?,
            "--probe-seconds" => {
                let v = value()?;
                o.probe_seconds =
                    v.parse::<f64>().ok().filter(|s| *s > 0.0).ok_or_else(|| {
                        format!("--probe-seconds wants a positive number, not {v:?}")
                    })?;
            }
            "--no-probe" => o.probe = false,
            "--wall-clock" => clock::disable(),
            "--target" => o.target = count(&value()?, "--target", MAX_INSTANCES)?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(o))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("crowd: {e}\n\n{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("crowd: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load_models(options: &Options) -> Result<Vec<BenchModel>, String> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2");
    let mut models = Vec::new();
    for name in &options.models {
        match name.as_str() {
            "demo" => models.push(BenchModel::demo()),
            "yohko" => {
                let dir = shared.join("yohko");
                let (file, skin) = (dir.join("tris.md2"), dir.join("Yohko.pcx"));
                if file.is_file() && skin.is_file() {
                    models.push(BenchModel::load("yohko", &file, &skin)?);
                } else {
                    eprintln!(
                        "crowd: skipping yohko: {} or its Yohko.pcx is absent",
                        file.display()
                    );
                }
            }
            path => {
                let skin = options
                    .skin
                    .as_ref()
                    .ok_or_else(|| format!("--models {path}: give its skin with --skin"))?;
                let label = Path::new(path)
                    .file_stem()
                    .map_or_else(|| path.to_string(), |s| s.to_string_lossy().into_owned());
                models.push(BenchModel::load(&label, Path::new(path), skin)?);
            }
        }
    }
    if models.is_empty() {
        return Err("no model to draw".into());
    }
    Ok(models)
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
    format!(
        "{cpu}, {threads} hardware threads, {}",
        std::env::consts::OS
    )
}

fn run(options: &Options) -> Result<(), String> {
    let models = load_models(options)?;
    let gpu = Gpu::new()?;
    let adapter = gpu.adapter_label();
    let target = Target::new(&gpu.device);
    println!("# md2-wgpu crowd benchmark\n");
    println!("- adapter: {adapter}");
    println!("- machine: {}", machine());
    if gpu.adapter.device_type == wgpu::DeviceType::Cpu {
        println!(
            "- a software adapter: the \"GPU\" work runs on the same CPU cores, so frame \
             times compare software rasterisers (where vertex shading costs far more, \
             relative to drawing, than on a GPU)"
        );
    }
    for m in &models {
        println!("- model {}", m.describe());
    }
    println!(
        "- {}×{} sRGB + Depth32Float, {} warm-up + {} measured frames per run, \
         simulated clock {} Hz",
        gpu::WIDTH,
        gpu::HEIGHT,
        options.warmup,
        options.frames,
        scene::CLOCK_HZ
    );
    println!(
        "- command: cargo bench --bench crowd -- {}\n",
        reproduce(options)
    );

    let started = Instant::now();
    let mut rows = Vec::new();
    for model in &models {
        let skins = model.skins.len().max(1) as u32;
        for &n in &options.instances {
            let crowd = Crowd::new(&model.model, skins, n, SEED);
            eprintln!("{} × {n} ...", model.label);
            let mut pictures: Vec<(Kind, image::RgbaImage)> = Vec::new();
            for (kind, outcome) in
                measure(&gpu, &target, model, &crowd, &options.strategies, options)
            {
                let outcome = outcome.map(|(m, picture)| {
                    eprintln!(
                        "  {:<6} frame {:.2} ms, CPU {:.3} ms",
                        kind.name(),
                        m.frame_ms.median,
                        m.cpu_ms.median
                    );
                    pictures.push((kind, picture));
                    m
                });
                if let Err(e) = &outcome {
                    eprintln!("  {:<6} failed: {e}", kind.name());
                }
                rows.push(Row {
                    model: model.label.clone(),
                    strategy: kind.name(),
                    instances: n,
                    outcome,
                });
            }
            check_pictures(&pictures, &model.label, n, options.png.as_deref())?;
        }
    }
    let measured_s = started.elapsed().as_secs_f64();

    println!("## Results\n");
    println!("{}", report::markdown(&rows));
    let per_vertex: Vec<(String, f64)> = models
        .iter()
        .map(|m| {
            let cells = m.model.vertex_count() as f64 * f64::from(m.model.frame_count());
            let gpu_bytes = rows
                .iter()
                .find(|r| r.model == m.label && r.strategy == "gpu")
                .and_then(|r| r.outcome.as_ref().ok())
                .map_or(f64::NAN, |g| g.gpu_model_bytes as f64);
            (m.label.clone(), gpu_bytes / cells)
        })
        .collect();
    println!("{}", report::LEGEND);
    println!("{}", report::targets(&rows, options.target, &per_vertex));
    println!("(measured in {measured_s:.0} s)\n");

    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report::json(&rows, &adapter))
            .map_err(|e| format!("encoding JSON: {e}"))?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        println!("JSON: {}\n", path.display());
    }

    if options.probe {
        let model = &models[0];
        let started = Instant::now();
        let probe = probe::run(
            &gpu,
            &target,
            model,
            options.probe_max,
            options.probe_seconds,
        );
        print_probe(
            &probe,
            &model.label,
            options,
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(())
}

/// What a strategy's run gives: its numbers and its last picture.
type Outcome = Result<(Measured, image::RgbaImage), String>;

/// One strategy's run over a crowd: its samples, in milliseconds.
struct Run {
    kind: Kind,
    strategy: Result<Box<dyn strategies::Strategy>, String>,
    frame_ms: Vec<f64>,
    cpu_ms: Vec<f64>,
    cpu_wall_ms: Vec<f64>,
    submit_ms: Vec<f64>,
    frame_cpu_ms: Vec<f64>,
    picture: Option<image::RgbaImage>,
}

/// One frame's timings, in milliseconds.
struct Sample {
    frame: f64,
    cpu: f64,
    cpu_wall: f64,
    submit: f64,
    frame_cpu: Option<f64>,
}

/// Draws one frame with `strategy` and times it.
fn time_frame(
    gpu: &Gpu,
    target: &Target,
    crowd: &Crowd,
    strategy: &mut dyn strategies::Strategy,
    frame: u64,
) -> Result<Sample, String> {
    let start = Instant::now();
    let thread_start = clock::thread();
    let commands = strategy.frame(gpu, target, crowd, frame)?;
    let submit_start = Instant::now();
    let process_start = clock::process();
    let index = gpu.queue.submit([commands]);
    let submitted = Instant::now();
    let thread_end = clock::thread();
    gpu.wait(index)?;
    let done = Instant::now();
    let process_end = clock::process();
    if let Some(e) = gpu.take_uncaptured() {
        return Err(e);
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let cpu_wall = ms(submitted - start);
    Ok(Sample {
        frame: ms(done - submit_start),
        cpu: clock::ms_between(thread_start, thread_end).unwrap_or(cpu_wall),
        cpu_wall,
        submit: ms(submitted - submit_start),
        frame_cpu: clock::ms_between(process_start, process_end),
    })
}

/// Draws `warmup + frames` frames of `crowd` with each strategy in `kinds`,
/// taking turns frame by frame, so a machine whose load changes over the
/// run (a shared one) weighs on every strategy alike. Summarises the
/// measured frames; also returns each strategy's last picture.
fn measure(
    gpu: &Gpu,
    target: &Target,
    model: &BenchModel,
    crowd: &Crowd,
    kinds: &[Kind],
    options: &Options,
) -> Vec<(Kind, Outcome)> {
    let mut runs: Vec<Run> = kinds
        .iter()
        .map(|&kind| {
            let strategy = strategies::build(kind, gpu, model, crowd)
                .and_then(|s| gpu.take_uncaptured().map_or(Ok(s), Err));
            Run {
                kind,
                strategy,
                frame_ms: Vec::with_capacity(options.frames),
                cpu_ms: Vec::with_capacity(options.frames),
                cpu_wall_ms: Vec::with_capacity(options.frames),
                submit_ms: Vec::with_capacity(options.frames),
                frame_cpu_ms: Vec::with_capacity(options.frames),
                picture: None,
            }
        })
        .collect();
    let total = options.warmup + options.frames;
    let count = runs.len();
    for frame in 0..total {
        // Each frame starts with the next strategy, so none always follows
        // the same other one (whose memory traffic it would inherit).
        for turn in 0..count {
            let run = &mut runs[(frame + turn) % count];
            let Ok(strategy) = &mut run.strategy else {
                continue;
            };
            match time_frame(gpu, target, crowd, strategy.as_mut(), frame as u64) {
                Ok(sample) if frame >= options.warmup => {
                    run.frame_ms.push(sample.frame);
                    run.cpu_ms.push(sample.cpu);
                    run.cpu_wall_ms.push(sample.cpu_wall);
                    run.submit_ms.push(sample.submit);
                    run.frame_cpu_ms.extend(sample.frame_cpu);
                }
                Ok(_) => {}
                // Dropping the strategy frees its memory for the others.
                Err(e) => run.strategy = Err(e),
            }
            if frame + 1 == total && run.strategy.is_ok() {
                match target.read(gpu) {
                    Ok(picture) => run.picture = Some(picture),
                    Err(e) => run.strategy = Err(e),
                }
            }
        }
    }
    runs.into_iter()
        .map(|run| {
            let outcome = run.strategy.and_then(|strategy| {
                let summary =
                    |samples: &[f64]| Summary::of(samples).ok_or("no measured frames".to_string());
                let measured = Measured {
                    frame_ms: summary(&run.frame_ms)?,
                    cpu_ms: summary(&run.cpu_ms)?,
                    cpu_wall_ms: summary(&run.cpu_wall_ms)?,
                    submit_ms: summary(&run.submit_ms)?,
                    frame_cpu_ms: Summary::of(&run.frame_cpu_ms),
                    upload_bytes_per_frame: strategy.upload_bytes_per_frame(),
                    gpu_model_bytes: strategy.gpu_model_bytes(),
                };
                let picture = run.picture.ok_or("no picture read back".to_string())?;
                Ok((measured, picture))
            });
            (run.kind, outcome)
        })
        .collect()
}

/// The strategies drew the same crowd in the same poses (`static` in frame
/// a, without interpolation): their last frames are compared, so a
/// strategy that drew less (or nothing) cannot pass for a fast one.
fn check_pictures(
    pictures: &[(Kind, image::RgbaImage)],
    model: &str,
    n: usize,
    png: Option<&Path>,
) -> Result<(), String> {
    if let Some(dir) = png {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (kind, picture) in pictures {
            let path = dir.join(format!("crowd-{model}-{n}-{}.png", kind.name()));
            picture
                .save(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    // Skin colours differ a little (the baselines build their own mip
    // chain), so compare what each covered: the clear colour or not.
    let Some((_, reference)) = pictures.iter().find(|(k, _)| *k == Kind::Gpu) else {
        return Ok(());
    };
    let background = reference.get_pixel(0, 0).0;
    let covered = |p: &image::Rgba<u8>| p.0 != background;
    let gpu_covered = reference.pixels().filter(|p| covered(p)).count();
    let percent = |n: usize| n as f64 * 100.0 / f64::from(gpu::WIDTH * gpu::HEIGHT);
    let mut line = format!(
        "  picture check, {model} × {n}: gpu covers {:.2}% of the frame",
        percent(gpu_covered)
    );
    for (kind, picture) in pictures.iter().filter(|(k, _)| *k != Kind::Gpu) {
        let differing = reference
            .pixels()
            .zip(picture.pixels())
            .filter(|(a, b)| covered(a) != covered(b))
            .count();
        line += &format!(
            "; {} covers {:.2}%, {:.2}% of pixels covered by one and not the other",
            kind.name(),
            percent(picture.pixels().filter(|p| covered(p)).count()),
            percent(differing)
        );
    }
    eprintln!("{line}");
    Ok(())
}

fn print_probe(probe: &probe::Probe, model: &str, options: &Options, seconds: f64) {
    println!("## Scale probe ({model}, gpu strategy, one frame per count)\n");
    println!(
        "Doubling from 1,000 up to {}; each count draws one frame, errors caught by \
         error scopes and the uncaptured-error handler.\n",
        options.probe_max
    );
    println!(
        "| instances | frame (CPU + GPU) ms | instance data | instance buffer | model (all GPU bytes) \
         | total GPU bytes |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for s in &probe.steps {
        println!(
            "| {} | {:.0} | {} | {} | {} | {} |",
            s.instances,
            s.frame_ms,
            report::bytes(s.instances as u64 * strategies::RENDERER_INSTANCE_BYTES),
            report::bytes(s.instance_buffer_bytes),
            report::bytes(s.model_bytes),
            report::bytes(s.gpu_bytes())
        );
    }
    println!();
    let largest = probe.steps.last();
    match (&probe.end, largest) {
        (probe::End::ReachedCap, Some(s)) => println!(
            "Largest count rendered: {} (the cap), using {} of GPU memory \
             ({} instance buffer + {} model).",
            s.instances,
            report::bytes(s.gpu_bytes()),
            report::bytes(s.instance_buffer_bytes),
            report::bytes(s.model_bytes)
        ),
        (probe::End::Failed(n, e), _) => {
            println!("Failed at {n} instances: {e}");
            if let Some(s) = largest {
                println!(
                    "Largest count rendered: {}, using {} of GPU memory.",
                    s.instances,
                    report::bytes(s.gpu_bytes())
                );
            }
        }
        (probe::End::OutOfTime(n), Some(s)) => println!(
            "Largest count rendered: {} (using {} of GPU memory); stopped before {n}: \
             the last frame took over {} s (--probe-seconds) and the next is twice \
             the work. Raise --probe-seconds to go further.",
            s.instances,
            report::bytes(s.gpu_bytes()),
            options.probe_seconds
        ),
        (_, None) => println!("Nothing rendered."),
    }
    println!("(probe took {seconds:.0} s)");
}

/// The flags that reproduce this run.
fn reproduce(o: &Options) -> String {
    let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let strategies: Vec<&str> = o.strategies.iter().map(|k| k.name()).collect();
    let mut s = format!(
        "--instances {} --frames {} --warmup {} --strategies {} --models {}",
        list(&o.instances),
        o.frames,
        o.warmup,
        strategies.join(","),
        o.models.join(",")
    );
    if o.probe {
        s += &format!(
            " --probe-max {} --probe-seconds {}",
            o.probe_max, o.probe_seconds
        );
    } else {
        s += " --no-probe";
    }
    s
}
