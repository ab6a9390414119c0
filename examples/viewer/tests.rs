//! The viewer's inspector (inspector/), driven the way a person
//! drives it, through egui's own test harness, egui_kittest: no window, the
//! widgets found by their accessibility labels, clicked, typed into and
//! dragged, and the inspector's state read back. Pictures come from
//! egui_kittest's wgpu renderer (egui-wgpu, paint callbacks included) on the
//! test adapter (lavapipe in CI); its pass has no depth buffer and one
//! sample (`RendererOptions::PREDICTABLE`), and the inspector is told so.
//!
//! The player's rules are tested first, on their own, without a GPU.

use md2_wgpu_tests as common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui_kittest::kittest::Queryable;
use egui_kittest::wgpu::{WgpuTestRenderer, create_render_state};
use egui_kittest::{Harness, SnapshotOptions};
use egui_wgpu::{RenderState, RendererOptions, WgpuSetup, WgpuSetupExisting};
use md2_wgpu::gpu::PlayerPiece;
use md2_wgpu::image::{Rgba, RgbaImage};
use md2_wgpu::{Md2Model, Quake2Player, demo};

use md2_wgpu_examples::inspector::model::ModelFile;
use md2_wgpu_examples::inspector::player::Player;
use md2_wgpu_examples::inspector::scene::SceneTarget;
use md2_wgpu_examples::inspector::{Inspector, InspectorGpu};

/// The harness's window, in points (one pixel each).
const SIZE: (f32, f32) = (1280.0, 800.0);

/// Whether `lerp` shows `frame` with no blend towards the next one that
/// could be seen: the player's clock runs on the crowd's tick grid (2^-20
/// s), so paused on a frame it is at most one tick past it, a blend factor
/// below fps / 2^20 (under 1e-5 at Quake II's 10 frames a second).
fn on_frame(lerp: md2_wgpu::anim::FrameLerp, frame: u32) -> bool {
    lerp.frame_a == frame && (0.0..1e-5).contains(&lerp.t)
}

#[test]
fn set_frame_lands_on_every_frame_exactly() {
    let mut player = Player::new(Quake2Player::clips(), 197);
    for clip in 0..player.clips().len() {
        player.play(clip);
        for frame in player.clip().frames() {
            player.set_frame(frame);
            // Exactly on it: no blend towards the next.
            let lerp = player.lerp();
            assert!(on_frame(lerp, frame), "clip {clip}: {lerp:?}");
            assert_eq!(player.frame(), frame);
            assert!(player.paused);
        }
    }
}

#[test]
fn step_wraps_a_loop_and_stops_at_a_one_shot_end() {
    let mut player = Player::new(Quake2Player::clips(), 197);
    player.play(Quake2Player::Run as usize);
    let run = Quake2Player::Run.frames();
    player.set_frame(*run.end());
    player.step(1);
    assert_eq!(player.frame(), *run.start(), "a loop wraps");
    player.step(-1);
    assert_eq!(player.frame(), *run.end());
    player.play(Quake2Player::Death1 as usize);
    let death = Quake2Player::Death1.frames();
    player.set_frame(*death.end());
    player.step(1);
    assert_eq!(player.frame(), *death.end(), "a one-shot clip stops");
    player.set_frame(*death.start());
    player.step(-1);
    assert_eq!(player.frame(), *death.start());
}

#[test]
fn play_cuts_without_a_fade_and_blends_with_one() {
    let mut player = Player::new(Quake2Player::clips(), 197);
    player.fade_seconds = 0.0;
    player.play(Quake2Player::Run as usize);
    assert_eq!(player.weight(), 1.0);
    player.fade_seconds = 0.5;
    player.play(Quake2Player::Attack as usize);
    assert_eq!(player.weight(), 0.0, "the fade starts now");
    player.advance(0.25);
    assert!(player.weight() > 0.0 && player.weight() < 1.0);
    player.advance(0.25);
    assert_eq!(player.weight(), 1.0);
    assert_eq!(player.clip().name.as_ref(), "attack");
}

