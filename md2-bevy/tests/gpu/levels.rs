//! Levels of detail in Bevy: the loader reads the levels saved beside a
//! model, builds them off the main thread where asked, passes over a saved
//! file that is damaged or another model's (saying so), and makes a mesh
//! per level; each entity draws the level md2-wgpu's choice gives for the
//! camera (the one the crowd's passes make), all entities of a level in
//! one draw.

use bevy::prelude::*;
use md2_bevy::{Md2Asset, Md2LevelSource, Md2Levels, Md2LoaderSettings};
use md2_wgpu::ModelData;
use md2_wgpu::contract::GpuModelOptions;
use md2_wgpu::mesh::{LevelOptions, Levels};

use crate::harness::{Harness, demo_skin_png, gpu_or_skip};

/// The demo's levels as md2-wgpu builds them for its GPU data's mesh.
fn demo_levels() -> Levels {
    let demo = md2_wgpu::demo::demo_model();
    let data = ModelData::new(demo.keyframes(), GpuModelOptions::DEFAULT).unwrap();
    Levels::new(demo.keyframes(), data.mesh(), &LevelOptions::DEFAULT).unwrap()
}

fn load(h: &mut Harness, path: &str, levels: Md2Levels) -> Md2Asset {
    let handle: Handle<Md2Asset> = h
        .asset_server()
        .load_builder()
        .with_settings(move |s: &mut Md2LoaderSettings| s.levels = levels)
        .load(path.to_owned());
    h.wait_loaded(&handle);
    h.md2_asset(&handle)
}

/// A long street seen from one end: the demo model loaded with levels
/// built by the loader, a `size`² target and the camera looking down the
/// street into it, md2-wgpu's camera of the same view and viewport, and
/// the model's sphere its levels are chosen by.
pub struct Street {
    pub model: Handle<Md2Asset>,
    pub asset: Md2Asset,
    pub size: u32,
    pub target: Handle<Image>,
    pub clip_from_world: Mat4,
    pub md2_camera: md2_wgpu::Camera,
    pub sphere: [f32; 4],
}

impl Street {
    pub fn new(h: &mut Harness) -> Street {
        use bevy::render::render_resource::TextureFormat;

        h.add_file("street/soldier.png", demo_skin_png());
        h.add_file("street/tris.md2", md2_wgpu::demo::demo_model_bytes());
        let model: Handle<Md2Asset> = h
            .asset_server()
            .load_builder()
            .with_settings(|s: &mut Md2LoaderSettings| s.levels = Md2Levels::SavedOrBuilt)
            .load("memory://street/tris.md2");
        h.wait_loaded(&model);
        let asset = h.md2_asset(&model);
        assert!(
            asset.levels_of_detail().levels().len() > 2,
            "the demo has coarser levels"
        );
        let size = 256;
        let target = h.target(size, size, TextureFormat::Rgba8UnormSrgb);
        let eye =
            Transform::from_xyz(0.0, 30.0, 60.0).looking_at(Vec3::new(0.0, 10.0, -2000.0), Vec3::Y);
        let camera = h.camera(
            &target,
            eye,
            Projection::Perspective(PerspectiveProjection {
                fov: 0.6,
                far: 10_000.0,
                ..default()
            }),
            (),
        );
        h.update();
        let clip_from_world = h.clip_from_world(camera);
        let md2_camera = md2_wgpu::Camera::new(md2_wgpu::glam::Mat4::from_cols_array(
            &clip_from_world.to_cols_array(),
        ))
        .with_viewport(md2_wgpu::glam::UVec2::splat(size));
        let sphere = ModelData::new(
            md2_wgpu::demo::demo_model().keyframes(),
            GpuModelOptions::DEFAULT,
        )
        .expect("GPU data")
        .bounding_sphere();
        Street {
            model,
            asset,
            size,
            target,
            clip_from_world,
            md2_camera,
            sphere,
        }
    }

    /// md2-wgpu's level choice for the street's model.
    pub fn choice(&self) -> md2_wgpu::scene::LevelChoice<'_> {
        md2_wgpu::scene::LevelChoice::new(
            self.asset.levels_of_detail().levels(),
            self.sphere,
            std::time::Duration::ZERO,
        )
    }
}

