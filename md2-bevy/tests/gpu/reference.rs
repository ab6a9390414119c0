//! The CPU side of the picture tests: md2-wgpu's reference pose
//! (`reference::blend`, the arithmetic the GPU tests of the core crate hold
//! the shader to bit for bit) placed by the entity's transform, projected by
//! the camera's matrix and rasterised at pixel centres, with Bevy's
//! back-face culling; silhouettes compared within a pixel.

use bevy::prelude::*;
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::{
    Md2Model, ModelData,
    anim::{Pose, reference},
    contract::GpuModelOptions,
};

/// A model posed in the world: its triangles' corners in world space,
/// wound counter-clockwise seen from outside (as the plugin's mesh).
pub struct PosedModel {
    /// Per triangle, its three corners in world space.
    pub triangles: Vec<[Vec3; 3]>,
}

impl PosedModel {
    /// The model flattened onto the plane y = 0 along `direction` (the
    /// way light travels): its shadow on that plane.
    pub fn shadow(&self, direction: Vec3) -> PosedModel {
        let flatten = |p: Vec3| p - direction * (p.y / direction.y);
        PosedModel {
            triangles: self.triangles.iter().map(|t| t.map(flatten)).collect(),
        }
    }

    /// `model` in `pose`, placed by `transform` (Bevy's world from the
    /// mesh's Y-up local space).
    pub fn new(model: &Md2Model, pose: &Pose, transform: Mat4) -> PosedModel {
        PosedModel::of(model.keyframes(), pose, transform)
    }

    /// [`PosedModel::new`] for any model of md2-wgpu's seam (an MD3
    /// surface's).
    pub fn of(model: &KeyframeModel, pose: &Pose, transform: Mat4) -> PosedModel {
        let n = model.vertex_count();
        let mut positions = vec![[0.0; 3]; n];
        let mut normals = vec![[0.0; 3]; n];
        reference::blend(model, pose, &mut positions, &mut normals)
            .expect("the pose's frames exist");
        let data = ModelData::new(model, GpuModelOptions::DEFAULT).expect("GPU data");
        let world: Vec<Vec3> = positions
            .iter()
            .map(|p| {
                transform.transform_point3(Vec3::from_array(
                    md2_wgpu::scene::quake_to_y_up(*p).to_array(),
                ))
            })
            .collect();
        let corners = data.mesh().corners();
        let full = data.levels_of_detail().levels()[0];
        let indices = &data.mirrored_indices()
            [full.first_index as usize..(full.first_index + full.index_count) as usize];
        let triangles = indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| world[corners[t[k] as usize].xyz as usize]))
            .collect();
        PosedModel { triangles }
    }
}

/// A picture's coverage: one flag per pixel, rows top to bottom.
#[derive(Clone, Debug, PartialEq)]
pub struct Mask {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major flags.
    pub bits: Vec<bool>,
}

impl Mask {
    /// A mask from a predicate per pixel.
    pub fn from_fn(width: u32, height: u32, f: impl Fn(u32, u32) -> bool) -> Mask {
        let mut bits = Vec::with_capacity((width * height) as usize);
        for y in 0..height {
            for x in 0..width {
                bits.push(f(x, y));
            }
        }
        Mask {
            width,
            height,
            bits,
        }
    }

    /// Whether pixel (x, y) is set.
    pub fn get(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && x < i64::from(self.width)
            && y < i64::from(self.height)
            && self.bits[(y as u32 * self.width + x as u32) as usize]
    }

    /// Pixels set.
    pub fn count(&self) -> usize {
        self.bits.iter().filter(|&&b| b).count()
    }

    /// Pixels set in exactly one of the two.
    pub fn differing(&self, other: &Mask) -> usize {
        self.bits
            .iter()
            .zip(&other.bits)
            .filter(|(a, b)| a != b)
            .count()
    }

    /// Pixels set in one mask whose `radius`-pixel neighbourhood (a square)
    /// holds no set pixel of the other: how many pixels the silhouettes
    /// disagree by more than `radius` pixels.
    pub fn beyond(&self, other: &Mask, radius: i64) -> usize {
        let far = |a: &Mask, b: &Mask| {
            let mut n = 0;
            for y in 0..i64::from(a.height) {
                for x in 0..i64::from(a.width) {
                    if a.get(x, y)
                        && !(-radius..=radius)
                            .any(|dy| (-radius..=radius).any(|dx| b.get(x + dx, y + dy)))
                    {
                        n += 1;
                    }
                }
            }
            n
        };
        far(self, other) + far(other, self)
    }

    /// Intersection over union.
    pub fn iou(&self, other: &Mask) -> f64 {
        let both = self
            .bits
            .iter()
            .zip(&other.bits)
            .filter(|(a, b)| **a && **b)
            .count();
        let either = self
            .bits
            .iter()
            .zip(&other.bits)
            .filter(|(a, b)| **a || **b)
            .count();
        both as f64 / either.max(1) as f64
    }
}

