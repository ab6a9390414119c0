//! Thousands of independently animated models in one instanced draw call:
//! each with its own animation, phase, speed, skin and tint, the walkers
//! walking, all animated by the GPU from frames uploaded once.
//!
//! ```text
//! cargo run --release --example crowd [-- FILE] [--instances N]
//! ```
//!
//! Without FILE the crowd is the crate's built-in demo model.

mod framework;

use std::f32::consts::TAU;
use std::path::PathBuf;
use std::process::ExitCode;

use glam::{Mat4, Vec2, Vec3};
use md2_wgpu::skins::load_skins;
use md2_wgpu::{
    Camera, Clip, GpuModel, Md2Instance, Md2Model, Md2Renderer, Md2RendererOptions, Quake2Player,
    demo,
};
use winit::event::{ElementState, MouseButton, WindowEvent};
use winit::keyboard::{Key, NamedKey};

use framework::ground::{Ground, GroundParams};
use framework::{App, FrameStats, Gpu};

const USAGE: &str = "\
usage: crowd [FILE] [--instances N] [options]

  FILE                  an .md2 model (default: the built-in demo model)
  --instances N         how many to draw (default 2000, 1 to 1000000)";

const KEYS: &str = "\
keys:
  + / -        double / halve the crowd
  W A S D      fly (arrows too), Q / E down / up, Shift faster
  mouse        drag to look around
  Space        hand the camera back to the automatic fly-over
  Esc          quit";

const DEFAULT_INSTANCES: usize = 2000;
const MAX_INSTANCES: usize = 1_000_000;
/// Share of the crowd that walks (or runs) instead of standing about.
const WALKER_SHARE: f32 = 0.35;
const FOV_Y: f32 = 0.9;

fn main() -> ExitCode {
    let (common, rest) = match framework::parse_common(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(e) => return usage_error(&e),
    };
    let mut file = None;
    let mut instances = DEFAULT_INSTANCES;
    let mut args = rest.into_iter();
    while let Some(arg) = args.next() {
        let parsed = match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}\n\n{}\n\n{KEYS}", framework::COMMON_USAGE);
                return ExitCode::SUCCESS;
            }
            "--instances" => framework::value(&mut args, "--instances").and_then(|v| {
                instances = v
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=MAX_INSTANCES).contains(n))
                    .ok_or_else(|| format!("--instances wants 1 to {MAX_INSTANCES}, not {v:?}"))?;
                Ok(())
            }),
            flag if flag.starts_with("--") => Err(format!("unknown option {flag}")),
            _ if file.is_some() => Err(format!("one model at a time (got {arg:?} too)")),
            _ => {
                file = Some(PathBuf::from(arg));
                Ok(())
            }
        };
        if let Err(e) = parsed {
            return usage_error(&e);
        }
    }

    let (name, model, skins) = match &file {
        Some(path) => match framework::open_model(path) {
            Ok(model) => {
                let found = load_skins(path, &model);
                for note in found.notes() {
                    println!("note: {}: {note}", path.display());
                }
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                (name, model, found.images)
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => (
            "demo model".to_owned(),
            demo::demo_model(),
            vec![demo::demo_skin()],
        ),
    };
    println!("{KEYS}");
    let setup = framework::Setup {
        title: format!("md2-wgpu crowd — {name}"),
        required_limits: md2_wgpu::required_limits(),
        required_downlevel_flags: md2_wgpu::required_downlevel_flags(),
    };
    framework::run(setup, common, move |gpu| {
        Crowd::new(gpu, name, &model, &skins, instances)
    })
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}\n\n{}", framework::COMMON_USAGE);
    ExitCode::from(2)
}

