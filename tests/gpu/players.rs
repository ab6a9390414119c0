//! Crowds of Quake III players on the GPU (`PlayerCrowd`): each part's
//! transform placed by the attach pass from its parent's clock and tag,
//! held to the CPU's `Md3Player::parts_at` within a stated bound for
//! players whose legs and torsos play different clips (crossfades
//! included); the crowd's picture of players with weapons equal to the
//! immediate path's, and both to the CPU reference.

use glam::{Mat4, Quat, Vec3};
use md2_wgpu::anim::ClipClock;
use md2_wgpu::contract::{GpuModelOptions, InstanceRecord};
use md2_wgpu::format::md3::{Md3Player, PlayerAnimation, PlayerPart};
use md2_wgpu::gpu::{
    CrowdHandle, GpuPlayer, Md2Batch, PlayerCrowd, PlayerMember, PlayerPiece, PrepareError,
};
use md2_wgpu::scene::QUAKE_TO_Y_UP;
use md2_wgpu::{Md2Instance, Md2Renderer, Md2RendererOptions};

use super::md3::{from_below, piece_at, player_triangles};
use crate::common::*;

/// A record's rows as a matrix (the inverse of how the renderer packs an
/// instance's transform: exact, `QUAKE_TO_Y_UP` being a permutation).
fn record_transform(record: &InstanceRecord) -> Mat4 {
    let r = record.rows;
    let rows = Mat4::from_cols_array_2d(&[
        [r[0][0], r[1][0], r[2][0], 0.0],
        [r[0][1], r[1][1], r[2][1], 0.0],
        [r[0][2], r[1][2], r[2][2], 0.0],
        [r[0][3], r[1][3], r[2][3], 1.0],
    ]);
    rows * QUAKE_TO_Y_UP.inverse()
}

/// Twelve players on a grid, turned differently, whose legs and torsos play
/// different clips at different speeds and phases; every third crossfades
/// its legs into another clip and every fourth its torso, half-way through
/// at `time`. A thirteenth is added and removed from the middle first, so
/// every surface's crowd has moved its last member into the hole.
fn army(players: &mut PlayerCrowd, player: &Md3Player, time: f64) {
    let cfg = player.animations();
    let legs = [
        PlayerAnimation::LegsWalk,
        PlayerAnimation::LegsRun,
        PlayerAnimation::LegsIdle,
        PlayerAnimation::LegsJump,
    ]
    .map(|a| cfg.clip(a).expect("a legs clip"));
    let torso = [
        PlayerAnimation::TorsoAttack,
        PlayerAnimation::TorsoStand,
        PlayerAnimation::TorsoGesture,
    ]
    .map(|a| cfg.clip(a).expect("a torso clip"));
    let mut handles = Vec::new();
    for i in 0..13usize {
        let f = i as f32;
        let transform = Mat4::from_rotation_translation(
            Quat::from_rotation_y(0.5 * f),
            Vec3::new(40.0 * (i % 4) as f32, 0.0, -40.0 * (i / 4) as f32),
        );
        let member = PlayerMember::new(
            transform,
            ClipClock::new(legs[i % legs.len()].clone(), -0.37 * f64::from(f))
                .with_speed(0.5 + 0.25 * (i % 4) as f32),
            ClipClock::new(torso[(i + 1) % torso.len()].clone(), -0.11 * f64::from(f))
                .with_speed(1.5 - 0.2 * (i % 3) as f32),
        );
        handles.push(players.add(member).unwrap());
    }
    let gone = handles.remove(5);
    players.remove(gone).unwrap();
    assert!(players.get(gone).is_none());
    for (n, &handle) in handles.iter().enumerate() {
        if n % 3 == 0 {
            let next = ClipClock::new(legs[(n + 1) % legs.len()].clone(), time - 0.2);
            players.play_legs(handle, next, time - 0.15, 0.3).unwrap();
        }
        if n % 4 == 1 {
            let next = ClipClock::new(torso[n % torso.len()].clone(), time - 0.1);
            players.play_torso(handle, next, time - 0.1, 0.25).unwrap();
        }
    }
}

