//! The skin finder: header names resolved the way Quake II mods lay files out,
//! the folder's images when the header names none, and decoding that refuses
//! bad files with an error naming them instead of panicking.

use md2_wgpu_tests as common;

use std::fs;
use std::path::{Path, PathBuf};

use md2_wgpu::skins::{
    LoadedSkins, MAX_SKIN_SIDE, SkinError, SkinSource, find_skins, load_skin, load_skins,
    search_skins,
};
use md2_wgpu::{
    Md2Model,
    format::{Md2Parts, SkinName, TexCoord, Triangle},
    model::{Frame, PackedVertex},
};

fn shared(path: &str) -> Option<PathBuf> {
    common::shared_file(path)
}

/// The file names of skin slots; `-` for a slot with no file.
fn names(paths: &[Option<PathBuf>]) -> Vec<String> {
    paths
        .iter()
        .map(|p| match p {
            Some(p) => p.file_name().unwrap().to_string_lossy().into_owned(),
            None => "-".to_owned(),
        })
        .collect()
}

/// A scratch folder of its own per test, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("md2-wgpu-skins-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-triangle model naming the given skins, with the given skin size.
fn model(skins: &[&str], skin_size: (u32, u32)) -> Md2Model {
    let corner = |x: u8, y: u8| PackedVertex {
        position: [x, y, 0],
        normal_index: 5,
    };
    Md2Model::from_parts(Md2Parts {
        skin_size,
        skins: skins.iter().map(|s| SkinName::new(s)).collect(),
        tex_coords: vec![TexCoord { s: 0, t: 0 }; 3],
        triangles: vec![Triangle {
            xyz: [0, 1, 2],
            st: [0, 1, 2],
        }],
        frames: vec![Frame::new("stand01", [1.0; 3], [0.0; 3])],
        vertices: vec![corner(0, 0), corner(255, 0), corner(0, 255)],
    })
    .unwrap()
}

/// [`model`] written as `dir/tris.md2` (the folder made where need be):
/// its path and the model.
fn tris_in(dir: &Path, skins: &[&str], skin_size: (u32, u32)) -> (PathBuf, Md2Model) {
    fs::create_dir_all(dir).unwrap();
    let model = model(skins, skin_size);
    let path = dir.join("tris.md2");
    fs::write(&path, model.to_bytes()).unwrap();
    (path, model)
}

fn png(path: &Path, w: u32, h: u32, rgb: [u8; 3]) {
    image::RgbImage::from_pixel(w, h, image::Rgb(rgb))
        .save(path)
        .unwrap();
}

/// An 8-bit paletted, RLE-compressed PCX, as Quake II skins are: every pixel
/// palette index 1, which is `rgb`.
fn pcx_bytes(w: u16, h: u16, rgb: [u8; 3]) -> Vec<u8> {
    let mut out = vec![0u8; 128];
    out[0] = 0x0a; // manufacturer
    out[1] = 5; // version
    out[2] = 1; // RLE
    out[3] = 8; // bits per pixel
    out[8..10].copy_from_slice(&(w - 1).to_le_bytes());
    out[10..12].copy_from_slice(&(h - 1).to_le_bytes());
    out[65] = 1; // planes
    let line = w.div_ceil(2) * 2;
    out[66..68].copy_from_slice(&line.to_le_bytes());
    out[68] = 1; // palette type
    for _ in 0..h {
        let mut left = line;
        while left > 0 {
            let run = left.min(63);
            out.push(0xc0 | run as u8);
            out.push(1);
            left -= run;
        }
    }
    out.push(0x0c);
    let mut palette = [0u8; 768];
    palette[3..6].copy_from_slice(&rgb);
    out.extend_from_slice(&palette);
    out
}

#[test]
fn yohko_player_takes_its_skins_but_not_icon_or_weapon_skin() {
    let Some(path) = shared("yohko/tris.md2") else {
        return;
    };
    let model = Md2Model::open(&path).unwrap();
    assert!(model.skins().is_empty(), "tris.md2 names no skin");
    let search = search_skins(&path, &model);
    assert_eq!(search.source, SkinSource::Folder);
    // Named after the folder first, team skins last.
    assert_eq!(
        names(&search.paths),
        ["Yohko.pcx", "ctf_b.PCX", "ctf_r.pcx"]
    );

    let loaded = load_skins(&path, &model);
    assert!(loaded.failed.is_empty(), "{:?}", loaded.failed);
    assert_eq!(
        names(&loaded.paths),
        ["Yohko.pcx", "ctf_b.PCX", "ctf_r.pcx"]
    );
    for image in &loaded.images {
        assert_eq!(image.dimensions(), (256, 256));
    }
    // A real picture, not one colour.
    let first = &loaded.images[0];
    let p0 = first.get_pixel(0, 0);
    assert!(first.pixels().any(|p| p != p0));
}

