//! Writing MD2 files, and building models in code.

use super::error::Md2Error;
use super::glcmds::generate_glcmds;
use super::keyframes::keyframes_of;
use super::layout::{MAX_SKIN_SIDE, canonical_header};
use super::model::{GlCmd, GlCmdKind, Md2Header, Md2Model, SkinName, TexCoord, Triangle};
use crate::model::{Frame, PackedVertex};

/// Everything needed to build a model in code; see [`Md2Model::from_parts`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Md2Parts {
    /// The skin's size in texels (width, height).
    pub skin_size: (u32, u32),
    /// Skin paths to record in the header (may be empty).
    pub skins: Vec<SkinName>,
    /// Texture coordinates in texels.
    pub tex_coords: Vec<TexCoord>,
    /// Triangles, wound as real files wind them: clockwise seen from
    /// outside (the right-hand rule gives the inward normal).
    pub triangles: Vec<Triangle>,
    /// Frame headers.
    pub frames: Vec<Frame>,
    /// Every frame's vertices, frame-major: `frames.len() × num_xyz` entries.
    pub vertices: Vec<PackedVertex>,
}

impl Md2Model {
    /// Builds a model from its parts, generating glcmds (strips and fans that
    /// cover every triangle once) so Quake II itself could load it.
    ///
    /// The checks are the loader's: at least one frame, vertex, texture
    /// coordinate and triangle; every index in range; finite scales; a skin
    /// size of 1 to 32768 texels; and sizes that fit the format's 32-bit
    /// header. What the loader accepts with a warning (more frames than
    /// Quake II allows, normal indices past the table, a skin name with no
    /// NUL) is accepted here too, and the written file loads with that
    /// warning. Frame names that repeat an animation's name later on are
    /// reported here already, in [`Md2Model::warnings`], as
    /// [`Md2Warning::AnimationRenamed`](crate::format::Md2Warning::AnimationRenamed).
    pub fn from_parts(parts: Md2Parts) -> Result<Md2Model, Md2Error> {
        let invalid = |reason: String| Err(Md2Error::InvalidParts { reason });
        let Md2Parts {
            skin_size,
            skins,
            tex_coords,
            triangles,
            frames,
            vertices,
        } = parts;
        let side = 1..=MAX_SKIN_SIDE as u32;
        if !side.contains(&skin_size.0) || !side.contains(&skin_size.1) {
            return invalid(format!("skin size {skin_size:?} is not 1 to 32768 texels"));
        }
        if frames.is_empty() || tex_coords.is_empty() || triangles.is_empty() {
            return invalid(
                "a model needs at least one frame, texture coordinate and triangle".into(),
            );
        }
        if vertices.len() % frames.len() != 0 || vertices.is_empty() {
            return invalid(format!(
                "{} vertices do not divide into {} frames",
                vertices.len(),
                frames.len()
            ));
        }
        let num_xyz = vertices.len() / frames.len();
        for (i, tri) in triangles.iter().enumerate() {
            for k in 0..3 {
                if tri.xyz[k] as usize >= num_xyz || tri.st[k] as usize >= tex_coords.len() {
                    return invalid(format!(
                        "triangle {i} corner {k} names vertex {} / st {}, but there are {num_xyz} / {}",
                        tri.xyz[k],
                        tri.st[k],
                        tex_coords.len()
                    ));
                }
            }
        }
        for (i, f) in frames.iter().enumerate() {
            if f.scale.iter().chain(&f.translate).any(|x| !x.is_finite()) {
                return invalid(format!("frame {i} has a non-finite scale or translate"));
            }
        }
        let (keyframes, warnings) =
            keyframes_of(skin_size, &tex_coords, &triangles, frames, vertices);
        let mut model = Md2Model {
            header: Md2Header {
                ident: Md2Header::IDENT,
                version: Md2Header::VERSION,
                skinwidth: skin_size.0 as i32,
                skinheight: skin_size.1 as i32,
                num_xyz: num_xyz as i32,
                ..zero_header()
            },
            skins,
            tex_coords,
            triangles,
            glcmds: Vec::new(),
            warnings,
            keyframes,
        };
        model.glcmds = generate_glcmds(&model);
        model.header = model
            .layout()
            .map_err(|size| Md2Error::TooLargeToWrite { size })?;
        Ok(model)
    }

