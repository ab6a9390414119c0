//! The shortest program that shows an animated MD2 model: the crate's
//! built-in demo model, running, lit and textured, in a window.
//!
//! ```text
//! cargo run --release --example hello
//! ```
//!
//! All that md2-wgpu asks of a program is here: a renderer made for the
//! program's render pass, the model uploaded once, and every frame a
//! `prepare` before the pass and a `render` inside it. The window, the
//! surface (resized, and its errors handled) and the pass itself are the
//! examples' framework (`examples/framework/mod.rs`); the pass has a depth
//! buffer cleared to 1 and the multisampling `Gpu` says.

use std::process::ExitCode;

use md2_wgpu::glam::Mat4;
use md2_wgpu::{
    Camera, DepthState, GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions,
    Quake2Player, demo, gpu::Md2Batch, wgpu,
};

use md2_wgpu_examples::framework::{self, App, FrameStats, Gpu};

const USAGE: &str = "usage: hello [options]

Shows the built-in demo model running.";

const KEYS: &str = "keys:\n  Esc          quit";

struct Hello {
    renderer: Md2Renderer,
    model: Md2Model,
    gpu_model: GpuModel,
    /// Seconds since the start.
    time: f64,
}

impl Hello {
    fn new(gpu: &Gpu) -> Result<Hello, String> {
        // Pipelines for the pass the renderer will draw in: its colour
        // format, depth buffer and samples per pixel.
        let options = Md2RendererOptions::DEFAULT
            .with_depth(DepthState::standard(gpu.depth_format))
            .with_sample_count(gpu.sample_count);
        let renderer =
            Md2Renderer::new(&gpu.device, gpu.color_format, options).map_err(|e| e.to_string())?;
        // Uploaded once: every frame of it, and its skin.
        let model = demo::demo_model();
        let skins = [demo::demo_skin()];
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins)
            .map_err(|e| e.to_string())?;
        Ok(Hello {
            renderer,
            model,
            gpu_model,
            time: 0.0,
        })
    }
}

impl App for Hello {
    /// Before the pass: where the camera is and what to draw this frame.
    fn update(&mut self, gpu: &Gpu, dt: f32) {
        self.time += f64::from(dt);
        let clip = Quake2Player::Run.clip();
        let run = Md2Instance::from_clip(Mat4::IDENTITY, &clip, self.time);
        let camera = Camera::framing_frames(&self.model, clip.frames(), gpu.aspect());
        let batch = Md2Batch::new(&self.gpu_model, std::slice::from_ref(&run));
        self.renderer
            .prepare(&gpu.device, &gpu.queue, &camera, &[batch])
            .expect("the demo model has the run's frames");
    }

    /// Inside the pass: the draws.
    fn render(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(pass);
    }

    fn title(&self, stats: &FrameStats) -> String {
        format!("md2-wgpu hello — {} fps", stats.fps_text())
    }
}

fn main() -> ExitCode {
    let common = match framework::parse_args(USAGE, KEYS, |_, _| Ok(false)) {
        Ok(common) if common.file.is_some() => {
            eprintln!("error: hello shows the demo model; the viewer takes a file");
            return ExitCode::from(2);
        }
        Ok(common) => common,
        Err(code) => return code,
    };
    framework::run("md2-wgpu hello".to_owned(), KEYS, common, Hello::new)
}
