//! Quake III players as assets: a player loads from its `animation.cfg`
//! through Bevy's reader with its skin set's textures (a `.jpg` name
//! found as `.tga`, a game path from the source's root) and a weapon; its
//! parts ride their tags as Bevy child transforms, where md2-wgpu's CPU
//! places them (`Md3Player::parts_at`), for players whose legs and torsos
//! play different clips; what an app parents to a tag follows it; the
//! parts draw where the CPU reference puts them, each surface in one draw
//! per pass for every player; hostile files fail with md2-wgpu's typed
//! errors. The shared OpenArena players load with every surface's
//! texture found (skipped, saying why, where `../shared/md3` is absent).

use bevy::asset::{AssetLoadError, LoadState};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{
    Md2Animator, Md2LoadError, Md3Asset, Md3Children, Md3PlayerAsset, Md3PlayerEntity,
    Md3PlayerParts, Md3PlayerSettings,
};
use md2_wgpu::anim::Pose;
use md2_wgpu::format::md3::{Md3Error, Md3PlayerError, PlayerAnimation, PlayerPart};

use crate::draws::count_draws;
use crate::harness::{Harness, bright_on_black, gpu_or_skip, save_actual};
use crate::reference::{PosedModel, compare, lit_mask, rasterize};

/// A picture as a file of `format` (TGA or PNG).
fn picture(rgba: [u8; 4], format: md2_wgpu::image::ImageFormat) -> Vec<u8> {
    let image = md2_wgpu::image::RgbaImage::from_pixel(4, 4, md2_wgpu::image::Rgba(rgba));
    let mut bytes = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut bytes), format)
        .expect("the picture encodes");
    bytes
}

/// md2-wgpu's tiny player in `memory://models/players/tiny/`, with
/// textures for its legs (`legs.tga`, as its skin names it), its torso
/// (named without an extension: `torso.tga`) and its head (named
/// `head.jpg`, there as `head.tga`), and the tiny model as a weapon in
/// `models/weapons/tiny/` whose `body` wears `models/tiny/body.tga` (a
/// game path, from the source's root) and whose `cap` wears nothing found.
fn add_tiny_player(h: &Harness) {
    let tga = md2_wgpu::image::ImageFormat::Tga;
    for (name, bytes) in md2_wgpu::support::tiny_player_files() {
        h.add_file(&format!("models/players/tiny/{name}"), bytes);
    }
    h.add_file(
        "models/players/tiny/legs.tga",
        picture([200, 60, 60, 255], tga),
    );
    h.add_file(
        "models/players/tiny/torso.tga",
        picture([60, 200, 60, 255], tga),
    );
    h.add_file(
        "models/players/tiny/head.tga",
        picture([60, 60, 200, 255], tga),
    );
    h.add_file("models/tiny/body.tga", picture([200, 200, 60, 255], tga));
    h.add_file(
        "models/weapons/tiny/tiny.md3",
        md2_wgpu::support::tiny_md3().to_bytes(),
    );
}

/// Loads `memory://{path}` as a player with `settings`.
fn load_player(h: &Harness, path: &str, settings: Md3PlayerSettings) -> Handle<Md3PlayerAsset> {
    h.asset_server()
        .load_builder()
        .with_settings(move |s: &mut Md3PlayerSettings| *s = settings.clone())
        .load(format!("memory://{path}"))
}

/// [`load_player`], waited for: the handle and the asset.
fn loaded_player(
    h: &mut Harness,
    path: &str,
    settings: Md3PlayerSettings,
) -> (Handle<Md3PlayerAsset>, Md3PlayerAsset) {
    let handle = load_player(h, path, settings);
    h.wait_loaded(&handle);
    let asset = h.app.world().resource::<Assets<Md3PlayerAsset>>();
    let asset = asset.get(&handle).expect("loaded").clone();
    (handle, asset)
}

/// Quake's axes in Bevy's Y-up space, as a matrix of md2-wgpu's.
fn in_y_up(m: md2_wgpu::glam::Mat4) -> Mat4 {
    let p = Mat4::from_cols(Vec4::Z, Vec4::X, Vec4::Y, Vec4::W);
    p * Mat4::from_cols_array(&m.to_cols_array()) * p.transpose()
}