/// A headless device (skipping loudly without one) as an egui
/// `RenderState` with egui_kittest's predictable options: no depth
/// buffer, one sample, an `Rgba8Unorm` target.
fn render_state() -> Option<RenderState> {
    let headless = common::headless(
        |_| md2_wgpu::gpu::required_limits(),
        md2_wgpu::wgpu::Features::PIPELINE_STATISTICS_QUERY,
    )?;
    let setup = WgpuSetup::Existing(WgpuSetupExisting {
        instance: md2_wgpu::wgpu::Instance::new(
            md2_wgpu::wgpu::InstanceDescriptor::new_without_display_handle_from_env(),
        ),
        adapter: headless.adapter,
        device: headless.device,
        queue: headless.queue,
    });
    Some(create_render_state(setup, RendererOptions::PREDICTABLE))
}

/// The inspector showing `body`, in a harness whose pictures egui-wgpu
/// draws on the test adapter; also the render state, for the callback
/// resources.
fn harness(body: ModelFile) -> Option<(Harness<'static, Inspector>, RenderState)> {
    let state = render_state()?;
    // What egui_kittest's renderer was made with: the inspector's pipelines
    // must be built for that pass, which egui cannot tell.
    let target = SceneTarget::of_egui(state.target_format, &RendererOptions::PREDICTABLE);
    let gpu = InspectorGpu {
        device: state.device.clone(),
        queue: state.queue.clone(),
        target,
    };
    let inspector = Inspector::new(
        gpu,
        &mut state.renderer.write().callback_resources,
        body,
        None,
    )
    .expect("the inspector starts");
    let harness = Harness::builder()
        .with_size(SIZE)
        .renderer(WgpuTestRenderer::from_render_state(state.clone()))
        .build_ui_state(|ui, inspector: &mut Inspector| inspector.ui(ui), inspector);
    Some((harness, state))
}

/// The inspector showing the demo model, its run clicked and shown.
fn running_demo() -> Option<(Harness<'static, Inspector>, RenderState)> {
    let (mut harness, state) = harness(ModelFile::demo())?;
    harness.get_by_label("run").click();
    harness.step();
    Some((harness, state))
}

/// The harness's picture, and how many of its pixels the paint callback's
/// models changed: the same frame drawn again with the ground alone
/// differs there.
fn against_background(
    harness: &mut Harness<'_, Inspector>,
    state: &RenderState,
) -> (RgbaImage, usize) {
    let picture = harness.render().expect("render");
    Inspector::set_background_only(&mut state.renderer.write().callback_resources, true);
    harness.step();
    let background = harness.render().expect("render");
    Inspector::set_background_only(&mut state.renderer.write().callback_resources, false);
    let changed = common::differing_pixels(&picture, &background, 0);
    (picture, changed)
}

/// A folder of its own under the target directory for test files made
/// here (never the shared models).
fn scratch(name: &str) -> PathBuf {
    let dir = common::target_dir().join("inspector-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Types `path` into the path field and presses Open.
fn open_by_path(harness: &mut Harness<'_, Inspector>, path: &Path) {
    let field = harness.get_by_label("path");
    field.focus();
    harness.step();
    harness
        .get_by_label("path")
        .type_text(&path.display().to_string());
    harness.step();
    harness.get_by_label("Open").click();
    harness.step();
}

/// Turns the mouse wheel over the controls panel: `points` down.
fn scroll_controls(harness: &mut Harness<'_, Inspector>, points: f32) {
    harness.hover_at(egui::pos2(150.0, 400.0));
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -points),
        phase: egui::TouchPhase::Move,
        source: egui::MouseWheelSource::Wheel,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
    harness.step();
}

/// A dropped file, as egui-winit hands it over.
#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn clicking_an_animation_plays_it() {
    let Some((mut harness, _)) = harness(ModelFile::demo()) else {
        return;
    };
    assert_eq!(harness.state().player().clip().name.as_ref(), "stand");
    harness.get_by_label("run").click();
    harness.step();
    let player = harness.state().player();
    assert_eq!(player.clip().name.as_ref(), "run");
    assert_eq!(player.current(), Quake2Player::Run as usize);
    // Crossfading (0.3 s by default): after two steps of 0.25 s the pose is
    // all run.
    harness.step();
    harness.step();
    let pose = harness.state().player().pose();
    assert_eq!(pose.weight, 1.0);
    assert!(Quake2Player::Run.frames().contains(&pose.secondary.frame_a));
    // The keys still work: N moves to the next animation (attack).
    harness.key_press(egui::Key::N);
    harness.step();
    assert_eq!(harness.state().player().clip().name.as_ref(), "attack");
}

