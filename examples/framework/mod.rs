//! What the windowed examples share, so each example file holds only its
//! idea: the command line, loading a model and its skins, the window, the
//! adapter and device, the surface and its depth (and multisample) targets,
//! the frame loop with its timing, and the screenshot taken at the end.
//!
//! An example implements [`App`] and calls [`run`]; it loads its files
//! before that, so a file that does not load ends the program before any
//! window opens.

// Each example compiles this module on its own and uses a different part.
#![allow(dead_code)]

pub mod gui;
mod screenshot;
mod targets;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use md2_wgpu::skins::{load_skin, load_skins};
use md2_wgpu::{DepthState, Md2Model, Md2RendererOptions, demo, image, wgpu};

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use targets::{DEPTH_FORMAT, Targets};

/// How often the window title is rewritten: every frame would flood the
/// window system for nothing the eye can read.
const TITLE_INTERVAL: Duration = Duration::from_millis(100);

/// How long to wait before asking again for a frame the surface did not
/// give (the window is hidden, or the surface is being remade).
const RETRY_AFTER: Duration = Duration::from_millis(50);

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
}

/// The help text for [`Common`]'s flags.
const COMMON_USAGE: &str = "\
options:
  --frames N            quit after N frames
  --screenshot PATH     save the last frame as PNG
  --check-screenshot    exit 1 if that picture is empty (one colour, or no model pixel)
  --size WxH            window size in pixels (default 1280x720)
  --no-vsync            do not wait for the display's refresh";

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
    /// The model.
    pub model: Md2Model,
    /// Its skins, decoded.
    pub skins: Vec<image::RgbaImage>,
}

