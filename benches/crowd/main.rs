//! Headless crowd benchmark: the crate's immediate and resident paths
//! against the CPU-interpolation way and the decode-free limit, then what
//! the resident crowd's culling saves, how its steady-state frame scales,
//! what the entity effects and the application's own shading (materials,
//! motion vectors) cost and how often the vertex shader runs; in
//! one run, on one adapter.
//!
//! ```text
//! cargo bench --bench crowd [-- --instances 1000,4000,16000 --frames 60 --json PATH]
//! ```
//!
//! Every strategy draws into a 1280×720 sRGB target with a depth-stencil
//! buffer a crowd in which every member has its own animation, phase,
//! speed, place, heading, skin and tint (seeded, so runs agree). The
//! strategies of a table take turns frame by frame; after warm-up frames
//! each frame is timed for:
//!
//! - CPU time: everything the application thread does for the frame, from
//!   animating the crowd to the return of `queue.submit`, on the thread's
//!   own CPU clock (time the thread was preempted does not count), and the
//!   renderer's part of it alone;
//! - frame time: from the submit to the GPU having finished, waited for with
//!   `device.poll`, wall clock; frames do not overlap;
//! - frame CPU-work: CPU time every thread of the process ran during the
//!   frame time. On a software adapter (lavapipe) that is the rasteriser's
//!   work, which a busy machine inflates far less than the frame time;
//! - the bytes written to the GPU.
//!
//! One more frame per strategy counts its vertex-shader invocations
//! (pipeline statistics, where the adapter has them) and is read back: the
//! pictures are compared, so a strategy cannot look fast by drawing less.
//!
//! The defaults are sized for a small machine with a software rasteriser
//! (lavapipe on 2 cores: a few minutes, most of it drawing); `--help` lists
//! the flags that raise them.

mod baselines;
mod clock;
mod compare;
mod culling;
mod decode;
mod effects;
mod figures;
mod gpu;
mod horizon;
mod measure;
mod morph;
mod order;
mod players;
mod probe;
mod report;
mod scene;
mod shading;
mod strategies;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use compare::Kind;
use figures::say;
use gpu::{Gpu, Target};
use md2_wgpu::gpu::Md2Cache;
use scene::BenchModel;

const USAGE: &str = "\
usage: cargo bench --bench crowd [-- OPTIONS]

  --instances LIST     crowd sizes of the main comparison, comma-separated
                       (default 1000,4000)
  --frames N           measured frames per run (default 8)
  --warmup N           frames drawn before measuring (default 2)
  --strategies LIST    any of gpu,resident,cpu,static,morph-loop,morph-pair for
                       the main comparison (default all six)
  --models LIST        demo, yohko (yohko/tris.md2 with Yohko.pcx in the
                       shared models folder, $MD2_SHARED_MODELS or
                       ../shared/md2; skipped when absent) or MD2 and MDL
                       paths (default demo,yohko)
  --skin PATH          the skin for the paths given to --models (an MD2's
                       must be given; an MDL without it draws its own skins
                       in the palette.lmp beside it or the built-in one)
  --target N           the crowd size of the culling, shading and order
                       sections, and of the main comparison's targets
                       (default 4000)
  --effects-instances N  the crowd size of the effects section (default 1000)
  --order LIST         triangle orders of the order section: file,optimised
                       (default both; every other section uploads the
                       library's default, optimised)
  --horizon-instances LIST  the resident crowds of the horizon section, each
                       one crowd (default 100000,1000000)
  --horizon-frames N   its measured frames (default 3: a frame at full detail
                       takes seconds on a software rasteriser)
  --sections LIST      any of compare,culling,flat,effects,shading,horizon,
                       order,decode,players,probe
                       (default all)
  --flat-sizes LIST    crowd sizes of the steady-state section, first model
                       only (default 1000,1000000)
  --flat-frames N      measured frames of the steady-state section (default 8)
  --player-sizes LIST  crowd sizes of the players section, first model against
                       the demo soldier as a Quake III player with its gun
                       (default 1000,10000,100000; its frames are
                       --flat-frames)
  --json PATH          also write every row as a JSON list
  --markdown PATH      also write the report (every table, the adapter, the
                       machine and the command) to PATH: the figures file
                       the README quotes (docs/figures.md)
  --png DIR            write the main comparison's last frames as PNGs into DIR
  --probe-max N        scale probe: double from 1,000 up to N (default 1000000)
  --probe-seconds S    stop the probe once a frame takes longer than S seconds
                       (default 10: the next count is twice the work)
  --no-probe           skip the scale probe (as --sections without probe)
  --wall-clock         time CPU work by the wall clock only, not the thread's CPU
                       clock (needed under valgrind: rustix#1559)
  --adapter            print the adapter the benchmark would draw with, and stop
                       (benches/device.sh names its figures file after it)";

/// The parts of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Compare,
    Culling,
    Flat,
    Effects,
    Shading,
    Horizon,
    Order,
    Decode,
    Players,
    Probe,
}

impl Section {
    const ALL: [Section; 10] = [
        Section::Compare,
        Section::Culling,
        Section::Flat,
        Section::Effects,
        Section::Shading,
        Section::Horizon,
        Section::Order,
        Section::Decode,
        Section::Players,
        Section::Probe,
    ];

    fn name(self) -> &'static str {
        match self {
            Section::Compare => "compare",
            Section::Culling => "culling",
            Section::Flat => "flat",
            Section::Effects => "effects",
            Section::Shading => "shading",
            Section::Horizon => "horizon",
            Section::Order => "order",
            Section::Decode => "decode",
            Section::Players => "players",
            Section::Probe => "probe",
        }
    }
}

