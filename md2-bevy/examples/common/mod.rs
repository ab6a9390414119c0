//! What md2-bevy's examples share: the demo model and its skin as an
//! in-memory asset source, a small deterministic generator, and the
//! unattended run (`--frames N --screenshot PATH [--check-screenshot]`)
//! that CI drives: the picture N frames after the scene is ready, and with
//! the check, the same view without the scene's subjects, to see that they
//! are in the picture.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy::asset::io::AssetSourceBuilder;
use bevy::asset::io::memory::{Dir, MemoryAssetReader};
use bevy::diagnostic::FrameCount;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};

/// Registers md2-wgpu's demo model and its skin as the files
/// `demo://soldier/tris.md2` and `demo://soldier/skin.png`: they load
/// through Bevy's reader like any model on disk.
pub fn register_demo(app: &mut App) {
    let demo = Dir::default();
    let mut skin_png = Vec::new();
    md2_wgpu::demo::demo_skin()
        .write_to(
            &mut std::io::Cursor::new(&mut skin_png),
            md2_wgpu::image::ImageFormat::Png,
        )
        .expect("the demo skin encodes");
    demo.insert_asset(Path::new("soldier/skin.png"), skin_png);
    demo.insert_asset(
        Path::new("soldier/tris.md2"),
        md2_wgpu::demo::demo_model_bytes(),
    );
    app.register_asset_source(
        "demo",
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: demo.clone() })),
    );
}

/// Registers `folder` as the asset source `source` (a model's folder, so
/// its skins are found beside it).
pub fn register_folder(app: &mut App, source: &'static str, folder: &Path) {
    let folder = std::path::absolute(folder).unwrap_or_else(|_| PathBuf::from("."));
    app.register_asset_source(
        source,
        AssetSourceBuilder::platform_default(&folder.to_string_lossy(), None),
    );
}

/// A small deterministic generator, so every run shows the same crowd.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The unattended run's arguments.
#[derive(Resource, Clone, Debug, Default)]
pub struct UnattendedArgs {
    pub frames: Option<u32>,
    pub screenshot: Option<PathBuf>,
    pub check: bool,
}

impl UnattendedArgs {
    /// Takes `arg` (and its value, from `value`) if it is one of the
    /// unattended run's: `--frames N`, `--screenshot PATH`,
    /// `--check-screenshot`; `Ok(false)` for any other.
    pub fn take(
        &mut self,
        arg: &str,
        value: impl FnOnce() -> Result<String, String>,
    ) -> Result<bool, String> {
        match arg {
            "--frames" => {
                self.frames = Some(value()?.parse().map_err(|e| format!("--frames: {e}"))?)
            }
            "--screenshot" => self.screenshot = Some(PathBuf::from(value()?)),
            "--check-screenshot" => self.check = true,
            _ => return Ok(false),
        }
        // A screenshot without a frame count is taken 60 frames in.
        if self.screenshot.is_some() && self.frames.is_none() {
            self.frames = Some(60);
        }
        Ok(true)
    }
}

/// `WIDTHxHEIGHT` in pixels.
pub fn parse_size(value: &str) -> Result<(u32, u32), String> {
    let (w, h) = value.split_once('x').ok_or("--size is WIDTHxHEIGHT")?;
    Ok((
        w.parse().map_err(|e| format!("--size: {e}"))?,
        h.parse().map_err(|e| format!("--size: {e}"))?,
    ))
}

/// Set by the example once its scene has what it shows (models loaded):
/// the unattended run counts its frames from then.
#[derive(Resource, Default)]
pub struct SceneReady(pub bool);

/// What the check hides for its second picture.
#[derive(Component)]
pub struct Subject;

/// What the unattended run has captured.
#[derive(Default)]
pub struct Captures {
    with_crowd: Option<Image>,
    without_crowd: Option<Image>,
}

/// Where the unattended run is: the frame the crowd had its model, the
/// step (0 nothing asked, 1 the picture asked, 2 the crowd hidden, 3
/// waiting for the picture alone, 4 waiting for the background), and what
/// has arrived.
#[derive(Default)]
pub struct Unattended {
    start: Option<u32>,
    asked: u32,
    captures: Arc<Mutex<Captures>>,
}