/// Loads `file` (the built-in demo model without one) with `skin` as its
/// skin, or the skins the model names (found the way Quake II lays them
/// out), printing what loading noticed.
pub fn load(file: Option<&Path>, skin: Option<&Path>) -> Result<Loaded, String> {
    let skin = skin.map(load_skin).transpose().map_err(|e| e.to_string())?;
    let loaded = match file {
        None => Loaded {
            name: "demo model".to_owned(),
            model: demo::demo_model(),
            skins: vec![skin.unwrap_or_else(demo::demo_skin)],
        },
        Some(path) => {
            // The error names the file.
            let model = Md2Model::open(path).map_err(|e| e.to_string())?;
            for warning in model.warnings() {
                println!("note: {}: {warning}", path.display());
            }
            let skins = match skin {
                Some(skin) => vec![skin],
                None => {
                    let found = load_skins(path, &model);
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
            };
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Loaded { name, model, skins }
        }
    };
    println!(
        "{}: {} frames, {} vertices, {} triangles, {} skin(s)",
        loaded.name,
        loaded.model.frame_count(),
        loaded.model.vertex_count(),
        loaded.model.triangles().len(),
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

    /// The multisample state of the targets, for pipelines.
    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.sample_count,
            ..Default::default()
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
    let mut runner = Runner {
        title,
        common,
        make: Some(make),
        state: None,
        failed: false,
    };
    run_loop(keys, &mut runner, |runner| runner.failed)
}

/// Prints `keys` and runs `handler` on a new event loop; the exit code says
/// whether it went well (`failed` reads the handler's own verdict). Both
/// hosts, this one and the egui one (`gui.rs`), end this way.
pub fn run_loop<H: ApplicationHandler>(
    keys: &str,
    handler: &mut H,
    failed: impl Fn(&H) -> bool,
) -> ExitCode {
    println!("{keys}");
    let event_loop = match EventLoop::new() {
        Ok(event_loop) => event_loop,
        Err(e) => {
            eprintln!("error: cannot open a window: {e} (is DISPLAY or WAYLAND_DISPLAY set?)");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = event_loop.run_app(handler) {
        eprintln!("error: the event loop stopped: {e}");
        return ExitCode::FAILURE;
    }
    if failed(handler) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

struct Runner<A, F> {
    title: String,
    common: Common,
    make: Option<F>,
    state: Option<State<A>>,
    failed: bool,
}

struct State<A> {
    screen: Screen,
    gpu: Gpu,
    targets: Targets,
    app: A,
    minimised: bool,
    last_frame: Instant,
    stats: FrameStats,
    window_start: Instant,
    window_frames: u32,
    window_cpu: Duration,
    had_full_window: bool,
    last_title: Instant,
    /// When to try for a frame again after the surface gave none.
    retry_at: Option<Instant>,
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

impl<A: App, F: FnOnce(&Gpu) -> Result<A, String>> Runner<A, F> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, message: String) {
        eprintln!("error: {message}");
        self.failed = true;
        event_loop.exit();
    }

    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<State<A>, String> {
        // An sRGB format, so the colours the shaders write in linear light
        // are encoded for the display; any other where none is offered.
        let screen = Screen::open(
            event_loop,
            &self.title,
            &self.common,
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
        let make = self
            .make
            .take()
            .ok_or_else(|| "the example was already started".to_owned())?;
        let app = make(&gpu)?;
        let targets = gpu.targets();
        let now = Instant::now();
        Ok(State {
            screen,
            gpu,
            targets,
            app,
            minimised: false,
            last_frame: now,
            stats: FrameStats::default(),
            window_start: now,
            window_frames: 0,
            window_cpu: Duration::ZERO,
            had_full_window: false,
            retry_at: None,
            last_title: now - TITLE_INTERVAL,
        })
    }

    /// Saves the screenshot (when asked) and leaves the event loop.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        if let (Some(state), Some(path)) = (self.state.as_mut(), self.common.screenshot.clone()) {
            match screenshot::save(
                &state.gpu,
                &mut state.app,
                &path,
                self.common.check_screenshot,
            ) {
                Ok(report) => println!("screenshot: {} ({report})", path.display()),
                Err(e) => {
                    eprintln!("error: screenshot {}: {e}", path.display());
                    self.failed = true;
                }
            }
        }
        event_loop.exit();
    }
}

/// The adapter that draws into `surface` (see [`pick_adapter`]) and a
/// device on it with everything it offers (a crowd grows with the storage
/// buffer limits, which the renderer's minimum keeps small) and those of
/// `features` it has.
pub fn open_device(
    instance: &wgpu::Instance,
    surface: &wgpu::Surface<'_>,
    features: wgpu::Features,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), String> {
    let adapter = pick_adapter(instance, surface)?;
    let info = adapter.get_info();
    let required_limits = md2_wgpu::adapter_limits(&adapter)
        .map_err(|e| format!("the adapter {} cannot run this example: {e}", info.name))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("md2-wgpu example device"),
        required_features: features & adapter.features(),
        required_limits,
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("the adapter {} refused a device: {e}", info.name))?;
    Ok((adapter, device, queue))
}

/// A window, the device that draws into it and the surface that shows it,
/// configured: how both hosts (this one and the egui one, `gui.rs`) start.
pub struct Screen {
    /// The window.
    pub window: Arc<Window>,
    /// The instance the surface came from (to make it again if it is lost).
    pub instance: wgpu::Instance,
    /// The window's surface.
    pub surface: wgpu::Surface<'static>,
    /// How it is configured (its format, size and present mode).
    pub config: wgpu::SurfaceConfiguration,
    /// The adapter.
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

impl Screen {
    /// Opens a window called `title` of `common`'s size, a device on an
    /// adapter that can draw into it (with those of `features` it has), and
    /// configures its surface with the format `format` picks from those the
    /// surface offers.
    pub fn open(
        event_loop: &ActiveEventLoop,
        title: &str,
        common: &Common,
        features: wgpu::Features,
        format: impl FnOnce(&[wgpu::TextureFormat]) -> Option<wgpu::TextureFormat>,
    ) -> Result<Screen, String> {
        let attributes = Window::default_attributes()
            .with_title(title)
            .with_inner_size(PhysicalSize::new(common.size.0, common.size.1));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| format!("cannot create a window: {e}"))?,
        );
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(window.clone())),
        );
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot draw into the window: {e}"))?;
        let (adapter, device, queue) = open_device(&instance, &surface, features)?;
        let name = adapter.get_info().name;
        let size = window.inner_size();
        let caps = surface.get_capabilities(&adapter);
        let color_format = format(&caps.formats)
            .ok_or_else(|| format!("the adapter {name} cannot present to this window"))?;
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| format!("the adapter {name} cannot present to this window"))?;
        config.format = color_format;
        config.present_mode = if common.vsync {
            wgpu::PresentMode::AutoVsync
        } else {
            wgpu::PresentMode::AutoNoVsync
        };
        surface.configure(&device, &config);
        Ok(Screen {
            window,
            instance,
            surface,
            config,
            adapter,
            device,
            queue,
        })
    }

    /// The surface's size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Configures the surface for a window of `size` (not zero).
    pub fn resize(&mut self, size: PhysicalSize<u32>) {
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.device, &self.config);
    }

    /// Asks the surface for a frame, configuring it again (or remaking it)
    /// where it says so.
    pub fn acquire(&mut self) -> Acquired {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => Acquired::Frame(frame, false),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => Acquired::Frame(frame, true),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                Acquired::Retry
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.device, &self.config);
                Acquired::Skip
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                match self.instance.create_surface(self.window.clone()) {
                    Ok(surface) => {
                        self.surface = surface;
                        self.surface.configure(&self.device, &self.config);
                    }
                    Err(e) => {
                        eprintln!("warning: the surface was lost and cannot be made again: {e}")
                    }
                }
                Acquired::Retry
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                eprintln!("warning: the surface refused a frame; trying again");
                Acquired::Retry
            }
        }
    }

    /// Presents `frame`, configuring the surface afresh after a
    /// suboptimal one.
    pub fn present(&self, frame: wgpu::SurfaceTexture, suboptimal: bool) {
        self.window.pre_present_notify();
        self.queue.present(frame);
        if suboptimal {
            self.surface.configure(&self.device, &self.config);
        }
    }
}

