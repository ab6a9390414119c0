//! Look at an MD2 model: its animations, interpolated on the GPU, its skins,
//! and the weapon a Quake II player holds.
//!
//! ```text
//! cargo run --release --example viewer [-- FILE [--skin PATH] [--weapon FILE]]
//! ```
//!
//! Without FILE it shows the crate's built-in demo model.

mod framework;

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::process::ExitCode;

use md2_wgpu::glam::{Mat4, Vec3};
use md2_wgpu::quake_flags::{
    RF_SHELL_BLUE, RF_SHELL_DOUBLE, RF_SHELL_GREEN, RF_SHELL_HALF_DAM, RF_SHELL_RED,
};
use md2_wgpu::{
    Camera, Clip, Crossfade, Effects, GpuModel, Light, Md2Batch, Md2Instance, Md2Model,
    Md2Renderer, PlanarShadow, Pose, Quake2Player, quake_to_y_up, wgpu,
};
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::keyboard::{Key, NamedKey};

use framework::ground::{Ground, GroundParams};
use framework::{App, Drag, FrameStats, Gpu, Loaded};

const USAGE: &str = "\
usage: viewer [FILE] [--skin PATH] [--weapon FILE] [options]

  FILE                  an .md2 model (default: the built-in demo model)
  --skin PATH           use this image as the skin instead of looking for them
  --weapon FILE         a Quake II weapon model, drawn with the body's frames";

const KEYS: &str = "\
keys:
  N / Right    next animation          P / Left     previous animation
  F            crossfade into the next animation (instead of cutting)
  Space        pause                   , / .        step a frame back / on (paused)
  - / +        slower / faster         I            interpolation on / off (Quake-style steps)
  S            next skin               R            reset the camera
  Q            powerup shell: red, green, blue, double damage, half damage, off
  G            planar shadow on the ground on / off
  mouse        drag to orbit, wheel to zoom
  Esc          quit";

/// How long a crossfade takes, in seconds.
const FADE_SECONDS: f64 = 0.3;
/// How long a one-shot animation (a death) holds its last frame before it
/// plays again.
const HOLD_SECONDS: f64 = 1.0;
/// The camera's vertical field of view.
const FOV_Y: f32 = 0.7;
/// Playback speeds the - and + keys step through.
const SPEEDS: [f32; 9] = [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0];
const NORMAL_SPEED: usize = 4;
/// Quake II's powerup shells, in the order the Q key shows them.
const SHELLS: [(&str, u32); 5] = [
    ("red shell", RF_SHELL_RED),
    ("green shell", RF_SHELL_GREEN),
    ("blue shell", RF_SHELL_BLUE),
    ("double damage", RF_SHELL_DOUBLE),
    ("half damage", RF_SHELL_HALF_DAM),
];

fn main() -> ExitCode {
    let mut skin = None;
    let mut weapon = None;
    let common = match framework::parse_args(USAGE, KEYS, |flag, args| {
        match flag {
            "--skin" => skin = Some(PathBuf::from(framework::value(args, flag)?)),
            "--weapon" => weapon = Some(PathBuf::from(framework::value(args, flag)?)),
            _ => return Ok(false),
        }
        Ok(true)
    }) {
        Ok(common) => common,
        Err(code) => return code,
    };
    let loaded = framework::load(common.file.as_deref(), skin.as_deref()).and_then(|body| {
        let weapon = weapon
            .map(|path| framework::load(Some(&path), None))
            .transpose()?;
        if let Some(weapon) = &weapon
            && weapon.model.frame_count() != body.model.frame_count()
        {
            println!(
                "note: the weapon has {} frames and the body {}: frames past the weapon's \
                 last show its last",
                weapon.model.frame_count(),
                body.model.frame_count()
            );
        }
        Ok((body, weapon))
    });
    let (body, weapon) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return framework::fail(&e),
    };
    let title = format!("md2-wgpu viewer — {}", body.name);
    framework::run(title, KEYS, common, move |gpu| {
        Viewer::new(gpu, body, weapon)
    })
}

/// Turntable camera around the model: yaw and pitch in radians.
struct Orbit {
    target: Vec3,
    yaw: f32,
    pitch: f32,
    distance: f32,
    home: (f32, f32, f32),
    drag: Drag,
}

