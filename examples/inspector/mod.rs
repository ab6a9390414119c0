//! The viewer's model inspector: an egui interface around a 3D view drawn
//! by an egui-wgpu paint callback, shown by the native viewer
//! (`examples/viewer/`) and by the web page (`web/`).
//!
//! [`Inspector`] is plain state (the model and its upload, the player, the
//! skin, the effects, the camera, errors) plus [`Inspector::ui`], which
//! builds a frame's interface inside any `egui::Ui`: the viewer's window
//! calls it, the web page's eframe app calls it, and so do the UI tests
//! (through `egui_kittest`, no window), which then read the state back.
//! What only its host can do (a file picker, a download) it asks for with
//! a [`HostRequest`]; files that arrive as bytes come in through
//! [`Inspector::open_files`].
//!
//! - `model.rs`: a file read, its skins found, its upload and facts;
//! - `files.rs`: files given as bytes, sorted into a model, a weapon and
//!   their skins;
//! - `player.rs`: the clip playing and its clock;
//! - `scene.rs`: the paint callback and what it keeps between frames;
//! - `orbit.rs`: the camera;
//! - `panels.rs`: the panels;
//! - `window.rs`: the native viewer's window (the framework's `GuiApp`).

pub mod files;
pub mod model;
pub mod orbit;
mod panels;
pub mod player;
pub mod quake3;
pub mod scene;
#[cfg(not(target_arch = "wasm32"))]
mod window;

use std::path::Path;
use std::sync::Arc;

use egui_wgpu::CallbackResources;
use md2_wgpu::glam::{Mat4, Vec3};
use md2_wgpu::scene::quake_flags::{
    RF_SHELL_BLUE, RF_SHELL_DOUBLE, RF_SHELL_GREEN, RF_SHELL_HALF_DAM, RF_SHELL_RED,
};
use md2_wgpu::{
    GpuModel, Light, Md2Instance, Md2Renderer,
    anim::{FrameLerp, Pose},
    gpu::{GpuPlayer, Md2Cache, PlayerInstance},
    scene::{Effects, PlanarShadow},
    wgpu,
};

use crate::ground::GroundParams;
use files::{NamedFile, Opened};
use model::{LoadedModel, ModelFile};
use orbit::Orbit;
use player::Player;
use quake3::{LoadedPlayer, PlayerFile};
use scene::{SceneFrame, SceneResources, SceneStats, SceneTarget};

/// Quake II's powerup shells, as the interface and the Q key offer them.
pub const SHELLS: [(&str, u32); 5] = [
    ("red", RF_SHELL_RED),
    ("green", RF_SHELL_GREEN),
    ("blue", RF_SHELL_BLUE),
    ("double damage", RF_SHELL_DOUBLE),
    ("half damage", RF_SHELL_HALF_DAM),
];

/// The 3D view's background in linear light; the ground fades into it.
const BACKGROUND: [f32; 3] = [0.05, 0.06, 0.08];

/// The shortcuts both hosts list, up to the planar shadow's (which the web
/// page qualifies), as one literal.
macro_rules! shared_keys {
    () => {
        "\
keys (when no text field has the keyboard):
  N / Right    next animation          P / Left     previous animation
  F            crossfade into the next animation (instead of cutting)
  Space        pause                   , / .        step a frame back / on
  - / +        slower / faster         I            interpolation on / off (Quake-style steps)
  S            next skin               R            reset the camera
  Q            powerup shell: red, green, blue, double damage, half damage, off
  G            planar shadow on the ground on / off"
    };
}

/// The shortcuts, as the viewer prints them and the interface lists them.
pub const KEYS: &str = concat!(
    shared_keys!(),
    "
  mouse        drag the view to orbit, wheel to zoom, double-click to reset
  files        drop an .md2 or .mdl file on the window, or type its path (or a Quake III
               player's folder's) and press Open
  Esc          quit"
);

/// The shortcuts as the web page lists them: files come as the browser
/// gives them, and a page is left, not quit.
pub const WEB_KEYS: &str = concat!(
    shared_keys!(),
    " (where the pass has a stencil)
  mouse        drag the view to orbit, wheel to zoom, double-click to reset
  files        drop an .md2 with its skin images (and a weapon), an .mdl (and a palette.lmp),
               or a Quake III player's files, on the page, or Open files"
);

