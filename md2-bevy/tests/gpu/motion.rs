//! The motion-vector prepass: exactly zero everywhere for a still scene
//! (the entity's pose and transform, and the camera, unchanged), and for an
//! entity whose pose and place change between two frames, at every pixel
//! inside its silhouette, the CPU projection of that pixel's surface point
//! in the current pose and in the previous one:
//! `(ndc_now − ndc_before).xy × (0.5, −0.5)`, Bevy's convention (UV units:
//! one pixel is 1/256 here). Tolerance: 1e-4, a fortieth of a pixel: the
//! prepass texture holds half floats, whose step at the motions here
//! (up to 0.07) is 6e-5.

use bevy::core_pipeline::prepass::{DepthPrepass, MotionVectorPrepass};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator};
use md2_wgpu::Quake2Player;

use crate::harness::{Harness, gpu_or_skip, pixels, save_actual};
use crate::probe::{add_probe, attach_probe};
use crate::reference::{Mask, PosedModel, Raster, rasterize};

const SIZE: u32 = 256;
const FOV: f32 = 0.7;
const NEAR: f32 = 1.0;
const TOLERANCE: f32 = 1e-4;

#[test]
fn motion_vectors_are_zero_when_still_and_the_cpu_motion_when_running() {
    if !gpu_or_skip("motion") {
        return;
    }
    let mut h = Harness::new(add_probe);
    let handle = h.load_demo();
    let model = md2_wgpu::demo::demo_model();
    let target = h.target(SIZE, SIZE, TextureFormat::Rgba16Float);
    // Not turned: Bevy 0.19.1 inverts a camera's transform two ways, for
    // this frame's view (`Mat4::inverse`, bevy_render view/mod.rs) and for
    // the previous one (`Affine3A::inverse`, bevy_pbr prepass/mod.rs), which
    // for a turned camera differ in the last bit and give any still mesh,
    // Bevy's own too, motion of one half-float ulp (6e-8). For a camera
    // that only moves, both inverses are exact.
    let eye = Transform::from_xyz(0.0, 4.0, 100.0);
    let camera = h.camera(
        &target,
        eye,
        Projection::Perspective(PerspectiveProjection {
            fov: FOV,
            near: NEAR,
            ..default()
        }),
        (DepthPrepass, MotionVectorPrepass),
    );
    attach_probe(h.app.world_mut(), camera, NEAR, FOV, 1.0);

    // Running, a fifth of a second in; still for several frames.
    let before = Md2Animator::player(Quake2Player::Run).with_phase(0.2);
    let place_before = Transform::from_xyz(0.0, 0.0, 0.0).with_rotation(Quat::from_rotation_y(0.3));
    let entity = h
        .app
        .world_mut()
        .spawn((Md2(handle), before.clone(), place_before))
        .id();
    for _ in 0..4 {
        h.update();
    }
    let still = h.capture(&target);
    let still_pixels = pixels(&still);
    let covered = still_pixels.iter().filter(|p| p[2] > 0.0).count();
    let moving = still_pixels
        .iter()
        // Exactly zero (the background reads -0.0 in y, which is zero).
        .filter(|p| p[0] != 0.0 || p[1] != 0.0)
        .count();
    eprintln!("still: {covered} pixels of the model, {moving} with motion");
    assert!(covered > 2000, "the model is in view");
    if moving != 0 {
        panic!(
            "a still scene has motion at {moving} pixels: {}",
            save_actual(&still, "motion-still").display()
        );
    }

    // One frame later: 1/20 s further into the run (half a frame of the
    // clip), moved and turned a little.
    let after = Md2Animator::player(Quake2Player::Run).with_phase(0.25);
    let place_after =
        Transform::from_xyz(1.5, 0.0, -1.0).with_rotation(Quat::from_rotation_y(0.35));
    let clip_from_world = h.clip_from_world(camera);
    h.app
        .world_mut()
        .entity_mut(entity)
        .insert((after.clone(), place_after));
    let image = h.capture(&target);
    let gpu = pixels(&image);

    let now = PosedModel::new(&model, &after.pose(0.0), place_after.to_matrix());
    let then = PosedModel::new(&model, &before.pose(0.0), place_before.to_matrix());
    let raster = rasterize(&now, clip_from_world, SIZE, SIZE);
    let gpu_mask = Mask::from_fn(SIZE, SIZE, |x, y| gpu[(y * SIZE + x) as usize][2] > 0.0);
    assert_eq!(
        gpu_mask.beyond(&raster.mask, 1),
        0,
        "the moved model's silhouette"
    );

    let MotionComparison {
        compared,
        worst,
        largest,
    } = compare_motion(&gpu, &gpu_mask, &raster, clip_from_world, &now, &then);
    eprintln!(
        "running: {compared} pixels compared, motion up to {largest:.4} ({:.1} pixels), largest difference {worst:.2e}",
        largest * SIZE as f32
    );
    assert!(compared > 1500, "most of the silhouette is compared");
    assert!(largest * SIZE as f32 > 3.0, "the motion is several pixels");
    if worst > TOLERANCE {
        panic!(
            "motion vectors off by {worst:e}: {}",
            save_actual(&image, "motion-running").display()
        );
    }
}

/// How far a picture's motion vectors are from the CPU's.
pub struct MotionComparison {
    /// Pixels compared: those whose 3 × 3 neighbourhood is inside both the
    /// GPU's silhouette and the CPU's (edge pixels may be another
    /// triangle's).
    pub compared: usize,
    /// The largest difference in either component.
    pub worst: f32,
    /// The longest motion expected.
    pub largest: f32,
}

/// The motion vectors `gpu` (the probe's pixels: motion in x and y) holds
/// inside `gpu_mask` against the CPU's: at each pixel, the surface point
/// `raster` (of `now`) finds there, projected through `clip_from_world`
/// now and as `then` (the same triangles, as the previous frame posed
/// them) placed it, `(ndc_now − ndc_then).xy × (0.5, −0.5)`.
pub fn compare_motion(
    gpu: &[[f32; 4]],
    gpu_mask: &Mask,
    raster: &Raster,
    clip_from_world: Mat4,
    now: &PosedModel,
    then: &PosedModel,
) -> MotionComparison {
    let (width, height) = (gpu_mask.width, gpu_mask.height);
    let project = |p: Vec3| {
        let c = clip_from_world * p.extend(1.0);
        c.truncate().truncate() / c.w
    };
    let (mut compared, mut worst, mut largest) = (0, 0.0f32, 0.0f32);
    for y in 0..height as i64 {
        for x in 0..width as i64 {
            let i = (y as u32 * width + x as u32) as usize;
            let Some((triangle, bary)) = raster.hits[i] else {
                continue;
            };
            let inside = (-1..=1).all(|dy| {
                (-1..=1).all(|dx| gpu_mask.get(x + dx, y + dy) && raster.mask.get(x + dx, y + dy))
            });
            if !inside {
                continue;
            }
            let at = |posed: &PosedModel| {
                let t = posed.triangles[triangle];
                t[0] * bary[0] + t[1] * bary[1] + t[2] * bary[2]
            };
            let expected = (project(at(now)) - project(at(then))) * Vec2::new(0.5, -0.5);
            let got = Vec2::new(gpu[i][0], gpu[i][1]);
            worst = worst.max((got - expected).abs().max_element());
            largest = largest.max(expected.length());
            compared += 1;
        }
    }
    MotionComparison {
        compared,
        worst,
        largest,
    }
}
