//! What the windowed examples share, so each example file holds only its
//! idea: the command line, loading a model and its skins, the window, the
//! adapter and device, the surface and its depth (and multisample) targets,
//! the frame loop with its timing, and the screenshot taken at the end.
//!
//! An example implements [`App`] and calls [`run`]; it loads its files
//! before that, so a file that does not load ends the program before any
//! window opens.

pub use crate::ground;
pub mod gui;
mod host;
mod screenshot;
pub mod targets;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use md2_wgpu::format::mdl::{Palette, SkinImages};
use md2_wgpu::skins::{load_skin, load_skins};
use md2_wgpu::{
    DepthState, Md2RendererOptions, QuakeModel, contract::GpuModelOptions, demo, image, wgpu,
};

use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::event_loop::ActiveEventLoop;

pub use host::{Host, Screen, run_host};
use targets::{DEPTH_FORMAT, Targets};

/// How often the window title is rewritten: every frame would flood the
/// window system for nothing the eye can read.
const TITLE_INTERVAL: Duration = Duration::from_millis(100);

/// How long frame times are averaged for the frames-per-second figure.
const STATS_INTERVAL: Duration = Duration::from_millis(500);

/// What every example's command line holds besides the example's own flags,
/// read by [`parse_args`].
#[derive(Clone, Debug)]
pub struct Common {
    /// The model to show; the built-in demo model without one.
    pub file: Option<PathBuf>,
    /// Quit after this many frames have been presented.
    pub frames: Option<u64>,
    /// Save the last frame here as PNG.
    pub screenshot: Option<PathBuf>,
    /// After saving the screenshot, fail (exit 1) if it shows nothing: one
    /// colour, or no pixel of the example's models.
    pub check_screenshot: bool,
    /// The window's inner size in physical pixels.
    pub size: (u32, u32),
    /// Wait for the display's refresh (the default), or show every frame
    /// at once.
    pub vsync: bool,
    /// Destroy the device after this many frames, as a GPU reset would
    /// lose it (to check that the example says so and exits cleanly).
    pub lose_device_after: Option<u64>,
}

/// The help text for [`Common`]'s flags.
const COMMON_USAGE: &str = "\
options:
  --frames N            quit after N frames
  --screenshot PATH     save the last frame as PNG
  --check-screenshot    exit 1 if that picture is empty (one colour, or no model pixel)
  --size WxH            window size in pixels (default 1280x720)
  --no-vsync            do not wait for the display's refresh
  --lose-device-after N destroy the GPU device after N frames, as a GPU reset
                        does: the example says so and exits (code 1)";

/// Reads the command line: at most one FILE, the flags of [`Common`], and
/// the example's own flags, which `own` takes (given a flag and the
/// arguments after it, it returns `Ok(false)` for a flag it does not know).
/// `usage` and `keys` make the help. `Err` is the exit code after the help
/// (`--help`) or a usage error has been printed.
pub fn parse_args(
    usage: &str,
    keys: &str,
    mut own: impl FnMut(&str, &mut dyn Iterator<Item = String>) -> Result<bool, String>,
) -> Result<Common, ExitCode> {
    let mut common = Common {
        file: None,
        frames: None,
        screenshot: None,
        check_screenshot: false,
        size: (1280, 720),
        vsync: true,
        lose_device_after: None,
    };
    let mut args = std::env::args().skip(1);
    let mut parse = || -> Result<bool, String> {
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => return Ok(false),
                "--frames" => {
                    let n = value(&mut args, "--frames")?;
                    common.frames =
                        Some(n.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                            format!("--frames wants a positive whole number, not {n:?}")
                        })?);
                }
                "--screenshot" => {
                    common.screenshot = Some(value(&mut args, "--screenshot")?.into())
                }
                "--check-screenshot" => common.check_screenshot = true,
                "--lose-device-after" => {
                    let n = value(&mut args, "--lose-device-after")?;
                    common.lose_device_after = Some(n.parse::<u64>().map_err(|_| {
                        format!("--lose-device-after wants a whole number, not {n:?}")
                    })?);
                }
                "--size" => {
                    let s = value(&mut args, "--size")?;
                    common.size = parse_size(&s).ok_or_else(|| {
                        format!("--size wants WIDTHxHEIGHT (16 to 8192 each), not {s:?}")
                    })?;
                }
                "--no-vsync" => common.vsync = false,
                flag if flag.starts_with("--") => {
                    if !own(flag, &mut args)? {
                        return Err(format!("unknown option {flag}"));
                    }
                }
                _ if common.file.is_some() => {
                    return Err(format!("one model at a time (got {arg:?} too)"));
                }
                _ => common.file = Some(PathBuf::from(arg)),
            }
        }
        if common.check_screenshot && common.screenshot.is_none() {
            return Err("--check-screenshot needs --screenshot PATH".to_owned());
        }
        Ok(true)
    };
    match parse() {
        Ok(true) => Ok(common),
        Ok(false) => {
            println!("{usage}\n\n{COMMON_USAGE}\n\n{keys}");
            Err(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{usage}\n\n{COMMON_USAGE}");
            Err(ExitCode::from(2))
        }
    }
}