struct Options {
    instances: Vec<usize>,
    frames: usize,
    warmup: usize,
    strategies: Vec<Kind>,
    models: Vec<String>,
    skin: Option<PathBuf>,
    target: usize,
    effects_instances: usize,
    horizon_instances: Vec<usize>,
    horizon_frames: usize,
    orders: Vec<md2_wgpu::mesh::TriangleOrder>,
    sections: Vec<Section>,
    flat_sizes: Vec<usize>,
    flat_frames: usize,
    player_sizes: Vec<usize>,
    json: Option<PathBuf>,
    markdown: Option<PathBuf>,
    png: Option<PathBuf>,
    probe_max: usize,
    probe_seconds: f64,
    adapter_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            instances: vec![1000, 4000],
            frames: 8,
            warmup: 2,
            strategies: Kind::ALL.to_vec(),
            models: vec!["demo".into(), "yohko".into()],
            skin: None,
            target: 4000,
            effects_instances: 1000,
            horizon_instances: vec![100_000, 1_000_000],
            horizon_frames: 3,
            orders: vec![
                md2_wgpu::mesh::TriangleOrder::File,
                md2_wgpu::mesh::TriangleOrder::VertexCache,
            ],
            sections: Section::ALL.to_vec(),
            flat_sizes: vec![1000, 1_000_000],
            player_sizes: vec![1000, 10_000, 100_000],
            flat_frames: 8,
            json: None,
            markdown: None,
            png: None,
            probe_max: 1_000_000,
            probe_seconds: 10.0,
            adapter_only: false,
        }
    }
}

