//! What is drawn: the models, and a crowd in which every member has its own
//! animation, phase, speed, place, heading, skin and tint, drawn from a
//! seeded generator so every run and every strategy draws the same crowd;
//! the cameras that see all of it or part of it; the effects it wears.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use image::RgbaImage;
use md2_wgpu::format::mdl::{Palette, SkinImages};
use md2_wgpu::support::Rng;
use md2_wgpu::{
    Camera, Clip, QuakeModel,
    anim::ClipClock,
    contract::GpuModelOptions,
    demo,
    scene::{Effects, PlanarShadow, quake_to_y_up},
};

/// Distance between neighbours on the crowd's grid, in model units (a
/// Quake II player is 32 wide and 56 tall).
const SPACING: f32 = 48.0;
/// How far a member may stand off its grid point.
const JITTER: f32 = 12.0;
/// The crowd is seen from above and in front.
const VIEW_FROM: Vec3 = Vec3::new(0.25, 0.7, 1.0);
/// The simulated clock runs at 60 frames a second, so successive frames
/// show successive poses whatever the real frame time.
pub const CLOCK_HZ: f64 = 60.0;
/// Shells on a tenth of the crowd are quad damage's blue.
const SHELL_BLUE: [f32; 3] = [0.0, 0.0, 1.0];

/// The crowd's seed: the same crowd in every run and every strategy.
pub const SEED: u64 = 0x6d64_325f_6372_6f77;

/// Seconds on the simulated clock at frame `frame`.
pub fn time(frame: u64) -> f64 {
    frame as f64 / CLOCK_HZ
}

/// A model to draw, with its skins.
pub struct BenchModel {
    /// Short name for the table.
    pub label: String,
    pub model: QuakeModel,
    /// The skin layers, followed by their fullbright masks where
    /// `options` says so.
    pub skins: Vec<RgbaImage>,
    /// What the model's upload needs (an MDL's fullbright masks); each
    /// section adds its own choices.
    pub options: GpuModelOptions,
}

impl BenchModel {
    /// The crate's built-in character.
    pub fn demo() -> BenchModel {
        BenchModel {
            label: "demo".into(),
            model: demo::demo_model().into(),
            skins: vec![demo::demo_skin()],
            options: GpuModelOptions::DEFAULT,
        }
    }

    /// An MD2 or MDL file with one skin image, or (an MDL without one) its
    /// own skins in the palette beside it (else the crate's built-in one).
    pub fn load(label: &str, model: &Path, skin: Option<&Path>) -> Result<BenchModel, String> {
        let path = model;
        let model = QuakeModel::open(path).map_err(|e| e.to_string())?;
        let mut options = GpuModelOptions::DEFAULT;
        let skins = match (skin, &model) {
            (Some(skin), _) => vec![md2_wgpu::skins::load_skin(skin).map_err(|e| e.to_string())?],
            (None, QuakeModel::Mdl(mdl)) => {
                let palette = Palette::find(path).map_or_else(Palette::builtin, |(_, p)| p);
                let (skins, masks) = SkinImages::new(mdl, &palette).for_upload();
                options = options.with_fullbright_masks(masks);
                skins
            }
            (None, QuakeModel::Md2(_)) => {
                return Err(format!("{}: give its skin with --skin", path.display()));
            }
        };
        Ok(BenchModel {
            label: label.into(),
            model,
            skins,
            options,
        })
    }

    /// The skin layers members choose from (masks are not layers).
    pub fn skin_count(&self) -> u32 {
        let layers = if self.options.fullbright_masks {
            self.skins.len() / 2
        } else {
            self.skins.len()
        };
        layers as u32
    }

    /// `count` members of this model (see [`Scene::crowd`]).
    pub fn crowd(&self, count: usize) -> Result<Scene, String> {
        Scene::crowd(&self.model, self.skin_count(), count)
    }

    /// `count` members to the horizon (see [`Scene::horizon`]).
    pub fn horizon(&self, count: usize) -> Result<Scene, String> {
        Scene::horizon(&self.model, self.skin_count(), count)
    }

    /// `count` members all close (see [`Scene::close`]).
    pub fn close(&self, count: usize, reach: f32) -> Result<Scene, String> {
        Scene::close(&self.model, self.skin_count(), count, reach)
    }

    /// "demo: 588 vertices, 1116 triangles, 198 frames, 21 animations".
    pub fn describe(&self) -> String {
        format!(
            "{}: {} vertices, {} triangles, {} frames, {} animations",
            self.label,
            self.model.vertex_count(),
            self.model.triangle_count(),
            self.model.frame_count(),
            self.model.animations().len()
        )
    }
}

