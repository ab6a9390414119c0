//! Two armies of MD2 soldiers in battle, 100,000 by default, as two of
//! md2-bevy's resident crowds (`Md2Crowd`): every soldier on its own clock
//! on the GPU, the front ranks fighting, the ranks behind pressing on or
//! standing by, and now and then a soldier falling; under a sun whose
//! shadow maps draw the crowds too, each soldier at the level of detail its
//! distance allows (press L to draw every one at full detail, and again to
//! go back; T paints every soldier in its level's colour). The frame time
//! and the soldiers drawn at each level are on screen. Per frame the CPU
//! writes the time, each camera, and the few soldiers whose orders changed.
//!
//! ```sh
//! cargo run --release -p md2-bevy --example battle
//! cargo run --release -p md2-bevy --example battle -- --soldiers 20000 --model path/to/tris.md2
//! cargo run --release -p md2-bevy --example battle -- --level-colours   # as T
//! # unattended (CI): N frames, a screenshot, exit; --check-screenshot exits
//! # 1 when the picture is one colour or the armies change no pixel of it
//! cargo run --release -p md2-bevy --example battle -- --frames 60 --screenshot battle.png --check-screenshot
//! ```

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::light::{CascadeShadowConfigBuilder, GlobalAmbientLight};
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::window::WindowResolution;
use common::{Lcg, SceneReady, Subject, UnattendedArgs, unattended};
use md2_bevy::{
    Md2Asset, Md2Crowd, Md2CrowdLevels, Md2Levels, Md2LoaderSettings, Md2Plugin, member_transform,
};
use md2_wgpu::crowd::CrowdHandle;
use md2_wgpu::{CrowdMember, Quake2Player, anim::ClipClock};

/// A Quake unit in metres: a 56-unit soldier stands 1.75 m tall.
const METRES: f32 = md2_wgpu::gltf::METRES_PER_QUAKE_UNIT;
/// Metres between two soldiers of a rank, and between two ranks.
const SPACING: f32 = 1.6;
/// Metres between the two front ranks.
const GAP: f32 = 1.4;

/// What the command line asked for.
#[derive(Resource, Clone, Debug)]
struct Args {
    soldiers: u32,
    model: Option<PathBuf>,
    size: (u32, u32),
    /// Soldiers painted in their level's colour from the start (as T).
    level_colours: bool,
}

fn parse_args() -> Result<(Args, UnattendedArgs), String> {
    let mut args = Args {
        soldiers: 100_000,
        model: None,
        size: (1280, 720),
        level_colours: false,
    };
    let mut unattended = UnattendedArgs::default();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--soldiers" => {
                args.soldiers = value()?.parse().map_err(|e| format!("--soldiers: {e}"))?
            }
            "--model" => args.model = Some(PathBuf::from(value()?)),
            "--size" => args.size = common::parse_size(&value()?)?,
            "--level-colours" => args.level_colours = true,
            "--help" | "-h" => {
                return Err(
                    "usage: battle [--soldiers N] [--model FILE.md2] [--size WxH] \
                            [--level-colours] [--frames N --screenshot PNG [--check-screenshot]]"
                        .to_owned(),
                );
            }
            other => {
                if !unattended.take(other, value)? {
                    return Err(format!("unknown argument {other} (try --help)"));
                }
            }
        }
    }
    if args.soldiers < 2 {
        return Err("--soldiers: at least 2".to_owned());
    }
    Ok((args, unattended))
}

fn main() -> AppExit {
    let (args, run) = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return AppExit::error();
        }
    };
    let mut app = App::new();
    common::register_demo(&mut app);
    if let Some(model) = &args.model {
        common::register_folder(&mut app, "model", model.parent().unwrap_or(Path::new(".")));
    }
    let unattended_run = run.frames.is_some();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "md2-bevy: a battle".to_owned(),
                    resolution: WindowResolution::new(args.size.0, args.size.1),
                    ..default()
                }),
                ..default()
            })
            .set(RenderPlugin {
                synchronous_pipeline_compilation: unattended_run,
                ..default()
            }),
    )
    .add_plugins(Md2Plugin)
    .insert_resource(run)
    .init_resource::<SceneReady>()
    .insert_resource(args)
    .insert_resource(GlobalAmbientLight {
        brightness: 500.0,
        ..default()
    })
    .insert_resource(ClearColor(Color::srgb(0.6, 0.72, 0.88)))
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (
            spawn_armies,
            fight,
            orbit,
            keys,
            figures_on_screen,
            unattended,
        ),
    )
    .run()
}

/// The model both armies are of.
#[derive(Resource)]
struct Model(Handle<Md2Asset>);

