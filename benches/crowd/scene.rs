//! What is drawn: the models, and a crowd in which every member has its own
//! animation, phase, place, heading, skin and tint, drawn from a seeded
//! generator so every run and every strategy draws the same crowd.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use image::RgbaImage;
use md2_wgpu::{Camera, Clip, Md2Model, Pose, QUAKE_TO_Y_UP, demo, quake_to_y_up};

/// Distance between neighbours on the crowd's grid, in model units (a
/// Quake II player is 32 wide and 56 tall).
const SPACING: f32 = 48.0;
/// How far a member may stand off its grid point.
const JITTER: f32 = 12.0;
/// The crowd is seen from above and in front.
const VIEW_FROM: Vec3 = Vec3::new(0.25, 0.7, 1.0);
/// The simulated clock runs at 60 frames a second, so successive frames
/// show successive poses whatever the real frame time.
pub const CLOCK_HZ: f32 = 60.0;

/// A model to draw, with its skins.
pub struct BenchModel {
    /// Short name for the table.
    pub label: String,
    pub model: Md2Model,
    pub skins: Vec<RgbaImage>,
}

impl BenchModel {
    /// The crate's built-in character.
    pub fn demo() -> BenchModel {
        BenchModel {
            label: "demo".into(),
            model: demo::demo_model(),
            skins: vec![demo::demo_skin()],
        }
    }

    /// An MD2 file with one skin image.
    pub fn load(label: &str, model: &Path, skin: &Path) -> Result<BenchModel, String> {
        let model = Md2Model::open(model).map_err(|e| format!("{}: {e}", model.display()))?;
        let skin = md2_wgpu::skins::load_skin(skin).map_err(|e| e.to_string())?;
        Ok(BenchModel {
            label: label.into(),
            model,
            skins: vec![skin],
        })
    }

    /// "588 verts, 1116 tris, 198 frames".
    pub fn describe(&self) -> String {
        format!(
            "{}: {} vertices, {} triangles, {} frames, {} animations",
            self.label,
            self.model.vertex_count(),
            self.model.triangles().len(),
            self.model.frame_count(),
            self.model.animations().len()
        )
    }
}

/// A small, fast, seeded generator (SplitMix64): the crowd is the same on
/// every run and for every strategy.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// One member of the crowd.
pub struct Member {
    /// Model (Y-up) to world.
    pub transform: Mat4,
    /// The same transform with the Quake-to-Y-up change folded in: what the
    /// baselines send.
    pub quake_to_world: Mat4,
    pub clip: usize,
    /// Seconds into its clip at clock 0.
    pub phase: f32,
    pub skin: u32,
    pub tint: [f32; 4],
}

/// Everyone, their clips, and a camera that sees them all.
pub struct Crowd {
    pub members: Vec<Member>,
    pub clips: Vec<Clip>,
    pub camera: Camera,
}

impl Crowd {
    /// `count` members of `model` with `skin_count` skins, on a square grid
    /// with jitter, each playing one of the model's animations (looped, so
    /// everyone keeps moving) from its own phase.
    pub fn new(model: &Md2Model, skin_count: u32, count: usize, seed: u64) -> Crowd {
        let mut clips: Vec<Clip> = Clip::for_model(model)
            .into_iter()
            .map(|clip| Clip {
                looping: true,
                ..clip
            })
            .collect();
        if clips.is_empty() {
            let last = model.frame_count().saturating_sub(1);
            clips.push(Clip::looping("all", 0, last));
        }
        let mut rng = Rng::new(seed);
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
                let clip = rng.below(clips.len());
                let phase = rng.range(0.0, clips[clip].duration().max(1.0));
                let skin = rng.below(skin_count.max(1) as usize) as u32;
                let tint = [
                    rng.range(0.6, 1.0),
                    rng.range(0.6, 1.0),
                    rng.range(0.6, 1.0),
                    1.0,
                ];
                Member {
                    transform,
                    quake_to_world: transform * QUAKE_TO_Y_UP,
                    clip,
                    phase,
                    skin,
                    tint,
                }
            })
            .collect();

        let (lo, hi) = model.bounds();
        let (lo, hi) = (quake_to_y_up(lo), quake_to_y_up(hi));
        let reach = lo.x.abs().max(hi.x.abs()).max(lo.z.abs()).max(hi.z.abs()) + JITTER;
        let min = Vec3::new(-half - reach, lo.y, -half - reach);
        let max = Vec3::new(half + reach, hi.y, half + reach);
        let camera = fit_camera(
            min,
            max,
            crate::gpu::WIDTH as f32 / crate::gpu::HEIGHT as f32,
        );
        Crowd {
            members,
            clips,
            camera,
        }
    }

    /// Member `m`'s pose at simulated frame `frame`.
    #[inline]
    pub fn pose(&self, m: &Member, frame: u64) -> Pose {
        let seconds = f64::from(m.phase) + frame as f64 / f64::from(CLOCK_HZ);
        self.clips[m.clip].sample_f64(seconds).into()
    }
}

/// A perspective camera looking at the box `min..max` from [`VIEW_FROM`],
/// as close as it can get with every corner of the box in view: the crowd
/// fills the frame whatever its size.
fn fit_camera(min: Vec3, max: Vec3, aspect: f32) -> Camera {
    const FOV_Y: f32 = 0.8;
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
