//! md2-bevy against Bevy's own morph targets, in one run, interleaved.
//!
//! For each model (md2-wgpu's demo soldier, and yohko from the community
//! models where they are present) and each crowd size (1,000 and 4,000),
//! two headless Bevy apps draw the same crowd from the same camera, every
//! entity running on its own phase:
//!
//! - **md2-bevy**: the `.md2` through the plugin (`Md2` + `Md2Animator`);
//! - **glTF morph**: the same model exported by md2-wgpu's
//!   `gltf::to_glb` (every frame a morph target), loaded by Bevy's glTF
//!   loader, its base-colour texture on a `StandardMaterial`, each entity
//!   with its own `MeshMorphWeights` set every frame from the same
//!   `Md2Animator` (two or four non-zero weights: MD2's lerp exactly).
//!
//! Rounds alternate the apps (A B B A ...), a few frames each, and each
//! round's ratio of mean frame times is kept; the medians are quoted. A
//! frame is one `update` and the wait for the GPU. Only the main pass is
//! drawn (no prepass, no shadows), into a 640 × 360 image, so the frame is
//! the vertex work the two strategies differ in, plus Bevy's own per-frame
//! work, which both pay.
//!
//! A second table (`--crowds 1000,10000,100000`) compares what a Bevy user
//! would do for a battle, the demo soldier at 1,000, 10,000 and 100,000,
//! interleaved the same way (A B C D, D C B A, ...): md2-bevy's resident
//! crowd (`Md2Crowd`: one entity, the members on the GPU), md2-bevy
//! entities, Bevy's morph targets, and Bevy's skinned meshes (the same
//! soldier as a skinned glTF, md2-wgpu's `demo_skinned_glb`: its 15 bones
//! as joints, each soldier a scene instance with its own
//! `AnimationPlayer`); for each, the CPU's frame (Bevy's whole `update`:
//! its schedules, extraction, the render world's preparation and
//! encoding), the frame with the GPU's work finished, the bytes written a
//! frame, and the GPU memory per member of the crowd and of the skinned
//! soldiers' joint matrices. Here the sun casts shadows over the whole
//! crowd (three cascades), so each strategy draws every soldier in the
//! main pass and in each cascade that sees it.
//!
//! ```sh
//! cargo bench -p md2-bevy --bench crowd                # the tables
//! cargo bench -p md2-bevy --bench crowd -- --rounds 3 --frames 2 --counts 1000 --crowds 1000
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::io::memory::{Dir, MemoryAssetReader};
use bevy::asset::{LoadState, RenderAssetUsages};
use bevy::camera::RenderTarget;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::diagnostic::DiagnosticsStore;
use bevy::gltf::GltfAssetLabel;
use bevy::light::CascadeShadowConfigBuilder;
use bevy::log::LogPlugin;
use bevy::mesh::morph::MeshMorphWeights;
use bevy::pbr::{MorphUniforms, SkinUniforms};
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::RenderPlugin;
use bevy::render::diagnostic::RenderDiagnosticsPlugin;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::render_resource::{
    Extent3d, PollType, TextureDimension, TextureFormat, TextureUsages,
};
use bevy::render::renderer::RenderDevice;
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::WorldInstanceReady;
use md2_bevy::{
    Md2, Md2Animator, Md2Asset, Md2Crowd, Md2CrowdStats, Md2Plugin, Md2Poses, member_transform,
};
use md2_wgpu::gltf::{GltfOptions, to_glb};
use md2_wgpu::image::RgbaImage;
use md2_wgpu::{CrowdMember, Md2Model, Quake2Player, anim::ClipClock, anim::Pose};

#[path = "../tests/gpu/scene_types.rs"]
mod scene_types;

const WIDTH: u32 = 640;
const HEIGHT: u32 = 360;
/// The animation clock's step per frame.
const FRAME: f64 = 1.0 / 60.0;
/// The largest crowd Bevy's morph targets are measured at.
const MORPH_UP_TO: u32 = 10_000;
/// The largest crowd Bevy's skinned meshes are measured at.
const SKINNED_UP_TO: u32 = 10_000;

struct Options {
    rounds: usize,
    frames: usize,
    counts: Vec<u32>,
    crowds: Vec<u32>,
}