/// One member of the crowd.
#[derive(Clone)]
pub struct Member {
    /// Model (Y-up) to world.
    pub transform: Mat4,
    /// What it plays, from when, how fast: the immediate strategies sample
    /// it on the CPU, the resident one hands it to the GPU.
    pub clock: ClipClock,
    pub skin: u32,
    pub tint: [f32; 4],
    pub effects: Effects,
}

/// Everyone, the camera, and the view's shadow.
#[derive(Clone)]
pub struct Scene {
    pub members: Vec<Member>,
    pub camera: Camera,
    pub shadow: Option<PlanarShadow>,
    /// The world box the crowd stands in (feet to head), for cameras that
    /// frame part of it.
    bounds: (Vec3, Vec3),
}

impl Scene {
    /// `count` members of `model` with `skin_count` skins on a square grid
    /// with jitter, each playing one of the model's animations (looped, so
    /// everyone keeps moving) from its own phase at its own speed; the
    /// camera frames them all.
    pub fn crowd(model: &QuakeModel, skin_count: u32, count: usize) -> Result<Scene, String> {
        // An MDL's frame groups play at their intervals' rate.
        let clips: Vec<Clip> = model
            .clips()
            .into_iter()
            .map(|clip| Clip {
                looping: true,
                ..clip
            })
            .collect();
        if clips.is_empty() {
            return Err("the model has no animations".into());
        }
        let mut rng = Rng::new(SEED);
        let side = (count as f64).sqrt().ceil().max(1.0) as usize;
        let half = (side - 1) as f32 * SPACING * 0.5;
        let members = (0..count)
            .map(|i| {
                let x = (i % side) as f32 * SPACING - half + rng.range(-JITTER, JITTER);
                let z = (i / side) as f32 * SPACING - half + rng.range(-JITTER, JITTER);
                let yaw = rng.range(0.0, std::f32::consts::TAU);
                let transform = Mat4::from_rotation_translation(
                    Quat::from_rotation_y(yaw),
                    Vec3::new(x, 0.0, z),
                );
                let clip = clips[rng.below(clips.len())].clone();
                let phase = f64::from(rng.range(0.0, clip.duration().max(1.0) as f32));
                let speed = rng.range(0.8, 1.25);
                let skin = rng.below(skin_count.max(1) as usize) as u32;
                let tint = [
                    rng.range(0.6, 1.0),
                    rng.range(0.6, 1.0),
                    rng.range(0.6, 1.0),
                    1.0,
                ];
                Member {
                    transform,
                    // Started `phase` seconds before the clock's zero.
                    clock: ClipClock::new(clip, -phase).with_speed(speed),
                    skin,
                    tint,
                    effects: Effects::NONE,
                }
            })
            .collect();

        let quake = model.bounds();
        let (lo, hi) = (quake_to_y_up(quake.min), quake_to_y_up(quake.max));
        let reach = lo.x.abs().max(hi.x.abs()).max(lo.z.abs()).max(hi.z.abs()) + JITTER;
        let bounds = (
            Vec3::new(-half - reach, lo.y, -half - reach),
            Vec3::new(half + reach, hi.y, half + reach),
        );
        Ok(Scene {
            members,
            camera: fit_camera(bounds.0, bounds.1),
            shadow: None,
            bounds,
        })
    }

    /// The same crowd seen through a camera that frames only the middle of
    /// it: the square `side` world units across around the centre (and
    /// whatever else the frustum catches behind it).
    pub fn framing_middle(&self, side: f32) -> Scene {
        let (lo, hi) = self.bounds;
        let r = side * 0.5;
        Scene {
            camera: fit_camera(Vec3::new(-r, lo.y, -r), Vec3::new(r, hi.y, r)),
            ..self.clone()
        }
    }

    /// How wide the crowd's box is, in world units.
    pub fn extent(&self) -> f32 {
        self.bounds.1.x - self.bounds.0.x
    }

    /// The same scene with Quake II's planar shadows on the ground the
    /// crowd stands on, cast by the camera's light.
    pub fn with_shadows(&self) -> Scene {
        Scene {
            shadow: Some(PlanarShadow::on_ground(
                self.bounds.0.y,
                self.camera.light.towards_light,
            )),
            ..self.clone()
        }
    }

    /// The same scene with a blue powerup shell on every `k`th member.
    pub fn with_shells_every(&self, k: usize) -> Scene {
        let mut scene = self.clone();
        for m in scene.members.iter_mut().step_by(k.max(1)) {
            m.effects = m.effects.with_shell(SHELL_BLUE);
        }
        scene
    }

