//! Shadows follow the pose: a directional light's shadow map is drawn with
//! the plugin's vertex stage, so two different frames of the demo model cast
//! two different shadows onto a Bevy `StandardMaterial` plane, and each
//! matches the CPU pose of its frame flattened along the light onto the
//! plane. The camera looks down on the shadow only (the model is out of its
//! view), so what is dark is shadow.
//!
//! Tolerance: a shadow map is a sampled depth picture, filtered and biased
//! (4,096 texels over the cascade here, about 0.1 of a pixel each; Bevy's
//! default depth and normal biases; 2×2 hardware filtering), so the
//! rendered shadow's edge may sit up to two pixels from the flattened
//! pose's: no pixel of either farther than two pixels from the other, and
//! intersection over union at least 0.85 (the normal bias erodes the
//! shadow by about half a pixel all round, which thin limbs feel most);
//! and each shadow at least 0.2 closer, by that measure, to its own
//! frame's than to the other's.

use bevy::light::{
    CascadeShadowConfigBuilder, DirectionalLightShadowMap, GlobalAmbientLight,
    ShadowFilteringMethod,
};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator};
use md2_wgpu::{Clip, Quake2Player};

use crate::harness::{Harness, gpu_or_skip, pixels, save_actual};
use crate::reference::{Mask, PosedModel, rasterize_both_faces};

const SIZE: u32 = 256;