    /// The header as [`Md2Model::to_bytes`] writes it: sections in the usual
    /// order (skins, st, triangles, frames, glcmds) with no gaps.
    pub fn canonical_header(&self) -> Md2Header {
        // Both constructors (the loader and `from_parts`) refuse a model
        // whose layout does not fit, so every model has one.
        self.layout()
            .unwrap_or_else(|size| unreachable!("a {size}-byte model was constructed"))
    }

    /// The canonical header, or the size the file would have where that is
    /// more than a 32-bit header can describe (a loaded file whose dropped
    /// glcmds, regenerated, would push it past 2 GiB).
    pub(crate) fn layout(&self) -> Result<Md2Header, u64> {
        canonical_header(self, glcmd_words(&self.glcmds_to_write()) as u64)
    }

    /// Writes the model as an MD2 file.
    ///
    /// A file that loaded with no warnings writes back byte for byte. A model
    /// whose glcmds were missing or dropped gets them generated from the
    /// triangles.
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = self.canonical_header();
        let mut out = Vec::with_capacity(h.ofs_end as usize);
        out.extend_from_slice(&h.ident);
        for (_, value) in &h.fields()[1..] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        for skin in &self.skins {
            out.extend_from_slice(&skin.bytes);
        }
        for st in &self.tex_coords {
            out.extend_from_slice(&st.s.to_le_bytes());
            out.extend_from_slice(&st.t.to_le_bytes());
        }
        for tri in &self.triangles {
            for i in tri.xyz.iter().chain(&tri.st) {
                out.extend_from_slice(&i.to_le_bytes());
            }
        }
        for (i, frame) in (0..).zip(self.keyframes().frames()) {
            for x in frame.scale.iter().chain(&frame.translate) {
                out.extend_from_slice(&x.to_le_bytes());
            }
            out.extend_from_slice(&frame.name_bytes);
            out.extend_from_slice(bytemuck::cast_slice(
                self.keyframes().frame_data(i).packed(),
            ));
        }
        for cmd in self.glcmds_to_write().iter() {
            let n = cmd.vertices.len() as i32;
            let n = if cmd.kind == GlCmdKind::Fan { -n } else { n };
            out.extend_from_slice(&n.to_le_bytes());
            for v in &cmd.vertices {
                out.extend_from_slice(&v.s.to_le_bytes());
                out.extend_from_slice(&v.t.to_le_bytes());
                out.extend_from_slice(&(v.xyz as i32).to_le_bytes());
            }
        }
        out.extend_from_slice(&0i32.to_le_bytes());
        debug_assert_eq!(out.len(), h.ofs_end as usize);
        out
    }

    /// The stored glcmds, or generated ones where the file had none.
    fn glcmds_to_write(&self) -> std::borrow::Cow<'_, [GlCmd]> {
        if self.glcmds.is_empty() {
            std::borrow::Cow::Owned(generate_glcmds(self))
        } else {
            std::borrow::Cow::Borrowed(&self.glcmds)
        }
    }
}

/// Words a glcmd list takes, the terminating 0 included.
fn glcmd_words(cmds: &[GlCmd]) -> usize {
    1 + cmds.iter().map(|c| 1 + 3 * c.vertices.len()).sum::<usize>()
}

fn zero_header() -> Md2Header {
    Md2Header {
        ident: Md2Header::IDENT,
        version: Md2Header::VERSION,
        skinwidth: 0,
        skinheight: 0,
        framesize: 0,
        num_skins: 0,
        num_xyz: 0,
        num_st: 0,
        num_tris: 0,
        num_glcmds: 0,
        num_frames: 0,
        ofs_skins: 0,
        ofs_st: 0,
        ofs_tris: 0,
        ofs_frames: 0,
        ofs_glcmds: 0,
        ofs_end: 0,
    }
}
