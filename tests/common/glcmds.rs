//! An independent check that GL commands draw exactly a model's triangles.

use md2_wgpu::{
    Md2Model,
    format::{GlCmd, TexCoord},
};
/// How exactly a GL vertex's `s, t` must be `(texel + 0.5) / side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tolerance {
    /// Bit for bit, as this crate computes it.
    Exact,
    /// Within an ulp or so, as real files have it.
    Ulp,
}

/// A triangle corner by value: vertex index and texel coordinate.
pub type Corner = (u32, i16, i16);

/// The rotation of a triangle that starts at its smallest corner: equal for
/// two triangles exactly when they have the same corners in the same cyclic
/// order (the same winding).
pub fn rotation_normalised<C: Ord + Copy>(t: [C; 3]) -> [C; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap();
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// Triangles rotation-normalised and sorted (a multiset): two lists are
/// equal exactly when they hold the same triangles with the same winding.
pub fn sorted_triangles<C: Ord + Copy>(triangles: impl IntoIterator<Item = [C; 3]>) -> Vec<[C; 3]> {
    let mut out: Vec<_> = triangles.into_iter().map(rotation_normalised).collect();
    out.sort();
    out
}

/// The model's triangles with each corner made by `corner` from its vertex
/// index and texture coordinate, rotation-normalised and sorted.
pub fn model_triangles_by<C: Ord + Copy>(
    model: &Md2Model,
    corner: impl Fn(u32, TexCoord) -> C,
) -> Vec<[C; 3]> {
    let st = model.tex_coords();
    sorted_triangles(model.triangles().iter().map(|tri| {
        std::array::from_fn(|k| corner(u32::from(tri.xyz[k]), st[usize::from(tri.st[k])]))
    }))
}

/// The model's triangles as rotation-normalised corners, sorted (a multiset).
pub fn model_triangles(model: &Md2Model) -> Vec<[Corner; 3]> {
    model_triangles_by(model, |xyz, c| (xyz, c.s, c.t))
}

/// The triangles some GL commands draw, decoded with [`GlCmd::triangles`]
/// and mapped back to texels: a GL vertex's `s` must be
/// `(texel + 0.5) / skinwidth` for an integer texel (likewise `t`), within
/// `tolerance`, else this says which command is off. Rotation-normalised and
/// sorted.
pub fn glcmd_triangles(
    model: &Md2Model,
    cmds: &[GlCmd],
    tolerance: Tolerance,
) -> Result<Vec<[Corner; 3]>, String> {
    let (w, h) = model.skin_size();
    let texel = |x: f32, side: u32, what: &str, cmd: usize| -> Result<i16, String> {
        let guess = (x * side as f32 - 0.5).round();
        if !(i16::MIN as f32..=i16::MAX as f32).contains(&guess) {
            return Err(format!("command {cmd}: {what} {x} is no texel of {side}"));
        }
        let texel = guess as i16;
        let exact = (texel as f32 + 0.5) / side as f32 == x;
        // Quake II's tools divided in double precision and then rounded to
        // float, which can land one ulp away from a float division.
        let near = ((x as f64 * side as f64 - 0.5) - texel as f64).abs() < 1e-4;
        if !(exact || (tolerance == Tolerance::Ulp && near)) {
            return Err(format!(
                "command {cmd}: {what} {x} is not half a texel past texel {texel} of {side}"
            ));
        }
        Ok(texel)
    };
    let mut out = Vec::new();
    for (i, cmd) in cmds.iter().enumerate() {
        if cmd.vertices.len() < 3 {
            return Err(format!("command {i} has {} vertices", cmd.vertices.len()));
        }
        for tri in cmd.triangles() {
            let mut corners = [(0u32, 0i16, 0i16); 3];
            for (k, v) in tri.iter().enumerate() {
                corners[k] = (v.xyz, texel(v.s, w, "s", i)?, texel(v.t, h, "t", i)?);
            }
            out.push(corners);
        }
    }
    Ok(sorted_triangles(out))
}

/// Asserts that `cmds` draw each of the model's triangles exactly once, with
/// the same winding, and nothing else.
pub fn assert_glcmds_cover(model: &Md2Model, cmds: &[GlCmd], tolerance: Tolerance, what: &str) {
    let want = model_triangles(model);
    let got = glcmd_triangles(model, cmds, tolerance).unwrap_or_else(|e| panic!("{what}: {e}"));
    if got != want {
        let missing: Vec<_> = want.iter().filter(|t| !got.contains(t)).take(5).collect();
        let extra: Vec<_> = got.iter().filter(|t| !want.contains(t)).take(5).collect();
        panic!(
            "{what}: glcmds draw {} triangles, the model has {}; missing (first 5) {missing:?}, \
             extra (first 5) {extra:?}",
            got.len(),
            want.len()
        );
    }
}
