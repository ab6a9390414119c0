//! Reading an MDL file. The file has no offsets, so the reader walks it
//! part by part; before each record it checks that the bytes the record
//! needs are there, so no count can make it allocate more than the file's
//! length justifies, read out of bounds, or panic.

use std::path::Path;

use super::error::{MdlError, MdlPart, MdlWarning};
use super::keyframes::{Poses, keyframes_of};
use super::layout::{
    GROUP_BOX_SIZE, MAX_POSES, MAX_SKINS, MAX_TRIANGLES, MAX_VERTS, ORIGINAL_MAX_SKIN_HEIGHT,
    POSE_HEADER_SIZE, TEX_COORD_SIZE, TRIANGLE_SIZE,
};
use super::model::{
    MdlFrame, MdlFrameGroup, MdlHeader, MdlModel, MdlPoseBox, MdlSkin, MdlTexCoord, MdlTriangle,
};
use crate::model::{ANORMS, PackedVertex};

impl MdlModel {
    /// Reads a model from a file. Any error is an [`MdlError::InFile`]
    /// naming `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<MdlModel, MdlError> {
        let path = path.as_ref();
        std::fs::read(path)
            .map_err(|source| MdlError::Io { source })
            .and_then(|bytes| MdlModel::from_bytes(&bytes))
            .map_err(|e| e.in_file(path))
    }

    /// Reads a model from the bytes of an MDL file. Errors name no file.
    ///
    /// Validation is at least as strict as the engines': the counts within
    /// [the limits](super#limits), every part inside the file, every
    /// triangle's vertices in range, the scale and translate finite, every
    /// group's intervals positive. Quirks real files have (bytes after the
    /// last frame, a skin taller than the original's 480 rows, normal
    /// indices past the table) load and are listed in
    /// [`MdlModel::warnings`].
    pub fn from_bytes(bytes: &[u8]) -> Result<MdlModel, MdlError> {
        let header = read_header(bytes)?;
        let mut reader = Reader {
            bytes,
            at: MdlHeader::SIZE,
        };
        let counts = Counts::of(&header)?;
        let mut warnings = Vec::new();
        if counts.height > ORIGINAL_MAX_SKIN_HEIGHT {
            warnings.push(MdlWarning::TallSkin {
                height: counts.height,
            });
        }
        let skins = reader.skins(&counts)?;
        let tex_coords = reader.tex_coords(counts.verts)?;
        let triangles = reader.triangles(counts.tris, counts.verts)?;
        let poses = reader.frames(&counts)?;
        let end = reader.at;
        let trailing = bytes[end..].to_vec();
        if !trailing.is_empty() {
            warnings.push(MdlWarning::TrailingBytes {
                end,
                length: bytes.len(),
            });
        }
        let model = keyframes_of(
            header, skins, tex_coords, triangles, poses, trailing, warnings,
        );
        Ok(model)
    }
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_f32(b: &[u8], at: usize) -> f32 {
    f32::from_bits(le_i32(b, at) as u32)
}

fn vec3(b: &[u8], at: usize) -> [f32; 3] {
    [le_f32(b, at), le_f32(b, at + 4), le_f32(b, at + 8)]
}

/// A 4-byte vertex (`trivertx_t`): x, y, z and the normal index.
fn packed(c: &[u8]) -> PackedVertex {
    PackedVertex {
        position: [c[0], c[1], c[2]],
        normal_index: c[3],
    }
}

fn read_header(bytes: &[u8]) -> Result<MdlHeader, MdlError> {
    if bytes.len() < MdlHeader::SIZE {
        return Err(MdlError::TruncatedHeader {
            length: bytes.len(),
        });
    }
    let i = |n: usize| le_i32(bytes, n);
    let header = MdlHeader {
        ident: [bytes[0], bytes[1], bytes[2], bytes[3]],
        version: i(4),
        scale: vec3(bytes, 8),
        translate: vec3(bytes, 20),
        bounding_radius: le_f32(bytes, 32),
        eye_position: vec3(bytes, 36),
        num_skins: i(48),
        skin_width: i(52),
        skin_height: i(56),
        num_verts: i(60),
        num_tris: i(64),
        num_frames: i(68),
        sync_type: i(72),
        flags: i(76),
        size: le_f32(bytes, 80),
    };
    if header.ident != MdlHeader::IDENT {
        return Err(MdlError::BadIdent {
            found: header.ident,
        });
    }
    if header.version != MdlHeader::VERSION {
        return Err(MdlError::UnsupportedVersion {
            found: header.version,
        });
    }
    for (field, value) in [("scale", header.scale), ("translate", header.translate)] {
        if value.iter().any(|x| !x.is_finite()) {
            return Err(MdlError::NonFinite { field, value });
        }
    }
    Ok(header)
}