    /// `count` members spread over a square field (the crowd's grid and
    /// jitter), seen from head height at the middle of one edge, looking
    /// across to the far edge: a crowd that reaches the horizon, where most
    /// members in view are a few pixels tall. The camera knows the
    /// target's size, so levels of detail are chosen.
    pub fn horizon(model: &QuakeModel, skin_count: u32, count: usize) -> Result<Scene, String> {
        let crowd = Scene::crowd(model, skin_count, count)?;
        let (lo, hi) = crowd.bounds;
        let head = lo.y + (hi.y - lo.y) * 0.9;
        let eye = Vec3::new(0.0, head, lo.z - SPACING);
        let target = Vec3::new(0.0, head * 0.6, hi.z);
        let aspect = crate::gpu::WIDTH as f32 / crate::gpu::HEIGHT as f32;
        let far = (hi - eye).length().max((lo - eye).length());
        let camera = Camera::look_at(eye, target, 0.8, aspect, 1.0, far).with_viewport(viewport());
        Ok(Scene { camera, ..crowd })
    }

    /// `count` members packed in a block right in front of the camera,
    /// none farther than `reach` (world units) from it: close enough that
    /// every one is drawn at full detail, where levels of detail can only
    /// cost. Their grid is tighter than the crowd's (they overlap).
    pub fn close(
        model: &QuakeModel,
        skin_count: u32,
        count: usize,
        reach: f32,
    ) -> Result<Scene, String> {
        let mut scene = Scene::crowd(model, skin_count, count)?;
        let side = (count as f64).sqrt().ceil().max(1.0) as usize;
        // The block: `side` columns and rows, `reach / 2` deep.
        let step = reach * 0.5 / side as f32;
        let eye = Vec3::new(0.0, reach * 0.15, 0.0);
        for (i, m) in scene.members.iter_mut().enumerate() {
            let x = ((i % side) as f32 - side as f32 * 0.5) * step;
            let z = reach * 0.2 + (i / side) as f32 * step;
            let rotation = Quat::from_mat4(&m.transform);
            m.transform = Mat4::from_rotation_translation(rotation, Vec3::new(x, 0.0, z));
        }
        let aspect = crate::gpu::WIDTH as f32 / crate::gpu::HEIGHT as f32;
        scene.camera = Camera::look_at(
            eye,
            Vec3::new(0.0, 0.0, reach * 0.45),
            0.8,
            aspect,
            1.0,
            reach * 2.0,
        )
        .with_viewport(viewport());
        Ok(scene)
    }

    /// Whether any member wears an effect or the view casts shadows.
    pub fn has_effects(&self) -> bool {
        self.shadow.is_some() || self.members.iter().any(|m| m.effects != Effects::NONE)
    }
}

/// The benchmark's target size, for cameras that choose levels of detail.
fn viewport() -> glam::UVec2 {
    glam::UVec2::new(crate::gpu::WIDTH, crate::gpu::HEIGHT)
}

/// A perspective camera looking at the box `min..max` from [`VIEW_FROM`],
/// as close as it can get with every corner of the box in view, so the
/// crowd fills the frame whatever its size (`Camera::framing` fits the
/// box's bounding sphere instead, which leaves a flat crowd small).
fn fit_camera(min: Vec3, max: Vec3) -> Camera {
    const FOV_Y: f32 = 0.8;
    let aspect = crate::gpu::WIDTH as f32 / crate::gpu::HEIGHT as f32;
    let center = (min + max) * 0.5;
    let radius = ((max - min).length() * 0.5).max(1.0);
    let dir = VIEW_FROM.normalize();
    let at = |distance: f32| {
        let near = (distance - radius).max(distance * 0.01);
        Camera::look_at(
            center + dir * distance,
            center,
            FOV_Y,
            aspect,
            near,
            distance + radius,
        )
    };
    let fits = |camera: &Camera| {
        (0..8).all(|i| {
            let corner = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            );
            let clip = camera.view_proj * corner.extend(1.0);
            clip.w > 0.0 && clip.x.abs() <= clip.w && clip.y.abs() <= clip.w
        })
    };
    // The bounding sphere always fits from this far away; halve the gap to
    // the closest distance that still shows every corner.
    let (mut lo, mut hi) = (radius * 0.01, radius / (FOV_Y * 0.5).sin().min(1.0) * 2.0);
    for _ in 0..40 {
        let mid = (lo + hi) * 0.5;
        if fits(&at(mid)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    at(hi)
}