fn same_levels(a: &Levels, b: &Levels) -> bool {
    a.levels() == b.levels() && a.indices() == b.indices()
}

#[test]
fn levels_are_read_beside_the_model_or_built_off_the_main_thread() {
    if !gpu_or_skip("levels") {
        return;
    }
    let mut h = Harness::new(|_| {});
    let demo = md2_wgpu::demo::demo_model();
    let expected = demo_levels();
    assert!(expected.levels().len() > 2, "the demo has coarser levels");
    let saved = {
        let data = ModelData::new(demo.keyframes(), GpuModelOptions::DEFAULT).unwrap();
        expected.to_bytes(demo.keyframes(), data.mesh())
    };
    let model = md2_wgpu::demo::demo_model_bytes();
    // The same model in five folders (Bevy loads a path once, with the
    // settings it was first asked with): without saved levels, with its
    // own (twice), with a damaged copy of them (twice; one byte flipped:
    // its checksum fails).
    let mut damaged = saved.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0xff;
    for (dir, levels) in [
        ("none", None),
        ("saved", Some(&saved)),
        ("saved_full", Some(&saved)),
        ("damaged", Some(&damaged)),
        ("damaged_built", Some(&damaged)),
    ] {
        h.add_file(&format!("{dir}/soldier.png"), demo_skin_png());
        h.add_file(&format!("{dir}/tris.md2"), model.clone());
        if let Some(levels) = levels {
            h.add_file(&format!("{dir}/tris.levels"), levels.clone());
        }
    }

    // By default: the saved file where there is one, else full detail.
    let none = load(&mut h, "memory://none/tris.md2", Md2Levels::Saved);
    assert_eq!(none.level_source(), &Md2LevelSource::FullDetail);
    assert_eq!(none.levels_of_detail().levels().len(), 1);
    let read = load(&mut h, "memory://saved/tris.md2", Md2Levels::Saved);
    assert_eq!(
        read.level_source(),
        &Md2LevelSource::Saved("saved/tris.levels".into())
    );
    assert!(same_levels(read.levels_of_detail(), &expected));
    // A damaged file is passed over (with a warning): full detail, or
    // built where asked.
    let damaged = load(&mut h, "memory://damaged/tris.md2", Md2Levels::Saved);
    assert_eq!(damaged.level_source(), &Md2LevelSource::FullDetail);
    let built = load(
        &mut h,
        "memory://damaged_built/tris.md2",
        Md2Levels::SavedOrBuilt,
    );
    assert!(
        matches!(built.level_source(), Md2LevelSource::Built(_)),
        "{:?}",
        built.level_source()
    );
    assert!(same_levels(built.levels_of_detail(), &expected));
    // Asked for none: none, even beside a saved file.
    let full = load(
        &mut h,
        "memory://saved_full/tris.md2",
        Md2Levels::FullDetail,
    );
    assert_eq!(full.level_source(), &Md2LevelSource::FullDetail);
    assert_eq!(full.levels_of_detail().levels().len(), 1);

    // A mesh per level: full detail's is the model's mesh, then one per
    // coarser level; the index bytes count every level's (the meshes' own
    // data is the render world's once uploaded; the street test below
    // draws them).
    for asset in [&none, &read, &built, &full] {
        let levels = asset.levels_of_detail().levels();
        assert_eq!(asset.level_meshes().len(), levels.len());
        assert_eq!(asset.level_meshes()[0], *asset.mesh());
        let indices: u64 = levels.iter().map(|l| u64::from(l.index_count)).sum();
        let bytes = asset.gpu_bytes().indices;
        assert!(
            bytes == indices * 2 || bytes == indices * 4,
            "{bytes} bytes of indices for {indices} indices"
        );
    }
}

