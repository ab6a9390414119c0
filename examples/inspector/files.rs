//! Files given as bytes, as a browser hands them over: picked or dropped
//! several at once, with no folder around them. [`sort`] tells the model
//! from its weapon and their skin images, and matches each model's skins
//! the way `md2_wgpu::skins` finds them beside a model on disk: by the
//! file name its header gives, else the images that belong to no other
//! model. A Quake I model (`.mdl`) carries its skins; a `palette.lmp`
//! given with it colours them.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};

use md2_wgpu::image::{ImageFormat, ImageReader, Limits, RgbaImage};
use md2_wgpu::mdl::Palette;
use md2_wgpu::skins::MAX_SKIN_SIDE;
use md2_wgpu::{Md2Model, QuakeModel};

use super::model::{ModelFile, SkinSlot};

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
}

/// Sorts `files` into a model, a weapon and their skins.
///
/// A file is a model when its name ends in `.md2` or `.mdl` (any case) or
/// its bytes start with `IDP2` or `IDPO`, a palette when it ends in `.lmp`,
/// and an image when its extension is one of [`IMAGE_EXTENSIONS`]. With `weapon` every model is a weapon for the
/// model shown. Otherwise the first model is shown, unless another model
/// named the way Quake II names weapons (`weapon.md2`, `w_*.md2`) comes
/// with one that is not: then that one is the weapon. Images without a
/// model become the shown model's skins.
pub fn sort(files: &[NamedFile], weapon: bool) -> Opened {
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
    // Parsed first: which images a model claims decides what is left for
    // the other.
    let parse = |file: &NamedFile| {
        QuakeModel::from_bytes(&file.bytes).map_err(|e| format!("{}: {e}", file.name))
    };
    let body = body.map(|file| (file, parse(file)));
    let gun = gun.map(|file| (file, parse(file)));
    let claimed = |model: &Option<(&NamedFile, Result<QuakeModel, String>)>| match model {
        Some((file, Ok(QuakeModel::Md2(model)))) => claimed_images(&file.name, model, &images),
        _ => Vec::new(),
    };
    let (body_claims, gun_claims) = (claimed(&body), claimed(&gun));
    let open = |file: &NamedFile, model: QuakeModel, others: &[String], body: bool| match model {
        QuakeModel::Md2(model) => model_file(file, model, &images, others, body),
        QuakeModel::Mdl(model) => {
            ModelFile::mdl(file.name.clone(), file.bytes.len(), model, palette.clone())
        }
    };
    opened.body = body.map(|(file, model)| model.map(|model| open(file, model, &gun_claims, true)));
    opened.weapon =
        gun.map(|(file, model)| model.map(|model| open(file, model, &body_claims, false)));
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

fn stem(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem,
        _ => name,
    }
}

/// A header skin name's file name: the part after the last `/` or `\`.
fn header_file(name: &str) -> &str {
    name.trim().rsplit(['/', '\\']).next().unwrap_or_default()
}

/// The image the header name `name` means, if it was given: the same file
/// name, any case, with any of the image extensions.
fn find_image<'a>(name: &str, images: &[&'a NamedFile]) -> Option<&'a NamedFile> {
    let wanted = stem(header_file(name));
    if wanted.is_empty() {
        return None;
    }
    images
        .iter()
        .find(|image| stem(&image.name).eq_ignore_ascii_case(wanted))
        .copied()
}

/// The images that belong to the model in `file`: those its header names,
/// and the one named after the file itself (a weapon's `weapon.pcx`).
fn claimed_images(file: &str, model: &Md2Model, images: &[&NamedFile]) -> Vec<String> {
    let mut claimed: Vec<String> = model
        .skins()
        .iter()
        .filter_map(|skin| find_image(&skin.name(), images))
        .map(|image| image.name.clone())
        .collect();
    if let Some(image) = images
        .iter()
        .find(|image| stem(&image.name).eq_ignore_ascii_case(stem(file)))
    {
        claimed.push(image.name.clone());
    }
    claimed
}

