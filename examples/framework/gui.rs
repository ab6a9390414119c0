//! The host of the egui examples (the viewer and `egui`): a winit window
//! whose every frame is an egui frame, drawn by egui-wgpu into one render
//! pass with a depth-stencil buffer and multisampling, so that paint
//! callbacks can draw 3D inside it. It does what eframe does for an eframe
//! app; an example implements [`GuiApp`] and calls [`run`].
//!
//! egui-wgpu's `Renderer` cannot say what pass it draws in (its options are
//! not readable from it or from a `RenderState`), so the host decides once
//! and tells the app ([`GuiSetup::options`]: samples per pixel, the
//! depth-stencil format), whose paint callbacks must build their pipelines
//! for exactly that pass (egui issues #2766 and #3200 are what a mismatch
//! does). Like egui-wgpu's own winit painter, the pass clears depth to 1.0
//! and stencil to 0 once per frame; every callback shares them.
//!
//! `--frames N`, `--screenshot PATH` and `--check-screenshot` work as in the
//! other examples: the last frame's paint jobs are drawn again offscreen.
//! The check draws them twice more, without the models (see
//! [`GuiApp::background_only`]) and without the interface (the paint
//! callbacks alone), and wants both the models and the interface to show.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use egui_wgpu::{CallbackResources, RendererOptions, ScreenDescriptor};
use md2_wgpu::image::RgbaImage;
use md2_wgpu::support::read_rgba8;
use md2_wgpu::wgpu;
use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;

use super::targets::{self, DEPTH_FORMAT, Targets};
use super::{Common, Host, Screen, run_host, screenshot};

/// What the frame is cleared to before egui draws: egui's panels cover it.
const CLEAR: wgpu::Color = wgpu::Color::BLACK;

/// What an app gets to set itself up: the device, the pass egui draws in,
/// and the place where paint callbacks keep what they share.
pub struct GuiSetup<'a> {
    /// The device.
    pub device: &'a wgpu::Device,
    /// Its queue.
    pub queue: &'a wgpu::Queue,
    /// The adapter.
    pub adapter_info: &'a wgpu::AdapterInfo,
    /// The colour format of egui's pass (a unorm format: egui writes
    /// sRGB-encoded colour).
    pub color_format: wgpu::TextureFormat,
    /// The options egui's renderer was made with: the samples per pixel and
    /// depth-stencil format of its pass, which paint callbacks must match.
    pub options: RendererOptions,
    /// egui-wgpu's storage for paint callbacks (`Renderer::callback_resources`).
    pub resources: &'a mut CallbackResources,
    /// The egui context.
    pub ctx: &'a egui::Context,
}

/// An egui example: its interface, its title, and how its pictures are
/// checked.
pub trait GuiApp {
    /// Builds the frame's interface, paint callbacks included.
    fn ui(&mut self, ui: &mut egui::Ui);
    /// The window title.
    fn title(&self) -> String;
    /// A line on the app's state, printed when `--frames` ends the run.
    fn summary(&self) -> String {
        self.title()
    }
    /// For the screenshot check: makes the paint callbacks draw only what
    /// stands behind the models (`on`), or everything again (`!on`), and
    /// returns whether it did. Where it does not (the default) the host
    /// leaves the paint callbacks out of the background instead, which is
    /// right for callbacks that draw nothing but models.
    fn background_only(&mut self, _resources: &mut CallbackResources, _on: bool) -> bool {
        false
    }
}