/// The value after a flag.
pub fn value(args: &mut dyn Iterator<Item = String>, flag: &str) -> Result<String, String> {
    args.next().ok_or_else(|| format!("{flag} needs a value"))
}

fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let (w, h) = (w.parse::<u32>().ok()?, h.parse::<u32>().ok()?);
    let ok = |v: u32| (16..=8192).contains(&v);
    (ok(w) && ok(h)).then_some((w, h))
}

/// A model, its skins, and a name for titles.
pub struct Loaded {
    /// The file's name, or "demo model".
    pub name: String,
    /// The model: a Quake II MD2 or a Quake I MDL.
    pub model: QuakeModel,
    /// Its skins, decoded; for an MDL with fullbright texels, the layers
    /// followed by their masks (`options` says so).
    pub skins: Vec<image::RgbaImage>,
    /// What the upload needs besides the example's own choices: fullbright
    /// masks for an MDL that has them.
    pub options: GpuModelOptions,
}

/// Loads `file` (the built-in demo model without one), an MD2 or an MDL,
/// with `skin` as its skin, or the skins the model names (an MD2's found
/// the way Quake II lays them out; an MDL's its own, in the `palette.lmp`
/// beside it or in the game's `gfx/`, else the crate's built-in palette),
/// printing what loading noticed.
pub fn load(file: Option<&Path>, skin: Option<&Path>) -> Result<Loaded, String> {
    let skin = skin.map(load_skin).transpose().map_err(|e| e.to_string())?;
    let loaded = match file {
        None => Loaded {
            name: "demo model".to_owned(),
            model: demo::demo_model().into(),
            skins: vec![skin.unwrap_or_else(demo::demo_skin)],
            options: GpuModelOptions::DEFAULT,
        },
        Some(path) => {
            // The error names the file.
            let model = QuakeModel::open(path).map_err(|e| e.to_string())?;
            for warning in model.warnings() {
                println!("note: {}: {warning}", path.display());
            }
            let mut options = GpuModelOptions::DEFAULT;
            let skins = match (skin, &model) {
                (Some(skin), _) => vec![skin],
                (None, QuakeModel::Md2(md2)) => {
                    let found = load_skins(path, md2);
                    for note in found.notes() {
                        println!("note: {}: {note}", path.display());
                    }
                    for (i, p) in found.paths.iter().enumerate() {
                        match p {
                            Some(p) => println!("skin {i}: {}", p.display()),
                            None => println!("skin {i}: not found (default texture)"),
                        }
                    }
                    found.images
                }
                (None, QuakeModel::Mdl(mdl)) => {
                    let palette = match Palette::find(path) {
                        Some((at, palette)) => {
                            println!("palette: {}", at.display());
                            palette
                        }
                        None => {
                            println!(
                                "note: {}: no palette.lmp beside it or in the game's gfx/: \
                                 the crate's built-in palette (colours approximate)",
                                path.display()
                            );
                            Palette::builtin()
                        }
                    };
                    let (skins, masks) = SkinImages::new(mdl, &palette).for_upload();
                    if masks {
                        println!("skins: fullbright texels drawn unlit");
                    }
                    options = options.with_fullbright_masks(masks);
                    skins
                }
            };
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Loaded {
                name,
                model,
                skins,
                options,
            }
        }
    };
    println!(
        "{}: {}, {} frames, {} vertices, {} triangles, {} skin image(s)",
        loaded.name,
        loaded.model.format(),
        loaded.model.frame_count(),
        loaded.model.vertex_count(),
        loaded.model.triangle_count(),
        loaded.skins.len()
    );
    Ok(loaded)
}