#[test]
fn the_frame_slider_sets_the_frame() {
    let Some((mut harness, _)) = running_demo() else {
        return;
    };
    harness.get_by_label("Pause").click();
    harness.step();
    // A frame of run's other than the one shown.
    let target = if harness.state().player().frame() == 43 {
        44
    } else {
        43
    };
    harness
        .get_by_role_and_label(egui::accesskit::Role::Slider, "frame")
        .set_value_accesskit(f64::from(target));
    harness.step();
    let player = harness.state().player();
    assert!(player.paused);
    assert!(on_frame(player.lerp(), target), "{:?}", player.lerp());
    harness.get_by_label("Play").click();
    harness.step();
    harness.step();
    assert!(!harness.state().player().paused);
    // Set while playing: it pauses there.
    harness
        .get_by_role_and_label(egui::accesskit::Role::Slider, "frame")
        .set_value_accesskit(43.0);
    harness.step();
    let player = harness.state().player();
    assert!(player.paused, "setting the frame pauses");
    assert!(on_frame(player.lerp(), 43), "{:?}", player.lerp());
    // The frame's name is shown: frame 43 is run's fourth.
    harness.get_by_label("frame 43 of 198: run4");
    harness.get_by_label("Step >").click();
    harness.step();
    let lerp = harness.state().player().lerp();
    assert!(on_frame(lerp, 44), "{lerp:?}");
}

#[test]
fn choosing_a_skin_changes_the_skin() {
    // The demo model beside two skins of its size: its header names none,
    // so the folder's images are its skins, by name (blue, then red).
    let dir = scratch("skins");
    let model = dir.join("tris.md2");
    std::fs::write(&model, demo::demo_model_bytes()).expect("write the model");
    let (w, h) = (demo::SKIN_WIDTH, demo::SKIN_HEIGHT);
    for (name, colour) in [("blue.png", [40, 60, 230]), ("red.png", [230, 40, 40])] {
        let [r, g, b] = colour;
        RgbaImage::from_pixel(w, h, Rgba([r, g, b, 255]))
            .save(dir.join(name))
            .expect("write a skin");
    }
    let Some((mut harness, _)) = harness(ModelFile::demo()) else {
        return;
    };
    open_by_path(&mut harness, &model);
    let inspector = harness.state();
    assert_eq!(inspector.errors(), [] as [String; 0]);
    assert_eq!(inspector.model().file.name, "tris.md2");
    assert_eq!(inspector.model().file.skins.len(), 2);
    assert_eq!(inspector.skin(), 0);
    harness.get_by_label("Pause").click();
    harness.step();
    let blue = harness.render().expect("render");

    // Below the animations: scrolled to first, as a person would.
    scroll_controls(&mut harness, 600.0);
    harness.get_by_label("2: red.png").click();
    harness.step();
    assert_eq!(harness.state().skin(), 1);
    let red = harness.render().expect("render");
    // On screen too: the model turns from blue to red.
    let reddish = |image: &RgbaImage| {
        image
            .pixels()
            .filter(|p| p[0] > 100 && u16::from(p[0]) > 2 * u16::from(p[2]))
            .count()
    };
    common::save_picture(&blue, "inspector-skin-blue.png");
    common::save_picture(&red, "inspector-skin-red.png");
    assert!(
        reddish(&red) > reddish(&blue) + 1000,
        "red skin: {} reddish pixels, blue skin: {}",
        reddish(&red),
        reddish(&blue)
    );
}