impl Orbit {
    /// Looks at the box `min..max` from the home angles, just far enough
    /// that all of it is in view at this aspect ratio.
    fn framing(min: Vec3, max: Vec3, aspect: f32) -> Orbit {
        let (yaw, pitch) = (0.55, 0.2);
        let mut orbit = Orbit {
            target: (min + max) * 0.5,
            yaw,
            pitch,
            distance: 1.0,
            home: (yaw, pitch, 1.0),
            drag: Drag::default(),
        };
        let back = orbit.eye() - orbit.target;
        let right = Vec3::Y.cross(back).normalize();
        let up = back.cross(right);
        let tan_y = (FOV_Y * 0.5).tan();
        let tan_x = tan_y * aspect;
        // A corner at depth z towards the eye and offsets x, y is in view
        // from distance d when |x| <= (d - z) tan_x and |y| <= (d - z) tan_y.
        let mut distance: f32 = 0.0;
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            ) - orbit.target;
            let z = corner.dot(back);
            let need = (corner.dot(right).abs() / tan_x).max(corner.dot(up).abs() / tan_y);
            distance = distance.max(z + need);
        }
        // A margin, so the model does not touch the window's edges.
        let distance = (distance * 1.12).max(1e-3);
        orbit.distance = distance;
        orbit.home.2 = distance;
        orbit
    }

    fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * sy, sp, cp * cy)
    }

    fn camera(&self, aspect: f32, far: f32) -> Camera {
        Camera::look_at(
            self.eye(),
            self.target,
            FOV_Y,
            aspect,
            (self.distance * 0.02).max(0.01),
            far + self.distance,
        )
    }

    fn reset(&mut self) {
        (self.yaw, self.pitch, self.distance) = self.home;
    }

    fn input(&mut self, event: &WindowEvent) {
        if let Some((dx, dy)) = self.drag.input(event) {
            self.yaw -= dx * 0.008;
            self.pitch = (self.pitch + dy * 0.008).clamp(-1.45, 1.45);
        }
        if let WindowEvent::MouseWheel { delta, .. } = event {
            let lines = match delta {
                MouseScrollDelta::LineDelta(_, y) => *y,
                MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
            };
            let min = self.home.2 * 0.1;
            let max = self.home.2 * 10.0;
            self.distance = (self.distance * 0.9f32.powf(lines)).clamp(min, max);
        }
    }
}

struct Viewer {
    name: String,
    renderer: Md2Renderer,
    body: GpuModel,
    weapon: Option<(String, GpuModel)>,
    ground: Ground,
    ground_y: f32,
    radius: f32,
    orbit: Orbit,
    clips: Vec<Clip>,
    clip: usize,
    fade: Crossfade,
    /// The animation clock, in seconds: stands still while paused and runs
    /// at the chosen speed.
    time: f64,
    paused: bool,
    speed: usize,
    interpolate: bool,
    skin: u32,
    /// Which of [`SHELLS`] the model wears, if any.
    shell: Option<usize>,
    shadow: bool,
    pose: Pose,
    failed_prepare: bool,
}

impl Viewer {
    fn new(gpu: &Gpu, body: Loaded, weapon: Option<Loaded>) -> Result<Viewer, String> {
        let mut renderer = Md2Renderer::new(&gpu.device, gpu.color_format, gpu.renderer_options())
            .map_err(|e| format!("cannot build the renderer: {e}"))?;
        let upload = |loaded: &Loaded| {
            let gpu_model = GpuModel::new(
                &gpu.device,
                &gpu.queue,
                &renderer,
                &loaded.model,
                &loaded.skins,
            )
            .map_err(|e| format!("{}: {e}", loaded.name))?;
            if gpu_model.uses_default_skin() {
                println!(
                    "note: {} has no skin: drawn with the default checker texture",
                    loaded.name
                );
            }
            println!(
                "{}: {} bytes on the GPU",
                loaded.name,
                gpu_model.gpu_bytes()
            );
            Ok::<_, String>(gpu_model)
        };
        let gpu_body = upload(&body)?;
        let weapon = match &weapon {
            Some(loaded) => Some((loaded.name.clone(), upload(loaded)?)),
            None => None,
        };

        // The ground and the far plane cover every frame; the camera
        // frames the animation shown first, so a standing model is not
        // dwarfed by the room its death throes need.
        let model = &body.model;
        let (min, max) = frames_box(model, 0..=last_frame(model));
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let (clips, from) = if Quake2Player::fits(model) {
            (Quake2Player::clips(), "the Quake II player table")
        } else {
            (Clip::for_model(model), "the frame names")
        };
        // A model with no frame names to group still has its frames.
        let clips = if clips.is_empty() {
            vec![Clip::looping("all", 0, last_frame(model))]
        } else {
            clips
        };
        let names: Vec<&str> = clips.iter().map(|c| c.name.as_ref()).collect();
        println!(
            "{} animations, from {from}: {}",
            clips.len(),
            names.join(" ")
        );
        let fade = Crossfade::still(clips[0].clone().started_at(0.0));
        let (view_min, view_max) = frames_box(model, clips[0].frames());
        // Quake II cast its shadows from one fixed direction; here, the
        // camera's light.
        renderer
            .set_shadow(Some(PlanarShadow::on_ground(
                min.y,
                Light::default().towards_light,
            )))
            .map_err(|e| e.to_string())?;
        Ok(Viewer {
            name: body.name,
            renderer,
            body: gpu_body,
            weapon,
            ground: Ground::new(gpu, wgpu::CompareFunction::Less),
            ground_y: min.y,
            radius,
            orbit: Orbit::framing(view_min, view_max, gpu.aspect()),
            clips,
            clip: 0,
            fade,
            time: 0.0,
            paused: false,
            speed: NORMAL_SPEED,
            interpolate: true,
            skin: 0,
            shell: None,
            shadow: true,
            pose: Pose::default(),
            failed_prepare: false,
        })
    }