fn options() -> Options {
    let mut options = Options {
        rounds: 7,
        frames: 3,
        counts: vec![1000, 4000],
        crowds: vec![1000, 10_000, 100_000],
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--rounds" => {
                options.rounds = it.next().and_then(|v| v.parse().ok()).expect("--rounds N")
            }
            "--frames" => {
                options.frames = it.next().and_then(|v| v.parse().ok()).expect("--frames N")
            }
            "--counts" | "--crowds" => {
                let counts: Vec<u32> = it
                    .next()
                    .expect("N,M (or 0 for none)")
                    .split(',')
                    .map(|n| n.parse().expect("a count"))
                    .filter(|&n| n > 0)
                    .collect();
                if arg == "--counts" {
                    options.counts = counts;
                } else {
                    options.crowds = counts;
                }
            }
            // What cargo bench passes to every bench.
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    options
}

/// A model for both strategies: the MD2 file with the images beside it,
/// and its GLB.
struct Subject {
    name: &'static str,
    files: Vec<(String, Vec<u8>)>,
    model_path: String,
    model: Md2Model,
    glb: Vec<u8>,
}

fn png(image: &RgbaImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            md2_wgpu::image::ImageFormat::Png,
        )
        .expect("PNG");
    bytes
}

fn subjects() -> Vec<Subject> {
    let demo = md2_wgpu::demo::demo_model();
    let skin = md2_wgpu::demo::demo_skin();
    let mut subjects = vec![Subject {
        name: "demo",
        files: vec![
            (
                "demo/tris.md2".to_owned(),
                md2_wgpu::demo::demo_model_bytes(),
            ),
            ("demo/skin.png".to_owned(), png(&skin)),
        ],
        model_path: "demo/tris.md2".to_owned(),
        glb: to_glb(&demo, &[skin], &GltfOptions::DEFAULT)
            .expect("exports")
            .glb,
        model: demo,
    }];
    let yohko = md2_wgpu::support::shared_models_dir().join("yohko");
    if yohko.join("tris.md2").exists() {
        let model = Md2Model::open(yohko.join("tris.md2")).expect("yohko loads");
        let skins = md2_wgpu::skins::load_skins(yohko.join("tris.md2"), &model);
        let first: Vec<RgbaImage> = skins.images.into_iter().take(1).collect();
        let files = std::fs::read_dir(&yohko)
            .expect("the folder lists")
            .map(|e| e.expect("an entry").path())
            .map(|p: PathBuf| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (format!("yohko/{name}"), std::fs::read(&p).expect("reads"))
            })
            .collect();
        subjects.push(Subject {
            name: "yohko",
            files,
            model_path: "yohko/tris.md2".to_owned(),
            glb: to_glb(&model, &first, &GltfOptions::DEFAULT)
                .expect("exports")
                .glb,
            model,
        });
    } else {
        eprintln!(
            "yohko skipped: {} is absent (set MD2_SHARED_MODELS)",
            yohko.display()
        );
    }
    subjects
}

