//! The window side every windowed example shares: the window, the adapter
//! and device, the surface ([`Screen`]), and the event loop ([`run_host`])
//! that drives a [`Host`] through winit's events: closing, Escape,
//! resizing, `--frames`, `--screenshot`, waiting while the window is
//! hidden, and a lost device.
//!
//! A lost device (a GPU reset, a driver update; `--lose-device-after N`
//! makes one) ends the example cleanly: it says so on stderr and exits with
//! code 1, without a panic. The crate's calls return typed errors after a
//! loss, and the device's own uncaptured errors are reported, not raised; an
//! app that wants to go on makes a new device and rebuilds its models and
//! renderers from its `Md2Model`s (tests/gpu/device_lost.rs does). There are two hosts: the framework's own for [`App`](super::App)s
//! (`mod.rs`), and the egui one (`gui.rs`).

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use md2_wgpu::wgpu;
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use super::Common;

/// How long to wait before asking again for a frame the surface did not
/// give (the window is hidden, or the surface is being remade).
const RETRY_AFTER: Duration = Duration::from_millis(50);

/// What runs in the window once it is open, made from `M`.
pub trait Host<M>: Sized {
    /// Opens the window (see [`Screen::open`]) and makes the app with
    /// `make`.
    fn start(
        event_loop: &ActiveEventLoop,
        title: &str,
        common: &Common,
        make: M,
    ) -> Result<Self, String>;
    /// The window and its surface.
    fn screen(&mut self) -> &mut Screen;
    /// Remakes what has the window's size, after the surface has been.
    fn resized(&mut self);
    /// Draws and presents a frame; false when none could be drawn.
    fn frame(&mut self) -> bool;
    /// Frames presented so far.
    fn frames(&self) -> u64;
    /// An event the runner does not handle itself (keys, the mouse).
    fn input(&mut self, event: &WindowEvent);
    /// Whether Escape quits now.
    fn escape_quits(&self) -> bool {
        true
    }
    /// When the next frame is wanted; `None`: at the next event.
    fn next_frame(&self) -> Option<Instant> {
        Some(Instant::now())
    }
    /// The line printed when `--frames` ends the run.
    fn summary(&mut self) -> String;
    /// Draws the last frame again offscreen, saves it at `path` as PNG and,
    /// with `check`, fails where it shows nothing. Returns a line about it.
    fn screenshot(&mut self, path: &Path, check: bool) -> Result<String, String>;
}

