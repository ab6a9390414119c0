//! A resident crowd: thousands (or a hundred thousand) of models that live on
//! the GPU, each with its own animation, phase, speed, skin, tint and
//! effects, animated and culled by a compute pass from clocks set once.
//!
//! ```text
//! cargo run --release --example crowd [-- FILE] [--instances N]
//! ```
//!
//! Without FILE the crowd is the crate's built-in demo model. FILE is a
//! Quake II MD2 or a Quake I MDL (its frame groups play at their
//! intervals, its fullbright texels drawn unlit), or a Quake III player's
//! folder: each player's legs and torso play their own animations on their
//! own clocks, and its torso, head and weapon ride their tags, placed on
//! the GPU every frame (`PlayerCrowd`).
//!
//! The point of a resident crowd is that the CPU does not touch every member
//! every frame: a member is added once with its clock, and each frame the CPU
//! writes the time and whatever changed. So the walking is bounded: a third
//! of the crowd but at most [`MAX_WALKERS`] members (in a large crowd, those
//! nearest its middle) walk in circles about the middle, and only they are
//! moved each frame (one contiguous upload, as they were added first);
//! everyone else stands, waves, salutes or crouches where they were put, and
//! costs the CPU nothing. Nor does the GPU draw what is out of view: the far
//! plane bounds a frame's work, so a hundred thousand cost about what two
//! thousand do.

use std::f32::consts::TAU;
use std::process::ExitCode;

use md2_wgpu::glam::{Mat4, UVec2, Vec2, Vec3};
use md2_wgpu::scene::quake_flags::{
    RF_SHELL_BLUE, RF_SHELL_DOUBLE, RF_SHELL_GREEN, RF_SHELL_HALF_DAM, RF_SHELL_RED,
};
use md2_wgpu::support::{Rng, player_clips};
use md2_wgpu::{
    Camera, Clip, CrowdMember, GpuModel, Light, Md2Crowd, Md2Renderer, Quake2Player, QuakeModel,
    anim::{ClipClock, FrameLerp},
    contract::{GpuModelOptions, MAX_LEVELS},
    format::md3::{Md3Player, PlayerAnimation},
    gpu::{CrowdHandle, GpuPlayer, PlayerCrowd, PlayerMember, VisibleMembers},
    mesh::LevelOptions,
    scene::{Effects, PlanarShadow, stand_on_ground},
    wgpu,
};
use winit::event::{ElementState, WindowEvent};
use winit::keyboard::{Key, NamedKey};

use md2_wgpu_examples::framework::ground::{Ground, GroundParams};
use md2_wgpu_examples::framework::{self, App, CrowdSource, Drag, FrameStats, Gpu, Loaded};
use md2_wgpu_examples::inspector::quake3::{PlayerFile, parts_box};

const USAGE: &str = "\
usage: crowd [FILE] [--instances N] [options]

  FILE                  an .md2 or .mdl model, or a Quake III player's folder
                        (default: the built-in demo model)
  --instances N         how many to draw (default 2000, 1 to 1000000)
  --no-levels              full detail only (levels of detail are on by default)
  --level-tint            start with the members tinted by level (the L key)
  --weapon FILE         an .md3 for every player's hand (with a player's folder)";

const KEYS: &str = "\
keys:
  + / -        double / halve the crowd
  W A S D      fly (arrows too), Q / E down / up, Shift faster
  mouse        drag to look around
  Space        hand the camera back to the automatic fly-over
  V            a second view in a corner: a drone following a walker (a second renderer)
  G            planar shadows on / off
  C            culling on / off (the title counts the members in view)
  L            tint the members by level of detail: full detail as they are,
               then green, yellow, red, purple (the title counts them per level)
  Esc          quit";

const DEFAULT_INSTANCES: usize = 2000;
const MAX_INSTANCES: usize = 1_000_000;
/// Share of the crowd that walks (or runs) instead of standing about...
const WALKER_SHARE: f32 = 0.35;
/// ...up to this many, so the CPU's work per frame does not grow with the
/// crowd.
const MAX_WALKERS: usize = 1000;
/// Share of the crowd that wears a powerup shell.
const SHELL_SHARE: f32 = 0.1;
/// The shells they wear, as Quake II's `renderfx` flags.
const SHELLS: [u32; 5] = [
    RF_SHELL_RED,
    RF_SHELL_GREEN,
    RF_SHELL_BLUE,
    RF_SHELL_DOUBLE,
    RF_SHELL_HALF_DAM,
];
const FOV_Y: f32 = 0.9;
/// How far the camera sees, in member heights: as far as a crowd of a few
/// thousand reaches from the fly-over.
const VIEW_DISTANCE: f32 = 50.0;
/// How far the drone (the second view) is from the walker it follows, in
/// member heights, and how steeply it looks down (radians).
const DRONE_DISTANCE: f32 = 5.0;
const DRONE_PITCH: f32 = 1.0;