/// How far a tag's axes are from perpendicular: the largest element of
/// `AᵀA − I`, which bounds how far the nearest rotation is from them.
fn skew(m: md2_wgpu::glam::Mat4) -> f32 {
    let a = Mat3::from_mat4(Mat4::from_cols_array(&m.to_cols_array()));
    let g = a.transpose() * a - Mat3::IDENTITY;
    g.to_cols_array()
        .iter()
        .fold(0.0f32, |acc, x| acc.max(x.abs()))
}

/// The largest element of `a − b`.
fn largest_difference(a: Mat4, b: Mat4) -> f32 {
    (a - b)
        .to_cols_array()
        .iter()
        .fold(0.0f32, |acc, x| acc.max(x.abs()))
}

/// A player's legs and torso, each on its own clip, speed and phase.
fn players() -> Vec<(Transform, PlayerAnimation, f64, PlayerAnimation, f64)> {
    vec![
        (
            Transform::from_xyz(0.0, 0.0, 0.0),
            PlayerAnimation::LegsRun,
            0.03,
            PlayerAnimation::TorsoAttack,
            0.14,
        ),
        (
            Transform::from_xyz(30.0, 2.0, -5.0).with_rotation(Quat::from_rotation_y(0.7)),
            PlayerAnimation::LegsWalk,
            0.16,
            PlayerAnimation::TorsoGesture,
            0.05,
        ),
        (
            Transform::from_xyz(-28.0, -1.0, 6.0)
                .with_rotation(Quat::from_rotation_y(-1.9))
                .with_scale(Vec3::splat(1.3)),
            PlayerAnimation::LegsIdle,
            0.11,
            PlayerAnimation::TorsoStand,
            0.18,
        ),
    ]
}

