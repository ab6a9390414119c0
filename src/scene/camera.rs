//! The camera and light the renderer draws with, and the change of axes from
//! Quake's Z-up world to the Y-up world most engines (and glam's helpers) use.

use glam::{Mat4, Vec3, Vec4};

use std::ops::RangeInclusive;

use super::effects::PlanarShadow;
use crate::contract::{VIEW_SHADOWS, ViewUniform};
use crate::model::KeyframeModel;

/// Quake axes (X forward, Y left, Z up) to a right-handed Y-up world in which
/// a model faces +Z, as glTF assets do: `(x, y, z)` becomes `(y, z, x)`.
///
/// It is a rotation (a cyclic permutation of the axes), so it keeps triangle
/// winding and normals unchanged. The renderer applies it to every vertex
/// before an instance's own transform: [`Md2Instance::transform`] maps this
/// Y-up model space to the world.
///
/// [`Md2Instance::transform`]: crate::Md2Instance::transform
pub const QUAKE_TO_Y_UP: Mat4 = Mat4::from_cols(
    Vec4::new(0.0, 0.0, 1.0, 0.0),
    Vec4::new(1.0, 0.0, 0.0, 0.0),
    Vec4::new(0.0, 1.0, 0.0, 0.0),
    Vec4::new(0.0, 0.0, 0.0, 1.0),
);

/// A point or direction in Quake axes expressed in the Y-up world:
/// `(x, y, z)` becomes `(y, z, x)` (see [`QUAKE_TO_Y_UP`]).
pub fn quake_to_y_up(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[1], v[2], v[0])
}

/// A directional light plus ambient, in linear colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Direction from a surface towards the light, in world space (need not
    /// be normalised; zero means no directional light).
    pub towards_light: Vec3,
    /// Colour of the directional light.
    pub color: Vec3,
    /// Light every surface receives whatever its normal.
    pub ambient: Vec3,
}

impl Light {
    /// Ambient light only, of the given strength: the skin's colours times
    /// `ambient`, whatever the normals say.
    pub const fn ambient_only(ambient: f32) -> Light {
        Light {
            towards_light: Vec3::ZERO,
            color: Vec3::ZERO,
            ambient: Vec3::splat(ambient),
        }
    }
}

impl Default for Light {
    /// A white light from above, in front and to one side, plus ambient:
    /// towards the light `(0.4, 0.8, 0.6)` (normalised where it is used:
    /// 48° above the horizon and 34° from +Z towards +X: in front of, above
    /// and to the left of a model facing +Z), colour 0.8 and ambient 0.35 on
    /// every channel.
    ///
    /// Light is not clamped: a surface facing the light receives
    /// 0.35 + 0.8 = 1.15, so it shows its skin 15% brighter than the skin
    /// itself (an sRGB or unorm target clamps the result at 1; a float
    /// target keeps it). Quake II lit models above 1 too, for the same
    /// punch. [`Light::ambient_only`]`(1.0)` shows the skin as it is.
    fn default() -> Self {
        Light {
            towards_light: Vec3::new(0.4, 0.8, 0.6),
            color: Vec3::splat(0.8),
            ambient: Vec3::splat(0.35),
        }
    }
}

/// What the renderer needs from the camera: a view-projection matrix (world
/// to wgpu clip space, depth 0..1), the light, and a jitter for temporal
/// anti-aliasing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to clip space, without jitter.
    pub view_proj: Mat4,
    /// The light, in world space.
    pub light: Light,
    /// A sub-pixel offset of the rasterised image for temporal
    /// anti-aliasing, in normalised device coordinates (2 / width is one
    /// pixel across; [`Camera::with_jitter_pixels`]). It is added after
    /// projecting, so motion vectors, culling and sorting use `view_proj`
    /// unjittered, as TAA wants. Zero by default.
    pub jitter: glam::Vec2,
    /// The size in pixels of the target the camera draws into
    /// ([`Camera::with_viewport`]): levels of detail measure their error in
    /// pixels on it. Zero (the default): every instance at full detail.
    pub viewport: glam::UVec2,
}

impl Default for Camera {
    /// Identity view-projection and the default light.
    fn default() -> Self {
        Camera::new(Mat4::IDENTITY)
    }
}

/// Seen from the model's front (it faces +Z), a little to its left and
/// above: the three-quarter view of a thumbnail.
const FRAMING_VIEW: Vec3 = Vec3::new(0.45, 0.3, 1.0);
const FRAMING_FOV_Y: f32 = 0.7;

