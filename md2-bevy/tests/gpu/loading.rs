//! Loading through Bevy's asset reader: hostile and truncated files are
//! load failures Bevy reports, each with md2-wgpu's typed error inside,
//! while the other assets load and the app goes on drawing; skins are found
//! the Quake II way (header names in any case, as game paths, the folder's
//! images), and a model with none gets md2-wgpu's checker.

use bevy::asset::{AssetLoadError, LoadState};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator, Md2Asset, Md2LoadError};
use md2_wgpu::{
    Md2Model,
    format::{Md2Error, Md2Parts, SkinName},
};

use crate::harness::{Harness, demo_skin_png, gpu_or_skip, pixels};

/// The demo model with one header skin name.
fn demo_naming(skin: &str) -> Vec<u8> {
    let demo = md2_wgpu::demo::demo_model();
    Md2Model::from_parts(Md2Parts {
        skin_size: demo.skin_size(),
        skins: vec![SkinName::new(skin)],
        tex_coords: demo.tex_coords().to_vec(),
        triangles: demo.triangles().to_vec(),
        frames: demo.keyframes().frames().to_vec(),
        vertices: demo.keyframes().vertices().to_vec(),
    })
    .expect("the demo's parts make a model")
    .to_bytes()
}

/// Sets the little-endian i32 at header field `field` (0 is the ident,
/// 10 `num_frames`, 13 `ofs_tris`).
fn set_field(bytes: &mut [u8], field: usize, value: i32) {
    bytes[4 * field..4 * field + 4].copy_from_slice(&value.to_le_bytes());
}

fn field(bytes: &[u8], field: usize) -> usize {
    i32::from_le_bytes(bytes[4 * field..4 * field + 4].try_into().unwrap()) as usize
}

