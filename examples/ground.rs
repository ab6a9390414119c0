//! A ground for models to stand on: a square on the plane y = height with a
//! grid of lines, fading into the background at its rim. The renderer draws
//! MD2 models only; this tiny pipeline is the examples' own.
//!
//! The crowd example and the viewer's inspector draw it. It knows nothing
//! of either: it is built for a [`GroundTarget`], the pass it will draw in.

use md2_wgpu::glam::{Mat4, Vec3};
use md2_wgpu::wgpu;

const SHADER: &str = r#"
struct Ground {
    view_proj: mat4x4<f32>,
    // xyz: the centre (y is the ground's height); w: half the side.
    center: vec4<f32>,
    // x: cell size; y: cells per major line; z: 1 to encode sRGB (a unorm
    // target shown as it is, as egui's are), 0 for an sRGB target.
    cell: vec4<f32>,
    base: vec4<f32>,
    line: vec4<f32>,
    background: vec4<f32>,
    // Pixels: left, top, right, bottom of an inset's frame (none if empty).
    frame: vec4<f32>,
}

@group(0) @binding(0) var<uniform> ground: Ground;

struct Varyings {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> Varyings {
    var corners = array<vec2<f32>, 6>(
        vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(1.0, 1.0),
        vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(-1.0, 1.0),
    );
    let xz = ground.center.xz + corners[index] * ground.center.w;
    var out: Varyings;
    out.clip = ground.view_proj * vec4(xz.x, ground.center.y, xz.y, 1.0);
    out.world = xz;
    return out;
}

// 1 on a line of the grid of `size`, 0 between, anti-aliased over a pixel;
// lines closer than a few pixels fade out instead of shimmering.
fn grid(p: vec2<f32>, size: f32) -> f32 {
    let q = p / size;
    let w = max(fwidth(q), vec2(1e-6));
    let d = abs(fract(q - 0.5) - 0.5) / w;
    let on_line = 1.0 - min(min(d.x, d.y), 1.0);
    let density = max(w.x, w.y);
    return on_line * (1.0 - smoothstep(0.15, 0.4, density));
}

@fragment
fn fs_main(in: Varyings) -> @location(0) vec4<f32> {
    let minor = grid(in.world, ground.cell.x);
    let major = grid(in.world, ground.cell.x * ground.cell.y);
    var color = mix(ground.base.rgb, ground.line.rgb, max(0.3 * minor, major));
    let rim = length(in.world - ground.center.xz) / ground.center.w;
    color = mix(color, ground.background.rgb, smoothstep(0.55, 1.0, rim));
    let p = in.clip.xy;
    let f = ground.frame;
    let inside = min(min(p.x - f.x, f.z - p.x), min(p.y - f.y, f.w - p.y));
    if f.z > f.x && inside < 2.0 {
        color = ground.line.rgb * 2.0;
    }
    if ground.cell.z > 0.5 {
        let c = clamp(color, vec3(0.0), vec3(1.0));
        color = select(1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, c * 12.92, c <= vec3(0.0031308));
    }
    return vec4(color, 1.0);
}
"#;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Uniforms {
    view_proj: [[f32; 4]; 4],
    center: [f32; 4],
    cell: [f32; 4],
    base: [f32; 4],
    line: [f32; 4],
    background: [f32; 4],
    frame: [f32; 4],
}

/// Where the ground is and how it looks, for [`Ground::prepare`].
#[derive(Clone, Copy, Debug)]
pub struct GroundParams {
    /// The centre of the square; its y is the ground's height.
    pub center: Vec3,
    /// Half the square's side.
    pub radius: f32,
    /// The side of a grid cell; every tenth line is drawn stronger.
    pub cell: f32,
    /// The colour the rim fades into: the frame's clear colour.
    pub background: wgpu::Color,
    /// For a ground that fills an inset view: the inset (x, y, width,
    /// height in pixels), framed by a line just inside it.
    pub inset: Option<[f32; 4]>,
}

/// The pass a [`Ground`] draws in.
#[derive(Clone, Copy, Debug)]
pub struct GroundTarget {
    /// The colour target's format: an sRGB one gets linear colour, any
    /// other the colour encoded as sRGB.
    pub color_format: wgpu::TextureFormat,
    /// The depth buffer's format, if the pass has one.
    pub depth_format: Option<wgpu::TextureFormat>,
    /// Samples per pixel.
    pub samples: u32,
}

/// The ground's pipeline and uniforms.
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    encode_srgb: bool,
}

impl Ground {
    /// The pipeline for passes like `target`, testing depth with `compare`:
    /// `Less` for a ground in the scene, `Always` for one that starts a view
    /// inset into a frame already drawn (a minimap), whose depth it
    /// replaces so that the inset's models are tested against it alone.
    pub fn new(
        device: &wgpu::Device,
        target: GroundTarget,
        compare: wgpu::CompareFunction,
    ) -> Ground {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("md2-wgpu example ground shader"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("md2-wgpu example ground bind group layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu example ground uniforms"),
            size: size_of::<Uniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("md2-wgpu example ground bind group"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        let pipeline = bufferless_pipeline(
            device,
            (
                "md2-wgpu example ground pipeline layout",
                "md2-wgpu example ground pipeline",
            ),
            &layout,
            &module,
            ("vs_main", "fs_main"),
            target,
            (true, compare),
        );
        Ground {
            pipeline,
            uniforms,
            bind_group,
            encode_srgb: !target.color_format.is_srgb(),
        }
    }

    /// Uploads the camera and the ground's look for the next frame.
    pub fn prepare(&self, queue: &wgpu::Queue, view_proj: Mat4, params: &GroundParams) {
        let c = params.background;
        let uniforms = Uniforms {
            view_proj: view_proj.to_cols_array_2d(),
            center: params.center.extend(params.radius).to_array(),
            cell: [
                params.cell,
                10.0,
                f32::from(u8::from(self.encode_srgb)),
                0.0,
            ],
            base: [0.10, 0.11, 0.12, 1.0],
            line: [0.24, 0.27, 0.30, 1.0],
            background: [c.r as f32, c.g as f32, c.b as f32, 1.0],
            frame: params
                .inset
                .map_or([0.0; 4], |[x, y, w, h]| [x, y, x + w, y + h]),
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
    }

    /// Draws the ground.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..6, 0..1);
    }
}

/// A pipeline whose vertex stage makes its vertices from their index, with
/// no vertex buffers (the ground's square, a full-screen triangle): one
/// bind group of `layout`, `module`'s (vertex, fragment) `entry_points`,
/// for passes like `target`, testing depth as `depth` says (whether it
/// writes, and the compare) where the pass has a depth buffer. `labels`
/// name the pipeline's layout and the pipeline.
pub fn bufferless_pipeline(
    device: &wgpu::Device,
    labels: (&str, &str),
    layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
    entry_points: (&str, &str),
    target: GroundTarget,
    (depth_write, depth_compare): (bool, wgpu::CompareFunction),
) -> wgpu::RenderPipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(labels.0),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(labels.1),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(entry_points.0),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: target.depth_format.map(|format| wgpu::DepthStencilState {
            format,
            depth_write_enabled: Some(depth_write),
            depth_compare: Some(depth_compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState {
            count: target.samples,
            ..Default::default()
        },
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(entry_points.1),
            compilation_options: Default::default(),
            targets: &[Some(target.color_format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}