/// Each surface's crowd's records from `renderer`'s last `prepare_crowds`
/// (culling off: every member), bucket by bucket, and how many buckets
/// (levels of detail) they were drawn in.
fn records_of(
    gpu: &Gpu,
    renderer: &Md2Renderer,
    players: &PlayerCrowd,
) -> (Vec<(PlayerPiece, Vec<InstanceRecord>)>, usize) {
    let mut buckets = std::collections::HashSet::new();
    let records = players
        .crowds()
        .enumerate()
        .map(|(k, (piece, _))| {
            let records = crowd_records(gpu, renderer, k).unwrap();
            buckets.extend(records.iter().map(|(b, _)| *b));
            (piece, records.into_iter().map(|(_, r)| r).collect())
        })
        .collect();
    (records, buckets.len())
}

/// A renderer with `options`, the tiny player holding the tiny model (two
/// surfaces) as its weapon, that player on the GPU and an empty crowd of
/// it.
fn armed_tiny_players(
    gpu: &Gpu,
    options: Md2RendererOptions,
) -> (Md2Renderer, Md3Player, GpuPlayer, PlayerCrowd) {
    let renderer = srgb_renderer_with(gpu, options);
    let player = tiny_player().with_weapon(tiny_md3());
    let gpu_player = GpuPlayer::new(&gpu.device, &gpu.queue, &renderer, &player, &[]).unwrap();
    let players = PlayerCrowd::new(&gpu.device, &renderer, &gpu_player).unwrap();
    (renderer, player, gpu_player, players)
}