#[test]
fn a_broken_file_shows_its_error_and_keeps_the_model() {
    let dir = scratch("broken");
    let broken = dir.join("broken.md2");
    let bytes = demo::demo_model_bytes();
    std::fs::write(&broken, &bytes[..200]).expect("write a truncated model");
    let expected = Md2Model::from_bytes(&bytes[..200])
        .expect_err("a truncated model does not load")
        .to_string();
    let Some((mut harness, _)) = running_demo() else {
        return;
    };

    // Dropped on the window.
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(Dropped(broken.clone())));
    harness.step();
    harness.step();
    let inspector = harness.state();
    assert_eq!(inspector.model().file.name, "demo model", "the model stays");
    assert_eq!(
        inspector.player().clip().name.as_ref(),
        "run",
        "so does its state"
    );
    let error = format!("{}: {expected}", broken.display());
    assert_eq!(inspector.errors(), std::slice::from_ref(&error));
    // The error is on screen, verbatim.
    harness.get_by_label(&error);

    // Typed into the path field: a file that is not there.
    let missing = dir.join("no-such-model.md2");
    open_by_path(&mut harness, &missing);
    let inspector = harness.state();
    assert_eq!(inspector.model().file.name, "demo model");
    assert_eq!(inspector.errors().len(), 2);
    assert!(inspector.errors()[1].starts_with(&missing.display().to_string()));
    harness.get_by_label("Dismiss").click();
    harness.step();
    assert!(harness.state().errors().is_empty());

    // A good file dropped next replaces the model.
    let good = dir.join("good.md2");
    std::fs::write(&good, &bytes).expect("write the model");
    harness
        .input_mut()
        .dropped_files
        .push(Arc::new(Dropped(good)));
    harness.step();
    assert_eq!(harness.state().model().file.name, "good.md2");
}

#[test]
fn snapshot_of_the_inspector_with_the_demo_model() {
    let Some((mut harness, state)) = running_demo() else {
        return;
    };
    harness.state_mut().player_mut().set_frame(42);
    harness.remove_cursor();
    // Painted every step, as a window is: the figures of the frame before
    // show, and the vertex count, read back without waiting, arrives.
    harness.set_render_every_step(true);
    for _ in 0..6 {
        harness.step();
    }
    // The paint callback drew the model into egui's pass: drawn again
    // without it, the view differs where the model is.
    let (picture, model_pixels) = against_background(&mut harness, &state);
    assert!(
        model_pixels > 10_000,
        "the model covers {model_pixels} pixels"
    );
    let stats = harness.state().stats();
    assert!(stats.draws() >= 1, "the model's draw");
    common::save_picture(&picture, "inspector.png");
    harness.step();
    // The reference is lavapipe's (CI's adapter); another adapter may
    // rasterise the model's edges a little differently.
    let options = SnapshotOptions::new()
        .threshold(1.0)
        .max_failed_pixels(1000)
        .output_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("viewer/snapshots"));
    harness.snapshot_options("inspector", &options);
}

/// The tiny Quake III player (`common::tiny_player_files`) written into a
/// scratch folder, with a picture for its legs' texture.
fn tiny_player_dir() -> PathBuf {
    let dir = scratch("tiny-player");
    for (name, bytes) in common::tiny_player_files() {
        std::fs::write(dir.join(name), bytes).expect("write a player's file");
    }
    RgbaImage::from_pixel(8, 8, Rgba([220, 40, 40, 255]))
        .save_with_format(dir.join("legs.tga"), md2_wgpu::image::ImageFormat::Tga)
        .expect("write a texture");
    dir
}

