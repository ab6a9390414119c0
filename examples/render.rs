//! Renders an MD2 model offscreen and writes a PNG: a thumbnail, or a
//! contact sheet with one pose of every animation; with a powerup shell or
//! a planar shadow if asked.
//!
//! ```text
//! cargo run --release --example render -- [FILE] [--skin PATH]
//!     [--frame N | --anim NAME [--t T]] [--shell COLOUR] [--shadow]
//!     [--size WxH] [--out PATH] [--sheet]
//! ```
//!
//! Without FILE it draws the built-in demo model.

// The examples' pass and its depth and multisampled targets, without the
// window the rest of the framework opens.

use std::path::PathBuf;
use std::process::ExitCode;

use md2_wgpu::glam::{Mat4, Quat, Vec3};
use md2_wgpu::image::RgbaImage;
use md2_wgpu::scene::quake_flags::{
    RF_SHELL_BLUE, RF_SHELL_DOUBLE, RF_SHELL_GREEN, RF_SHELL_HALF_DAM, RF_SHELL_RED,
};
use md2_wgpu::support::{Headless, read_rgba8};
use md2_wgpu::{
    Camera, Clip, DepthState, GpuModel, Light, Md2Instance, Md2Model, Md2Renderer,
    Md2RendererOptions,
    anim::FrameLerp,
    gpu::Md2Batch,
    model::Animation,
    scene::{Effects, PlanarShadow, SHELL_OFFSET, quake_to_y_up, stand_on_ground},
    wgpu,
};
use md2_wgpu_examples::framework::targets::{self, DEPTH_FORMAT, Targets};

const USAGE: &str = "\
usage: render [FILE] [--skin PATH] [--frame N | --anim NAME [--t T]] [--shell COLOUR]
              [--shadow] [--size WxH] [--out PATH] [--sheet]