/// SplitMix64: a few good random bits from an index, so that member `i` of
/// the crowd is the same whatever the crowd's size.
fn random(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A number in [0, 1) from member `index`'s stream `stream`.
fn unit(index: usize, stream: u64) -> f32 {
    (random((index as u64) << 8 | stream) >> 40) as f32 / (1u64 << 24) as f32
}

/// One member of the crowd.
#[derive(Clone, Copy)]
struct Member {
    position: Vec2,
    heading: f32,
    clip: usize,
    /// Seconds added to the clock: no two members in step.
    phase: f32,
    /// Playback (and walking) speed, around 1.
    speed: f32,
    skin: u32,
    tint: [f32; 4],
}

/// The camera: flies over the crowd on its own until steered.
struct Flight {
    auto: bool,
    position: Vec3,
    yaw: f32,
    pitch: f32,
    keys: [bool; 8],
    shift: bool,
    dragging: bool,
    cursor: Option<(f64, f64)>,
}

const FORWARD: usize = 0;
const BACK: usize = 1;
const LEFT: usize = 2;
const RIGHT: usize = 3;
const DOWN: usize = 4;
const UP: usize = 5;

impl Flight {
    fn direction(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * sy, sp, cp * cy)
    }

    fn key(&mut self, key: &Key, pressed: bool) -> bool {
        let slot = match key {
            Key::Named(NamedKey::ArrowUp) => FORWARD,
            Key::Named(NamedKey::ArrowDown) => BACK,
            Key::Named(NamedKey::ArrowLeft) => LEFT,
            Key::Named(NamedKey::ArrowRight) => RIGHT,
            Key::Named(NamedKey::Shift) => {
                self.shift = pressed;
                return false;
            }
            Key::Character(c) => match c.to_lowercase().as_str() {
                "w" => FORWARD,
                "s" => BACK,
                "a" => LEFT,
                "d" => RIGHT,
                "q" => DOWN,
                "e" => UP,
                _ => return false,
            },
            _ => return false,
        };
        self.keys[slot] = pressed;
        if pressed {
            self.auto = false;
        }
        true
    }

    fn input(&mut self, event: &WindowEvent) {
        match event {
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => self.dragging = *state == ElementState::Pressed,
            WindowEvent::CursorMoved { position, .. } => {
                if let (true, Some((x, y))) = (self.dragging, self.cursor) {
                    self.auto = false;
                    self.yaw -= (position.x - x) as f32 * 0.004;
                    self.pitch = (self.pitch - (position.y - y) as f32 * 0.004).clamp(-1.5, 1.5);
                }
                self.cursor = Some((position.x, position.y));
            }
            _ => {}
        }
    }

    /// Moves the camera: steered by the keys, or circling over the crowd
    /// (`field` is its radius, `height` a member's), looking down across it
    /// towards the middle: the near members large, the rest a mass.
    fn update(&mut self, dt: f32, clock: f32, field: f32, height: f32) {
        if self.auto {
            let angle = clock * 0.05 + 0.6;
            let reach = field * 0.55 + height * 4.0;
            let around = Vec3::new(angle.sin(), 0.0, angle.cos());
            self.position = around * reach + Vec3::Y * (height * 4.0 + field * 0.12);
            let look = around * reach * 0.2 - self.position;
            self.yaw = look.x.atan2(look.z);
            self.pitch = look.y.atan2(Vec2::new(look.x, look.z).length());
            return;
        }
        let forward = self.direction();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let mut go = Vec3::ZERO;
        let pairs = [
            (FORWARD, forward),
            (BACK, -forward),
            (RIGHT, right),
            (LEFT, -right),
            (UP, Vec3::Y),
            (DOWN, -Vec3::Y),
        ];
        for (slot, dir) in pairs {
            if self.keys[slot] {
                go += dir;
            }
        }
        let speed = (field * 0.1 + height * 3.0) * if self.shift { 4.0 } else { 1.0 };
        self.position += go.normalize_or_zero() * speed * dt;
        // Stay above the ground and near the crowd: lost in the void is no
        // way to look at it.
        let reach = field * 2.0 + height * 10.0;
        let flat = Vec2::new(self.position.x, self.position.z).clamp_length_max(reach);
        let y = self.position.y.clamp(height * 0.2, reach);
        self.position = Vec3::new(flat.x, y, flat.y);
    }
}

struct Crowd {
    name: String,
    renderer: Md2Renderer,
    model: GpuModel,
    ground: Ground,
    clips: Vec<Clip>,
    /// Per clip: how fast it moves a member along the ground (model units
    /// a second), or `None` for standing about.
    ground_speed: Vec<Option<f32>>,
    walking: Vec<usize>,
    standing: Vec<usize>,
    members: Vec<Member>,
    instances: Vec<Md2Instance>,
    /// Distance between neighbours on the field.
    spacing: f32,
    /// A member's height (standing, in its first frame) and how far its feet
    /// are below its origin.
    height: f32,
    foot: f32,
    clock: f32,
    flight: Flight,
}