#[test]
fn every_part_of_a_player_crowd_rides_its_parents_tag_as_the_cpu_places_it() {
    let Some(gpu) = gpu() else { return };
    let mut players_to_test = vec![("tiny", tiny_player().with_weapon(tiny_md3()))];
    if let Some(dir) = shared_md3_dir() {
        for name in ["major", "penguin"] {
            players_to_test.push((name, Md3Player::open(dir.join(name), "default").unwrap()));
        }
    }
    let mut renderer = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    // Levels are chosen for the pixels of a 256-square view: the nearest
    // players at full detail, the farthest coarser.
    let camera = square_camera(
        Vec3::new(0.0, 50.0, 60.0),
        Vec3::new(60.0, 0.0, -80.0),
        0.8,
        1.0,
        1000.0,
    )
    .with_viewport(glam::UVec2::splat(256));
    for (name, player) in &players_to_test {
        // The shared players with levels of detail on every surface: a
        // part's level changes what it draws, never where it rides.
        let options = match *name {
            "major" => GpuModelOptions::WITH_LEVELS,
            _ => GpuModelOptions::DEFAULT,
        };
        let gpu_player =
            GpuPlayer::with_options(&gpu.device, &gpu.queue, &renderer, player, &[], options)
                .unwrap();
        let mut players = PlayerCrowd::new(&gpu.device, &renderer, &gpu_player).unwrap();
        for time in [0.0, 1.37, 86_400.25] {
            army(&mut players, player, time);
            // The players in the crowds' order (a removal moved the last
            // into the hole): the legs' crowd's handles are the players'.
            let (_, legs_crowd) = players.crowds().next().unwrap();
            let handles: Vec<CrowdHandle> = legs_crowd.iter().map(|(h, _)| h).collect();
            for crowd in players.crowds_mut() {
                crowd.set_culling(false);
            }
            step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), time);
            let (records, buckets) = records_of(&gpu, &renderer, &players);
            if *name == "major" {
                assert!(
                    buckets > 1,
                    "{name}: some parts are drawn at coarser levels"
                );
            }
            // Every element is a sum of at most four products per level of
            // attachment (two levels: the head on the torso on the legs),
            // after a lerp, a normalisation and a crossfade of the tag: some
            // forty f32 roundings of 2^-24 each, relative to the element's
            // size, with WGSL's 2.5 ULP for the square root and division.
            // 1e-5 of the largest element (or of 1, for small ones) is
            // 168 roundings' worth: four times the path's.
            let mut worst = 0.0f32;
            for (piece, drawn) in &records {
                assert_eq!(drawn.len(), handles.len(), "{name}: {piece}'s members");
                // What the CPU places, member by member: the matrix from
                // the part's Quake-axes space to the world (the member's
                // rows are its first three) and the pose the part shows.
                let expected: Vec<(Mat4, md2_wgpu::anim::Pose)> = handles
                    .iter()
                    .map(|&handle| {
                        let member = players.get(handle).unwrap();
                        let (legs, torso) = (member.legs.pose(time), member.torso.pose(time));
                        let at = player.parts_at(legs, torso).unwrap();
                        let (part, pose) = piece_at(*piece, &at, legs, torso);
                        (member.transform * QUAKE_TO_Y_UP * part, pose)
                    })
                    .collect();
                let off_by = |m: &Mat4, record: &InstanceRecord| {
                    (0..12).fold(0.0f32, |worst, k| {
                        let (r, c) = (k / 4, k % 4);
                        worst.max((record.rows[r][c] - m.col(c)[r]).abs())
                    })
                };
                // Records come bucket by bucket (each level its own): each
                // is matched to the member it is nearest (players stand 40
                // units apart), and every member is matched once.
                let mut matched = vec![false; handles.len()];
                for record in drawn {
                    let (n, (matrix, pose)) = expected
                        .iter()
                        .enumerate()
                        .min_by(|a, b| off_by(&a.1.0, record).total_cmp(&off_by(&b.1.0, record)))
                        .unwrap();
                    let size = matrix
                        .to_cols_array()
                        .iter()
                        .fold(1.0f32, |m, x| m.max(x.abs()));
                    let bound = 1e-5 * size;
                    let off = off_by(matrix, record);
                    worst = worst.max(off / bound);
                    assert!(
                        off <= bound,
                        "{name} at {time} s, player {n}, {piece}: {:?} is {off} from the \
                         CPU's {matrix:?} (bound {bound})",
                        record.rows
                    );
                    assert!(!matched[n], "{name}, {piece}: player {n} drawn twice");
                    matched[n] = true;
                    // The pose each part shows is its own clock's.
                    let shown = record_pose(record);
                    assert_eq!(
                        (shown.primary.frame_a, shown.primary.frame_b),
                        (pose.primary.frame_a, pose.primary.frame_b),
                        "{name}, player {n}, {piece}"
                    );
                }
            }
            eprintln!(
                "{name} at {time} s: {} surfaces × {} players placed ({buckets} levels drawn), \
                 worst share of the bound {worst:.3}",
                records.len(),
                handles.len()
            );
            for handle in handles {
                players.remove(handle).unwrap();
            }
            assert!(players.is_empty());
        }
    }
}