/// Prints `keys`, opens the window (called `title`), picks the adapter and
/// a device (with pipeline statistics where the adapter has them, for
/// counting vertex-shader runs), builds the app with `make` and runs it
/// until Escape (when no text field has the keyboard), closing, or
/// `common.frames`. Errors are printed; the exit code says whether it went
/// well.
pub fn run<A, F>(title: String, keys: &str, common: Common, make: F) -> ExitCode
where
    A: GuiApp,
    F: FnOnce(GuiSetup<'_>) -> Result<A, String>,
{
    run_host::<State<A>, F>(title, keys, common, make)
}

/// The egui host: an egui app drawn by egui-wgpu into the host's pass.
struct State<A> {
    screen: Screen,
    color_format: wgpu::TextureFormat,
    samples: u32,
    targets: Targets,
    ctx: egui::Context,
    egui: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    app: A,
    /// The last frame's paint jobs and pixels per point, for the screenshot.
    last: Option<(Vec<egui::ClippedPrimitive>, f32)>,
    frames: u64,
    title: String,
    /// When egui wants the next frame; `None`: when an event comes.
    next_frame: Option<Instant>,
}

impl<A: GuiApp, F: FnOnce(GuiSetup<'_>) -> Result<A, String>> Host<F> for State<A> {
    fn start(
        event_loop: &ActiveEventLoop,
        title: &str,
        common: &Common,
        make: F,
    ) -> Result<State<A>, String> {
        // egui writes sRGB-encoded colour: a unorm format where there is one.
        let screen = Screen::open(
            event_loop,
            title,
            common,
            wgpu::Features::PIPELINE_STATISTICS_QUERY,
            |formats| egui_wgpu::preferred_framebuffer_format(formats).ok(),
        )?;
        let (device, queue) = (&screen.device, &screen.queue);
        let info = screen.adapter.get_info();
        let (color_format, size) = (screen.config.format, screen.size());
        let samples = targets::sample_count(&screen.adapter, color_format);
        // The pass every frame is drawn in, decided here once: egui's
        // pipeline and every paint callback's are built for it.
        let options = RendererOptions {
            msaa_samples: samples,
            depth_stencil_format: Some(DEPTH_FORMAT),
            ..RendererOptions::default()
        };
        println!(
            "adapter: {} ({:?}, {:?}); surface {:?}, {}x{}, {} sample(s) per pixel, depth {:?}",
            info.name,
            info.backend,
            info.device_type,
            color_format,
            size.0,
            size.1,
            samples,
            DEPTH_FORMAT
        );
        let mut renderer = egui_wgpu::Renderer::new(device, color_format, options);
        let ctx = egui::Context::default();
        let max_texture_side = device.limits().max_texture_dimension_2d as usize;
        let egui = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &screen.window,
            Some(screen.window.scale_factor() as f32),
            screen.window.theme(),
            Some(max_texture_side),
        );
        let app = make(GuiSetup {
            device,
            queue,
            adapter_info: &info,
            color_format,
            options,
            resources: &mut renderer.callback_resources,
            ctx: &ctx,
        })?;
        let targets = Targets::new(device, color_format, samples, size);
        Ok(State {
            screen,
            color_format,
            samples,
            targets,
            ctx,
            egui,
            renderer,
            app,
            last: None,
            frames: 0,
            title: title.to_owned(),
            next_frame: Some(Instant::now()),
        })
    }

    fn screen(&mut self) -> &mut Screen {
        &mut self.screen
    }

    fn resized(&mut self) {
        let size = self.screen.size();
        self.targets = Targets::new(&self.screen.device, self.color_format, self.samples, size);
    }

    /// Runs the app's interface for one frame, draws and presents it.
    fn frame(&mut self) -> bool {
        let Some((frame, suboptimal)) = self.screen.acquire() else {
            return false;
        };

        let input = self.egui.take_egui_input(&self.screen.window);
        let app = &mut self.app;
        let mut output = self.ctx.run_ui(input, |ui| app.ui(ui));
        self.egui
            .handle_platform_output(&self.screen.window, output.platform_output);
        let pixels_per_point = output.pixels_per_point;
        let jobs = self.ctx.tessellate(output.shapes, pixels_per_point);
        for (id, deltas) in &output.textures_delta.set {
            for delta in deltas {
                self.renderer
                    .update_texture(&self.screen.device, &self.screen.queue, *id, delta);
            }
        }
        let view = frame.texture.create_view(&Default::default());
        let (prepared, encoder) = self.record(&view, &jobs, pixels_per_point);
        self.screen
            .queue
            .submit(prepared.into_iter().chain([encoder.finish()]));
        self.screen.present(frame, suboptimal);
        for id in &output.textures_delta.free {
            self.renderer.free_texture(id);
        }
        // Applied above; epaint asserts (in debug builds) that a dropped
        // delta was cleared, not forgotten.
        output.textures_delta.clear();
        self.last = Some((jobs, pixels_per_point));
        self.frames += 1;

        self.next_frame = output
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .and_then(|viewport| Instant::now().checked_add(viewport.repaint_delay));
        let title = self.app.title();
        if title != self.title {
            self.screen.window.set_title(&title);
            self.title = title;
        }
        true
    }

    fn frames(&self) -> u64 {
        self.frames
    }

    fn input(&mut self, event: &WindowEvent) {
        if self
            .egui
            .on_window_event(&self.screen.window, event)
            .repaint
        {
            self.next_frame = Some(Instant::now());
        }
    }

    // Escape leaves a text field first, and the app when none has the
    // keyboard.
    fn escape_quits(&self) -> bool {
        !self.ctx.egui_wants_keyboard_input()
    }

    fn next_frame(&self) -> Option<Instant> {
        self.next_frame
    }

    fn summary(&mut self) -> String {
        self.app.summary()
    }

    /// Draws the last frame again offscreen, saves it at `path` and, with
    /// `check`, fails where it shows no model or no interface.
    fn screenshot(&mut self, path: &Path, check: bool) -> Result<String, String> {
        let (jobs, pixels_per_point) = self
            .last
            .take()
            .ok_or_else(|| "no frame was drawn".to_owned())?;
        let picture = self.picture(&jobs, pixels_per_point)?;
        screenshot::write_png(&picture, path)?;
        let mut report = screenshot::describe(&picture);
        if check {
            let is_callback = |job: &&egui::ClippedPrimitive| {
                matches!(job.primitive, egui::epaint::Primitive::Callback(_))
            };
            let background = if self
                .app
                .background_only(&mut self.renderer.callback_resources, true)
            {
                let background = self.picture(&jobs, pixels_per_point);
                self.app
                    .background_only(&mut self.renderer.callback_resources, false);
                background?
            } else {
                let meshes: Vec<_> = jobs.iter().filter(|j| !is_callback(j)).cloned().collect();
                self.picture(&meshes, pixels_per_point)?
            };
            report += &screenshot::check_models(&picture, &background)?;
            let callbacks: Vec<_> = jobs.iter().filter(is_callback).cloned().collect();
            let scene = self.picture(&callbacks, pixels_per_point)?;
            report += &screenshot::check_interface(&picture, &scene)?;
            report += "; check passed";
        }
        Ok(report)
    }
}