/// Where the inspector runs, which decides how files come and go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Host {
    /// A native window: files are paths, typed or dropped, and a model's
    /// skins are looked for beside it.
    Native,
    /// A web page: files come as bytes, picked or dropped together with
    /// their skins ([`Inspector::open_files`]); an export leaves as a
    /// download ([`HostRequest::Save`]).
    Browser,
}

/// Where the interface put what a host may drive from outside (a web
/// page's tests): the 3D view and the host's own buttons, in egui points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// The 3D view's rectangle, once laid out.
    pub view: Option<egui::Rect>,
    /// The host's buttons by label ("Open files…", "Export .glb"), where
    /// the last frame put them.
    pub controls: Vec<(&'static str, egui::Rect)>,
}

/// What the inspector asks of its host, which only the host can do; see
/// [`Inspector::take_requests`].
#[derive(Clone, Debug, PartialEq)]
pub enum HostRequest {
    /// Let the person pick files, then hand them to
    /// [`Inspector::open_files`] with this `weapon`.
    PickFiles {
        /// Whether the models picked are weapons for the model shown.
        weapon: bool,
    },
    /// Save `bytes` as a file called `name` (in a browser, a download).
    Save {
        /// The file name offered.
        name: String,
        /// The file's contents.
        bytes: Vec<u8>,
    },
}

/// Which shell the model wears.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shell {
    /// None.
    Off,
    /// One of [`SHELLS`].
    Quake(usize),
    /// Any colour (linear).
    Colour([f32; 3]),
}

/// How the model is drawn: the entity effects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// The powerup shell.
    pub shell: Shell,
    /// A planar shadow on the ground (where the pass has a stencil).
    pub shadow: bool,
    /// Unlit: the skin as it is.
    pub fullbright: bool,
    /// Never darker than Quake II's minimum light.
    pub minlight: bool,
    /// 1 opaque; below 1 translucent (drawn after opaque, blended).
    pub opacity: f32,
}

impl Look {
    fn effects(&self) -> Effects {
        let effects = match self.shell {
            Shell::Off => Effects::NONE,
            Shell::Quake(i) => Effects::from_quake_flags(SHELLS[i].1),
            Shell::Colour(c) => Effects::NONE.with_shell(c),
        };
        Effects {
            fullbright: self.fullbright,
            minlight: self.minlight,
            ..effects
        }
    }
}

/// The device the inspector uploads with and the pass it draws in.
pub struct InspectorGpu {
    /// The device (egui's).
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// egui's pass, as egui's renderer was made.
    pub target: SceneTarget,
}

/// Frames per second, over half-second windows of egui's frame times.
#[derive(Clone, Copy, Debug, Default)]
struct Fps {
    frames: u32,
    seconds: f64,
    fps: f64,
    frame_ms: f64,
}

impl Fps {
    fn tick(&mut self, dt: f64) {
        self.frames += 1;
        self.seconds += dt;
        if self.seconds >= 0.5 || self.fps == 0.0 {
            self.fps = f64::from(self.frames) / self.seconds.max(1e-9);
            self.frame_ms = self.seconds * 1000.0 / f64::from(self.frames);
            self.frames = 0;
            self.seconds = 0.0;
        }
    }
}

/// The inspector's state. See the [module docs](self).
pub struct Inspector {
    device: wgpu::Device,
    queue: wgpu::Queue,
    cache: Md2Cache,
    target: SceneTarget,
    counts_vertices: bool,
    body: LoadedModel,
    weapon: Option<LoadedModel>,
    /// A Quake III player, shown in place of the body while it is set.
    quake3: Option<LoadedPlayer>,
    /// Whether the weapon is drawn.
    pub show_weapon: bool,
    player: Player,
    skin: usize,
    /// Seconds shown so far: the clock an MDL's skin groups cycle on.
    clock: f64,
    /// The entity effects.
    pub look: Look,
    /// `None` until the view's size is known (and after a model loads).
    orbit: Option<Orbit>,
    /// The path field's text.
    path: String,
    /// What went wrong, newest last, until dismissed or a file opens.
    errors: Vec<String>,
    /// The body's skins as egui textures, made when first shown.
    thumbnails: Vec<Option<egui::TextureHandle>>,
    stats: Arc<SceneStats>,
    fps: Fps,
    host: Host,
    /// What the host has yet to do, oldest first.
    requests: Vec<HostRequest>,
    /// What the last export wrote, as a sentence.
    exported: Option<String>,
    layout: Layout,
}

