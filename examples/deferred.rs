//! A small deferred renderer: the app's own G-buffer (albedo, normal, world
//! position, motion), filled by md2-wgpu with the app's material, then lit
//! by the app's own pass with several coloured point lights. A resident
//! crowd and one immediate model (a runner circling it) share the G-buffer;
//! a corner shows the motion vectors a TAA or motion-blur pass would read.
//!
//! ```text
//! cargo run --release --example deferred [-- FILE] [--instances N]
//! ```
//!
//! What the crate does here is the pose, in every pass, and exact motion:
//! the material (`GBUFFER_WGSL`) is all the app says about the look. The
//! lighting (`LIGHTING_WGSL`) is the app's own pass over its own textures.

use std::f32::consts::TAU;
use std::process::ExitCode;

use md2_wgpu::glam::{Mat4, Vec3, Vec4};
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, CrowdMember, DepthState, GpuModel, Md2Crowd, Md2Instance, Md2Renderer,
    Md2RendererOptions, Quake2Player, QuakeModel,
    anim::ClipClock,
    gpu::{Md2Batch, Md2Material, Md2MaterialDescriptor},
    scene::{Md2Previous, stand_on_ground},
    wgpu,
};
use wgpu::util::DeviceExt;
use winit::event::{ElementState, WindowEvent};
use winit::keyboard::Key;

use md2_wgpu_examples::framework::{self, App, FrameStats, Gpu, Loaded};
use md2_wgpu_examples::ground::bufferless_pipeline;

const USAGE: &str = "\
usage: deferred [FILE] [--instances N] [options]

  FILE                  an .md2 model (default: the built-in demo model)
  --instances N         crowd members (default 300, 1 to 100000)";

const KEYS: &str = "\
keys:
  M            cycle the view: lit / motion vectors / normals / albedo
  Space        pause the clock (the camera still moves: its motion only)
  Esc          quit";

const DEFAULT_INSTANCES: usize = 300;
const MAX_INSTANCES: usize = 100_000;
const LIGHTS: usize = 6;

/// The app's material: what its G-buffer holds. The crate calls it for the
/// opaque pass (and would for translucent members, shells and planar
/// shadows, which this scene has none of: they would be forward passes in a
/// deferred renderer, so the material leaves them out).
const GBUFFER_WGSL: &str = r#"
struct GBuffer {
    @location(0) albedo: vec4<f32>,
    @location(1) normal: vec4<f32>,
    @location(2) position: vec4<f32>,
    @location(3) motion: vec4<f32>,
};

// The app's own bind group (group 2): which member to highlight, and how
// much.
struct Highlight {
    id: u32,
    strength: f32,
};
@group(2) @binding(0) var<uniform> highlight: Highlight;

fn gbuffer(in: Md2Fragment) -> GBuffer {
    if in.phase != MD2_PHASE_OPAQUE {
        discard;
    }
    var albedo = md2_albedo(in).rgb * in.tint.rgb;
    if in.id == highlight.id {
        albedo = mix(albedo, vec3<f32>(1.0, 0.85, 0.3), highlight.strength);
    }
    return GBuffer(
        vec4<f32>(albedo, 1.0),
        vec4<f32>(normalize(in.world_normal), 1.0),
        vec4<f32>(in.world_position, 1.0),
        vec4<f32>(md2_motion(in), 0.0, 1.0),
    );
}
"#;

