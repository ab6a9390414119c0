//! A resident crowd in a camera's other passes: the depth, normal and
//! motion-vector prepasses, and with deferred rendering the G-buffer pass.
//! The members draw where md2-wgpu's CPU reference poses them in the lit
//! picture and in the depth prepass (read back by the probe); a still
//! scene's motion vectors are exactly zero; a member moved and put on
//! another clip between two frames has, at every pixel inside the
//! silhouettes, the CPU's motion (as the entities' motion test holds
//! them); each pass draws the crowd as one item, one indirect draw per
//! level and bucket.

use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::pbr::DefaultOpaqueRendererMethod;
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2CrowdStats, member_transform};
use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};

use crate::crowd::{check_silhouette, posed_crowd, spawn_soldiers};
use crate::draws::count_draws;
use crate::harness::{Harness, bright_on_black, gpu_or_skip, pixels, save_actual};
use crate::motion::{MotionComparison, compare_motion};
use crate::probe::{add_probe, attach_probe};
use crate::reference::{Mask, PosedModel, lit_mask, rasterize};

const SIZE: u32 = 256;
const FOV: f32 = 0.9;
const NEAR: f32 = 1.0;
/// As the entities' motion test: a fortieth of a pixel (the prepass
/// texture holds half floats).
const TOLERANCE: f32 = 1e-4;

#[test]
fn a_crowd_draws_in_the_forward_prepasses() {
    if gpu_or_skip("crowd passes, forward") {
        passes(false);
    }
}

#[test]
fn a_crowd_draws_in_the_deferred_passes() {
    if gpu_or_skip("crowd passes, deferred") {
        passes(true);
    }
}

