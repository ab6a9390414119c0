//! Shared by the GPU tests: a headless device, an offscreen render with
//! read-back, small models built in code, the real files in ../shared/md2,
//! and image comparisons.

#![allow(dead_code)] // each test crate uses its own part of this module

use std::path::{Path, PathBuf};

use image::RgbaImage;
use md2_wgpu::support::Headless;
use md2_wgpu::{
    Camera, Frame, Md2Batch, Md2Model, Md2Parts, Md2Renderer, PackedVertex, TexCoord, Triangle,
    nearest_normal_index,
};

/// A device and its queue, on whatever adapter the machine has.
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter: wgpu::AdapterInfo,
    pub features: wgpu::Features,
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
    gpu_with(|_| md2_wgpu::required_limits(), wgpu::Features::empty())
}

/// A headless device with the limits `limits` picks from the adapter's, and
/// those of `features` the adapter has.
pub fn gpu_with(
    limits: impl FnOnce(&wgpu::Adapter) -> wgpu::Limits,
    features: wgpu::Features,
) -> Option<Gpu> {
    match Headless::new(limits, features) {
        Ok(h) => Some(Gpu {
            adapter: h.adapter.get_info(),
            features: h.device.features(),
            device: h.device,
            queue: h.queue,
        }),
        Err(reason) => skip(&reason),
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
    batches: &[Md2Batch<'_>],
    width: u32,
    height: u32,
) -> RgbaImage {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, batches)
        .expect("prepare");
    draw_and_read(gpu, &[renderer], width, height)
}

/// An offscreen colour target (resolved, and multisampled where asked) with
/// its depth buffer.
pub struct Target {
    pub color: wgpu::Texture,
    pub msaa: Option<wgpu::Texture>,
    pub depth: Option<wgpu::Texture>,
}

impl Target {
    /// A target for `renderer`'s format and options.
    pub fn for_renderer(gpu: &Gpu, renderer: &Md2Renderer, width: u32, height: u32) -> Target {
        let format = renderer.color_format().expect("a colour renderer");
        let options = renderer.options();
        let samples = options.multisample.count;
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, sample_count, usage| {
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
        use wgpu::TextureUsages as U;
        Target {
            color: texture(
                "md2-wgpu test target",
                format,
                1,
                U::RENDER_ATTACHMENT | U::COPY_SRC,
            ),
            msaa: (samples > 1).then(|| {
                texture(
                    "md2-wgpu test msaa target",
                    format,
                    samples,
                    U::RENDER_ATTACHMENT,
                )
            }),
            depth: options.depth.map(|d| {
                texture(
                    "md2-wgpu test depth",
                    d.format,
                    samples,
                    U::RENDER_ATTACHMENT | U::COPY_SRC,
                )
            }),
        }
    }

    /// Begins a pass that clears colour to [`CLEAR`], depth to the far
    /// value of `depth` (0 for reverse-Z) and stencil to 0.
    pub fn begin<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        depth: Option<md2_wgpu::DepthState>,
    ) -> wgpu::RenderPass<'e> {
        let resolved = self.color.create_view(&Default::default());
        let msaa = self
            .msaa
            .as_ref()
            .map(|t| t.create_view(&Default::default()));
        let depth_view = self
            .depth
            .as_ref()
            .map(|t| t.create_view(&Default::default()));
        let (view, resolve_target) = match &msaa {
            Some(msaa) => (msaa, Some(&resolved)),
            None => (&resolved, None),
        };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
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
                let state = depth.expect("a depth state for a depth target");
                wgpu::RenderPassDepthStencilAttachment {
                    view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(far_depth(state.compare)),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: state.has_stencil().then_some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0),
                        store: wgpu::StoreOp::Store,
                    }),
                }
            }),
            ..Default::default()
        })
    }

    /// Reads the resolved colour back, submitting `encoder` first.
    pub fn read(&self, gpu: &Gpu, encoder: wgpu::CommandEncoder) -> RgbaImage {
        md2_wgpu::support::read_rgba8(&gpu.device, &gpu.queue, encoder, &self.color)
            .expect("read the target back")
    }
}

/// The depth a buffer is cleared to for this test: the far end.
pub fn far_depth(compare: wgpu::CompareFunction) -> f32 {
    use wgpu::CompareFunction as C;
    if matches!(compare, C::Greater | C::GreaterEqual) {
        0.0
    } else {
        1.0
    }
}

/// Renders whatever the last `prepare` of each renderer left, one after
/// the other into one pass of one target (the first renderer's format and
/// options), and reads the pixels back.
pub fn draw_and_read(gpu: &Gpu, renderers: &[&Md2Renderer], width: u32, height: u32) -> RgbaImage {
    let target = Target::for_renderer(gpu, renderers[0], width, height);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = target.begin(&mut encoder, renderers[0].options().depth);
        for renderer in renderers {
            renderer.render(&mut pass);
        }
    }
    target.read(gpu, encoder)
}

/// Where the shared community models are: `$MD2_SHARED_MODELS`, else
/// `../shared/md2` beside the crate; `None` (with the reason printed) where
/// that folder is absent, as in a fresh clone.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MD2_SHARED_MODELS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/md2"),
    };
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping the part that needs the shared models: {} is absent (a fresh clone has \
             no ../shared; set MD2_SHARED_MODELS to point elsewhere)",
            dir.display()
        );
        None
    }
}

/// `<shared models>/<relative>`, or `None` with the reason printed.
pub fn shared_file(relative: &str) -> Option<PathBuf> {
    let path = shared_dir()?.join(relative);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipping the part that needs {}: absent", path.display());
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

/// The built-in demo model with its skin, uploaded for `cache`'s renderers.
pub fn demo_gpu_model(gpu: &Gpu, cache: &impl AsRef<md2_wgpu::Md2Cache>) -> md2_wgpu::GpuModel {
    md2_wgpu::GpuModel::new(
        &gpu.device,
        &gpu.queue,
        cache,
        &md2_wgpu::demo::demo_model(),
        &[md2_wgpu::demo::demo_skin()],
    )
    .expect("the demo model uploads")
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

/// Per-face colours of `cube_model`'s 6 × 1 skin: front red, back blue, the
/// rest other colours.
pub fn cube_skin() -> RgbaImage {
    let colours = [
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 0, 255, 255],
    ];
    RgbaImage::from_fn(6, 1, |x, _| image::Rgba(colours[x as usize]))
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

/// Cargo's target directory (which `CARGO_TARGET_DIR` may move).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
    }
}

/// Where test pictures go for people to look at: <target>/test-pictures.
pub fn picture_dir() -> PathBuf {
    let dir = target_dir().join("test-pictures");
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