/// The app's lighting pass: a full-screen triangle that reads the
/// G-buffer. Its own shader, its own bind group: nothing of the crate's.
const LIGHTING_WGSL: &str = r#"
struct Light {
    position: vec4<f32>, // xyz, w: radius
    color: vec4<f32>,
};
struct Lighting {
    // Clip space to world, to find the ground under empty pixels.
    inverse_view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    ambient: vec4<f32>,
    // x: view (0 lit, 1 motion, 2 normals, 3 albedo); y: motion scale;
    // zw: the G-buffer's size in pixels.
    mode: vec4<f32>,
    lights: array<Light, 6>,
};
@group(0) @binding(0) var<uniform> lighting: Lighting;
@group(0) @binding(1) var albedo_map: texture_2d<f32>;
@group(0) @binding(2) var normal_map: texture_2d<f32>;
@group(0) @binding(3) var position_map: texture_2d<f32>;
@group(0) @binding(4) var motion_map: texture_2d<f32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// Where the ray through pixel `p` meets the ground (y = 0), if it does.
fn ground(p: vec2<i32>) -> vec4<f32> {
    let size = lighting.mode.zw;
    let ndc = vec2<f32>((f32(p.x) + 0.5) / size.x * 2.0 - 1.0, 1.0 - (f32(p.y) + 0.5) / size.y * 2.0);
    let far = lighting.inverse_view_proj * vec4<f32>(ndc, 1.0, 1.0);
    let dir = far.xyz / far.w - lighting.eye.xyz;
    let t = -lighting.eye.y / dir.y;
    return vec4<f32>(lighting.eye.xyz + dir * t, select(0.0, 1.0, t > 0.0));
}

fn lit(p: vec2<i32>) -> vec3<f32> {
    var albedo = textureLoad(albedo_map, p, 0);
    var n = textureLoad(normal_map, p, 0).xyz;
    var world = textureLoad(position_map, p, 0).xyz;
    if albedo.a == 0.0 {
        let g = ground(p);
        if g.w == 0.0 {
            return vec3<f32>(0.01, 0.01, 0.015);
        }
        albedo = vec4<f32>(0.35, 0.35, 0.35, 1.0);
        n = vec3<f32>(0.0, 1.0, 0.0);
        world = g.xyz;
    }
    var light = lighting.ambient.rgb;
    for (var k = 0u; k < 6u; k++) {
        let l = lighting.lights[k];
        let to = l.position.xyz - world;
        let d = length(to);
        let falloff = max(1.0 - d / l.position.w, 0.0);
        light += l.color.rgb * max(dot(n, to / d), 0.0) * falloff * falloff;
    }
    return albedo.rgb * light;
}

fn motion_color(m: vec2<f32>) -> vec3<f32> {
    let s = m * lighting.mode.y;
    return vec3<f32>(0.5 + s.x, 0.5 + s.y, 0.5 - 0.5 * (s.x + s.y));
}

@fragment
fn fs_lighting(@builtin(position) at: vec4<f32>) -> @location(0) vec4<f32> {
    let size = lighting.mode.zw;
    var p = vec2<i32>(at.xy);
    var view = u32(lighting.mode.x);
    // The bottom-right quarter shows the motion vectors of the whole frame.
    let corner = size * 0.7;
    if view == 0u && at.x > corner.x && at.y > corner.y {
        p = vec2<i32>((at.xy - corner) / 0.3);
        view = 1u;
    }
    switch view {
        case 1u: {
            if textureLoad(albedo_map, p, 0).a == 0.0 {
                return vec4<f32>(0.5, 0.5, 0.5, 1.0);
            }
            return vec4<f32>(motion_color(textureLoad(motion_map, p, 0).xy), 1.0);
        }
        case 2u: {
            return vec4<f32>(textureLoad(normal_map, p, 0).xyz * 0.5 + 0.5, 1.0);
        }
        case 3u: {
            return vec4<f32>(textureLoad(albedo_map, p, 0).rgb, 1.0);
        }
        default: {
            return vec4<f32>(lit(p), 1.0);
        }
    }
}
"#;

/// The G-buffer's formats, in the material's location order.
const ALBEDO: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const NORMAL: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
const POSITION: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;
const MOTION: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;
const GBUFFER_DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
const GBUFFER_FORMATS: [wgpu::TextureFormat; 4] = [ALBEDO, NORMAL, POSITION, MOTION];

/// The lighting uniform, as `Lighting` in LIGHTING_WGSL.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
struct LightingUniform {
    inverse_view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    ambient: [f32; 4],
    mode: [f32; 4],
    lights: [[[f32; 4]; 2]; LIGHTS],
}