    fn change_clip(&mut self, step: isize, crossfade: bool) {
        let n = self.clips.len() as isize;
        self.clip = (self.clip as isize + step).rem_euclid(n) as usize;
        let next = self.clips[self.clip].clone();
        self.fade = if crossfade {
            self.fade.then(next.started_at(self.time), FADE_SECONDS)
        } else {
            Crossfade::still(next.started_at(self.time))
        };
    }

    /// Moves the clock to the next or previous whole frame of the clip.
    fn step(&mut self, frames: f32) {
        let fps = f64::from(self.fade.to.fps.max(1e-3));
        let since = (self.time - self.fade.to_start) * fps;
        let target = if frames > 0.0 {
            since.floor() + 1.0
        } else {
            since.ceil() - 1.0
        };
        self.time = self.fade.to_start + target / fps;
    }

    fn toggle_shadow(&mut self) {
        self.shadow = !self.shadow;
        let shadow = self
            .shadow
            .then(|| PlanarShadow::on_ground(self.ground_y, Light::default().towards_light));
        // The framework's depth buffer has a stencil, so this cannot fail.
        if let Err(e) = self.renderer.set_shadow(shadow) {
            eprintln!("error: {e}");
        }
    }

    fn key(&mut self, key: &Key) {
        match key {
            Key::Named(NamedKey::ArrowRight) => self.change_clip(1, false),
            Key::Named(NamedKey::ArrowLeft) => self.change_clip(-1, false),
            Key::Named(NamedKey::Space) => self.paused = !self.paused,
            Key::Character(c) => match c.to_lowercase().as_str() {
                "n" => self.change_clip(1, false),
                "p" => self.change_clip(-1, false),
                "f" => self.change_clip(1, true),
                "." | ">" if self.paused => self.step(1.0),
                "," | "<" if self.paused => self.step(-1.0),
                "-" | "_" => self.speed = self.speed.saturating_sub(1),
                "+" | "=" => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
                "i" => self.interpolate = !self.interpolate,
                "s" => self.skin = (self.skin + 1) % self.body.skin_count().max(1),
                "r" => self.orbit.reset(),
                "q" => {
                    self.shell = match self.shell {
                        None => Some(0),
                        Some(i) => Some(i + 1).filter(|&i| i < SHELLS.len()),
                    }
                }
                "g" => self.toggle_shadow(),
                _ => {}
            },
            _ => {}
        }
    }
}

