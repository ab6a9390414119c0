//! Quake I models as assets: an `.mdl` loads through Bevy's reader with
//! its palette found where the game keeps it, plays its animations and
//! draws; its fullbright texels glow in the dark while ordinary ones stay
//! black; a hostile one fails with md2-wgpu's typed MDL error.

use bevy::asset::{AssetLoadError, LoadState};
use bevy::light::GlobalAmbientLight;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use md2_bevy::{Md2, Md2Animator, Md2Asset, Md2LoadError};
use md2_wgpu::format::mdl::{FULLBRIGHT_FIRST, MdlError, Palette};

use crate::harness::{Harness, gpu_or_skip, pixels, save_actual};

/// The demo model as an MDL whose one skin is every texel palette index
/// `index`: the header is 84 bytes, then the skin's group flag (0) and its
/// width × height indices.
fn demo_mdl_painted(index: u8) -> Vec<u8> {
    let model = md2_wgpu::demo::demo_mdl();
    let (width, height) = model.skin_size();
    let mut bytes = model.to_bytes();
    assert_eq!(&bytes[84..88], &0i32.to_le_bytes(), "one plain skin");
    let texels = (width * height) as usize;
    bytes[88..88 + texels].fill(index);
    bytes
}

#[test]
fn a_quake_model_loads_with_its_games_palette_and_its_fullbright_texels_glow() {
    if !gpu_or_skip("quake1") {
        return;
    }
    let mut h = Harness::new(|app| {
        app.insert_resource(ClearColor(Color::BLACK));
        // No light at all: only what glows is seen.
        app.insert_resource(GlobalAmbientLight {
            brightness: 0.0,
            ..default()
        });
    });
    // A game's layout: id1/progs/*.mdl, the palette in id1/gfx/.
    h.add_file("id1/gfx/palette.lmp", Palette::builtin().to_lmp());
    h.add_file(
        "id1/progs/glow.mdl",
        demo_mdl_painted(FULLBRIGHT_FIRST + 16),
    );
    h.add_file("id1/progs/plain.mdl", demo_mdl_painted(15));
    // A header that ends early, and a model in a folder with no palette.
    let mut hostile = md2_wgpu::demo::demo_mdl().to_bytes();
    hostile.truncate(60);
    h.add_file("id1/progs/short.mdl", hostile);
    h.add_file("loose/demo.mdl", md2_wgpu::demo::demo_mdl().to_bytes());

    let server = h.asset_server();
    let glow: Handle<Md2Asset> = server.load("memory://id1/progs/glow.mdl");
    let plain: Handle<Md2Asset> = server.load("memory://id1/progs/plain.mdl");
    let loose: Handle<Md2Asset> = server.load("memory://loose/demo.mdl");
    let short: Handle<Md2Asset> = server.load("memory://id1/progs/short.mdl");
    h.wait_loaded(&glow);
    h.wait_loaded(&plain);
    h.wait_loaded(&loose);
    for _ in 0..100 {
        if server.load_state(&short).is_failed() {
            break;
        }
        h.update();
    }
    let LoadState::Failed(error) = server.load_state(&short) else {
        panic!("the truncated MDL did not fail to load");
    };
    let AssetLoadError::AssetLoaderError(loader) = &*error else {
        panic!("failed, but not in the loader: {error}");
    };
    let Some(Md2LoadError::Mdl(mdl)) = loader.error().downcast_ref::<Md2LoadError>() else {
        panic!("not md2-wgpu's typed MDL error: {error}");
    };
    assert!(matches!(mdl, MdlError::TruncatedHeader { .. }), "{mdl:?}");

    let models = h.app.world().resource::<Assets<Md2Asset>>();
    let asset = models.get(&glow).expect("loaded");
    let expected = md2_wgpu::demo::demo_mdl();
    let quake = asset.model().expect("an MDL is a Quake model");
    assert_eq!(quake.format(), "MDL");
    assert_eq!(quake.frame_count(), expected.frame_count());
    assert_eq!(asset.clips(), expected.clips().as_slice());
    assert_eq!(asset.skin_count(), 1, "the masks are not skins");
    assert_eq!(
        asset.skin_notes(),
        ["palette: id1/gfx/palette.lmp"],
        "the game's palette is found"
    );
    let loose_asset = models.get(&loose).expect("loaded");
    assert!(
        loose_asset.skin_notes()[0].contains("built-in palette"),
        "{:?}",
        loose_asset.skin_notes()
    );
    assert_eq!(
        asset.gpu_bytes().skins,
        2 * models.get(&plain).expect("loaded").gpu_bytes().skins,
        "a fullbright model carries a mask per skin; one without none"
    );

    // Side by side in the dark: the glowing one left, the plain one right.
    let target = h.target(160, 96, TextureFormat::Rgba8UnormSrgb);
    h.camera(
        &target,
        Transform::from_xyz(0.0, 20.0, 150.0).looking_at(Vec3::new(0.0, 20.0, 0.0), Vec3::Y),
        Projection::default(),
        (),
    );
    let stand = expected.clips()[0].clone();
    for (handle, x) in [(glow, -35.0), (plain, 35.0)] {
        h.app.world_mut().spawn((
            Md2(handle),
            Md2Animator::new(stand.clone()),
            Transform::from_xyz(x, 0.0, 0.0),
        ));
    }
    // The first frame after a model is spawned may sample Bevy's fallback
    // texture while the skins upload: the second has them.
    h.capture(&target);
    let image = h.capture(&target);
    let lit = |range: std::ops::Range<u32>| {
        pixels(&image)
            .iter()
            .enumerate()
            .filter(|(i, p)| range.contains(&(*i as u32 % 160)) && p[0] + p[1] + p[2] > 0.05)
            .count()
    };
    let (left, right) = (lit(0..80), lit(80..160));
    eprintln!("quake1: in the dark, {left} pixels glow, {right} lit ones show");
    if left < 300 || right > 0 {
        let path = save_actual(&image, "quake1-fullbright");
        panic!(
            "fullbright texels glow ({left} pixels, want over 300) and lit ones stay dark \
             ({right}, want 0): {}",
            path.display()
        );
    }
}