/// The device and the targets an example draws into.
pub struct Gpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Which adapter it is.
    pub adapter_info: wgpu::AdapterInfo,
    /// The colour format of the surface (and of screenshots).
    pub color_format: wgpu::TextureFormat,
    /// The depth buffer's format.
    pub depth_format: wgpu::TextureFormat,
    /// Samples per pixel of the colour and depth targets.
    pub sample_count: u32,
    /// The surface's size in pixels (never zero: a minimised window keeps
    /// its last size here and is not drawn).
    pub size: (u32, u32),
}

impl Gpu {
    /// Width over height.
    pub fn aspect(&self) -> f32 {
        self.size.0 as f32 / self.size.1 as f32
    }

    /// The frame pass, as what a pipeline drawn in it (the ground's, a
    /// full-screen pass's) is built for.
    pub fn ground_target(&self) -> ground::GroundTarget {
        ground::GroundTarget {
            color_format: self.color_format,
            depth_format: Some(self.depth_format),
            samples: self.sample_count,
        }
    }

    /// Fresh depth and multisampled targets the size of the surface.
    pub fn targets(&self) -> Targets {
        Targets::new(
            &self.device,
            self.color_format,
            self.sample_count,
            self.size,
        )
    }

    /// Renderer options for the frame's pass: its depth buffer (nearer is
    /// less, cleared to 1, stencil cleared to 0) and sample count.
    pub fn renderer_options(&self) -> Md2RendererOptions {
        Md2RendererOptions::DEFAULT
            .with_depth(DepthState::standard(self.depth_format))
            .with_sample_count(self.sample_count)
    }
}

/// Mouse drags: how far the pointer moves while the left button is down.
#[derive(Default)]
pub struct Drag {
    dragging: bool,
    cursor: Option<(f64, f64)>,
}

impl Drag {
    /// Follows `event`; the pointer's movement in pixels when it is a move
    /// with the button down.
    pub fn input(&mut self, event: &WindowEvent) -> Option<(f32, f32)> {
        match event {
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.dragging = *state == ElementState::Pressed,
            WindowEvent::CursorMoved { position, .. } => {
                let moved = self
                    .cursor
                    .filter(|_| self.dragging)
                    .map(|(x, y)| ((position.x - x) as f32, (position.y - y) as f32));
                self.cursor = Some((position.x, position.y));
                return moved;
            }
            _ => {}
        }
        None
    }
}

/// Frame timing, for the window title.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// Frames presented so far.
    pub frame: u64,
    /// Frames per second over the last half second.
    pub fps: f32,
    /// CPU milliseconds per frame over the last half second: from the start
    /// of the frame's update to its submission, not waiting for the display.
    pub cpu_ms: f32,
}

impl FrameStats {
    /// Frames per second for a title: whole numbers, but a tenth where
    /// there are few (a software adapter drawing a large crowd).
    pub fn fps_text(&self) -> String {
        if self.fps < 10.0 {
            format!("{:.1}", self.fps)
        } else {
            format!("{:.0}", self.fps)
        }
    }
}