/// Entities down a street (those within a hair of a level switch left
/// out): each draws the mesh of the level md2-wgpu's `LevelChoice` gives
/// for the camera and viewport, the picture covers the CPU's full-detail
/// silhouettes within the levels' error, and each level is one draw;
/// with `Md2LevelOfDetail::FULL_DETAIL`, every entity draws level 0.
#[test]
fn entities_draw_the_level_their_camera_allows() {
    use md2_bevy::{Md2, Md2Animator, Md2LevelOfDetail};
    use md2_wgpu::Quake2Player;

    use crate::draws::count_draws;
    use crate::harness::{bright_on_black, save_actual};
    use crate::reference::{PosedModel, compare, lit_mask, rasterize};

    if !gpu_or_skip("entity levels") {
        return;
    }
    let mut h = Harness::new(bright_on_black);
    let log = count_draws(&mut h.app);
    let street = Street::new(&mut h);
    let Street {
        model: handle,
        asset,
        size,
        target,
        clip_from_world,
        md2_camera,
        ..
    } = &street;
    let (size, clip_from_world) = (*size, *clip_from_world);
    let choice = street.choice();
    let mut entities = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for i in 0..120 {
        let place =
            Transform::from_xyz(((i % 5) as f32 - 2.0) * 14.0, 0.0, -100.0 - i as f32 * 30.0)
                .with_rotation(Quat::from_rotation_y(i as f32 * 0.9));
        let transform = md2_wgpu::glam::Mat4::from_cols_array(&place.to_matrix().to_cols_array());
        let level = choice.for_view(md2_camera, 1.0, transform);
        let near_a_switch = [0.99, 1.01]
            .iter()
            .any(|k| choice.for_view(md2_camera, *k, transform) != level);
        if near_a_switch {
            continue;
        }
        used.insert(level);
        let animator = Md2Animator::player(Quake2Player::Run).with_phase(0.1 * i as f64);
        let entity = h
            .app
            .world_mut()
            .spawn((Md2(handle.clone()), animator.clone(), place))
            .id();
        entities.push((entity, level, animator, place));
    }
    assert!(
        used.len() >= 3,
        "the street shows three levels or more: {used:?}"
    );
    for _ in 0..3 {
        h.update();
    }
    let mesh_level = |h: &Harness, entity: Entity| {
        let mesh = h.app.world().get::<Mesh3d>(entity).expect("a mesh");
        asset.level_meshes().iter().position(|m| *m == mesh.0)
    };
    for (entity, level, ..) in &entities {
        assert_eq!(mesh_level(&h, *entity), Some(*level), "entity {entity}");
    }
    // One draw per level in the main pass (the entities of a level share
    // its mesh and the model's material).
    log.take();
    h.update();
    let draws: u32 = log
        .take()
        .iter()
        .filter(|i| i.phase == "Opaque3d")
        .map(|i| i.draws)
        .sum();
    assert_eq!(
        draws as usize,
        used.len(),
        "one draw per level used: {used:?}"
    );

    // The picture: the CPU's full-detail silhouettes, within the levels'
    // error (a pixel) and the pixel centres' sampling (a pixel).
    let image = h.capture(target);
    let model = md2_wgpu::demo::demo_model();
    let mut everyone = PosedModel {
        triangles: Vec::new(),
    };
    for (_, _, animator, place) in &entities {
        everyone
            .triangles
            .extend(PosedModel::new(&model, &animator.pose(0.0), place.to_matrix()).triangles);
    }
    let cpu = rasterize(&everyone, clip_from_world, size, size).mask;
    let gpu = lit_mask(&image);
    compare("entity levels", &gpu, &cpu);
    let far = gpu.beyond(&cpu, 2);
    if far != 0 || cpu.count() < 1000 {
        panic!(
            "entity levels: {far} pixels more than two from the CPU's silhouettes ({} covered): {}",
            cpu.count(),
            save_actual(&image, "entity-levels").display()
        );
    }

    // Full detail where asked.
    for (entity, ..) in &entities {
        h.app
            .world_mut()
            .entity_mut(*entity)
            .insert(Md2LevelOfDetail::FULL_DETAIL);
    }
    h.update();
    for (entity, ..) in &entities {
        assert_eq!(mesh_level(&h, *entity), Some(0), "entity {entity}");
    }
}