impl Inspector {
    /// An inspector showing `body` (and `weapon`), drawing into `gpu`'s
    /// target; what its paint callback keeps goes into `resources` (egui
    /// renderer's callback resources).
    pub fn new(
        gpu: InspectorGpu,
        resources: &mut CallbackResources,
        body: ModelFile,
        weapon: Option<ModelFile>,
    ) -> Result<Inspector, String> {
        let InspectorGpu {
            device,
            queue,
            target,
        } = gpu;
        let renderer = Md2Renderer::new(&device, target.color_format, target.renderer_options())
            .map_err(|e| format!("cannot build the renderer for egui's pass: {e}"))?;
        let cache = renderer.as_ref().clone();
        let body = LoadedModel::upload(&device, &queue, &cache, body)?;
        let weapon = weapon
            .map(|w| LoadedModel::upload(&device, &queue, &cache, w))
            .transpose()?;
        let scene = SceneResources::new(&device, renderer, target);
        let counts_vertices = scene.counts_vertices();
        resources.insert(scene);
        let player = Player::new(body.clips.clone(), model::last_frame(&body.file.model));
        let path = body
            .file
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        Ok(Inspector {
            device,
            queue,
            cache,
            target,
            counts_vertices,
            thumbnails: vec![None; body.file.skins.len()],
            body,
            show_weapon: weapon.is_some(),
            weapon,
            quake3: None,
            player,
            skin: 0,
            clock: 0.0,
            look: Look {
                shell: Shell::Off,
                shadow: target.has_stencil(),
                fullbright: false,
                minlight: false,
                opacity: 1.0,
            },
            orbit: None,
            path,
            errors: Vec::new(),
            stats: Arc::new(SceneStats::default()),
            fps: Fps::default(),
            host: Host::Native,
            requests: Vec::new(),
            exported: None,
            layout: Layout::default(),
        })
    }

    /// The same inspector, run by `host`.
    pub fn with_host(self, host: Host) -> Inspector {
        Inspector { host, ..self }
    }

    /// Where it runs.
    pub fn host(&self) -> Host {
        self.host
    }

    /// Where the last frame put the 3D view and the host's buttons.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// What the last export gave the host to save, as a sentence.
    pub fn exported(&self) -> Option<&str> {
        self.exported.as_deref()
    }

    /// What the interface asked the host to do since the last call, oldest
    /// first: the host does each (or drops what it cannot).
    pub fn take_requests(&mut self) -> Vec<HostRequest> {
        std::mem::take(&mut self.requests)
    }

    /// The model shown.
    pub fn model(&self) -> &LoadedModel {
        &self.body
    }

    /// The weapon, if one was given.
    pub fn weapon(&self) -> Option<&LoadedModel> {
        self.weapon.as_ref()
    }