/// An example: what it updates, draws and shows in its title.
pub trait App {
    /// Advances by `dt` seconds and uploads what the frame needs.
    fn update(&mut self, gpu: &Gpu, dt: f32);
    /// Records what must run before the frame's render pass (a resident
    /// crowd's compute pass) into the frame's encoder.
    fn encode(&mut self, _gpu: &Gpu, _encoder: &mut wgpu::CommandEncoder) {}
    /// Draws what stands behind the models (a ground, a sky). The pass has
    /// the targets of [`Gpu`], cleared to [`App::clear_color`].
    fn render_background(&mut self, _pass: &mut wgpu::RenderPass<'_>) {}
    /// Draws the models, after [`App::render_background`] in the same pass.
    fn render(&mut self, pass: &mut wgpu::RenderPass<'_>);
    /// A window event (keys, mouse) other than Escape and closing, which
    /// quit.
    fn input(&mut self, _event: &WindowEvent) {}
    /// The window title.
    fn title(&self, stats: &FrameStats) -> String;
    /// The colour the frame is cleared to.
    fn clear_color(&self) -> wgpu::Color {
        wgpu::Color {
            r: 0.05,
            g: 0.06,
            b: 0.08,
            a: 1.0,
        }
    }
}

/// Prints `error: message` and returns the exit code for it: for what the
/// example loads before [`run`], so that a file that does not load ends it
/// before any window opens.
/// The command line of an example that draws a crowd of the model: the
/// flags of [`Common`], `--instances N` (1 to `max`, else `default`) and
/// the example's own flags (`own` takes a flag and the arguments after it,
/// and says whether it is one of them, as [`parse_args`]'s does), and the
/// model it names, loaded. `Err` is the exit code after
/// the help or an error has been printed.
pub fn crowd_args(
    usage: &str,
    keys: &str,
    limits: (usize, usize),
    own: impl FnMut(&str, &mut dyn Iterator<Item = String>) -> Result<bool, String>,
) -> Result<(Common, Loaded, usize), ExitCode> {
    let (common, source, instances) = crowd_source_args(usage, keys, limits, own)?;
    match source {
        CrowdSource::Model(loaded) => Ok((common, *loaded, instances)),
        CrowdSource::Player(dir) => Err(fail(&format!(
            "{} is a Quake III player's folder: this example draws a model (the crowd example draws players)",
            dir.display()
        ))),
    }
}

/// What a crowd example draws: a model (the built-in one without FILE), or
/// the Quake III player whose folder (or an `.md3` in it) FILE names.
pub enum CrowdSource {
    Model(Box<Loaded>),
    Player(PathBuf),
}

/// [`crowd_args`], where FILE may also be a Quake III player's folder.
pub fn crowd_source_args(
    usage: &str,
    keys: &str,
    (default, max): (usize, usize),
    mut own: impl FnMut(&str, &mut dyn Iterator<Item = String>) -> Result<bool, String>,
) -> Result<(Common, CrowdSource, usize), ExitCode> {
    let mut instances = default;
    let common = parse_args(usage, keys, |flag, args| {
        if own(flag, args)? {
            return Ok(true);
        }
        if flag != "--instances" {
            return Ok(false);
        }
        let v = value(args, flag)?;
        instances = v
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| format!("--instances wants 1 to {max}, not {v:?}"))?;
        Ok(true)
    })?;
    let player = common
        .file
        .as_deref()
        .and_then(crate::inspector::quake3::player_dir);
    let source = match player {
        Some(dir) => CrowdSource::Player(dir),
        None => CrowdSource::Model(Box::new(
            load(common.file.as_deref(), None).map_err(|e| fail(&e))?,
        )),
    };
    Ok((common, source, instances))
}

pub fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Prints the example's `keys`, opens the window (called `title`), picks
/// the adapter and device, builds the example with `make` and runs it until
/// Escape, closing, or `common.frames`. Errors are printed; the exit code
/// says whether it went well.
pub fn run<A, F>(title: String, keys: &str, common: Common, make: F) -> ExitCode
where
    A: App,
    F: FnOnce(&Gpu) -> Result<A, String>,
{
    run_host::<State<A>, F>(title, keys, common, make)
}

/// The framework's host: an [`App`] drawn into the framework's pass.
struct State<A> {
    screen: Screen,
    gpu: Gpu,
    targets: Targets,
    app: A,
    last_frame: Instant,
    stats: FrameStats,
    window_start: Instant,
    window_frames: u32,
    window_cpu: Duration,
    had_full_window: bool,
    last_title: Instant,
}

/// Records one frame of `app` into `view` (a target of `gpu`'s colour
/// format): what comes before the pass, then the pass, cleared first: the
/// background, then unless `background_only` the models.
pub fn record<A: App>(
    gpu: &Gpu,
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    targets: &Targets,
    app: &mut A,
    background_only: bool,
) {
    app.encode(gpu, encoder);
    let mut pass = targets.begin_pass(encoder, view, app.clear_color());
    app.render_background(&mut pass);
    if !background_only {
        app.render(&mut pass);
    }
}

impl<A: App, F: FnOnce(&Gpu) -> Result<A, String>> Host<F> for State<A> {
    fn start(
        event_loop: &ActiveEventLoop,
        title: &str,
        common: &Common,
        make: F,
    ) -> Result<State<A>, String> {
        // An sRGB format, so the colours the shaders write in linear light
        // are encoded for the display; any other where none is offered.
        let screen = Screen::open(
            event_loop,
            title,
            common,
            wgpu::Features::empty(),
            |formats| {
                formats
                    .iter()
                    .copied()
                    .find(|f| f.is_srgb())
                    .or_else(|| formats.first().copied())
            },
        )?;
        let (adapter, info) = (&screen.adapter, screen.adapter.get_info());
        let (color_format, size) = (screen.config.format, screen.size());
        let sample_count = targets::sample_count(adapter, color_format);
        println!(
            "adapter: {} ({:?}, {:?}); surface {:?}, {}x{}, {} sample(s) per pixel",
            info.name, info.backend, info.device_type, color_format, size.0, size.1, sample_count
        );
        let gpu = Gpu {
            device: screen.device.clone(),
            queue: screen.queue.clone(),
            adapter_info: info,
            color_format,
            depth_format: DEPTH_FORMAT,
            sample_count,
            size,
        };
        let app = make(&gpu)?;
        let targets = gpu.targets();
        let now = Instant::now();
        Ok(State {
            screen,
            gpu,
            targets,
            app,
            last_frame: now,
            stats: FrameStats::default(),
            window_start: now,
            window_frames: 0,
            window_cpu: Duration::ZERO,
            had_full_window: false,
            last_title: now - TITLE_INTERVAL,
        })
    }

