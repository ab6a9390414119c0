//! Where a rasterised pixel's attributes must lie, by the CPU reference: the
//! posed model's triangles in world space, the one a pixel's ray meets (or
//! none where two could show), and how far a point the GPU wrote lies off
//! it. What holds on any conformant rasteriser: it interpolates a pixel's
//! world position as an affine combination of the triangle's corners, so
//! the point lies on the triangle's plane whatever it does; where on the
//! plane depends on how it snaps corners to its sub-pixel grid (Vulkan
//! asks at least 4 bits: a corner moves at most 1/32 of a pixel each way),
//! which moves the point along the surface by a fraction of a pixel, never
//! off it. The native and browser suites hold their G-buffers to this.

use glam::{DVec2, DVec3, Mat3, Mat4, Vec3};
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::{Camera, anim::Pose};

/// A triangle the CPU reference posed: corners and their world normals, in
/// f64.
pub type Corners = [(DVec3, DVec3); 3];

/// How far from a pixel's centre a conformant rasteriser may place the
/// point it shades, in pixels: half a step of Vulkan's coarsest sub-pixel
/// grid (4 bits) in each axis, as a distance, with room for the
/// interpolation's own rounding.
pub const SNAP_PIXELS: f64 = 0.1;

/// How far off its triangle's plane a written world position may lie, in
/// world units, for a model a hundred units across: the corners' own
/// bounds (`bounds::pose_bound`, about 1e-5 at that size, times the
/// transform) and the interpolation's rounding (a few ULP of the
/// coordinates).
pub const OFF_SURFACE: f64 = 1e-4;

/// The posed model's triangles in world space, with world normals as the
/// vertex stage computes them (the inverse transpose, not normalised).
pub fn cpu_triangles(
    model: &KeyframeModel,
    pose: &Pose,
    transform: Mat4,
) -> Vec<[(Vec3, Vec3); 3]> {
    let n = model.vertex_count();
    let (mut p, mut nrm) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    md2_wgpu::anim::reference::blend(model, pose, &mut p, &mut nrm)
        .expect("the CPU reference poses");
    let world = transform * md2_wgpu::scene::QUAKE_TO_Y_UP;
    let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
    let corners = model.corners();
    let vertex = |corner: u32| {
        let i = corners[corner as usize].xyz as usize;
        (
            world.transform_point3(Vec3::from(p[i])),
            normal_matrix * Vec3::from(nrm[i]),
        )
    };
    model
        .indices()
        .chunks_exact(3)
        .map(|t| [vertex(t[0]), vertex(t[1]), vertex(t[2])])
        .collect()
}

/// The ray through the centre of pixel (x, y) of a `size` target: its
/// origin on the near plane and its direction to the far plane.
pub fn pixel_ray(camera: &Camera, size: (u32, u32), x: u32, y: u32) -> (DVec3, DVec3) {
    let ndc = DVec2::new(
        (f64::from(x) + 0.5) / f64::from(size.0) * 2.0 - 1.0,
        1.0 - (f64::from(y) + 0.5) / f64::from(size.1) * 2.0,
    );
    let inverse = camera.view_proj.as_dmat4().inverse();
    let near = inverse.project_point3(ndc.extend(0.0));
    let far = inverse.project_point3(ndc.extend(1.0));
    (near, far - near)
}

/// The width of a pixel, in world units, `distance` from the camera of a
/// vertical field of view `fov_y` (radians) and a `height`-pixel target.
pub fn pixel_width(distance: f64, fov_y: f64, height: u32) -> f64 {
    2.0 * distance * (fov_y / 2.0).tan() / f64::from(height)
}

/// The front face of `triangles` (the renderer culls the others:
/// clockwise on screen is front) a pixel's ray (`pixel_ray`) meets first,
/// well inside it (barycentrics above 2%), unless a nearer front face
/// nearly covers the pixel too (within 2% of its edge: which of the two a
/// rasteriser shows there is a matter of rounding), or a face lies just
/// behind it.
pub fn cpu_triangle(
    camera: &Camera,
    triangles: &[[(Vec3, Vec3); 3]],
    (near, dir): (DVec3, DVec3),
) -> Option<Corners> {
    let hits = front_hits(camera, triangles, near, dir, -0.02);
    let nearest = hits
        .iter()
        .filter(|h| h.2 > 0.02)
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    // A surface within a hundredth of a unit behind it (coplanar faces,
    // which some models have) fights it for the depth test: either wins.
    let fights = |t: f64| ((t - nearest.0) * dir.length()).abs() < 0.01;
    let ambiguous = hits
        .iter()
        .any(|h| (h.0 < nearest.0 && h.2 <= 0.02) || (h.1 != nearest.1 && fights(h.0)));
    (!ambiguous).then_some(nearest.1)
}