/// A hostile file: what it is, its bytes, the error it must give.
type Hostile = (&'static str, Vec<u8>, fn(&Md2Error) -> bool);

#[test]
fn hostile_files_fail_with_typed_errors_and_the_app_goes_on() {
    if !gpu_or_skip("loading") {
        return;
    }
    let mut h = Harness::new(|_| {});
    let demo = md2_wgpu::demo::demo_model_bytes();
    let mut bad_ident = demo.clone();
    bad_ident[..4].copy_from_slice(b"IDP3");
    let mut absurd_frames = demo.clone();
    set_field(&mut absurd_frames, 10, i32::MAX);
    let mut bad_index = demo.clone();
    let ofs_tris = field(&demo, 13);
    bad_index[ofs_tris..ofs_tris + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    let hostile: Vec<Hostile> = vec![
        ("empty", Vec::new(), |e| {
            matches!(e, Md2Error::TruncatedHeader { length: 0 })
        }),
        ("truncated header", demo[..40].to_vec(), |e| {
            matches!(e, Md2Error::TruncatedHeader { length: 40 })
        }),
        ("wrong ident", bad_ident, |e| {
            matches!(e, Md2Error::BadIdent { .. })
        }),
        ("cut in half", demo[..demo.len() / 2].to_vec(), |e| {
            matches!(
                e,
                Md2Error::SectionOutOfBounds { .. } | Md2Error::BadEnd { .. }
            )
        }),
        ("2^31 frames", absurd_frames, |e| {
            matches!(
                e,
                Md2Error::InvalidField { .. } | Md2Error::SectionOutOfBounds { .. }
            )
        }),
        ("vertex index out of range", bad_index, |e| {
            matches!(e, Md2Error::IndexOutOfRange { .. })
        }),
    ];
    for (k, (_, bytes, _)) in hostile.iter().enumerate() {
        h.add_file(&format!("bad/{k}.md2"), bytes.clone());
    }
    // Alongside them: the demo naming its skin as a Quake II game path in
    // other letter cases, found from another folder.
    h.add_file("players/soldier/skin.png", demo_skin_png());
    h.add_file(
        "models/soldier/tris.md2",
        demo_naming("players\\Soldier\\Skin.PCX"),
    );
    // And one with no skin anywhere.
    h.add_file("bare/tris.md2", md2_wgpu::demo::demo_model_bytes());

    let server = h.asset_server();
    let bad: Vec<Handle<Md2Asset>> = (0..hostile.len())
        .map(|k| server.load(format!("memory://bad/{k}.md2")))
        .collect();
    let named: Handle<Md2Asset> = server.load("memory://models/soldier/tris.md2");
    let bare: Handle<Md2Asset> = server.load("memory://bare/tris.md2");
    h.wait_loaded(&named);
    h.wait_loaded(&bare);
    for _ in 0..100 {
        if bad.iter().all(|b| server.load_state(b).is_failed()) {
            break;
        }
        h.update();
    }

    for ((name, _, expected), handle) in hostile.iter().zip(&bad) {
        let LoadState::Failed(error) = server.load_state(handle) else {
            panic!("{name}: did not fail to load");
        };
        let AssetLoadError::AssetLoaderError(loader) = &*error else {
            panic!("{name}: failed, but not in the loader: {error}");
        };
        let Some(Md2LoadError::Model(md2)) = loader.error().downcast_ref::<Md2LoadError>() else {
            panic!("{name}: not md2-wgpu's typed error: {error}");
        };
        eprintln!("{name}: {md2}");
        assert!(expected(md2), "{name}: {md2:?}");
    }

    let models = h.app.world().resource::<Assets<Md2Asset>>();
    let named_asset = models.get(&named).expect("loaded");
    assert_eq!(named_asset.skin_count(), 1);
    assert!(
        named_asset.skin_notes().is_empty(),
        "the header's skin is found: {:?}",
        named_asset.skin_notes()
    );
    let bare_asset = models.get(&bare).expect("loaded");
    assert_eq!(bare_asset.skin_count(), 1, "the checker");
    assert_eq!(bare_asset.skin_notes(), ["no skin found"]);

    // The app goes on: the good model draws.
    let target = h.target(128, 128, TextureFormat::Rgba8UnormSrgb);
    h.camera(
        &target,
        Transform::from_xyz(0.0, 4.0, 110.0),
        Projection::default(),
        (),
    );
    h.app
        .world_mut()
        .spawn((Md2(named), Md2Animator::default(), Transform::default()));
    h.app.insert_resource(ClearColor(Color::BLACK));
    let image = h.capture(&target);
    let drawn = pixels(&image)
        .iter()
        .filter(|p| p[0] + p[1] + p[2] > 0.0)
        .count();
    assert!(
        drawn > 500,
        "the model draws after the failures ({drawn} pixels)"
    );
}

#[test]
fn a_community_player_model_finds_its_skins_through_bevys_reader() {
    let dir = md2_wgpu::support::shared_models_dir().join("yohko");
    if !dir.join("tris.md2").exists() {
        eprintln!(
            "SKIPPED community model: {} is absent (set MD2_SHARED_MODELS)",
            dir.display()
        );
        return;
    }
    if !gpu_or_skip("community skins") {
        return;
    }
    let mut h = Harness::new(|_| {});
    // A Quake II mod's layout: players/<name>/, files in whatever case.
    for entry in std::fs::read_dir(&dir).expect("the folder lists") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        h.add_file(
            &format!("players/Yohko/{name}"),
            std::fs::read(&path).expect("reads"),
        );
    }
    let handle: Handle<Md2Asset> = h.asset_server().load("memory://players/Yohko/tris.md2");
    h.wait_loaded(&handle);
    let asset = h.md2_asset(&handle);
    // md2-wgpu's own search, on the file system, is the reference.
    let model = md2_wgpu::Md2Model::open(dir.join("tris.md2")).expect("the model loads");
    let on_disk = md2_wgpu::skins::load_skins(dir.join("tris.md2"), &model);
    eprintln!(
        "yohko: {} skins through Bevy ({:?}); on disk {} ({:?})",
        asset.skin_count(),
        asset.skin_notes(),
        on_disk.images.len(),
        on_disk.notes()
    );
    assert_eq!(asset.skin_count() as usize, on_disk.images.len().max(1));
    assert_eq!(asset.skin_notes(), on_disk.notes());
}