/// A headless app drawing into an image, its files in `memory://`.
fn headless(files: &[(String, Vec<u8>)]) -> (App, Handle<Image>) {
    let dir = Dir::default();
    for (path, bytes) in files {
        dir.insert_asset(Path::new(path), bytes.clone());
    }
    let mut app = App::new();
    app.register_asset_source(
        "memory",
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
    );
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                ..default()
            })
            .set(RenderPlugin {
                synchronous_pipeline_compilation: true,
                ..default()
            })
            .disable::<WinitPlugin>()
            .disable::<PipelinedRenderingPlugin>()
            .disable::<LogPlugin>(),
    )
    .add_plugins((Md2Plugin, RenderDiagnosticsPlugin))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        FRAME,
    )));
    app.finish();
    app.cleanup();
    let mut image = Image::new_uninit(
        Extent3d {
            width: WIDTH,
            height: HEIGHT,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.texture_descriptor.usage |= TextureUsages::RENDER_ATTACHMENT;
    let target = app.world_mut().resource_mut::<Assets<Image>>().add(image);
    (app, target)
}

fn frame(app: &mut App) -> Duration {
    timed_frame(app).1
}

/// One frame: Bevy's `update` alone (the CPU's frame), and with the wait
/// for the GPU (the whole frame).
fn timed_frame(app: &mut App) -> (Duration, Duration) {
    let started = Instant::now();
    app.update();
    let cpu = started.elapsed();
    app.world()
        .resource::<RenderDevice>()
        .wgpu_device()
        .poll(PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .expect("the device polls");
    (cpu, started.elapsed())
}

fn wait_loaded(app: &mut App, handle: impl Into<bevy::asset::UntypedAssetId> + Copy) {
    for _ in 0..5000 {
        let server = app.world().resource::<AssetServer>();
        match server.get_load_state(handle) {
            Some(LoadState::Loaded) => return,
            Some(LoadState::Failed(e)) => panic!("{e}"),
            _ => {}
        }
        frame(app);
    }
    panic!("an asset did not load");
}

/// The crowd's place: a grid, every soldier a little turned.
fn place(i: u32, count: u32) -> Transform {
    let columns = (f64::from(count) * 1.6).sqrt().ceil() as u32;
    Transform::from_xyz(
        (i % columns) as f32 * 40.0,
        0.0,
        (i / columns) as f32 * 40.0,
    )
    .with_rotation(Quat::from_rotation_y(i as f32 * 0.7))
}

/// The camera over `count` soldiers and the sun; with `shadows`, the sun
/// casts them over the whole crowd (three cascades out to twice the
/// camera's distance), so every soldier is drawn in each cascade that sees
/// it as well as in the main pass.
fn camera(app: &mut App, target: &Handle<Image>, count: u32, shadows: bool) {
    let columns = (f64::from(count) * 1.6).sqrt().ceil() as f32;
    let rows = (count as f32 / columns).ceil();
    let centre = Vec3::new(columns * 20.0, 0.0, rows * 20.0);
    let distance = columns * 40.0;
    app.world_mut().spawn((
        Camera3d::default(),
        RenderTarget::from(target.clone()),
        Tonemapping::None,
        Msaa::Off,
        Transform::from_translation(centre + Vec3::new(0.0, distance * 0.6, distance * 0.7))
            .looking_at(centre, Vec3::Y),
    ));
    let sun = Transform::default().looking_to(Vec3::new(-0.4, -1.0, -0.3), Vec3::Y);
    if shadows {
        app.world_mut().spawn((
            DirectionalLight {
                shadow_maps_enabled: true,
                ..default()
            },
            sun,
            CascadeShadowConfigBuilder {
                num_cascades: 3,
                first_cascade_far_bound: distance * 0.5,
                maximum_distance: distance * 2.0,
                ..default()
            }
            .build(),
        ));
    } else {
        app.world_mut().spawn((DirectionalLight::default(), sun));
    }
}

fn animator(i: u32) -> Md2Animator {
    Md2Animator::player(Quake2Player::Run).with_phase(f64::from(i) * 0.037)
}

/// A headless app with `subject`'s model loaded and the camera and light
/// for `count`.
fn app_with_model(subject: &Subject, count: u32, shadows: bool) -> (App, Handle<Md2Asset>) {
    let (mut app, target) = headless(&subject.files);
    let model: Handle<Md2Asset> = app
        .world()
        .resource::<AssetServer>()
        .load(format!("memory://{}", subject.model_path));
    wait_loaded(&mut app, &model);
    camera(&mut app, &target, count, shadows);
    (app, model)
}

/// The plugin's crowd.
fn plugin_app(subject: &Subject, count: u32, shadows: bool) -> App {
    let (mut app, model) = app_with_model(subject, count, shadows);
    for i in 0..count {
        app.world_mut()
            .spawn((Md2(model.clone()), animator(i), place(i, count)));
    }
    app
}

/// Sets each glTF entity's morph weights to its animator's pose: weight
/// `1 − t` on frame a and `t` on frame b (a crossfade splits both pairs),
/// every other weight 0. Frame 0 is the base and its own (zero) target, so
/// the morphed position is exactly MD2's lerp.
fn drive_weights(time: Res<Time>, mut crowd: Query<(&Md2Animator, &mut MeshMorphWeights)>) {
    let now = time.elapsed_secs_f64();
    for (animator, mut weights) in &mut crowd {
        let MeshMorphWeights::Value { weights } = &mut *weights else {
            continue;
        };
        weights.fill(0.0);
        let Pose {
            primary,
            secondary,
            weight,
        } = animator.pose(now);
        let weight = if weight.is_nan() {
            0.0
        } else {
            weight.clamp(0.0, 1.0)
        };
        for (lerp, share) in [(primary, 1.0 - weight), (secondary, weight)] {
            let t = if lerp.t.is_nan() {
                0.0
            } else {
                lerp.t.clamp(0.0, 1.0)
            };
            if let Some(w) = weights.get_mut(lerp.frame_a as usize) {
                *w += (1.0 - t) * share;
            }
            if let Some(w) = weights.get_mut(lerp.frame_b as usize) {
                *w += t * share;
            }
        }
    }
}

/// Bevy's morph-target crowd: GPU bytes of the mesh (vertex buffer,
/// indices, morph targets) and of its texture.
fn gltf_app(subject: &Subject, count: u32, shadows: bool) -> (App, u64, u64) {
    let files = vec![("model.glb".to_owned(), subject.glb.clone())];
    let (mut app, target) = headless(&files);
    app.add_systems(Update, drive_weights);
    let server = app.world().resource::<AssetServer>().clone();
    let mesh: Handle<Mesh> = server.load(
        GltfAssetLabel::Primitive {
            mesh: 0,
            primitive: 0,
        }
        .from_asset("memory://model.glb"),
    );
    let texture: Handle<Image> =
        server.load(GltfAssetLabel::Texture(0).from_asset("memory://model.glb"));
    wait_loaded(&mut app, &mesh);
    wait_loaded(&mut app, &texture);
    let (geometry, texels) = {
        let meshes = app.world().resource::<Assets<Mesh>>();
        let m = meshes.get(&mesh).expect("loaded");
        let indices = m.indices().map_or(0, |i| match i {
            bevy::mesh::Indices::U16(v) => 2 * v.len(),
            bevy::mesh::Indices::U32(v) => 4 * v.len(),
        });
        let targets = m.morph_targets().map_or(0, |t| {
            t.len() * size_of::<bevy::mesh::morph::MorphAttributes>()
        });
        let image = app.world().resource::<Assets<Image>>().get(&texture);
        let texels = image.and_then(|i| i.data.as_ref()).map_or(0, Vec::len);
        (
            (m.get_vertex_buffer_size() + indices + targets) as u64,
            texels as u64,
        )
    };
    let material = app
        .world_mut()
        .resource_mut::<Assets<StandardMaterial>>()
        .add(StandardMaterial {
            base_color_texture: Some(texture),
            perceptual_roughness: 1.0,
            metallic: 0.0,
            ..default()
        });
    camera(&mut app, &target, count, shadows);
    let frames = subject.model.keyframes().frame_count() as usize;
    for i in 0..count {
        app.world_mut().spawn((
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            MeshMorphWeights::Value {
                weights: vec![0.0; frames],
            },
            animator(i),
            place(i, count),
        ));
    }
    (app, geometry, texels)
}

/// Vertex-shader runs in the last frame measured: Bevy's render
/// diagnostics (pipeline statistics queries), summed over the passes.
fn vertex_runs(app: &App) -> Option<f64> {
    let store = app.world().resource::<DiagnosticsStore>();
    let runs: Vec<f64> = store
        .iter()
        .filter(|d| d.path().as_str().ends_with("vertex_shader_invocations"))
        .filter_map(|d| d.value())
        .collect();
    (!runs.is_empty()).then(|| runs.iter().sum())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) * 0.5
    }
}