/// The pixels of a picture on black that are not black (any channel over
/// 0.05): a lit model's silhouette.
pub fn lit_mask(image: &Image) -> Mask {
    let (width, height) = (image.width(), image.height());
    let colour = crate::harness::pixels(image);
    Mask::from_fn(width, height, |x, y| {
        colour[(y * width + x) as usize][..3]
            .iter()
            .any(|&c| c > 0.05)
    })
}

/// Says how `gpu` and `cpu` differ (`what` names the picture), and gives
/// how many pixels are more than a pixel from the other's silhouette.
pub fn compare(what: &str, gpu: &Mask, cpu: &Mask) -> usize {
    let far = gpu.beyond(cpu, 1);
    eprintln!(
        "{what}: {} pixels (CPU {}), {} differ, {far} more than a pixel away",
        gpu.count(),
        cpu.count(),
        gpu.differing(cpu),
    );
    far
}

/// What covers each pixel centre: the nearest front-facing triangle
/// (Bevy's reverse Z: larger depth is nearer), with its perspective-correct
/// barycentric coordinates.
pub struct Raster {
    /// The mask of covered pixels.
    pub mask: Mask,
    /// Per pixel, (triangle, barycentrics) of the nearest triangle.
    pub hits: Vec<Option<(usize, [f32; 3])>>,
}

/// Rasterises `posed` as seen through `clip_from_world` on a `width` ×
/// `height` target, pixel centres sampled, back faces culled as Bevy's
/// pipelines cull them (counter-clockwise in NDC is front).
pub fn rasterize(posed: &PosedModel, clip_from_world: Mat4, width: u32, height: u32) -> Raster {
    raster(posed, clip_from_world, width, height, true)
}

/// [`rasterize`] with both faces of every triangle: what a flattened model
/// (a shadow) covers.
pub fn rasterize_both_faces(
    posed: &PosedModel,
    clip_from_world: Mat4,
    width: u32,
    height: u32,
) -> Raster {
    raster(posed, clip_from_world, width, height, false)
}

fn raster(
    posed: &PosedModel,
    clip_from_world: Mat4,
    width: u32,
    height: u32,
    cull: bool,
) -> Raster {
    let mut depth = vec![f32::NEG_INFINITY; (width * height) as usize];
    let mut hits = vec![None; (width * height) as usize];
    for (index, tri) in posed.triangles.iter().enumerate() {
        let clip = tri.map(|p| clip_from_world * p.extend(1.0));
        if clip.iter().any(|c| c.w <= 1e-6) {
            continue;
        }
        let ndc = clip.map(|c| c.truncate() / c.w);
        let area = (ndc[1].x - ndc[0].x) * (ndc[2].y - ndc[0].y)
            - (ndc[2].x - ndc[0].x) * (ndc[1].y - ndc[0].y);
        if area == 0.0 || (cull && area < 0.0) {
            continue;
        }
        let screen = ndc.map(|n| {
            Vec2::new(
                (n.x + 1.0) * 0.5 * width as f32,
                (1.0 - n.y) * 0.5 * height as f32,
            )
        });
        let lo = screen[0].min(screen[1]).min(screen[2]);
        let hi = screen[0].max(screen[1]).max(screen[2]);
        let x0 = (lo.x.floor().max(0.0)) as u32;
        let y0 = (lo.y.floor().max(0.0)) as u32;
        let x1 = (hi.x.ceil().min(width as f32)) as u32;
        let y1 = (hi.y.ceil().min(height as f32)) as u32;
        let edge =
            |a: Vec2, b: Vec2, p: Vec2| (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        let total = edge(screen[0], screen[1], screen[2]);
        if total == 0.0 {
            continue;
        }
        for y in y0..y1 {
            for x in x0..x1 {
                let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let w0 = edge(screen[1], screen[2], p) / total;
                let w1 = edge(screen[2], screen[0], p) / total;
                let w2 = edge(screen[0], screen[1], p) / total;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * ndc[0].z + w1 * ndc[1].z + w2 * ndc[2].z;
                let i = (y * width + x) as usize;
                if z > depth[i] {
                    depth[i] = z;
                    // Screen-space weights to perspective-correct ones.
                    let q = [w0 / clip[0].w, w1 / clip[1].w, w2 / clip[2].w];
                    let s = q[0] + q[1] + q[2];
                    hits[i] = Some((index, [q[0] / s, q[1] / s, q[2] / s]));
                }
            }
        }
    }
    let mask = Mask::from_fn(width, height, |x, y| {
        hits[(y * width + x) as usize].is_some()
    });
    Raster { mask, hits }
}