#[test]
fn a_crowd_of_players_with_weapons_draws_what_the_immediate_path_draws() {
    let Some(gpu) = gpu() else { return };
    const SIZE: u32 = 128;
    let player = tiny_player().with_weapon(tiny_md3());
    let mut resident = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    let mut immediate = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    let gpu_player = GpuPlayer::new(&gpu.device, &gpu.queue, &resident, &player, &[]).unwrap();
    let mut players = PlayerCrowd::new(&gpu.device, &resident, &gpu_player).unwrap();
    let clip = player.animations().clip(PlayerAnimation::LegsWalk).unwrap();
    let spots = [
        Vec3::ZERO,
        Vec3::new(12.0, 0.0, -4.0),
        Vec3::new(-4.0, 0.0, 10.0),
    ];
    for (i, spot) in spots.iter().enumerate() {
        let legs = ClipClock::new(clip.clone(), -0.03 * i as f64);
        let torso = ClipClock::new(clip.clone(), 0.05 * i as f64).with_speed(0.7);
        players
            .add(PlayerMember::new(
                Mat4::from_translation(*spot),
                legs,
                torso,
            ))
            .unwrap();
    }
    let camera = from_below(Vec3::new(26.0, -22.0, 24.0), Vec3::new(6.0, 8.0, 0.0));
    let time = 0.162;
    let picture = draw_crowds(
        &gpu,
        &mut resident,
        &camera,
        &[],
        players.crowds_mut(),
        time,
        SIZE,
    )
    .unwrap();
    save_picture(&picture, "md3-player-crowd.png");

    // The immediate path given the transforms and poses the crowd drew:
    // the same words, so the same pixels.
    let mut per_surface: Vec<Vec<Md2Instance>> = Vec::new();
    for k in 0..gpu_player.surface_count() {
        let records = crowd_records(&gpu, &resident, k).unwrap();
        assert_eq!(
            records.len(),
            spots.len(),
            "surface {k}: every player in view"
        );
        per_surface.push(
            records
                .iter()
                .map(|(_, r)| Md2Instance::new(record_transform(r), record_pose(r)))
                .collect(),
        );
    }
    let batches: Vec<Md2Batch<'_>> = per_surface
        .iter()
        .enumerate()
        .map(|(k, instances)| Md2Batch::new(gpu_player.surface(k).unwrap().2, instances))
        .collect();
    let drawn = render_square(&gpu, &mut immediate, &camera, &batches, SIZE);
    assert_same_drawing(&picture, &drawn, "players: crowd against immediate");

    // And both are where the CPU puts every piece: GpuPlayer::place's
    // transforms and the CPU reference's triangles, weapon included.
    let mut triangles = Vec::new();
    for (i, spot) in spots.iter().enumerate() {
        let legs = ClipClock::new(clip.clone(), -0.03 * i as f64);
        let torso = ClipClock::new(clip.clone(), 0.05 * i as f64).with_speed(0.7);
        let (legs, torso) = (legs.sample(time).into(), torso.sample(time).into());
        let transform = Mat4::from_translation(*spot);
        triangles.extend(player_triangles(&player, legs, torso, transform));
    }
    let (decided, wrong) = coverage_against(&picture, &camera, &triangles);
    eprintln!(
        "player crowd: {} pixels drawn, {decided} decided, {wrong} disagree",
        coverage(&picture)
    );
    assert!(coverage(&picture) > 150);
    assert_eq!(wrong, 0, "pixels where the CPU reference says otherwise");
    // The weapon is drawn: its surfaces have visible records, and covering
    // pixels no other piece covers would show in the reference check.
    assert!(
        gpu_player
            .surface(4)
            .is_some_and(|(p, _, _)| p == PlayerPiece::Weapon)
    );
}

