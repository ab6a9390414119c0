//! A resident crowd in Bevy: its members, clocked, culled and laid out on
//! the GPU by md2-wgpu's passes, draw where md2-wgpu's CPU reference poses
//! them; members out of view are left out; a frame without changes writes
//! nothing.

use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2Crowd, Md2CrowdStats, member_transform};
use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};

use crate::draws::count_draws;
use crate::harness::{Harness, bright_on_black, gpu_or_skip, save_actual};
use crate::reference::{Mask, PosedModel, compare, lit_mask, rasterize};

/// Soldiers on a 4 × 3 grid, turned this way and that, on
/// different clips and phases; and three far out of view.
pub fn soldiers() -> Vec<(Transform, ClipClock)> {
    let clips = [
        Quake2Player::Run.clip(),
        Quake2Player::Attack.clip(),
        Quake2Player::Stand.clip(),
        Quake2Player::Wave.clip(),
    ];
    let mut out = Vec::new();
    for i in 0..12 {
        let x = (i % 4) as f32 * 60.0 - 90.0;
        let z = (i / 4) as f32 * -70.0;
        let place =
            Transform::from_xyz(x, 0.0, z).with_rotation(Quat::from_rotation_y(i as f32 * 0.7));
        let clock = ClipClock::new(clips[i % 4].clone(), -0.137 * i as f64)
            .with_speed(0.8 + 0.05 * i as f32);
        out.push((place, clock));
    }
    for i in 0..3 {
        let place = Transform::from_xyz(5000.0 + i as f32 * 100.0, 0.0, 0.0);
        out.push((place, ClipClock::new(Quake2Player::Run.clip(), 0.0)));
    }
    out
}

#[test]
fn a_crowd_draws_its_members_where_the_cpu_poses_them() {
    if !gpu_or_skip("crowd") {
        return;
    }
    let mut h = Harness::new(bright_on_black);
    let log = count_draws(&mut h.app);
    let model = h.load_demo();
    let target = h.target(256, 256, TextureFormat::Rgba8UnormSrgb);
    let eye =
        Transform::from_xyz(0.0, 120.0, 260.0).looking_at(Vec3::new(0.0, 10.0, -70.0), Vec3::Y);
    let camera = h.camera(
        &target,
        eye,
        Projection::Perspective(PerspectiveProjection {
            fov: 0.9,
            ..default()
        }),
        (),
    );
    let (entity, handles) = spawn_soldiers(&mut h, &model);
    for _ in 0..3 {
        h.update();
    }
    // Nothing changed since the first frame: nothing written.
    let written = h
        .app
        .world()
        .get::<Md2Crowd>(entity)
        .expect("a crowd")
        .written_last_frame();
    assert_eq!(written, 0, "a frame without changes writes nothing");

    check_picture(
        &mut h,
        &target,
        camera,
        entity,
        &[],
        "crowd: twelve soldiers",
    );
    // One phase item in the main pass, whose draws are the crowd's
    // buckets: one indirect draw (one level, nobody mirrored) per view.
    log.take();
    h.update();
    let items: Vec<_> = log
        .take()
        .into_iter()
        .filter(|i| i.phase == "Opaque3d")
        .collect();
    assert_eq!(items.len(), 1, "{items:?}");
    let stats = h.app.sub_app(RenderApp).world().resource::<Md2CrowdStats>();
    let draws = stats
        .indirect_draws
        .load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!((stats.views, draws), (1, 1), "{stats:?}");
    // The harness's clock stands still: a frame without changes writes
    // nothing at all (a running clock adds the view's time, 32 bytes).
    assert_eq!(stats.bytes_written, 0, "{stats:?}");
    // The members (128 bytes each, room for 64), the model's corners and
    // index lists, and the view's records (24 bytes a member) and work.
    assert!(stats.gpu_bytes > 64 * 128 + 15 * 24, "{stats:?}");

    // Between frames: two removed (the last moves into the first hole),
    // two added, one moved, one crossfading into another clip.
    {
        let mut crowd = h.crowd(entity);
        let members = crowd.members_mut();
        members.remove(handles[1]).expect("a member");
        members.remove(handles[6]).expect("a member");
        for x in [-120.0, 120.0] {
            let place = Transform::from_xyz(x, 0.0, 40.0);
            let clock = ClipClock::new(Quake2Player::Jump.clip(), -0.3);
            members
                .add(CrowdMember::new(member_transform(&place), clock))
                .expect("a member");
        }
        let moved = Transform::from_xyz(0.0, 0.0, 60.0).with_rotation(Quat::from_rotation_y(2.0));
        members
            .member(handles[3])
            .set_transform(member_transform(&moved))
            .expect("a member");
        members
            .member(handles[4])
            .play(ClipClock::new(Quake2Player::Pain1.clip(), -0.1), -0.05, 0.2)
            .expect("a member");
    }
    h.update();
    let written = h
        .app
        .world()
        .get::<Md2Crowd>(entity)
        .expect("a crowd")
        .written_last_frame();
    assert!(
        written > 0 && written < 16 * 128,
        "only the changes are written: {written} bytes"
    );
    h.update();
    check_picture(&mut h, &target, camera, entity, &[], "crowd: after changes");

    // A soldier leaves the formation (an entity of its own, going on with
    // its clocks where it was) and another joins it from an entity.
    let (md2, animator, place) = h.crowd(entity).take_member(handles[4]).expect("a member");
    let playback = animator.playback().clone();
    let matrix = place.to_matrix();
    let soldier = h.app.world_mut().spawn((md2, animator, place)).id();
    for _ in 0..3 {
        h.update();
    }
    let left = [(playback.clone(), matrix)];
    check_picture(
        &mut h,
        &target,
        camera,
        entity,
        &left,
        "crowd: one soldier an entity",
    );
    let (animator, place) = {
        let e = h.app.world().entity(soldier);
        (
            e.get::<md2_bevy::Md2Animator>().expect("animated").clone(),
            *e.get::<Transform>().expect("placed"),
        )
    };
    h.crowd(entity)
        .add_entity(&animator, &place)
        .expect("a member");
    h.app.world_mut().despawn(soldier);
    for _ in 0..2 {
        h.update();
    }
    check_picture(
        &mut h,
        &target,
        camera,
        entity,
        &[],
        "crowd: back in the crowd",
    );
}

