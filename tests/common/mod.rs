//! Shared by the GPU tests: a headless device, an offscreen render with
//! read-back, small models built in code, the real files in ../shared/md2,
//! and image comparisons.

#![allow(dead_code)] // each test crate uses its own part of this module

use std::path::{Path, PathBuf};

use image::RgbaImage;
use md2_wgpu::{
    Camera, Frame, GpuModel, Md2Instance, Md2Model, Md2Parts, Md2Renderer, PackedVertex, TexCoord,
    Triangle, nearest_normal_index,
};

/// A device and its queue, on whatever adapter the machine has.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
}

/// No adapter: print why and skip, unless MD2_REQUIRE_GPU=1 makes it a
/// failure.
fn skip(reason: &str) -> Option<Gpu> {
    if std::env::var("MD2_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("MD2_REQUIRE_GPU=1 but no usable GPU: {reason}");
    }
    eprintln!("SKIPPING GPU test: {reason} (set MD2_REQUIRE_GPU=1 to make this a failure)");
    None
}

/// A headless device with the limits the renderer says it needs.
pub fn gpu() -> Option<Gpu> {
    gpu_with_limits(|_| md2_wgpu::required_limits())
}

/// A headless device with the limits `limits` picks from the adapter's.
pub fn gpu_with_limits(limits: impl FnOnce(wgpu::Limits) -> wgpu::Limits) -> Option<Gpu> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = match pollster::block_on(instance.request_adapter(&Default::default())) {
        Ok(adapter) => adapter,
        Err(e) => return skip(&format!("no adapter: {e}")),
    };
    let info = adapter.get_info();
    let caps = adapter.get_downlevel_capabilities();
    if !caps.flags.contains(md2_wgpu::required_downlevel_flags()) {
        return skip(&format!(
            "adapter {} lacks {:?}",
            info.name,
            md2_wgpu::required_downlevel_flags()
        ));
    }
    let required_limits = limits(adapter.limits());
    let request = adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("md2-wgpu test device"),
        required_limits,
        ..Default::default()
    });
    match pollster::block_on(request) {
        Ok((device, queue)) => Some(Gpu {
            device,
            queue,
            adapter: info,
        }),
        Err(e) => skip(&format!("adapter {} gave no device: {e}", info.name)),
    }
}

/// The colour the target is cleared to: transparent black, so alpha tells
/// model pixels from background.
pub const CLEAR: wgpu::Color = wgpu::Color::TRANSPARENT;

/// Renders the batches with `renderer` into a fresh `width` × `height`
/// target of the renderer's format (with depth and multisampling as its
/// options say) and reads the pixels back.
pub fn render(
    gpu: &Gpu,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batches: &[(&GpuModel, &[Md2Instance])],
    width: u32,
    height: u32,
) -> RgbaImage {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .expect("prepare");
    draw_and_read(gpu, renderer, width, height)
}

/// Renders whatever the last `prepare` left and reads the pixels back.
pub fn draw_and_read(gpu: &Gpu, renderer: &Md2Renderer, width: u32, height: u32) -> RgbaImage {
    let format = renderer.color_format();
    let options = renderer.options();
    let samples = options.multisample.count;
    let size = wgpu::Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let target = |label, sample_count, usage| {
        gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size,
            mip_level_count: 1,
            sample_count,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
            view_formats: &[],
        })
    };
    let resolved = target(
        "md2-wgpu test target",
        1,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let multisampled = (samples > 1).then(|| {
        target(
            "md2-wgpu test msaa target",
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        )
    });
    let depth = options.depth_format.map(|format| {
        gpu.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("md2-wgpu test depth"),
            size,
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
    });
    let resolved_view = resolved.create_view(&Default::default());
    let msaa_view = multisampled
        .as_ref()
        .map(|t| t.create_view(&Default::default()));
    let depth_view = depth.as_ref().map(|t| t.create_view(&Default::default()));

    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let (view, resolve_target) = match &msaa_view {
            Some(msaa) => (msaa, Some(&resolved_view)),
            None => (&resolved_view, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("md2-wgpu test pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(CLEAR),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: depth_view.as_ref().map(|view| {
                wgpu::RenderPassDepthStencilAttachment {
                    view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }
            }),
            ..Default::default()
        });
        renderer.render(&mut pass);
    }
    read_texture(gpu, encoder, &resolved, width, height)
}