impl App for Viewer {
    fn update(&mut self, gpu: &Gpu, dt: f32) {
        if !self.paused {
            self.time += f64::from(dt.min(0.25) * SPEEDS[self.speed]);
        }
        // A one-shot animation (a death) holds its end a moment, then plays
        // again: a viewer is for looking at it.
        let clip = &self.fade.to;
        if !clip.looping && self.time - self.fade.to_start > clip.duration() + HOLD_SECONDS {
            self.fade = Crossfade::still(clip.clone().started_at(self.time));
        }
        let mut pose = self.fade.pose(self.time);
        if !self.interpolate {
            pose.primary.t = 0.0;
            pose.secondary.t = 0.0;
        }
        self.pose = pose;

        let effects = match self.shell {
            Some(i) => Effects::from_quake_flags(SHELLS[i].1),
            None => Effects::NONE,
        };
        let body = [Md2Instance::new(Mat4::IDENTITY, pose)
            .with_skin(self.skin)
            .with_effects(effects)];
        let weapon_instance = self.weapon.as_ref().map(|(_, weapon)| {
            // Quake II draws the weapon with the body's frame numbers.
            let last = weapon.frame_count().saturating_sub(1);
            let clamp = |mut lerp: md2_wgpu::FrameLerp| {
                lerp.frame_a = lerp.frame_a.min(last);
                lerp.frame_b = lerp.frame_b.min(last);
                lerp
            };
            let pose = Pose {
                primary: clamp(pose.primary),
                secondary: clamp(pose.secondary),
                weight: pose.weight,
            };
            [Md2Instance::new(Mat4::IDENTITY, pose).with_effects(effects)]
        });
        let mut batches = vec![Md2Batch::new(&self.body, &body)];
        if let (Some((_, weapon)), Some(instances)) = (&self.weapon, &weapon_instance) {
            batches.push(Md2Batch::new(weapon, instances));
        }
        let far = self.radius * 12.0;
        let camera = self.orbit.camera(gpu.aspect(), far);
        let prepared = self
            .renderer
            .prepare(&gpu.device, &gpu.queue, &camera, &batches);
        // A pose the model does not have is a bug here; say so once, not
        // every frame.
        if let Err(e) = prepared
            && !self.failed_prepare
        {
            eprintln!("error: {e}");
            self.failed_prepare = true;
        }
        let target = self.orbit.target;
        self.ground.prepare(
            &gpu.queue,
            camera.view_proj,
            &GroundParams {
                center: Vec3::new(target.x, self.ground_y, target.z),
                radius: self.radius * 6.0,
                cell: grid_cell(self.radius),
                background: self.clear_color(),
                inset: None,
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
        if let WindowEvent::KeyboardInput { event, .. } = event
            && event.state == ElementState::Pressed
        {
            self.key(&event.logical_key);
        }
        self.orbit.input(event);
    }

    fn title(&self, stats: &FrameStats) -> String {
        let clip = &self.clips[self.clip];
        // The frames of whichever clip weighs more: the one being shown.
        let p = if self.pose.weight < 0.5 {
            self.pose.primary
        } else {
            self.pose.secondary
        };
        let weight = self.fade.weight(self.time);
        let animation = if weight < 1.0 {
            format!(
                "{} → {} {:.0}%",
                self.fade.from.name,
                clip.name,
                weight * 100.0
            )
        } else {
            clip.name.to_string()
        };
        let weapon = match &self.weapon {
            Some((name, _)) => format!(" + {name}"),
            None => String::new(),
        };
        let mut effects = String::new();
        if let Some(i) = self.shell {
            effects += &format!(" — {}", SHELLS[i].0);
        }
        if self.shadow {
            effects += " — shadow";
        }
        format!(
            "md2-wgpu viewer — {}{weapon} — {animation} ({}/{}) — frame {} → {} t {:.2}{} — skin {}/{}{effects} — {}× {}— {} fps",
            self.name,
            self.clip + 1,
            self.clips.len(),
            p.frame_a,
            p.frame_b,
            p.t,
            if self.interpolate { "" } else { " (stepped)" },
            self.skin + 1,
            self.body.skin_count(),
            SPEEDS[self.speed],
            if self.paused { "paused " } else { "" },
            stats.fps_text()
        )
    }
}

/// The model's last frame (a model has at least one).
fn last_frame(model: &Md2Model) -> u32 {
    model.frame_count().saturating_sub(1)
}

/// The box around `frames` of `model`, in the Y-up world.
fn frames_box(model: &Md2Model, frames: RangeInclusive<u32>) -> (Vec3, Vec3) {
    frames
        .map(|f| model.frame_bounds(f))
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(quake_to_y_up(a)), hi.max(quake_to_y_up(b)))
        })
}

/// A grid cell of 1, 2 or 5 times a power of ten, about a sixth of the
/// model's size: 10 units for a Quake II player.
fn grid_cell(radius: f32) -> f32 {
    let rough = (radius / 3.0).max(1e-3);
    let power = 10f32.powf(rough.log10().floor());
    let mantissa = rough / power;
    let nice = if mantissa < 1.5 {
        1.0
    } else if mantissa < 3.5 {
        2.0
    } else if mantissa < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * power
}
