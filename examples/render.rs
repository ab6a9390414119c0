//! Renders an MD2 model offscreen and writes a PNG: a thumbnail, or a
//! contact sheet with one pose of every animation.
//!
//! ```text
//! cargo run --release --example render -- [FILE] [--skin PATH]
//!     [--frame N | --anim NAME [--t T]] [--size WxH] [--out PATH] [--sheet]
//! ```
//!
//! Without FILE it draws the built-in demo model.

use std::path::PathBuf;
use std::process::ExitCode;

use glam::{Mat4, Quat, Vec3};
use image::RgbaImage;
use md2_wgpu::{
    Animation, Camera, Clip, FrameLerp, GpuModel, Md2Instance, Md2Model, Md2Renderer,
    Md2RendererOptions, quake_to_y_up,
};

const USAGE: &str = "\
usage: render [FILE] [--skin PATH] [--frame N | --anim NAME [--t T]] [--size WxH]
              [--out PATH] [--sheet]

Renders an MD2 model offscreen and writes a PNG.

  FILE          the .md2 file (default: the built-in demo model)
  --skin PATH   the skin image (default: found next to the model, as Quake II
                lays skins out; the demo model's own skin for the demo)
  --frame N     the frame to draw (default 0)
  --anim NAME   an animation, by the name `md2info` lists (stand, run, ...)
  --t T         seconds into the animation (10 frames a second; default 0)
  --size WxH    picture size (default 256x256); with --sheet, one cell's size
                (default 128x128)
  --out PATH    where to write the PNG (default render.png)
  --sheet       a contact sheet: one pose of every animation, labelled";

/// What the command line asks for.
struct Args {
    file: Option<PathBuf>,
    skin: Option<PathBuf>,
    frame: Option<u32>,
    anim: Option<String>,
    t: Option<f32>,
    size: Option<(u32, u32)>,
    out: PathBuf,
    sheet: bool,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut args = Args {
        file: None,
        skin: None,
        frame: None,
        anim: None,
        t: None,
        size: None,
        out: PathBuf::from("render.png"),
        sheet: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value (see --help)"))
        };
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--skin" => args.skin = Some(PathBuf::from(value("--skin")?)),
            "--frame" => {
                let v = value("--frame")?;
                let n = v
                    .parse()
                    .map_err(|_| format!("--frame {v:?} is not a frame number"))?;
                args.frame = Some(n);
            }
            "--anim" => args.anim = Some(value("--anim")?),
            "--t" => {
                let v = value("--t")?;
                let t: f32 = v
                    .parse()
                    .map_err(|_| format!("--t {v:?} is not a number of seconds"))?;
                if !t.is_finite() {
                    return Err(format!("--t {v:?} is not a finite number of seconds"));
                }
                args.t = Some(t);
            }
            "--size" => {
                let v = value("--size")?;
                args.size = Some(parse_size(&v)?);
            }
            "--out" => args.out = PathBuf::from(value("--out")?),
            "--sheet" => args.sheet = true,
            flag if flag.starts_with('-') => {
                return Err(format!("unknown option {flag:?} (see --help)"));
            }
            file => {
                if args.file.is_some() {
                    return Err(format!("more than one FILE given ({file:?})"));
                }
                args.file = Some(PathBuf::from(file));
            }
        }
    }
    if args.frame.is_some() && args.anim.is_some() {
        return Err("--frame and --anim are alternatives: give one".into());
    }
    if args.t.is_some() && args.anim.is_none() {
        return Err("--t needs --anim".into());
    }
    if args.sheet && (args.frame.is_some() || args.anim.is_some()) {
        return Err("--sheet draws every animation: leave out --frame and --anim".into());
    }
    Ok(Some(args))
}