Renders an MD2 model offscreen and writes a PNG.

  FILE            the .md2 file (default: the built-in demo model)
  --skin PATH     the skin image (default: found next to the model, as Quake II
                  lays skins out; the demo model's own skin for the demo)
  --frame N       the frame to draw (default 0)
  --anim NAME     an animation, by the name `md2info` lists (stand, run, ...)
  --t T           seconds into the animation (10 frames a second; default 0)
  --shell COLOUR  a powerup shell: red, green, blue, double (damage), half
                  (damage), or R,G,B (linear, 0 to 1 each)
  --shadow        the model's planar shadow on the ground it stands on
  --size WxH      picture size (default 256x256); with --sheet, one cell's size
                  (default 128x128)
  --out PATH      where to write the PNG (default render.png)
  --sheet         a contact sheet: one pose of every animation, labelled";

/// Quake II's shells by the names `--shell` takes.
const SHELLS: [(&str, u32); 5] = [
    ("red", RF_SHELL_RED),
    ("green", RF_SHELL_GREEN),
    ("blue", RF_SHELL_BLUE),
    ("double", RF_SHELL_DOUBLE),
    ("half", RF_SHELL_HALF_DAM),
];

/// What the command line asks for.
struct Args {
    file: Option<PathBuf>,
    skin: Option<PathBuf>,
    frame: Option<u32>,
    anim: Option<String>,
    t: Option<f32>,
    /// The shell's colour, and its name for the report.
    shell: Option<([f32; 3], String)>,
    shadow: bool,
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
        shell: None,
        shadow: false,
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
            "--shell" => args.shell = Some(parse_shell(&value("--shell")?)?),
            "--shadow" => args.shadow = true,
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
    if args.sheet && args.shadow {
        return Err("--shadow falls on the ground one model stands on: not with --sheet".into());
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

/// A shell's linear colour, by Quake II's name or as R,G,B.
fn parse_shell(v: &str) -> Result<([f32; 3], String), String> {
    if let Some(&(name, flags)) = SHELLS.iter().find(|(name, _)| v.eq_ignore_ascii_case(name)) {
        let color = Effects::from_quake_flags(flags)
            .shell
            .ok_or("every shell flag makes a shell")?;
        return Ok((color, format!("{name} shell")));
    }
    let bad = || {
        let names: Vec<&str> = SHELLS.iter().map(|(name, _)| *name).collect();
        format!("--shell {v:?}: want {} or R,G,B", names.join(", "))
    };
    let channels = v
        .split(',')
        .map(|c| c.trim().parse::<f32>().map_err(|_| bad()))
        .collect::<Result<Vec<f32>, String>>()?;
    let [r, g, b] = channels[..] else {
        return Err(bad());
    };
    if [r, g, b].iter().any(|c| !(0.0..=1.0).contains(c)) {
        return Err(format!("--shell {v:?}: each channel is 0 to 1"));
    }
    Ok(([r, g, b], format!("shell {v}")))
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
            let model = Md2Model::open(path).map_err(|e| match e {
                // Already names the file.
                md2_wgpu::format::Md2Error::Io { .. } => e.to_string(),
                _ => format!("{}: {e}", path.display()),
            })?;
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
    let animations = model.keyframes().animations();
    // Large sheets want the adapter's texture size, not WebGPU's minimum.
    let gpu = Headless::new(
        |adapter| md2_wgpu::gpu::required_limits().using_resolution(adapter.limits()),
        wgpu::Features::empty(),
    )?;
    let options = Md2RendererOptions::DEFAULT
        .with_depth(DepthState::standard(DEPTH_FORMAT))
        .with_sample_count(targets::sample_count(&gpu.adapter, FORMAT));
    let mut renderer = Md2Renderer::new(&gpu.device, FORMAT, options).map_err(|e| e.to_string())?;
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &skins)
        .map_err(|e| e.to_string())?;
    let mut notes = String::new();
    let effects = match &args.shell {
        Some((color, what)) => {
            notes += &format!(", {what}");
            Effects::NONE.with_shell(*color)
        }
        None => Effects::NONE,
    };
    if gpu_model.uses_default_skin() {
        notes += " (no skin: default checker texture)";
    }

    let (picture, what) = if args.sheet {
        let cell = args.size.unwrap_or((128, 128));
        let poses = Sheet::new(&model, animations, cell, effects);
        let camera = poses.camera();
        let batch = Md2Batch::new(&gpu_model, &poses.instances);
        let mut picture = draw(&gpu, &mut renderer, &camera, batch, poses.size)?;
        poses.label(&mut picture, animations);
        (picture, format!("{} animations", animations.len()))
    } else {
        let size = args.size.unwrap_or((256, 256));
        let (lerp, what) = pose(args, &model, animations)?;
        let frames = lerp.frame_a.min(lerp.frame_b)..=lerp.frame_a.max(lerp.frame_b);
        let transform = stand_on_ground(&model, frames.clone(), Vec3::ZERO);
        let (lo, hi) = frames_box(&model, frames);
        let (lo, hi) = (
            transform.transform_point3(lo),
            transform.transform_point3(hi),
        );
        let (lo, hi) = if args.shell.is_some() {
            // The shell stands off the skin (at the model's own scale).
            (lo - SHELL_OFFSET, hi + SHELL_OFFSET)
        } else {
            (lo, hi)
        };
        let (lo, hi, view_from) = if args.shadow {
            // The camera's light casts it.
            let shadow = PlanarShadow::on_ground(0.0, Light::default().towards_light);
            renderer
                .set_shadow(Some(shadow))
                .map_err(|e| e.to_string())?;
            notes += ", planar shadow";
            // Framed too: the box's corners cast along the light.
            let cast = shadow.projection();
            let (lo, hi) = corners(lo, hi).fold((lo, hi), |(a, b), c| {
                let p = cast.transform_point3(c);
                (a.min(p), b.max(p))
            });
            (lo, hi, SHADOW_VIEW_FROM)
        } else {
            (lo, hi, VIEW_FROM)
        };
        let camera = Camera::framing(lo, hi, view_from, size.0 as f32 / size.1 as f32);
        let instances = [Md2Instance::new(transform, lerp).with_effects(effects)];
        let batch = Md2Batch::new(&gpu_model, &instances);
        let picture = draw(&gpu, &mut renderer, &camera, batch, size)?;
        (picture, what)
    };
    picture
        .save(&args.out)
        .map_err(|e| format!("writing {}: {e}", args.out.display()))?;
    Ok(format!(
        "wrote {} ({}x{}): {name}, {what}{notes}, on {}",
        args.out.display(),
        picture.width(),
        picture.height(),
        gpu.adapter_label()
    ))
}

/// The pose the arguments ask for, and words for it.
fn pose(
    args: &Args,
    model: &Md2Model,
    animations: &[Animation],
) -> Result<(FrameLerp, String), String> {
    let frames = model.keyframes().frame_count();
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
        let names: Vec<&str> = animations.iter().map(|a| a.name.as_ref()).collect();
        return Err(format!(
            "--anim {name:?}: no such animation; this model has: {}",
            names.join(", ")
        ));
    };
    let t = args.t.unwrap_or(0.0);
    let lerp = Clip::from(animation).sample(f64::from(t));
    Ok((
        lerp,
        format!(
            "{} at {t} s (frames {} -> {}, t {:.3})",
            animation.name, lerp.frame_a, lerp.frame_b, lerp.t
        ),
    ))
}

/// Seen from the model's front (it faces +Z), a little to its left and
/// above: a thumbnail's three-quarter view.
const VIEW_FROM: Vec3 = Vec3::new(0.45, 0.3, 1.0);
/// With a shadow: the default light casts it behind the model and to its
/// right (-X), where it shows from the front right and a little higher.
const SHADOW_VIEW_FROM: Vec3 = Vec3::new(-0.6, 0.6, 1.0);

/// The box around `frames`, in the Y-up world.
fn frames_box(model: &Md2Model, frames: impl IntoIterator<Item = u32>) -> (Vec3, Vec3) {
    frames
        .into_iter()
        .map(|f| model.keyframes().frame_bounds(f).to_pair())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(quake_to_y_up(a)), hi.max(quake_to_y_up(b)))
        })
}