/// A crowd of `model` (loaded) with [`soldiers`] as its members, spawned:
/// its entity and the members' handles.
pub fn spawn_soldiers(
    h: &mut Harness,
    model: &Handle<md2_bevy::Md2Asset>,
) -> (Entity, Vec<md2_wgpu::crowd::CrowdHandle>) {
    let asset = h.md2_asset(model);
    let mut crowd = Md2Crowd::new(model.clone(), &asset);
    let mut handles = Vec::new();
    for (place, clock) in soldiers() {
        let member = CrowdMember::new(member_transform(&place), clock);
        handles.push(crowd.members_mut().add(member).expect("a member"));
    }
    (h.app.world_mut().spawn(crowd).id(), handles)
}

/// The crowd `entity` (and `others`: entities' playbacks and places) as
/// `camera` draws it into `target`, against md2-wgpu's CPU reference of
/// its members (the CPU's copy, which is the truth) at the frame's time.
fn check_picture(
    h: &mut Harness,
    target: &Handle<Image>,
    camera: Entity,
    entity: Entity,
    others: &[(md2_wgpu::anim::Playback, Mat4)],
    what: &str,
) {
    let image = h.capture(target);
    let size = image.width();
    let clip_from_world = h.clip_from_world(camera);
    let cpu = rasterize(&posed_crowd(h, entity, others), clip_from_world, size, size).mask;
    check_silhouette(what, &lit_mask(&image), &cpu, &image);
}

