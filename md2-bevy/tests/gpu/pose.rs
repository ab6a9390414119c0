//! The demo model drawn by the plugin covers the pixels md2-wgpu's CPU pose
//! covers from the same camera: in the main pass (lit by Bevy's PBR), in
//! the depth prepass, and lit by Bevy's deferred lighting from the G-buffer
//! the plugin's deferred pass writes, in several frames, between frames and
//! during a crossfade. Tolerance: no pixel of either silhouette is more than one
//! pixel from the other (the CPU rasteriser samples pixel centres as the
//! GPU does, so what remains is rounding on edges through a pixel centre).

use bevy::core_pipeline::prepass::{DeferredPrepass, DepthPrepass};
use bevy::light::GlobalAmbientLight;
use bevy::pbr::DefaultOpaqueRendererMethod;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator};
use md2_wgpu::{Clip, Quake2Player};

use crate::harness::{Harness, gpu_or_skip, pixels, save_actual};
use crate::probe::{add_probe, attach_probe};
use crate::reference::{Mask, PosedModel, rasterize};

const SIZE: u32 = 256;
const FOV: f32 = 0.7;
const NEAR: f32 = 1.0;

/// The poses: still frames, a lerp between two, a one-shot's held end, and
/// a crossfade half way.
fn poses() -> Vec<(&'static str, Md2Animator)> {
    let mut fade = Md2Animator::player(Quake2Player::Run).with_phase(0.13);
    fade.crossfade(Quake2Player::Attack.clip(), -0.25, 0.5);
    vec![
        ("frame 0 held", Md2Animator::new(Clip::once("stand", 0, 0))),
        // 2.5 frames into run: frames 42 and 43, t = 0.5.
        (
            "run, half way between frames",
            Md2Animator::player(Quake2Player::Run).with_phase(0.25),
        ),
        (
            "death1's last frame, held",
            Md2Animator::player(Quake2Player::Death1).with_phase(10.0),
        ),
        (
            "crouched walk",
            Md2Animator::player(Quake2Player::CrouchWalk).with_phase(0.37),
        ),
        ("run into attack, weight 0.5", fade),
    ]
}

#[test]
fn the_plugin_covers_the_cpu_pose_in_the_main_pass_and_the_prepass() {
    if gpu_or_skip("pose, forward") {
        silhouettes(false);
    }
}

#[test]
fn the_plugin_covers_the_cpu_pose_in_the_deferred_passes() {
    if gpu_or_skip("pose, deferred") {
        silhouettes(true);
    }
}

fn silhouettes(deferred: bool) {
    let mut h = Harness::new(|app| {
        if deferred {
            app.insert_resource(DefaultOpaqueRendererMethod::deferred());
        }
        add_probe(app);
        app.insert_resource(ClearColor(Color::BLACK));
        // Bright enough that every pixel of the model is far from black.
        app.insert_resource(GlobalAmbientLight {
            brightness: 20_000.0,
            ..default()
        });
    });
    let handle = h.load_demo();
    let model = md2_wgpu::demo::demo_model();
    let lit = h.target(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb);
    let prepass = h.target(SIZE, SIZE, TextureFormat::Rgba16Float);
    let eye = Transform::from_xyz(45.0, 20.0, 95.0).looking_at(Vec3::new(0.0, 3.0, 0.0), Vec3::Y);
    let projection = || {
        Projection::Perspective(PerspectiveProjection {
            fov: FOV,
            near: NEAR,
            ..default()
        })
    };
    let lit_camera = h.camera(&lit, eye, projection(), ());
    if deferred {
        h.app
            .world_mut()
            .entity_mut(lit_camera)
            .insert((DepthPrepass, DeferredPrepass));
    }
    let prepass_camera = h.camera(&prepass, eye, projection(), DepthPrepass);
    // Bevy 0.19.1 queues deferred materials into every camera's deferred
    // phase, and panics where a camera with a prepass has none
    // (bevy_pbr prepass/mod.rs:1311): with deferred rendering, every
    // camera with a prepass needs DeferredPrepass.
    if deferred {
        h.app
            .world_mut()
            .entity_mut(prepass_camera)
            .insert(DeferredPrepass);
    }
    attach_probe(h.app.world_mut(), prepass_camera, NEAR, FOV, 1.0);
    // Turned a little, so the test does not rest on the identity.
    let place = Transform::from_xyz(2.0, 0.0, -3.0).with_rotation(Quat::from_rotation_y(0.4));
    let entity = h
        .app
        .world_mut()
        .spawn((Md2(handle), Md2Animator::default(), place))
        .id();

    for (name, animator) in poses() {
        let pose = animator.pose(0.0);
        h.app.world_mut().entity_mut(entity).insert(animator);
        h.update();
        let clip_from_world = h.clip_from_world(lit_camera);
        let cpu = rasterize(
            &PosedModel::new(&model, &pose, place.to_matrix()),
            clip_from_world,
            SIZE,
            SIZE,
        );
        assert!(cpu.mask.count() > 2000, "{name}: the model fills the view");

        let lit_image = h.capture(&lit);
        let colour = pixels(&lit_image);
        let gpu = Mask::from_fn(SIZE, SIZE, |x, y| {
            colour[(y * SIZE + x) as usize][..3]
                .iter()
                .any(|&c| c > 0.05)
        });
        let image = h.capture(&prepass);
        let probe = pixels(&image);
        let depth = Mask::from_fn(SIZE, SIZE, |x, y| probe[(y * SIZE + x) as usize][2] > 0.0);

        let lit_pass = if deferred { "deferred" } else { "main pass" };
        for (pass, mask) in [(lit_pass, &gpu), ("depth prepass", &depth)] {
            eprintln!(
                "{name}, {pass}: {} pixels (CPU {}), {} differ, {} more than a pixel away",
                mask.count(),
                cpu.mask.count(),
                mask.differing(&cpu.mask),
                mask.beyond(&cpu.mask, 1)
            );
            if mask.beyond(&cpu.mask, 1) != 0 || mask.differing(&cpu.mask) * 50 >= cpu.mask.count()
            {
                let file = format!("pose-{pass}-{}", name.replace([' ', ',', '\''], "_"));
                panic!(
                    "{name}, {pass}: the silhouettes differ by more than a pixel, or at 2% of \
                     the pixels or more: {}",
                    save_actual(&lit_image, &file).display()
                );
            }
        }
    }
}