fn main() -> ExitCode {
    let (common, loaded, instances) =
        match framework::crowd_args(USAGE, KEYS, (DEFAULT_INSTANCES, MAX_INSTANCES), |_, _| {
            Ok(false)
        }) {
            Ok(args) => args,
            Err(code) => return code,
        };
    let title = format!("md2-wgpu deferred — {}", loaded.name);
    framework::run(title, KEYS, common, move |gpu| {
        Deferred::new(gpu, loaded, instances)
    })
}

/// The G-buffer's textures at one size, and the lighting pass's bind group
/// over them.
struct GBuffer {
    size: (u32, u32),
    views: Vec<wgpu::TextureView>,
    depth: wgpu::TextureView,
    lighting_group: wgpu::BindGroup,
}

struct Deferred {
    renderer: Md2Renderer,
    model: QuakeModel,
    gpu_model: GpuModel,
    crowd: Md2Crowd,
    /// The runner circling the crowd: drawn on the immediate path, with
    /// what it showed the frame before, for its motion.
    runner: Md2Instance,
    runner_before: Md2Previous,
    gbuffer: Option<GBuffer>,
    lighting_layout: wgpu::BindGroupLayout,
    lighting_pipeline: wgpu::RenderPipeline,
    lighting_buffer: wgpu::Buffer,
    highlight: wgpu::Buffer,
    camera: Camera,
    eye: Vec3,
    time: f64,
    camera_time: f32,
    paused: bool,
    view: u32,
    /// The crowd's compute pass for this update is recorded once (a
    /// screenshot encodes the frame again).
    crowd_due: bool,
    radius: f32,
}

impl Deferred {
    fn new(gpu: &Gpu, loaded: Loaded, instances: usize) -> Result<Deferred, String> {
        let Loaded {
            model,
            skins,
            options: upload,
            ..
        } = loaded;
        let device = &gpu.device;
        let cache = md2_wgpu::gpu::Md2Cache::new(device).map_err(|e| e.to_string())?;
        // The app's own bind group: a uniform its material reads.
        let highlight_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("deferred highlight layout"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::FRAGMENT)],
        });
        let targets: Vec<_> = GBUFFER_FORMATS
            .iter()
            .map(|&format| wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })
            .collect();
        let material = Md2Material::new(
            device,
            &cache,
            &Md2MaterialDescriptor {
                label: "deferred g-buffer",
                source: GBUFFER_WGSL,
                fragment: "gbuffer",
                targets: &targets,
                bind_group_layout: Some(&highlight_layout),
            },
        )
        .map_err(|e| e.to_string())?;
        let options = Md2RendererOptions::DEFAULT.with_depth(DepthState::standard(GBUFFER_DEPTH));
        let mut renderer = Md2Renderer::with_material(device, &cache, &material, options)
            .map_err(|e| e.to_string())?;
        let highlight = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("deferred highlight"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        renderer.set_material_bind_group(Some(device.create_bind_group(
            &wgpu::BindGroupDescriptor {
                label: Some("deferred highlight"),
                layout: &highlight_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: highlight.as_entire_binding(),
                }],
            },
        )));
        let gpu_model =
            GpuModel::with_options(device, &gpu.queue, &renderer, &model, &skins, upload)
                .map_err(|e| e.to_string())?;

        // The crowd: a grid of members standing about, each with its own
        // clip, phase, heading and tint.
        let mut crowd = Md2Crowd::new(device, &renderer, &gpu_model).map_err(|e| e.to_string())?;
        let clips = model.clips();
        let bounds = model.bounds();
        let height = (bounds.max[2] - bounds.min[2]).max(1.0);
        let spacing = height * 0.9;
        let side = (instances as f32).sqrt().ceil() as usize;
        let mut rng = Rng::new(17);
        for i in 0..instances {
            let x = ((i % side) as f32 - side as f32 / 2.0) * spacing;
            let z = ((i / side) as f32 - side as f32 / 2.0) * spacing;
            let clip = clips[rng.below(clips.len())].clone();
            let frames = clip.frames();
            let place = stand_on_ground(&model, frames, Vec3::new(x, 0.0, z))
                * Mat4::from_rotation_y(rng.range(0.0, TAU));
            let tint = [
                rng.range(0.6, 1.0),
                rng.range(0.6, 1.0),
                rng.range(0.6, 1.0),
                1.0,
            ];
            let clock = ClipClock::new(clip, -rng.unit_f64() * 10.0);
            crowd
                .add(CrowdMember::new(place, clock).with_tint(tint))
                .map_err(|e| e.to_string())?;
        }
        let radius = side as f32 * spacing * 0.5 + height;
        let runner = Md2Instance::default().with_id(u32::MAX);

        let (lighting_layout, lighting_pipeline) = lighting_pipeline(gpu);
        let lighting_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("deferred lighting"),
            contents: bytemuck::bytes_of(&LightingUniform::zeroed_default()),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        Ok(Deferred {
            renderer,
            model,
            gpu_model,
            crowd,
            runner,
            runner_before: Md2Previous::of(&runner),
            gbuffer: None,
            lighting_layout,
            lighting_pipeline,
            lighting_buffer,
            highlight,
            camera: Camera::default(),
            eye: Vec3::ZERO,
            time: 0.0,
            camera_time: 0.0,
            paused: false,
            view: 0,
            crowd_due: false,
            radius,
        })
    }

    /// The G-buffer for `size`, made again when the window's size changed.
    fn fit_gbuffer(&mut self, gpu: &Gpu) {
        if self.gbuffer.as_ref().is_some_and(|g| g.size == gpu.size) {
            return;
        }
        let texture = |format, usage| {
            gpu.device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("deferred g-buffer"),
                    size: wgpu::Extent3d {
                        width: gpu.size.0,
                        height: gpu.size.1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        use wgpu::TextureUsages as U;
        let views: Vec<_> = GBUFFER_FORMATS
            .iter()
            .map(|&f| texture(f, U::RENDER_ATTACHMENT | U::TEXTURE_BINDING))
            .collect();
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: self.lighting_buffer.as_entire_binding(),
        }];
        entries.extend(
            views
                .iter()
                .enumerate()
                .map(|(k, view)| wgpu::BindGroupEntry {
                    binding: k as u32 + 1,
                    resource: wgpu::BindingResource::TextureView(view),
                }),
        );
        let lighting_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("deferred lighting"),
            layout: &self.lighting_layout,
            entries: &entries,
        });
        self.gbuffer = Some(GBuffer {
            size: gpu.size,
            views,
            depth: texture(GBUFFER_DEPTH, U::RENDER_ATTACHMENT),
            lighting_group,
        });
    }
}