fn parse_size(v: &str) -> Result<(u32, u32), String> {
    let bad = || format!("--size {v:?} is not WxH (e.g. 256x256)");
    let (w, h) = v.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if !(8..=8192).contains(&w) || !(8..=8192).contains(&h) {
        return Err(format!("--size {v:?}: each side must be 8 to 8192 pixels"));
    }
    Ok((w, h))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("render: {message}");
            return ExitCode::FAILURE;
        }
    };
    match run(&args) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("render: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The model, its skins, and a name for reports.
fn load(args: &Args) -> Result<(Md2Model, Vec<RgbaImage>, String), String> {
    let (model, name) = match &args.file {
        Some(path) => {
            if !path.is_file() {
                return Err(format!("{}: no such file", path.display()));
            }
            // Every error from `open` names the file.
            let model = Md2Model::open(path).map_err(|e| e.to_string())?;
            (model, path.display().to_string())
        }
        None => (md2_wgpu::demo::demo_model(), "the demo model".to_owned()),
    };
    let skins = match (&args.skin, &args.file) {
        (Some(skin), _) => {
            if !skin.is_file() {
                return Err(format!("skin {}: no such file", skin.display()));
            }
            vec![md2_wgpu::skins::load_skin(skin).map_err(|e| e.to_string())?]
        }
        (None, Some(path)) => {
            let loaded = md2_wgpu::skins::load_skins(path, &model);
            for note in loaded.notes() {
                eprintln!("render: {note}");
            }
            loaded.images
        }
        (None, None) => vec![md2_wgpu::demo::demo_skin()],
    };
    Ok((model, skins, name))
}

fn run(args: &Args) -> Result<String, String> {
    let (model, skins, name) = load(args)?;
    let animations = model.animations();
    let gpu = Headless::new()?;
    let options = Md2RendererOptions::WITH_DEPTH.with_sample_count(gpu.samples);
    let mut renderer = Md2Renderer::new(&gpu.device, FORMAT, options).map_err(|e| e.to_string())?;
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins)
        .map_err(|e| e.to_string())?;
    let skin_note = if gpu_model.uses_default_skin() {
        " (no skin: default checker texture)"
    } else {
        ""
    };

    let (picture, what) = if args.sheet {
        let cell = args.size.unwrap_or((128, 128));
        let sheet = sheet(&gpu, &mut renderer, &gpu_model, &model, animations, cell)?;
        (sheet, format!("{} animations", animations.len()))
    } else {
        let size = args.size.unwrap_or((256, 256));
        let (lerp, what) = pose(args, &model, animations)?;
        let frames = [lerp.frame_a, lerp.frame_b];
        let camera = framing(&model, &frames, size.0 as f32 / size.1 as f32);
        let instances = [Md2Instance::new(Mat4::IDENTITY, lerp)];
        let picture = gpu.render(&mut renderer, &camera, &[(&gpu_model, &instances)], size)?;
        (picture, what)
    };
    picture
        .save(&args.out)
        .map_err(|e| format!("writing {}: {e}", args.out.display()))?;
    Ok(format!(
        "wrote {} ({}x{}): {name}, {what}{skin_note}, on {}",
        args.out.display(),
        picture.width(),
        picture.height(),
        gpu.adapter
    ))
}

/// The pose the arguments ask for, and words for it.
fn pose(
    args: &Args,
    model: &Md2Model,
    animations: &[Animation],
) -> Result<(FrameLerp, String), String> {
    let frames = model.frame_count();
    if let Some(frame) = args.frame {
        if frame >= frames {
            return Err(format!(
                "--frame {frame}: the model has {frames} frames (0 to {})",
                frames - 1
            ));
        }
        return Ok((FrameLerp::still(frame), format!("frame {frame}")));
    }
    let Some(name) = &args.anim else {
        return Ok((FrameLerp::still(0), "frame 0".into()));
    };
    let Some(animation) = animations
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
    else {
        let names: Vec<&str> = animations.iter().map(|a| a.name.as_str()).collect();
        return Err(format!(
            "--anim {name:?}: no such animation; this model has: {}",
            names.join(", ")
        ));
    };
    let t = args.t.unwrap_or(0.0);
    let lerp = Clip::from(animation).sample(t);
    Ok((
        lerp,
        format!(
            "{} at {t} s (frames {} -> {}, t {:.3})",
            animation.name, lerp.frame_a, lerp.frame_b, lerp.t
        ),
    ))
}

/// A three-quarter front view framing these frames.
fn framing(model: &Md2Model, frames: &[u32], aspect: f32) -> Camera {
    let (lo, hi) = frames_box(model, frames);
    Camera::framing(lo, hi, Vec3::new(0.45, 0.3, 1.0), aspect)
}

/// The box around the frames, in the Y-up world.
fn frames_box(model: &Md2Model, frames: &[u32]) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for &f in frames {
        let (a, b) = model.frame_bounds(f);
        lo = lo.min(quake_to_y_up(a));
        hi = hi.max(quake_to_y_up(b));
    }
    (lo, hi)
}

/// Height of the label strip under each cell, in pixels.
const LABEL_HEIGHT: u32 = 14;

