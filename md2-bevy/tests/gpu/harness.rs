//! A headless Bevy app for the GPU tests, after Bevy 0.19's
//! `externally_driven_headless_renderer` example: Bevy's default plugins
//! without winit, windows or pipelined rendering (so one `update` runs the
//! main world, extraction and the render world in order), an in-memory
//! asset source, a clock that only moves when a test says so, and
//! screenshots of image targets read back to the CPU.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use bevy::asset::RenderAssetUsages;
use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::io::memory::{Dir, MemoryAssetReader};
use bevy::camera::RenderTarget;
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::render::RenderPlugin;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::render_resource::{
    Extent3d, PollType, TextureDimension, TextureFormat, TextureUsages,
};
use bevy::render::renderer::RenderDevice;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use md2_bevy::{Md2Asset, Md2Plugin};

/// The asset source the tests put files in: `memory://path`.
pub const MEMORY: &str = "memory";

/// The demo model's skin as a PNG file.
pub fn demo_skin_png() -> Vec<u8> {
    let mut png = Vec::new();
    md2_wgpu::demo::demo_skin()
        .write_to(
            &mut std::io::Cursor::new(&mut png),
            md2_wgpu::image::ImageFormat::Png,
        )
        .expect("the demo skin encodes");
    png
}

/// Whether a GPU test can run here: an adapter exists (its name is
/// printed), or the test is skipped loudly, or, with `MD2_REQUIRE_GPU=1`,
/// it fails.
pub fn gpu_or_skip(test: &str) -> bool {
    static ADAPTER: OnceLock<Option<String>> = OnceLock::new();
    let adapter = ADAPTER.get_or_init(|| {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = bevy::tasks::block_on(
            instance.request_adapter(&wgpu::RequestAdapterOptions::default()),
        )
        .ok()?;
        let info = adapter.get_info();
        Some(format!(
            "{} ({:?}, {:?})",
            info.name, info.backend, info.device_type
        ))
    });
    match adapter {
        Some(name) => {
            eprintln!("{test}: on {name}");
            true
        }
        None if std::env::var("MD2_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no GPU adapter, and MD2_REQUIRE_GPU=1 requires one")
        }
        None => {
            eprintln!("SKIPPED {test}: no GPU adapter (install mesa-vulkan-drivers for lavapipe)");
            false
        }
    }
}

/// A black background and an ambient light bright enough that every pixel
/// of a model is far from black: its silhouette is the pixels that are
/// not black.
pub fn bright_on_black(app: &mut App) {
    app.insert_resource(ClearColor(Color::BLACK))
        .insert_resource(bevy::light::GlobalAmbientLight {
            brightness: 20_000.0,
            ..default()
        });
}

/// Bevy's warnings and errors on stderr: one subscriber for the process,
/// since a test binary's apps share it.
fn install_subscriber() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        use tracing_subscriber::Layer;
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        let fmt = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(tracing_subscriber::filter::LevelFilter::WARN);
        let _ = tracing_subscriber::registry().with(fmt).try_init();
    });
}

/// A headless app with [`Md2Plugin`], one at a time per process (each has
/// its own device; lavapipe shares the CPU).
pub struct Harness {
    /// The app.
    pub app: App,
    /// The in-memory asset folder behind `memory://`.
    pub files: Dir,
    _serial: MutexGuard<'static, ()>,
}