    fn screen(&mut self) -> &mut Screen {
        &mut self.screen
    }

    fn resized(&mut self) {
        self.gpu.size = self.screen.size();
        self.targets = self.gpu.targets();
    }

    fn frame(&mut self) -> bool {
        let Some((frame, suboptimal)) = self.screen.acquire() else {
            return false;
        };
        let start = Instant::now();
        let dt = start.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = start;
        self.app.update(&self.gpu, dt);
        let view = frame.texture.create_view(&Default::default());
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("md2-wgpu example frame"),
            });
        record(
            &self.gpu,
            &mut encoder,
            &view,
            &self.targets,
            &mut self.app,
            false,
        );
        self.gpu.queue.submit([encoder.finish()]);
        let cpu = start.elapsed();
        self.screen.present(frame, suboptimal);

        self.stats.frame += 1;
        self.window_frames += 1;
        self.window_cpu += cpu;
        let since = self.window_start.elapsed();
        // Until a whole interval has passed, the figures so far (a run of
        // a few frames still gets some).
        if since >= STATS_INTERVAL || !self.had_full_window {
            self.stats.fps = self.window_frames as f32 / since.as_secs_f32();
            self.stats.cpu_ms = self.window_cpu.as_secs_f32() * 1000.0 / self.window_frames as f32;
        }
        if since >= STATS_INTERVAL {
            self.had_full_window = true;
            self.window_start = Instant::now();
            self.window_frames = 0;
            self.window_cpu = Duration::ZERO;
        }
        if self.last_title.elapsed() >= TITLE_INTERVAL {
            self.screen.window.set_title(&self.app.title(&self.stats));
            self.last_title = Instant::now();
        }
        true
    }

    fn frames(&self) -> u64 {
        self.stats.frame
    }

    fn input(&mut self, event: &WindowEvent) {
        self.app.input(event);
    }

    fn summary(&mut self) -> String {
        let title = self.app.title(&self.stats);
        self.screen.window.set_title(&title);
        title
    }

    fn screenshot(&mut self, path: &Path, check: bool) -> Result<String, String> {
        screenshot::save(&self.gpu, &mut self.app, path, check)
    }
}