const MAX_INSTANCES: usize = 4_000_000;

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
    let counts = |v: String, what: &str| -> Result<Vec<usize>, String> {
        v.split(',')
            .map(|v| count(v, what, MAX_INSTANCES))
            .collect()
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            // cargo bench passes --bench to harness = false benchmarks.
            "--bench" => {}
            "-h" | "--help" => return Ok(None),
            "--instances" => o.instances = counts(value()?, "--instances")?,
            "--frames" => o.frames = count(&value()?, "--frames", 100_000)?,
            "--warmup" => {
                let v = value()?;
                o.warmup = v
                    .parse()
                    .map_err(|_| format!("--warmup wants a whole number, not {v:?}"))?;
            }
            "--strategies" => {
                o.strategies = named(&value()?, "--strategies", &Kind::ALL, Kind::name)?;
            }
            "--models" => o.models = value()?.split(',').map(str::to_string).collect(),
            "--skin" => o.skin = Some(PathBuf::from(value()?)),
            "--target" => o.target = count(&value()?, "--target", MAX_INSTANCES)?,
            "--effects-instances" => {
                o.effects_instances = count(&value()?, "--effects-instances", MAX_INSTANCES)?;
            }
            "--horizon-instances" => {
                o.horizon_instances = counts(value()?, "--horizon-instances")?;
            }
            "--horizon-frames" => {
                o.horizon_frames = count(&value()?, "--horizon-frames", 100_000)?;
            }
            "--order" => {
                o.orders = value()?
                    .split(',')
                    .map(|name| match name.trim() {
                        "file" => Ok(md2_wgpu::mesh::TriangleOrder::File),
                        "optimised" => Ok(md2_wgpu::mesh::TriangleOrder::VertexCache),
                        other => Err(format!("--order wants file or optimised, not {other:?}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--sections" => {
                o.sections = named(&value()?, "--sections", &Section::ALL, Section::name)?;
            }
            "--flat-sizes" => o.flat_sizes = counts(value()?, "--flat-sizes")?,
            "--flat-frames" => o.flat_frames = count(&value()?, "--flat-frames", 100_000)?,
            "--player-sizes" => o.player_sizes = counts(value()?, "--player-sizes")?,
            "--json" => o.json = Some(PathBuf::from(value()?)),
            "--markdown" => o.markdown = Some(PathBuf::from(value()?)),
            "--png" => o.png = Some(PathBuf::from(value()?)),
            "--probe-max" => o.probe_max = count(&value()?, "--probe-max", MAX_INSTANCES)?,
            "--probe-seconds" => {
                let v = value()?;
                o.probe_seconds =
                    v.parse::<f64>().ok().filter(|s| *s > 0.0).ok_or_else(|| {
                        format!("--probe-seconds wants a positive number, not {v:?}")
                    })?;
            }
            "--no-probe" => o.sections.retain(|s| *s != Section::Probe),
            "--wall-clock" => clock::disable(),
            "--adapter" => o.adapter_only = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(o))
}

/// The items of `all` that the comma-separated list `v` names, by `name`.
fn named<T: Copy>(
    v: &str,
    what: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<Vec<T>, String> {
    v.split(',')
        .map(|s| {
            all.iter()
                .copied()
                .find(|&t| name(t) == s.trim())
                .ok_or_else(|| {
                    let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
                    format!("{what}: unknown {s:?} ({})", names.join(", "))
                })
        })
        .collect()
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

/// What every section draws with.
pub struct Bench {
    pub gpu: Gpu,
    pub target: Target,
    /// One cache for every renderer: one shader compile per pipeline.
    pub cache: Md2Cache,
    pub warmup: usize,
    pub frames: usize,
}

fn load_models(options: &Options) -> Result<Vec<BenchModel>, String> {
    let shared = md2_wgpu::support::shared_models_dir();
    let mut models = Vec::new();
    for name in &options.models {
        match name.as_str() {
            "demo" => models.push(BenchModel::demo()),
            "yohko" => {
                let dir = shared.join("yohko");
                let (file, skin) = (dir.join("tris.md2"), dir.join("Yohko.pcx"));
                if file.is_file() && skin.is_file() {
                    models.push(BenchModel::load("yohko", &file, Some(&skin))?);
                } else {
                    eprintln!(
                        "crowd: skipping yohko: {} or its Yohko.pcx is absent",
                        file.display()
                    );
                }
            }
            path => {
                let label = Path::new(path)
                    .file_stem()
                    .map_or_else(|| path.to_string(), |s| s.to_string_lossy().into_owned());
                models.push(BenchModel::load(
                    &label,
                    Path::new(path),
                    options.skin.as_deref(),
                )?);
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

/// What reading the clocks once costs, in microseconds: every timed span
/// includes about one read.
fn clock_read_us() -> f64 {
    const READS: u32 = 1000;
    let start = Instant::now();
    for _ in 0..READS {
        std::hint::black_box(clock::Mark::now());
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(READS)
}

fn run(options: &Options) -> Result<(), String> {
    if options.adapter_only {
        println!("{}", Gpu::new()?.headless.adapter_label());
        return Ok(());
    }
    if let Some(path) = &options.markdown {
        figures::tee_to(path)?;
    }
    let models = load_models(options)?;
    let gpu = Gpu::new()?;
    let cache = Md2Cache::new(gpu.device()).map_err(|e| e.to_string())?;
    let bench = Bench {
        target: Target::new(&gpu),
        gpu,
        cache,
        warmup: options.warmup,
        frames: options.frames,
    };
    let adapter = bench.gpu.headless.adapter_label();
    say!("# md2-wgpu crowd benchmark\n");
    say!("- adapter: {adapter}");
    say!("- machine: {}", machine());
    if bench.gpu.info().device_type == wgpu::DeviceType::Cpu {
        say!(
            "- a software adapter: the \"GPU\" work runs on the same CPU cores, so frame \
             times compare software rasterisers (where vertex shading costs far more, \
             relative to drawing, than on a GPU)"
        );
    }
    say!(
        "- vertex-shader invocations: {}",
        if bench.gpu.has_statistics() {
            "counted (pipeline statistics)"
        } else {
            "not counted: the adapter has no pipeline statistics"
        }
    );
    say!(
        "- GPU time split: {}",
        match bench.gpu.timestamps() {
            (true, true) => "compute passes and draws (timestamp queries)",
            (true, false) => "draws only (timestamps at the render pass's ends)",
            _ => "not measured: the adapter has no timestamp queries",
        }
    );
    for m in &models {
        say!("- model {}", m.describe());
    }
    say!(
        "- {}×{} sRGB + {:?}, {} warm-up + {} measured frames per run, simulated clock {} Hz; \
         reading the CPU clocks costs {:.2} µs (every timed span includes about one read)",
        gpu::WIDTH,
        gpu::HEIGHT,
        gpu::DEPTH_FORMAT,
        options.warmup,
        options.frames,
        scene::CLOCK_HZ,
        clock_read_us()
    );
    say!(
        "- command: cargo bench --bench crowd -- {}\n",
        reproduce(options)
    );
    say!("{}", report::LEGEND);

    let started = Instant::now();
    let mut rows = Vec::new();
    for &section in &options.sections {
        let section_started = Instant::now();
        match section {
            Section::Compare => rows.extend(compare::run(
                &bench,
                &models,
                &options.instances,
                &options.strategies,
                options.target,
                options.png.as_deref(),
            )?),
            Section::Culling => rows.extend(culling::run_tenth(&bench, &models, options.target)?),
            Section::Flat => rows.extend(culling::run_flat(
                &bench,
                &models[0],
                &options.flat_sizes,
                options.flat_frames,
            )?),
            Section::Effects => {
                rows.extend(effects::run(&bench, &models, options.effects_instances)?);
            }
            Section::Shading => rows.extend(shading::run(&bench, &models, options.target)?),
            Section::Horizon => rows.extend(horizon::run(
                &bench,
                &models,
                &options.horizon_instances,
                options.horizon_frames,
            )?),
            Section::Order => rows.extend(order::run(
                &bench,
                &models,
                options.target,
                &options.orders,
            )?),
            Section::Decode => rows.extend(decode::run(&bench, &models, options.target)?),
            Section::Players => rows.extend(players::run(
                &bench,
                &models[0],
                &options.player_sizes,
                options.flat_frames,
            )?),
            Section::Probe => {
                let model = &models[0];
                let result = probe::run(&bench, model, options.probe_max, options.probe_seconds);
                probe::print(
                    &result,
                    &model.label,
                    options.probe_max,
                    options.probe_seconds,
                );
            }
        }
        say!(
            "({} took {:.0} s)\n",
            section.name(),
            section_started.elapsed().as_secs_f64()
        );
    }
    say!("(measured in {:.0} s)\n", started.elapsed().as_secs_f64());

    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report::json(&rows, &adapter))
            .map_err(|e| format!("encoding JSON: {e}"))?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        say!("JSON: {}\n", path.display());
    }
    Ok(())
}

/// The flags that reproduce this run.
fn reproduce(o: &Options) -> String {
    let list = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    let strategies: Vec<&str> = o.strategies.iter().map(|k| k.name()).collect();
    let sections: Vec<&str> = o.sections.iter().map(|s| s.name()).collect();
    let orders: Vec<&str> = o
        .orders
        .iter()
        .map(|&order| match order {
            md2_wgpu::mesh::TriangleOrder::File => "file",
            _ => "optimised",
        })
        .collect();
    format!(
        "--instances {} --frames {} --warmup {} --strategies {} --models {} --target {} \
         --effects-instances {} --horizon-instances {} --horizon-frames {} --order {} \
         --sections {} --flat-sizes {} --flat-frames {} --player-sizes {} --probe-max {} \
         --probe-seconds {}",
        list(&o.instances),
        o.frames,
        o.warmup,
        strategies.join(","),
        o.models.join(","),
        o.target,
        o.effects_instances,
        list(&o.horizon_instances),
        o.horizon_frames,
        orders.join(","),
        sections.join(","),
        list(&o.flat_sizes),
        o.flat_frames,
        list(&o.player_sizes),
        o.probe_max,
        o.probe_seconds
    )
}