fn pick_adapter(
    instance: &wgpu::Instance,
    surface: &wgpu::Surface<'_>,
) -> Result<wgpu::Adapter, String> {
    let needs = md2_wgpu::required_downlevel_flags();
    let fits = |adapter: &wgpu::Adapter| {
        adapter.get_downlevel_capabilities().flags.contains(needs)
            && md2_wgpu::adapter_limits(adapter).is_ok()
            && adapter.is_surface_supported(surface)
    };
    // The adapter the environment (WGPU_ADAPTER_NAME, WGPU_POWER_PREF) or
    // the platform prefers, when it can do the job; otherwise any that can.
    if let Ok(adapter) = pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(
        instance,
        Some(surface),
    )) && fits(&adapter)
    {
        return Ok(adapter);
    }
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
    adapters.into_iter().find(fits).ok_or_else(|| {
        format!(
            "no graphics adapter can run this example (it needs storage buffers in vertex \
             shaders, {needs:?}); adapters found: {}",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        )
    })
}

/// What the surface gave when asked for a frame.
pub enum Acquired {
    /// A frame to draw into; `true` when it is suboptimal (usable now, to be
    /// configured afresh after it is presented).
    Frame(wgpu::SurfaceTexture, bool),
    /// None now (the window is hidden, or the surface was lost and remade):
    /// ask again a little later.
    Retry,
    /// None, and the surface has been configured again: ask at the next
    /// redraw.
    Skip,
}

impl<A: App> State<A> {
    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            self.minimised = true;
            return;
        }
        self.minimised = false;
        self.gpu.size = (size.width, size.height);
        self.screen.resize(size);
        self.targets = self.gpu.targets();
    }

    /// Draws and presents a frame; false when none could be drawn.
    fn frame(&mut self) -> bool {
        if self.minimised {
            return false;
        }
        let (frame, suboptimal) = match self.screen.acquire() {
            Acquired::Frame(frame, suboptimal) => (frame, suboptimal),
            Acquired::Retry => {
                self.retry_at = Some(Instant::now() + RETRY_AFTER);
                return false;
            }
            Acquired::Skip => return false,
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
}

impl<A: App, F: FnOnce(&Gpu) -> Result<A, String>> ApplicationHandler for Runner<A, F> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() || self.failed {
            return;
        }
        match self.start(event_loop) {
            Ok(state) => {
                state.screen.window.request_redraw();
                self.state = Some(state);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(state) = self.state.as_mut() else {
            return;
        };
        match event {
            WindowEvent::CloseRequested
            | WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key: Key::Named(NamedKey::Escape),
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } => self.finish(event_loop),
            WindowEvent::Resized(size) => state.resize(size),
            WindowEvent::RedrawRequested => {
                if state.frame() && self.common.frames.is_some_and(|n| state.stats.frame >= n) {
                    let title = state.app.title(&state.stats);
                    state.screen.window.set_title(&title);
                    println!("last frame: {title}");
                    self.finish(event_loop);
                }
            }
            other => state.app.input(&other),
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        match &mut self.state {
            // A hidden window, or one whose surface gave no frame just now,
            // is asked again a little later rather than in a busy loop.
            Some(state) if state.retry_at.is_some_and(|at| Instant::now() < at) => {
                if let Some(at) = state.retry_at {
                    event_loop.set_control_flow(ControlFlow::WaitUntil(at));
                }
            }
            // Animate continuously; a minimised window waits for events.
            Some(state) if !state.minimised => {
                state.retry_at = None;
                event_loop.set_control_flow(ControlFlow::Poll);
                state.screen.window.request_redraw();
            }
            _ => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }
}