#[test]
fn a_quake3_player_opens_by_its_folder_and_plays_legs_and_torso_apart() {
    let dir = tiny_player_dir();
    let Some((mut harness, state)) = harness(ModelFile::demo()) else {
        return;
    };
    open_by_path(&mut harness, &dir);
    let inspector = harness.state();
    assert_eq!(inspector.errors(), [] as [String; 0]);
    let q3 = inspector.quake3().expect("the player is shown");
    assert_eq!(q3.file.name, "tiny-player");
    assert_eq!(q3.gpu.surface_count(), 3);
    assert_eq!(q3.legs.clip().name.as_ref(), "LEGS_IDLE");
    assert_eq!(q3.torso.clip().name.as_ref(), "TORSO_STAND");
    // The tags are listed where the pose puts them.
    let tags: Vec<String> = q3.tags().into_iter().map(|(name, _)| name).collect();
    assert_eq!(tags, ["tag_torso", "tag_head", "tag_weapon"]);
    // Its own texture found (as .tga), the other two missing and said so.
    let statuses: Vec<&str> = q3.file.surfaces.iter().map(|s| s.2.as_str()).collect();
    assert!(statuses[0].starts_with("legs.tga"), "{statuses:?}");
    assert!(statuses[2].contains("not in the folder"), "{statuses:?}");

    // A click on a torso animation (below the legs': scrolled to) plays it
    // on the torso alone.
    scroll_controls(&mut harness, 900.0);
    harness.get_by_label("TORSO_ATTACK").click();
    harness.step();
    let q3 = harness.state().quake3().unwrap();
    assert_eq!(q3.torso.clip().name.as_ref(), "TORSO_ATTACK");
    assert_eq!(q3.legs.clip().name.as_ref(), "LEGS_IDLE");

    // It is drawn: the view differs from the background where it stands.
    harness.set_render_every_step(true);
    harness.step();
    let (picture, player_pixels) = against_background(&mut harness, &state);
    common::save_picture(&picture, "inspector-quake3.png");
    assert!(
        player_pixels > 500,
        "the player covers {player_pixels} pixels"
    );
    assert!(harness.state().stats().draws() >= 3, "a draw per surface");

    // A Quake III weapon in its hand (Open as weapon): the tiny model, two
    // surfaces, the first one's texture (`models/tiny/body.tga`) beside
    // it. Legs and torso play on; the weapon is drawn on `tag_weapon`.
    let gun = dir.join("tiny_gun.md3");
    std::fs::write(&gun, common::tiny_md3().to_bytes()).unwrap();
    RgbaImage::from_pixel(4, 4, Rgba([40, 40, 230, 255]))
        .save_with_format(dir.join("body.tga"), md2_wgpu::image::ImageFormat::Tga)
        .unwrap();
    assert!(
        harness.state_mut().open_weapon(&gun),
        "{:?}",
        harness.state().errors()
    );
    let q3 = harness.state().quake3().unwrap();
    assert_eq!(q3.gpu.surface_count(), 5);
    assert_eq!(q3.torso.clip().name.as_ref(), "TORSO_ATTACK");
    let held: Vec<&str> = q3
        .file
        .surfaces
        .iter()
        .filter(|s| s.0 == PlayerPiece::Weapon)
        .map(|s| s.2.as_str())
        .collect();
    assert_eq!(held.len(), 2);
    assert!(held[0].starts_with("body.tga"), "{held:?}");
    harness.step();
    let (picture, armed_pixels) = against_background(&mut harness, &state);
    common::save_picture(&picture, "inspector-quake3-weapon.png");
    assert!(
        picture.pixels().any(|p| p.0[2] > 150 && p.0[0] < 90),
        "the weapon wears its blue texture"
    );
    assert!(harness.state().stats().draws() >= 5, "a draw per surface");
    // And out of its hand again.
    harness.state_mut().remove_weapon();
    assert_eq!(harness.state().quake3().unwrap().gpu.surface_count(), 3);
    assert!(armed_pixels > 0);

    // Opening a model again leaves the player.
    let md2 = scratch("after-player").join("demo.md2");
    std::fs::write(&md2, demo::demo_model_bytes()).unwrap();
    assert!(harness.state_mut().open(&md2));
    assert!(harness.state().quake3().is_none());
    assert_eq!(harness.state().model().file.name, "demo.md2");
}

#[test]
fn the_shared_quake3_players_open_with_every_texture() {
    let Some(dir) = common::shared_md3_dir() else {
        return;
    };
    let Some((mut harness, _)) = harness(ModelFile::demo()) else {
        return;
    };
    for name in ["major", "penguin"] {
        assert!(harness.state_mut().open(&dir.join(name).join("upper.md3")));
        let q3 = harness.state().quake3().expect("the player is shown");
        for (part, surface, status) in &q3.file.surfaces {
            assert!(
                status.contains(".tga ("),
                "{name} {part:?} {surface}: {status}"
            );
        }
        harness.step();
        assert_eq!(harness.state().errors(), [] as [String; 0]);
    }
}