/// Copies an RGBA8 (or BGRA8) texture back, respecting the 256-byte row
/// alignment of texture-to-buffer copies.
pub fn read_texture(
    gpu: &Gpu,
    mut encoder: wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    width: u32,
    height: u32,
) -> RgbaImage {
    let row = 4 * width;
    let padded_row =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("md2-wgpu test readback"),
        size: u64::from(padded_row) * u64::from(height),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    gpu.queue.submit([encoder.finish()]);
    buffer.map_async(wgpu::MapMode::Read, .., |r| r.expect("map readback"));
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let bgra = matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let mut pixels = Vec::with_capacity((row * height) as usize);
    {
        let view = buffer.get_mapped_range(..).expect("mapped");
        for y in 0..height as usize {
            let start = y * padded_row as usize;
            pixels.extend_from_slice(&view[start..start + row as usize]);
        }
    }
    buffer.unmap();
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    RgbaImage::from_raw(width, height, pixels).expect("pixel count")
}

/// `../shared/md2/<relative>`, or `None` with the reason printed.
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/md2")
        .join(relative);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipping the part that needs {}: absent (a fresh clone has no ../shared)",
            path.display()
        );
        None
    }
}

/// A real model from ../shared/md2 and (optionally) its skin, or `None`
/// with the reason printed.
pub fn shared_model(relative: &str, skin: Option<&str>) -> Option<(Md2Model, Vec<RgbaImage>)> {
    let model = Md2Model::open(shared_file(relative)?).expect("real model parses");
    let skins = match skin {
        Some(skin) => vec![md2_wgpu::skins::load_skin(shared_file(skin)?).expect("skin decodes")],
        None => Vec::new(),
    };
    Some((model, skins))
}

/// One triangle of a built model: three positions in Quake axes and their
/// texels.
pub struct Face {
    pub corners: [[f32; 3]; 3],
    pub texels: [(i16, i16); 3],
}