/// The scene both tests draw: a 4,096-texel shadow map of one cascade
/// from a light travelling down towards -x and a little +z, a white
/// `StandardMaterial` plane, an ambient light; the harness, the demo model
/// loaded, the target and the light's direction.
fn shadow_scene() -> (Harness, Handle<md2_bevy::Md2Asset>, Handle<Image>, Vec3) {
    let mut h = Harness::new(|app| {
        app.insert_resource(DirectionalLightShadowMap { size: 4096 })
            .insert_resource(GlobalAmbientLight {
                brightness: 200.0,
                ..default()
            });
    });
    let handle = h.load_demo();
    let target = h.target(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb);

    // Light travels down, towards -x and a little +z.
    let light = Vec3::new(-1.0, -1.3, 0.2).normalize();
    h.app.world_mut().spawn((
        DirectionalLight {
            illuminance: 10_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::default().looking_to(light, Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 1,
            minimum_distance: 1.0,
            first_cascade_far_bound: 800.0,
            maximum_distance: 800.0,
            ..default()
        }
        .build(),
    ));
    h.plane(
        800.0,
        StandardMaterial {
            base_color: Color::WHITE,
            perceptual_roughness: 1.0,
            ..default()
        },
    );

    (h, handle, target, light)
}

/// The pixels darker than half the brightest: the shadow.
fn shadow_mask(image: &Image) -> Mask {
    let colour = pixels(image);
    let lit = colour
        .iter()
        .map(|p| p[0] + p[1] + p[2])
        .fold(0.0f32, f32::max);
    Mask::from_fn(SIZE, SIZE, |x, y| {
        let p = colour[(y * SIZE + x) as usize];
        p[0] + p[1] + p[2] < lit * 0.5
    })
}

/// The camera looking straight down on where the shadow falls (the model
/// out of its view).
fn shadow_camera(h: &mut Harness, target: &Handle<Image>) -> Entity {
    h.camera(
        target,
        Transform::from_xyz(-85.0, 400.0, 0.0).looking_at(Vec3::new(-85.0, 0.0, 0.0), Vec3::NEG_Z),
        Projection::Perspective(PerspectiveProjection {
            fov: 0.3,
            near: 1.0,
            ..default()
        }),
        ShadowFilteringMethod::Hardware2x2,
    )
}

#[test]
fn two_frames_cast_their_own_shadows_on_a_standard_material_plane() {
    if !gpu_or_skip("shadows") {
        return;
    }
    let (mut h, handle, target, light) = shadow_scene();
    let model = md2_wgpu::demo::demo_model();
    // The model floats well above the plane, so its shadow falls clear of
    // it, where the camera looks straight down.
    let place = Transform::from_xyz(0.0, 100.0, 0.0).with_rotation(Quat::from_rotation_y(0.7));
    let entity = h
        .app
        .world_mut()
        .spawn((Md2(handle), Md2Animator::default(), place))
        .id();
    let camera = shadow_camera(&mut h, &target);
    h.update();
    let clip_from_world = h.clip_from_world(camera);

    let frames = [
        (
            "standing (frame 0)",
            Md2Animator::new(Clip::once("stand", 0, 0)),
        ),
        (
            "fallen (death3's last frame)",
            Md2Animator::player(Quake2Player::Death3).with_phase(10.0),
        ),
    ];
    let mut rendered = Vec::new();
    let mut expected = Vec::new();
    for (name, animator) in &frames {
        let pose = animator.pose(0.0);
        h.app
            .world_mut()
            .entity_mut(entity)
            .insert(animator.clone());
        h.update();
        let image = h.capture(&target);
        let shadow = shadow_mask(&image);
        let posed = PosedModel::new(&model, &pose, place.to_matrix());
        let cpu = rasterize_both_faces(&posed.shadow(light), clip_from_world, SIZE, SIZE).mask;
        let model_in_view = rasterize_both_faces(&posed, clip_from_world, SIZE, SIZE).mask;
        assert_eq!(
            model_in_view.count(),
            0,
            "{name}: the model itself is out of view"
        );
        hold_shadow(
            name,
            &image,
            &shadow,
            &cpu,
            &format!("shadow-{}", rendered.len()),
        );
        rendered.push(shadow);
        expected.push(cpu);
    }
    let own = [rendered[0].iou(&expected[0]), rendered[1].iou(&expected[1])];
    let other = [rendered[0].iou(&expected[1]), rendered[1].iou(&expected[0])];
    eprintln!(
        "own frame IoU {own:.3?}, other frame IoU {other:.3?}, the two shadows differ at {} pixels",
        rendered[0].differing(&rendered[1])
    );
    for k in 0..2 {
        assert!(own[k] > other[k] + 0.2, "shadow {k} is its own frame's");
    }
}

/// A crowd of the shadow scene's model with one member at `place` on
/// `clock`, spawned, and the shadow camera: the crowd's entity, the
/// member, and the camera's world to clip.
fn one_member_crowd(
    h: &mut Harness,
    handle: Handle<md2_bevy::Md2Asset>,
    target: &Handle<Image>,
    place: &Transform,
    clock: md2_wgpu::anim::ClipClock,
) -> (Entity, md2_wgpu::crowd::CrowdHandle, Mat4) {
    use md2_bevy::{Md2Crowd, member_transform};

    let asset = h.md2_asset(&handle);
    let mut crowd = Md2Crowd::new(handle, &asset);
    let member = crowd
        .members_mut()
        .add(md2_wgpu::CrowdMember::new(member_transform(place), clock))
        .expect("a member");
    let entity = h.app.world_mut().spawn(crowd).id();
    let camera = shadow_camera(h, target);
    h.update();
    let clip_from_world = h.clip_from_world(camera);
    (entity, member, clip_from_world)
}

/// The shadow `image` shows, held to the CPU's: the demo model in `pose`
/// at `place`, flattened along `light` (no pixel more than 2 from it, IoU
/// at least 0.85); `name` says which.
fn check_crowd_shadow(
    name: &str,
    image: &Image,
    pose: &md2_wgpu::anim::Pose,
    place: &Transform,
    light: Vec3,
    clip_from_world: Mat4,
) -> Mask {
    let shadow = shadow_mask(image);
    let posed = PosedModel::new(&md2_wgpu::demo::demo_model(), pose, place.to_matrix());
    let cpu = rasterize_both_faces(&posed.shadow(light), clip_from_world, SIZE, SIZE).mask;
    hold_shadow(
        &format!("crowd, {name}"),
        image,
        &shadow,
        &cpu,
        &format!("crowd-shadow-{}", name.replace(' ', "-")),
    );
    shadow
}

/// Holds the `shadow` of `image` to the `cpu`'s (which must be in view):
/// no pixel more than 2 from it, IoU at least 0.85; says how they differ,
/// and where they do not agree saves the picture as `file`.
fn hold_shadow(name: &str, image: &Image, shadow: &Mask, cpu: &Mask, file: &str) {
    assert!(cpu.count() > 1000, "{name}: the shadow is in view");
    eprintln!(
        "{name}: shadow {} pixels (CPU {}), {} differ, {} more than 2 pixels away, IoU {:.3}",
        shadow.count(),
        cpu.count(),
        shadow.differing(cpu),
        shadow.beyond(cpu, 2),
        shadow.iou(cpu)
    );
    if shadow.beyond(cpu, 2) != 0 || shadow.iou(cpu) < 0.85 {
        panic!(
            "{name}: the shadow is not the pose's: {}",
            save_actual(image, file).display()
        );
    }
}

/// The same scene with the model as a resident crowd's one member: each
/// shadow map runs the crowd's passes and draws it, so the member casts its
/// pose's shadow, and another clip's when it plays one.
#[test]
fn a_crowd_member_casts_its_poses_shadow() {
    use md2_wgpu::anim::ClipClock;

    if !gpu_or_skip("shadows") {
        return;
    }
    let (mut h, handle, target, light) = shadow_scene();
    let place = Transform::from_xyz(0.0, 100.0, 0.0).with_rotation(Quat::from_rotation_y(0.7));
    let stand = ClipClock::new(Clip::once("stand", 0, 0), 0.0);
    let (entity, member, clip_from_world) =
        one_member_crowd(&mut h, handle, &target, &place, stand.clone());
    // Fallen: death3's last frame, from long ago.
    let fallen = ClipClock::new(Quake2Player::Death3.clip(), -10.0);
    let mut rendered = Vec::new();
    for (name, clock) in [("standing", stand), ("fallen", fallen)] {
        h.crowd(entity)
            .members_mut()
            .member(member)
            .play(clock.clone(), -20.0, 0.0)
            .expect("a member");
        h.update();
        h.update();
        let image = h.capture(&target);
        let pose = md2_wgpu::anim::Playback::from(clock).pose(0.0);
        rendered.push(check_crowd_shadow(
            name,
            &image,
            &pose,
            &place,
            light,
            clip_from_world,
        ));
    }
    assert!(
        rendered[0].differing(&rendered[1]) > 500,
        "the two poses cast two shadows"
    );

    // A member whose effects say it casts no shadow (md2-wgpu's
    // EFFECT_NO_SHADOW) casts none; it says so again, and it does.
    let no_shadow = md2_wgpu::scene::Effects {
        no_shadow: true,
        ..md2_wgpu::scene::Effects::NONE
    };
    for (effects, shadows) in [(no_shadow, false), (md2_wgpu::scene::Effects::NONE, true)] {
        h.crowd(entity)
            .members_mut()
            .member(member)
            .set_effects(effects)
            .expect("a member");
        h.update();
        let image = h.capture(&target);
        let shadow = shadow_mask(&image).count();
        eprintln!("crowd, effects {effects:?}: shadow {shadow} pixels");
        if (shadow > 1000) != shadows || (!shadows && shadow != 0) {
            panic!(
                "crowd, effects {effects:?}: {shadow} shadow pixels: {}",
                save_actual(&image, "crowd-shadow-effects").display()
            );
        }
    }
}

/// A member far up towards the light, between it and the cascade's near
/// plane (2,000 units beyond where its shadow falls): it still casts its
/// shadow, as Bevy's own casters do there (Bevy culls directional casters
/// without the near plane and clamps their depth); the crowd's passes cull
/// a cascade without its near plane too.
#[test]
fn a_crowd_member_before_the_cascades_near_plane_casts_its_shadow() {
    use md2_wgpu::anim::ClipClock;

    if !gpu_or_skip("shadows") {
        return;
    }
    let (mut h, handle, target, light) = shadow_scene();
    // Where a_crowd_member_casts_its_poses_shadow's member stands, moved
    // 2,000 units back along the light: the same shadow.
    let place = Transform::from_translation(Vec3::new(0.0, 100.0, 0.0) - light * 2000.0)
        .with_rotation(Quat::from_rotation_y(0.7));
    let stand = ClipClock::new(Clip::once("stand", 0, 0), 0.0);
    let (_, _, clip_from_world) = one_member_crowd(&mut h, handle, &target, &place, stand.clone());
    h.update();
    let image = h.capture(&target);
    let pose = md2_wgpu::anim::Playback::from(stand).pose(0.0);
    check_crowd_shadow(
        "before the near plane",
        &image,
        &pose,
        &place,
        light,
        clip_from_world,
    );
}