fn setup(
    mut commands: Commands,
    assets: Res<AssetServer>,
    args: Res<Args>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // Levels of detail saved beside the model, else built by the loader
    // (off the main thread).
    let path = match &args.model {
        Some(model) => format!(
            "model://{}",
            model
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        ),
        None => "demo://soldier/tris.md2".to_owned(),
    };
    let model: Handle<Md2Asset> = assets
        .load_builder()
        .with_settings(|s: &mut Md2LoaderSettings| s.levels = Md2Levels::SavedOrBuilt)
        .load(path);
    commands.insert_resource(Model(model));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(2000.0, 2000.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.42, 0.45, 0.33),
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
        Transform::default().looking_to(Vec3::new(-0.45, -1.0, -0.3), Vec3::Y),
        CascadeShadowConfigBuilder {
            num_cascades: 3,
            maximum_distance: 260.0,
            first_cascade_far_bound: 40.0,
            ..default()
        }
        .build(),
    ));
    commands.spawn((
        Camera3d::default(),
        Tonemapping::AcesFitted,
        Transform::from_xyz(0.0, 11.0, 40.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    // The figures, top left (figures_on_screen writes them).
    commands.spawn((
        Figures,
        Text::new("md2-bevy: a battle"),
        TextFont::from_font_size(16.0),
        TextColor(Color::WHITE),
        BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55)),
        Node {
            position_type: PositionType::Absolute,
            top: px(8),
            left: px(8),
            padding: UiRect::all(px(8)),
            ..default()
        },
    ));
}

/// The text the figures are written in.
#[derive(Component)]
struct Figures;

/// A soldier's orders, and when they next change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Orders {
    /// Fighting in the front ranks.
    Fight,
    /// Pressing on behind them.
    Press,
    /// Standing by in the rear; now and then a taunt or a wave.
    StandBy,
}

/// One army's soldiers whose orders change at a time to come, soonest
/// first: the only soldiers the CPU touches in a frame.
#[derive(Component, Default)]
struct Army {
    events: BinaryHeap<Reverse<(u64, u32)>>,
    soldiers: Vec<(CrowdHandle, Orders, bool)>,
}

/// Seconds as the events' integer key (milliseconds).
fn key(seconds: f64) -> u64 {
    (seconds.max(0.0) * 1000.0) as u64
}

/// Both armies, once the model has loaded: ranks facing each other across
/// the gap, every soldier on its own phase and speed.
fn spawn_armies(
    mut commands: Commands,
    args: Res<Args>,
    model: Res<Model>,
    assets: Res<Assets<Md2Asset>>,
    time: Res<Time>,
    mut ready: ResMut<SceneReady>,
    mut spawned: Local<bool>,
) {
    if *spawned {
        return;
    }
    let Some(asset) = assets.get(&model.0) else {
        return;
    };
    *spawned = true;
    let now = time.elapsed_secs_f64();
    let per_army = args.soldiers / 2;
    // Ranks twice as wide as they are deep.
    let width = ((per_army * 2) as f32).sqrt().ceil() as u32;
    let mut rng = Lcg(37);
    for (side, tint) in [
        (1.0f32, [0.75, 0.85, 1.3, 1.0]),
        (-1.0, [1.3, 0.8, 0.7, 1.0]),
    ] {
        let mut crowd = Md2Crowd::new(model.0.clone(), asset).with_level_tint(args.level_colours);
        let mut army = Army::default();
        crowd.members_mut().reserve(per_army as usize);
        for i in 0..per_army {
            let (rank, file) = (i / width, i % width);
            let x = (file as f32 - width as f32 * 0.5) * SPACING + (rng.next() - 0.5) * 0.4;
            let z = side * (GAP * 0.5 + rank as f32 * SPACING + (rng.next() - 0.5) * 0.4);
            // Facing the enemy (the model faces +Z), a little askew.
            let yaw = if side > 0.0 {
                std::f32::consts::PI
            } else {
                0.0
            } + (rng.next() - 0.5) * 0.5;
            let place = Transform::from_xyz(x, 24.0 * METRES, z)
                .with_rotation(Quat::from_rotation_y(yaw))
                .with_scale(Vec3::splat(METRES));
            let orders = match rank {
                0..=1 => Orders::Fight,
                2..=7 => Orders::Press,
                _ => Orders::StandBy,
            };
            let clip = match orders {
                Orders::Fight => Quake2Player::Attack,
                Orders::Press => Quake2Player::Run,
                Orders::StandBy => Quake2Player::Stand,
            };
            let clock = ClipClock::new(clip.clip(), now - f64::from(rng.next()) * 2.0)
                .with_speed(0.85 + 0.3 * rng.next());
            let member = CrowdMember::new(member_transform(&place), clock).with_tint(tint);
            let Ok(handle) = crowd.members_mut().add(member) else {
                break;
            };
            let index = army.soldiers.len() as u32;
            army.soldiers.push((handle, orders, false));
            if orders != Orders::Press {
                let next = now + 2.0 + 30.0 * f64::from(rng.next());
                army.events.push(Reverse((key(next), index)));
            }
        }
        commands.spawn((crowd, army, Subject));
    }
    ready.0 = true;
}