fn passes(deferred: bool) {
    let mut h = Harness::new(|app| {
        if deferred {
            app.insert_resource(DefaultOpaqueRendererMethod::deferred());
        }
        add_probe(app);
        bright_on_black(app);
    });
    let log = count_draws(&mut h.app);
    let model = h.load_demo();
    let lit = h.target(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb);
    let probe = h.target(SIZE, SIZE, TextureFormat::Rgba16Float);
    let eye =
        Transform::from_xyz(0.0, 120.0, 260.0).looking_at(Vec3::new(0.0, 10.0, -70.0), Vec3::Y);
    let projection = || {
        Projection::Perspective(PerspectiveProjection {
            fov: FOV,
            near: NEAR,
            ..default()
        })
    };
    // The lit camera draws every prepass the crowd can be in; the probe's
    // camera reads its own depth and motion back.
    let lit_camera = h.camera(
        &lit,
        eye,
        projection(),
        (DepthPrepass, NormalPrepass, MotionVectorPrepass),
    );
    let probe_camera = h.camera(
        &probe,
        eye,
        projection(),
        (DepthPrepass, MotionVectorPrepass),
    );
    if deferred {
        // Bevy's deferred materials draw only in cameras with a deferred
        // prepass (and panic in a prepass without one): both have it.
        for camera in [lit_camera, probe_camera] {
            h.app.world_mut().entity_mut(camera).insert(DeferredPrepass);
        }
    }
    attach_probe(h.app.world_mut(), probe_camera, NEAR, FOV, 1.0);
    let (entity, handles) = spawn_soldiers(&mut h, &model);
    for _ in 0..3 {
        h.update();
    }
    let how = if deferred { "deferred" } else { "forward" };

    // One item per camera and pass: the main pass (forward) or the
    // G-buffer (deferred: in its alpha-mask phase, see md2-bevy's
    // queue_crowds), and the prepass; the probe's quad is the one
    // other item, in its camera's main pass. One indirect draw each (one
    // level, no member mirrored). Counted over one frame.
    log.take();
    h.update();
    let items = log.take();
    let count = |phase: &str| items.iter().filter(|i| i.phase == phase).count();
    let counts = [
        count("Opaque3d"),
        count("Opaque3dPrepass"),
        count("Opaque3dDeferred") + count("AlphaMask3dDeferred"),
    ];
    let stats = h.app.sub_app(RenderApp).world().resource::<Md2CrowdStats>();
    let draws = stats
        .indirect_draws
        .load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "crowd, {how}: items (Opaque3d, Opaque3dPrepass, deferred) {counts:?}, \
         {draws} indirect draws, {} views",
        stats.views
    );
    if deferred {
        assert_eq!(counts, [1, 0, 2], "{items:?}");
        assert_eq!(draws, 2, "{stats:?}");
    } else {
        assert_eq!(counts, [3, 2, 0], "{items:?}");
        assert_eq!(draws, 4, "{stats:?}");
    }
    // Each camera's passes ran once for all its passes.
    assert_eq!(stats.views, 2, "{stats:?}");

    // The lit picture and the depth prepass cover the CPU's silhouette;
    // nothing moves.
    let clip_from_world = h.clip_from_world(lit_camera);
    let cpu = rasterize(&posed_crowd(&h, entity, &[]), clip_from_world, SIZE, SIZE);
    let image = h.capture(&lit);
    check_silhouette(
        &format!("crowd, {how}: lit"),
        &lit_mask(&image),
        &cpu.mask,
        &image,
    );
    let probe_image = h.capture(&probe);
    let read = pixels(&probe_image);
    let depth = Mask::from_fn(SIZE, SIZE, |x, y| read[(y * SIZE + x) as usize][2] > 0.0);
    check_silhouette(
        &format!("crowd, {how}: depth prepass"),
        &depth,
        &cpu.mask,
        &probe_image,
    );
    let moving = read.iter().filter(|p| p[0] != 0.0 || p[1] != 0.0).count();
    eprintln!("crowd, {how}, still: {moving} pixels with motion");
    if moving != 0 {
        panic!(
            "a still crowd has motion at {moving} pixels: {}",
            save_actual(&probe_image, "crowd-motion-still").display()
        );
    }

    // Between two frames: one member moved, turned and put on another
    // clip; its motion is the CPU's, everybody else's zero.
    let before = posed_crowd(&h, entity, &[]);
    let moved = Transform::from_xyz(-84.0, 0.0, 4.0).with_rotation(Quat::from_rotation_y(0.1));
    let now = h.app.world().resource::<Time>().elapsed_secs_f64();
    h.crowd(entity)
        .members_mut()
        .set(
            handles[0],
            CrowdMember::new(
                member_transform(&moved),
                ClipClock::new(Quake2Player::Attack.clip(), now - 0.3),
            ),
        )
        .expect("a member");
    // The capture is of the frame that writes the change.
    let probe_image = h.capture(&probe);
    let after = posed_crowd(&h, entity, &[]);
    let read = pixels(&probe_image);
    let raster = rasterize(&after, clip_from_world, SIZE, SIZE);
    let gpu_mask = Mask::from_fn(SIZE, SIZE, |x, y| read[(y * SIZE + x) as usize][2] > 0.0);
    check_silhouette(
        &format!("crowd, {how}: depth prepass, one member moved"),
        &gpu_mask,
        &raster.mask,
        &probe_image,
    );
    // The same triangles in the same order: the members' order did not
    // change.
    assert_eq!(before.triangles.len(), after.triangles.len());
    let then = PosedModel {
        triangles: before.triangles,
    };
    let MotionComparison {
        compared,
        worst,
        largest,
    } = compare_motion(&read, &gpu_mask, &raster, clip_from_world, &after, &then);
    let moving = read.iter().filter(|p| p[0] != 0.0 || p[1] != 0.0).count();
    eprintln!(
        "crowd, {how}, one member moved: {compared} pixels compared, {moving} with motion, \
         motion up to {largest:.4} ({:.1} pixels), largest difference {worst:.2e}",
        largest * SIZE as f32
    );
    assert!(compared > 1500, "most of the silhouettes are compared");
    assert!(largest * SIZE as f32 > 3.0, "the motion is several pixels");
    assert!(moving > 100, "the moved member has motion");
    if worst > TOLERANCE {
        panic!(
            "crowd, {how}: motion vectors off by {worst:e}: {}",
            save_actual(&probe_image, "crowd-motion-moved").display()
        );
    }

    // A frame later nothing moved since: zero again.
    h.update();
    let probe_image = h.capture(&probe);
    let moving = pixels(&probe_image)
        .iter()
        .filter(|p| p[0] != 0.0 || p[1] != 0.0)
        .count();
    assert_eq!(moving, 0, "a frame after the change, nothing moves");
}