/// The model in `file` with its skins from `images`: those its header
/// names; else (for the model shown, `body`) the images no other model
/// claims (`others`), its own name first, icons (`*_i`) left out and team
/// skins (`ctf_*`) last; else (a weapon) the image named after it.
fn model_file(
    file: &NamedFile,
    model: Md2Model,
    images: &[&NamedFile],
    others: &[String],
    body: bool,
) -> ModelFile {
    let header: Vec<String> = model.skins().iter().map(|s| s.name()).collect();
    let matched: Vec<Option<&NamedFile>> =
        header.iter().map(|name| find_image(name, images)).collect();
    let mut notes = Vec::new();
    let skins: Vec<SkinSlot> = if matched.iter().any(Option::is_some) {
        header
            .iter()
            .zip(&matched)
            .map(|(name, image)| match image {
                Some(image) => slot(image, &format!("header {name:?}")),
                None => SkinSlot {
                    name: header_file(name).to_owned(),
                    image: None,
                    status: "not among the files given".to_owned(),
                },
            })
            .collect()
    } else {
        let mut own: Vec<&NamedFile> = images
            .iter()
            .filter(|image| !others.contains(&image.name))
            .filter(|image| !stem(&image.name).to_ascii_lowercase().ends_with("_i"))
            .filter(|image| body || stem(&image.name).eq_ignore_ascii_case(stem(&file.name)))
            .copied()
            .collect();
        own.sort_by_key(|image| {
            let s = stem(&image.name).to_ascii_lowercase();
            (
                s != stem(&file.name).to_ascii_lowercase(),
                s.starts_with("ctf_"),
                s,
            )
        });
        if !own.is_empty() {
            notes.push(if header.is_empty() {
                "the header names no skin; the images given are used".to_owned()
            } else {
                "no header skin was given; the images given are used".to_owned()
            });
        }
        own.iter().map(|image| slot(image, "given")).collect()
    };
    let skins: Vec<SkinSlot> = if skins.is_empty() {
        header
            .iter()
            .map(|name| SkinSlot {
                name: header_file(name).to_owned(),
                image: None,
                status: "not among the files given".to_owned(),
            })
            .collect()
    } else {
        skins
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

/// Decodes a skin image from its bytes with the limits
/// `md2_wgpu::skins::load_skin` puts on a file: the format from the first
/// bytes (TGA, which has none, from the name), a side of at most
/// [`MAX_SKIN_SIDE`] checked before any pixel is decoded.
pub fn decode(file: &NamedFile) -> Result<RgbaImage, String> {
    image_extras::register();
    let undecodable = |e: &dyn std::fmt::Display| format!("{}: undecodable: {e}", file.name);
    let reader = || {
        let reader = ImageReader::new(Cursor::new(file.bytes.as_slice()));
        if extension(&file.name).eq_ignore_ascii_case("tga") {
            Ok(ImageReader::with_format(
                Cursor::new(file.bytes.as_slice()),
                ImageFormat::Tga,
            ))
        } else {
            reader.with_guessed_format().map_err(|e| undecodable(&e))
        }
    };
    // A decoder that gives up on malformed data by panicking (old formats,
    // hostile headers) is an error, as in md2_wgpu::skins.
    catch_unwind(AssertUnwindSafe(|| {
        let (width, height) = reader()?.into_dimensions().map_err(|e| undecodable(&e))?;
        if width == 0 || height == 0 || width > MAX_SKIN_SIDE || height > MAX_SKIN_SIDE {
            return Err(format!(
                "{}: {width}x{height} is not a skin size (1 to {MAX_SKIN_SIDE} texels a side)",
                file.name
            ));
        }
        let mut reader = reader()?;
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SKIN_SIDE);
        limits.max_image_height = Some(MAX_SKIN_SIDE);
        limits.max_alloc = Some(3 * 4 * u64::from(width) * u64::from(height) + (1 << 20));
        reader.limits(limits);
        let image = reader.decode().map_err(|e| undecodable(&e))?;
        Ok(image.into_rgba8())
    }))
    .unwrap_or_else(|_| Err(undecodable(&"the decoder gave up on malformed data")))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use md2_wgpu::image::{ImageFormat, Rgba, RgbaImage};
    use md2_wgpu::{Md2Model, Md2Parts, SkinName, demo};

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
            frames: model.frames().to_vec(),
            vertices: model.vertices().to_vec(),
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
            body.skins[0].status.starts_with("skin.pcx: "),
            "{}",
            body.skins[0].status
        );
    }
}
