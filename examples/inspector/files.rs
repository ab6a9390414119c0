//! Files given as bytes, as a browser hands them over: picked or dropped
//! several at once, with no folder around them. [`sort`] tells the model
//! from its weapon and their skin images, and finds each model's skins
//! with `md2_wgpu::skins`' own search ([`SkinFinder`]), the files given
//! standing for the model's folder: a model finds the same skins dropped
//! on the page as beside it on disk. A Quake I model (`.mdl`) carries its
//! skins; a `palette.lmp` given with it colours them.

use std::path::{Path, PathBuf};

use md2_wgpu::format::mdl::Palette;
use md2_wgpu::image::RgbaImage;
use md2_wgpu::skins::{SkinFinder, SkinQuestion, SkinSource, decode_skin};
use md2_wgpu::{Md2Model, QuakeModel};

use super::model::{ModelFile, SkinSlot};
use super::quake3::PlayerFile;

/// The image extensions taken as skins: the formats `md2_wgpu::skins`
/// decodes.
pub const IMAGE_EXTENSIONS: [&str; 6] = ["pcx", "png", "tga", "jpg", "jpeg", "bmp"];

/// A file given as bytes: its name (no folders) and its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFile {
    /// The file's name, as the browser gives it.
    pub name: String,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// What a batch of files comes to; see [`sort`].
#[derive(Debug, Default)]
pub struct Opened {
    /// A model to show in place of the one shown, or why it does not load.
    pub body: Option<Result<ModelFile, String>>,
    /// A weapon for the model, or why it does not load.
    pub weapon: Option<Result<ModelFile, String>>,
    /// Skin images given without a model: the shown model's new skins.
    pub skins: Option<Vec<SkinSlot>>,
    /// Files that are neither models nor images, and models left out.
    pub errors: Vec<String>,
    /// A Quake III player (its three models among the files), or why it
    /// does not load: shown in place of the model.
    pub player: Option<Result<PlayerFile, String>>,
}

/// Sorts `files` into a model, a weapon and their skins.
///
/// A Quake III player's files (`lower.md3`, `upper.md3` and `head.md3`
/// among them, with its `animation.cfg`, `default` skins and textures) are
/// the player, whatever else comes.
///
/// Otherwise a file is a model when its name ends in `.md2` or `.mdl` (any case) or
/// its bytes start with `IDP2` or `IDPO`, a palette when it ends in `.lmp`,
/// and an image when its extension is one of [`IMAGE_EXTENSIONS`]. With `weapon` every model is a weapon for the
/// model shown. Otherwise the first model is shown, unless another model
/// named the way Quake II names weapons (`weapon.md2`, `w_*.md2`) comes
/// with one that is not: then that one is the weapon. Images without a
/// model become the shown model's skins.
pub fn sort(files: &[NamedFile], weapon: bool) -> Opened {
    // A player's files come together: its models, animation.cfg, skins
    // and textures are all its own.
    if let Some(player) = PlayerFile::from_files(files) {
        return Opened {
            player: Some(player),
            ..Opened::default()
        };
    }
    let mut opened = Opened::default();
    let mut models = Vec::new();
    let mut images = Vec::new();
    let mut palette = None;
    for file in files {
        if is_model(file) {
            models.push(file);
        } else if is_image(&file.name) {
            images.push(file);
        } else if extension(&file.name).eq_ignore_ascii_case("lmp") {
            match Palette::from_lmp(&file.bytes) {
                Ok(p) => palette = Some((file.name.clone(), p)),
                Err(e) => opened.errors.push(format!("{}: {e}", file.name)),
            }
        } else {
            opened.errors.push(format!(
                "{}: neither a model (.md2, .mdl), a palette (.lmp) nor a skin image ({})",
                file.name,
                IMAGE_EXTENSIONS.map(|e| format!(".{e}")).join(" ")
            ));
        }
    }
    let (body, gun) = if weapon {
        (None, models.first().copied())
    } else {
        let body = models
            .iter()
            .find(|m| !is_weapon_name(&m.name))
            .or(models.first())
            .copied();
        let gun = models
            .iter()
            .find(|m| body.is_some_and(|b| b.name != m.name) && is_weapon_name(&m.name))
            .copied();
        (body, gun)
    };
    for left in models
        .iter()
        .filter(|m| Some(m.name.as_str()) != body.map(|b| b.name.as_str()))
        .filter(|m| Some(m.name.as_str()) != gun.map(|g| g.name.as_str()))
    {
        opened.errors.push(format!(
            "{}: not opened: one model and one weapon at a time",
            left.name
        ));
    }
    let parse = |file: &NamedFile| {
        QuakeModel::from_bytes(&file.bytes).map_err(|e| format!("{}: {e}", file.name))
    };
    let body = body.map(|file| (file, parse(file)));
    let gun = gun.map(|file| (file, parse(file)));
    let open = |file: &NamedFile, model: QuakeModel| match model {
        QuakeModel::Md2(model) => model_file(file, model, files),
        QuakeModel::Mdl(model) => {
            ModelFile::mdl(file.name.clone(), file.bytes.len(), model, palette.clone())
        }
    };
    opened.body = body.map(|(file, model)| model.map(|model| open(file, model)));
    opened.weapon = gun.map(|(file, model)| model.map(|model| open(file, model)));
    if opened.body.is_none() && opened.weapon.is_none() && !images.is_empty() {
        opened.skins = Some(images.iter().map(|file| slot(file, "given")).collect());
    }
    opened
}