struct Row {
    model: &'static str,
    count: u32,
    plugin_ms: f64,
    gltf_ms: f64,
    ratio: f64,
    ratios: Vec<f64>,
    plugin_vs: Option<f64>,
    gltf_vs: Option<f64>,
    plugin_bytes: u64,
    plugin_texels: u64,
    gltf_bytes: u64,
    gltf_texels: u64,
    plugin_upload: u64,
    gltf_upload: u64,
}

fn main() {
    let options = options();
    let mut rows = Vec::new();
    for subject in subjects() {
        for &count in &options.counts {
            eprintln!("{} × {count}: building both apps", subject.name);
            let mut plugin = plugin_app(&subject, count, false);
            let (mut gltf, gltf_bytes, gltf_texels) = gltf_app(&subject, count, false);
            // Pipelines, buffers and the first uploads before measuring.
            for _ in 0..3 {
                frame(&mut plugin);
                frame(&mut gltf);
            }
            let (mut plugin_frames, mut gltf_frames, mut ratios) =
                (Vec::new(), Vec::new(), Vec::new());
            for round in 0..options.rounds {
                let run = |app: &mut App, into: &mut Vec<f64>| {
                    let mut total = 0.0;
                    for _ in 0..options.frames {
                        let ms = frame(app).as_secs_f64() * 1000.0;
                        into.push(ms);
                        total += ms;
                    }
                    total / options.frames as f64
                };
                let (p, g) = if round % 2 == 0 {
                    let p = run(&mut plugin, &mut plugin_frames);
                    (p, run(&mut gltf, &mut gltf_frames))
                } else {
                    let g = run(&mut gltf, &mut gltf_frames);
                    (run(&mut plugin, &mut plugin_frames), g)
                };
                eprintln!(
                    "  round {round}: md2-bevy {p:.1} ms, glTF morph {g:.1} ms, ratio {:.2}",
                    g / p
                );
                ratios.push(g / p);
            }
            let asset = {
                let models = plugin.world().resource::<Assets<Md2Asset>>();
                let (_, asset) = models.iter().next().expect("the model");
                asset.gpu_bytes()
            };
            let morph = gltf.sub_app(RenderApp).world().resource::<MorphUniforms>();
            let gltf_upload = (morph.current_buffer.len() * 4) as u64
                + morph.descriptors_buffer.as_ref().map_or(0, |d| {
                    (d.len() * size_of::<bevy::pbr::GpuMorphDescriptor>()) as u64
                });
            rows.push(Row {
                model: subject.name,
                count,
                plugin_ms: median(&mut plugin_frames),
                gltf_ms: median(&mut gltf_frames),
                ratio: median(&mut ratios.clone()),
                ratios,
                plugin_vs: vertex_runs(&plugin),
                gltf_vs: vertex_runs(&gltf),
                // The geometry and the normal table (4,096 bytes).
                plugin_bytes: asset.geometry() + 4096,
                plugin_texels: asset.skins,
                gltf_bytes,
                gltf_texels,
                plugin_upload: plugin.world().resource::<Md2Poses>().bytes_per_frame(),
                gltf_upload,
            });
        }
    }
    print_table(&rows);
    if !options.crowds.is_empty() {
        crowds(&options);
    }
}