/// One instance per animation (its middle frame), in a grid of `cell`-sized
/// cells with a label under each, drawn in one instanced draw with an
/// orthographic camera in pixel units.
fn sheet(
    gpu: &Headless,
    renderer: &mut Md2Renderer,
    gpu_model: &GpuModel,
    model: &Md2Model,
    animations: &[Animation],
    cell: (u32, u32),
) -> Result<RgbaImage, String> {
    let count = animations.len().max(1) as u32;
    let cols = (count as f32).sqrt().ceil() as u32;
    let rows = count.div_ceil(cols);
    let (cw, ch) = cell;
    let (width, height) = (cols * cw, rows * (ch + LABEL_HEIGHT));

    let poses: Vec<u32> = animations
        .iter()
        .map(|a| a.first + (a.last - a.first) / 2)
        .collect();
    // One scale for every cell, so the poses compare: the largest pose
    // (turned for the three-quarter view) fits its cell.
    let turn = Quat::from_rotation_y(0.5);
    let radius = poses
        .iter()
        .map(|&f| {
            let (lo, hi) = frames_box(model, &[f]);
            ((hi - lo) * 0.5).length()
        })
        .fold(1e-3f32, f32::max);
    let scale = 0.5 * cw.min(ch) as f32 / radius;

    let instances: Vec<Md2Instance> = poses
        .iter()
        .enumerate()
        .map(|(i, &frame)| {
            let (col, row) = (i as u32 % cols, i as u32 / cols);
            let center = Vec3::new(
                (col * cw + cw / 2) as f32,
                (height - row * (ch + LABEL_HEIGHT) - ch / 2) as f32,
                0.0,
            );
            let (lo, hi) = frames_box(model, &[frame]);
            let transform = Mat4::from_translation(center)
                * Mat4::from_scale(Vec3::splat(scale))
                * Mat4::from_quat(turn)
                * Mat4::from_translation(-(lo + hi) * 0.5);
            Md2Instance::new(transform, FrameLerp::still(frame))
        })
        .collect();
    let proj = glam::camera::rh::proj::directx::orthographic(
        0.0,
        width as f32,
        0.0,
        height as f32,
        -4096.0,
        4096.0,
    );
    let camera = Camera::new(proj);
    let mut picture = gpu.render(
        renderer,
        &camera,
        &[(gpu_model, &instances)],
        (width, height),
    )?;
    for (i, (animation, &frame)) in animations.iter().zip(&poses).enumerate() {
        let (col, row) = (i as u32 % cols, i as u32 / cols);
        let label = format!("{} {frame}", animation.name);
        font::draw(
            &mut picture,
            &label,
            col * cw + 4,
            row * (ch + LABEL_HEIGHT) + ch + 2,
            cw - 8,
        );
    }
    Ok(picture)
}

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.02,
    g: 0.022,
    b: 0.03,
    a: 1.0,
};

/// A device with no window.
struct Headless {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter: String,
    samples: u32,
}

impl Headless {
    fn new() -> Result<Headless, String> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
            .map_err(|e| format!("no GPU adapter: {e}"))?;
        let info = adapter.get_info();
        let needed = md2_wgpu::required_downlevel_flags();
        if !adapter.get_downlevel_capabilities().flags.contains(needed) {
            return Err(format!("adapter {} lacks {needed:?}", info.name));
        }
        let samples = if adapter
            .get_texture_format_features(FORMAT)
            .flags
            .sample_count_supported(4)
        {
            4
        } else {
            1
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("md2-wgpu render example"),
            required_limits: md2_wgpu::required_limits().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| format!("adapter {} gave no device: {e}", info.name))?;
        Ok(Headless {
            device,
            queue,
            adapter: format!("{} ({:?})", info.name, info.backend),
            samples,
        })
    }

    fn render(
        &self,
        renderer: &mut Md2Renderer,
        camera: &Camera,
        batches: &[(&GpuModel, &[Md2Instance])],
        (width, height): (u32, u32),
    ) -> Result<RgbaImage, String> {
        renderer
            .prepare(&self.device, &self.queue, camera, batches)
            .map_err(|e| e.to_string())?;
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, samples, usage| {
            self.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let target = texture(
            "md2-wgpu render target",
            FORMAT,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let msaa = (self.samples > 1).then(|| {
            texture(
                "md2-wgpu render msaa",
                FORMAT,
                self.samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
        });
        let depth = texture(
            "md2-wgpu render depth",
            wgpu::TextureFormat::Depth32Float,
            self.samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let target_view = target.create_view(&Default::default());
        let msaa_view = msaa.as_ref().map(|t| t.create_view(&Default::default()));
        let depth_view = depth.create_view(&Default::default());
        let (view, resolve_target) = match &msaa_view {
            Some(msaa) => (msaa, Some(&target_view)),
            None => (&target_view, None),
        };

        let row = 4 * width;
        let padded =
            row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("md2-wgpu render readback"),
            size: u64::from(padded) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("md2-wgpu render pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(BACKGROUND),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            renderer.render(&mut pass);
        }
        encoder.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(height),
                },
            },
            size,
        );
        self.queue.submit([encoder.finish()]);
        let (sender, receiver) = std::sync::mpsc::channel();
        readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = sender.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the GPU: {e}"))?;
        receiver
            .recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("reading the picture back: {e}"))?;
        let mut pixels = Vec::with_capacity((row * height) as usize);
        {
            let view = readback
                .get_mapped_range(..)
                .map_err(|e| format!("reading the picture back: {e}"))?;
            for y in 0..height as usize {
                let start = y * padded as usize;
                pixels.extend_from_slice(&view[start..start + row as usize]);
            }
        }
        RgbaImage::from_raw(width, height, pixels).ok_or_else(|| "picture size".to_owned())
    }
}