fn is_model(file: &NamedFile) -> bool {
    let ext = extension(&file.name);
    ext.eq_ignore_ascii_case("md2")
        || ext.eq_ignore_ascii_case("mdl")
        || file.bytes.starts_with(b"IDP2")
        || file.bytes.starts_with(b"IDPO")
}

fn is_image(name: &str) -> bool {
    let ext = extension(name);
    IMAGE_EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(ext))
}

/// Quake II's names for a weapon beside a player: `weapon.md2`, and the
/// visible weapons `w_*.md2`.
fn is_weapon_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "weapon.md2" || name.starts_with("w_")
}

fn extension(name: &str) -> &str {
    name.rsplit_once('.').map_or("", |(_, ext)| ext)
}

/// A header skin name's file name: the part after the last `/` or `\`.
fn header_file(name: &str) -> &str {
    name.trim().rsplit(['/', '\\']).next().unwrap_or_default()
}

/// The model in `file` with its skins, found among `files` (everything
/// given, standing for the model's folder) by `md2_wgpu::skins`' rules.
fn model_file(file: &NamedFile, model: Md2Model, files: &[NamedFile]) -> ModelFile {
    let given = |path: &Path| files.iter().find(|f| Path::new(&f.name) == path);
    let mut finder = SkinFinder::for_model(&file.name, &model);
    let search = loop {
        match finder.search() {
            Ok(search) => break search,
            // The files given are one folder, with nothing around it.
            Err(SkinQuestion::List(dir)) => {
                let names = dir
                    .as_os_str()
                    .is_empty()
                    .then(|| files.iter().map(|f| PathBuf::from(&f.name)).collect());
                finder.listed(&dir, names.unwrap_or_default(), Vec::new());
            }
            Err(SkinQuestion::Read(path)) => {
                finder.read(&path, given(&path).map(|f| f.bytes.as_slice()))
            }
        }
    };
    let header: Vec<String> = model.skins().iter().map(|s| s.name()).collect();
    let missing = |name: &String| SkinSlot {
        name: header_file(name).to_owned(),
        image: None,
        status: "not among the files given".to_owned(),
    };
    let mut notes = Vec::new();
    let skins: Vec<SkinSlot> = match search.source {
        SkinSource::Header => header
            .iter()
            .zip(&search.paths)
            .map(|(name, path)| match path.as_deref().and_then(given) {
                Some(image) => slot(image, &format!("header {name:?}")),
                None => missing(name),
            })
            .collect(),
        SkinSource::Folder => {
            notes.push(if header.is_empty() {
                "the header names no skin; the images given are used".to_owned()
            } else {
                "no header skin was given; the images given are used".to_owned()
            });
            search
                .paths
                .iter()
                .flatten()
                .filter_map(|path| given(path))
                .map(|image| slot(image, "given"))
                .collect()
        }
        _ => header.iter().map(missing).collect(),
    };
    if skins.iter().all(|s| s.image.is_none()) {
        notes.push("drawn with the renderer's checker texture".to_owned());
    }
    ModelFile {
        name: file.name.clone(),
        path: None,
        file_bytes: file.bytes.len(),
        model: model.into(),
        skins,
        masks: Vec::new(),
        skin_notes: notes,
    }
}