/// When the main world's frame began, and how long its last one took: the
/// CPU's own frame, whatever the render world and the GPU take (on
/// lavapipe the GPU's work runs inside the render world's submit).
#[derive(Resource, Default)]
struct MainFrame {
    started: Option<Instant>,
    last: Duration,
}

fn main_frame_starts(mut frame: ResMut<MainFrame>) {
    frame.started = Some(Instant::now());
}

fn main_frame_ends(mut frame: ResMut<MainFrame>) {
    if let Some(started) = frame.started {
        frame.last = started.elapsed();
    }
}

/// Times `app`'s main-world frame (from `First` to `Last`).
fn time_main_world(app: &mut App) {
    app.init_resource::<MainFrame>()
        .add_systems(First, main_frame_starts)
        .add_systems(Last, main_frame_ends);
}

/// md2-bevy's resident crowd of `count` demo soldiers, on the places and
/// phases of the entities'.
fn crowd_app(subject: &Subject, count: u32, shadows: bool) -> App {
    let (mut app, model) = app_with_model(subject, count, shadows);
    let asset = app
        .world()
        .resource::<Assets<Md2Asset>>()
        .get(&model)
        .expect("loaded")
        .clone();
    let mut crowd = Md2Crowd::new(model, &asset);
    crowd.members_mut().reserve(count as usize);
    for i in 0..count {
        let clock = ClipClock::new(Quake2Player::Run.clip(), -f64::from(i) * 0.037);
        let member = CrowdMember::new(member_transform(&place(i, count)), clock);
        crowd.members_mut().add(member).expect("a member");
    }
    app.world_mut().spawn(crowd);
    app
}

/// Which soldier a skinned scene instance is: its phase.
#[derive(Component)]
struct SkinnedSoldier(u32);

/// The skinned soldiers' animation graph and its one clip, the run.
#[derive(Resource)]
struct SkinnedRun {
    graph: Handle<AnimationGraph>,
    node: AnimationNodeIndex,
    /// The run's length in seconds, its last key back on its first.
    length: f32,
}