impl Harness {
    /// The app, with `configure` applied before the plugins are finished.
    pub fn new(configure: impl FnOnce(&mut App)) -> Harness {
        static SERIAL: Mutex<()> = Mutex::new(());
        let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        install_subscriber();
        let files = Dir::default();
        let mut app = App::new();
        let reader_files = files.clone();
        app.register_asset_source(
            MEMORY,
            AssetSourceBuilder::new(move || {
                Box::new(MemoryAssetReader {
                    root: reader_files.clone(),
                })
            }),
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
        .add_plugins(Md2Plugin)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
        configure(&mut app);
        app.finish();
        app.cleanup();
        Harness {
            app,
            files,
            _serial: serial,
        }
    }

    /// Puts `bytes` at `memory://path`.
    pub fn add_file(&self, path: &str, bytes: Vec<u8>) {
        self.files.insert_asset(Path::new(path), bytes);
    }

    /// The demo model and its skin (a PNG beside it, found the Quake II
    /// way: the header names none, so the folder's image of the header's
    /// skin size is taken), loaded.
    pub fn load_demo(&mut self) -> Handle<Md2Asset> {
        self.add_file("demo/soldier.png", demo_skin_png());
        self.add_file("demo/tris.md2", md2_wgpu::demo::demo_model_bytes());
        let handle: Handle<Md2Asset> = self.asset_server().load("memory://demo/tris.md2");
        self.wait_loaded(&handle);
        handle
    }

    /// The asset server.
    pub fn asset_server(&self) -> AssetServer {
        self.app.world().resource::<AssetServer>().clone()
    }

    /// Updates until `handle` and its dependencies have loaded.
    pub fn wait_loaded<A: Asset>(&mut self, handle: &Handle<A>) {
        for _ in 0..2000 {
            if self.asset_server().is_loaded_with_dependencies(handle) {
                return;
            }
            if let Some(bevy::asset::LoadState::Failed(e)) =
                self.asset_server().get_load_state(handle)
            {
                panic!("{e}");
            }
            self.update();
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("the asset did not load");
    }

    /// The loaded model behind `handle`.
    pub fn md2_asset(&self, handle: &Handle<md2_bevy::Md2Asset>) -> md2_bevy::Md2Asset {
        self.app
            .world()
            .resource::<Assets<md2_bevy::Md2Asset>>()
            .get(handle)
            .expect("loaded")
            .clone()
    }

    /// The resident crowd on `entity`, to change between frames.
    pub fn crowd(&mut self, entity: Entity) -> Mut<'_, md2_bevy::Md2Crowd> {
        self.app
            .world_mut()
            .get_mut::<md2_bevy::Md2Crowd>(entity)
            .expect("a crowd")
    }

    /// One frame: the main world, extraction, the render world, and the GPU
    /// finished.
    pub fn update(&mut self) {
        self.app.update();
        self.app
            .world()
            .resource::<RenderDevice>()
            .wgpu_device()
            .poll(PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .expect("the device polls");
    }

    /// A `width` × `height` image a camera can draw into, in `format`.
    pub fn target(&mut self, width: u32, height: u32, format: TextureFormat) -> Handle<Image> {
        let mut image = Image::new_uninit(
            Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            TextureDimension::D2,
            format,
            RenderAssetUsages::RENDER_WORLD,
        );
        image.texture_descriptor.usage |= TextureUsages::RENDER_ATTACHMENT;
        self.app
            .world_mut()
            .resource_mut::<Assets<Image>>()
            .add(image)
    }

    /// The next frame drawn into `target`, read back (frames are drawn
    /// until it arrives).
    pub fn capture(&mut self, target: &Handle<Image>) -> Image {
        let slot: Arc<Mutex<Option<Image>>> = Arc::default();
        let seen = slot.clone();
        self.app
            .world_mut()
            .spawn(Screenshot::image(target.clone()))
            .observe(move |captured: On<ScreenshotCaptured>| {
                *seen.lock().unwrap() = Some(captured.image.clone());
            });
        for _ in 0..30 {
            self.update();
            if let Some(image) = slot.lock().unwrap().take() {
                return image;
            }
        }
        panic!("no screenshot arrived");
    }

    /// Spawns a camera drawing into `target` from `transform` through
    /// `projection`: no MSAA (coverage is one sample at the pixel centre),
    /// no tonemapping or dithering (values as the passes wrote them).
    pub fn camera(
        &mut self,
        target: &Handle<Image>,
        transform: Transform,
        projection: Projection,
        extra: impl Bundle,
    ) -> Entity {
        self.app
            .world_mut()
            .spawn((
                Camera3d::default(),
                RenderTarget::from(target.clone()),
                projection,
                transform,
                Msaa::Off,
                Tonemapping::None,
                DebandDither::Disabled,
                extra,
            ))
            .id()
    }

    /// A `size` × `size` plane of Bevy's `material` at the origin, facing
    /// up.
    pub fn plane(&mut self, size: f32, material: StandardMaterial) -> Entity {
        let world = self.app.world_mut();
        let mesh = world
            .resource_mut::<Assets<Mesh>>()
            .add(Plane3d::default().mesh().size(size, size));
        let material = world
            .resource_mut::<Assets<StandardMaterial>>()
            .add(material);
        world
            .spawn((Mesh3d(mesh), MeshMaterial3d(material), Transform::default()))
            .id()
    }

    /// World to clip space for `camera`, as Bevy draws it (after one
    /// update has computed the projection).
    pub fn clip_from_world(&mut self, camera: Entity) -> Mat4 {
        let world = self.app.world();
        let cam = world.get::<Camera>(camera).expect("a camera");
        let transform = world.get::<GlobalTransform>(camera).expect("placed");
        cam.clip_from_view() * transform.to_matrix().inverse()
    }
}

/// An image's pixels as `f32` RGBA, whatever its format (RGBA8 sRGB as
/// stored, 0 to 1; RGBA16F as written).
pub fn pixels(image: &Image) -> Vec<[f32; 4]> {
    let data = image.data.as_ref().expect("a read-back image has data");
    match image.texture_descriptor.format {
        TextureFormat::Rgba8UnormSrgb | TextureFormat::Rgba8Unorm => data
            .chunks_exact(4)
            .map(|p| [0, 1, 2, 3].map(|k| f32::from(p[k]) / 255.0))
            .collect(),
        TextureFormat::Bgra8UnormSrgb | TextureFormat::Bgra8Unorm => data
            .chunks_exact(4)
            .map(|p| [2, 1, 0, 3].map(|k| f32::from(p[k]) / 255.0))
            .collect(),
        TextureFormat::Rgba16Float => data
            .chunks_exact(8)
            .map(|p| [0, 1, 2, 3].map(|k| half(u16::from_le_bytes([p[2 * k], p[2 * k + 1]]))))
            .collect(),
        other => panic!("no reader for {other:?}"),
    }
}

/// An IEEE half as f32.
fn half(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// Writes `image` where a failing test can point to it:
/// `$CARGO_TARGET_TMPDIR/<name>-actual.png` (RGBA8; float images as their
/// values clamped to 0..1), and gives the path.
pub fn save_actual(image: &Image, name: &str) -> std::path::PathBuf {
    let (w, h) = (image.width(), image.height());
    let rgba: Vec<u8> = pixels(image)
        .iter()
        .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
        .collect();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-actual.png"));
    md2_wgpu::image::RgbaImage::from_raw(w, h, rgba)
        .expect("the size matches")
        .save(&path)
        .expect("the picture is written");
    path
}