impl LightingUniform {
    fn zeroed_default() -> LightingUniform {
        bytemuck::Zeroable::zeroed()
    }
}

fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The app's lighting pass, drawn into the framework's frame pass (its
/// format, samples and depth buffer, left alone).
fn lighting_pipeline(gpu: &Gpu) -> (wgpu::BindGroupLayout, wgpu::RenderPipeline) {
    let device = &gpu.device;
    let texture = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("deferred lighting layout"),
        entries: &[
            uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
            texture(1),
            texture(2),
            texture(3),
            texture(4),
        ],
    });
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("deferred lighting"),
        source: wgpu::ShaderSource::Wgsl(LIGHTING_WGSL.into()),
    });
    let pipeline = bufferless_pipeline(
        device,
        ("deferred lighting", "deferred lighting"),
        &layout,
        &shader,
        ("vs_fullscreen", "fs_lighting"),
        gpu.ground_target(),
        (false, wgpu::CompareFunction::Always),
    );
    (layout, pipeline)
}

impl App for Deferred {
    fn update(&mut self, gpu: &Gpu, dt: f32) {
        self.fit_gbuffer(gpu);
        if !self.paused {
            self.time += f64::from(dt.min(0.25));
        }
        self.camera_time += dt.min(0.25);
        // The camera circles the crowd (so every pixel has camera motion);
        // the runner circles inside, on the immediate path.
        let a = self.camera_time * 0.15;
        self.eye = Vec3::new(a.cos(), 0.45, a.sin()) * self.radius * 1.15;
        self.camera = Camera::look_at(
            self.eye,
            Vec3::ZERO,
            0.9,
            gpu.aspect(),
            1.0,
            self.radius * 6.0,
        );
        self.runner_before = Md2Previous::of(&self.runner);
        let run = Quake2Player::Run.clip();
        let b = (self.time * 0.4) as f32;
        let at = Vec3::new(b.cos(), 0.0, b.sin()) * self.radius * 0.8;
        let frames = run.frames();
        self.runner.transform =
            stand_on_ground(&self.model, frames, at) * Mat4::from_rotation_y(-b);
        self.runner.pose = run.sample(self.time).into();

        let lights = std::array::from_fn(|k| {
            let phase = k as f32 / LIGHTS as f32 * TAU + self.time as f32 * 0.3;
            let r = self.radius * (0.3 + 0.12 * k as f32);
            let position = Vec4::new(
                phase.cos() * r,
                self.radius * 0.25,
                phase.sin() * r,
                self.radius * 0.9,
            );
            let hue = k as f32 / LIGHTS as f32 * TAU;
            let color = Vec3::new(
                hue.cos() * 0.5 + 0.5,
                (hue + 2.1).cos() * 0.5 + 0.5,
                (hue + 4.2).cos() * 0.5 + 0.5,
            ) * 1.6;
            [position.to_array(), color.extend(0.0).to_array()]
        });
        let uniform = LightingUniform {
            inverse_view_proj: self.camera.view_proj.inverse().to_cols_array_2d(),
            eye: self.eye.extend(1.0).to_array(),
            ambient: [0.08, 0.08, 0.1, 0.0],
            mode: [self.view as f32, 40.0, gpu.size.0 as f32, gpu.size.1 as f32],
            lights,
        };
        gpu.queue
            .write_buffer(&self.lighting_buffer, 0, bytemuck::bytes_of(&uniform));
        let pulse = (self.time as f32 * 3.0).sin() * 0.5 + 0.5;
        gpu.queue.write_buffer(
            &self.highlight,
            0,
            bytemuck::cast_slice(&[u32::MAX, pulse.to_bits()]),
        );
        let instances = [self.runner];
        let before = [self.runner_before];
        let batch = [Md2Batch::new(&self.gpu_model, &instances).with_previous(&before)];
        if let Err(e) = self
            .renderer
            .prepare(&gpu.device, &gpu.queue, &self.camera, &batch)
        {
            eprintln!("warning: {e}");
        }
        self.crowd_due = true;
    }