/// Starts a skinned soldier's run at its phase once its scene instance is
/// in the world, as Bevy's own many-foxes stress test does.
fn start_running(
    ready: On<WorldInstanceReady>,
    soldiers: Query<&SkinnedSoldier>,
    run: Res<SkinnedRun>,
    children: Query<&Children>,
    mut players: Query<&mut AnimationPlayer>,
    mut commands: Commands,
) {
    let Ok(soldier) = soldiers.get(ready.entity) else {
        return;
    };
    // The entities' phases (`animator`), within the run's loop.
    let phase = (soldier.0 as f32 * 0.037) % run.length;
    for child in children.iter_descendants(ready.entity) {
        if let Ok(mut player) = players.get_mut(child) {
            player.play(run.node).repeat().seek_to(phase);
            commands
                .entity(child)
                .insert(AnimationGraphHandle(run.graph.clone()));
        }
    }
}

/// Bevy's skeletal animation: the demo soldier as a skinned glTF
/// (md2-wgpu's `demo_skinned_glb`: its 15 bones as joints, its run as
/// joint keys), each soldier an instance of its scene with its own
/// `AnimationPlayer` on its own phase; Bevy samples the joints' curves,
/// propagates their transforms and uploads their matrices every frame.
fn skinned_app(count: u32, shadows: bool) -> App {
    let files = vec![("soldier.glb".to_owned(), md2_wgpu::demo::demo_skinned_glb())];
    let (mut app, target) = headless(&files);
    scene_types::register_scene_types(&mut app);
    let demo = md2_wgpu::demo::demo_model();
    let clips = md2_wgpu::Clip::for_model(demo.keyframes());
    let run = clips
        .iter()
        .position(|c| &*c.name == "run")
        .expect("the demo runs");
    let length = (clips[run].frames().count() as f32) / clips[run].fps;
    let server = app.world().resource::<AssetServer>().clone();
    let clip: Handle<AnimationClip> =
        server.load(GltfAssetLabel::Animation(run).from_asset("memory://soldier.glb"));
    let scene: Handle<WorldAsset> =
        server.load(GltfAssetLabel::Scene(0).from_asset("memory://soldier.glb"));
    wait_loaded(&mut app, &clip);
    wait_loaded(&mut app, &scene);
    let (graph, node) = AnimationGraph::from_clip(clip);
    let graph = app
        .world_mut()
        .resource_mut::<Assets<AnimationGraph>>()
        .add(graph);
    app.insert_resource(SkinnedRun {
        graph,
        node,
        length,
    })
    .add_observer(start_running);
    camera(&mut app, &target, count, shadows);
    for i in 0..count {
        app.world_mut().spawn((
            WorldAssetRoot(scene.clone()),
            place(i, count),
            SkinnedSoldier(i),
        ));
    }
    // Every instance spawned and running before anything is measured.
    for _ in 0..100 {
        let mut players = app
            .world_mut()
            .query_filtered::<(), (With<AnimationPlayer>, With<AnimationGraphHandle>)>();
        if players.iter(app.world()).count() == count as usize {
            return app;
        }
        frame(&mut app);
    }
    panic!("the skinned soldiers' scenes did not all spawn");
}

