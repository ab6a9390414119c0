//! A model as the inspector holds it: the file read and checked, its skins
//! found (or why not), and its upload to the GPU with what that costs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use md2_wgpu::format::mdl::{MdlModel, Palette, SkinImages};
use md2_wgpu::glam::Vec3;
use md2_wgpu::image::RgbaImage;
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::skins::{SkinSource, load_skin, load_skins};
use md2_wgpu::{
    Clip, GpuModel, Md2Model, Quake2Player, QuakeModel, contract::GpuModelOptions, demo,
    gpu::Md2Cache, mesh::VertexCacheStats, scene::quake_to_y_up, wgpu,
};

/// The post-transform cache size the facts simulate: 16 corners, a common
/// size on the GPUs Quake II ran on and about that of many today.
pub const CACHE_SIZE: u32 = 16;

/// One skin slot: skin index `i` of the model is always slot `i`.
#[derive(Clone, Debug)]
pub struct SkinSlot {
    /// What to call it: its file's name, or the header's name.
    pub name: String,
    /// The decoded image (`None`: the renderer's checker stands in).
    pub image: Option<RgbaImage>,
    /// Where it came from, or why there is no image.
    pub status: String,
}

/// A model file read and checked, with its skins: everything but the GPU.
#[derive(Clone, Debug)]
pub struct ModelFile {
    /// The file's name, or "demo model".
    pub name: String,
    /// The file, for a model read from one.
    pub path: Option<PathBuf>,
    /// The file's length in bytes.
    pub file_bytes: usize,
    /// The model: an MD2 or an MDL.
    pub model: QuakeModel,
    /// One slot per skin the GPU gets (for an MDL, one per image: a skin
    /// group's images in turn).
    pub skins: Vec<SkinSlot>,
    /// An MDL's fullbright masks, one per slot (drawn unlit, as Quake
    /// drew them); empty for an MD2 or skins given in their place.
    pub masks: Vec<RgbaImage>,
    /// Where the skins came from, as sentences.
    pub skin_notes: Vec<String>,
}

impl ModelFile {
    /// The crate's built-in demo model and its skin.
    pub fn demo() -> ModelFile {
        let bytes = demo::demo_model_bytes();
        ModelFile {
            name: "demo model".to_owned(),
            path: None,
            file_bytes: bytes.len(),
            model: demo::demo_model().into(),
            masks: Vec::new(),
            skins: vec![SkinSlot {
                name: "demo skin".to_owned(),
                image: Some(demo::demo_skin()),
                status: "built in".to_owned(),
            }],
            skin_notes: Vec::new(),
        }
    }