#[test]
fn a_player_rides_its_tags_and_draws_where_the_cpu_places_it() {
    if !gpu_or_skip("quake3, a player") {
        return;
    }
    let mut h = Harness::new(bright_on_black);
    let log = count_draws(&mut h.app);
    add_tiny_player(&h);
    let (handle, asset) = loaded_player(
        &mut h,
        "models/players/tiny/animation.cfg",
        Md3PlayerSettings {
            skin: "default".into(),
            weapon: Some("models/weapons/tiny/tiny.md3".into()),
        },
    );

    // Every surface found its texture where Quake III would, but the
    // weapon's cap, which names one that is not there.
    let found = |model: &Handle<Md3Asset>| -> Vec<(String, Option<String>)> {
        let models = h.app.world().resource::<Assets<Md3Asset>>();
        let model = models.get(model).expect("a part is loaded with its player");
        model
            .surfaces()
            .iter()
            .map(|s| {
                let file = s.texture.as_ref().map(|f| f.display().to_string());
                (s.name.clone(), file)
            })
            .collect()
    };
    let file = |f: &str| Some(f.to_owned());
    assert_eq!(
        found(asset.part(PlayerPart::Lower)),
        [("l_legs".into(), file("models/players/tiny/legs.tga"))]
    );
    assert_eq!(
        found(asset.part(PlayerPart::Upper)),
        [("u_torso".into(), file("models/players/tiny/torso.tga"))]
    );
    assert_eq!(
        found(asset.part(PlayerPart::Head)),
        [("h_head_1".into(), file("models/players/tiny/head.tga"))],
        "head.jpg is found as head.tga"
    );
    assert_eq!(
        found(asset.weapon().expect("a weapon")),
        [
            ("body".into(), file("models/tiny/body.tga")),
            ("cap_1".into(), None)
        ]
    );

    let size = 256;
    let target = h.target(size, size, TextureFormat::Rgba8UnormSrgb);
    // From below and aside: the tiny parts face down.
    let eye = Transform::from_xyz(10.0, -30.0, 60.0).looking_at(Vec3::new(0.0, 8.0, 0.0), Vec3::Y);
    let camera = h.camera(
        &target,
        eye,
        Projection::Perspective(PerspectiveProjection {
            fov: 0.9,
            ..default()
        }),
        (),
    );
    let mut spawned = Vec::new();
    for (place, legs, legs_phase, torso, torso_phase) in players() {
        let mut player = Md3PlayerEntity::new(handle.clone());
        player.legs = player.legs.with_speed(0.8).with_phase(legs_phase);
        player.torso = player.torso.with_speed(1.3).with_phase(torso_phase);
        let entity = h
            .app
            .world_mut()
            .spawn((player.playing(legs, torso), place))
            .id();
        spawned.push(entity);
    }
    for _ in 0..3 {
        h.update();
    }
    let parts = |h: &Harness, e: Entity| -> Md3PlayerParts {
        h.app
            .world()
            .get::<Md3PlayerParts>(e)
            .expect("the player's parts are spawned")
            .clone()
    };
    let first = parts(&h, spawned[0]);
    let torso_tags = h
        .app
        .world()
        .get::<Md3Children>(first.part(PlayerPart::Upper))
        .expect("the torso's tags")
        .clone();
    let hand = torso_tags.tag("tag_weapon").expect("a tag_weapon entity");
    // Something an app hangs in the first player's hand.
    let rider = h
        .app
        .world_mut()
        .spawn((Transform::from_xyz(0.0, 0.0, 1.0), ChildOf(hand)))
        .id();
    for _ in 0..2 {
        h.update();
    }

    // Where each part is, against md2-wgpu's CPU placement.
    let mut everything = PosedModel {
        triangles: Vec::new(),
    };
    let mut worst = 0.0f32;
    for (entity, (place, ..)) in spawned.iter().zip(players()) {
        let (ratio, triangles) = placed_as_the_cpu_places(&h, &asset, *entity, place);
        worst = worst.max(ratio);
        everything.triangles.extend(triangles);
    }
    eprintln!(
        "quake3: every part within {:.1}% of its bound",
        worst * 100.0
    );
    let hand_at = h.app.world().get::<GlobalTransform>(hand).expect("placed");
    let rider_at = h.app.world().get::<GlobalTransform>(rider).expect("placed");
    let expected = hand_at.transform_point(Vec3::new(0.0, 0.0, 1.0));
    assert!(
        rider_at.translation().distance(expected) < 1e-4,
        "what an app parents to a tag rides it"
    );
    let weapon_at = h
        .app
        .world()
        .get::<GlobalTransform>(first.weapon().expect("a weapon"))
        .expect("placed");
    assert!(
        weapon_at.translation().distance(hand_at.translation()) < 1e-4,
        "the weapon is in the hand"
    );

    // The picture: every part where the CPU reference puts it, each
    // surface in one draw for the three players.
    log.take();
    let image = h.capture(&target);
    let clip_from_world = h.clip_from_world(camera);
    let cpu = rasterize(&everything, clip_from_world, size, size).mask;
    let gpu = lit_mask(&image);
    let far = compare("quake3: three players with weapons", &gpu, &cpu);
    assert!(cpu.count() > 1000, "the players fill the view");
    if far != 0 || gpu.differing(&cpu) * 50 >= cpu.count() {
        panic!(
            "the players' parts are not where the CPU places them: {}",
            save_actual(&image, "quake3-players").display()
        );
    }
    let drawn: Vec<_> = log
        .take()
        .into_iter()
        .filter(|i| i.phase == "Opaque3d")
        .collect();
    // Legs, torso, head, and the weapon's two surfaces: in each frame
    // drawn until the screenshot came, one draw each, of the three
    // players.
    let surfaces = 5;
    let ranges: std::collections::BTreeSet<_> = drawn
        .iter()
        .map(|i| (i.instances.start, i.instances.end))
        .collect();
    assert!(
        !drawn.is_empty()
            && drawn.len() % surfaces == 0
            && ranges.len() == surfaces
            && drawn.iter().all(|i| i.draws == 1 && i.instances.len() == 3),
        "one draw per surface holding the three players, per frame: {drawn:?}"
    );

    // A change of clip reaches the part, and its tags follow.
    let now = 0.0;
    let clip = asset.clip(PlayerAnimation::LegsJump).expect("a jump");
    h.app
        .world_mut()
        .get_mut::<Md3PlayerEntity>(spawned[0])
        .expect("a player")
        .legs
        .play(clip.clone(), now);
    h.update();
    let legs = h
        .app
        .world()
        .get::<Md2Animator>(first.part(PlayerPart::Lower))
        .expect("the legs' animator");
    assert_eq!(legs.clip(), &clip);
    for surface in h
        .app
        .world()
        .get::<Md3Children>(first.part(PlayerPart::Lower))
        .expect("the legs' surfaces")
        .surfaces()
    {
        let own = h.app.world().get::<Md2Animator>(*surface).expect("posed");
        assert_eq!(own.clip(), &clip, "a surface plays what its part plays");
    }
}