impl<A: GuiApp> State<A> {
    /// Records `jobs` into a pass that draws into `view`: what the paint
    /// callbacks' `prepare` returned (to submit first) and the encoder.
    fn record(
        &mut self,
        view: &wgpu::TextureView,
        jobs: &[egui::ClippedPrimitive],
        pixels_per_point: f32,
    ) -> (Vec<wgpu::CommandBuffer>, wgpu::CommandEncoder) {
        let screen = ScreenDescriptor {
            size_in_pixels: [self.screen.config.width, self.screen.config.height],
            pixels_per_point,
        };
        let mut encoder =
            self.screen
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("md2-wgpu egui frame"),
                });
        // The paint callbacks' `prepare` and `finish_prepare` run here, on
        // this encoder, before the pass.
        let prepared = self.renderer.update_buffers(
            &self.screen.device,
            &self.screen.queue,
            &mut encoder,
            jobs,
            &screen,
        );
        {
            // egui-wgpu draws into a `RenderPass<'static>`: the pass lets go
            // of the encoder's borrow, as egui's own painter does.
            let mut pass = self
                .targets
                .begin_pass(&mut encoder, view, CLEAR)
                .forget_lifetime();
            self.renderer.render(&mut pass, jobs, &screen);
        }
        (prepared, encoder)
    }

    /// Draws `jobs` offscreen and reads the picture back.
    fn picture(
        &mut self,
        jobs: &[egui::ClippedPrimitive],
        pixels_per_point: f32,
    ) -> Result<RgbaImage, String> {
        let texture =
            targets::picture_target(&self.screen.device, self.color_format, self.screen.size());
        let view = texture.create_view(&Default::default());
        let (prepared, encoder) = self.record(&view, jobs, pixels_per_point);
        self.screen.queue.submit(prepared);
        read_rgba8(&self.screen.device, &self.screen.queue, encoder, &texture)
            .map_err(|e| format!("cannot read the frame back: {e}"))
    }
}
