//! Levels of detail in Bevy: the loader reads the levels saved beside a
//! model, builds them off the main thread where asked, passes over a saved
//! file that is damaged or another model's (saying so), and draws entities at full
//! detail whatever the asset holds.

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
    let assets = h.app.world().resource::<Assets<Md2Asset>>();
    assets.get(&handle).expect("loaded").clone()
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

    // Entities draw at full detail: the mesh holds level 0 alone.
    let full_detail = u64::from(expected.levels()[0].index_count);
    for asset in [&none, &read, &built] {
        let bytes = asset.gpu_bytes().indices;
        assert!(
            bytes == full_detail * 2 || bytes == full_detail * 4,
            "{bytes} bytes of indices for {full_detail} indices"
        );
    }
}