/// `--frames N --screenshot PATH`: the picture N frames after the scene
/// is ready (loading takes a machine-dependent number of frames) is saved,
/// then (with `--check-screenshot`) the same view without the [`Subject`]s
/// is taken, to check that they are in the picture; then exit.
pub fn unattended(
    mut commands: Commands,
    args: Res<UnattendedArgs>,
    ready: Res<SceneReady>,
    frame: Res<FrameCount>,
    mut crowd: Query<&mut Visibility, With<Subject>>,
    mut exit: MessageWriter<AppExit>,
    mut state: Local<Unattended>,
) {
    let state = &mut *state;
    let captures = state.captures.clone();
    let asked = &mut state.asked;
    let start = &mut state.start;
    let Some(frames) = args.frames else {
        return;
    };
    if start.is_none() && ready.0 {
        *start = Some(frame.0);
    }
    let Some(start) = *start else {
        if frame.0 > 6000 {
            eprintln!("error: the model did not load");
            exit.write(AppExit::error());
        }
        return;
    };
    let frames = start + frames;
    let shot = |with: bool| {
        let captures = captures.clone();
        move |captured: On<ScreenshotCaptured>| {
            let mut captures = captures.lock().unwrap();
            let slot = if with {
                &mut captures.with_crowd
            } else {
                &mut captures.without_crowd
            };
            *slot = Some(captured.image.clone());
        }
    };
    if frame.0 == frames && *asked == 0 {
        *asked = 1;
        commands
            .spawn(Screenshot::primary_window())
            .observe(shot(true));
    }
    let have_first = captures.lock().unwrap().with_crowd.is_some();
    if have_first && *asked == 1 {
        if args.screenshot.is_none() || !args.check {
            *asked = 3;
        } else {
            for mut visibility in &mut crowd {
                *visibility = Visibility::Hidden;
            }
            *asked = 2;
            return;
        }
    }
    if *asked == 2 {
        commands
            .spawn(Screenshot::primary_window())
            .observe(shot(false));
        *asked = 4;
    }
    let mut captures = captures.lock().unwrap();
    let done = match *asked {
        3 => captures.with_crowd.is_some(),
        4 => captures.without_crowd.is_some(),
        _ => false,
    };
    if frame.0 > frames + 600 {
        eprintln!("error: no screenshot arrived");
        exit.write(AppExit::error());
        return;
    }
    if !done {
        return;
    }
    let with = captures.with_crowd.take().expect("captured");
    let code = match &args.screenshot {
        None => AppExit::Success,
        Some(path) => match save(&with, path) {
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                AppExit::error()
            }
            Ok(picture) => {
                println!("screenshot: {}", path.display());
                match captures.without_crowd.take() {
                    Some(background) => check(&picture, &background),
                    None => AppExit::Success,
                }
            }
        },
    };
    exit.write(code);
}

fn rgba(image: &Image) -> Result<md2_wgpu::image::RgbaImage, String> {
    image
        .clone()
        .try_into_dynamic()
        .map(|d| d.to_rgba8())
        .map_err(|e| e.to_string())
}

fn save(image: &Image, path: &Path) -> Result<md2_wgpu::image::RgbaImage, String> {
    let picture = rgba(image)?;
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|e| e.to_string())?;
    }
    md2_wgpu::image::DynamicImage::ImageRgba8(picture.clone())
        .to_rgb8()
        .save(path)
        .map_err(|e| e.to_string())?;
    Ok(picture)
}

/// Exit 1 when the picture is one colour, or the subjects change under 1%
/// of its pixels.
fn check(picture: &md2_wgpu::image::RgbaImage, background: &Image) -> AppExit {
    let Ok(background) = rgba(background) else {
        eprintln!("check: the second screenshot does not convert");
        return AppExit::error();
    };
    let first = picture.get_pixel(0, 0);
    if picture.pixels().all(|p| p == first) {
        eprintln!("check: the picture is one colour");
        return AppExit::error();
    }
    let differing = picture
        .pixels()
        .zip(background.pixels())
        .filter(|(a, b)| {
            a.0[..3]
                .iter()
                .zip(&b.0[..3])
                .any(|(x, y)| x.abs_diff(*y) > 8)
        })
        .count();
    let share = differing as f64 / f64::from(picture.width() * picture.height());
    println!(
        "check: the crowd changes {:.1}% of the pixels",
        share * 100.0
    );
    if share < 0.01 {
        eprintln!("check: the crowd is not in the picture");
        return AppExit::error();
    }
    AppExit::Success
}