/// The soldiers whose time has come: a fighter falls (a one-shot death,
/// held on its last frame), a soldier standing by taunts or waves and
/// stands again.
fn fight(
    time: Res<Time>,
    mut armies: Query<(&mut Md2Crowd, &mut Army)>,
    mut rng: Local<Option<Lcg>>,
) {
    let rng = rng.get_or_insert(Lcg(91));
    let now = time.elapsed_secs_f64();
    for (mut crowd, mut army) in &mut armies {
        while let Some(&Reverse((at, index))) = army.events.peek() {
            if at > key(now) {
                break;
            }
            army.events.pop();
            let (handle, orders, busy) = army.soldiers[index as usize];
            let members = crowd.members_mut();
            let (clip, next) = match (orders, busy) {
                (Orders::Fight, _) => {
                    let deaths = [
                        Quake2Player::Death1,
                        Quake2Player::Death2,
                        Quake2Player::Death3,
                    ];
                    (deaths[(rng.next() * 3.0) as usize % 3].clip(), None)
                }
                (Orders::StandBy, false) => {
                    let gesture = if rng.next() < 0.5 {
                        Quake2Player::Taunt
                    } else {
                        Quake2Player::Wave
                    };
                    let clip = gesture.clip();
                    let back = now + clip.duration();
                    (clip, Some(back))
                }
                (Orders::StandBy, true) => (
                    Quake2Player::Stand.clip(),
                    Some(now + 5.0 + 30.0 * f64::from(rng.next())),
                ),
                (Orders::Press, _) => continue,
            };
            if members
                .member(handle)
                .play(ClipClock::new(clip, now), now, 0.2)
                .is_err()
            {
                continue;
            }
            army.soldiers[index as usize].2 = !busy;
            if let Some(next) = next {
                army.events.push(Reverse((key(next), index)));
            }
        }
    }
}

/// The camera circles the front line, looking along it and over both
/// armies to the horizon.
fn orbit(time: Res<Time>, mut camera: Query<&mut Transform, With<Camera3d>>) {
    let angle = 0.6 + time.elapsed_secs() * 0.04;
    for mut transform in &mut camera {
        let eye = Vec3::new(angle.sin() * 40.0, 11.0, angle.cos() * 40.0);
        *transform = Transform::from_translation(eye).looking_at(Vec3::new(0.0, 0.5, 0.0), Vec3::Y);
    }
}

/// L: levels of detail on (at most a pixel off) or off (every soldier at
/// full detail); T: every soldier painted in its level's colour, or not.
fn keys(keys: Res<ButtonInput<KeyCode>>, mut crowds: Query<&mut Md2Crowd>) {
    for mut crowd in &mut crowds {
        if keys.just_pressed(KeyCode::KeyL) {
            let pixels = if crowd.level_error_pixels() > 0.0 {
                0.0
            } else {
                1.0
            };
            crowd.set_level_error_pixels(pixels);
        }
        if keys.just_pressed(KeyCode::KeyT) {
            let on = !crowd.level_tint();
            crowd.set_level_tint(on);
        }
    }
}

/// The frame time (a half-second average) and the soldiers drawn at each
/// level of detail, on screen (and in the log, unattended).
fn figures_on_screen(
    time: Res<Time<Real>>,
    args: Res<Args>,
    run: Res<UnattendedArgs>,
    crowds: Query<&Md2Crowd>,
    drawn: Res<Md2CrowdLevels>,
    mut text: Query<&mut Text, With<Figures>>,
    mut since: Local<(f64, u32)>,
) {
    since.0 += time.delta_secs_f64();
    since.1 += 1;
    if since.0 < 0.5 {
        return;
    }
    let ms = since.0 * 1000.0 / f64::from(since.1);
    *since = (0.0, 0);
    let soldiers: usize = crowds.iter().map(|c| c.members().len()).sum();
    let first = crowds.iter().next();
    let levels = first.is_none_or(|c| c.level_error_pixels() > 0.0);
    let tint = first.is_some_and(|c| c.level_tint());
    // Every view's (the camera's and each shadow cascade's), as the GPU
    // counted them.
    let colours = ["green", "blue", "red", "yellow", "magenta"];
    let per_level = drawn
        .get()
        .iter()
        .enumerate()
        .map(|(level, n)| format!("  level {level} ({}): {n}", colours[level]))
        .collect::<Vec<_>>()
        .join("\n");
    let figures = format!(
        "md2-bevy: a battle of {soldiers} soldiers (asked {})\n\
         {ms:.1} ms a frame\n\
         drawn per level of detail, camera and shadow maps:\n{per_level}\n\
         L: levels of detail {} | T: level colours {}",
        args.soldiers,
        if levels { "on" } else { "off" },
        if tint { "on" } else { "off" },
    );
    // Unattended, the log says it too.
    if run.frames.is_some() {
        println!("{}", figures.replace('\n', "; "));
    }
    for mut text in &mut text {
        text.0.clone_from(&figures);
    }
}
