//! Reading an MD2 file: every extent and index checked before anything is
//! allocated, so no header can make the loader allocate more than the file's
//! length justifies, read out of bounds, or panic.

use std::path::Path;

use super::error::{Md2Error, Md2Warning, Section};
use super::keyframes::keyframes_of;
use super::layout::{
    FRAME_HEADER_SIZE, GLCMD_WORD, MAX_FRAMES, MAX_SKIN_SIDE, MAX_SKINS, MAX_TRIANGLES, MAX_VERTS,
    SKIN_NAME_SIZE, ST_SIZE, TRIANGLE_SIZE,
};
use super::model::{GlCmd, GlCmdKind, GlVertex, Md2Header, Md2Model, SkinName, TexCoord, Triangle};
use crate::model::{Frame, PackedVertex};

impl Md2Model {
    /// Reads a model from a file. Any error is an [`Md2Error::InFile`]
    /// naming `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Md2Model, Md2Error> {
        let path = path.as_ref();
        std::fs::read(path)
            .map_err(|source| Md2Error::Io { source })
            .and_then(|bytes| Md2Model::from_bytes(&bytes))
            .map_err(|e| e.in_file(path))
    }

    /// Reads a model from the bytes of an MD2 file. Errors name no file
    /// (see [`Md2Error`]).
    ///
    /// Validation is at least as strict as Q2PRO's: every section lies inside
    /// the file (in 64-bit arithmetic), `framesize` ≥ 40 + 4 · `num_xyz`,
    /// every triangle index is in range, scales and translations are finite.
    /// Quirks that real files have load, and are listed in
    /// [`Md2Model::warnings`].
    ///
    /// ```
    /// use md2_wgpu::{Md2Model, model::{Frame, PackedVertex}, format::{Md2Parts, TexCoord, Triangle}};
    ///
    /// // One triangle, one frame, written and read back.
    /// let corner = |x: u8, y: u8| PackedVertex { position: [x, y, 0], normal_index: 5 };
    /// let built = Md2Model::from_parts(Md2Parts {
    ///     skin_size: (64, 32),
    ///     tex_coords: vec![TexCoord { s: 0, t: 0 }; 3],
    ///     triangles: vec![Triangle { xyz: [0, 1, 2], st: [0, 1, 2] }],
    ///     frames: vec![Frame::new("stand01", [1.0; 3], [0.0; 3])],
    ///     vertices: vec![corner(0, 0), corner(255, 0), corner(0, 255)],
    ///     ..Default::default()
    /// })?;
    /// let model = Md2Model::from_bytes(&built.to_bytes())?;
    /// assert_eq!(model, built);
    /// assert_eq!(model.animations()[0].name, "stand");
    /// assert!(model.warnings().is_empty());
    /// # Ok::<(), md2_wgpu::format::Md2Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Md2Model, Md2Error> {
        Parser::new(bytes)?.parse()
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    header: Md2Header,
    warnings: Vec<Md2Warning>,
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_f32(b: &[u8], at: usize) -> f32 {
    f32::from_bits(le_i32(b, at) as u32)
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn vec3(b: &[u8], at: usize) -> [f32; 3] {
    [le_f32(b, at), le_f32(b, at + 4), le_f32(b, at + 8)]
}

/// A section's place in the file, once checked.
#[derive(Clone, Copy)]
struct Extent {
    start: usize,
    count: usize,
}

impl<'a> Parser<'a> {
    fn new(bytes: &'a [u8]) -> Result<Self, Md2Error> {
        if bytes.len() < Md2Header::SIZE {
            return Err(Md2Error::TruncatedHeader {
                length: bytes.len(),
            });
        }
        let f = |i: usize| le_i32(bytes, 4 * i);
        let header = Md2Header {
            ident: [bytes[0], bytes[1], bytes[2], bytes[3]],
            version: f(1),
            skinwidth: f(2),
            skinheight: f(3),
            framesize: f(4),
            num_skins: f(5),
            num_xyz: f(6),
            num_st: f(7),
            num_tris: f(8),
            num_glcmds: f(9),
            num_frames: f(10),
            ofs_skins: f(11),
            ofs_st: f(12),
            ofs_tris: f(13),
            ofs_frames: f(14),
            ofs_glcmds: f(15),
            ofs_end: f(16),
        };
        if header.ident != Md2Header::IDENT {
            return Err(Md2Error::BadIdent {
                found: header.ident,
            });
        }
        if header.version != Md2Header::VERSION {
            return Err(Md2Error::UnsupportedVersion {
                found: header.version,
            });
        }
        Ok(Parser {
            bytes,
            header,
            warnings: Vec::new(),
        })
    }

    fn invalid(&self, field: &'static str, value: i32, expected: &'static str) -> Md2Error {
        Md2Error::InvalidField {
            field,
            value: value as i64,
            expected,
            length: self.bytes.len(),
        }
    }

    /// A count field: non-negative, and at least `min`.
    fn count(&self, field: &'static str, value: i32, min: i32) -> Result<usize, Md2Error> {
        if value < min {
            let expected = if min == 0 { "0 or more" } else { "1 or more" };
            return Err(self.invalid(field, value, expected));
        }
        Ok(value as usize)
    }

    fn limit(&mut self, field: &'static str, value: usize, limit: usize) {
        if value > limit {
            self.warnings.push(Md2Warning::BeyondQuake2Limit {
                field,
                value,
                limit,
            });
        }
    }

    /// Checks that `count` records of `size` bytes at `offset` lie between the
    /// header and `end`, in 64-bit arithmetic so no header can overflow it.
    fn extent(
        &self,
        section: Section,
        offset: i32,
        count: usize,
        size: usize,
        end: usize,
    ) -> Result<Extent, Md2Error> {
        let offset = offset as i64;
        let stop = offset + count as i64 * size as i64;
        let overlaps_header = count > 0 && offset < Md2Header::SIZE as i64;
        if offset < 0 || overlaps_header || stop > end as i64 {
            return Err(Md2Error::SectionOutOfBounds {
                section,
                offset,
                end: stop,
                allowed: (Md2Header::SIZE, end),
            });
        }
        Ok(Extent {
            start: offset as usize,
            count,
        })
    }

    fn parse(mut self) -> Result<Md2Model, Md2Error> {
        let h = self.header;
        let length = self.bytes.len();

        let skin_side = "1 to 32768 texels";
        if !(1..=MAX_SKIN_SIDE).contains(&h.skinwidth) {
            return Err(self.invalid("skinwidth", h.skinwidth, skin_side));
        }
        if !(1..=MAX_SKIN_SIDE).contains(&h.skinheight) {
            return Err(self.invalid("skinheight", h.skinheight, skin_side));
        }
        let num_skins = self.count("num_skins", h.num_skins, 0)?;
        let num_xyz = self.count("num_xyz", h.num_xyz, 1)?;
        let num_st = self.count("num_st", h.num_st, 1)?;
        let num_tris = self.count("num_tris", h.num_tris, 1)?;
        let num_glcmds = self.count("num_glcmds", h.num_glcmds, 0)?;
        let num_frames = self.count("num_frames", h.num_frames, 1)?;

        let needed = FRAME_HEADER_SIZE as i64 + 4 * num_xyz as i64;
        if (h.framesize as i64) < needed {
            return Err(self.invalid("framesize", h.framesize, "at least 40 + 4 × num_xyz"));
        }
        let framesize = h.framesize as usize;

        // ofs_end bounds every section: a header that claims more file than
        // there is has been truncated or lies.
        if h.ofs_end < 0 || h.ofs_end as usize > length {
            return Err(Md2Error::BadEnd {
                ofs_end: h.ofs_end as i64,
                sections_end: self.sections_end(),
                length,
            });
        }
        let end = h.ofs_end as usize;
        let skins = self.extent(Section::Skins, h.ofs_skins, num_skins, SKIN_NAME_SIZE, end)?;
        let st = self.extent(Section::TexCoords, h.ofs_st, num_st, ST_SIZE, end)?;
        let tris = self.extent(Section::Triangles, h.ofs_tris, num_tris, TRIANGLE_SIZE, end)?;
        let frames = self.extent(Section::Frames, h.ofs_frames, num_frames, framesize, end)?;
        let glcmds = self.extent(Section::GlCmds, h.ofs_glcmds, num_glcmds, GLCMD_WORD, end)?;

        self.limit("num_xyz", num_xyz, MAX_VERTS);
        self.limit("num_tris", num_tris, MAX_TRIANGLES);
        self.limit("num_frames", num_frames, MAX_FRAMES);
        self.limit("num_skins", num_skins, MAX_SKINS);
        if framesize as i64 > needed {
            self.warnings.push(Md2Warning::FramePadding {
                framesize,
                needed: needed as usize,
            });
        }
        if end < length {
            self.warnings.push(Md2Warning::TrailingBytes {
                ofs_end: end,
                length,
            });
        }

        let skins = self.skins(skins);
        let tex_coords = self.tex_coords(st);
        let triangles = self.triangles(tris, num_xyz, num_st)?;
        let (frames, vertices) = self.frames(frames, num_xyz, framesize)?;
        let glcmds = self.glcmds(glcmds, num_xyz);
        let skin_size = (h.skinwidth as u32, h.skinheight as u32);
        let (keyframes, renames) =
            keyframes_of(skin_size, &tex_coords, &triangles, frames, vertices);

        let mut model = Md2Model {
            header: h,
            skins,
            tex_coords,
            triangles,
            glcmds,
            warnings: Vec::new(),
            keyframes,
        };
        // A file laid out as the writer lays it out rewrites byte for byte;
        // any other layout is a quirk the caller should know a rewrite
        // changes. A glcmd or padding warning explains only the header
        // fields it moves: sections placed elsewhere (gaps, overlaps, another
        // order) are still reported.
        let has = |f: fn(&Md2Warning) -> bool| self.warnings.iter().any(f);
        let padded = has(|w| matches!(w, Md2Warning::FramePadding { .. }));
        let glcmds_odd = has(|w| {
            matches!(
                w,
                Md2Warning::GlCmdsDropped { .. }
                    | Md2Warning::GlCmdsMissing
                    | Md2Warning::GlCmdsTrailingWords { .. }
            )
        });
        let c = model
            .layout()
            .map_err(|size| Md2Error::TooLargeToWrite { size })?;
        let mut moved = (c.ofs_skins, c.ofs_st, c.ofs_tris, c.ofs_frames)
            != (h.ofs_skins, h.ofs_st, h.ofs_tris, h.ofs_frames);
        if !padded {
            moved |= (c.framesize, c.ofs_glcmds) != (h.framesize, h.ofs_glcmds);
        }
        if !padded && !glcmds_odd {
            moved |= (c.num_glcmds, c.ofs_end) != (h.num_glcmds, h.ofs_end);
        }
        if moved {
            self.warnings.push(Md2Warning::NonCanonicalLayout);
        }
        self.warnings.extend(renames);
        model.warnings = self.warnings;
        Ok(model)
    }

    /// Where the furthest section claims to end, for error messages.
    fn sections_end(&self) -> i64 {
        let h = &self.header;
        let end = |ofs: i32, n: i32, size: i64| ofs as i64 + n as i64 * size;
        [
            end(h.ofs_skins, h.num_skins, SKIN_NAME_SIZE as i64),
            end(h.ofs_st, h.num_st, ST_SIZE as i64),
            end(h.ofs_tris, h.num_tris, TRIANGLE_SIZE as i64),
            end(h.ofs_frames, h.num_frames, h.framesize as i64),
            end(h.ofs_glcmds, h.num_glcmds, GLCMD_WORD as i64),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    fn skins(&mut self, e: Extent) -> Vec<SkinName> {
        let mut skins = Vec::with_capacity(e.count);
        for i in 0..e.count {
            let at = e.start + i * SKIN_NAME_SIZE;
            let mut bytes = [0u8; SKIN_NAME_SIZE];
            bytes.copy_from_slice(&self.bytes[at..at + SKIN_NAME_SIZE]);
            if !bytes.contains(&0) {
                self.warnings
                    .push(Md2Warning::SkinNameUnterminated { skin: i });
            }
            skins.push(SkinName { bytes });
        }
        skins
    }

    fn tex_coords(&self, e: Extent) -> Vec<TexCoord> {
        self.bytes[e.start..e.start + e.count * ST_SIZE]
            .chunks_exact(ST_SIZE)
            .map(|c| TexCoord {
                s: i16::from_le_bytes([c[0], c[1]]),
                t: i16::from_le_bytes([c[2], c[3]]),
            })
            .collect()
    }

    fn triangles(
        &self,
        e: Extent,
        num_xyz: usize,
        num_st: usize,
    ) -> Result<Vec<Triangle>, Md2Error> {
        let mut out = Vec::with_capacity(e.count);
        for i in 0..e.count {
            let at = e.start + i * TRIANGLE_SIZE;
            let mut tri = Triangle::default();
            for k in 0..3 {
                tri.xyz[k] = le_u16(self.bytes, at + 2 * k);
                tri.st[k] = le_u16(self.bytes, at + 6 + 2 * k);
            }
            for k in 0..3 {
                let checks = [
                    ("index_xyz", tri.xyz[k], num_xyz, at + 2 * k),
                    ("index_st", tri.st[k], num_st, at + 6 + 2 * k),
                ];
                for (field, index, count, offset) in checks {
                    if index as usize >= count {
                        return Err(Md2Error::IndexOutOfRange {
                            triangle: i,
                            field,
                            corner: k,
                            index: index as u32,
                            count,
                            offset,
                        });
                    }
                }
            }
            out.push(tri);
        }
        Ok(out)
    }

    fn frames(
        &mut self,
        e: Extent,
        num_xyz: usize,
        framesize: usize,
    ) -> Result<(Vec<Frame>, Vec<PackedVertex>), Md2Error> {
        let mut frames = Vec::with_capacity(e.count);
        let mut vertices = Vec::with_capacity(e.count * num_xyz);
        let mut bad_normals = 0usize;
        let mut first_bad = None;
        for i in 0..e.count {
            let at = e.start + i * framesize;
            let scale = vec3(self.bytes, at);
            let translate = vec3(self.bytes, at + 12);
            for (field, value, offset) in [("scale", scale, at), ("translate", translate, at + 12)]
            {
                if value.iter().any(|x| !x.is_finite()) {
                    return Err(Md2Error::NonFiniteFrame {
                        // i < num_frames, an i32.
                        frame: i as u32,
                        field,
                        value,
                        offset,
                    });
                }
            }
            let mut name_bytes = [0u8; 16];
            name_bytes.copy_from_slice(&self.bytes[at + 24..at + 40]);
            frames.push(Frame {
                scale,
                translate,
                name_bytes,
            });
            let verts = &self.bytes[at + FRAME_HEADER_SIZE..at + FRAME_HEADER_SIZE + 4 * num_xyz];
            for (j, c) in verts.chunks_exact(4).enumerate() {
                if c[3] as usize >= crate::model::ANORMS.len() {
                    bad_normals += 1;
                    first_bad.get_or_insert((i as u32, j, c[3]));
                }
                vertices.push(PackedVertex {
                    position: [c[0], c[1], c[2]],
                    normal_index: c[3],
                });
            }
        }
        if let Some(first) = first_bad {
            self.warnings.push(Md2Warning::NormalIndexOutOfTable {
                count: bad_normals,
                first,
            });
        }
        Ok((frames, vertices))
    }

    /// Decodes the glcmd block. A broken block is dropped with a warning
    /// rather than failing the model: the triangles carry the mesh, and the
    /// glcmds are only Quake II's drawing order for it.
    fn glcmds(&mut self, e: Extent, num_xyz: usize) -> Vec<GlCmd> {
        if e.count == 0 {
            self.warnings.push(Md2Warning::GlCmdsMissing);
            return Vec::new();
        }
        match decode_glcmds(self.bytes, e, num_xyz) {
            Ok((cmds, trailing)) => {
                if trailing > 0 {
                    self.warnings
                        .push(Md2Warning::GlCmdsTrailingWords { words: trailing });
                }
                cmds
            }
            Err((reason, offset)) => {
                self.warnings
                    .push(Md2Warning::GlCmdsDropped { reason, offset });
                Vec::new()
            }
        }
    }
}

/// Walks the glcmd words; returns the commands and the count of words after
/// the terminating 0, or what was wrong and the byte offset where.
fn decode_glcmds(
    bytes: &[u8],
    e: Extent,
    num_xyz: usize,
) -> Result<(Vec<GlCmd>, usize), (String, usize)> {
    let word = |i: usize| le_i32(bytes, e.start + 4 * i);
    let mut cmds = Vec::new();
    let mut i = 0;
    while i < e.count {
        let n = word(i);
        let at = e.start + 4 * i;
        i += 1;
        if n == 0 {
            return Ok((cmds, e.count - i));
        }
        let verts = n.unsigned_abs() as usize;
        if verts < 3 {
            return Err((format!("a command of {verts} vertices"), at));
        }
        // Checked before allocating: the command's vertices must fit in what
        // is left of the block.
        if verts > (e.count - i) / 3 {
            return Err((
                format!(
                    "a command of {verts} vertices runs past the block's end ({} words left)",
                    e.count - i
                ),
                at,
            ));
        }
        let mut vertices = Vec::with_capacity(verts);
        for _ in 0..verts {
            let s = f32::from_bits(word(i) as u32);
            let t = f32::from_bits(word(i + 1) as u32);
            let xyz = word(i + 2);
            let vat = e.start + 4 * i;
            if !(s.is_finite() && t.is_finite()) {
                return Err(("a texture coordinate is not finite".into(), vat));
            }
            if xyz < 0 || xyz as usize >= num_xyz {
                return Err((
                    format!("vertex index {xyz} is outside 0..{num_xyz}"),
                    vat + 8,
                ));
            }
            vertices.push(GlVertex {
                s,
                t,
                xyz: xyz as u32,
            });
            i += 3;
        }
        let kind = if n > 0 {
            GlCmdKind::Strip
        } else {
            GlCmdKind::Fan
        };
        cmds.push(GlCmd { kind, vertices });
    }
    Err((
        "the block does not end with 0".into(),
        e.start + 4 * e.count,
    ))
}