    /// Reads the model at `path` and looks for its skins beside it the way
    /// Quake II mods lay them out; `skin` replaces them with one image.
    /// The error names the file and says what is wrong.
    pub fn open(path: &Path, skin: Option<&Path>) -> Result<ModelFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        // Shown whole, wherever the viewer was started.
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        ModelFile::from_bytes(&path, &bytes, skin)
    }

    /// A model whose bytes were read from `path` (a dropped file), its
    /// skins looked for beside it (an MD2's files, an MDL's palette).
    pub fn from_bytes(path: &Path, bytes: &[u8], skin: Option<&Path>) -> Result<ModelFile, String> {
        let model =
            QuakeModel::from_bytes(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let file = match model {
            QuakeModel::Md2(model) => {
                let (skins, skin_notes) = find_skins(path, &model);
                ModelFile {
                    name,
                    path: Some(path.to_path_buf()),
                    file_bytes: bytes.len(),
                    model: model.into(),
                    skins,
                    masks: Vec::new(),
                    skin_notes,
                }
            }
            QuakeModel::Mdl(model) => {
                let palette =
                    Palette::find(path).map(|(p, palette)| (p.display().to_string(), palette));
                let mut file = ModelFile::mdl(name, bytes.len(), model, palette);
                file.path = Some(path.to_path_buf());
                file
            }
        };
        match skin {
            Some(skin) => file.with_skin(skin),
            None => Ok(file),
        }
    }

    /// The same model with the one image at `skin` instead of its skins.
    pub fn with_skin(self, skin: &Path) -> Result<ModelFile, String> {
        let image = load_skin(skin).map_err(|e| e.to_string())?;
        let slot = SkinSlot {
            name: file_name(skin),
            status: format!("{} (given)", skin.display()),
            image: Some(image),
        };
        Ok(ModelFile {
            skins: vec![slot],
            masks: Vec::new(),
            skin_notes: vec!["the skin given replaces the model's own".to_owned()],
            ..self
        })
    }

    /// An MDL and its skins in `palette` (where it was found, and the
    /// palette; `None`: the crate's built-in one), one slot per image with
    /// its fullbright mask.
    pub fn mdl(
        name: String,
        file_bytes: usize,
        model: MdlModel,
        palette: Option<(String, Palette)>,
    ) -> ModelFile {
        let (from, palette) = palette.unwrap_or_else(|| {
            (
                "the built-in palette (no palette.lmp found): colours approximate".to_owned(),
                Palette::builtin(),
            )
        });
        let images = SkinImages::new(&model, &palette);
        let mut skins = Vec::new();
        for (s, skin) in model.skins().iter().enumerate() {
            let group = skin.intervals();
            for i in 0..skin.images().len() {
                let (name, status) = if group.is_empty() {
                    (format!("skin {s}"), format!("embedded, in {from}"))
                } else {
                    (
                        format!("skin {s}, image {i}"),
                        format!("a group cycling at {group:?} s, in {from}"),
                    )
                };
                skins.push(SkinSlot {
                    name,
                    image: Some(images.layers[skins.len()].clone()),
                    status,
                });
            }
        }
        let mut skin_notes = vec![format!("palette: {from}")];
        let masks = if images.has_fullbright() {
            skin_notes.push("fullbright texels drawn unlit".to_owned());
            images.fullbright
        } else {
            Vec::new()
        };
        ModelFile {
            name,
            path: None,
            file_bytes,
            model: model.into(),
            skins,
            masks,
            skin_notes,
        }
    }

    /// The skin layer slot `slot` shows `seconds` in: itself, or for an
    /// image of an MDL's skin group, the image the group's intervals
    /// choose (so a flickering skin flickers).
    pub fn layer_at(&self, slot: usize, seconds: f64) -> u32 {
        let QuakeModel::Mdl(mdl) = &self.model else {
            return slot as u32;
        };
        // The slots are the MDL's own layers, unless skins were given in
        // their place.
        let layers: usize = mdl.skins().iter().map(|k| k.images().len()).sum();
        if self.skins.len() != layers {
            return slot as u32;
        }
        let mut first = 0;
        for (s, skin) in mdl.skins().iter().enumerate() {
            let count = skin.images().len();
            if slot < first + count {
                return mdl.skin_layer_at(s, seconds).unwrap_or(slot as u32);
            }
            first += count;
        }
        slot as u32
    }

    /// The upload options: fullbright masks where there are any.
    pub fn gpu_options(&self) -> GpuModelOptions {
        GpuModelOptions::DEFAULT.with_fullbright_masks(!self.masks.is_empty())
    }

    /// The images to upload, an empty one where a skin is missing; then
    /// the fullbright masks, where there are any.
    pub fn skin_images(&self) -> Vec<RgbaImage> {
        self.skins
            .iter()
            .map(|s| s.image.clone().unwrap_or_else(|| RgbaImage::new(0, 0)))
            .chain(self.masks.iter().cloned())
            .collect()
    }
}