#[test]
fn a_player_crowd_refuses_as_one_and_its_riders_need_their_parents() {
    let Some(gpu) = gpu() else { return };
    let (mut renderer, _, _, mut players) =
        armed_tiny_players(&gpu, Md2RendererOptions::WITH_DEPTH);
    let idle = md2_wgpu::Clip::looping("idle", 0, 1);
    let handle = players
        .add(PlayerMember::new(
            Mat4::IDENTITY,
            ClipClock::new(idle.clone(), 0.0),
            ClipClock::new(idle.clone(), 0.0),
        ))
        .unwrap();
    // A torso clip past upper.md3's two frames: refused, naming the torso,
    // and no surface's crowd keeps the player (the legs' took it first).
    let error = players
        .add(PlayerMember::new(
            Mat4::IDENTITY,
            ClipClock::new(idle.clone(), 0.0),
            ClipClock::new(md2_wgpu::Clip::looping("far", 0, 9), 0.0),
        ))
        .unwrap_err();
    assert_eq!(error.piece, PlayerPiece::Part(PlayerPart::Upper));
    assert!(error.to_string().starts_with("upper.md3: "), "{error}");
    assert_eq!(players.len(), 1);
    assert!(players.crowds().all(|(_, c)| c.len() == 1));
    // A non-finite transform: refused before any part moved.
    let bad = Mat4::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    assert!(players.set_transform(handle, bad).is_err());
    assert_eq!(players.get(handle).unwrap().transform, Mat4::IDENTITY);

    // A surface's crowd emptied on its own: the player crowd refuses the
    // player that crowd lost, and new players, naming the piece; nothing
    // panics, and it still prepares.
    players.crowds_mut().nth(1).unwrap().clear();
    let out_of_step = players.remove(handle).unwrap_err();
    assert_eq!(
        out_of_step,
        md2_wgpu::gpu::PlayerCrowdError {
            piece: PlayerPiece::Part(PlayerPart::Upper),
            error: md2_wgpu::scene::CrowdError::StaleHandle,
        }
    );
    assert!(players.set_tint(handle, [1.0; 4]).is_err());
    let idle_clock = || ClipClock::new(idle.clone(), 0.0);
    let again = PlayerMember::new(Mat4::IDENTITY, idle_clock(), idle_clock());
    assert!(players.add(again).is_err());
    assert_eq!(players.len(), 1);
    let camera = square_camera(Vec3::new(0.0, 20.0, 60.0), Vec3::ZERO, 0.8, 1.0, 500.0);
    step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), 0.0);

    // The torso's crowd given without the legs' before it.
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let refused = renderer.prepare_crowds(
        &gpu.device,
        &gpu.queue,
        &mut encoder,
        0.0,
        players.crowds_mut().skip(1),
    );
    assert_eq!(refused, Err(PrepareError::ParentCrowdMissing { crowd: 0 }));
    // In order, it prepares.
    step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), 0.0);
}

#[test]
fn one_culling_test_decides_for_a_whole_player() {
    let Some(gpu) = gpu() else { return };
    let (mut renderer, player, gpu_player, mut players) =
        armed_tiny_players(&gpu, Md2RendererOptions::WITH_DEPTH);
    let idle = md2_wgpu::Clip::looping("idle", 0, 1);
    let clock = || ClipClock::new(idle.clone(), 0.0);
    // One player at the origin, one far off to the side.
    for x in [0.0, 2000.0] {
        let at = Mat4::from_translation(Vec3::new(x, 0.0, 0.0));
        players
            .add(PlayerMember::new(at, clock(), clock()))
            .unwrap();
    }
    let surfaces = gpu_player.surface_count();
    // A narrow view of the near player's torso, head and weapon (y 7.5 to
    // 24.5 where they stand): its legs (the tiny legs lie at y 0 to 1) are
    // below it.
    let torso_view = square_camera(
        Vec3::new(0.0, 16.0, 40.0),
        Vec3::new(0.0, 16.0, 0.0),
        0.42,
        1.0,
        500.0,
    );
    step_crowds(&gpu, &mut renderer, &torso_view, players.crowds_mut(), 0.0);
    assert_eq!(
        visible(&gpu, &renderer).per_crowd,
        vec![1; surfaces],
        "the near player, every part, and not the far one"
    );
    // The legs alone, culled on their own box, are out of that view: the
    // player's box (every part on every frame) is what keeps its torso
    // and head from vanishing with them.
    let mut legs_alone =
        md2_wgpu::Md2Crowd::new(&gpu.device, &renderer, gpu_player.surface(0).unwrap().2).unwrap();
    legs_alone
        .add(md2_wgpu::CrowdMember::new(Mat4::IDENTITY, clock()))
        .unwrap();
    let mut alone = srgb_renderer_with(&gpu, Md2RendererOptions::WITH_DEPTH);
    step_crowd(&gpu, &mut alone, &torso_view, &mut legs_alone, 0.0);
    assert_eq!(visible(&gpu, &alone).per_crowd, vec![0]);

    // Looking away from both: no part of either is laid out (the riders of
    // a player out of view are not placed at all).
    let away = square_camera(
        Vec3::new(0.0, 16.0, 40.0),
        Vec3::new(0.0, 16.0, 100.0),
        0.8,
        1.0,
        500.0,
    );
    step_crowds(&gpu, &mut renderer, &away, players.crowds_mut(), 0.0);
    assert_eq!(visible(&gpu, &renderer).per_crowd, vec![0; surfaces]);
    // And back: both parts' records are where the CPU puts them.
    step_crowds(&gpu, &mut renderer, &torso_view, players.crowds_mut(), 0.0);
    let (records, _) = records_of(&gpu, &renderer, &players);
    let near = players.crowds().next().unwrap().1.iter().next().unwrap().0;
    let member = players.get(near).unwrap();
    let (legs, torso) = (member.legs.pose(0.0), member.torso.pose(0.0));
    let at = player.parts_at(legs, torso).unwrap();
    for (piece, drawn) in &records {
        assert_eq!(drawn.len(), 1, "{piece}");
        let (part, _) = piece_at(*piece, &at, legs, torso);
        let expected = QUAKE_TO_Y_UP * part;
        let got = record_transform(&drawn[0]) * QUAKE_TO_Y_UP;
        assert!(got.abs_diff_eq(expected, 1e-4), "{piece}: {got:?}");
    }
}