/// The battle table: the resident crowd, entities, morph targets and
/// skinned meshes.
fn crowds(options: &Options) {
    let subject = subjects().into_iter().next().expect("the demo");
    const NAMES: [&str; 4] = ["crowd", "entities", "morph", "skinned"];
    println!();
    println!(
        "| soldiers | main world's frame (CPU): crowd / entities / morph / skinned | frame (GPU finished): crowd / entities / morph / skinned | written a frame: crowd / entities / morph / skinned | GPU memory per member: crowd / skinned (joint matrices) |"
    );
    println!("|---|---|---|---|---|");
    for &count in &options.crowds {
        eprintln!("{count} soldiers: building the apps");
        // Bevy's morph targets take a second a frame for 1,000 on lavapipe,
        // and its skinned soldiers are some 17 entities each: they are
        // compared up to `MORPH_UP_TO` and `SKINNED_UP_TO`.
        let mut apps: [Option<App>; 4] = [
            Some(crowd_app(&subject, count, true)),
            Some(plugin_app(&subject, count, true)),
            (count <= MORPH_UP_TO).then(|| gltf_app(&subject, count, true).0),
            (count <= SKINNED_UP_TO).then(|| skinned_app(count, true)),
        ];
        for app in apps.iter_mut().flatten() {
            time_main_world(app);
            for _ in 0..3 {
                frame(app);
            }
        }
        let mut cpu: [Vec<f64>; 4] = Default::default();
        let mut whole: [Vec<f64>; 4] = Default::default();
        for round in 0..options.rounds {
            let mut order: Vec<usize> = (0..apps.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for k in order {
                let Some(app) = apps[k].as_mut() else {
                    continue;
                };
                for _ in 0..options.frames {
                    let (_, w) = timed_frame(app);
                    let main = app.world().resource::<MainFrame>().last;
                    cpu[k].push(main.as_secs_f64() * 1000.0);
                    whole[k].push(w.as_secs_f64() * 1000.0);
                }
            }
            let last =
                |v: &[Vec<f64>; 4], k: usize| v[k].last().map_or("-".into(), |x| format!("{x:.2}"));
            eprintln!(
                "  round {round}: main world {} ms, frames {} ms ({})",
                (0..4)
                    .map(|k| last(&cpu, k))
                    .collect::<Vec<_>>()
                    .join(" / "),
                (0..4)
                    .map(|k| last(&whole, k))
                    .collect::<Vec<_>>()
                    .join(" / "),
                NAMES.join(" / "),
            );
        }
        let render = |k: usize| apps[k].as_ref().map(|app| app.sub_app(RenderApp).world());
        let stats = render(0).expect("the crowd").resource::<Md2CrowdStats>();
        let per_member = stats.gpu_bytes as f64 / f64::from(count);
        let written = [
            Some(stats.bytes_written),
            apps[1]
                .as_ref()
                .map(|app| app.world().resource::<Md2Poses>().bytes_per_frame()),
            render(2).map(|world| {
                let morph = world.resource::<MorphUniforms>();
                (morph.current_buffer.len() * 4) as u64
                    + morph.descriptors_buffer.as_ref().map_or(0, |d| {
                        (d.len() * size_of::<bevy::pbr::GpuMorphDescriptor>()) as u64
                    })
            }),
            // Bevy writes every joint matrix of the frame, each frame.
            render(3).map(|world| {
                let skins = world.resource::<SkinUniforms>();
                (skins.current_staging_buffer.len() * size_of::<Mat4>()) as u64
            }),
        ];
        // The joint matrices, this frame's and the last (motion vectors).
        let skinned_per_member = render(3).map(|world| {
            let skins = world.resource::<SkinUniforms>();
            (skins.current_buffer.size() + skins.prev_buffer.size()) as f64 / f64::from(count)
        });
        let cpu = cpu.map(|mut v| (!v.is_empty()).then(|| median(&mut v)));
        let whole = whole.map(|mut v| (!v.is_empty()).then(|| median(&mut v)));
        let cells = |values: &[Option<f64>; 4], digits: usize| {
            let shown: Vec<String> = values
                .iter()
                .map(|v| v.map_or("not run".to_owned(), |v| format!("{v:.digits$}")))
                .collect();
            format!("{} ms", shown.join(" / "))
        };
        let bytes: Vec<String> = written
            .iter()
            .map(|b| b.map_or("not run".to_owned(), thousands))
            .collect();
        println!(
            "| {} | {} | {} | {} B | {per_member:.0} / {} B |",
            thousands(u64::from(count)),
            cells(&cpu, 2),
            cells(&whole, 1),
            bytes.join(" / "),
            skinned_per_member.map_or("not run".to_owned(), |b| format!("{b:.0}")),
        );
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn print_table(rows: &[Row]) {
    println!(
        "| model × entities | frame, md2-bevy | frame, glTF morph | ratio (median of rounds; range) | vertex-shader runs, md2-bevy / glTF | model on the GPU (geometry + skin), md2-bevy / glTF | uploaded per frame, md2-bevy / glTF |"
    );
    println!("|---|---|---|---|---|---|---|");
    for r in rows {
        let lo = r.ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = r.ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let vs = match (r.plugin_vs, r.gltf_vs) {
            (Some(p), Some(g)) => format!("{} / {}", thousands(p as u64), thousands(g as u64)),
            _ => "not measured".to_owned(),
        };
        println!(
            "| {} × {} | {:.1} ms | {:.1} ms | {:.2}× ({:.2}–{:.2}) | {vs} | {} + {} / {} + {} B | {} / {} B |",
            r.model,
            thousands(u64::from(r.count)),
            r.plugin_ms,
            r.gltf_ms,
            r.ratio,
            lo,
            hi,
            thousands(r.plugin_bytes),
            thousands(r.plugin_texels),
            thousands(r.gltf_bytes),
            thousands(r.gltf_texels),
            thousands(r.plugin_upload),
            thousands(r.gltf_upload),
        );
    }
}