impl Crowd {
    fn new(
        gpu: &Gpu,
        name: String,
        model: &Md2Model,
        skins: &[image::RgbaImage],
        count: usize,
    ) -> Result<Crowd, String> {
        let options = Md2RendererOptions::WITH_DEPTH.with_sample_count(gpu.sample_count);
        let renderer = Md2Renderer::new(&gpu.device, gpu.color_format, options)
            .map_err(|e| format!("cannot build the renderer: {e}"))?;
        let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, model, skins)
            .map_err(|e| format!("{name}: {e}"))?;
        if gpu_model.uses_default_skin() {
            println!("note: {name} has no skin: drawn with the default checker texture");
        }
        // Quake's z is the world's y.
        let foot = model.bounds().0[2];
        let (first_lo, first_hi) = model.frame_bounds(0);
        let height = (first_hi[2] - first_lo[2]).max(1e-3);

        let mut clips: Vec<Clip> = if Quake2Player::fits(model) {
            Quake2Player::clips()
        } else {
            Clip::for_model(model)
        };
        // A crowd keeps moving: one-shot animations (deaths) would leave
        // bodies lying about, so only looping ones are used.
        clips.retain(|c| c.looping);
        if clips.is_empty() {
            let last = model.frame_count().saturating_sub(1);
            clips.push(Clip::looping("all", 0, last));
        }
        // Ground speed in heights per second: a brisk walk, a run.
        let ground_speed: Vec<Option<f32>> = clips
            .iter()
            .map(|clip| {
                let name = clip.name.to_lowercase();
                if name.starts_with("run") {
                    Some(height * 3.0)
                } else if name.contains("walk") {
                    Some(height)
                } else {
                    None
                }
            })
            .collect();
        let (walking, mut standing): (Vec<usize>, Vec<usize>) =
            (0..clips.len()).partition(|&i| ground_speed[i].is_some());
        if standing.is_empty() {
            standing.push(0);
        }
        println!(
            "{name}: {} animations for the crowd ({} walking), {} skin(s), {} bytes on the GPU",
            clips.len(),
            walking.len(),
            gpu_model.skin_count(),
            gpu_model.gpu_bytes()
        );
        let mut crowd = Crowd {
            name,
            renderer,
            model: gpu_model,
            ground: Ground::new(gpu),
            clips,
            ground_speed,
            walking,
            standing,
            members: Vec::new(),
            instances: Vec::new(),
            // Sunflower points this far apart stand about a height apart.
            spacing: height * 0.6,
            height,
            foot,
            clock: 0.0,
            flight: Flight {
                auto: true,
                position: Vec3::ZERO,
                yaw: 0.0,
                pitch: 0.0,
                keys: [false; 8],
                shift: false,
                dragging: false,
                cursor: None,
            },
        };
        crowd.resize_crowd(count);
        Ok(crowd)
    }

    /// The radius of the field the crowd stands on.
    fn field(&self) -> f32 {
        self.spacing * (self.members.len() as f32).sqrt() + self.height
    }

    /// Grows or shrinks the crowd to `count`, keeping the members it has.
    fn resize_crowd(&mut self, count: usize) {
        let count = count.clamp(1, MAX_INSTANCES);
        self.members.truncate(count);
        // Vogel's sunflower spiral: evenly spread at any count, and member i
        // stands in the same place however many follow.
        let golden = TAU * (1.0 - 1.0 / 1.618_034);
        for i in self.members.len()..count {
            let r = self.spacing * (i as f32 + 0.5).sqrt();
            let a = i as f32 * golden;
            let jitter = Vec2::new(unit(i, 1) - 0.5, unit(i, 2) - 0.5) * self.spacing * 0.5;
            let walks = !self.walking.is_empty() && unit(i, 3) < WALKER_SHARE;
            let clip = if walks {
                self.walking[(unit(i, 4) * self.walking.len() as f32) as usize % self.walking.len()]
            } else {
                self.standing
                    [(unit(i, 4) * self.standing.len() as f32) as usize % self.standing.len()]
            };
            let hue = unit(i, 7);
            self.members.push(Member {
                position: Vec2::new(a.cos(), a.sin()) * r + jitter,
                heading: unit(i, 5) * TAU,
                clip,
                phase: unit(i, 6) * 10.0,
                speed: 0.8 + 0.4 * unit(i, 8),
                skin: (unit(i, 9) * self.model.skin_count() as f32) as u32
                    % self.model.skin_count().max(1),
                tint: tint(hue),
            });
        }
        self.instances = Vec::with_capacity(count);
        println!("crowd: {count} instances");
    }
}