/// The skins of the model at `path`, each with where it came from or why it
/// is missing, and notes on the search.
fn find_skins(path: &Path, model: &Md2Model) -> (Vec<SkinSlot>, Vec<String>) {
    let found = load_skins(path, model);
    let header: Vec<String> = model.skins().iter().map(|s| s.name()).collect();
    let mut slots = Vec::new();
    for (index, (image, file)) in found.images.iter().zip(&found.paths).enumerate() {
        let failed = found.failed.iter().find(|f| f.index == index);
        let header_name = header
            .get(index)
            .filter(|_| found.source == SkinSource::Header);
        let (name, status) = match (file, failed) {
            (Some(file), Some(failed)) => (file_name(file), failed.error.to_string()),
            (Some(file), None) => {
                let from = match header_name {
                    Some(h) => format!("header {h:?}"),
                    None => "the model's folder".to_owned(),
                };
                let status = format!(
                    "{} ({}x{}, from {from})",
                    file.display(),
                    image.width(),
                    image.height()
                );
                (file_name(file), status)
            }
            (None, _) => (
                header_name
                    .cloned()
                    .unwrap_or_else(|| format!("skin {index}")),
                "no such file next to the model".to_owned(),
            ),
        };
        let image = (image.width() > 0).then(|| image.clone());
        slots.push(SkinSlot {
            name,
            image,
            status,
        });
    }
    if slots.is_empty() {
        // Nothing found at all: the header's skins, each missing.
        slots = header
            .iter()
            .map(|name| SkinSlot {
                name: name.clone(),
                image: None,
                status: "no such file next to the model, nor images in its folder".to_owned(),
            })
            .collect();
    }
    let mut notes = Vec::new();
    match found.source {
        SkinSource::Header => {}
        SkinSource::Folder => {
            if !header.is_empty() {
                notes.push(format!(
                    "no header skin is there ({}); the folder's images are used",
                    quoted(&header)
                ));
            } else {
                notes.push("the header names no skin; the folder's images are used".to_owned());
            }
        }
        _ if header.is_empty() => {
            notes.push("the header names no skin and the folder has no image".to_owned())
        }
        _ => {}
    }
    if slots.iter().all(|s| s.image.is_none()) {
        notes.push("drawn with the renderer's checker texture".to_owned());
    }
    (slots, notes)
}

fn quoted(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(4).map(|n| format!("{n:?}")).collect();
    match names.len() - shown.len() {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A model on the GPU, with what the inspector shows of it.
pub struct LoadedModel {
    /// The file.
    pub file: ModelFile,
    /// Its upload (shared with the paint callbacks in flight).
    pub gpu: Arc<GpuModel>,
    /// Its clips, and where they came from.
    pub clips: Vec<Clip>,
    /// "the Quake II player table", "the frame names" or "the frame names
    /// and groups".
    pub clips_from: &'static str,
    /// What the uploaded triangle order makes of a [`CACHE_SIZE`] cache.
    pub cache_stats: Result<VertexCacheStats, String>,
    /// The box around every frame, in the Y-up world.
    pub bounds: (Vec3, Vec3),
}

impl LoadedModel {
    /// Uploads `file` for the renderers of `cache`.
    pub fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        cache: &Md2Cache,
        file: ModelFile,
    ) -> Result<LoadedModel, String> {
        let gpu = GpuModel::with_options(
            device,
            queue,
            cache,
            &file.model,
            &file.skin_images(),
            file.gpu_options(),
        )
        .map_err(|e| format!("{}: {e}", file.name))?;
        let model = &file.model;
        let (clips, clips_from) = match model {
            QuakeModel::Md2(md2) if Quake2Player::fits(md2) => {
                (Quake2Player::clips(), "the Quake II player table")
            }
            QuakeModel::Md2(_) => (Clip::for_model(model), "the frame names"),
            QuakeModel::Mdl(mdl) => (mdl.clips(), "the frame names and groups"),
        };
        let cache_stats = gpu
            .mesh()
            .vertex_cache_stats(CACHE_SIZE)
            .map_err(|e| e.to_string());
        let bounds = frames_box(model, 0..=last_frame(model));
        Ok(LoadedModel {
            gpu: Arc::new(gpu),
            clips,
            clips_from,
            cache_stats,
            bounds,
            file,
        })
    }

    /// The name of frame `frame`.
    pub fn frame_name(&self, frame: u32) -> String {
        self.file
            .model
            .frames()
            .get(frame as usize)
            .map(|f| f.name())
            .unwrap_or_default()
    }
}

/// The model's last frame (a model has at least one).
pub fn last_frame(model: &KeyframeModel) -> u32 {
    model.frame_count().saturating_sub(1)
}

/// The box around `frames` of `model`, in the Y-up world.
pub fn frames_box(model: &KeyframeModel, frames: std::ops::RangeInclusive<u32>) -> (Vec3, Vec3) {
    frames
        .map(|f| model.frame_bounds(f).to_pair())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(quake_to_y_up(a)), hi.max(quake_to_y_up(b)))
        })
}
