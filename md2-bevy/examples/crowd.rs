//! A crowd of MD2 soldiers walking in a Bevy scene, under a sun that casts
//! their shadows on the ground: md2-bevy's plugin drawing md2-wgpu's built-in
//! demo model (or a model of yours), every soldier on its own clock, some
//! stopping now and then to wave, salute or taunt (crossfades in and out).
//! Given a Quake III player's folder, a crowd of players instead: legs
//! running on their own clocks, torsos now and then gesturing or attacking
//! on theirs without breaking stride, heads on the torsos' `tag_head`,
//! a weapon (`--weapon`) in every hand.
//!
//! ```sh
//! cargo run --release -p md2-bevy --example crowd
//! cargo run --release -p md2-bevy --example crowd -- --model path/to/tris.md2 --soldiers 400
//! cargo run --release -p md2-bevy --example crowd -- --player ../shared/md3/major [--skin red] [--weapon gun.md3]
//! # unattended (CI): N frames, a screenshot, exit; --check-screenshot exits
//! # 1 when the picture is one colour or the crowd changes no pixel of it
//! cargo run --release -p md2-bevy --example crowd -- --frames 60 --screenshot crowd.png --check-screenshot
//! ```

mod common;

use std::f32::consts::TAU;
use std::path::{Path, PathBuf};

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::light::{CascadeShadowConfigBuilder, GlobalAmbientLight};
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::window::WindowResolution;
use common::{Lcg, SceneReady, Subject, UnattendedArgs, unattended};
use md2_bevy::{
    Md2, Md2Animator, Md2Asset, Md2Plugin, Md3PlayerAsset, Md3PlayerEntity, Md3PlayerParts,
    Md3PlayerSettings,
};
use md2_wgpu::Quake2Player;
use md2_wgpu::format::md3::PlayerAnimation;

/// A Quake unit in metres: a 56-unit player stands 1.75 m tall.
const METRES: f32 = md2_wgpu::gltf::METRES_PER_QUAKE_UNIT;

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
struct Args {
    soldiers: u32,
    model: Option<PathBuf>,
    player: Option<PathBuf>,
    skin: String,
    weapon: Option<PathBuf>,
    size: (u32, u32),
    unattended: UnattendedArgs,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        soldiers: 240,
        model: None,
        player: None,
        skin: "default".to_owned(),
        weapon: None,
        size: (1280, 720),
        unattended: UnattendedArgs::default(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--soldiers" => {
                args.soldiers = value()?.parse().map_err(|e| format!("--soldiers: {e}"))?
            }
            "--model" => args.model = Some(PathBuf::from(value()?)),
            "--player" => args.player = Some(PathBuf::from(value()?)),
            "--skin" => args.skin = value()?,
            "--weapon" => args.weapon = Some(PathBuf::from(value()?)),
            "--size" => args.size = common::parse_size(&value()?)?,
            "--help" | "-h" => {
                return Err(
                    "usage: crowd [--soldiers N] [--model FILE.md2 | --player DIR [--skin NAME] \
                            [--weapon FILE.md3]] [--size WxH] \
                            [--frames N --screenshot PNG [--check-screenshot]]"
                        .to_owned(),
                );
            }
            other => {
                if !args.unattended.take(other, value)? {
                    return Err(format!("unknown argument {other} (try --help)"));
                }
            }
        }
    }
    if args.model.is_some() && args.player.is_some() {
        return Err("--model or --player, not both".to_owned());
    }
    if args.weapon.is_some() && args.player.is_none() {
        return Err("--weapon is for a --player".to_owned());
    }
    Ok(args)
}

fn main() -> AppExit {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return AppExit::error();
        }
    };
    let mut app = App::new();
    common::register_demo(&mut app);
    // A model of yours: its folder as an asset source, so its skins are
    // found beside it.
    if let Some(model) = &args.model {
        common::register_folder(&mut app, "model", model.parent().unwrap_or(Path::new(".")));
    }
    // A player's folder, and a weapon's, likewise.
    let folders = [
        ("player", args.player.clone()),
        (
            "weapon",
            args.weapon
                .as_ref()
                .map(|w| w.parent().unwrap_or(Path::new(".")).to_path_buf()),
        ),
    ];
    for (source, folder) in folders {
        if let Some(folder) = folder {
            common::register_folder(&mut app, source, &folder);
        }
    }
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "md2-bevy: a crowd".to_owned(),
                    resolution: WindowResolution::new(args.size.0, args.size.1),
                    ..default()
                }),
                ..default()
            })
            // Unattended, frame N must show the scene: every pipeline is
            // compiled before the frame that first needs it is drawn.
            .set(RenderPlugin {
                synchronous_pipeline_compilation: args.unattended.frames.is_some(),
                ..default()
            }),
    )
    .add_plugins(Md2Plugin)
    .insert_resource(args.unattended.clone())
    .init_resource::<SceneReady>()
    .insert_resource(args)
    .insert_resource(GlobalAmbientLight {
        brightness: 400.0,
        ..default()
    })
    .insert_resource(ClearColor(Color::srgb(0.55, 0.7, 0.9)))
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            walk,
            gesture,
            gesture_players,
            ready,
            unattended,
            report_load_failure,
        ),
    )
    .run()
}

