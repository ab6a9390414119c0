//! Quake III's MD3 on the GPU: each surface a model of 8-byte words
//! (`FrameWord::Wide8`), unpacked and decoded by the pose as the CPU
//! reference decodes it, and a player's parts drawn at their tags with
//! their skins by the crate's unchanged paths.

use glam::{Mat4, Vec3};
use md2_wgpu::anim::{FrameLerp, Pose};
use md2_wgpu::format::md3::{
    Md3Model, Md3Parts, Md3Player, Md3Shader, Md3SurfaceParts, Md3Vertex, PlayerAnimation,
    PlayerPart, PlayerTransforms,
};
use md2_wgpu::gpu::{GpuPlayer, PlacedPlayers, PlayerInstance, PlayerPiece};
use md2_wgpu::model::{FrameWord, KeyframeModel};
use md2_wgpu::scene::QUAKE_TO_Y_UP;
use md2_wgpu::{Camera, GpuModel, Light, Md2Instance, Md2RendererOptions};

use super::capture::{compare, setup};
use crate::common::*;

/// One surface over three frames whose vertices reach every edge of the
/// word: the 16-bit extremes (sign extension on the GPU), −1 and 1, and
/// normals at every corner of both angle bytes.
fn edge_md3() -> Md3Model {
    let coords: [[i16; 3]; 4] = [
        [i16::MIN, i16::MAX, -1],
        [1, -1, 0],
        [i16::MAX, i16::MIN, 256],
        [-640, 0, 640],
    ];
    let normals: [[u16; 4]; 3] = [
        [0x0000, 0xffff, 0x00ff, 0xff00],
        [0x8080, 0x4040, 0x7f81, 0x0180],
        [0x1234, 0xfedc, 0x80ff, 0x0001],
    ];
    let vertices = normals
        .iter()
        .enumerate()
        .flat_map(|(frame, n)| {
            coords.iter().zip(n).map(move |(&xyz, &normal)| Md3Vertex {
                xyz: xyz.map(|c| c.saturating_add(frame as i16 * 3)),
                normal,
            })
        })
        .collect();
    Md3Model::from_parts(Md3Parts {
        name: "edges".into(),
        frame_names: vec!["e1".into(), "e2".into(), "e3".into()],
        tags: vec![],
        flags: 0,
        surfaces: vec![Md3SurfaceParts {
            name: "edges".into(),
            flags: 0,
            shaders: vec![Md3Shader::new("edges.tga")],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
            tex_coords: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [-3.5, 7.25]],
            vertices,
        }],
    })
    .unwrap()
}

#[test]
fn gpu_decodes_md3_surfaces_as_the_cpu_reference_does() {
    let Some(gpu) = gpu() else { return };
    let (capture, renderer) = setup(&gpu);
    let mut models: Vec<(String, KeyframeModel)> = Vec::new();
    for (name, md3) in [("edges", edge_md3()), ("tiny", tiny_md3())] {
        for (i, surface) in md3.surface_models().unwrap().into_iter().enumerate() {
            models.push((format!("{name} surface {i}"), surface));
        }
    }
    if let Some(dir) = shared_md3_dir() {
        for player in ["major", "penguin"] {
            for part in ["lower", "upper", "head"] {
                let file = dir.join(player).join(format!("{part}.md3"));
                let md3 = Md3Model::open(&file).unwrap();
                for (i, surface) in md3.surface_models().unwrap().into_iter().enumerate() {
                    models.push((format!("{player}/{part}.md3 surface {i}"), surface));
                }
            }
        }
    }
    for (name, model) in &models {
        assert_eq!(model.frame_word(), FrameWord::Wide8);
        compare(&gpu, &capture, &renderer, name, model);
    }
    eprintln!("{} MD3 surfaces compared", models.len());
}

/// Every texture `player`'s skins name, found in `dir` as Quake III finds
/// it (`.tga` for a `.jpg` name), by the key the player gives each
/// surface.
fn player_textures(player: &Md3Player, dir: &std::path::Path) -> Vec<(String, image::RgbaImage)> {
    let mut found = Vec::new();
    for part in PlayerPart::ALL {
        for (texture, key) in player.textures(part).iter().zip(player.texture_keys(part)) {
            let image = texture_in(dir, texture)
                .unwrap_or_else(|| panic!("{}'s texture is in {}", texture.surface, dir.display()));
            found.push((key, image));
        }
    }
    found
}

/// A part's Quake-axes transform as an instance transform: the renderer
/// turns model space to Y-up before the instance's transform.
pub(crate) fn in_y_up(part: Mat4) -> Mat4 {
    QUAKE_TO_Y_UP * part * QUAKE_TO_Y_UP.inverse()
}