#[test]
fn yohko_weapon_finds_its_skin_through_a_backslash_name() {
    let Some(path) = shared("yohko/weapon.md2") else {
        return;
    };
    let model = Md2Model::open(&path).unwrap();
    assert_eq!(model.skins()[0].name(), "players\\Yohko\\weapon.pcx");
    let search = search_skins(&path, &model);
    assert_eq!(search.source, SkinSource::Header);
    assert_eq!(names(&search.paths), ["weapon.pcx"]);
    assert!(search.unresolved.is_empty());
    assert_eq!(
        load_skin(search.paths[0].as_ref().unwrap())
            .unwrap()
            .dimensions(),
        (128, 128)
    );
}

#[test]
fn railgun_names_a_skin_that_is_not_there() {
    let Some(path) = shared("yohko/w_railgun.md2") else {
        return;
    };
    let model = Md2Model::open(&path).unwrap();
    let search = search_skins(&path, &model);
    assert_eq!(search.unresolved, ["models/weapons/g_rail/skin.pcx"]);
    // The folder's player skins are 256x256 and the railgun's is 292x194:
    // no image fits, so every candidate stays; none is the icon or a skin
    // another model names.
    assert_eq!(search.source, SkinSource::Folder);
    let found = names(&search.paths);
    assert!(
        !found
            .iter()
            .any(|n| n == "Yohko_i.pcx" || n == "weapon.pcx"),
        "{found:?}"
    );
    assert!(
        load_skins(&path, &model)
            .notes()
            .iter()
            .any(|n| n.contains("g_rail/skin.pcx"))
    );
}

#[test]
fn ogro_falls_back_to_the_image_of_its_skin_size() {
    let Some(path) = shared("ogro/ogros.MD2") else {
        return;
    };
    let model = Md2Model::open(&path).unwrap();
    assert_eq!(model.skins().len(), 13);
    let search = search_skins(&path, &model);
    assert_eq!(
        search.unresolved.len(),
        13,
        "none of the 13 .pcx names exists"
    );
    assert_eq!(search.source, SkinSource::Folder);
    // ogros_g_bfg.bmp is 308x165, a weapon's skin; the header says 256x256.
    assert_eq!(names(&search.paths), ["ogrobase.bmp"]);
    let notes = load_skins(&path, &model).notes();
    assert!(
        notes[0].starts_with("13 header skins match no file")
            && notes[0].contains("igdosh.pcx")
            && notes[0].ends_with("and 10 more"),
        "{notes:?}"
    );
    let image = load_skin(search.paths[0].as_ref().unwrap()).unwrap();
    assert_eq!(image.dimensions(), (256, 256));
}