#[test]
fn a_moved_players_riding_parts_come_from_where_the_last_frame_drew_them() {
    use md2_wgpu::gpu::low_level::read_crowd_extras;
    let Some(gpu) = gpu() else { return };
    let options = Md2RendererOptions::WITH_DEPTH.with_motion_target(wgpu::TextureFormat::Rg16Float);
    let (mut renderer, player, _gpu_player, mut players) = armed_tiny_players(&gpu, options);
    for crowd in players.crowds_mut() {
        crowd.set_culling(false);
    }
    let walk = md2_wgpu::Clip::looping("walk", 0, 1);
    let turned = |x: f32, turn: f32| {
        Mat4::from_rotation_translation(Quat::from_rotation_y(turn), Vec3::new(x, 0.0, -2.0 * x))
    };
    let (before, after) = (turned(0.0, 0.3), turned(6.0, 0.9));
    let handle = players
        .add(PlayerMember::new(
            before,
            ClipClock::new(walk.clone(), 0.0),
            ClipClock::new(walk, 0.04).with_speed(0.6),
        ))
        .unwrap();
    let camera = square_camera(Vec3::new(0.0, 20.0, 60.0), Vec3::ZERO, 0.8, 1.0, 500.0);
    let (t0, t1) = (10.02, 10.02 + 1.0 / 24.0);
    // The view's first frame shows no motion; the second is at t0 too, so
    // the next one's previous frame is t0's.
    step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), t0);
    step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), t0);
    players.set_transform(handle, after).unwrap();
    step_crowds(&gpu, &mut renderer, &camera, players.crowds_mut(), t1);

    let member = players.get(handle).unwrap();
    let placed = |t: f64, transform: Mat4| {
        let (legs, torso) = (member.legs.pose(t), member.torso.pose(t));
        let at = player.parts_at(legs, torso).unwrap();
        move |piece| transform * QUAKE_TO_Y_UP * piece_at(piece, &at, legs, torso).0
    };
    let (then, now) = (placed(t0, before), placed(t1, after));
    let close = |rows: &[[f32; 4]; 3], m: Mat4| {
        (0..12).all(|k| (rows[k / 4][k % 4] - m.col(k % 4)[k / 4]).abs() <= 1e-4)
    };
    for (k, (piece, _)) in players.crowds().enumerate() {
        let records = crowd_records(&gpu, &renderer, k).unwrap();
        let extras = crowd_read_back(&gpu, &renderer, k, read_crowd_extras).unwrap();
        assert_eq!((records.len(), extras.len()), (1, 1), "{piece}");
        // Drawn where the CPU puts it now, coming from where it put it in
        // the frame before (the player's old place, the part at its tag
        // at t0): not from the legs' old place.
        assert!(close(&records[0].1.rows, now(piece)), "{piece} now");
        assert!(
            close(&extras[0].1.rows, then(piece)),
            "{piece} before: {:?}, the CPU's {:?}",
            extras[0].1.rows,
            then(piece)
        );
    }
}