/// A soldier's way round: a circle about the centre, at its own pace.
#[derive(Component)]
struct Walker {
    radius: f32,
    angle: f32,
    /// Radians a second (negative: clockwise).
    pace: f32,
    /// While it stands to gesture: when it walks again.
    resting_until: Option<f64>,
    /// When it next stops.
    next_rest: f64,
}

/// What the crowd is of: an MD2 (or MDL) model, or a Quake III player.
#[derive(Resource)]
struct Model(UntypedHandle);

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    args: Res<Args>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let file_name = |path: &Path| {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if args.player.is_some() {
        let skin = args.skin.clone();
        let weapon = args
            .weapon
            .as_deref()
            .map(|w| format!("weapon://{}", file_name(w)));
        let player: Handle<Md3PlayerAsset> = assets
            .load_builder()
            .with_settings(move |s: &mut Md3PlayerSettings| {
                s.skin = skin.clone();
                s.weapon = weapon.clone();
            })
            .load("player://animation.cfg");
        commands.insert_resource(Model(player.clone().untyped()));
        spawn_players(&mut commands, &player, args.soldiers);
    } else {
        let model: Handle<Md2Asset> = match &args.model {
            Some(path) => assets.load(format!("model://{}", file_name(path))),
            None => assets.load("demo://soldier/tris.md2"),
        };
        commands.insert_resource(Model(model.clone().untyped()));
        spawn_soldiers(&mut commands, &model, args.soldiers);
    }

    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(60.0, 60.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.45, 0.5, 0.4),
            perceptual_roughness: 0.95,
            ..default()
        })),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::default().looking_to(Vec3::new(-0.5, -1.0, -0.35), Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 2,
            maximum_distance: 70.0,
            first_cascade_far_bound: 25.0,
            ..default()
        }
        .build(),
    ));
    commands.spawn((
        Camera3d::default(),
        // Bevy's default (TonyMcMapface) needs the tonemapping_luts feature.
        Tonemapping::AcesFitted,
        Transform::from_xyz(0.0, 14.0, 30.0).looking_at(Vec3::new(0.0, 0.0, 2.0), Vec3::Y),
    ));
}

/// A walker's circle, pace and first rest, and a tint, from `rng`.
fn walker(rng: &mut Lcg, i: u32) -> (Walker, Color) {
    let radius = 3.0 + 15.0 * rng.next().sqrt();
    let direction = if i.is_multiple_of(2) { 1.0 } else { -1.0 };
    // Running at about 4 m/s (Quake's run, scaled).
    let pace = direction * (3.0 + rng.next()) / radius;
    let tint = Color::hsl(360.0 * rng.next(), 0.35, 0.8);
    let walker = Walker {
        radius,
        angle: rng.next() * TAU,
        pace,
        resting_until: None,
        next_rest: 2.0 + 10.0 * f64::from(rng.next()),
    };
    (walker, tint)
}

/// `count` soldiers of `model`, each running on its own phase and speed.
fn spawn_soldiers(commands: &mut Commands, model: &Handle<Md2Asset>, count: u32) {
    let mut rng = Lcg(7);
    for i in 0..count {
        let (walker, tint) = walker(&mut rng, i);
        commands.spawn((
            Md2(model.clone()),
            Md2Animator::player(Quake2Player::Run)
                .with_phase(f64::from(rng.next()) * 0.6)
                .with_speed(0.9 + 0.2 * rng.next())
                .with_tint(tint),
            Transform::from_scale(Vec3::splat(METRES)),
            walker,
            Subject,
        ));
    }
}

/// `count` players of `player`, legs running and torsos standing, each
/// on its own phases and speeds (their clips come from the player's
/// `animation.cfg` once it has loaded).
fn spawn_players(commands: &mut Commands, player: &Handle<Md3PlayerAsset>, count: u32) {
    let mut rng = Lcg(7);
    for i in 0..count {
        let (walker, tint) = walker(&mut rng, i);
        let mut entity = Md3PlayerEntity::new(player.clone());
        entity.legs = entity
            .legs
            .with_speed(0.9 + 0.2 * rng.next())
            .with_phase(f64::from(rng.next()) * 0.6)
            .with_tint(tint);
        entity.torso = entity
            .torso
            .with_phase(f64::from(rng.next()) * 2.0)
            .with_tint(tint);
        commands.spawn((
            entity.playing(PlayerAnimation::LegsRun, PlayerAnimation::TorsoStand),
            Transform::from_scale(Vec3::splat(METRES)),
            walker,
            TorsoGesture::default(),
            Subject,
        ));
    }
}