    /// The player: the clip playing, its clock.
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// The player, to change from outside the interface.
    pub fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }

    /// The skin index drawn.
    pub fn skin(&self) -> usize {
        self.skin
    }

    /// Chooses skin `index` (ignored past the last).
    pub fn set_skin(&mut self, index: usize) {
        if index < self.body.file.skins.len().max(1) {
            self.skin = index;
        }
    }

    /// What went wrong, newest last.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// The window title.
    pub fn title(&self) -> String {
        match &self.quake3 {
            Some(q3) => format!("md2-wgpu viewer — {} (Quake III player)", q3.file.name),
            None => format!("md2-wgpu viewer — {}", self.body.file.name),
        }
    }

    /// The Quake III player shown, if one is.
    pub fn quake3(&self) -> Option<&LoadedPlayer> {
        self.quake3.as_ref()
    }

    /// The Quake III player shown, to drive its clocks.
    pub fn quake3_mut(&mut self) -> Option<&mut LoadedPlayer> {
        self.quake3.as_mut()
    }

    /// A line on the state, for the end of unattended runs.
    pub fn summary(&self) -> String {
        if let Some(q3) = &self.quake3 {
            return format!(
                "{}: legs {} frame {}, torso {} frame {}, {} surfaces, {:.0} fps, {} draws",
                q3.file.name,
                q3.legs.clip().name,
                q3.legs.frame(),
                q3.torso.clip().name,
                q3.torso.frame(),
                q3.gpu.surface_count(),
                self.fps.fps,
                self.stats.draws()
            );
        }
        let frame = self.player.frame();
        format!(
            "{}: {} ({}/{}), frame {} {}, skin {}/{}, {:.0} fps, {} draws",
            self.body.file.name,
            self.player.clip().name,
            self.player.current() + 1,
            self.player.clips().len(),
            frame,
            self.body.frame_name(frame),
            self.skin + 1,
            self.body.file.skins.len().max(1),
            self.fps.fps,
            self.stats.draws()
        )
    }

    /// The paint callback's draws and vertex count of the last frame.
    pub fn stats(&self) -> &SceneStats {
        &self.stats
    }

    /// Opens the model at `path` in place of the one shown; on failure the
    /// error joins [`Inspector::errors`] and the model shown stays.
    pub fn open(&mut self, path: &Path) -> bool {
        if let Some(dir) = quake3::player_dir(path) {
            return self.open_player(&dir);
        }
        self.show(ModelFile::open(path, None))
    }

    /// Opens the Quake III player in `dir` (its `default` skins) in place
    /// of what is shown; on failure the error joins
    /// [`Inspector::errors`] and what is shown stays.
    pub fn open_player(&mut self, dir: &Path) -> bool {
        let loaded = PlayerFile::open(dir)
            .and_then(|file| LoadedPlayer::upload(&self.device, &self.queue, &self.cache, file));
        self.show_player(loaded)
    }

    /// Shows `loaded` in place of what is shown, or keeps that and records
    /// why not.
    fn show_player(&mut self, loaded: Result<LoadedPlayer, String>) -> bool {
        self.take(loaded, |inspector, player| {
            inspector.path = player.file.dir.display().to_string();
            inspector.quake3 = Some(player);
            inspector.orbit = None;
        })
    }

    /// Opens the weapon at `path`, drawn with the body's frames; while a
    /// Quake III player is shown, an `.md3` at `path` goes in its hand
    /// (its textures found in the weapon's folder).
    pub fn open_weapon(&mut self, path: &Path) -> bool {
        let is_md3 = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md3"));
        if self.quake3.is_some() && is_md3 {
            return self.hold_weapon(|file| file.with_weapon_file(path));
        }
        self.take_upload(ModelFile::open(path, None), |inspector, weapon| {
            inspector.weapon = Some(weapon);
            inspector.show_weapon = true;
        })
    }

    /// Puts a Quake III weapon in the shown player's hand: `holding` gives
    /// the player's file with it; on failure the error joins
    /// [`Inspector::errors`] and the player stays as it was.
    fn hold_weapon(
        &mut self,
        holding: impl FnOnce(PlayerFile) -> Result<PlayerFile, String>,
    ) -> bool {
        let Some(q3) = &mut self.quake3 else {
            return false;
        };
        let held = holding(q3.file.clone())
            .and_then(|file| q3.replace_file(&self.device, &self.queue, &self.cache, file));
        self.take(held, |inspector, ()| inspector.show_weapon = true)
    }

    /// Removes the weapon (a shown player's too).
    pub fn remove_weapon(&mut self) {
        self.weapon = None;
        if let Some(q3) = &mut self.quake3
            && q3.file.player.weapon().is_some()
        {
            let file = q3.file.clone().without_weapon();
            if let Err(e) = q3.replace_file(&self.device, &self.queue, &self.cache, file) {
                self.errors.push(e);
            }
        }
    }

    /// Opens files given as bytes, as a browser hands them over: a model
    /// with its skin images (and a weapon, by its name, see
    /// [`files::sort`]), the models as weapons of the model shown when
    /// `weapon`, or images alone as the shown model's skins. Whatever does
    /// not load joins [`Inspector::errors`] and the model shown stays.
    /// True when something opened.
    pub fn open_files(&mut self, files: Vec<NamedFile>, weapon: bool) -> bool {
        // A Quake III weapon for the player shown: an .md3 among the
        // files, its textures beside it.
        let md3 = |f: &&NamedFile| f.name.to_ascii_lowercase().ends_with(".md3");
        if weapon
            && self.quake3.is_some()
            && let Some(model) = files.iter().find(md3)
        {
            let read = |name: &str| {
                files
                    .iter()
                    .find(|f| f.name.eq_ignore_ascii_case(name))
                    .map(|f| f.bytes.clone())
            };
            return self.hold_weapon(|file| file.with_weapon(&model.name, &model.bytes, read));
        }
        let Opened {
            body,
            weapon: new_weapon,
            skins,
            errors,
            player,
        } = files::sort(&files, weapon);
        if let Some(player) = player {
            let loaded = player.and_then(|file| {
                LoadedPlayer::upload(&self.device, &self.queue, &self.cache, file)
            });
            return self.show_player(loaded);
        }
        let mut opened = false;
        let mut problems = errors;
        if let Some(body) = body {
            opened |= self.show(body);
            if !opened {
                problems.extend(self.errors.pop());
            }
        }
        if let Some(skins) = skins {
            // New skins for the model shown: it keeps playing where it is.
            let file = ModelFile {
                skin_notes: vec!["skins given on their own, in place of the model's".to_owned()],
                skins,
                ..self.body.file.clone()
            };
            match LoadedModel::upload(&self.device, &self.queue, &self.cache, file) {
                Ok(body) => {
                    self.thumbnails = vec![None; body.file.skins.len()];
                    self.body = body;
                    self.skin = 0;
                    opened = true;
                }
                Err(e) => problems.push(e),
            }
        }
        if let Some(weapon) = new_weapon {
            let loaded = weapon
                .and_then(|file| LoadedModel::upload(&self.device, &self.queue, &self.cache, file));
            match loaded {
                Ok(weapon) => {
                    self.weapon = Some(weapon);
                    self.show_weapon = true;
                    opened = true;
                }
                Err(e) => problems.push(e),
            }
        }
        if opened {
            self.errors.clear();
        }
        self.errors.extend(problems);
        opened
    }

    /// The model shown as binary glTF (every frame a morph target, every
    /// animation a glTF animation, each skin a material), as `md2info
    /// --gltf` writes it: handed to the host to save, or the error kept.
    pub fn export_glb(&mut self) -> bool {
        let file = &self.body.file;
        let options = md2_wgpu::gltf::GltfOptions::DEFAULT;
        match md2_wgpu::gltf::to_glb(&file.model, &file.skin_images(), &options) {
            Ok(export) => {
                let stem = file.name.rsplit_once('.').map_or(&*file.name, |(s, _)| s);
                let name = format!("{}.glb", stem.replace(' ', "-"));
                self.exported = Some(format!(
                    "{name}: {} bytes, {} morph targets, {} animations",
                    export.glb.len(),
                    export.report.morph_targets,
                    export.report.animations
                ));
                self.requests.push(HostRequest::Save {
                    name,
                    bytes: export.glb,
                });
                true
            }
            Err(e) => {
                self.errors
                    .push(format!("{}: cannot export glTF: {e}", file.name));
                false
            }
        }
    }

    /// Shows `file` (uploaded here) in place of the model, or keeps the
    /// model and records why not.
    fn show(&mut self, file: Result<ModelFile, String>) -> bool {
        self.take_upload(file, |inspector, body| {
            inspector.player = Player::new(body.clips.clone(), model::last_frame(&body.file.model));
            inspector.thumbnails = vec![None; body.file.skins.len()];
            if let Some(path) = &body.file.path {
                inspector.path = path.display().to_string();
            }
            inspector.body = body;
            inspector.quake3 = None;
            inspector.skin = 0;
            inspector.orbit = None;
        })
    }

    /// Uploads `file` and hands the model to `take`, clearing the errors;
    /// or keeps what is shown and records why not. Whether it loaded.
    fn take_upload(
        &mut self,
        file: Result<ModelFile, String>,
        take: impl FnOnce(&mut Inspector, LoadedModel),
    ) -> bool {
        let loaded =
            file.and_then(|file| LoadedModel::upload(&self.device, &self.queue, &self.cache, file));
        self.take(loaded, take)
    }

    /// Hands what loaded to `take`, clearing the errors; or keeps what is
    /// shown and records why not. Whether it loaded.
    fn take<T>(&mut self, loaded: Result<T, String>, take: impl FnOnce(&mut Inspector, T)) -> bool {
        match loaded {
            Ok(value) => {
                take(self, value);
                self.errors.clear();
                true
            }
            Err(e) => {
                self.errors.push(e);
                false
            }
        }
    }

    /// Makes the paint callback draw the ground alone (`on`) or everything
    /// (for the screenshot check's background); false where no inspector
    /// put its resources in.
    pub fn set_background_only(resources: &mut CallbackResources, on: bool) -> bool {
        resources
            .get_mut::<SceneResources>()
            .map(|scene| scene.background_only = on)
            .is_some()
    }

    /// One frame: time, keys and dropped files, then the panels and the 3D
    /// view.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let dt = ui.input(|i| f64::from(i.stable_dt)).clamp(0.0, 0.25);
        self.fps.tick(dt);
        self.player.advance(dt);
        self.clock += dt;
        let q3_moves = self.quake3.as_mut().is_some_and(|q3| {
            q3.advance(dt);
            !(q3.legs.paused && q3.torso.paused)
        });
        if !self.player.paused || q3_moves {
            // The model moves: draw the next frame as soon as possible.
            ui.ctx().request_repaint();
        }
        self.keys(ui.ctx());
        // A browser reads dropped files only asynchronously: its host reads
        // them and calls `open_files`.
        #[cfg(not(target_arch = "wasm32"))]
        self.dropped_files(ui.ctx());
        if let Some(error) = self.stats.error()
            && !self.errors.contains(&error)
        {
            self.errors.push(error);
        }
        self.layout.controls.clear();
        self.panels(ui);
    }

    fn keys(&mut self, ctx: &egui::Context) {
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        use egui::Key;
        let pressed = |key| ctx.input(|i| i.key_pressed(key));
        if pressed(Key::N) || pressed(Key::ArrowRight) {
            self.play_next(1, false);
        }
        if pressed(Key::P) || pressed(Key::ArrowLeft) {
            self.play_next(-1, false);
        }
        if pressed(Key::F) {
            self.play_next(1, true);
        }
        if pressed(Key::Space) {
            self.player.paused = !self.player.paused;
        }
        if pressed(Key::Period) {
            self.player.step(1);
        }
        if pressed(Key::Comma) {
            self.player.step(-1);
        }
        if pressed(Key::Minus) {
            self.player.change_speed(-1);
        }
        if pressed(Key::Plus) || pressed(Key::Equals) {
            self.player.change_speed(1);
        }
        if pressed(Key::I) {
            self.player.interpolate = !self.player.interpolate;
        }
        if pressed(Key::S) {
            self.skin = (self.skin + 1) % self.body.file.skins.len().max(1);
        }
        if pressed(Key::R)
            && let Some(orbit) = &mut self.orbit
        {
            orbit.reset();
        }
        if pressed(Key::Q) {
            self.look.shell = match self.look.shell {
                Shell::Quake(i) if i + 1 < SHELLS.len() => Shell::Quake(i + 1),
                Shell::Quake(_) => Shell::Off,
                _ => Shell::Quake(0),
            };
        }
        if pressed(Key::G) && self.target.has_stencil() {
            self.look.shadow = !self.look.shadow;
        }
    }

    /// The next or previous clip: cut, or crossfaded (over the slider's
    /// duration, or 0.3 s where that is 0).
    fn play_next(&mut self, step: isize, crossfade: bool) {
        let chosen = self.player.fade_seconds;
        if crossfade && chosen == 0.0 {
            self.player.fade_seconds = 0.3;
        } else if !crossfade {
            self.player.fade_seconds = 0.0;
        }
        self.player.play_next(step);
        self.player.fade_seconds = chosen;
    }

    /// Opens what was dropped on the window: the last file that loads wins.
    #[cfg(not(target_arch = "wasm32"))]
    fn dropped_files(&mut self, ctx: &egui::Context) {
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        for file in dropped {
            let path = file.path().to_path_buf();
            let read = file
                .bytes()
                .map_err(|e| format!("{}: {e}", path.display()))
                .and_then(|bytes| ModelFile::from_bytes(&path, &bytes, None));
            self.show(read);
        }
    }

    /// The weapon's pose for the body's: Quake II draws the weapon with the
    /// body's frame numbers, held at its last where it has fewer.
    fn weapon_pose(weapon: &LoadedModel, pose: Pose) -> Pose {
        let last = model::last_frame(&weapon.file.model);
        let clamp = |mut lerp: FrameLerp| {
            lerp.frame_a = lerp.frame_a.min(last);
            lerp.frame_b = lerp.frame_b.min(last);
            lerp
        };
        Pose {
            primary: clamp(pose.primary),
            secondary: clamp(pose.secondary),
            weight: pose.weight,
        }
    }

    /// The paint callback for a view of `rect`.
    fn scene_frame(&mut self, rect: egui::Rect) -> SceneFrame {
        if let Some(q3) = &self.quake3 {
            let (min, max) = q3.bounds;
            let player = (Arc::clone(&q3.gpu), q3.instance());
            let aspect = (rect.width() / rect.height().max(1.0)).max(1e-3);
            let orbit = *self
                .orbit
                .get_or_insert_with(|| Orbit::framing(min, max, aspect));
            return self.frame_with(orbit, aspect, (min, max), Vec::new(), Some(player));
        }
        let aspect = (rect.width() / rect.height().max(1.0)).max(1e-3);
        let (min, max) = self.body.bounds;
        let orbit = *self.orbit.get_or_insert_with(|| {
            // Framed on the clip shown first, so that a standing model is
            // not dwarfed by the room its death throes need.
            let (lo, hi) = model::frames_box(&self.body.file.model, self.player.clip().frames());
            Orbit::framing(lo, hi, aspect)
        });
        let pose = self.player.pose();
        let effects = self.look.effects();
        let tint = [1.0, 1.0, 1.0, self.look.opacity];
        let slot = self
            .skin
            .min(self.body.gpu.skin_count().max(1) as usize - 1);
        // An MDL's skin group cycles by its intervals.
        let skin = self
            .body
            .file
            .layer_at(slot, self.clock)
            .min(self.body.gpu.skin_count().max(1) - 1);
        let mut models = vec![(
            Arc::clone(&self.body.gpu),
            Md2Instance::new(Mat4::IDENTITY, pose)
                .with_skin(skin)
                .with_effects(effects)
                .with_tint(tint),
        )];
        if let Some(weapon) = self.weapon.as_ref().filter(|_| self.show_weapon) {
            models.push((
                Arc::clone(&weapon.gpu),
                Md2Instance::new(Mat4::IDENTITY, Self::weapon_pose(weapon, pose))
                    .with_effects(effects)
                    .with_tint(tint),
            ));
        }
        self.frame_with(orbit, aspect, (min, max), models, None)
    }

    /// The paint callback for `orbit`'s view of `models` (and a Quake III
    /// player), standing in `bounds`, with the ground and shadow.
    fn frame_with(
        &self,
        orbit: Orbit,
        aspect: f32,
        (min, max): (Vec3, Vec3),
        models: Vec<(Arc<GpuModel>, Md2Instance)>,
        player: Option<(Arc<GpuPlayer>, PlayerInstance)>,
    ) -> SceneFrame {
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let camera = orbit.camera(aspect, radius * 12.0);
        let ground_y = min.y;
        let target = orbit.target();
        let [r, g, b] = BACKGROUND;
        SceneFrame {
            camera,
            models,
            player,
            shadow: (self.look.shadow && self.target.has_stencil())
                .then(|| PlanarShadow::on_ground(ground_y, Light::default().towards_light)),
            ground: GroundParams {
                center: Vec3::new(target.x, ground_y, target.z),
                radius: radius * 6.0,
                cell: grid_cell(radius),
                background: wgpu::Color {
                    r: f64::from(r),
                    g: f64::from(g),
                    b: f64::from(b),
                    a: 1.0,
                },
                inset: None,
            },
            stats: Arc::clone(&self.stats),
        }
    }
}

/// A grid cell of 1, 2 or 5 times a power of ten, about a sixth of the
/// model's size: 10 units for a Quake II player.
fn grid_cell(radius: f32) -> f32 {
    let rough = (radius / 3.0).max(1e-3);
    let power = 10f32.powf(rough.log10().floor());
    let mantissa = rough / power;
    let nice = if mantissa < 1.5 {
        1.0
    } else if mantissa < 3.5 {
        2.0
    } else if mantissa < 7.5 {
        5.0
    } else {
        10.0
    };
    nice * power
}
