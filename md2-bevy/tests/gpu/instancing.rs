//! Instancing: 1,000 entities of one model share one mesh and one
//! material, so Bevy draws them with one draw per pass: the main opaque
//! pass, the depth, normal and motion-vector prepass, every shadow map (a
//! directional light's cascades, a point light's six faces), and, with
//! deferred rendering, the G-buffer pass.
//!
//! Counted where Bevy records them (see `draws`): each drawn phase item,
//! and each draw it issues on the GPU (one per indirect draw of a
//! multi-draw). With Bevy's GPU culling (lavapipe has it) an item is one
//! multi-draw-indirect call whose indirect draws are its bins, one per mesh
//! and material; without, one `draw_indexed` over the instance range.

use std::collections::BTreeMap;

use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::light::CascadeShadowConfigBuilder;
use bevy::pbr::DefaultOpaqueRendererMethod;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator, Md2Poses};
use md2_wgpu::Quake2Player;

use crate::draws::{DrawnItem, count_draws};
use crate::harness::{Harness, bright_on_black, gpu_or_skip, save_actual};
use crate::reference::{PosedModel, compare, lit_mask, rasterize};

const ENTITIES: u32 = 1000;

/// Draws per (phase, view) in one frame of 1,000 running entities, with
/// `deferred` rendering or forward.
fn one_frame(deferred: bool) -> (Vec<DrawnItem>, u64) {
    let mut h = Harness::new(|app| {
        if deferred {
            app.insert_resource(DefaultOpaqueRendererMethod::deferred());
        }
    });
    let log = count_draws(&mut h.app);
    let handle = h.load_demo();
    let target = h.target(256, 256, TextureFormat::Rgba8UnormSrgb);
    let extra = (DepthPrepass, NormalPrepass, MotionVectorPrepass);
    let eye =
        Transform::from_xyz(600.0, 900.0, 1400.0).looking_at(Vec3::new(600.0, 0.0, 300.0), Vec3::Y);
    let projection = Projection::Perspective(PerspectiveProjection {
        fov: 1.2,
        ..default()
    });
    let camera = h.camera(&target, eye, projection, extra);
    if deferred {
        h.app.world_mut().entity_mut(camera).insert(DeferredPrepass);
    }
    let world = h.app.world_mut();
    world.spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::default().looking_to(Vec3::new(-0.3, -1.0, -0.2), Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 2,
            maximum_distance: 3000.0,
            first_cascade_far_bound: 1200.0,
            ..default()
        }
        .build(),
    ));
    world.spawn((
        PointLight {
            shadow_maps_enabled: true,
            range: 4000.0,
            intensity: 1e9,
            ..default()
        },
        Transform::from_xyz(600.0, 300.0, 300.0),
    ));
    for i in 0..ENTITIES {
        world.spawn((
            Md2(handle.clone()),
            Md2Animator::player(Quake2Player::Run).with_phase(f64::from(i) * 0.031),
            Transform::from_xyz((i % 40) as f32 * 30.0, 0.0, (i / 40) as f32 * 30.0),
        ));
    }
    for _ in 0..3 {
        h.update();
    }
    log.take();
    h.update();
    let bytes = h.app.world().resource::<Md2Poses>().bytes_per_frame();
    (log.take(), bytes)
}

fn check(items: &[DrawnItem], passes: &[(&str, usize)]) {
    let mut per_view: BTreeMap<(&str, String), (usize, u32, u32)> = BTreeMap::new();
    for item in items {
        let entry = per_view
            .entry((item.phase, format!("{:?}", item.view)))
            .or_default();
        entry.0 += 1;
        entry.1 += item.draws;
        entry.2 = entry.2.max(item.instances.len() as u32);
    }
    for ((phase, view), (items, draws, instances)) in &per_view {
        eprintln!(
            "{phase} in view {view}: {items} item(s), {draws} draw(s), instance range {instances}"
        );
        assert_eq!((*items, *draws), (1, 1), "{phase} in view {view}: one draw");
    }
    for (phase, views) in passes {
        let seen = per_view.keys().filter(|(p, _)| p == phase).count();
        assert_eq!(seen, *views, "{phase}: the views that draw the crowd");
    }
}