/// A skin slot for `image`, decoded (or why not), found by `how`.
fn slot(image: &NamedFile, how: &str) -> SkinSlot {
    match decode(image) {
        Ok(decoded) => SkinSlot {
            name: image.name.clone(),
            status: format!(
                "{} ({}x{}, {how})",
                image.name,
                decoded.width(),
                decoded.height()
            ),
            image: Some(decoded),
        },
        Err(e) => SkinSlot {
            name: image.name.clone(),
            image: None,
            status: e,
        },
    }
}

/// Decodes a skin image from its bytes with `md2_wgpu::skins`' decoder
/// (the limits it puts on a file, and no panic whatever the bytes).
pub fn decode(file: &NamedFile) -> Result<RgbaImage, String> {
    decode_skin(&file.bytes, Path::new(&file.name)).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use md2_wgpu::image::{ImageFormat, Rgba, RgbaImage};
    use md2_wgpu::{
        Md2Model, demo,
        format::{Md2Parts, SkinName},
    };

    use super::{NamedFile, sort};

    fn file(name: &str, bytes: Vec<u8>) -> NamedFile {
        NamedFile {
            name: name.to_owned(),
            bytes,
        }
    }

    /// A 2 × 2 PNG of one colour.
    fn png(name: &str, colour: [u8; 4]) -> NamedFile {
        let mut bytes = Vec::new();
        RgbaImage::from_pixel(2, 2, Rgba(colour))
            .write_to(&mut Cursor::new(&mut bytes), ImageFormat::Png)
            .unwrap();
        file(name, bytes)
    }

    /// The demo model's bytes with these header skin names.
    fn model_naming(skins: &[&str]) -> Vec<u8> {
        let model = demo::demo_model();
        Md2Model::from_parts(Md2Parts {
            skin_size: model.skin_size(),
            skins: skins.iter().map(|s| SkinName::new(s)).collect(),
            tex_coords: model.tex_coords().to_vec(),
            triangles: model.triangles().to_vec(),
            frames: model.keyframes().frames().to_vec(),
            vertices: model.keyframes().vertices().to_vec(),
        })
        .unwrap()
        .to_bytes()
    }

    fn colour(slot: &super::SkinSlot) -> [u8; 4] {
        slot.image.as_ref().expect("decoded").get_pixel(0, 0).0
    }

    #[test]
    fn header_names_pick_their_images_whatever_the_case_and_extension() {
        let body = model_naming(&["players\\Soldier\\Blue.PCX", "players/soldier/red.pcx"]);
        let opened = sort(
            &[
                file("tris.md2", body),
                png("red.png", [255, 0, 0, 255]),
                png("blue.png", [0, 0, 255, 255]),
                png("other.png", [0, 255, 0, 255]),
            ],
            false,
        );
        assert!(opened.errors.is_empty(), "{:?}", opened.errors);
        let body = opened.body.unwrap().unwrap();
        assert_eq!(body.name, "tris.md2");
        let names: Vec<&str> = body.skins.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["blue.png", "red.png"],
            "skin i is the header's skin i"
        );
        assert_eq!(colour(&body.skins[0]), [0, 0, 255, 255]);
        assert_eq!(colour(&body.skins[1]), [255, 0, 0, 255]);
    }

    #[test]
    fn a_weapon_comes_with_its_body_and_each_keeps_its_own_skin() {
        let opened = sort(
            &[
                file("weapon.md2", model_naming(&["players/x/weapon.pcx"])),
                file("tris.md2", demo::demo_model_bytes()),
                png("weapon.png", [9, 9, 9, 255]),
                png("skin.png", [1, 2, 3, 255]),
                png("skin_i.png", [7, 7, 7, 255]),
                png("ctf_r.png", [4, 4, 4, 255]),
            ],
            false,
        );
        let body = opened.body.unwrap().unwrap();
        let weapon = opened.weapon.unwrap().unwrap();
        assert_eq!(
            (body.name.as_str(), weapon.name.as_str()),
            ("tris.md2", "weapon.md2")
        );
        // The body names no skin: the images no one else claims, icons out,
        // team skins last.
        let names: Vec<&str> = body.skins.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["skin.png", "ctf_r.png"]);
        assert_eq!(weapon.skins.len(), 1);
        assert_eq!(colour(&weapon.skins[0]), [9, 9, 9, 255]);
    }

    #[test]
    fn a_weapon_alone_is_shown_and_asked_for_weapons_are_weapons() {
        let lone = sort(&[file("weapon.md2", demo::demo_model_bytes())], false);
        assert_eq!(lone.body.unwrap().unwrap().name, "weapon.md2");
        assert!(lone.weapon.is_none());
        let asked = sort(&[file("tris.md2", demo::demo_model_bytes())], true);
        assert!(asked.body.is_none());
        assert_eq!(asked.weapon.unwrap().unwrap().name, "tris.md2");
    }

    #[test]
    fn images_alone_are_skins_and_anything_else_is_an_error() {
        let skins = sort(
            &[png("a.png", [1, 1, 1, 255]), png("b.png", [2, 2, 2, 255])],
            false,
        );
        assert!(skins.body.is_none());
        assert_eq!(skins.skins.unwrap().len(), 2);
        let odd = sort(
            &[
                file("notes.txt", b"hello".to_vec()),
                file("broken.md2", b"IDP2 but nothing else".to_vec()),
                file("bad.png", b"not a png".to_vec()),
                file("more.md2", demo::demo_model_bytes()),
            ],
            false,
        );
        assert_eq!(odd.errors.len(), 2, "{:?}", odd.errors);
        assert!(odd.errors[0].starts_with("notes.txt: neither a model (.md2, .mdl)"));
        assert!(odd.errors[1].starts_with("more.md2: not opened"));
        let error = odd.body.unwrap().unwrap_err();
        assert!(error.starts_with("broken.md2: "), "{error}");
    }

    #[test]
    fn an_image_that_does_not_decode_keeps_its_slot_and_says_why() {
        let opened = sort(
            &[
                file("tris.md2", model_naming(&["skin.pcx"])),
                file("skin.pcx", b"\x0a\x05\x01\x08 not really".to_vec()),
            ],
            false,
        );
        let body = opened.body.unwrap().unwrap();
        assert_eq!(body.skins.len(), 1);
        assert!(body.skins[0].image.is_none());
        assert!(
            body.skins[0].status.starts_with("skin skin.pcx: "),
            "{}",
            body.skins[0].status
        );
    }

    #[test]
    fn dropped_files_find_the_skins_a_folder_of_them_finds() {
        let files = [
            file("weapon.md2", model_naming(&["players/x/weapon.pcx"])),
            file("tris.md2", model_naming(&["players/x/gone.pcx"])),
            png("weapon.png", [9, 9, 9, 255]),
            png("Tris.PNG", [1, 2, 3, 255]),
            png("skin_i.png", [7, 7, 7, 255]),
            png("ctf_r.png", [4, 4, 4, 255]),
            png("alpha.png", [5, 5, 5, 255]),
        ];
        let dir = std::env::temp_dir().join(format!("md2-dropped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in &files {
            std::fs::write(dir.join(&f.name), &f.bytes).unwrap();
        }
        let dropped = sort(&files, false);
        for (name, opened) in [
            ("tris.md2", dropped.body.unwrap().unwrap()),
            ("weapon.md2", dropped.weapon.unwrap().unwrap()),
        ] {
            let model = Md2Model::open(dir.join(name)).unwrap();
            let on_disk: Vec<String> = md2_wgpu::skins::search_skins(dir.join(name), &model)
                .paths
                .iter()
                .map(|p| {
                    p.as_ref()
                        .and_then(|p| p.file_name())
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
                })
                .collect();
            let given: Vec<String> = opened
                .skins
                .iter()
                .map(|s| {
                    if s.image.is_some() {
                        s.name.clone()
                    } else {
                        String::new()
                    }
                })
                .collect();
            assert_eq!(given, on_disk, "{name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