/// A one-frame model of separate triangles (no shared vertices), each wound
/// as real MD2 files are, clockwise seen from the side `outward` points to,
/// with every vertex normal `outward`. Positions are quantised to the
/// frame's 8-bit grid over their bounds.
pub fn model_from_faces(faces: &[(Face, [f32; 3])], skin_size: (u32, u32)) -> Md2Model {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (face, _) in faces {
        for p in &face.corners {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    let scale: [f32; 3] = std::array::from_fn(|k| ((hi[k] - lo[k]) / 255.0).max(1e-6));
    let mut vertices = Vec::new();
    let mut tex_coords = Vec::new();
    let mut triangles = Vec::new();
    for (face, outward) in faces {
        let [a, mut b, mut c] = face.corners;
        let [ta, mut tb, mut tc] = face.texels;
        let e1 = sub(b, a);
        let e2 = sub(c, a);
        let cross = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        if cross[0] * outward[0] + cross[1] * outward[1] + cross[2] * outward[2] > 0.0 {
            std::mem::swap(&mut b, &mut c);
            std::mem::swap(&mut tb, &mut tc);
        }
        let normal = nearest_normal_index(*outward);
        let base = vertices.len() as u16;
        for (p, (s, t)) in [(a, ta), (b, tb), (c, tc)] {
            vertices.push(PackedVertex {
                position: std::array::from_fn(|k| ((p[k] - lo[k]) / scale[k]).round() as u8),
                normal_index: normal,
            });
            tex_coords.push(TexCoord { s, t });
        }
        triangles.push(Triangle {
            xyz: [base, base + 1, base + 2],
            st: [base, base + 1, base + 2],
        });
    }
    Md2Model::from_parts(Md2Parts {
        skin_size,
        skins: Vec::new(),
        tex_coords,
        triangles,
        frames: vec![Frame::new("still", scale, lo)],
        vertices,
    })
    .expect("built model is valid")
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The two triangles of the quadrilateral with these corners (in order
/// around it) and their texels.
pub fn quad(
    corners: [[f32; 3]; 4],
    texels: [(i16, i16); 4],
    outward: [f32; 3],
) -> [(Face, [f32; 3]); 2] {
    let [p0, p1, p2, p3] = corners;
    let [t0, t1, t2, t3] = texels;
    [
        (
            Face {
                corners: [p0, p1, p2],
                texels: [t0, t1, t2],
            },
            outward,
        ),
        (
            Face {
                corners: [p0, p2, p3],
                texels: [t0, t2, t3],
            },
            outward,
        ),
    ]
}

/// A cube of side 2 around the origin (Quake axes), each face one texel of
/// a 6 × 1 skin: +X (the front) texel 0, −X texel 1, +Y 2, −Y 3, +Z 4,
/// −Z 5.
pub fn cube_model() -> Md2Model {
    let mut faces = Vec::new();
    for axis in 0..3 {
        for (side, sign) in [1.0f32, -1.0].into_iter().enumerate() {
            let u = (axis + 1) % 3;
            let v = (axis + 2) % 3;
            let corner = |a: f32, b: f32| {
                let mut p = [0.0; 3];
                p[axis] = sign;
                p[u] = a;
                p[v] = b;
                p
            };
            let mut outward = [0.0; 3];
            outward[axis] = sign;
            let texel = ((2 * axis + side) as i16, 0);
            faces.extend(quad(
                [
                    corner(-1.0, -1.0),
                    corner(1.0, -1.0),
                    corner(1.0, 1.0),
                    corner(-1.0, 1.0),
                ],
                [texel; 4],
                outward,
            ));
        }
    }
    model_from_faces(&faces, (6, 1))
}

/// A unit square facing the front (+X in Quake axes, +Z in the Y-up world),
/// from (y, z) = (−0.5, −0.5) to (0.5, 0.5), its corners mapped to texels
/// (0, 0) at the top left as seen from the front, (`s`, `t`) at the bottom
/// right. Seen from the front, Quake +Y (the square's left) is on the
/// viewer's right.
pub fn front_square(s: i16, t: i16, skin_size: (u32, u32)) -> Md2Model {
    let c = |y: f32, z: f32| [0.0, y, z];
    let faces = quad(
        [c(-0.5, 0.5), c(0.5, 0.5), c(0.5, -0.5), c(-0.5, -0.5)],
        [(0, 0), (s, 0), (s, t), (0, t)],
        [1.0, 0.0, 0.0],
    );
    model_from_faces(&faces, skin_size)
}

/// A solid-colour skin.
pub fn solid_skin(width: u32, height: u32, rgba: [u8; 4]) -> RgbaImage {
    RgbaImage::from_pixel(width, height, image::Rgba(rgba))
}

/// An orthographic camera looking down −Z at the rectangle `x0..x1`,
/// `y0..y1` of the Y-up world, with ambient light only (the skin's colours
/// times `ambient`).
pub fn ortho_camera(x0: f32, x1: f32, y0: f32, y1: f32, ambient: f32) -> Camera {
    let proj = glam::camera::rh::proj::directx::orthographic(x0, x1, y0, y1, 0.0, 200.0);
    let view = glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, -100.0));
    Camera {
        view_proj: proj * view,
        light: md2_wgpu::Light::ambient_only(ambient),
    }
}

/// Pixels covered by the model (alpha above zero).
pub fn coverage(image: &RgbaImage) -> usize {
    image.pixels().filter(|p| p.0[3] > 0).count()
}

/// Pixels whose colour differs by more than `tolerance` in any channel.
pub fn differing_pixels(a: &RgbaImage, b: &RgbaImage, tolerance: u8) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| (0..4).any(|c| p.0[c].abs_diff(q.0[c]) > tolerance))
        .count()
}

/// Mean absolute difference per channel, over every pixel (0..255).
pub fn mean_difference(a: &RgbaImage, b: &RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let total: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| u64::from(x.abs_diff(y)))
        .sum();
    total as f64 / a.as_raw().len() as f64
}

/// Where test pictures go for people to look at: target/test-pictures.
pub fn picture_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-pictures");
    std::fs::create_dir_all(&dir).expect("create target/test-pictures");
    dir
}

/// Saves `image` under target/test-pictures for looking at.
pub fn save_picture(image: &RgbaImage, name: &str) {
    let path = picture_dir().join(name);
    image.save(&path).expect("write test picture");
}

/// The sRGB byte the renderer writes for linear value `c`.
pub fn srgb_byte(c: f32) -> u8 {
    let c = c.clamp(0.0, 1.0);
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// A camera framing `model` in the given frames (three-quarter front view,
/// default light).
pub fn frames_camera(model: &Md2Model, frames: &[u32], aspect: f32) -> Camera {
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for &f in frames {
        let (a, b) = model.frame_bounds(f);
        lo = lo.min(md2_wgpu::quake_to_y_up(a));
        hi = hi.max(md2_wgpu::quake_to_y_up(b));
    }
    Camera::framing(lo, hi, glam::Vec3::new(0.45, 0.3, 1.0), aspect)
}

/// How many different colours the covered pixels have: a lit, textured
/// model has many, a black or flat silhouette one or two.
pub fn distinct_colours(image: &RgbaImage) -> usize {
    let mut colours: Vec<[u8; 4]> = image.pixels().filter(|p| p.0[3] > 0).map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    colours.len()
}