impl Camera {
    /// A camera with this view-projection matrix and the default light.
    pub fn new(view_proj: Mat4) -> Camera {
        Camera {
            view_proj,
            light: Light::default(),
            jitter: glam::Vec2::ZERO,
            viewport: glam::UVec2::ZERO,
        }
    }

    /// The same camera drawing into a target of `size` pixels, so that
    /// models with levels of detail ([`GpuModelOptions::levels`]) draw each
    /// instance at the coarsest level whose error there is at most
    /// [`Md2RendererOptions::level_error_pixels`].
    ///
    /// [`GpuModelOptions::levels`]: crate::contract::GpuModelOptions
    /// [`Md2RendererOptions::level_error_pixels`]: crate::Md2RendererOptions::level_error_pixels
    pub fn with_viewport(self, size: glam::UVec2) -> Camera {
        Camera {
            viewport: size,
            ..self
        }
    }

    /// How many pixels one world unit spans at clip-space `w` = 1 (for a
    /// perspective camera, one unit of distance along the line of sight;
    /// for an orthographic one, anywhere): the larger of the horizontal and
    /// vertical scales, so an error measured with it is never smaller than
    /// on screen. 0 without a viewport.
    pub fn pixels_per_unit(&self) -> f32 {
        let half = self.viewport.as_vec2() * 0.5;
        let x = self.view_proj.row(0).truncate().length() * half.x;
        let y = self.view_proj.row(1).truncate().length() * half.y;
        x.max(y)
    }

    /// The same camera jittered by `pixels` (x right, y down) on a target
    /// of `size` pixels: the offset a TAA sequence (Halton, say) gives.
    pub fn with_jitter_pixels(self, pixels: glam::Vec2, size: glam::UVec2) -> Camera {
        let size = size.max(glam::UVec2::ONE).as_vec2();
        Camera {
            jitter: glam::Vec2::new(2.0 * pixels.x / size.x, -2.0 * pixels.y / size.y),
            ..self
        }
    }