/// Every member of the crowd `entity`, and `others` (entities' playbacks
/// and places), as md2-wgpu's CPU reference poses them at the frame's
/// time, member after member in the crowd's order.
pub fn posed_crowd(
    h: &Harness,
    entity: Entity,
    others: &[(md2_wgpu::anim::Playback, Mat4)],
) -> PosedModel {
    let now = h.app.world().resource::<Time>().elapsed_secs_f64();
    let mut everything = PosedModel {
        triangles: Vec::new(),
    };
    let model = md2_wgpu::demo::demo_model();
    let crowd = h.app.world().get::<Md2Crowd>(entity).expect("a crowd");
    for (_, member) in crowd.members().iter() {
        let pose = member.playback.pose(now);
        let place = Mat4::from_cols_array(&member.transform.to_cols_array());
        everything
            .triangles
            .extend(PosedModel::new(&model, &pose, place).triangles);
    }
    for (playback, place) in others {
        everything
            .triangles
            .extend(PosedModel::new(&model, &playback.pose(now), *place).triangles);
    }
    everything
}

/// Holds the GPU's silhouette `gpu` (of `image`) to the CPU's: no pixel
/// more than a pixel from the other's, fewer than 2% differing.
pub fn check_silhouette(what: &str, gpu: &Mask, cpu: &Mask, image: &Image) {
    let far = compare(what, gpu, cpu);
    assert!(
        cpu.count() > 1000,
        "the soldiers fill the view: {}",
        cpu.count()
    );
    if far != 0 || gpu.differing(cpu) * 50 >= cpu.count() {
        panic!(
            "{what}: the members are not where the CPU poses them: {}",
            save_actual(image, "crowd").display()
        );
    }
}