#[test]
fn a_thousand_entities_of_one_model_are_one_draw_per_pass() {
    if !gpu_or_skip("instancing") {
        return;
    }
    let (items, bytes) = one_frame(false);
    // Two cascades, and the five faces of the point light's cube that see
    // the crowd (nothing is above the light): seven shadow maps with draws.
    check(
        &items,
        &[("Opaque3d", 1), ("Opaque3dPrepass", 1), ("Shadow", 7)],
    );
    assert_eq!(bytes, 80 * 1024, "1,000 records in a buffer of 1,024");

    let (items, _) = one_frame(true);
    check(&items, &[("Opaque3dDeferred", 1), ("Shadow", 7)]);
    assert!(
        !items.iter().any(|i| i.phase == "Opaque3d"),
        "deferred: no forward draw"
    );
}

/// Entities spawned after their model's buffer is full: the plugin gives
/// the material a buffer twice the size, and every entity, old and new,
/// draws in its own pose (the picture covers the CPU poses of all of them
/// within a pixel) in one draw.
#[test]
fn entities_added_later_grow_the_pose_buffer_and_draw_in_their_poses() {
    if !gpu_or_skip("instancing, growth") {
        return;
    }
    let mut h = Harness::new(bright_on_black);
    let log = count_draws(&mut h.app);
    let handle = h.load_demo();
    let model = md2_wgpu::demo::demo_model();
    let size = 256;
    let target = h.target(size, size, TextureFormat::Rgba8UnormSrgb);
    let eye =
        Transform::from_xyz(135.0, 500.0, 700.0).looking_at(Vec3::new(135.0, 0.0, 135.0), Vec3::Y);
    let camera = h.camera(
        &target,
        eye,
        Projection::Perspective(PerspectiveProjection {
            fov: 0.6,
            ..default()
        }),
        (),
    );
    // Each its own pose: a record at the wrong slot would show.
    let soldier = |i: u32| {
        (
            Md2Animator::player(Quake2Player::Run).with_phase(f64::from(i) * 0.037),
            Transform::from_xyz((i % 10) as f32 * 30.0, 0.0, (i / 10) as f32 * 30.0)
                .with_rotation(Quat::from_rotation_y(i as f32 * 0.5)),
        )
    };
    let spawn = |h: &mut Harness, range: std::ops::Range<u32>| {
        for i in range {
            let (animator, place) = soldier(i);
            h.app
                .world_mut()
                .spawn((Md2(handle.clone()), animator, place));
        }
    };
    spawn(&mut h, 0..40);
    for _ in 0..3 {
        h.update();
    }
    let id = handle.id();
    assert_eq!(h.app.world().resource::<Md2Poses>().capacity(id), 64);
    spawn(&mut h, 40..100);
    for _ in 0..3 {
        h.update();
    }
    assert_eq!(h.app.world().resource::<Md2Poses>().capacity(id), 128);
    log.take();
    let image = h.capture(&target);
    let drawn: Vec<_> = log
        .take()
        .into_iter()
        .filter(|i| i.phase == "Opaque3d")
        .collect();
    assert!(!drawn.is_empty());
    assert!(
        drawn
            .iter()
            .all(|i| i.draws == 1 && i.instances.len() == 100),
        "one draw of the 100: {drawn:?}"
    );

    let clip_from_world = h.clip_from_world(camera);
    let mut crowd = PosedModel {
        triangles: Vec::new(),
    };
    for i in 0..100 {
        let (animator, place) = soldier(i);
        crowd
            .triangles
            .extend(PosedModel::new(&model, &animator.pose(0.0), place.to_matrix()).triangles);
    }
    let cpu = rasterize(&crowd, clip_from_world, size, size).mask;
    let gpu = lit_mask(&image);
    let what = "100 soldiers, 60 of them spawned after the buffer was full";
    let far = compare(what, &gpu, &cpu);
    assert!(cpu.count() > 1000);
    if far != 0 {
        panic!(
            "the crowd is not in its poses: {}",
            save_actual(&image, "instancing-growth").display()
        );
    }
}