/// Walks every soldier round its circle, facing the way it goes (the model
/// faces +Z), and stands it still while it gestures.
fn walk(time: Res<Time>, mut walkers: Query<(&mut Walker, &mut Transform)>) {
    let dt = time.delta_secs();
    for (mut walker, mut transform) in &mut walkers {
        if walker.resting_until.is_none() {
            walker.angle += walker.pace * dt;
        }
        let (sin, cos) = walker.angle.sin_cos();
        transform.translation =
            Vec3::new(cos, 0.0, sin) * walker.radius + Vec3::Y * (24.0 * METRES);
        let forward = Vec3::new(-sin, 0.0, cos) * walker.pace.signum();
        transform.rotation = Quat::from_rotation_arc(Vec3::Z, forward);
    }
}

/// Now and then a soldier stops for a gesture (a crossfade into a one-shot
/// clip), then runs on (a crossfade back).
fn gesture(time: Res<Time>, mut walkers: Query<(&mut Walker, &mut Md2Animator)>) {
    let now = time.elapsed_secs_f64();
    const GESTURES: [Quake2Player; 4] = [
        Quake2Player::Wave,
        Quake2Player::Salute,
        Quake2Player::Taunt,
        Quake2Player::Point,
    ];
    for (mut walker, mut animator) in &mut walkers {
        match walker.resting_until {
            None if now >= walker.next_rest => {
                let pick = GESTURES[(walker.next_rest * 7.0) as usize % GESTURES.len()].clip();
                let until = now + pick.duration() / f64::from(animator.speed()) + 0.2;
                animator.crossfade(pick, now, 0.2);
                walker.resting_until = Some(until);
            }
            Some(until) if now >= until => {
                animator.crossfade(Quake2Player::Run.clip(), now, 0.25);
                walker.resting_until = None;
                walker.next_rest = now + 6.0 + (walker.radius as f64 % 5.0) * 2.0;
            }
            _ => {}
        }
    }
}

/// While a player's torso gestures: when it stands again. Its legs run
/// on meanwhile.
#[derive(Component, Default)]
struct TorsoGesture(Option<f64>);

/// Now and then a player's torso gestures or attacks (a crossfade into a
/// one-shot clip of its own), its legs running on, then stands again (a
/// crossfade back).
fn gesture_players(
    time: Res<Time>,
    assets: Res<Assets<Md3PlayerAsset>>,
    mut players: Query<
        (&mut Walker, &mut TorsoGesture, &mut Md3PlayerEntity),
        With<Md3PlayerParts>,
    >,
) {
    let now = time.elapsed_secs_f64();
    const GESTURES: [PlayerAnimation; 3] = [
        PlayerAnimation::TorsoGesture,
        PlayerAnimation::TorsoAttack,
        PlayerAnimation::TorsoAttack2,
    ];
    for (mut walker, mut gesture, mut player) in &mut players {
        let Some(asset) = assets.get(&player.asset) else {
            continue;
        };
        match gesture.0 {
            None if now >= walker.next_rest => {
                let pick = GESTURES[(walker.next_rest * 7.0) as usize % GESTURES.len()];
                let Some(clip) = asset.clip(pick) else {
                    continue;
                };
                let until = now + clip.duration() / f64::from(player.torso.speed());
                player.torso.crossfade(clip, now, 0.15);
                gesture.0 = Some(until);
            }
            Some(until) if now >= until => {
                if let Some(stand) = asset.clip(PlayerAnimation::TorsoStand) {
                    player.torso.crossfade(stand, now, 0.25);
                }
                gesture.0 = None;
                walker.next_rest = now + 3.0 + (walker.radius as f64 % 5.0) * 2.0;
            }
            _ => {}
        }
    }
}

fn report_load_failure(
    assets: Res<AssetServer>,
    model: Res<Model>,
    mut exit: MessageWriter<AppExit>,
) {
    if let Some(bevy::asset::LoadState::Failed(error)) = assets.get_load_state(&model.0) {
        eprintln!("error: {error}");
        exit.write(AppExit::error());
    }
}

/// Soldiers without their model yet, and players without their parts.
type Waiting = Or<(
    (With<Md2>, Without<md2_bevy::Md2Slot>),
    (With<Md3PlayerEntity>, Without<Md3PlayerParts>),
)>;

/// The scene is ready once every soldier has its model (and every player
/// its parts).
fn ready(waiting: Query<(), Waiting>, mut ready: ResMut<SceneReady>) {
    if !ready.0 && waiting.is_empty() {
        ready.0 = true;
    }
}