/// Holds each part of the player `entity` (of `asset`, placed by `place`)
/// to where md2-wgpu's CPU places it ([`Md3Player::parts_at`] at the
/// legs' and torso's poses now), and gives the worst part's difference as
/// a fraction of its bound, and every surface's triangles posed there.
///
/// The bound, on the largest element of the two matrices' difference:
/// f32 rounding (1e-5 of the reach, a chain of three products of a few
/// ulps each), plus, for each tag on the part's chain, how far its lerped
/// axes are from perpendicular (the largest element of `AᵀA − I`), which
/// bounds how far the nearest rotation a Bevy transform holds is from
/// them, times the reach (a player stands in Quake III's 64-unit box, so
/// no tag origin or rotated point is further than 64 units, scaled).
///
/// [`Md3Player::parts_at`]: md2_wgpu::format::md3::Md3Player::parts_at
fn placed_as_the_cpu_places(
    h: &Harness,
    asset: &Md3PlayerAsset,
    entity: Entity,
    place: Transform,
) -> (f32, Vec<[Vec3; 3]>) {
    let world = h.app.world();
    let player = asset.player();
    let player_entity = world.get::<Md3PlayerEntity>(entity).expect("a player");
    let (legs, torso): (Pose, Pose) = (player_entity.legs.pose(0.0), player_entity.torso.pose(0.0));
    assert_ne!(
        player_entity.legs.clip().name,
        player_entity.torso.clip().name,
        "legs and torso play their own clips"
    );
    let at = player.parts_at(legs, torso).expect("the player's tags");
    let spawned = world
        .get::<Md3PlayerParts>(entity)
        .expect("the player's parts are spawned");
    let still = Pose::from(md2_wgpu::anim::FrameLerp::still(0));
    let (upper, head, weapon) = (skew(at.upper), skew(at.head), skew(at.weapon));
    let mut pieces = vec![
        (
            spawned.part(PlayerPart::Lower),
            at.lower,
            legs,
            player.part(PlayerPart::Lower),
            0.0,
        ),
        (
            spawned.part(PlayerPart::Upper),
            at.upper,
            torso,
            player.part(PlayerPart::Upper),
            upper,
        ),
        (
            spawned.part(PlayerPart::Head),
            at.head,
            still,
            player.part(PlayerPart::Head),
            upper + head,
        ),
    ];
    if let (Some(entity), Some(model)) = (spawned.weapon(), player.weapon()) {
        pieces.push((entity, at.weapon, still, model, upper + weapon));
    }
    let mut worst = 0.0f32;
    let mut triangles = Vec::new();
    for (part, matrix, pose, model, skewed) in pieces {
        let expected = place.to_matrix() * in_y_up(matrix);
        let actual = world
            .get::<GlobalTransform>(part)
            .expect("a part is placed")
            .to_matrix();
        let reach = 64.0 * place.scale.max_element();
        let bound = reach * (1e-5 + skewed);
        let off = largest_difference(expected, actual);
        worst = worst.max(off / bound);
        assert!(
            off <= bound,
            "a part is {off} from where the CPU places it (bound {bound})"
        );
        for surface in model.surface_models().expect("the surfaces") {
            triangles.extend(PosedModel::of(&surface, &pose, expected).triangles);
        }
    }
    (worst, triangles)
}

