//! A resident crowd's translucent members and shells, in the camera's
//! transparent pass: two translucent members, one behind the other, blend
//! back to front whichever of them comes first in the crowd (md2-wgpu's
//! sorting passes order them), each blended by its tint's alpha; a shell wraps its
//! member in its colour at Quake II's alpha. One transparent item each for
//! the translucent members and the shells, one indirect draw each.

use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2Crowd, Md2CrowdStats, member_transform};
use md2_wgpu::scene::Effects;
use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};

use crate::draws::count_draws;
use crate::harness::{Harness, gpu_or_skip, pixels, save_actual};
use crate::reference::{Mask, PosedModel, lit_mask, rasterize};

const SIZE: u32 = 256;

/// An sRGB value as linear light.
fn linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The mean linear colour of `image` over `mask`.
fn mean(image: &Image, mask: &Mask) -> Vec3 {
    let colour = pixels(image);
    let (mut sum, mut n) = (Vec3::ZERO, 0);
    for (i, p) in colour.iter().enumerate() {
        if mask.bits[i] {
            sum += Vec3::new(linear(p[0]), linear(p[1]), linear(p[2]));
            n += 1;
        }
    }
    sum / n.max(1) as f32
}

#[test]
fn translucent_members_blend_back_to_front_and_shells_wrap_their_members() {
    if !gpu_or_skip("crowd translucent") {
        return;
    }
    // Dim enough that no channel clips: the blend is seen in linear light.
    let mut h = Harness::new(|app| {
        app.insert_resource(ClearColor(Color::BLACK))
            .insert_resource(bevy::light::GlobalAmbientLight {
                color: Color::WHITE,
                brightness: 600.0,
                ..default()
            });
    });
    let log = count_draws(&mut h.app);
    let model = h.load_demo();
    let asset = h.md2_asset(&model);
    let target = h.target(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb);
    let eye =
        Transform::from_xyz(0.0, 30.0, 160.0).looking_at(Vec3::new(-20.0, 20.0, 0.0), Vec3::Y);
    let camera = h.camera(
        &target,
        eye,
        Projection::Perspective(PerspectiveProjection {
            fov: 0.6,
            near: 1.0,
            ..default()
        }),
        (),
    );
    let near = Transform::from_xyz(0.0, 0.0, 30.0);
    let far = Transform::from_xyz(14.0, 0.0, -30.0);
    let stand = || ClipClock::new(Quake2Player::Stand.clip(), 0.0);
    let red = [1.0, 0.15, 0.15, 0.5];
    let blue = [0.15, 0.15, 1.0, 0.5];
    let mut crowd = Md2Crowd::new(model.clone(), &asset);
    // The near member first: in member order it would be drawn first and
    // the far one over it; only the sort puts the near one over the far
    // one here (and, swapped below, the other way round).
    let members = crowd.members_mut();
    let a = members
        .add(CrowdMember::new(member_transform(&near), stand()).with_tint(red))
        .expect("a member");
    let b = members
        .add(CrowdMember::new(member_transform(&far), stand()).with_tint(blue))
        .expect("a member");
    // An opaque member with a green shell, off to the side.
    let shelled = Transform::from_xyz(-55.0, 0.0, 0.0);
    members
        .add(
            CrowdMember::new(member_transform(&shelled), stand())
                .with_effects(Effects::NONE.with_shell([0.2, 1.0, 0.2])),
        )
        .expect("a member");
    let entity = h.app.world_mut().spawn(crowd).id();
    for _ in 0..3 {
        h.update();
    }
    let clip_from_world = h.clip_from_world(camera);
    let demo = md2_wgpu::demo::demo_model();
    let silhouette = |place: &Transform| {
        let pose = md2_wgpu::anim::Playback::from(stand()).pose(0.0);
        let posed = PosedModel::new(&demo, &pose, place.to_matrix());
        rasterize(&posed, clip_from_world, SIZE, SIZE).mask
    };
    let (near_mask, far_mask) = (silhouette(&near), silhouette(&far));
    let both = Mask::from_fn(SIZE, SIZE, |x, y| {
        near_mask.get(x.into(), y.into()) && far_mask.get(x.into(), y.into())
    });
    let near_only = Mask::from_fn(SIZE, SIZE, |x, y| {
        near_mask.get(x.into(), y.into()) && !far_mask.get(x.into(), y.into())
    });
    assert!(both.count() > 300, "the two overlap: {}", both.count());
    assert!(
        near_only.count() > 300,
        "the near one shows alone: {}",
        near_only.count()
    );

    // Near red over far blue: red leads where they overlap.
    let image = h.capture(&target);
    let overlap = mean(&image, &both);
    let alone = mean(&image, &near_only);
    eprintln!("translucent, red near: overlap {overlap:?}, red alone {alone:?}");
    if overlap.x <= overlap.z * 1.3 {
        panic!(
            "the near (red) member is not over the far (blue) one: {overlap:?}: {}",
            save_actual(&image, "crowd-translucent-red-near").display()
        );
    }
    // Items: the opaque member in the opaque pass; the translucent members
    // and the shell one transparent item each; an indirect draw each.
    log.take();
    h.update();
    let items = log.take();
    let count = |phase: &str| items.iter().filter(|i| i.phase == phase).count();
    let stats = h.app.sub_app(RenderApp).world().resource::<Md2CrowdStats>();
    let draws = stats
        .indirect_draws
        .load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "translucent: items Opaque3d {}, Transparent3d {}, {draws} indirect draws",
        count("Opaque3d"),
        count("Transparent3d")
    );
    assert_eq!(
        (count("Opaque3d"), count("Transparent3d")),
        (1, 2),
        "{items:?}"
    );
    assert_eq!(draws, 3, "{stats:?}");

    // Opaque, the red member alone is brighter: over black, each of the
    // member's layers a pixel sees through (its front, and its back: no
    // face is culled, as md2-wgpu draws translucent members) adds half of
    // what is left, so a translucent member gives between half (one layer)
    // and all (many) of its opaque colour; a closed body shows two at
    // least: 3/4.
    h.crowd(entity)
        .members_mut()
        .member(a)
        .set_tint([red[0], red[1], red[2], 1.0])
        .expect("a member");
    let opaque = mean(&h.capture(&target), &near_only);
    let ratio = alone.x / opaque.x;
    eprintln!("translucent: red alone {alone:?}, opaque {opaque:?}, ratio {ratio:.3}");
    assert!(
        (0.5..=0.95).contains(&ratio),
        "alpha 0.5 over black: between half and all of the colour: {ratio}"
    );

    // Swapped: the blue member near, the red one far (and translucent
    // again): blue leads where they overlap.
    {
        let mut crowd = h.crowd(entity);
        let members = crowd.members_mut();
        members.member(a).set_tint(red).expect("a member");
        members
            .member(a)
            .set_transform(member_transform(&far))
            .expect("a member");
        members
            .member(b)
            .set_transform(member_transform(&near))
            .expect("a member");
    }
    let image = h.capture(&target);
    let overlap = mean(&image, &both);
    eprintln!("translucent, blue near: overlap {overlap:?}");
    if overlap.z <= overlap.x * 1.3 {
        panic!(
            "the near (blue) member is not over the far (red) one: {overlap:?}: {}",
            save_actual(&image, "crowd-translucent-blue-near").display()
        );
    }

    // The shell: the member's silhouette grown all round, the rim green.
    let shell_mask = lit_mask(&image);
    let member_mask = silhouette(&shelled);
    let rim = Mask::from_fn(SIZE, SIZE, |x, y| {
        shell_mask.get(x.into(), y.into()) && !member_mask.get(x.into(), y.into()) && x < SIZE / 2
    });
    let rim_colour = mean(&image, &rim);
    eprintln!(
        "shell: {} rim pixels around {} of the member, rim colour {rim_colour:?}",
        rim.count(),
        member_mask.count()
    );
    assert!(rim.count() > 150, "the shell stands out of its member");
    if !(rim_colour.y > rim_colour.x * 2.0 && rim_colour.y > rim_colour.z * 2.0) {
        panic!(
            "the shell's rim is not its green: {rim_colour:?}: {}",
            save_actual(&image, "crowd-shell").display()
        );
    }
}
