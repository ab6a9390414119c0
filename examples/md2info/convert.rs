//! `--convert`: an MD2 as an MDL, or an MDL as an MD2 (with its skins as
//! PNG files beside it), saying what the conversion loses.

use std::fmt::Write as _;
use std::path::Path;

use md2_wgpu::QuakeModel;
use md2_wgpu::format::mdl::{SkinImages, from_keyframes, to_md2};
use md2_wgpu::skins;

use super::export::palette_for;
use super::stem;

/// Writes `model` (read from `file`) to `out` in the other format, by
/// `out`'s extension; what was written and lost, for stdout.
pub fn convert(
    model: &QuakeModel,
    file: &Path,
    out: &Path,
    palette: Option<&Path>,
) -> Result<String, String> {
    let target = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    // The model in the other format: its format's name, its bytes, what
    // it holds, and what the conversion lost.
    let (format, bytes, holds, conversion) = match (model, target.as_str()) {
        (QuakeModel::Md2(md2), "mdl") => {
            // The palette the skins are put in: given, else one beside the
            // output or the model, else the built-in one.
            let (palette, from) = match palette {
                Some(p) => palette_for(file, Some(p))?,
                None if md2_wgpu::format::mdl::Palette::find(out).is_some() => {
                    palette_for(out, None)?
                }
                None => palette_for(file, None)?,
            };
            let images: Vec<_> = skins::load_skins(file, md2)
                .images
                .into_iter()
                .filter(|i| i.width() > 0)
                .collect();
            let (mdl, conversion) = from_keyframes(md2, &images, &palette)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            let holds = format!(
                "{} vertices, {} poses, {} skin(s) in {from}",
                mdl.vertex_count(),
                mdl.frame_count(),
                mdl.skins().len()
            );
            ("MDL", mdl.to_bytes(), holds, conversion)
        }
        (QuakeModel::Mdl(mdl), "md2") => {
            let (palette, from) = palette_for(file, palette)?;
            let layers = SkinImages::new(mdl, &palette).layers;
            let folder = out.parent().unwrap_or(Path::new(""));
            let names: Vec<String> = (0..layers.len())
                .map(|i| format!("{}_{i}.png", stem(out)))
                .collect();
            for (image, name) in layers.iter().zip(&names) {
                let path = folder.join(name);
                image
                    .save(&path)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            let (md2, conversion) =
                to_md2(mdl, &names).map_err(|e| format!("{}: {e}", file.display()))?;
            let holds = format!(
                "{} frames; skins {} (in {from})",
                md2.keyframes().frame_count(),
                names.join(", ")
            );
            ("MD2", md2.to_bytes(), holds, conversion)
        }
        (model, _) => {
            return Err(format!(
                "--convert writes the other format: an {} becomes .{}, not {:?}",
                model.format(),
                if model.format() == "MD2" {
                    "mdl"
                } else {
                    "md2"
                },
                out.display().to_string()
            ));
        }
    };
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "wrote {}: an {format} of {} bytes, {holds}",
        out.display(),
        bytes.len()
    );
    let _ = writeln!(
        s,
        "positions: up to {:.4} units off ({:.3}% of the model's size, {:.1})",
        conversion.max_position_error,
        100.0 * conversion.max_position_error / conversion.model_size.max(f32::MIN_POSITIVE),
        conversion.model_size
    );
    for note in &conversion.notes {
        let _ = writeln!(s, "note: {note}");
    }
    Ok(s)
}