    /// A right-handed perspective camera at `eye` looking at `target` with Y
    /// up (Z up where the view is vertical).
    pub fn look_at(
        eye: Vec3,
        target: Vec3,
        fov_y_radians: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Camera {
        // wgpu's clip space is Direct3D's: depth 0..1, Y up.
        let proj = glam::camera::rh::proj::directx::perspective(fov_y_radians, aspect, near, far);
        Camera::new(proj * look_at_view(eye, target))
    }

    /// A perspective camera that fits the world-space box `min..max` in view,
    /// looking at its centre from direction `view_from` (from the centre
    /// towards the eye).
    pub fn framing(min: Vec3, max: Vec3, view_from: Vec3, aspect: f32) -> Camera {
        let center = (min + max) * 0.5;
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        let half_y = FRAMING_FOV_Y * 0.5;
        let half_x = (half_y.tan() * aspect).atan();
        let distance = radius / half_y.min(half_x).sin();
        let dir = view_from.try_normalize().unwrap_or(Vec3::Z);
        let eye = center + dir * distance;
        let near = (distance - radius * 1.1).max(distance * 0.01);
        let far = distance + radius * 1.1;
        Camera::look_at(eye, center, FRAMING_FOV_Y, aspect, near, far)
    }

    /// A camera that shows `model` in every frame, from a three-quarter front
    /// view, with the model at the origin of the Y-up world (as an instance
    /// with the identity transform draws it).
    pub fn framing_model(model: &KeyframeModel, aspect: f32) -> Camera {
        let (lo, hi) = model.bounds().to_pair();
        Camera::framing(quake_to_y_up(lo), quake_to_y_up(hi), FRAMING_VIEW, aspect)
    }

    /// [`Camera::framing_model`] for the given frames only (say, one
    /// animation's, so a running model is not framed for the death that
    /// lies down). Frames past the model are ignored; with none left, the
    /// whole model is framed.
    pub fn framing_frames(
        model: &KeyframeModel,
        frames: impl IntoIterator<Item = u32>,
        aspect: f32,
    ) -> Camera {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for frame in frames.into_iter().filter(|&f| f < model.frame_count()) {
            let (a, b) = model.frame_bounds(frame).to_pair();
            lo = lo.min(quake_to_y_up(a));
            hi = hi.max(quake_to_y_up(b));
        }
        if !lo.is_finite() {
            return Camera::framing_model(model, aspect);
        }
        Camera::framing(lo, hi, FRAMING_VIEW, aspect)
    }

    /// A right-handed perspective camera with reverse-Z depth: near maps
    /// to 1 and `far` to 0, which spreads a float depth buffer's precision
    /// evenly over distance. `far` may be `f32::INFINITY` (no far plane).
    /// Draw with [`DepthState::reverse_z`](crate::DepthState::reverse_z) and
    /// depth cleared to 0.
    pub fn perspective_reverse_z(
        eye: Vec3,
        target: Vec3,
        fov_y_radians: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Camera {
        use glam::camera::rh::proj::directx;
        let proj = if far.is_infinite() {
            directx::perspective_infinite_reverse(fov_y_radians, aspect, near)
        } else {
            // Swapping near and far reverses the depth range.
            directx::perspective(fov_y_radians, aspect, far, near)
        };
        Camera::new(proj * look_at_view(eye, target))
    }

    /// A right-handed perspective camera with standard depth (near 0, far
    /// plane at infinity 1): [`Camera::look_at`] without a far plane.
    pub fn perspective_infinite(
        eye: Vec3,
        target: Vec3,
        fov_y_radians: f32,
        aspect: f32,
        near: f32,
    ) -> Camera {
        let proj =
            glam::camera::rh::proj::directx::perspective_infinite(fov_y_radians, aspect, near);
        Camera::new(proj * look_at_view(eye, target))
    }

    /// A right-handed orthographic camera at `eye` looking at `target` with
    /// Y up (Z up where the view is vertical), seeing `width` × `height`
    /// world units around the line of sight, from `near` to `far` in front
    /// of the eye (depth 0 to 1): the sun of a shadow map, a top-down map.
    ///
    /// ```
    /// use md2_wgpu::Camera;
    /// use md2_wgpu::glam::Vec3;
    /// // A sun high in the south-west, seeing a 200-unit square of ground.
    /// let sun = Camera::orthographic(Vec3::new(-100.0, 300.0, 100.0), Vec3::ZERO, 200.0, 200.0, 1.0, 800.0);
    /// let clip = sun.view_proj * Vec3::ZERO.extend(1.0);
    /// assert!(clip.x.abs() < 1e-4 && clip.y.abs() < 1e-4);
    /// assert!((0.0..=1.0).contains(&clip.z));
    /// ```
    pub fn orthographic(
        eye: Vec3,
        target: Vec3,
        width: f32,
        height: f32,
        near: f32,
        far: f32,
    ) -> Camera {
        let (x, y) = (width * 0.5, height * 0.5);
        let proj = glam::camera::rh::proj::directx::orthographic(-x, x, -y, y, near, far);
        Camera::new(proj * look_at_view(eye, target))
    }

    /// The view uniform (`Md2View`) for this camera: with `shadow`'s plane
    /// (or none), `reverse_z` saying which way an orthographic camera's
    /// depth runs (nearer is greater), the previous frame's view-projection
    /// for motion vectors, and levels of detail chosen at most
    /// `level_error_pixels` off (see [`Camera::with_viewport`]).
    pub fn uniform(
        &self,
        shadow: Option<&PlanarShadow>,
        reverse_z: bool,
        previous_view_proj: Mat4,
        level_error_pixels: f32,
    ) -> ViewUniform {
        let towards = self.light.towards_light.normalize_or_zero();
        let (shadow_proj, shadow_color) = match shadow {
            Some(s) => (s.projection(), s.color),
            None => (Mat4::IDENTITY, [0.0; 4]),
        };
        ViewUniform {
            view_proj: self.view_proj.to_cols_array_2d(),
            shadow_proj: shadow_proj.to_cols_array_2d(),
            towards_light: [towards.x, towards.y, towards.z, 0.0],
            light_color: self.light.color.extend(0.0).to_array(),
            ambient: self.light.ambient.extend(0.0).to_array(),
            shadow_color,
            depth_row: depth_row(&self.view_proj, reverse_z),
            flags: [if shadow.is_some() { VIEW_SHADOWS } else { 0 }, 0, 0, 0],
            previous_view_proj: previous_view_proj.to_cols_array_2d(),
            jitter: [self.jitter.x, self.jitter.y, 0.0, 0.0],
            level: [self.level_scale(level_error_pixels), 0.0, 0.0, 0.0],
        }
    }

    /// [`Camera::pixels_per_unit`] over the largest error in pixels a level
    /// of detail may make: a level of error `e` (world units) fits at
    /// clip-space `w` where `e * scale <= w`. 0 (full detail only) without
    /// a viewport or with a threshold that is not positive and finite.
    pub(crate) fn level_scale(&self, level_error_pixels: f32) -> f32 {
        let scale = self.pixels_per_unit() / level_error_pixels;
        if level_error_pixels > 0.0 && scale.is_finite() {
            scale
        } else {
            0.0
        }
    }
}

/// The row that, dotted with a world point `(p, 1)`, gives its depth along
/// the view of `view_proj`, larger farther: for a perspective projection the
/// clip-space `w` (the distance along the line of sight, whatever the depth
/// convention); for an affine (orthographic) one, whose `w` is constant, the
/// clip-space `z`, negated where depth is reversed (`reverse_z`: nearer is
/// greater).
pub(crate) fn depth_row(view_proj: &Mat4, reverse_z: bool) -> [f32; 4] {
    let w = view_proj.row(3);
    if w.truncate() != Vec3::ZERO {
        return w.to_array();
    }
    let z = view_proj.row(2);
    (if reverse_z { -z } else { z }).to_array()
}

/// The view depth of `point` along `row` ([`depth_row`]), summed in the
/// shader's order.
pub(crate) fn view_depth(row: [f32; 4], point: Vec3) -> f32 {
    row[0] * point.x + row[1] * point.y + row[2] * point.z + row[3]
}

/// The sort key of an instance record whose transform rows are `rows`: the
/// view depth of its origin, as bits that sort ascending from the farthest.
/// `shaders/crowd/compact.wgsl`'s `depth_key` computes the same.
pub(crate) fn depth_key(row: [f32; 4], rows: &[[f32; 4]; 3]) -> u32 {
    let origin = Vec3::new(rows[0][3], rows[1][3], rows[2][3]);
    let bits = view_depth(row, origin).to_bits();
    let ordered = if bits & 0x8000_0000 != 0 {
        !bits
    } else {
        bits | 0x8000_0000
    };
    !ordered
}

/// World to view for an eye at `eye` looking at `target`, Y up (Z up where
/// the view is vertical).
fn look_at_view(eye: Vec3, target: Vec3) -> Mat4 {
    let dir = (target - eye).normalize_or_zero();
    let up = if dir.cross(Vec3::Y).length_squared() < 1e-6 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    glam::camera::rh::view::look_at_mat4(eye, target, up)
}

/// The transform that stands `model` on the ground at `feet`: its lowest
/// point over `frames` (the frames the instance will show) at `feet.y`, its
/// footprint centred on `feet.x, feet.z`, facing +Z. Frames past the model
/// are ignored; with none left it is a plain translation to `feet`.
pub fn stand_on_ground(model: &KeyframeModel, frames: RangeInclusive<u32>, feet: Vec3) -> Mat4 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let count = model.frame_count();
    for frame in frames.filter(|&f| f < count) {
        let (a, b) = model.frame_bounds(frame).to_pair();
        lo = lo.min(quake_to_y_up(a));
        hi = hi.max(quake_to_y_up(b));
    }
    if !lo.is_finite() {
        return Mat4::from_translation(feet);
    }
    let center = (lo + hi) * 0.5;
    Mat4::from_translation(feet - Vec3::new(center.x, lo.y, center.z))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quake_axes_map_to_y_up_as_documented() {
        // Quake forward (X) is the model's front, +Z; left (Y) is +X; up is +Y.
        let m = QUAKE_TO_Y_UP;
        assert_eq!(m.transform_point3(Vec3::X), Vec3::Z);
        assert_eq!(m.transform_point3(Vec3::Y), Vec3::X);
        assert_eq!(m.transform_point3(Vec3::Z), Vec3::Y);
        assert_eq!(m.determinant(), 1.0, "a rotation: winding is kept");
        let p = [1.0, 2.0, 3.0];
        assert_eq!(quake_to_y_up(p), m.transform_point3(Vec3::from_array(p)));
    }

    #[test]
    fn framing_puts_the_box_inside_the_view() {
        let (min, max) = (Vec3::new(-10.0, 0.0, -5.0), Vec3::new(10.0, 56.0, 5.0));
        for aspect in [0.5, 1.0, 2.0] {
            let cam = Camera::framing(min, max, FRAMING_VIEW, aspect);
            for i in 0..8 {
                let corner = Vec3::new(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                );
                let clip = cam.view_proj * corner.extend(1.0);
                let ndc = clip.truncate() / clip.w;
                assert!(clip.w > 0.0, "corner {corner} behind the eye");
                assert!(
                    ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                    "{corner} -> {ndc}"
                );
                assert!((0.0..=1.0).contains(&ndc.z), "{corner} depth {}", ndc.z);
            }
        }
    }
}