/// Whether any conformant rasteriser covers pixel (x, y) with the front
/// faces of `triangles`: `Some(true)` where the pixel's centre lies well
/// inside one (barycentrics above 2%), `Some(false)` where it lies well
/// outside every one, `None` near an edge, where snapping decides.
pub fn cpu_coverage(
    camera: &Camera,
    size: (u32, u32),
    triangles: &[[(Vec3, Vec3); 3]],
    x: u32,
    y: u32,
) -> Option<bool> {
    let (near, dir) = pixel_ray(camera, size, x, y);
    let hits = front_hits(camera, triangles, near, dir, -0.02);
    if hits.iter().any(|h| h.2 > 0.02) {
        Some(true)
    } else if hits.is_empty() {
        Some(false)
    } else {
        None
    }
}

/// `picture` (drawn from `camera`) against [`cpu_coverage`] of `triangles`
/// at every pixel: (pixels the reference decides, pixels of those where
/// the picture is drawn or empty otherwise than it says).
pub fn coverage_against(
    picture: &image::RgbaImage,
    camera: &Camera,
    triangles: &[[(Vec3, Vec3); 3]],
) -> (usize, usize) {
    let size = picture.dimensions();
    let (mut decided, mut wrong) = (0, 0);
    for y in 0..size.1 {
        for x in 0..size.0 {
            if let Some(covered) = cpu_coverage(camera, size, triangles, x, y) {
                decided += 1;
                wrong += usize::from(covered != (picture.get_pixel(x, y).0[3] > 0));
            }
        }
    }
    (decided, wrong)
}

/// The front faces (clockwise on screen) the ray from `near` along `dir`
/// meets with a smallest barycentric of at least `margin`: (distance along
/// the ray, corners, smallest barycentric).
fn front_hits(
    camera: &Camera,
    triangles: &[[(Vec3, Vec3); 3]],
    near: DVec3,
    dir: DVec3,
    margin: f64,
) -> Vec<(f64, Corners, f64)> {
    let view_proj = camera.view_proj.as_dmat4();
    let mut hits = Vec::new();
    for tri in triangles {
        let corners = tri.map(|(p, n)| (p.as_dvec3(), n.as_dvec3()));
        let [a, b, c] = corners.map(|(p, _)| p);
        let [sa, sb, sc] = [a, b, c].map(|p| view_proj.project_point3(p));
        if (sb.x - sa.x) * (sc.y - sa.y) - (sc.x - sa.x) * (sb.y - sa.y) >= 0.0 {
            continue; // counter-clockwise in NDC (y up): a back face
        }
        // Möller–Trumbore.
        let (e1, e2) = (b - a, c - a);
        let p = dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = near - a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = dir.dot(q) / det;
        let t = e2.dot(q) / det;
        let inside = u.min(v).min(1.0 - u - v);
        if inside >= margin && t >= 0.0 {
            hits.push((t, corners, inside));
        }
    }
    hits
}

/// How far `point` lies off the plane of `corners`, and the normal the CPU
/// reference interpolates where it lies on that plane (normalised).
pub fn on_triangle(corners: &Corners, point: DVec3) -> (f64, DVec3) {
    let [(a, na), (b, nb), (c, nc)] = *corners;
    let (e1, e2) = (b - a, c - a);
    let plane = e1.cross(e2).normalize();
    let off = (point - a).dot(plane);
    let p = point - plane * off - a;
    // Barycentrics of the point's projection.
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d1, d2) = (p.dot(e1), p.dot(e2));
    let det = d11 * d22 - d12 * d12;
    let u = (d22 * d1 - d12 * d2) / det;
    let v = (d11 * d2 - d12 * d1) / det;
    let normal = (na * (1.0 - u - v) + nb * u + nc * v).normalize();
    (off.abs(), normal)
}