/// A light colour of the given hue: the skin shows through, each member a
/// little different.
fn tint(hue: f32) -> [f32; 4] {
    let channel = |offset: f32| {
        let x = (hue + offset).fract();
        let wave = (x * TAU).cos() * 0.5 + 0.5;
        0.45 + 0.55 * wave
    };
    [channel(0.0), channel(1.0 / 3.0), channel(2.0 / 3.0), 1.0]
}

impl App for Crowd {
    fn update(&mut self, gpu: &Gpu, dt: f32) {
        let dt = dt.min(0.25);
        self.clock += dt;
        let field = self.field();
        self.instances.clear();
        for member in &mut self.members {
            if let Some(speed) = self.ground_speed[member.clip] {
                // The model faces +Z; a heading turns it about Y.
                let step = Vec2::new(member.heading.sin(), member.heading.cos())
                    * speed
                    * member.speed
                    * dt;
                member.position += step;
                // Off the field: come back in on the far side.
                if member.position.length() > field {
                    member.position = -member.position.normalize_or_zero() * (field * 0.98);
                }
            }
            let transform =
                Mat4::from_translation(Vec3::new(member.position.x, 0.0, member.position.y))
                    * Mat4::from_rotation_y(member.heading);
            let clip = &self.clips[member.clip];
            let time = self.clock * member.speed + member.phase;
            self.instances.push(
                Md2Instance::from_clip(transform, clip, time)
                    .with_skin(member.skin)
                    .with_tint(member.tint),
            );
        }
        self.flight.update(dt, self.clock, field, self.height);
        let far = field * 4.0 + self.height * 20.0;
        let camera = Camera::look_at(
            self.flight.position,
            self.flight.position + self.flight.direction(),
            FOV_Y,
            gpu.aspect(),
            (self.height * 0.05).max(0.01),
            far,
        );
        if let Err(e) = self.renderer.prepare(
            &gpu.device,
            &gpu.queue,
            &camera,
            &[(&self.model, &self.instances)],
        ) {
            eprintln!("error: {e}");
        }
        self.ground.prepare(
            &gpu.queue,
            camera.view_proj,
            &GroundParams {
                center: Vec3::new(0.0, self.foot, 0.0),
                radius: field * 1.6,
                cell: self.height,
                background: self.clear_color(),
                shadow: None,
            },
        );
    }

    fn render_background(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        self.ground.render(pass);
    }

    fn render(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(pass);
    }

    fn input(&mut self, event: &WindowEvent) {
        if let WindowEvent::KeyboardInput { event, .. } = event {
            let pressed = event.state == ElementState::Pressed;
            if self.flight.key(&event.logical_key, pressed) || !pressed {
                return;
            }
            match &event.logical_key {
                Key::Named(NamedKey::Space) => self.flight.auto = true,
                Key::Character(c) => match c.as_str() {
                    "+" | "=" => self.resize_crowd(self.members.len() * 2),
                    "-" | "_" => self.resize_crowd(self.members.len() / 2),
                    _ => {}
                },
                _ => {}
            }
        }
        self.flight.input(event);
    }

    fn title(&self, stats: &FrameStats) -> String {
        format!(
            "md2-wgpu crowd — {} — {} instances, 1 draw call — {} fps — {:.2} ms CPU/frame{}",
            self.name,
            self.members.len(),
            stats.fps_text(),
            stats.cpu_ms,
            if self.flight.auto {
                ""
            } else {
                " — steering"
            }
        )
    }
}