/// Prints `keys`, opens the window (called `title`), starts the host `H`
/// with `make` and runs it until Escape, closing, or `common.frames`.
/// Errors are printed; the exit code says whether it went well.
pub fn run_host<H: Host<M>, M>(title: String, keys: &str, common: Common, make: M) -> ExitCode {
    println!("{keys}");
    let event_loop = match EventLoop::new() {
        Ok(event_loop) => event_loop,
        Err(e) => {
            eprintln!("error: cannot open a window: {e} (is DISPLAY or WAYLAND_DISPLAY set?)");
            return ExitCode::FAILURE;
        }
    };
    let mut runner = Runner::<H, M> {
        title,
        common,
        make: Some(make),
        host: None,
        failed: false,
    };
    if let Err(e) = event_loop.run_app(&mut runner) {
        eprintln!("error: the event loop stopped: {e}");
        return ExitCode::FAILURE;
    }
    if runner.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

struct Runner<H, M> {
    title: String,
    common: Common,
    make: Option<M>,
    host: Option<H>,
    failed: bool,
}

impl<H: Host<M>, M> Runner<H, M> {
    fn fail(&mut self, event_loop: &ActiveEventLoop, message: String) {
        eprintln!("error: {message}");
        self.failed = true;
        event_loop.exit();
    }

    /// Saves the screenshot (when asked) and leaves the event loop.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        if let (Some(host), Some(path)) = (self.host.as_mut(), self.common.screenshot.clone()) {
            match host.screenshot(&path, self.common.check_screenshot) {
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

impl<H: Host<M>, M> ApplicationHandler for Runner<H, M> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.host.is_some() || self.failed {
            return;
        }
        let Some(make) = self.make.take() else {
            return;
        };
        match H::start(event_loop, &self.title, &self.common, make) {
            Ok(mut host) => {
                host.screen().window.request_redraw();
                self.host = Some(host);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(host) = self.host.as_mut() else {
            return;
        };
        match &event {
            WindowEvent::CloseRequested => self.finish(event_loop),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key: Key::Named(NamedKey::Escape),
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } if host.escape_quits() => self.finish(event_loop),
            WindowEvent::Resized(size) => {
                if host.screen().resize(*size) {
                    host.resized();
                }
            }
            WindowEvent::RedrawRequested => {
                let drew = host.frame();
                if self.common.lose_device_after == Some(host.frames()) {
                    eprintln!("losing the device after {} frames, as asked", host.frames());
                    host.screen().device.destroy();
                }
                if let Some(reason) = host.screen().lost() {
                    self.fail(
                        event_loop,
                        format!("the GPU device was lost ({reason}): the example exits"),
                    );
                    return;
                }
                if drew && self.common.frames.is_some_and(|n| host.frames() >= n) {
                    println!("last frame: {}", host.summary());
                    self.finish(event_loop);
                }
            }
            _ => host.input(&event),
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let unattended = self.common.frames.is_some();
        let Some(host) = &mut self.host else {
            event_loop.set_control_flow(ControlFlow::Wait);
            return;
        };
        let next = host.next_frame();
        let screen = host.screen();
        let now = Instant::now();
        // A hidden window, or one whose surface gave no frame just now, is
        // asked again a little later rather than in a busy loop.
        if let Some(at) = screen.retry_at.filter(|&at| now < at) {
            event_loop.set_control_flow(ControlFlow::WaitUntil(at));
            return;
        }
        screen.retry_at = None;
        if screen.minimised {
            event_loop.set_control_flow(ControlFlow::Wait);
            return;
        }
        // Unattended runs draw frame after frame; otherwise when the host
        // wants the next.
        match if unattended { Some(now) } else { next } {
            Some(at) if at <= now + Duration::from_millis(1) => {
                event_loop.set_control_flow(ControlFlow::Poll);
                screen.window.request_redraw();
            }
            Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
            None => event_loop.set_control_flow(ControlFlow::Wait),
        }
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
    let required_limits = md2_wgpu::gpu::adapter_limits(&adapter)
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
/// configured; whether it is minimised, and when to ask it for a frame
/// again after it gave none.
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
    /// The window has no area: nothing is drawn.
    pub minimised: bool,
    /// When to ask for a frame again after the surface gave none.
    pub retry_at: Option<Instant>,
    /// Why the device was lost, once it was.
    lost: Arc<Mutex<Option<String>>>,
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
        // A lost device is told by its callback (at the next poll or
        // submit); its errors after that are reported, not raised as panics.
        let lost = Arc::new(Mutex::new(None));
        let on_lost = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            *on_lost.lock().unwrap_or_else(PoisonError::into_inner) = Some(format!(
                "{reason:?}{}",
                if message.is_empty() {
                    String::new()
                } else {
                    format!(": {message}")
                }
            ));
        });
        let errors = Arc::clone(&lost);
        device.on_uncaptured_error(Arc::new(move |error| {
            let lost = errors.lock().unwrap_or_else(PoisonError::into_inner);
            // After a loss, every call fails: one line said it already.
            if lost.is_none() {
                eprintln!("error: the GPU device reported: {error}");
            }
        }));
        Ok(Screen {
            window,
            instance,
            surface,
            config,
            adapter,
            device,
            queue,
            minimised: false,
            retry_at: None,
            lost,
        })
    }

    /// Why the device was lost, if it was (polling it first, so a loss is
    /// known by the next frame).
    pub fn lost(&self) -> Option<String> {
        let _ = self.device.poll(wgpu::PollType::Poll);
        self.lost
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The surface's size in pixels (never zero: a minimised window keeps
    /// its last size here).
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Configures the surface for a window of `size`; false (and nothing
    /// done) when the window has no area.
    pub fn resize(&mut self, size: PhysicalSize<u32>) -> bool {
        self.minimised = size.width == 0 || size.height == 0;
        if self.minimised {
            return false;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.device, &self.config);
        true
    }

    /// A frame to draw into, and whether it is suboptimal (usable now, to be
    /// configured afresh once presented); `None` when the window is
    /// minimised or the surface gave none (after configuring it again, or
    /// remaking it, where it says so).
    pub fn acquire(&mut self) -> Option<(wgpu::SurfaceTexture, bool)> {
        if self.minimised {
            return None;
        }
        let retry = Some(Instant::now() + RETRY_AFTER);
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => return Some((frame, false)),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => return Some((frame, true)),
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                self.retry_at = retry
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.device, &self.config)
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
                self.retry_at = retry;
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                eprintln!("warning: the surface refused a frame; trying again");
                self.retry_at = retry;
            }
        }
        None
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
    let needs = md2_wgpu::gpu::required_downlevel_flags();
    let fits = |adapter: &wgpu::Adapter| {
        adapter.get_downlevel_capabilities().flags.contains(needs)
            && md2_wgpu::gpu::adapter_limits(adapter).is_ok()
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