/// Where `piece` sits in a player placed at `at` (its Quake-axes
/// matrix), and the pose it shows for the legs at `legs` and the torso at
/// `torso`: the head and the weapon show their first frame.
pub(crate) fn piece_at(
    piece: PlayerPiece,
    at: &PlayerTransforms,
    legs: Pose,
    torso: Pose,
) -> (Mat4, Pose) {
    let still = FrameLerp::still(0).into();
    match piece {
        PlayerPiece::Part(PlayerPart::Lower) => (at.lower, legs),
        PlayerPiece::Part(PlayerPart::Upper) => (at.upper, torso),
        PlayerPiece::Part(PlayerPart::Head) => (at.head, still),
        PlayerPiece::Weapon => (at.weapon, still),
    }
}

/// The CPU reference's triangles of every piece of `player` (its weapon
/// too, where it holds one) for the legs at `legs` and the torso at
/// `torso`, each piece at its tag, the player at `transform`.
pub(crate) fn player_triangles(
    player: &Md3Player,
    legs: Pose,
    torso: Pose,
    transform: Mat4,
) -> Vec<[(Vec3, Vec3); 3]> {
    let at = player.parts_at(legs, torso).unwrap();
    let parts = PlayerPart::ALL.map(|part| (PlayerPiece::Part(part), player.part(part)));
    let weapon = player.weapon().map(|w| (PlayerPiece::Weapon, w));
    let mut triangles = Vec::new();
    for (piece, model) in parts.into_iter().chain(weapon) {
        let (matrix, pose) = piece_at(piece, &at, legs, torso);
        for surface in model.surface_models().unwrap() {
            triangles.extend(cpu_triangles(&surface, &pose, transform * in_y_up(matrix)));
        }
    }
    triangles
}

#[test]
fn the_shared_players_draw_at_their_tags_with_their_skins() {
    let Some(gpu) = gpu() else { return };
    let Some(dir) = shared_md3_dir() else { return };
    const SIZE: u32 = 160;
    let mut renderer = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    let mut camera = square_camera(
        Vec3::new(30.0, 12.0, 95.0),
        Vec3::new(0.0, 2.0, 0.0),
        0.75,
        1.0,
        400.0,
    );
    camera.light = Light::ambient_only(1.0);
    for name in ["major", "penguin"] {
        let player_dir = dir.join(name);
        let player = Md3Player::open(&player_dir, "default").unwrap();
        let textures = player_textures(&player, &player_dir);
        let gpu_player =
            GpuPlayer::new(&gpu.device, &gpu.queue, &renderer, &player, &textures).unwrap();
        let cfg = player.animations();
        let instance = PlayerInstance {
            transform: Mat4::IDENTITY,
            legs: FrameLerp::still(cfg.clip(PlayerAnimation::LegsIdle).unwrap().first).into(),
            torso: FrameLerp::still(cfg.clip(PlayerAnimation::TorsoStand).unwrap().first).into(),
        };
        let mut placed = PlacedPlayers::new();
        gpu_player.place(&instance, &mut placed).unwrap();
        let batches = gpu_player.batches(&placed);
        assert_eq!(batches.len(), gpu_player.surface_count());
        // A picture several surfaces wear (the penguin's skin.tga) is
        // uploaded once: as many skin textures as distinct pictures.
        let mut pictures: Vec<&str> = textures.iter().map(|(k, _)| k.as_str()).collect();
        pictures.sort_unstable();
        pictures.dedup();
        let skin_bytes: Vec<u64> = (0..gpu_player.surface_count())
            .map(|s| gpu_player.surface(s).unwrap().2.gpu_bytes_breakdown().skins)
            .collect();
        eprintln!("{name}: skin bytes per surface {skin_bytes:?}");
        assert_eq!(
            skin_bytes.iter().filter(|&&b| b > 0).count(),
            pictures.len(),
            "{name}: {pictures:?}"
        );
        let picture = render_square(&gpu, &mut renderer, &camera, &batches, SIZE);
        save_picture(&picture, &format!("md3-{name}.png"));

        // Every pixel the CPU reference decides (covered by some part's
        // posed triangles, or by none, whatever a conforming rasteriser
        // does at the edges) is drawn or empty as it says.
        // The CPU's own tree: each part's surfaces posed by the reference
        // at the part's tag, as Md3Player::parts_at places it.
        let triangles = player_triangles(&player, instance.legs, instance.torso, Mat4::IDENTITY);
        let (decided, wrong) = coverage_against(&picture, &camera, &triangles);
        let drawn = coverage(&picture);
        eprintln!(
            "{name}: {} surfaces, {drawn} pixels drawn, {decided} decided, {wrong} disagree",
            gpu_player.surface_count()
        );
        assert!(drawn > 1500, "{name} draws: {drawn} pixels");
        assert!(decided > (SIZE * SIZE) as usize / 2);
        assert_eq!(
            wrong, 0,
            "{name}: pixels where the CPU reference says otherwise"
        );
        // Its skins are on it: more than a handful of colours, none of them
        // the renderer's fallback grey alone.
        let colours: std::collections::HashSet<[u8; 3]> = picture
            .pixels()
            .filter(|p| p.0[3] > 0)
            .map(|p| [p.0[0], p.0[1], p.0[2]])
            .collect();
        assert!(colours.len() > 50, "{name}: {} colours", colours.len());
    }
}

