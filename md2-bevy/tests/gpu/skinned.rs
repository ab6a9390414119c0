//! The benchmark's skinned baseline is the same soldier in the same place:
//! md2-wgpu's skinned demo (`demo::demo_skinned_glb`), loaded by Bevy's
//! glTF loader and posed by Bevy's own animation player and skinning at a
//! key of several clips, covers the pixels md2-wgpu's CPU pose of that
//! MD2 frame covers. At a key every skinned vertex is within half the
//! frame's quantisation step of the MD2's (md2-wgpu's test of the export),
//! about 0.1 units here, under half a pixel at this distance: no pixel of
//! either silhouette is more than one pixel from the other, and fewer than
//! 2% differ (`pose`'s bound).

use bevy::gltf::GltfAssetLabel;
use bevy::light::GlobalAmbientLight;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_wgpu::{Clip, anim::FrameLerp, anim::Pose};

use crate::harness::{Harness, gpu_or_skip, save_actual};
use crate::reference::{Mask, PosedModel, compare, lit_mask, rasterize};
use crate::scene_types::register_scene_types;

const SIZE: u32 = 256;
const FOV: f32 = 0.7;
const PATH: &str = "memory://soldier.glb";

/// Clips by name and the key shown: still, mid-run, mid-attack, in the
/// air, and a death's last.
const KEYS: [(&str, Option<usize>); 5] = [
    ("stand", Some(0)),
    ("run", Some(3)),
    ("attack", Some(4)),
    ("jump", Some(2)),
    ("death1", None),
];

#[test]
fn bevy_skins_the_skinned_demo_where_the_md2_frames_are() {
    if !gpu_or_skip("skinned demo") {
        return;
    }
    let mut h = Harness::new(|app| {
        register_scene_types(app);
        app.insert_resource(ClearColor(Color::BLACK));
        // Bright enough that every pixel of the model is far from black.
        app.insert_resource(GlobalAmbientLight {
            brightness: 20_000.0,
            ..default()
        });
    });
    h.add_file("soldier.glb", md2_wgpu::demo::demo_skinned_glb());
    let md2 = md2_wgpu::demo::demo_model();
    let clips = Clip::for_model(md2.keyframes());
    let server = h.asset_server();
    let chosen: Vec<(usize, &Clip, usize)> = KEYS
        .iter()
        .map(|&(name, key)| {
            let index = clips
                .iter()
                .position(|c| &*c.name == name)
                .unwrap_or_else(|| panic!("the demo has {name}"));
            let clip = &clips[index];
            let key = key.unwrap_or(clip.frames().count() - 1);
            (index, clip, key)
        })
        .collect();
    let handles: Vec<Handle<AnimationClip>> = chosen
        .iter()
        .map(|&(index, _, _)| server.load(GltfAssetLabel::Animation(index).from_asset(PATH)))
        .collect();
    for handle in &handles {
        h.wait_loaded(handle);
    }
    let scene: Handle<WorldAsset> = server.load(GltfAssetLabel::Scene(0).from_asset(PATH));
    h.wait_loaded(&scene);
    let (graph, nodes) = AnimationGraph::from_clips(handles);
    let graph = h
        .app
        .world_mut()
        .resource_mut::<Assets<AnimationGraph>>()
        .add(graph);

    let target = h.target(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb);
    let eye = Transform::from_xyz(45.0, 20.0, 95.0).looking_at(Vec3::new(0.0, 3.0, 0.0), Vec3::Y);
    let projection = Projection::Perspective(PerspectiveProjection {
        fov: FOV,
        near: 1.0,
        ..default()
    });
    let camera = h.camera(&target, eye, projection, ());
    // Turned a little, so the test does not rest on the identity.
    let place = Transform::from_xyz(2.0, 0.0, -3.0).with_rotation(Quat::from_rotation_y(0.4));
    h.app.world_mut().spawn((WorldAssetRoot(scene), place));
    let mut player = None;
    for _ in 0..100 {
        let mut players = h
            .app
            .world_mut()
            .query_filtered::<Entity, With<AnimationPlayer>>();
        player = players.iter(h.app.world()).next();
        if player.is_some() {
            break;
        }
        h.update();
    }
    let player = player.expect("the scene's instance has an animation player");
    h.app
        .world_mut()
        .entity_mut(player)
        .insert(AnimationGraphHandle(graph));

    for (&(_, clip, key), node) in chosen.iter().zip(nodes) {
        let frame = clip.first + key as u32;
        let name = format!("{} key {key} (frame {frame})", clip.name);
        // The key's time as the export wrote it; the clock stands still
        // (the harness's time does not advance), so the pose is the key's.
        let at = key as f32 / clip.fps;
        {
            let mut entity = h.app.world_mut().entity_mut(player);
            let mut animation = entity.get_mut::<AnimationPlayer>().expect("a player");
            animation.stop_all();
            animation.play(node).seek_to(at);
        }
        h.update();
        h.update();
        let held = Pose {
            primary: FrameLerp::still(frame),
            ..Pose::default()
        };
        let clip_from_world = h.clip_from_world(camera);
        let cpu = rasterize(
            &PosedModel::new(&md2, &held, place.to_matrix()),
            clip_from_world,
            SIZE,
            SIZE,
        );
        assert!(cpu.mask.count() > 1500, "{name}: the model fills the view");
        let image = h.capture(&target);
        let gpu: Mask = lit_mask(&image);
        let far = compare(&name, &gpu, &cpu.mask);
        if far != 0 || gpu.differing(&cpu.mask) * 50 >= cpu.mask.count() {
            let file = format!("skinned-{}-{key}", clip.name);
            panic!(
                "{name}: Bevy's skinned soldier and the MD2 frame differ by more than a pixel, \
                 or at 2% of the pixels or more: {}",
                save_actual(&image, &file).display()
            );
        }
    }
}