    fn encode(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder) {
        if std::mem::take(&mut self.crowd_due)
            && let Err(e) = self.renderer.prepare_crowds(
                &gpu.device,
                &gpu.queue,
                encoder,
                self.time,
                [&mut self.crowd],
            )
        {
            eprintln!("warning: {e}");
        }
        let Some(gbuffer) = &self.gbuffer else {
            return;
        };
        // The G-buffer pass: the crate draws the crowd and the runner with
        // the app's material.
        let attachments: Vec<_> = gbuffer
            .views
            .iter()
            .map(|view| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("deferred g-buffer pass"),
            color_attachments: &attachments,
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &gbuffer.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        self.renderer.render(&mut pass);
    }

    fn render(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(gbuffer) = &self.gbuffer else {
            return;
        };
        pass.set_pipeline(&self.lighting_pipeline);
        pass.set_bind_group(0, &gbuffer.lighting_group, &[]);
        pass.draw(0..3, 0..1);
    }

    fn input(&mut self, event: &WindowEvent) {
        let WindowEvent::KeyboardInput { event, .. } = event else {
            return;
        };
        if event.state != ElementState::Pressed {
            return;
        }
        match &event.logical_key {
            Key::Character(c) if c.eq_ignore_ascii_case("m") => self.view = (self.view + 1) % 4,
            Key::Named(winit::keyboard::NamedKey::Space) => self.paused = !self.paused,
            _ => {}
        }
    }

    fn title(&self, stats: &FrameStats) -> String {
        let view = ["lit", "motion vectors", "normals", "albedo"][self.view as usize];
        format!(
            "md2-wgpu deferred — {} members + a runner, {LIGHTS} lights — {view}{} — {}",
            self.crowd.len(),
            if self.paused { " (paused)" } else { "" },
            stats.fps_text()
        )
    }
}