#[test]
fn names_resolve_ignoring_case_backslashes_and_extension() {
    let dir = scratch("case");
    png(&dir.join("RED.png"), 4, 4, [255, 0, 0]);
    fs::write(dir.join("Blue.PCX"), pcx_bytes(8, 4, [0, 0, 255])).unwrap();
    let (path, m) = tris_in(
        &dir,
        &[
            "players\\Hero\\red.pcx", // stored as RED.png
            "players/hero/blue.pcx",  // stored as Blue.PCX
            "players/hero/green.pcx", // not there
        ],
        (8, 4),
    );

    let search = search_skins(&path, &m);
    assert_eq!(search.source, SkinSource::Header);
    // Green keeps its slot: skin i is the header's skin i.
    assert_eq!(names(&search.paths), ["RED.png", "Blue.PCX", "-"]);
    assert_eq!(search.unresolved, ["players/hero/green.pcx"]);

    let loaded = load_skins(&path, &m);
    assert!(loaded.failed.is_empty());
    assert_eq!(loaded.images.len(), 3);
    assert_eq!(loaded.images[2].dimensions(), (0, 0));
    assert_eq!(loaded.loaded_count(), 2);
    assert_eq!(
        *loaded.images[0].get_pixel(0, 0),
        image::Rgba([255, 0, 0, 255])
    );
    let blue = &loaded.images[1];
    assert_eq!(blue.dimensions(), (8, 4));
    assert!(blue.pixels().all(|p| *p == image::Rgba([0, 0, 255, 255])));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_game_path_reaches_a_sibling_folder() {
    // baseq2/players/cyborg/tris.md2 naming players/male/skin.pcx, as a
    // model sharing another's skin does.
    let root = scratch("gamepath");
    let cyborg = root.join("baseq2/players/cyborg");
    let male = root.join("baseq2/players/Male");
    fs::create_dir_all(&male).unwrap();
    png(&male.join("skin.png"), 2, 2, [1, 2, 3]);
    let (path, m) = tris_in(&cyborg, &["players/male/skin.pcx"], (2, 2));
    let found = find_skins(&path, &m);
    assert_eq!(found.len(), 1);
    let skin = found[0].as_ref().expect("found");
    assert!(skin.ends_with("players/Male/skin.png"), "{found:?}");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_name_cannot_climb_out_of_the_game_folders() {
    let root = scratch("climb");
    png(&root.join("secret.png"), 2, 2, [9, 9, 9]);
    let (path, m) = tris_in(&root.join("a/b"), &["../../secret.png"], (2, 2));
    let search = search_skins(&path, &m);
    assert_eq!(search.unresolved, ["../../secret.png"]);
    assert_eq!(search.source, SkinSource::None);
    assert!(search.paths.is_empty());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn folder_images_skip_icons_and_other_models_skins_in_a_fixed_order() {
    let dir = scratch("folder");
    // The folder is called after the player: hero.tga comes first.
    let hero = dir.join("hero");
    fs::create_dir_all(&hero).unwrap();
    for name in [
        "zeta.png",
        "alpha.PNG",
        "ctf_r.pcx",
        "hero.tga",
        "hero_i.pcx",
        "weapon.pcx",
    ] {
        let path = hero.join(name);
        if name.to_ascii_lowercase().ends_with(".pcx") {
            fs::write(&path, pcx_bytes(4, 4, [7, 7, 7])).unwrap();
        } else {
            let format = if name.ends_with("tga") {
                image::ImageFormat::Tga
            } else {
                image::ImageFormat::Png
            };
            image::RgbImage::from_pixel(4, 4, image::Rgb([7, 7, 7]))
                .save_with_format(&path, format)
                .unwrap();
        }
    }
    fs::write(hero.join("notes.txt"), "not an image").unwrap();
    let weapon = model(&["players\\hero\\WEAPON.pcx"], (4, 4));
    fs::write(hero.join("weapon.md2"), weapon.to_bytes()).unwrap();
    let (path, player) = tris_in(&hero, &[], (4, 4));

    let search = search_skins(&path, &player);
    assert_eq!(search.source, SkinSource::Folder);
    assert_eq!(
        names(&search.paths),
        ["hero.tga", "alpha.PNG", "zeta.png", "ctf_r.pcx"]
    );
    // Twice the same answer, whatever order the disk lists files in.
    assert_eq!(search_skins(&path, &player), search);
    let loaded = load_skins(&path, &player);
    assert_eq!(loaded.images.len(), 4);
    assert!(loaded.failed.is_empty(), "{:?}", loaded.failed);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_skin_anywhere_is_source_none() {
    let dir = scratch("none");
    let (path, m) = tris_in(&dir, &[], (4, 4));
    let loaded: LoadedSkins = load_skins(&path, &m);
    assert_eq!(loaded.source, SkinSource::None);
    assert!(loaded.images.is_empty());
    assert!(loaded.notes().iter().any(|n| n.contains("no skin")));
    // A model path with no folder part means the current folder: no panic.
    let _ = search_skins("tris.md2", &m);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_named_skin_that_is_not_there_is_a_typed_error() {
    let dir = scratch("missing");
    let path = dir.join("nope.pcx");
    match load_skin(&path) {
        Err(SkinError::Missing { path: p }) => assert_eq!(p, path),
        other => panic!("expected Missing, got {other:?}"),
    }
    let message = load_skin(&path).unwrap_err().to_string();
    assert!(
        message.contains("nope.pcx") && message.contains("no such file"),
        "{message}"
    );
    // A folder is not a skin either.
    let err = load_skin(&dir).unwrap_err();
    assert_eq!(err.path(), dir);
    assert!(matches!(err, SkinError::Io { .. }), "{err:?}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_and_absurd_images_are_refused_with_the_path() {
    let dir = scratch("corrupt");
    // Not an image at all.
    let text = dir.join("skin.pcx");
    fs::write(&text, b"this is not a picture").unwrap();
    let err = load_skin(&text).unwrap_err();
    assert!(matches!(err, SkinError::Undecodable { .. }), "{err:?}");
    assert!(err.to_string().contains("skin.pcx"));

    // A PNG cut short.
    let cut = dir.join("cut.png");
    png(&cut, 64, 64, [1, 2, 3]);
    let bytes = fs::read(&cut).unwrap();
    fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        load_skin(&cut),
        Err(SkinError::Undecodable { .. })
    ));

    // A PCX header claiming 5000 x 5000 texels in a few hundred bytes.
    let huge = dir.join("huge.pcx");
    let mut bytes = pcx_bytes(4, 4, [1, 2, 3]);
    bytes[8..10].copy_from_slice(&4999u16.to_le_bytes());
    bytes[10..12].copy_from_slice(&4999u16.to_le_bytes());
    bytes[66..68].copy_from_slice(&5000u16.to_le_bytes());
    fs::write(&huge, &bytes).unwrap();
    match load_skin(&huge) {
        Err(SkinError::AbsurdSize { width, height, .. }) => {
            assert!(width > MAX_SKIN_SIDE && height > MAX_SKIN_SIDE)
        }
        other => panic!("expected AbsurdSize, got {other:?}"),
    }

    // A PCX cut short: rows missing.
    let short = dir.join("short.pcx");
    let bytes = pcx_bytes(64, 64, [1, 2, 3]);
    fs::write(&short, &bytes[..200]).unwrap();
    assert!(matches!(
        load_skin(&short),
        Err(SkinError::Undecodable { .. })
    ));

    // Found next to a model, a corrupt or missing file is reported, not
    // fatal, and keeps its slot (an empty image: the default texture), so
    // the good skin is still skin 2.
    png(&dir.join("good.png"), 4, 4, [5, 5, 5]);
    let (path, m) = tris_in(&dir, &["cut.png", "gone.pcx", "good.png"], (4, 4));
    let loaded = load_skins(&path, &m);
    assert_eq!(loaded.source, SkinSource::Header);
    assert_eq!(names(&loaded.paths), ["cut.png", "-", "good.png"]);
    let sizes: Vec<_> = loaded.images.iter().map(|i| i.dimensions()).collect();
    assert_eq!(sizes, [(0, 0), (0, 0), (4, 4)]);
    assert_eq!(loaded.failed.len(), 1);
    assert_eq!(loaded.failed[0].index, 0);
    assert!(loaded.failed[0].error.path().ends_with("cut.png"));
    assert_eq!(loaded.unresolved, ["gone.pcx"]);
    let notes = loaded.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("cut.png") && n.contains("skin 0")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|n| n.contains("no skin")), "{notes:?}");
    fs::remove_dir_all(&dir).unwrap();
}

/// Single-byte changes to the headers of a small PCX and PNG, and every
/// truncation, are either decoded to the size the file declares or refused;
/// none escapes as a panic or an allocation past the limit.
#[test]
fn damaged_images_never_panic() {
    let dir = scratch("damage");
    let mut originals = vec![("pcx", pcx_bytes(6, 5, [10, 20, 30]))];
    let png_path = dir.join("seed.png");
    png(&png_path, 6, 5, [10, 20, 30]);
    originals.push(("png", fs::read(&png_path).unwrap()));
    let (mut decoded, mut refused) = (0, 0);
    for (ext, original) in &originals {
        let path = dir.join(format!("damaged.{ext}"));
        for at in 0..original.len().min(140) {
            for value in [0x00, 0x01, 0x7f, 0xc1, 0xff] {
                let mut bytes = original.clone();
                bytes[at] = value;
                fs::write(&path, &bytes).unwrap();
                match load_skin(&path) {
                    Ok(image) => {
                        let (w, h) = image.dimensions();
                        assert!(
                            (1..=MAX_SKIN_SIDE).contains(&w) && (1..=MAX_SKIN_SIDE).contains(&h)
                        );
                        decoded += 1;
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        // Everything before PNG's closing 12-byte IEND chunk, or before the
        // end of PCX's trailing palette, is needed.
        let needed = if *ext == "png" {
            original.len() - 12
        } else {
            original.len()
        };
        for len in 0..needed {
            fs::write(&path, &original[..len]).unwrap();
            assert!(
                load_skin(&path).is_err(),
                "{ext} cut to {len} bytes decoded"
            );
        }
    }
    assert!(
        decoded > 0 && refused > 0,
        "decoded {decoded}, refused {refused}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