#[test]
fn hostile_players_and_models_fail_with_typed_errors() {
    if !gpu_or_skip("quake3, hostile") {
        return;
    }
    let mut h = Harness::new(|_| {});
    add_tiny_player(&h);
    let mut short = md2_wgpu::support::tiny_md3().to_bytes();
    short.truncate(100);
    h.add_file("models/broken/short.md3", short);
    // A player without its head.
    for (name, bytes) in md2_wgpu::support::tiny_player_files() {
        if name != "head.md3" {
            h.add_file(&format!("models/players/headless/{name}"), bytes);
        }
    }
    let server = h.asset_server();
    let model: Handle<Md3Asset> = server.load("memory://models/broken/short.md3");
    let headless = load_player(
        &h,
        "models/players/headless/animation.cfg",
        Md3PlayerSettings::default(),
    );
    let unarmed = load_player(
        &h,
        "models/players/tiny/animation.cfg",
        Md3PlayerSettings {
            skin: "default".into(),
            weapon: Some("models/weapons/none.md3".into()),
        },
    );
    type Wanted = fn(&Md2LoadError) -> bool;
    let failures: [(bevy::asset::UntypedAssetId, Wanted); 3] = [
        (model.id().untyped(), |e| {
            matches!(e, Md2LoadError::Md3(Md3Error::TruncatedHeader { .. }))
        }),
        (headless.id().untyped(), |e| {
            matches!(e, Md2LoadError::Player(Md3PlayerError::Missing { file })
                if file.ends_with("head.md3"))
        }),
        (
            unarmed.id().untyped(),
            |e| matches!(e, Md2LoadError::Weapon { path, .. } if path.ends_with("none.md3")),
        ),
    ];
    for (id, wanted) in failures {
        let mut failed = None;
        for _ in 0..200 {
            if let Some(LoadState::Failed(error)) = h.asset_server().get_load_state(id) {
                failed = Some(error);
                break;
            }
            h.update();
        }
        let error = failed.expect("the load fails");
        let AssetLoadError::AssetLoaderError(loader) = &*error else {
            panic!("failed, but not in the loader: {error}");
        };
        let typed = loader
            .error()
            .downcast_ref::<Md2LoadError>()
            .unwrap_or_else(|| panic!("not md2-bevy's typed error: {error}"));
        eprintln!("quake3: {typed}");
        assert!(wanted(typed), "not the error wanted: {typed:?}");
    }
}

#[test]
fn the_shared_players_load_with_every_surfaces_texture() {
    if !gpu_or_skip("quake3, the shared players") {
        return;
    }
    let dir = md2_wgpu::support::shared_models_dir().join("../md3");
    if !dir.join("major").is_dir() {
        eprintln!(
            "SKIPPED the shared players: {} is absent (set MD2_SHARED_MODELS beside it)",
            dir.display()
        );
        return;
    }
    let mut h = Harness::new(|_| {});
    for name in ["major", "penguin"] {
        for entry in std::fs::read_dir(dir.join(name)).expect("the player's folder") {
            let path = entry.expect("an entry").path();
            let file = path
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            h.add_file(
                &format!("models/players/{name}/{file}"),
                std::fs::read(&path).expect("readable"),
            );
        }
    }
    for name in ["major", "penguin"] {
        let (handle, asset) = loaded_player(
            &mut h,
            &format!("models/players/{name}/animation.cfg"),
            Md3PlayerSettings::default(),
        );
        let models = h.app.world().resource::<Assets<Md3Asset>>();
        let mut surfaces = 0;
        for part in PlayerPart::ALL {
            let model = models.get(asset.part(part)).expect("a part");
            for surface in model.surfaces() {
                let file = surface
                    .texture
                    .as_ref()
                    .unwrap_or_else(|| panic!("{name}: {} wears no texture", surface.name));
                eprintln!("quake3: {name} {}: {}", surface.name, file.display());
                surfaces += 1;
            }
        }
        assert!(surfaces >= 3, "{name}: every part draws");

        // Legs and torso between frames, on different clips: the lerped
        // tags are skewed here, as the tiny player's are not.
        let mut player = Md3PlayerEntity::new(handle.clone());
        player.legs = player.legs.with_speed(0.7).with_phase(0.37);
        player.torso = player.torso.with_speed(1.1).with_phase(0.23);
        let place = Transform::from_xyz(5.0, 1.0, -2.0).with_rotation(Quat::from_rotation_y(2.2));
        let entity = h
            .app
            .world_mut()
            .spawn((
                player.playing(PlayerAnimation::LegsWalk, PlayerAnimation::TorsoAttack),
                place,
            ))
            .id();
        for _ in 0..3 {
            h.update();
        }
        let (worst, _) = placed_as_the_cpu_places(&h, &asset, entity, place);
        eprintln!(
            "quake3: {name}'s parts within {:.1}% of their bound",
            worst * 100.0
        );
    }
}