/// Down a long street, members near and far: each view's passes choose
/// each member's level of detail as md2-wgpu's own choice does (the
/// immediate path's `LevelChoice::for_view`, from the same camera and
/// viewport), counted where the draw arguments come back from the GPU.
#[test]
fn each_member_is_drawn_at_md2_wgpus_level() {
    use md2_wgpu::contract::MAX_LEVELS;

    use crate::levels::Street;

    if !gpu_or_skip("crowd levels") {
        return;
    }
    let mut h = Harness::new(bright_on_black);
    let street = Street::new(&mut h);
    let Street {
        model,
        asset,
        size,
        target,
        clip_from_world,
        md2_camera,
        ..
    } = &street;
    let (size, clip_from_world) = (*size, *clip_from_world);
    let choice = street.choice();
    let pixels = 1.0;
    // Members down the street, each kept only where its level is not
    // within a hair of a switch (where the GPU's rounding may pick the
    // other side).
    let mut crowd = Md2Crowd::new(model.clone(), asset);
    let mut expected = [0u64; MAX_LEVELS];
    for i in 0..400 {
        let place =
            Transform::from_xyz(((i % 7) as f32 - 3.0) * 12.0, 0.0, -100.0 - i as f32 * 9.0)
                .with_rotation(Quat::from_rotation_y(i as f32 * 0.9));
        let transform = member_transform(&place);
        let level = choice.for_view(md2_camera, pixels, transform);
        let near_a_switch = [0.99, 1.01]
            .iter()
            .any(|k| choice.for_view(md2_camera, pixels * k, transform) != level);
        if near_a_switch {
            continue;
        }
        expected[level] += 1;
        let clock = ClipClock::new(Quake2Player::Run.clip(), -0.1 * i as f64);
        crowd
            .members_mut()
            .add(CrowdMember::new(transform, clock))
            .expect("a member");
    }
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 3,
        "the street shows three levels or more: {expected:?}"
    );
    h.app.world_mut().spawn(crowd);
    // The counts come back a frame or two after the passes ran.
    for _ in 0..4 {
        h.update();
    }
    let stats = h.app.sub_app(RenderApp).world().resource::<Md2CrowdStats>();
    eprintln!(
        "crowd levels: expected {expected:?}, drawn {:?}",
        stats.visible_per_level
    );
    assert_eq!(stats.visible_per_level, expected, "{stats:?}");
    // And the main world sees the same, for an app's own display.
    let shared = h.app.world().resource::<md2_bevy::Md2CrowdLevels>().get();
    assert_eq!(shared, expected);

    // The level tint: each member painted in its level's colour, as the
    // CPU chose the level, pixel for pixel where both silhouettes are (far
    // members are a few pixels, most of them edge: at least 80% of each
    // level's pixels, a coarse level's silhouette straying up to a pixel
    // from the CPU's full detail). The street's near members hide its far
    // ones, so the members stand in a fan instead: each level's in a
    // column of the picture of its own, half way into the distances it is
    // chosen at. A dimmer light than `bright_on_black`'s, so that no
    // channel a level's colour lacks is lit past half of the one it has.
    h.app.insert_resource(bevy::light::GlobalAmbientLight {
        brightness: 1_000.0,
        ..default()
    });
    let at = |distance: f32, across: f32| {
        let place = Transform::from_xyz(across * distance, 0.0, 60.0 - distance)
            .with_rotation(Quat::from_rotation_y(1.2));
        member_transform(&place)
    };
    let mut bands: Vec<(f32, f32)> = vec![(f32::MAX, 0.0); MAX_LEVELS];
    let mut distance = 40.0f32;
    while distance < 8000.0 {
        let level = choice.for_view(md2_camera, pixels, at(distance, 0.0));
        let band = &mut bands[level];
        *band = (band.0.min(distance), band.1.max(distance));
        distance *= 1.01;
    }
    let crowd = {
        let mut query = h.app.world_mut().query::<&mut Md2Crowd>();
        let mut crowd = query.single_mut(h.app.world_mut()).expect("one crowd");
        crowd.set_level_tint(true);
        let members = crowd.members_mut();
        members.clear();
        for (level, &(near, far)) in bands.iter().enumerate() {
            if near > far {
                continue;
            }
            let across = -0.24 + 0.12 * level as f32;
            let clock = ClipClock::new(Quake2Player::Stand.clip(), 0.0);
            members
                .add(CrowdMember::new(at((near * far).sqrt(), across), clock))
                .expect("a member");
        }
        let crowd = query.single(h.app.world()).expect("one crowd");
        crowd.members().iter().map(|(_, m)| m).collect::<Vec<_>>()
    };
    let image = h.capture(target);
    let now = h.app.world().resource::<Time>().elapsed_secs_f64();
    let model = md2_wgpu::demo::demo_model();
    let mut posed = PosedModel {
        triangles: Vec::new(),
    };
    let mut level_of_triangle = Vec::new();
    for member in &crowd {
        let place = Mat4::from_cols_array(&member.transform.to_cols_array());
        let triangles = PosedModel::new(&model, &member.playback.pose(now), place).triangles;
        let level = choice.for_view(md2_camera, pixels, member.transform);
        level_of_triangle.extend(std::iter::repeat_n(level, triangles.len()));
        posed.triangles.extend(triangles);
    }
    let raster = rasterize(&posed, clip_from_world, size, size);
    let colour = crate::harness::pixels(&image);
    let painted = |i: usize| {
        let [r, g, b, _] = colour[i];
        let top = r.max(g).max(b);
        if top < 0.1 {
            return None;
        }
        let on = [r > top * 0.5, g > top * 0.5, b > top * 0.5];
        md2_bevy::LEVEL_COLOURS
            .iter()
            .position(|c| c.map(|v| v > 0.5) == on)
    };
    let mut compared = [0usize; MAX_LEVELS];
    let mut agreeing = [0usize; MAX_LEVELS];
    for y in 0..size as i64 {
        for x in 0..size as i64 {
            let i = (y as u32 * size + x as u32) as usize;
            let Some((triangle, _)) = raster.hits[i] else {
                continue;
            };
            if painted(i).is_none() {
                // Where the GPU's coarser silhouette leaves the CPU's.
                continue;
            }
            let level = level_of_triangle[triangle];
            compared[level] += 1;
            agreeing[level] += usize::from(painted(i) == Some(level));
        }
    }
    eprintln!(
        "crowd level tint: pixels per level compared {compared:?}, painted as chosen {agreeing:?}"
    );
    let levels_seen = compared.iter().filter(|&&n| n >= 20).count();
    assert!(
        levels_seen >= 3,
        "three levels or more fill pixels: {compared:?}"
    );
    for level in 0..MAX_LEVELS {
        if compared[level] >= 20 && agreeing[level] * 5 < compared[level] * 4 {
            panic!(
                "level {level}: {} of {} pixels in its colour: {}",
                agreeing[level],
                compared[level],
                save_actual(&image, "crowd-level-tint").display()
            );
        }
    }
}