/// What a G-buffer showed of one pixel against the CPU reference.
#[derive(Clone, Copy, Debug, Default)]
pub struct SurfaceError {
    /// Distance off the CPU triangle's plane, in world units.
    pub off_surface: f64,
    /// Distance of the point from the pixel's ray, in pixels.
    pub along: f64,
    /// The largest component of the normal's difference from the CPU's at
    /// that point.
    pub normal: f64,
}

impl SurfaceError {
    /// The worse of two, field by field.
    pub fn max(self, other: SurfaceError) -> SurfaceError {
        SurfaceError {
            off_surface: self.off_surface.max(other.off_surface),
            along: self.along.max(other.along),
            normal: self.normal.max(other.normal),
        }
    }
}

/// How a written point and normal at the pixel whose ray (`pixel_ray`) is
/// `(origin, dir)` stand against `corners`: `pixel` is the pixel's width in
/// world units at the model.
pub fn surface_error(
    (origin, dir): (DVec3, DVec3),
    corners: &Corners,
    (point, normal): (DVec3, DVec3),
    pixel: f64,
) -> SurfaceError {
    let (off_surface, cpu_normal) = on_triangle(corners, point);
    let from_ray = (point - origin).cross(dir.normalize()).length();
    SurfaceError {
        off_surface,
        along: from_ray / pixel,
        normal: (normal - cpu_normal).abs().max_element(),
    }
}

/// How far a G-buffer's world normals may be from the CPU's at the same
/// point, per component: the corners' normals' own bounds and the
/// interpolation's rounding, with room.
pub const NORMAL_ERROR: f64 = 1e-4;

/// Holds a G-buffer (per pixel the world position and the world normal, as
/// `[f32; 4]`, `w` 0 where nothing was drawn) of a `size` target to the CPU
/// reference's `triangles`, every `step`th pixel each way: `pixel` is a
/// pixel's width in world units at the model. `each` sees every written
/// pixel's position and normal (for checks of its own). Returns how many
/// pixels were held and the worst of them.
pub fn gbuffer_against_reference(
    camera: &Camera,
    size: (u32, u32),
    triangles: &[[(Vec3, Vec3); 3]],
    (positions, normals): (&[[f32; 4]], &[[f32; 4]]),
    (step, pixel): (u32, f64),
    mut each: impl FnMut([f32; 4], [f32; 4]),
) -> (usize, SurfaceError) {
    let (mut checked, mut worst) = (0, SurfaceError::default());
    for y in (0..size.1).step_by(step as usize) {
        for x in (0..size.0).step_by(step as usize) {
            let k = (y * size.0 + x) as usize;
            // The pixel's ray, for the triangle it meets and the distance
            // of the written point from it.
            let ray = pixel_ray(camera, size, x, y);
            let Some(corners) = cpu_triangle(camera, triangles, ray) else {
                continue;
            };
            let (p, n) = (positions[k], normals[k]);
            if p[3] == 0.0 {
                continue; // an edge pixel the rasteriser left to a neighbour
            }
            each(p, n);
            let written = (
                DVec3::new(p[0].into(), p[1].into(), p[2].into()),
                DVec3::new(n[0].into(), n[1].into(), n[2].into()),
            );
            worst = worst.max(surface_error(ray, &corners, written, pixel));
            checked += 1;
        }
    }
    (checked, worst)
}

impl SurfaceError {
    /// Asserts this within the bounds above, over more than `at_least`
    /// pixels (`checked`).
    pub fn assert_within_bounds(&self, what: &str, checked: usize, at_least: usize) {
        assert!(checked > at_least, "{what}: {checked} pixels checked");
        assert!(
            self.off_surface <= OFF_SURFACE,
            "{what}: a point {} off the surface",
            self.off_surface
        );
        assert!(
            self.along <= SNAP_PIXELS,
            "{what}: a point {} pixels from its pixel's centre",
            self.along
        );
        assert!(
            self.normal <= NORMAL_ERROR,
            "{what}: normal error {}",
            self.normal
        );
    }

    /// One line for the log.
    pub fn describe(&self, checked: usize) -> String {
        format!(
            "{checked} pixels against the CPU reference: largest distance off its surface \
             {:e}, from the pixel's centre {:.4} pixels; normal error {:e}",
            self.off_surface, self.along, self.normal
        )
    }
}