/// A camera at `eye` below the tiny models (whose flat parts face down:
/// Quake's winding shows their outsides from there) looking at `target`,
/// ambient light only.
pub(crate) fn from_below(eye: Vec3, target: Vec3) -> Camera {
    let mut camera = square_camera(eye, target, 0.9, 0.5, 200.0);
    camera.light = Light::ambient_only(1.0);
    camera
}

#[test]
fn a_pose_between_frames_moves_a_wide_model_as_the_reference_does() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    let model = tiny_md3().surface_model(0).unwrap().unwrap();
    let skin = solid_skin(2, 2, [90, 200, 120, 255]);
    let gpu_model = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &model, &[skin]).unwrap();
    let camera = from_below(Vec3::new(6.0, -8.0, 7.0), Vec3::new(2.0, 0.5, 2.0));
    let pose = Pose::from(FrameLerp {
        frame_a: 0,
        frame_b: 1,
        t: 0.5,
    });
    let instance = Md2Instance::new(Mat4::IDENTITY, pose);
    let picture = render_instances(&gpu, &mut renderer, &camera, &gpu_model, &[instance], 96);
    let triangles = cpu_triangles(&model, &pose, Mat4::IDENTITY);
    let (_, wrong) = coverage_against(&picture, &camera, &triangles);
    assert!(coverage(&picture) > 200);
    assert_eq!(wrong, 0);
}

#[test]
fn a_player_with_a_weapon_places_every_piece_at_its_tag_and_draws_it_there() {
    let Some(gpu) = gpu() else { return };
    let mut renderer = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    // The tiny player holding the tiny model (two surfaces) as its weapon,
    // with one picture for its legs and the checker elsewhere.
    let player = tiny_player().with_weapon(tiny_md3());
    let legs_picture = solid_skin(2, 2, [200, 60, 60, 255]);
    let key = player.texture_keys(PlayerPart::Lower)[0].clone();
    assert_eq!(key, "models/players/tiny/legs.tga");
    let gpu_player = GpuPlayer::new(
        &gpu.device,
        &gpu.queue,
        &renderer,
        &player,
        &[(key, legs_picture)],
    )
    .unwrap();
    // legs, torso, head, and the weapon's two surfaces.
    assert_eq!(gpu_player.surface_count(), 5);
    assert_eq!(gpu_player.surface(4).unwrap().0, PlayerPiece::Weapon);

    // Two players: one standing where its legs' first frame turns the
    // torso a quarter, one moved and halfway to the legs' second frame.
    let instances = [
        PlayerInstance {
            transform: Mat4::IDENTITY,
            legs: FrameLerp::still(0).into(),
            torso: FrameLerp::still(1).into(),
        },
        PlayerInstance {
            transform: Mat4::from_translation(Vec3::new(12.0, 0.0, -4.0)),
            legs: FrameLerp {
                frame_a: 0,
                frame_b: 1,
                t: 0.5,
            }
            .into(),
            torso: FrameLerp::still(0).into(),
        },
    ];
    let mut placed = PlacedPlayers::new();
    for instance in &instances {
        gpu_player.place(instance, &mut placed).unwrap();
    }
    let mut triangles = Vec::new();
    for (n, instance) in instances.iter().enumerate() {
        let at = player.parts_at(instance.legs, instance.torso).unwrap();
        for s in 0..gpu_player.surface_count() {
            let (piece, _, _) = gpu_player.surface(s).unwrap();
            let (matrix, pose) = piece_at(piece, &at, instance.legs, instance.torso);
            let placed_instance = placed.instances(s)[n];
            let expected = instance.transform * in_y_up(matrix);
            assert!(
                placed_instance.transform.abs_diff_eq(expected, 1e-5),
                "player {n}, surface {s} ({piece:?})"
            );
            assert_eq!(placed_instance.pose, pose);
        }
        triangles.extend(player_triangles(
            &player,
            instance.legs,
            instance.torso,
            instance.transform,
        ));
    }
    // A wrong tag or pose would not place a triangle where the reference
    // does: every pixel it decides agrees.
    let camera = from_below(Vec3::new(26.0, -22.0, 24.0), Vec3::new(6.0, 8.0, 0.0));
    let picture = render_square(
        &gpu,
        &mut renderer,
        &camera,
        &gpu_player.batches(&placed),
        128,
    );
    save_picture(&picture, "md3-tiny-players.png");
    let (decided, wrong) = coverage_against(&picture, &camera, &triangles);
    eprintln!(
        "tiny players: {} pixels drawn, {decided} decided, {wrong} disagree",
        coverage(&picture)
    );
    assert!(coverage(&picture) > 100);
    assert_eq!(wrong, 0);
    // The legs wear their picture.
    assert!(picture.pixels().any(|p| p.0 == [200, 60, 60, 255]));
}