/// The eight corners of the box `lo..hi`.
fn corners(lo: Vec3, hi: Vec3) -> impl Iterator<Item = Vec3> {
    (0..8).map(move |i| {
        Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    })
}

/// Height of the label strip under each cell, in pixels.
const LABEL_HEIGHT: u32 = 14;

/// A contact sheet: one instance per animation (its middle frame), in a
/// grid of `cell`-sized cells with a label under each, drawn in one
/// instanced draw with an orthographic camera in pixel units.
struct Sheet {
    instances: Vec<Md2Instance>,
    /// The frame each cell shows.
    frames: Vec<u32>,
    cell: (u32, u32),
    cols: u32,
    size: (u32, u32),
}

impl Sheet {
    fn new(
        model: &Md2Model,
        animations: &[Animation],
        cell: (u32, u32),
        effects: Effects,
    ) -> Sheet {
        let count = animations.len().max(1) as u32;
        let cols = (count as f32).sqrt().ceil() as u32;
        let rows = count.div_ceil(cols);
        let (cw, ch) = cell;
        let (width, height) = (cols * cw, rows * (ch + LABEL_HEIGHT));
        let frames: Vec<u32> = animations.iter().map(|a| (a.first + a.last) / 2).collect();
        // One scale for every cell, so the poses compare: the largest pose
        // (turned for the three-quarter view) fits its cell.
        let turn = Quat::from_rotation_y(0.5);
        let radius = frames
            .iter()
            .map(|&f| {
                let (lo, hi) = frames_box(model, [f]);
                ((hi - lo) * 0.5).length()
            })
            .fold(1e-3f32, f32::max);
        let scale = 0.5 * cw.min(ch) as f32 / radius;
        let instances = frames
            .iter()
            .enumerate()
            .map(|(i, &frame)| {
                let (col, row) = (i as u32 % cols, i as u32 / cols);
                let center = Vec3::new(
                    (col * cw + cw / 2) as f32,
                    (height - row * (ch + LABEL_HEIGHT) - ch / 2) as f32,
                    0.0,
                );
                let (lo, hi) = frames_box(model, [frame]);
                let transform = Mat4::from_translation(center)
                    * Mat4::from_scale(Vec3::splat(scale))
                    * Mat4::from_quat(turn)
                    * Mat4::from_translation(-(lo + hi) * 0.5);
                Md2Instance::new(transform, FrameLerp::still(frame)).with_effects(effects)
            })
            .collect();
        Sheet {
            instances,
            frames,
            cell,
            cols,
            size: (width, height),
        }
    }

    fn camera(&self) -> Camera {
        let (width, height) = self.size;
        Camera::new(md2_wgpu::glam::camera::rh::proj::directx::orthographic(
            0.0,
            width as f32,
            0.0,
            height as f32,
            -4096.0,
            4096.0,
        ))
    }

    /// Writes each animation's name and frame under its cell.
    fn label(&self, picture: &mut RgbaImage, animations: &[Animation]) {
        let (cw, ch) = self.cell;
        for (i, (animation, &frame)) in animations.iter().zip(&self.frames).enumerate() {
            let (col, row) = (i as u32 % self.cols, i as u32 / self.cols);
            let label = format!("{} {frame}", animation.name);
            font::draw(
                picture,
                &label,
                col * cw + 4,
                row * (ch + LABEL_HEIGHT) + ch + 2,
                cw - 8,
            );
        }
    }
}

const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// A mid grey, linear: a shadow darkens it and a shell shows against it.
const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.16,
    g: 0.17,
    b: 0.19,
    a: 1.0,
};

/// Draws `batch` with `renderer` into a fresh `width` × `height` picture.
fn draw(
    gpu: &Headless,
    renderer: &mut Md2Renderer,
    camera: &Camera,
    batch: Md2Batch<'_>,
    (width, height): (u32, u32),
) -> Result<RgbaImage, String> {
    renderer
        .prepare(&gpu.device, &gpu.queue, camera, &[batch])
        .map_err(|e| e.to_string())?;
    let target = targets::picture_target(&gpu.device, FORMAT, (width, height));
    let samples = renderer.options().multisample.count;
    let targets = Targets::new(&gpu.device, FORMAT, samples, (width, height));
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let view = target.create_view(&Default::default());
    renderer.render(&mut targets.begin_pass(&mut encoder, &view, BACKGROUND));
    read_rgba8(&gpu.device, &gpu.queue, encoder, &target)
        .map_err(|e| format!("reading the picture back: {e}"))
}

/// A 3 × 5 pixel font for labels, drawn at twice its size.
mod font {
    use md2_wgpu::image::{self, RgbaImage};

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
