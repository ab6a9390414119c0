//! md2-wgpu in an egui app: a resident crowd drawn by an egui-wgpu paint
//! callback, and an egui window whose slider sets the crowd's size.
//!
//! ```text
//! cargo run --release --example egui
//! ```
//!
//! What an egui app copies is all here. Once: a renderer for *egui's* pass,
//! whose samples per pixel and depth format egui cannot tell afterwards (they
//! were given to `egui_wgpu::Renderer::new`, or as eframe's `NativeOptions`
//! `multisampling`, `depth_buffer` and `stencil_buffer`), so pass them on (a
//! pipeline for another sample count fails validation: egui issues #2766 and
//! #3200); egui clears depth to 1.0, so nearer is less. The renderer and the
//! crowd live in egui-wgpu's callback resources, all a paint callback can
//! reach. Every frame: a paint callback whose `prepare` records the crowd's
//! compute pass on egui's encoder and whose `paint` draws inside egui's pass.
//! The window and the pass are the examples' host (`framework/gui.rs`); in
//! an eframe app eframe is the host and `cc.wgpu_render_state` has the rest.

use std::process::ExitCode;

use egui_wgpu::{CallbackResources, CallbackTrait, ScreenDescriptor};
use md2_wgpu::glam::{Mat4, Vec3};
use md2_wgpu::{
    Camera, CrowdMember, DepthState, GpuModel, Md2Crowd, Md2Renderer, Md2RendererOptions,
    Quake2Player, anim::ClipClock, demo, gpu::CrowdHandle, wgpu,
};

use md2_wgpu_examples::framework::{
    self,
    gui::{GuiApp, GuiSetup},
};

/// How far apart members stand, in model units (the demo model is 56 tall).
const SPACING: f32 = 50.0;
/// What the members do, in turn.
const CLIPS: [Quake2Player; 3] = [Quake2Player::Run, Quake2Player::Stand, Quake2Player::Wave];

/// What lasts between frames, in egui-wgpu's callback resources.
struct CrowdScene {
    renderer: Md2Renderer,
    crowd: Md2Crowd,
    members: Vec<CrowdHandle>,
}

/// One frame of the 3D view, as the interface decided it.
struct CrowdView {
    camera: Camera,
    time: f64,
    members: usize,
}

impl CallbackTrait for CrowdView {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _screen: &ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        resources: &mut CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        let Some(scene) = resources.get_mut::<CrowdScene>() else {
            return Vec::new();
        };
        // The slider's count: members join or leave; the rest stay as they
        // are on the GPU.
        while scene.members.len() < self.members {
            let i = scene.members.len();
            let clock = ClipClock::new(CLIPS[i % CLIPS.len()].clip(), self.time - i as f64 * 0.37);
            match scene.crowd.add(CrowdMember::new(place(i), clock)) {
                Ok(handle) => scene.members.push(handle),
                Err(e) => {
                    eprintln!("error: {e}");
                    break;
                }
            }
        }
        while scene.members.len() > self.members {
            if let Some(Err(e)) = scene.members.pop().map(|h| scene.crowd.remove(h)) {
                eprintln!("error: {e}");
            }
        }
        // The camera (no immediate instances), then the crowd's compute pass
        // on egui's encoder.
        let prepared = scene
            .renderer
            .prepare(device, queue, &self.camera, &[])
            .and_then(|_| {
                let crowds = [&mut scene.crowd];
                scene
                    .renderer
                    .prepare_crowds(device, queue, encoder, self.time, crowds)
            });
        if let Err(e) = prepared {
            eprintln!("error: {e}");
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &CallbackResources,
    ) {
        if let Some(scene) = resources.get::<CrowdScene>() {
            scene.renderer.render(pass);
        }
    }
}

/// Member `i` on a sunflower spiral: the first members stay where they are
/// as the crowd grows.
fn place(i: usize) -> Mat4 {
    let angle = i as f32 * 2.399_963; // the golden angle
    let r = (i as f32).sqrt() * SPACING;
    Mat4::from_translation(Vec3::new(r * angle.cos(), 0.0, r * angle.sin()))
}

struct Example {
    time: f64,
    members: usize,
}

impl GuiApp for Example {
    fn ui(&mut self, ui: &mut egui::Ui) {
        self.time += f64::from(ui.input(|i| i.stable_dt).min(0.25));
        egui::CentralPanel::default().show(ui, |ui| {
            let rect = ui.available_rect_before_wrap();
            // Far enough back to see the whole spiral.
            let radius = (self.members as f32).sqrt() * SPACING + SPACING;
            let eye = Vec3::new(0.0, 0.8, 1.5) * radius;
            let aspect = rect.width() / rect.height().max(1.0);
            let camera = Camera::look_at(eye, Vec3::ZERO, 0.8, aspect, 1.0, radius * 5.0);
            let view = CrowdView {
                camera,
                time: self.time,
                members: self.members,
            };
            ui.painter()
                .add(egui_wgpu::Callback::new_paint_callback(rect, view));
        });
        egui::Window::new("md2-wgpu in egui").show(ui.ctx(), |ui| {
            ui.add(egui::Slider::new(&mut self.members, 1..=500).text("members"));
            ui.label("a resident crowd, drawn by a paint callback");
        });
        ui.ctx().request_repaint();
    }

    fn title(&self) -> String {
        format!("md2-wgpu egui — {} members", self.members)
    }
}

fn main() -> ExitCode {
    let keys = "keys:\n  Esc          quit";
    let common = match framework::parse_args("usage: egui [options]", keys, |_, _| Ok(false)) {
        Ok(common) if common.file.is_some() => {
            eprintln!("error: egui shows the demo model; the viewer takes a file");
            return ExitCode::from(2);
        }
        Ok(common) => common,
        Err(code) => return code,
    };
    framework::gui::run("md2-wgpu egui".to_owned(), keys, common, |setup| {
        start(setup).map_err(|e| e.to_string())
    })
}

/// Once: pipelines for egui's pass as the host made it, the model, an empty
/// crowd, all put where the paint callback finds them.
fn start(setup: GuiSetup<'_>) -> Result<Example, Box<dyn std::error::Error>> {
    let mut options =
        Md2RendererOptions::DEFAULT.with_sample_count(setup.options.msaa_samples.max(1));
    if let Some(format) = setup.options.depth_stencil_format {
        options = options.with_depth(DepthState::standard(format));
    }
    let renderer = Md2Renderer::new(setup.device, setup.color_format, options)?;
    let (model, skins) = (demo::demo_model(), [demo::demo_skin()]);
    let gpu_model = GpuModel::new(setup.device, setup.queue, &renderer, &model, &skins)?;
    let crowd = Md2Crowd::new(setup.device, &renderer, &gpu_model)?;
    let members = Vec::new();
    setup.resources.insert(CrowdScene {
        renderer,
        crowd,
        members,
    });
    Ok(Example {
        time: 0.0,
        members: 60,
    })
}