/// A 3 × 5 pixel font for labels, drawn at twice its size.
mod font {
    use image::RgbaImage;

    const SCALE: u32 = 2;
    const ADVANCE: u32 = 4 * SCALE;

    /// Rows top to bottom, three bits each (left is the high bit).
    fn glyph(c: char) -> Option<[u8; 5]> {
        Some(match c.to_ascii_lowercase() {
            '0' => [7, 5, 5, 5, 7],
            '1' => [2, 6, 2, 2, 7],
            '2' => [7, 1, 7, 4, 7],
            '3' => [7, 1, 7, 1, 7],
            '4' => [5, 5, 7, 1, 1],
            '5' => [7, 4, 7, 1, 7],
            '6' => [7, 4, 7, 5, 7],
            '7' => [7, 1, 1, 1, 1],
            '8' => [7, 5, 7, 5, 7],
            '9' => [7, 5, 7, 1, 7],
            'a' => [2, 5, 7, 5, 5],
            'b' => [6, 5, 6, 5, 6],
            'c' => [3, 4, 4, 4, 3],
            'd' => [6, 5, 5, 5, 6],
            'e' => [7, 4, 6, 4, 7],
            'f' => [7, 4, 6, 4, 4],
            'g' => [3, 4, 5, 5, 3],
            'h' => [5, 5, 7, 5, 5],
            'i' => [7, 2, 2, 2, 7],
            'j' => [1, 1, 1, 5, 2],
            'k' => [5, 5, 6, 5, 5],
            'l' => [4, 4, 4, 4, 7],
            'm' => [5, 7, 7, 5, 5],
            'n' => [6, 5, 5, 5, 5],
            'o' => [2, 5, 5, 5, 2],
            'p' => [6, 5, 6, 4, 4],
            'q' => [2, 5, 5, 6, 3],
            'r' => [6, 5, 6, 5, 5],
            's' => [3, 4, 2, 1, 6],
            't' => [7, 2, 2, 2, 2],
            'u' => [5, 5, 5, 5, 7],
            'v' => [5, 5, 5, 5, 2],
            'w' => [5, 5, 7, 7, 5],
            'x' => [5, 5, 2, 5, 5],
            'y' => [5, 5, 2, 2, 2],
            'z' => [7, 1, 2, 4, 7],
            '-' => [0, 0, 7, 0, 0],
            '_' => [0, 0, 0, 0, 7],
            '.' => [0, 0, 0, 0, 2],
            ' ' => [0; 5],
            _ => return None,
        })
    }

    /// Draws `text` with its top left at (x, y), cut at `max_width` pixels;
    /// characters the font lacks show as a box.
    pub fn draw(image: &mut RgbaImage, text: &str, x: u32, y: u32, max_width: u32) {
        let fits = (max_width / ADVANCE) as usize;
        for (i, c) in text.chars().take(fits).enumerate() {
            let rows = glyph(c).unwrap_or([7, 5, 5, 5, 7]);
            let gx = x + i as u32 * ADVANCE;
            for (ry, bits) in rows.iter().enumerate() {
                for rx in 0..3u32 {
                    if bits & (4 >> rx) == 0 {
                        continue;
                    }
                    for dy in 0..SCALE {
                        for dx in 0..SCALE {
                            let (px, py) = (gx + rx * SCALE + dx, y + ry as u32 * SCALE + dy);
                            if px < image.width() && py < image.height() {
                                image.put_pixel(px, py, image::Rgba([230, 230, 230, 255]));
                            }
                        }
                    }
                }
            }
        }
    }
}
