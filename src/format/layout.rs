//! Where everything sits in an MD2 file: the sizes of its records, Quake II's
//! limits, and the canonical layout a written file has. The reader checks
//! extents against these sizes and the writer lays sections out with them,
//! so both read one table.

use super::model::{Md2Header, Md2Model};

/// Quake II's own limits (qfiles.h). Files beyond them load with a warning.
pub(crate) const MAX_VERTS: usize = 2048;
pub(crate) const MAX_TRIANGLES: usize = 4096;
pub(crate) const MAX_FRAMES: usize = 512;
pub(crate) const MAX_SKINS: usize = 32;

/// The largest skin side we accept: texture coordinates are `i16`, so a skin
/// wider than this could not be addressed; anything larger is a lying header.
pub(crate) const MAX_SKIN_SIDE: i32 = 32768;

/// A skin name: a NUL-padded path.
pub(crate) const SKIN_NAME_SIZE: usize = 64;
/// A texture coordinate: `i16 s, t`.
pub(crate) const ST_SIZE: usize = 4;
/// A triangle: `i16 index_xyz[3], index_st[3]`.
pub(crate) const TRIANGLE_SIZE: usize = 12;
/// A frame's header before its vertices: scale, translate, name.
pub(crate) const FRAME_HEADER_SIZE: usize = 40;
/// One word of the glcmd list.
pub(crate) const GLCMD_WORD: usize = 4;

/// The header of `model` written with its sections in the usual order
/// (skins, st, triangles, frames, `num_glcmds` glcmd words) and no gaps, or
/// the size the file would have where that is more than a 32-bit header can
/// describe.
pub(crate) fn canonical_header(model: &Md2Model, num_glcmds: u64) -> Result<Md2Header, u64> {
    let num_xyz = model.keyframes().vertex_count() as u64;
    let framesize = FRAME_HEADER_SIZE as u64 + 4 * num_xyz;
    let ofs_skins = Md2Header::SIZE as u64;
    let ofs_st = ofs_skins + (SKIN_NAME_SIZE * model.skins.len()) as u64;
    let ofs_tris = ofs_st + (ST_SIZE * model.tex_coords.len()) as u64;
    let ofs_frames = ofs_tris + (TRIANGLE_SIZE * model.triangles.len()) as u64;
    let ofs_glcmds = ofs_frames + framesize * model.keyframes().frames().len() as u64;
    let ofs_end = ofs_glcmds + GLCMD_WORD as u64 * num_glcmds;
    if ofs_end > i32::MAX as u64 {
        return Err(ofs_end);
    }
    // Every value is at most ofs_end, so none of these casts truncates.
    Ok(Md2Header {
        ident: Md2Header::IDENT,
        version: Md2Header::VERSION,
        skinwidth: model.header.skinwidth,
        skinheight: model.header.skinheight,
        framesize: framesize as i32,
        num_skins: model.skins.len() as i32,
        num_xyz: num_xyz as i32,
        num_st: model.tex_coords.len() as i32,
        num_tris: model.triangles.len() as i32,
        num_glcmds: num_glcmds as i32,
        num_frames: model.keyframes().frames().len() as i32,
        ofs_skins: ofs_skins as i32,
        ofs_st: ofs_st as i32,
        ofs_tris: ofs_tris as i32,
        ofs_frames: ofs_frames as i32,
        ofs_glcmds: ofs_glcmds as i32,
        ofs_end: ofs_end as i32,
    })
}