/// The header's counts, each checked against its limit.
pub(crate) struct Counts {
    pub skins: usize,
    pub width: u32,
    pub height: u32,
    pub verts: usize,
    pub tris: usize,
    pub frames: usize,
}

impl Counts {
    pub(crate) fn of(h: &MdlHeader) -> Result<Counts, MdlError> {
        let ranged = |field: &'static str, value: i32, limit: i64| {
            if value < 1 {
                return Err(MdlError::InvalidField {
                    field: field.into(),
                    value: value.into(),
                    expected: "1 or more",
                });
            }
            if i64::from(value) > limit {
                return Err(MdlError::BeyondLimit {
                    field,
                    value: value.into(),
                    limit,
                });
            }
            Ok(value as usize)
        };
        Ok(Counts {
            skins: ranged("numskins", h.num_skins, MAX_SKINS)?,
            // A side is bounded by the file: each skin image is read whole.
            width: ranged("skinwidth", h.skin_width, i64::from(i32::MAX))? as u32,
            height: ranged("skinheight", h.skin_height, i64::from(i32::MAX))? as u32,
            verts: ranged("numverts", h.num_verts, MAX_VERTS)?,
            tris: ranged("numtris", h.num_tris, MAX_TRIANGLES)?,
            frames: ranged("numframes", h.num_frames, MAX_POSES)?,
        })
    }

    fn image_size(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// A cursor over the file that checks every extent before reading it.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// Refuses unless `needed` more bytes are in the file.
    fn need(&self, part: MdlPart, index: usize, needed: u64) -> Result<(), MdlError> {
        let left = (self.bytes.len() - self.at) as u64;
        if needed > left {
            return Err(MdlError::Truncated {
                part,
                index,
                offset: self.at,
                needed,
                length: self.bytes.len(),
            });
        }
        Ok(())
    }

    /// The next `n` bytes, checked.
    fn take(&mut self, part: MdlPart, index: usize, n: u64) -> Result<&[u8], MdlError> {
        self.need(part, index, n)?;
        let start = self.at;
        // n fits: it is at most the bytes left.
        self.at += n as usize;
        Ok(&self.bytes[start..self.at])
    }

    fn i32(&mut self, part: MdlPart, index: usize) -> Result<i32, MdlError> {
        let b = self.take(part, index, 4)?;
        Ok(le_i32(b, 0))
    }

    /// A group's count: 1 or more.
    fn group_count(&mut self, part: MdlPart, index: usize, what: &str) -> Result<usize, MdlError> {
        let count = self.i32(part, index)?;
        if count < 1 {
            return Err(MdlError::InvalidField {
                field: format!("{what} {index}'s count"),
                value: count.into(),
                expected: "1 or more",
            });
        }
        Ok(count as usize)
    }

    fn intervals(
        &mut self,
        part: MdlPart,
        index: usize,
        intervals: &mut [f32],
    ) -> Result<(), MdlError> {
        let start = self.at;
        let bytes = self.take(part, index, 4 * intervals.len() as u64)?;
        for (i, (out, word)) in intervals.iter_mut().zip(bytes.chunks_exact(4)).enumerate() {
            let value = le_f32(word, 0);
            if !(value.is_finite() && value > 0.0) {
                return Err(MdlError::BadInterval {
                    part,
                    index,
                    interval: i,
                    value,
                    offset: start + 4 * i,
                });
            }
            *out = value;
        }
        Ok(())
    }

    fn skins(&mut self, counts: &Counts) -> Result<Vec<MdlSkin>, MdlError> {
        let part = MdlPart::Skins;
        let size = counts.image_size();
        let mut skins = Vec::with_capacity(counts.skins);
        for index in 0..counts.skins {
            let kind = self.i32(part, index)?;
            let skin = match kind {
                0 => MdlSkin::Single(self.take(part, index, size)?.to_vec()),
                1 => {
                    let count = self.group_count(part, index, "skin group")?;
                    // The intervals and every image must be in the file
                    // before anything is allocated for them.
                    self.need(part, index, (4 + size) * count as u64)?;
                    let mut intervals = vec![0.0; count];
                    self.intervals(part, index, &mut intervals)?;
                    let images = (0..count)
                        .map(|_| self.take(part, index, size).map(<[u8]>::to_vec))
                        .collect::<Result<_, _>>()?;
                    MdlSkin::Group { intervals, images }
                }
                other => {
                    return Err(MdlError::InvalidField {
                        field: format!("skin {index}'s type"),
                        value: other.into(),
                        expected: "0 (one image) or 1 (a group)",
                    });
                }
            };
            skins.push(skin);
        }
        Ok(skins)
    }

    fn tex_coords(&mut self, verts: usize) -> Result<Vec<MdlTexCoord>, MdlError> {
        let bytes = self.take(MdlPart::TexCoords, 0, TEX_COORD_SIZE * verts as u64)?;
        Ok(bytes
            .chunks_exact(TEX_COORD_SIZE as usize)
            .map(|c| MdlTexCoord {
                on_seam: le_i32(c, 0),
                s: le_i32(c, 4),
                t: le_i32(c, 8),
            })
            .collect())
    }

    fn triangles(&mut self, tris: usize, verts: usize) -> Result<Vec<MdlTriangle>, MdlError> {
        let start = self.at;
        let bytes = self.take(MdlPart::Triangles, 0, TRIANGLE_SIZE * tris as u64)?;
        let mut out = Vec::with_capacity(tris);
        for (triangle, c) in bytes.chunks_exact(TRIANGLE_SIZE as usize).enumerate() {
            let tri = MdlTriangle {
                faces_front: le_i32(c, 0),
                vertices: [le_i32(c, 4), le_i32(c, 8), le_i32(c, 12)],
            };
            for (corner, &index) in tri.vertices.iter().enumerate() {
                if index < 0 || index as usize >= verts {
                    return Err(MdlError::IndexOutOfRange {
                        triangle,
                        corner,
                        index,
                        count: verts,
                        offset: start + triangle * TRIANGLE_SIZE as usize + 4 + 4 * corner,
                    });
                }
            }
            out.push(tri);
        }
        Ok(out)
    }

    /// One pose: its box, name and vertices.
    fn pose(&mut self, index: usize, verts: usize, poses: &mut Poses) -> Result<(), MdlError> {
        let bytes = self.take(MdlPart::Frames, index, POSE_HEADER_SIZE + 4 * verts as u64)?;
        poses.boxes.push(MdlPoseBox {
            min: packed(&bytes[0..4]),
            max: packed(&bytes[4..8]),
        });
        let mut name = [0u8; 16];
        name.copy_from_slice(&bytes[8..24]);
        poses.names.push(name);
        let pose = poses.boxes.len() as u32 - 1;
        for (vertex, c) in bytes[24..].chunks_exact(4).enumerate() {
            let v = packed(c);
            if usize::from(v.normal_index) >= ANORMS.len() {
                poses.note_bad_normal(pose, vertex, v.normal_index);
            }
            poses.vertices.push(v);
        }
        Ok(())
    }

    fn frames(&mut self, counts: &Counts) -> Result<Poses, MdlError> {
        let part = MdlPart::Frames;
        let pose_size = POSE_HEADER_SIZE + 4 * counts.verts as u64;
        // Every frame holds at least one pose, so the file bounds how many
        // there can be before anything is reserved for them.
        let fit = (self.bytes.len() - self.at) as u64 / (4 + pose_size);
        let mut poses = Poses::with_capacity(counts.frames.min(fit as usize), counts.verts);
        for index in 0..counts.frames {
            let first = poses.count();
            let kind = self.i32(part, index)?;
            let group = match kind {
                0 => None,
                1 => {
                    let count = self.group_count(part, index, "frame group")?;
                    let poses = i64::from(first) + count as i64;
                    if poses > MAX_POSES {
                        return Err(MdlError::BeyondLimit {
                            field: "poses",
                            value: poses,
                            limit: MAX_POSES,
                        });
                    }
                    // The box, the intervals and every pose must be in the
                    // file before anything is allocated for them.
                    self.need(part, index, GROUP_BOX_SIZE + (4 + pose_size) * count as u64)?;
                    let bbox = self.take(part, index, GROUP_BOX_SIZE)?;
                    let (bbox_min, bbox_max) = (packed(&bbox[0..4]), packed(&bbox[4..8]));
                    let mut intervals = vec![0.0; count];
                    self.intervals(part, index, &mut intervals)?;
                    Some(MdlFrameGroup {
                        bbox_min,
                        bbox_max,
                        intervals,
                    })
                }
                other => {
                    return Err(MdlError::InvalidField {
                        field: format!("frame {index}'s type"),
                        value: other.into(),
                        expected: "0 (one pose) or 1 (a group)",
                    });
                }
            };
            // A single pose fits: there are at most MAX_POSES frames.
            let count = group.as_ref().map_or(1, |g| g.intervals.len());
            for _ in 0..count {
                self.pose(index, counts.verts, &mut poses)?;
            }
            poses.frames.push(MdlFrame {
                first,
                count: count as u32,
                group,
            });
        }
        Ok(poses)
    }
}