/// A resident crowd of `model` (one member playing `clip` from 0 s) drawn
/// at `time`, and the immediate path given the poses the crowd drew: the
/// same pixels.
fn crowd_draws_as_the_immediate_path(
    gpu: &Gpu,
    gpu_model: &GpuModel,
    clip: md2_wgpu::Clip,
    camera: &Camera,
    time: f64,
    what: &str,
) {
    const SIZE: u32 = 128;
    let mut renderer = srgb_renderer_with(gpu, Md2RendererOptions::WITH_DEPTH);
    let (from_crowd, drawn) =
        crowd_of_one(gpu, renderer.as_ref(), gpu_model, clip, camera, time, SIZE);
    let immediate = render_instances(gpu, &mut renderer, camera, gpu_model, &[drawn], SIZE);
    assert!(coverage(&from_crowd) > 50, "{what}: the crowd draws");
    assert_same_drawing(&from_crowd, &immediate, what);
}

#[test]
fn a_resident_crowd_of_wide_models_draws_as_the_immediate_path_at_every_level() {
    let Some(gpu) = gpu() else { return };
    let renderer = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    // The tiny surface, its two frames a looping clip: always here.
    let tiny = tiny_md3().surface_model(0).unwrap().unwrap();
    let gpu_tiny = GpuModel::new(&gpu.device, &gpu.queue, &renderer, &tiny, &[]).unwrap();
    let clip = md2_wgpu::Clip::looping("idle", 0, 1);
    let camera = from_below(Vec3::new(6.0, -8.0, 7.0), Vec3::new(2.0, 0.5, 2.0));
    crowd_draws_as_the_immediate_path(&gpu, &gpu_tiny, clip, &camera, 0.05, "tiny, resident");

    // A shared player's legs with levels of detail built over every one of
    // their 8-byte frames, walking: the crowd picks its level as the
    // immediate path does, and draws the same pixels.
    let Some(dir) = shared_md3_dir() else { return };
    let player = Md3Player::open(dir.join("major"), "default").unwrap();
    let legs = player
        .part(PlayerPart::Lower)
        .surface_model(0)
        .unwrap()
        .unwrap();
    let options = md2_wgpu::contract::GpuModelOptions::WITH_LEVELS;
    let gpu_legs =
        GpuModel::with_options(&gpu.device, &gpu.queue, &renderer, &legs, &[], options).unwrap();
    let choice = gpu_legs.level_choice();
    let levels = choice.levels();
    eprintln!(
        "major's legs: {} levels, triangles {:?}, errors {:?}",
        levels.len(),
        levels.iter().map(|l| l.index_count / 3).collect::<Vec<_>>(),
        levels.iter().map(|l| l.error).collect::<Vec<_>>()
    );
    assert!(levels.len() > 1, "coarser levels are built");
    assert!(
        levels
            .windows(2)
            .all(|w| w[1].index_count < w[0].index_count)
    );
    assert!(levels.iter().all(|l| l.error.is_finite() && l.error >= 0.0));
    let walk = player.animations().clip(PlayerAnimation::LegsWalk).unwrap();
    let error_pixels = Md2RendererOptions::WITH_DEPTH.level_error_pixels;
    let mut levels_seen = Vec::new();
    for (eye, what) in [
        (Vec3::new(30.0, 0.0, 50.0), "major's legs, near"),
        (Vec3::new(110.0, 0.0, 190.0), "major's legs, far"),
    ] {
        // Levels are chosen for the pixels the view has (128 square here).
        let mut camera = square_camera(eye, Vec3::new(0.0, -10.0, 0.0), 0.6, 1.0, 2000.0)
            .with_viewport(glam::UVec2::splat(128));
        camera.light = Light::ambient_only(1.0);
        let level = choice.for_view(&camera, error_pixels, Mat4::IDENTITY);
        eprintln!("{what}: level {level}");
        levels_seen.push(level);
        crowd_draws_as_the_immediate_path(&gpu, &gpu_legs, walk.clone(), &camera, 0.37, what);
    }
    assert_eq!(levels_seen[0], 0, "near, full detail");
    assert!(levels_seen[1] > 0, "far away, a coarser level is drawn");
}
