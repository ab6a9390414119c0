//! md2info's files: levels of detail and glTF, of either format.

use std::fmt::Write as _;
use std::path::Path;

use md2_wgpu::format::mdl::{Palette, SkinImages};
use md2_wgpu::gltf::{GltfOptions, to_glb};
use md2_wgpu::model::KeyframeModel;
use md2_wgpu::{
    QuakeModel,
    contract::GpuModelOptions,
    mesh::{Levels, RenderMesh},
    skins,
};

use super::{GltfArgs, stem};

/// Builds and writes the levels `--levels` asks for; what was written, for
/// stdout.
pub fn write_levels(model: &KeyframeModel, out: &Path) -> Result<String, String> {
    let options = GpuModelOptions::WITH_LEVELS;
    let mesh = RenderMesh::new(model, options.triangle_order);
    let started = std::time::Instant::now();
    let levels = Levels::new(model, &mesh, &options.levels).map_err(|e| e.to_string())?;
    let took = started.elapsed();
    let bytes = levels.to_bytes(model, &mesh);
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let mut s = String::new();
    for (l, level) in levels.levels().iter().enumerate() {
        let _ = writeln!(
            s,
            "level {l}: {} triangles, error {:.3} units",
            level.triangle_count(),
            level.error
        );
    }
    let _ = writeln!(
        s,
        "wrote {} ({} bytes; built in {:.0} ms)",
        out.display(),
        bytes.len(),
        took.as_secs_f64() * 1000.0
    );
    Ok(s)
}

/// Writes the GLB `--gltf` asks for; what was written, for stdout.
pub fn write_gltf(
    model: &QuakeModel,
    file: &Path,
    args: &GltfArgs,
    palette: Option<&Path>,
) -> Result<String, String> {
    let (skins, skin_names) = match (&args.skin, model) {
        (Some(path), _) => {
            let image = skins::load_skin(path).map_err(|e| e.to_string())?;
            (vec![image], vec![stem(path)])
        }
        // The model's own, as the viewer finds them; those that did not load
        // are left out rather than exported as blank materials.
        (None, QuakeModel::Md2(md2)) => skins::load_skins(file, md2)
            .images
            .into_iter()
            .zip(skins::find_skins(file, md2))
            .filter(|(image, _)| image.width() > 0)
            .map(|(image, path)| (image, path.map(|p| stem(&p)).unwrap_or_default()))
            .unzip(),
        // In the palette beside it (else the built-in one), each image of a
        // skin group a material of its own.
        (None, QuakeModel::Mdl(mdl)) => {
            let (palette, _) = palette_for(file, palette)?;
            let layers = SkinImages::new(mdl, &palette).layers;
            let names = (0..layers.len())
                .map(|i| format!("{}_{i}", stem(file)))
                .collect();
            (layers, names)
        }
    };
    let options = GltfOptions {
        // An MDL's frame groups play at their intervals' rate.
        clips: Some(model.clips()),
        skin_names: skin_names.clone(),
        ..args.options(file)
    };
    let export = to_glb(model, &skins, &options).map_err(|e| format!("{}: {e}", file.display()))?;
    std::fs::write(&args.out, &export.glb)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    let md2_bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
    let r = &export.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "wrote {}: {} bytes (the {} file: {md2_bytes}); {} vertices, {} triangles, {} morph targets, {} animations",
        args.out.display(),
        export.glb.len(),
        model.format(),
        r.corners,
        r.triangles,
        r.morph_targets,
        r.animations,
    );
    let _ = if skin_names.is_empty() {
        writeln!(s, "skins: none found, one plain material")
    } else {
        writeln!(s, "skins: {}", skin_names.join(", "))
    };
    if let Some(q) = r.quantization {
        // The saving, against the same export with float data.
        let float = to_glb(
            model,
            &skins,
            &GltfOptions {
                quantize: false,
                ..options
            },
        )
        .map_err(|e| format!("{}: {e}", file.display()))?;
        let _ = writeln!(
            s,
            "quantized: {} bytes against {} as floats ({:.0}%, {} bytes saved); grid step {:.3e} units, \
             positions within {:.3e} units, normals within {:.1e}; {} of {} targets keep float normals",
            export.glb.len(),
            float.glb.len(),
            100.0 * export.glb.len() as f64 / float.glb.len() as f64,
            float.glb.len().saturating_sub(export.glb.len()),
            q.step,
            q.max_position_error,
            q.max_normal_error,
            q.float_normal_targets,
            r.morph_targets,
        );
    }
    Ok(s)
}

/// The palette for the MDL at `file`: `given`, else the one beside it
/// (`Palette::find`), else the built-in one; and where it came from.
pub fn palette_for(file: &Path, given: Option<&Path>) -> Result<(Palette, String), String> {
    if let Some(path) = given {
        let palette = Palette::open(path).map_err(|e| e.to_string())?;
        return Ok((palette, path.display().to_string()));
    }
    Ok(match Palette::find(file) {
        Some((path, palette)) => (palette, path.display().to_string()),
        None => (
            Palette::builtin(),
            "the crate's built-in palette (no palette.lmp beside the model or in ../gfx)".into(),
        ),
    })
}