fn main() -> ExitCode {
    let (mut levels, mut tint_levels, mut weapon) = (true, false, None);
    let own = |flag: &str, args: &mut dyn Iterator<Item = String>| {
        match flag {
            "--no-levels" => levels = false,
            "--level-tint" => tint_levels = true,
            "--weapon" => weapon = Some(std::path::PathBuf::from(framework::value(args, flag)?)),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let limits = (DEFAULT_INSTANCES, MAX_INSTANCES);
    let (common, source, instances) = match framework::crowd_source_args(USAGE, KEYS, limits, own) {
        Ok(args) => args,
        Err(code) => return code,
    };
    let source = match source {
        CrowdSource::Model(loaded) => Source::Model(loaded),
        CrowdSource::Player(dir) => match PlayerFile::open(&dir).and_then(|file| match &weapon {
            Some(weapon) => file.with_weapon_file(weapon),
            None => Ok(file),
        }) {
            Ok(file) => Source::Player(Box::new(file)),
            Err(e) => return framework::fail(&e),
        },
    };
    if weapon.is_some() && !matches!(source, Source::Player(_)) {
        return framework::fail("--weapon is for a Quake III player's folder");
    }
    let title = format!("md2-wgpu crowd — {}", source.name());
    framework::run(title, KEYS, common, move |gpu| {
        let mut crowd = Crowd::new(gpu, source, instances, levels)?;
        crowd.tint_levels = tint_levels;
        Ok(crowd)
    })
}

/// The camera: flies over the crowd on its own until steered.
struct Flight {
    auto: bool,
    position: Vec3,
    yaw: f32,
    pitch: f32,
    keys: [bool; 6],
    shift: bool,
    drag: Drag,
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
        if let Some((dx, dy)) = self.drag.input(event) {
            self.auto = false;
            self.yaw -= dx * 0.004;
            self.pitch = (self.pitch - dy * 0.004).clamp(-1.5, 1.5);
        }
    }

    /// Moves the camera: steered by the keys, or circling over the crowd
    /// (`field` is its radius, `height` a member's), looking down across it
    /// towards the middle: the near members large, the rest a mass. Over a
    /// large crowd it circles inside it, no higher or further out than over
    /// a crowd of a few thousand, so that it sees as many members.
    fn update(&mut self, dt: f32, clock: f32, field: f32, height: f32) {
        if self.auto {
            let angle = clock * 0.05 + 0.6;
            let reach = (field * 0.55 + height * 4.0).min(height * 20.0);
            let altitude = (height * 4.0 + field * 0.12).min(height * 7.5);
            let around = Vec3::new(angle.sin(), 0.0, angle.cos());
            self.position = around * reach + Vec3::Y * altitude;
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

/// What the crowd's members can play.
struct Clips {
    clips: Vec<Clip>,
    /// Per clip: how fast it moves a member along the ground (model units
    /// a second), or `None` for standing about.
    ground_speed: Vec<Option<f32>>,
    /// Per clip: the transform that stands the model on the ground at the
    /// origin, whatever frame of the clip it shows.
    stand: Vec<Mat4>,
    walking: Vec<usize>,
    standing: Vec<usize>,
    /// A Quake III player's torso clips (empty for a model): each player's
    /// torso plays one of them on its own clock.
    torso: Vec<Clip>,
}

impl Clips {
    fn new(model: &QuakeModel, height: f32) -> Clips {
        let clips: Vec<Clip> = if Quake2Player::fits(model) {
            // The game loops only stand, run, crstand and crwalk; a crowd
            // also salutes, taunts, waves and points, over and over.
            use Quake2Player::*;
            [
                Stand,
                Run,
                Salute,
                Taunt,
                Wave,
                Point,
                CrouchStand,
                CrouchWalk,
            ]
            .map(|p| Clip {
                looping: true,
                ..p.clip()
            })
            .into()
        } else {
            // One-shot animations (deaths) would leave bodies lying about.
            // An MDL's frame groups play at their intervals' rate.
            let looping: Vec<Clip> = model.clips().into_iter().filter(|c| c.looping).collect();
            if looping.is_empty() {
                let last = model.frame_count().saturating_sub(1);
                vec![Clip::looping("all", 0, last)]
            } else {
                looping
            }
        };
        // Ground speed in heights per second: a crouching walk, a run.
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
        let stand = clips
            .iter()
            .map(|c| stand_on_ground(model, c.frames(), Vec3::ZERO))
            .collect();
        Clips::sorted(clips, ground_speed, stand, Vec::new())
    }

    /// The clips, with those that move a member along the ground apart
    /// from those it stands about in (the first clip stands where none
    /// would).
    fn sorted(
        clips: Vec<Clip>,
        ground_speed: Vec<Option<f32>>,
        stand: Vec<Mat4>,
        torso: Vec<Clip>,
    ) -> Clips {
        let (walking, mut standing): (Vec<usize>, Vec<usize>) =
            (0..clips.len()).partition(|&i| ground_speed[i].is_some());
        if standing.is_empty() {
            standing.push(0);
        }
        Clips {
            clips,
            ground_speed,
            stand,
            walking,
            standing,
            torso,
        }
    }

    /// A Quake III player's: its legs idle, crouch, walk and run, its torso
    /// stands, gestures and attacks (all looping, as a crowd plays them);
    /// `ground` is how far below the legs' origin the feet are.
    fn for_player(player: &Md3Player, height: f32, ground: f32) -> Clips {
        use PlayerAnimation::*;
        let cfg = player.animations();
        let clips = player_clips(cfg, &[LegsIdle, LegsIdlecr, LegsWalk, LegsRun, LegsWalkcr]);
        let ground_speed: Vec<Option<f32>> = clips
            .iter()
            .map(|clip| match &*clip.name {
                n if n == LegsRun.name() => Some(height * 3.0),
                n if n == LegsWalk.name() => Some(height),
                n if n == LegsWalkcr.name() => Some(height * 0.6),
                _ => None,
            })
            .collect();
        let stand = vec![Mat4::from_translation(Vec3::Y * ground); clips.len()];
        let torso = player_clips(
            cfg,
            &[
                TorsoStand,
                TorsoStand2,
                TorsoGesture,
                TorsoAttack,
                TorsoAttack2,
            ],
        );
        Clips::sorted(clips, ground_speed, stand, torso)
    }
}

/// A Quake III player's height standing (legs idle, torso standing: every
/// part's box placed at its tag), and how far below the legs' origin its
/// feet are, in the Y-up world.
fn player_extent(player: &Md3Player) -> (f32, f32) {
    let cfg = player.animations();
    let first = |a: PlayerAnimation| FrameLerp::still(cfg.clip(a).map_or(0, |c| c.first));
    match parts_box(
        player,
        first(PlayerAnimation::LegsIdle),
        first(PlayerAnimation::TorsoStand),
    ) {
        Some((lo, hi)) if hi.y > lo.y => (hi.y - lo.y, -lo.y),
        // Quake III's player box: 56 units tall, its origin 24 above the feet.
        _ => (56.0, 24.0),
    }
}

/// What the crowd is drawn from.
enum Source {
    Model(Box<Loaded>),
    Player(Box<PlayerFile>),
}

impl Source {
    fn name(&self) -> &str {
        match self {
            Source::Model(loaded) => &loaded.name,
            Source::Player(file) => &file.name,
        }
    }
}

/// The crowd itself: one model's resident crowd, or Quake III players'.
enum Population {
    Model {
        model: Box<GpuModel>,
        crowd: Box<Md2Crowd>,
    },
    Players {
        /// The player's surfaces on the GPU.
        player: Box<GpuPlayer>,
        crowd: PlayerCrowd,
    },
}

impl Population {
    fn clear(&mut self, handles: impl Iterator<Item = CrowdHandle>) {
        match self {
            Population::Model { crowd, .. } => crowd.clear(),
            Population::Players { crowd, .. } => {
                for handle in handles {
                    let _ = crowd.remove(handle);
                }
            }
        }
    }

    fn reserve(&mut self, additional: usize) {
        match self {
            Population::Model { crowd, .. } => crowd.reserve(additional),
            Population::Players { crowd, .. } => crowd.reserve(additional),
        }
    }

    /// The most members the device holds.
    fn max_members(&self) -> usize {
        match self {
            Population::Model { crowd, .. } => crowd.max_members(),
            Population::Players { crowd, .. } => crowd
                .crowds()
                .map(|(_, c)| c.max_members())
                .min()
                .unwrap_or(0),
        }
    }

    fn skin_count(&self) -> u32 {
        match self {
            Population::Model { model, .. } => model.skin_count(),
            Population::Players { .. } => 1,
        }
    }

    /// Adds `member`; a player's torso plays `torso`.
    fn add(&mut self, member: CrowdMember, torso: ClipClock) -> Result<CrowdHandle, String> {
        match self {
            Population::Model { crowd, .. } => crowd.add(member).map_err(|e| e.to_string()),
            Population::Players { crowd, .. } => {
                let mut player = PlayerMember::new(member.transform, member.playback, torso);
                player.tint = member.tint;
                player.effects = member.effects;
                crowd.add(player).map_err(|e| e.to_string())
            }
        }
    }

    fn set_transform(&mut self, handle: CrowdHandle, transform: Mat4) -> Result<(), String> {
        match self {
            Population::Model { crowd, .. } => crowd.member(handle).set_transform(transform),
            Population::Players { crowd, .. } => {
                return crowd
                    .set_transform(handle, transform)
                    .map_err(|e| e.to_string());
            }
        }
        .map_err(|e| e.to_string())
    }

    fn set_tint(&mut self, handle: CrowdHandle, tint: [f32; 4]) -> Result<(), String> {
        match self {
            Population::Model { crowd, .. } => crowd.member(handle).set_tint(tint),
            Population::Players { crowd, .. } => {
                return crowd.set_tint(handle, tint).map_err(|e| e.to_string());
            }
        }
        .map_err(|e| e.to_string())
    }

    fn set_culling(&mut self, culling: bool) {
        for crowd in self.crowds_mut() {
            crowd.set_culling(culling);
        }
    }

    /// The crowds to prepare, in order (a player's parts before those that
    /// ride them).
    fn crowds_mut(&mut self) -> Box<dyn Iterator<Item = &mut Md2Crowd> + '_> {
        match self {
            Population::Model { crowd, .. } => Box::new(std::iter::once(&mut **crowd)),
            Population::Players { crowd, .. } => Box::new(crowd.crowds_mut()),
        }
    }

    /// The model whose levels of detail the L key shows: the model's, or
    /// a player's legs'.
    fn level_model(&self) -> &GpuModel {
        match self {
            Population::Model { model, .. } => model,
            Population::Players { player, .. } => {
                player.surface(0).expect("a player crowd has the legs").2
            }
        }
    }
}

/// A member that walks in a circle about the middle of the field.
struct Walker {
    clip: usize,
    radius: f32,
    /// Where on the circle it starts, and how fast it goes round (radians a
    /// second; negative is clockwise seen from above).
    angle: f32,
    turn: f32,
}

impl Walker {
    /// Where the walker stands at `time`, and which way it walks.
    fn place(&self, time: f64) -> (Vec3, Vec3) {
        // In f64: an f32 clock would make walkers jitter after some hours.
        let turned = (f64::from(self.turn) * time).rem_euclid(std::f64::consts::TAU);
        let angle = self.angle + turned as f32;
        let position = Vec3::new(angle.cos(), 0.0, angle.sin()) * self.radius;
        let forward = Vec3::new(-angle.sin(), 0.0, angle.cos()) * self.turn.signum();
        (position, forward)
    }

    /// Its transform at `time`: standing there, facing the way it walks.
    fn transform(&self, clips: &Clips, time: f64) -> Mat4 {
        let (position, forward) = self.place(time);
        // The model faces +Z; turned by h about Y it faces (sin h, cos h).
        let heading = forward.x.atan2(forward.z);
        Mat4::from_translation(position) * Mat4::from_rotation_y(heading) * clips.stand[self.clip]
    }
}

struct Crowd {
    name: String,
    renderer: Md2Renderer,
    /// The drone's view: a second renderer on the first one's cache.
    drone: Md2Renderer,
    show_drone: bool,
    population: Population,
    walkers: Vec<(CrowdHandle, Walker)>,
    ground: Ground,
    /// The drone view's ground, which also resets the depth in its
    /// corner of the frame.
    drone_ground: Ground,
    clips: Clips,
    /// How many members the crowd has.
    count: usize,
    /// Distance between neighbours on the field.
    spacing: f32,
    /// A member's height (standing, in its first frame).
    height: f32,
    /// The crowd's clock, in seconds.
    time: f64,
    shadows: bool,
    /// Whether members outside a view are left out of its draws.
    culling: bool,
    /// Members in the main view and the drone's at the last count, and the
    /// main view's per level of detail.
    visible: Option<(u32, u32)>,
    per_level: Option<[u32; MAX_LEVELS]>,
    /// Whether members are tinted by their level of detail, and the level
    /// each was tinted for (`None`: its own tint), member by member.
    tint_levels: bool,
    tinted: Vec<Option<usize>>,
    /// Every member's own tint and transform (walkers' as added), to tint
    /// by level and back.
    own: Vec<(CrowdHandle, Mat4, [f32; 4])>,
    /// The main camera of the frame being drawn.
    camera: Camera,
    /// `prepare_crowds` calls of the main view and the drone so far, and
    /// at the last recount: counts of frames before it are stale.
    frames: (u64, u64),
    counted_from: (u64, u64),
    /// The corner the drone's view is drawn in: x, y, width, height, in
    /// pixels.
    drone_viewport: [f32; 4],
    flight: Flight,
    failed: bool,
}

impl Crowd {
    fn new(gpu: &Gpu, source: Source, count: usize, levels: bool) -> Result<Crowd, String> {
        let options = gpu.renderer_options();
        let mut renderer = Md2Renderer::new(&gpu.device, gpu.color_format, options)
            .map_err(|e| format!("cannot build the renderer: {e}"))?;
        // A second view costs a uniform and an instance buffer: the shaders
        // and pipelines are the first one's.
        let drone = Md2Renderer::with_cache(&gpu.device, &renderer, gpu.color_format, options)
            .map_err(|e| format!("cannot build the second view: {e}"))?;
        renderer
            .set_shadow(Some(shadow()))
            .map_err(|e| e.to_string())?;
        let name = source.name().to_owned();
        let (population, clips, height) = match source {
            Source::Model(loaded) => Crowd::model(gpu, &renderer, *loaded, levels)?,
            Source::Player(file) => {
                // Levels of detail on every surface, each chosen on its own.
                let options = if levels {
                    GpuModelOptions::WITH_LEVELS
                } else {
                    GpuModelOptions::DEFAULT
                };
                let gpu_player = GpuPlayer::with_options(
                    &gpu.device,
                    &gpu.queue,
                    &renderer,
                    &file.player,
                    &file.textures,
                    options,
                )
                .map_err(|e| format!("{name}: {e}"))?;
                let crowd = PlayerCrowd::new(&gpu.device, &renderer, &gpu_player)
                    .map_err(|e| format!("cannot make the crowd: {e}"))?;
                let (height, ground) = player_extent(&file.player);
                let clips = Clips::for_player(&file.player, height, ground);
                let legs: Vec<&str> = clips.clips.iter().map(|c| c.name.as_ref()).collect();
                let torso: Vec<&str> = clips.torso.iter().map(|c| c.name.as_ref()).collect();
                println!(
                    "{name}: a Quake III player of {} surfaces; legs play {} ({} walking), \
                     torsos {}; {} bytes on the GPU for the model, {} for an empty crowd",
                    gpu_player.surface_count(),
                    legs.join(" "),
                    clips.walking.len(),
                    torso.join(" "),
                    (0..gpu_player.surface_count())
                        .filter_map(|s| gpu_player.surface(s))
                        .map(|(_, _, m)| m.gpu_bytes())
                        .sum::<u64>(),
                    crowd.gpu_bytes(),
                );
                let population = Population::Players {
                    player: Box::new(gpu_player),
                    crowd,
                };
                (population, clips, height)
            }
        };
        println!(
            "{name}: at most {} members on this device",
            population.max_members()
        );
        let mut crowd = Crowd {
            name,
            renderer,
            drone,
            show_drone: false,
            population,
            walkers: Vec::new(),
            ground: Ground::new(
                &gpu.device,
                gpu.ground_target(),
                wgpu::CompareFunction::Less,
            ),
            drone_ground: Ground::new(
                &gpu.device,
                gpu.ground_target(),
                wgpu::CompareFunction::Always,
            ),
            clips,
            count: 0,
            // Sunflower points this far apart stand about a height apart.
            spacing: height * 0.6,
            height,
            time: 0.0,
            shadows: true,
            culling: true,
            visible: None,
            per_level: None,
            tint_levels: false,
            tinted: Vec::new(),
            own: Vec::new(),
            camera: Camera::default(),
            frames: (0, 0),
            counted_from: (0, 0),
            drone_viewport: [0.0; 4],
            flight: Flight {
                auto: true,
                position: Vec3::ZERO,
                yaw: 0.0,
                pitch: 0.0,
                keys: [false; 6],
                shift: false,
                drag: Drag::default(),
            },
            failed: false,
        };
        crowd.populate(count)?;
        Ok(crowd)
    }

    /// A model's population: uploaded with its levels of detail (unless
    /// `levels` is off), its crowd, its clips and its height.
    fn model(
        gpu: &Gpu,
        renderer: &Md2Renderer,
        loaded: Loaded,
        levels: bool,
    ) -> Result<(Population, Clips, f32), String> {
        let Loaded {
            name,
            model,
            skins,
            options: model_options,
        } = loaded;
        // Levels of detail: coarser triangle lists over the same frames,
        // each member drawn at the coarsest that stays within a pixel.
        let upload = if levels {
            model_options.with_levels(LevelOptions::DEFAULT)
        } else {
            model_options
        };
        let gpu_model =
            GpuModel::with_options(&gpu.device, &gpu.queue, renderer, &model, &skins, upload)
                .map_err(|e| format!("{name}: {e}"))?;
        let described: Vec<String> = gpu_model
            .level_choice()
            .levels()
            .iter()
            .map(|l| {
                format!(
                    "{} triangles (error {:.2} units)",
                    l.triangle_count(),
                    l.error
                )
            })
            .collect();
        println!(
            "{name}: levels of detail: {} (built in {:.0} ms)",
            described.join(", "),
            gpu_model.level_choice().build_time().as_secs_f64() * 1000.0
        );
        if gpu_model.uses_default_skin() {
            println!("note: {name} has no skin: drawn with the default checker texture");
        }
        let crowd = Md2Crowd::new(&gpu.device, renderer, &gpu_model)
            .map_err(|e| format!("cannot make the crowd: {e}"))?;
        // Quake's z is the world's y.
        let first = model.frame_bounds(0);
        let height = (first.max[2] - first.min[2]).max(1e-3);
        let clips = Clips::new(&model, height);
        let names: Vec<&str> = clips.clips.iter().map(|c| c.name.as_ref()).collect();
        println!(
            "{name}: the crowd plays {} ({} walking), {} skin(s), {} bytes on the GPU",
            names.join(" "),
            clips.walking.len(),
            gpu_model.skin_count(),
            gpu_model.gpu_bytes(),
        );
        let population = Population::Model {
            model: Box::new(gpu_model),
            crowd: Box::new(crowd),
        };
        Ok((population, clips, height))
    }

    /// The radius of the field the crowd stands on.
    fn field(&self) -> f32 {
        self.spacing * (self.count as f32).sqrt() + self.height
    }

    /// Fills the crowd with `count` members, the walkers first, so that
    /// moving them each frame rewrites one contiguous run of the crowd's
    /// buffer. Member `i` is the same whatever the count: it stands in the
    /// same place and does the same thing.
    fn populate(&mut self, count: usize) -> Result<(), String> {
        let count = count.clamp(1, MAX_INSTANCES.min(self.population.max_members()));
        self.population.clear(self.own.iter().map(|(h, _, _)| *h));
        // The member buffer made exactly this large (a million members
        // fill WebGPU's default storage binding).
        self.population.reserve(count);
        self.walkers.clear();
        self.own.clear();
        self.count = count;
        let skins = self.population.skin_count().max(1) as usize;
        let mut standing = Vec::with_capacity(count);
        // Vogel's sunflower spiral: evenly spread at any count, and member i
        // stands in the same place however many follow.
        let golden = TAU * (1.0 - 1.0 / 1.618_034);
        for i in 0..count {
            let mut rng = Rng::new(i as u64);
            let radius = self.spacing * (i as f32 + 0.5).sqrt();
            let angle = i as f32 * golden;
            let jitter = Vec2::new(rng.unit() - 0.5, rng.unit() - 0.5) * self.spacing * 0.5;
            let position = Vec2::from_angle(angle) * radius + jitter;
            // Walkers circle the middle; those right in it would spin.
            let walks = !self.clips.walking.is_empty()
                && self.walkers.len() < MAX_WALKERS
                && radius > self.spacing * 3.0
                && rng.chance(WALKER_SHARE);
            let clip = if walks {
                self.clips.walking[rng.below(self.clips.walking.len())]
            } else {
                self.clips.standing[rng.below(self.clips.standing.len())]
            };
            let speed = rng.range(0.8, 1.2);
            // Started up to ten seconds ago: no two members in step.
            let clock = ClipClock::new(self.clips.clips[clip].clone(), -rng.unit_f64() * 10.0)
                .with_speed(speed);
            // A player's torso: its own clip, phase and speed.
            let torso = match self.clips.torso.len() {
                0 => clock.clone(),
                n => ClipClock::new(
                    self.clips.torso[rng.below(n)].clone(),
                    -rng.unit_f64() * 10.0,
                )
                .with_speed(rng.range(0.7, 1.3)),
            };
            let effects = if rng.chance(SHELL_SHARE) {
                Effects::from_quake_flags(SHELLS[rng.below(SHELLS.len())])
            } else {
                Effects::NONE
            };
            let heading = rng.unit() * TAU;
            let member = CrowdMember::new(Mat4::IDENTITY, clock)
                .with_skin(rng.below(skins) as u32)
                .with_tint(tint(rng.unit()))
                .with_effects(effects);
            if walks {
                let ground_speed = self.clips.ground_speed[clip].unwrap_or(0.0) * speed;
                let direction = if rng.chance(0.5) { 1.0 } else { -1.0 };
                let walker = Walker {
                    clip,
                    radius: position.length(),
                    angle: position.y.atan2(position.x),
                    turn: direction * ground_speed / position.length(),
                };
                let transform = walker.transform(&self.clips, self.time);
                let tint = member.tint;
                let handle = self.population.add(
                    CrowdMember {
                        transform,
                        ..member
                    },
                    torso,
                )?;
                self.walkers.push((handle, walker));
                self.own.push((handle, transform, tint));
            } else {
                let transform = Mat4::from_translation(Vec3::new(position.x, 0.0, position.y))
                    * Mat4::from_rotation_y(heading)
                    * self.clips.stand[clip];
                standing.push((
                    CrowdMember {
                        transform,
                        ..member
                    },
                    torso,
                ));
            }
        }
        for (member, torso) in standing {
            let (transform, tint) = (member.transform, member.tint);
            let handle = self.population.add(member, torso)?;
            self.own.push((handle, transform, tint));
        }
        self.tinted = vec![None; self.own.len()];
        self.recount();
        println!(
            "crowd: {count} members, {} of them walking",
            self.walkers.len()
        );
        Ok(())
    }

    /// With the L key: tints every member whose level of detail changed by
    /// its new level (the level both paths choose, computed on the CPU by
    /// `GpuModel::level_for`); without it, gives back the own tints of
    /// those still tinted. Only the members whose tint changes upload.
    fn tint_by_level(&mut self) -> Result<(), String> {
        let pixels = self.renderer.options().level_error_pixels;
        for (k, (handle, transform, own)) in self.own.iter().enumerate() {
            // Walkers come first, in the order of `walkers`.
            let transform = match self.walkers.get(k) {
                Some((_, walker)) => walker.transform(&self.clips, self.time),
                None => *transform,
            };
            let level = self.tint_levels.then(|| {
                self.population.level_model().level_choice().for_view(
                    &self.camera,
                    pixels,
                    transform,
                )
            });
            if level == self.tinted[k] {
                continue;
            }
            let tint = level.map_or(*own, |l| LEVEL_TINTS[l.min(LEVEL_TINTS.len() - 1)]);
            self.population.set_tint(*handle, tint)?;
            self.tinted[k] = level;
        }
        Ok(())
    }

    /// Forgets the count of members in view until one of a frame drawn
    /// from now on comes back.
    fn recount(&mut self) {
        self.visible = None;
        self.per_level = None;
        self.counted_from = self.frames;
    }

    fn report(&mut self, result: Result<(), String>) {
        // Say what went wrong once, not every frame.
        if let Err(e) = result
            && !self.failed
        {
            eprintln!("error: {e}");
            self.failed = true;
        }
    }

    /// The drone's camera, following the walker halfway out (or looking
    /// at the middle of the field when nobody walks), steeply from above
    /// and behind so that no sky shows: its ground fills its corner.
    fn drone_camera(&self) -> (Camera, Vec3) {
        let halfway = self.field() * 0.5;
        let (at, forward) = self
            .walkers
            .iter()
            .map(|(_, w)| w)
            .min_by(|a, b| {
                (a.radius - halfway)
                    .abs()
                    .total_cmp(&(b.radius - halfway).abs())
            })
            .map_or((Vec3::ZERO, Vec3::Z), |w| w.place(self.time));
        let distance = self.height * DRONE_DISTANCE;
        let (down, back) = DRONE_PITCH.sin_cos();
        let eye = at + (Vec3::Y * down - forward * back) * distance;
        let target = at + Vec3::Y * self.height * 0.5;
        let camera = Camera::look_at(eye, target, FOV_Y, 1.0, distance * 0.1, distance * 4.0);
        (camera, at)
    }
}

/// Shadows fall away from the camera's default light.
fn shadow() -> PlanarShadow {
    PlanarShadow::on_ground(0.0, Light::default().towards_light)
}

/// The tints of the L key, level by level: full detail as the skin is,
/// then green, yellow, red, purple.
const LEVEL_TINTS: [[f32; 4]; MAX_LEVELS] = [
    [1.0, 1.0, 1.0, 1.0],
    [0.35, 1.0, 0.35, 1.0],
    [1.0, 0.95, 0.25, 1.0],
    [1.0, 0.3, 0.3, 1.0],
    [0.75, 0.35, 1.0, 1.0],
];

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
        self.time += f64::from(dt);
        // The only members the CPU touches this frame.
        let mut moved = Ok(());
        for (handle, walker) in &self.walkers {
            let transform = walker.transform(&self.clips, self.time);
            if let Err(e) = self.population.set_transform(*handle, transform) {
                moved = Err(e);
            }
        }
        self.report(moved);
        // The counts of a recent frame, read back without waiting for the
        // GPU (a few frames old).
        let fresh = |counts: Option<VisibleMembers>, since: u64| counts.filter(|c| c.frame > since);
        let main = fresh(
            VisibleMembers::recent(&mut self.renderer, &gpu.device),
            self.counted_from.0,
        );
        let drone = fresh(
            VisibleMembers::recent(&mut self.drone, &gpu.device),
            self.counted_from.1,
        );
        if let Some(main) = &main {
            self.per_level = main.per_level.first().copied();
        }
        let first = |c: &VisibleMembers| c.per_crowd.first().copied().unwrap_or(0);
        match (&main, &drone) {
            (Some(m), Some(d)) => self.visible = Some((first(m), first(d))),
            (Some(m), None) if !self.show_drone => self.visible = Some((first(m), 0)),
            _ => {}
        }

        let field = self.field();
        self.flight.update(dt, self.time as f32, field, self.height);
        // Only what is in view is drawn: the far plane bounds a frame's
        // work, however large the crowd.
        let far = (field * 2.0 + self.height * 10.0).min(self.height * VIEW_DISTANCE);
        let camera = Camera::look_at(
            self.flight.position,
            self.flight.position + self.flight.direction(),
            FOV_Y,
            gpu.aspect(),
            (self.height * 0.05).max(0.01),
            far,
        )
        // Levels of detail are chosen by their error in pixels on it.
        .with_viewport(UVec2::new(gpu.size.0, gpu.size.1));
        self.camera = camera;
        if self.tint_levels || self.tinted.iter().any(Option::is_some) {
            let tinted = self.tint_by_level();
            self.report(tinted);
        }
        let prepared = self.renderer.prepare(&gpu.device, &gpu.queue, &camera, &[]);
        self.report(prepared.map(drop).map_err(|e| e.to_string()));
        // Fading out towards the far plane, where the crowd ends.
        let ground = GroundParams {
            center: self.flight.position * Vec3::new(1.0, 0.0, 1.0),
            radius: far,
            cell: self.height,
            background: self.clear_color(),
            inset: None,
        };
        self.ground.prepare(&gpu.queue, camera.view_proj, &ground);
        if self.show_drone {
            let (width, height) = (gpu.size.0 as f32, gpu.size.1 as f32);
            let side = (width.min(height) * 0.4).floor();
            let (drone, at) = self.drone_camera();
            let drone = drone.with_viewport(UVec2::splat(side as u32));
            let prepared = self.drone.prepare(&gpu.device, &gpu.queue, &drone, &[]);
            self.report(prepared.map(drop).map_err(|e| e.to_string()));
            let margin = (side * 0.04).floor();
            self.drone_viewport = [width - side - margin, margin, side, side];
            // Centred on the view and large enough to cover all of it (its
            // rim fades out), so its depth replaces the main view's there.
            let drone_ground = GroundParams {
                center: at,
                radius: self.height * DRONE_DISTANCE * 8.0,
                inset: Some(self.drone_viewport),
                ..ground
            };
            self.drone_ground
                .prepare(&gpu.queue, drone.view_proj, &drone_ground);
        }
    }

    fn encode(&mut self, gpu: &Gpu, encoder: &mut wgpu::CommandEncoder) {
        // Each view culls the crowd against its own camera.
        let mut views = vec![&mut self.renderer];
        self.frames.0 += 1;
        if self.show_drone {
            views.push(&mut self.drone);
            self.frames.1 += 1;
        }
        let mut result = Ok(());
        for view in views {
            if let Err(e) = view.prepare_crowds(
                &gpu.device,
                &gpu.queue,
                encoder,
                self.time,
                self.population.crowds_mut(),
            ) {
                result = Err(e.to_string());
            }
        }
        self.report(result);
    }

    fn render_background(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        self.ground.render(pass);
    }

    fn render(&mut self, pass: &mut wgpu::RenderPass<'_>) {
        self.renderer.render(pass);
        if self.show_drone {
            // The same pass, a corner of it: the ground replaces the depth
            // the main view left there, then the second view draws.
            let [x, y, width, height] = self.drone_viewport;
            pass.set_viewport(x, y, width, height, 0.0, 1.0);
            pass.set_scissor_rect(x as u32, y as u32, width as u32, height as u32);
            self.drone_ground.render(pass);
            self.drone.render(pass);
        }
    }

    fn input(&mut self, event: &WindowEvent) {
        if let WindowEvent::KeyboardInput { event, .. } = event {
            let pressed = event.state == ElementState::Pressed;
            if self.flight.key(&event.logical_key, pressed) || !pressed {
                return;
            }
            let result = match &event.logical_key {
                Key::Named(NamedKey::Space) => {
                    self.flight.auto = true;
                    Ok(())
                }
                Key::Character(c) => match c.to_lowercase().as_str() {
                    "+" | "=" => self.populate(self.count * 2),
                    "-" | "_" => self.populate(self.count / 2),
                    "v" => {
                        self.show_drone = !self.show_drone;
                        self.recount();
                        Ok(())
                    }
                    "g" => {
                        self.shadows = !self.shadows;
                        self.renderer
                            .set_shadow(self.shadows.then(shadow))
                            .map_err(|e| e.to_string())
                    }
                    "c" => {
                        self.culling = !self.culling;
                        self.population.set_culling(self.culling);
                        self.recount();
                        Ok(())
                    }
                    "l" => {
                        self.tint_levels = !self.tint_levels;
                        Ok(())
                    }
                    _ => Ok(()),
                },
                _ => Ok(()),
            };
            self.report(result);
        }
        self.flight.input(event);
    }

    fn title(&self, stats: &FrameStats) -> String {
        let visible = match self.visible {
            Some((main, drone)) if self.show_drone => {
                format!("{main} in view, {drone} in the drone's")
            }
            Some((main, _)) => format!("{main} in view"),
            None => "counting".to_owned(),
        };
        let levels = match self.per_level {
            Some(levels) if self.population.level_model().level_choice().levels().len() > 1 => {
                let count = self.population.level_model().level_choice().levels().len();
                let drawn = &levels[..count.min(MAX_LEVELS)];
                let drawn: Vec<String> = drawn.iter().map(u32::to_string).collect();
                format!(", per level {}", drawn.join("/"))
            }
            _ => String::new(),
        };
        let mut notes = String::new();
        if !self.culling {
            notes += " — culling off";
        }
        if !self.flight.auto {
            notes += " — steering";
        }
        format!(
            "md2-wgpu crowd — {} — {} members ({visible}{levels}), {} walking — {} fps — {:.2} ms CPU/frame{notes}",
            self.name,
            self.count,
            self.walkers.len(),
            stats.fps_text(),
            stats.cpu_ms,
        )
    }
}
